//! Sharding a [`Manager`](super::Manager)'s controllers across replicas: the objects are
//! split into `S` shards (KEP-5866's FNV-1a hash of the uid or namespace, even ranges of
//! the hash space, see [`kubegen_runtime::shard`]), each guarded by its own Lease
//! `<name>-shard-<i>`.
//!
//! Every replica runs one leader-election candidate per shard. A replica holding shard
//! `i` builds that shard's controllers on a fresh informer factory that lists and watches
//! the shard only (`shardSelector`, filtered client-side where the server ignores it),
//! runs them, and stops them and drops their caches before the election reports it
//! stopped leading: on shutdown with a drain (under the Lease, then released), on a lost
//! Lease at once (the reconciles in flight are dropped, the queue skipped). Leader
//! election's timings make the handover safe: the old holder steps down at its renew
//! deadline and its controllers have `lease_duration - renew_deadline` to stop (they
//! need only to notice), while a new holder acquires only after
//! the Lease went unrenewed for a whole lease duration; so no object is reconciled by two
//! replicas at once, and a dead replica's shards are taken over about one lease duration
//! after its last renewal.
//!
//! **Shares.** Without a rule the first replica up would take every shard. A replica
//! therefore takes a vacant shard while it holds fewer than its share,
//! `ceil(S / N)` for the `N` replicas it is told to expect ([`ShardConfig::replicas`]);
//! beyond its share it takes a shard only when the shard's holder died (its Lease
//! expired unrenewed) or the shard stayed vacant (absent or released) for a lease
//! duration, so that a shard is never left without a holder while some replica lives.
//! A shard the gate lets through is claimed at once (the claim lapses if another replica
//! wins the race), so a replica's candidates do not all fit in one share. A replica
//! keeps the shards it took over until it loses or releases them: shares even out again
//! as replicas restart.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, join_all};
use kubegen_runtime::controller::{self, Action, Controller, ControllerConfig, Reconciler};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::leaderelection::{
    LeaderElectionConfig, LeaderElector, Outcome, StepDown, Vacancy,
};
use kubegen_runtime::shard::{ShardKey, ShardSelector};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::manager::{ManagerError, Run};

/// How a manager splits its sharded controllers' objects between replicas; see the
/// [module documentation](self).
///
/// ```
/// use kubegen::operator::ShardConfig;
/// use kubegen::runtime::leaderelection::LeaderElectionConfig;
/// use kubegen::runtime::shard::ShardKey;
///
/// let election = LeaderElectionConfig::default().lease_name("foo-controller");
/// let config = ShardConfig::new(election, 4).replicas(3).key(ShardKey::Namespace);
/// assert_eq!(config.lease_name(2), "foo-controller-shard-2");
/// assert_eq!(config.share(), 2); // ceil(4 / 3)
/// ```
#[derive(Clone, Debug)]
pub struct ShardConfig {
    election: LeaderElectionConfig,
    shards: u32,
    replicas: u32,
    key: ShardKey,
}

impl ShardConfig {
    /// `shards` shards by uid, shard `i` guarded by the Lease `<lease name>-shard-<i>`,
    /// campaigned for with `election`'s namespace, identity, timings and release on
    /// cancel; as many replicas expected as there are shards.
    pub fn new(election: LeaderElectionConfig, shards: u32) -> Self {
        Self {
            election,
            shards,
            replicas: shards,
            key: ShardKey::Uid,
        }
    }

    /// The field whose hash places an object in a shard (default: the uid).
    pub fn key(mut self, key: ShardKey) -> Self {
        self.key = key;
        self
    }

    /// How many replicas run (default: one per shard): a replica's share is
    /// `ceil(shards / replicas)`.
    pub fn replicas(mut self, replicas: u32) -> Self {
        self.replicas = replicas;
        self
    }

    /// The number of shards.
    pub fn shards(&self) -> u32 {
        self.shards
    }

    /// The Lease guarding shard `index`.
    pub fn lease_name(&self, index: u32) -> String {
        format!("{}-shard-{index}", self.election.name())
    }

    /// How many shards a replica takes while their holders live: `ceil(shards /
    /// replicas)`.
    pub fn share(&self) -> usize {
        let share = self.shards.div_ceil(self.replicas.max(1));
        usize::try_from(share).unwrap_or(usize::MAX)
    }

    /// The election configuration every shard's Lease is campaigned for with.
    #[cfg(feature = "metrics")]
    pub(super) fn election_mut(&mut self) -> &mut LeaderElectionConfig {
        &mut self.election
    }

    fn validate(&self) -> Result<(), ManagerError> {
        let invalid = |reason: &str| {
            Err(ManagerError::Sharding {
                reason: reason.to_owned(),
            })
        };
        if self.shards == 0 {
            return invalid("there must be at least one shard");
        }
        if self.replicas == 0 {
            return invalid("there must be at least one replica");
        }
        if self.election.name().is_empty() {
            return invalid(
                "the election's lease name must be set: the shards' Leases are named after it",
            );
        }
        self.election
            .clone()
            .lease_name(self.lease_name(0))
            .validate()?;
        Ok(())
    }
}

/// One shard as this replica holds it: what a sharded controller is built from.
#[derive(Debug)]
pub struct Shard {
    index: u32,
    count: u32,
    selector: ShardSelector,
    factory: SharedInformerFactory,
    workers: Option<usize>,
    #[cfg(feature = "metrics")]
    metrics: super::Metrics,
}

impl Shard {
    /// The shard's index, in `0..count`.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many shards there are.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Which objects belong to the shard.
    pub fn selector(&self) -> &ShardSelector {
        &self.selector
    }

    /// The shard's informer factory: its informers list and watch the shard's objects
    /// only. Started once the controllers are built, shut down with the shard.
    pub fn factory(&self) -> &SharedInformerFactory {
        &self.factory
    }

    /// `config` as [`Manager::controller_config`](super::Manager::controller_config)
    /// gives it: with the workers of the manager's options (when set) and reporting to
    /// the manager's registry (with the `metrics` feature).
    pub fn controller_config(&self, config: ControllerConfig) -> ControllerConfig {
        let config = match self.workers {
            Some(workers) => config.workers(workers),
            None => config,
        };
        #[cfg(feature = "metrics")]
        let config = self.metrics.instrument(config);
        config
    }
}

/// One sharded controller's run: stops with a drain when the first token is cancelled
/// (shutdown), and at once when the second is, dropping the reconciles in flight and
/// skipping the queue (the shard's Lease was lost: another replica may take it a lease
/// duration after its last renewal, so there is no time to drain; the new holder
/// relists and reconciles anyway).
pub(super) type ShardRun = Box<
    dyn FnOnce(CancellationToken, CancellationToken) -> BoxFuture<'static, controller::Result<()>>
        + Send,
>;

/// Builds a shard's controller each time this replica takes the shard.
pub(super) type Build = Arc<dyn Fn(&Shard) -> ShardRun + Send + Sync>;

/// A sharded controller's builder as [`Build`].
pub(super) fn build<R, F>(build: F) -> Build
where
    R: Reconciler,
    F: Fn(&Shard) -> (Controller, R) + Send + Sync + 'static,
{
    Arc::new(move |shard: &Shard| -> ShardRun {
        let (controller, reconciler) = build(shard);
        Box::new(move |stop: CancellationToken, abandon: CancellationToken| {
            async move {
                let queue = controller.queue().clone();
                let fenced = Fenced {
                    inner: reconciler,
                    abandon: abandon.clone(),
                };
                let run = controller.run(fenced, stop.cancelled_owned());
                tokio::pin!(run);
                tokio::select! {
                    result = &mut run => result,
                    () = abandon.cancelled() => {
                        // Ends the drain: the workers skip what is still queued.
                        queue.shut_down();
                        run.await
                    }
                }
            }
            .boxed()
        })
    })
}

/// A shard's reconciler, fenced by its Lease: once the Lease is lost (`abandon`), the
/// reconcile in flight is dropped (as one past the reconcile timeout is) and queued
/// keys are skipped, so the shard's controller stops at once, well within the time
/// leader election leaves before another replica may take the shard.
struct Fenced<R> {
    inner: R,
    abandon: CancellationToken,
}

impl<R: Reconciler> Reconciler for Fenced<R> {
    type Error = R::Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        tokio::select! {
            biased;
            () = self.abandon.cancelled() => Ok(Action::Done),
            result = self.inner.reconcile(key) => result,
        }
    }
}

/// The shards a replica holds, updated as they change.
pub type HeldShards = watch::Receiver<BTreeSet<u32>>;

/// One replica's campaigns for every shard and the controllers of those it holds.
pub(super) struct Shards {
    config: ShardConfig,
    client: kube::Client,
    factory: SharedInformerFactory,
    builds: Vec<Build>,
    /// The workers of the manager's options.
    workers: Option<usize>,
    /// Shard `i`'s selector at index `i`.
    selectors: Vec<ShardSelector>,
    held: watch::Sender<BTreeSet<u32>>,
    /// Shards this replica's gates let a candidate take, and when.
    claims: Mutex<BTreeMap<u32, Instant>>,
    #[cfg(feature = "metrics")]
    metrics: super::Metrics,
}

impl Shards {
    /// Checks `config`; nothing runs before [`run`](Self::run).
    pub(super) fn new(
        config: ShardConfig,
        client: kube::Client,
        factory: SharedInformerFactory,
        builds: Vec<Build>,
        workers: Option<usize>,
        #[cfg(feature = "metrics")] metrics: super::Metrics,
    ) -> Result<Self, ManagerError> {
        config.validate()?;
        let selectors = (0..config.shards)
            .map(|index| ShardSelector::even(config.key, index, config.shards))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| ManagerError::Sharding {
                reason: error.to_string(),
            })?;
        Ok(Self {
            config,
            client,
            factory,
            builds,
            workers,
            selectors,
            held: watch::Sender::new(BTreeSet::new()),
            claims: Mutex::default(),
            #[cfg(feature = "metrics")]
            metrics,
        })
    }

    /// The shards held, as they change.
    pub(super) fn held(&self) -> HeldShards {
        self.held.subscribe()
    }

    /// Campaigns for every shard until `stop`, running the controllers of each shard
    /// held; returns once every shard's controllers have stopped.
    pub(super) async fn run(self, stop: CancellationToken) -> Result<(), ManagerError> {
        let this = Arc::new(self);
        let mut campaigns = JoinSet::new();
        for index in 0..this.config.shards {
            campaigns.spawn(this.clone().campaign(index, stop.clone()));
        }
        let mut result = Ok(());
        while let Some(ended) = campaigns.join_next().await {
            match ended {
                Ok(Err(error)) if result.is_ok() => result = Err(error),
                Ok(_) => {}
                Err(error) => tracing::error!(%error, "a shard's campaign panicked"),
            }
        }
        result
    }

    /// The acquire gate of shard `index`'s candidate: within its share, or past it when
    /// the shard's holder died or it stayed vacant a lease duration. A shard let through
    /// is claimed at once, so that candidates of several shards asking together do not
    /// all fit in the same share; a claim that did not become a held shard within a
    /// lease duration (longer than any attempt: another replica won the race) lapses.
    fn may_take(&self, index: u32, vacancy: &Vacancy) -> bool {
        let now = Instant::now();
        let lapse = self.config.election.lease_duration_value();
        let held = self.held.borrow().clone();
        let mut claims = self.claims();
        claims.retain(|shard, at| held.contains(shard) || now.duration_since(*at) < lapse);
        let within_share = claims.contains_key(&index) || claims.len() < self.config.share();
        let orphaned = vacancy.expired_holder.is_some() || vacancy.vacant_for >= lapse;
        if within_share || orphaned {
            claims.insert(index, now);
            true
        } else {
            false
        }
    }

    fn claims(&self) -> MutexGuard<'_, BTreeMap<u32, Instant>> {
        self.claims.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shard `index`'s candidate: campaigns, runs the shard while it holds the Lease,
    /// and campaigns again when it loses it, until `stop`.
    async fn campaign(
        self: Arc<Self>,
        index: u32,
        stop: CancellationToken,
    ) -> Result<(), ManagerError> {
        let gate = {
            let this = self.clone();
            move |vacancy: &Vacancy| this.may_take(index, vacancy)
        };
        let election = self
            .config
            .election
            .clone()
            .lease_name(self.config.lease_name(index))
            .acquire_if(gate);
        let retry = election_retry(&election);
        let mut elector = LeaderElector::new(self.client.clone(), election)?;
        loop {
            let outcome = elector
                .run(stop.clone(), |leading| {
                    self.clone().hold(index, leading, stop.clone())
                })
                .await;
            match outcome {
                Outcome::NeverLed => return Ok(()),
                Outcome::Led { output, reason } => {
                    if let Err(error) = output {
                        tracing::error!(shard = index, %error, "a sharded controller failed");
                    }
                    match reason {
                        StepDown::Shutdown => return Ok(()),
                        StepDown::LeaseLost => {
                            tracing::info!(
                                shard = index,
                                "lost the shard's Lease; campaigning again"
                            );
                        }
                        StepDown::WorkReturned => {
                            // Controllers that stop by themselves failed: try again later.
                            tokio::select! {
                                () = stop.cancelled() => return Ok(()),
                                () = tokio::time::sleep(retry) => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs shard `index`'s controllers on a factory of its own until `leading` is
    /// cancelled, then stops them (with a drain on `stop`, at once on a lost Lease) and
    /// drops the factory's caches.
    async fn hold(
        self: Arc<Self>,
        index: u32,
        leading: CancellationToken,
        stop: CancellationToken,
    ) -> controller::Result<()> {
        let count = self.config.shards;
        let Some(selector) = usize::try_from(index)
            .ok()
            .and_then(|i| self.selectors.get(i))
            .cloned()
        else {
            return Ok(()); // campaigns run for indexes below the count only
        };
        let factory = self.factory.new_like().shard(selector.clone());
        let shard = Shard {
            index,
            count,
            selector,
            factory: factory.clone(),
            workers: self.workers,
            #[cfg(feature = "metrics")]
            metrics: self.metrics.clone(),
        };
        let abandon = CancellationToken::new();
        let runs: Vec<Run> = self
            .builds
            .iter()
            .map(|build| {
                let run = build(&shard);
                let abandon = abandon.clone();
                Box::new(move |token: CancellationToken| run(token, abandon)) as Run
            })
            .collect();
        self.held.send_modify(|held| {
            held.insert(index);
        });
        tracing::info!(shard = index, "running the shard's controllers");
        factory.start();
        let runs = run_all(runs, leading.clone());
        tokio::pin!(runs);
        let result = tokio::select! {
            result = &mut runs => result,
            () = leading.cancelled() => {
                // Leading ended without a shutdown: the Lease was lost.
                if !stop.is_cancelled() {
                    tracing::info!(shard = index, "lost the shard's Lease: stopping its controllers without a drain");
                    abandon.cancel();
                }
                runs.await
            }
        };
        factory.shutdown().await;
        self.held.send_modify(|held| {
            held.remove(&index);
        });
        self.claims().remove(&index);
        tracing::info!(shard = index, "stopped the shard's controllers");
        result
    }
}

/// The pause after controllers that stopped by themselves before campaigning again.
fn election_retry(config: &LeaderElectionConfig) -> Duration {
    config.lease_duration_value()
}

/// Runs every controller until `stop`; one failing stops the others.
pub(super) async fn run_all(runs: Vec<Run>, stop: CancellationToken) -> controller::Result<()> {
    let runs = runs.into_iter().map(|run| {
        let stop = stop.clone();
        async move {
            let result = run(stop.clone()).await;
            if result.is_err() {
                stop.cancel();
            }
            result
        }
    });
    join_all(runs)
        .await
        .into_iter()
        .collect::<controller::Result<Vec<()>>>()
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn election() -> LeaderElectionConfig {
        LeaderElectionConfig::default().lease_name("foos")
    }

    #[test]
    fn shares_round_up() {
        let config = |shards, replicas| ShardConfig::new(election(), shards).replicas(replicas);
        assert_eq!(config(4, 4).share(), 1);
        assert_eq!(config(4, 3).share(), 2);
        assert_eq!(config(5, 2).share(), 3);
        assert_eq!(config(2, 4).share(), 1);
        assert_eq!(ShardConfig::new(election(), 6).share(), 1);
    }

    #[test]
    fn invalid_configs_are_refused() {
        let reason = |config: ShardConfig| match config.validate() {
            Err(ManagerError::Sharding { reason }) => reason,
            other => panic!("expected a sharding error, got {other:?}"),
        };
        assert!(reason(ShardConfig::new(election(), 0)).contains("one shard"));
        assert!(reason(ShardConfig::new(election(), 2).replicas(0)).contains("one replica"));
        assert!(
            reason(ShardConfig::new(LeaderElectionConfig::default(), 2)).contains("lease name")
        );
        assert!(matches!(
            ShardConfig::new(election().identity(""), 2).validate(),
            Err(ManagerError::Election(_))
        ));
        assert!(ShardConfig::new(election(), 2).validate().is_ok());
    }
}
