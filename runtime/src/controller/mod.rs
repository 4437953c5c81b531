//! The reconcile loop every controller needs: informers -> event handlers enqueue keys
//! -> a rate-limited work queue -> N workers call the user's [`Reconciler`] -> success
//! forgets the key, an error retries it with backoff, `done` always.
//!
//! A [`Controller`] owns a [`RateLimitingQueue<ObjectKey>`](RateLimitingQueue) and its
//! workers; its [`run`](Controller::run):
//!
//! - waits for the caches it watches (and any [`wait_for`](Controller::wait_for)) to
//!   sync, and fails if they do not within the
//!   [timeout](ControllerConfig::cache_sync_timeout), or sooner, naming them, if their
//!   informers are not [started](ControllerConfig::informer_start_timeout) within a few
//!   seconds (a forgotten `factory.start()`);
//! - runs the workers: the same key is never reconciled by two at once (the queue's
//!   rule); [`Action::Done`] forgets the key's backoff, [`Action::Requeue`] and errors
//!   retry it through the rate limiter, [`Action::RequeueAfter`] brings it back after a
//!   delay; a panic in a reconcile is caught, logged, counted and retried like an error,
//!   and the worker lives on;
//! - holds a key back while the caches it [watches](Controller::watches) have not yet
//!   seen what the key's last reconcile wrote through a
//!   [`TypedClient`](crate::client::TypedClient) (the [stale-cache guard](StaleCacheGuard),
//!   client-go's KEP-5647 read-your-writes: the key is put back for a few milliseconds,
//!   at most for a few seconds after the write, then reconciled anyway);
//! - when its shutdown signal resolves, stops taking new keys, lets the workers finish
//!   what is queued and in flight, and returns only then.
//!
//! A reconcile that creates or applies a dependent of the object it reconciles runs
//! [`Controller::owner_check`]'s [`confirm`](OwnerCheck::confirm) after the write: the
//! owner may have been deleted between the reconcile's read of it and the write, and
//! the dependent would then name an owner that no longer exists ([`owner`]).
//!
//! [`watches`](Controller::watches) registers an event handler on an informer and
//! makes the controller wait for it. The handlers every controller writes are here:
//! [`EnqueueObject`], [`EnqueueOwner`], [`EnqueueByIndex`], [`EnqueueMapped`].
//!
//! Reconciles are measured under controller-runtime's metric names through a
//! [`ControllerMetricsProvider`](crate::metrics::controller::ControllerMetricsProvider)
//! (Prometheus with the `prometheus` feature).
//!
//! ```
//! use std::time::Duration;
//! use kubegen_runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
//! use kubegen_runtime::key::ObjectKey;
//!
//! struct Foos;
//!
//! impl Reconciler for Foos {
//!     type Error = std::convert::Infallible;
//!
//!     async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
//!         // Read the object from a lister, write through a client...
//!         if key.name() == "poll-me" {
//!             return Ok(Action::RequeueAfter(Duration::from_secs(30)));
//!         }
//!         Ok(Action::Done)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let controller = Controller::new(ControllerConfig::default().name("foos").workers(2));
//! // Event handlers enqueue keys; see `watches` and the `Enqueue*` handlers.
//! controller.queue().add(ObjectKey::namespaced("default", "web"));
//!
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let running = tokio::spawn({
//!     let controller = controller.clone();
//!     async move { controller.run(Foos, async { let _ = stopped.await; }).await }
//! });
//! let mut processed = controller.processed();
//! processed.wait_for(|n| *n >= 1).await.unwrap();
//! stop.send(()).unwrap();
//! running.await.unwrap().unwrap(); // returns once the queue is drained
//! # }
//! ```
//!
//! # Shutdown and leader election
//!
//! [`run`](Controller::run) takes its stop signal as a future (a
//! `tokio_util::sync::CancellationToken`'s `cancelled_owned()`, a channel, Ctrl-C...)
//! and returns only after the drain, so code that must know the controller's work has
//! stopped (a leader elector before it releases its lease) awaits `run` itself. A
//! controller runs once: its queue is shut down afterwards.
//!
//! [`run_with_leader_election`](Controller::run_with_leader_election) is that call under
//! a [`LeaderElector`](crate::leaderelection::LeaderElector): the informers run on every
//! replica (standbys keep warm caches, as controller-runtime's do), the workers only on
//! the leader, and a leader that loses the Lease drains its workers before the elector
//! reports that it stopped leading, then stops for good.

mod chain;
mod config;
mod election;
mod freshness;
mod handlers;
pub mod owner;
mod reconciler;
mod worker;

#[cfg(test)]
mod freshness_tests;
#[cfg(test)]
mod start_tests;
#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

pub use chain::ErrorChain;
pub use config::{
    ControllerConfig, DEFAULT_CACHE_SYNC_TIMEOUT, DEFAULT_INFORMER_START_TIMEOUT, DEFAULT_NAME,
};
pub use freshness::{
    DEFAULT_STALE_CACHE_RETRY, DEFAULT_STALE_CACHE_TIMEOUT, StaleCacheGuard,
    compare_resource_versions,
};
pub use handlers::{EnqueueByIndex, EnqueueMapped, EnqueueObject, EnqueueOwner, KeyScope};
pub use owner::{Confirmation, OwnerCheck};
pub use reconciler::{Action, Reconciler, is_cache_lag};

use crate::informer::{EventHandler, HandlerRegistration, HasSynced, SharedInformer};
use crate::key::ObjectKey;
use crate::metrics::controller::ControllerMetrics;
use crate::workqueue::{Clock, RateLimitingQueue};

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a controller did not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Some caches had not synced when the cache-sync timeout passed (or can never
    /// sync: their informer was shut down).
    #[error(
        "failed to start controller {controller}: {unsynced} of {total} caches did not sync within {timeout:?}{}",
        names_suffix(.informers)
    )]
    CacheSyncTimeout {
        /// The controller's name.
        controller: String,
        /// How many caches had not synced.
        unsynced: usize,
        /// How many caches the controller waited for.
        total: usize,
        /// How long it waited.
        timeout: Duration,
        /// The informers of the caches that had not synced, where known.
        informers: Vec<String>,
    },
    /// Informers the controller waits for were not started within the [informer start
    /// timeout](ControllerConfig::informer_start_timeout) (or were dropped unstarted):
    /// `factory.start()`, or the informer's own `start()`, was most likely never called.
    #[error(
        "failed to start controller {controller}: {} never started (waited {waited:?}); was factory.start() called after the informers were created?",
        informers_list(.informers)
    )]
    InformersNotStarted {
        /// The controller's name.
        controller: String,
        /// The informers that were not started, by name (`foos.example.com/v1 (Foo)`).
        informers: Vec<String>,
        /// How long it waited for them.
        waited: Duration,
    },
    /// [`run`](Controller::run) was called on a controller that had already run.
    #[error("failed to start controller {controller}: it was already started")]
    AlreadyStarted {
        /// The controller's name.
        controller: String,
    },
    /// Under [leader election](Controller::run_with_leader_election), this replica lost
    /// the Lease (it could not renew it within the renew deadline, or another replica
    /// holds it): its workers were stopped and drained, and the controller is done.
    /// client-go's controllers exit here; the process's replacement campaigns again.
    #[error("controller {controller} stopped: replica {identity} lost its leader election lease")]
    LeadershipLost {
        /// The controller's name.
        controller: String,
        /// This replica's identity in the election.
        identity: String,
    },
}

/// What the controller handle and its workers share.
struct Shared {
    name: String,
    workers: usize,
    cache_sync_timeout: Duration,
    informer_start_timeout: Duration,
    reconcile_timeout: Option<Duration>,
    queue: RateLimitingQueue<ObjectKey>,
    clock: Arc<dyn Clock>,
    metrics: Option<Arc<dyn ControllerMetrics>>,
    /// Holds back keys whose last writes the caches have not seen yet.
    guard: Arc<freshness::Guard>,
    caches: Mutex<Vec<Arc<dyn HasSynced>>>,
    processed: watch::Sender<u64>,
    started: AtomicBool,
}

/// A work queue of [`ObjectKey`]s, the event handlers that fill it, and the workers that
/// reconcile its keys. A cheap handle: clones share the controller.
///
/// See the [module documentation](self) for the whole loop.
#[derive(Clone)]
pub struct Controller {
    shared: Arc<Shared>,
}

impl fmt::Debug for Controller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller")
            .field("name", &self.shared.name)
            .field("workers", &self.shared.workers)
            .field("queue", &self.shared.queue)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// A controller configured by `config`, with its queue; nothing runs before
    /// [`run`](Self::run).
    ///
    /// # Panics
    /// Outside a Tokio runtime (the queue spawns its timer task).
    pub fn new(config: ControllerConfig) -> Self {
        let ControllerConfig {
            name,
            workers,
            mut queue,
            limiter,
            cache_sync_timeout,
            informer_start_timeout,
            reconcile_timeout,
            stale_cache_guard,
            metrics,
        } = config;
        if queue.queue_name().is_none() {
            queue = queue.name(name.clone());
        }
        let clock = Arc::clone(&queue.clock);
        let metrics = metrics.controller_metrics(&name);
        let guard = Arc::new(freshness::Guard::new(stale_cache_guard, Arc::clone(&clock)));
        Self {
            shared: Arc::new(Shared {
                workers: workers.max(1),
                cache_sync_timeout,
                informer_start_timeout,
                reconcile_timeout,
                queue: RateLimitingQueue::with_config(limiter, queue),
                clock,
                metrics,
                guard,
                caches: Mutex::new(Vec::new()),
                processed: watch::Sender::new(0),
                started: AtomicBool::new(false),
                name,
            }),
        }
    }

    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The work queue: event handlers add keys to it.
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        &self.shared.queue
    }

    /// Registers `handler` on `informer` and makes [`run`](Self::run) wait until the
    /// handler has received the informer's initial list (so the first reconciles see
    /// full caches). The [stale-cache guard](StaleCacheGuard) holds a key back until
    /// this informer's cache has seen the key's last writes of its resource (in its
    /// namespace, if it lists one).
    pub fn watches<K>(
        &self,
        informer: &SharedInformer<K>,
        handler: impl EventHandler<K>,
    ) -> HandlerRegistration
    where
        K: kube::Resource + Clone + Send + Sync + 'static,
    {
        let registration = informer.add_event_handler(handler);
        self.wait_for(registration.clone());
        if let Some(resource) = informer.resource() {
            self.shared.guard.track(
                resource.clone(),
                informer.namespace().map(str::to_owned),
                informer.synced_version(),
            );
        }
        registration
    }

    /// Makes [`run`](Self::run) also wait for `cache` (an informer whose lister the
    /// reconciler reads without watching it, for example).
    pub fn wait_for(&self, cache: impl HasSynced + 'static) {
        self.shared
            .caches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::new(cache));
    }

    /// The check its reconciles run after writing a dependent: one live read of the
    /// owner, and the dependent deleted again if the owner is gone (see [`owner`]),
    /// counted in this controller's metrics.
    pub fn owner_check(&self) -> OwnerCheck {
        OwnerCheck::with_metrics(self.shared.metrics.clone())
    }

    /// A receiver of the number of reconciles finished so far, whatever their outcome:
    /// it changes after every one (to wait for work without polling).
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.shared.processed.subscribe()
    }

    /// Waits for the caches, runs the workers with `reconciler` until `shutdown`
    /// resolves, then stops taking new keys, drains the queue (keys queued and in flight
    /// are finished; pending retries are dropped) and returns.
    ///
    /// If `shutdown` resolves while the caches sync, returns `Ok` without starting the
    /// workers. Dropping the returned future before it completes shuts the queue down
    /// without waiting: prefer resolving `shutdown`.
    ///
    /// # Errors
    /// [`Error::CacheSyncTimeout`] if the caches do not sync in time, or
    /// [`Error::InformersNotStarted`] if informers it waits for are not started within the
    /// [informer start timeout](ControllerConfig::informer_start_timeout) (the queue is
    /// then shut down); [`Error::AlreadyStarted`] on a second call.
    pub async fn run<R: Reconciler>(
        &self,
        reconciler: R,
        shutdown: impl Future<Output = ()>,
    ) -> Result<()> {
        self.claim()?;
        self.run_claimed(reconciler, shutdown).await
    }

    /// Marks the controller started; fails if it already was (a controller runs once).
    fn claim(&self) -> Result<()> {
        if self.shared.started.swap(true, Ordering::SeqCst) {
            return Err(Error::AlreadyStarted {
                controller: self.shared.name.clone(),
            });
        }
        Ok(())
    }

    /// [`run`](Self::run) once the controller is [claimed](Self::claim).
    async fn run_claimed<R: Reconciler>(
        &self,
        reconciler: R,
        shutdown: impl Future<Output = ()>,
    ) -> Result<()> {
        let shared = &self.shared;
        let controller = shared.name.as_str();
        let guard = ShutDownOnDrop(Some(shared.queue.clone()));
        let mut shutdown = std::pin::pin!(shutdown);

        tracing::info!(controller, "waiting for caches to sync");
        tokio::select! {
            synced = self.wait_for_caches() => synced?,
            () = &mut shutdown => {
                tracing::info!(controller, "stopped before the caches synced");
                return Ok(());
            }
        }

        let workers = shared.workers;
        if let Some(metrics) = &shared.metrics {
            metrics.max_concurrent_reconciles(workers);
        }
        tracing::info!(controller, workers, "starting workers");
        let reconciler = Arc::new(reconciler);
        let handles: Vec<_> = (0..workers)
            .map(|_| tokio::spawn(worker::run(Arc::clone(shared), Arc::clone(&reconciler))))
            .collect();

        shutdown.await;
        tracing::info!(controller, "shutting down: draining the work queue");
        shared.queue.shut_down_with_drain().await;
        for handle in handles {
            // Reconcile panics are caught in the worker; this is a panic of the loop.
            if let Err(error) = handle.await {
                tracing::error!(controller, %error, "a worker ended abnormally");
            }
        }
        guard.disarm();
        tracing::info!(controller, "workers stopped");
        Ok(())
    }

    async fn wait_for_caches(&self) -> Result<()> {
        let shared = &self.shared;
        let caches = shared
            .caches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let waiting: Vec<&dyn HasSynced> = caches.iter().map(|c| c.as_ref()).collect();
        let timeout = shared.cache_sync_timeout;
        let start_timeout = shared.informer_start_timeout.min(timeout);
        let began = tokio::time::Instant::now();
        tokio::select! {
            biased;
            synced = crate::informer::wait_for_cache_sync(timeout, &waiting) => {
                if synced {
                    return Ok(());
                }
                // A cache whose informer never started (dropped unstarted, so the wait
                // ended at once) is reported as such, whichever branch noticed first.
                let unstarted = unstarted(&caches);
                if !unstarted.is_empty() {
                    return Err(Error::InformersNotStarted {
                        controller: shared.name.clone(),
                        informers: informer_names(unstarted.into_iter()),
                        waited: began.elapsed(),
                    });
                }
                let unsynced: Vec<_> = caches.iter().filter(|c| !c.has_synced()).collect();
                Err(Error::CacheSyncTimeout {
                    controller: shared.name.clone(),
                    unsynced: unsynced.len(),
                    total: caches.len(),
                    timeout,
                    informers: informer_names(unsynced.iter().map(|c| c.as_ref())),
                })
            }
            informers = not_started_within(start_timeout, &caches) => {
                Err(Error::InformersNotStarted {
                    controller: shared.name.clone(),
                    informers,
                    waited: start_timeout,
                })
            }
        }
    }
}

/// Waits up to `timeout` for the informers behind `caches` to be started; returns
/// those that were not (or were dropped unstarted). Never returns if all of them were
/// started (or are not informers).
async fn not_started_within(timeout: Duration, caches: &[Arc<dyn HasSynced>]) -> Vec<String> {
    let pending = unstarted(caches);
    if !pending.is_empty() {
        let all = futures::future::join_all(pending.iter().filter_map(|cache| {
            let mut started = cache.started_receiver()?;
            // An error: the informer is gone and will never start.
            Some(async move { started.wait_for(|s| *s).await.is_ok() })
        }));
        let all_started = tokio::time::timeout(timeout, all)
            .await
            .is_ok_and(|results| results.into_iter().all(|ok| ok));
        if !all_started {
            return informer_names(unstarted(caches).into_iter());
        }
    }
    std::future::pending().await
}

/// The caches whose informers are not started (caches that are not informers have no
/// start to wait for and are left out).
fn unstarted(caches: &[Arc<dyn HasSynced>]) -> Vec<&dyn HasSynced> {
    caches
        .iter()
        .filter(|c| {
            c.started_receiver()
                .is_some_and(|started| !*started.borrow())
        })
        .map(|c| c.as_ref())
        .collect()
}

/// The distinct informer names of `caches` (a handler registration and its informer
/// name the same one), in order; unnamed caches are left out.
fn informer_names<'a>(caches: impl Iterator<Item = &'a dyn HasSynced>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in caches.filter_map(HasSynced::informer_name) {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// `": a, b"`, or nothing for no names.
fn names_suffix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(": {}", names.join(", "))
    }
}

/// `"informer a"`, `"informers a, b"`, or `"informers"` for no names.
fn informers_list(names: &[String]) -> String {
    match names {
        [] => "informers".to_owned(),
        [one] => format!("informer {one}"),
        many => format!("informers {}", many.join(", ")),
    }
}

/// Shuts the queue down if [`Controller::run`] ends early (an error, or its future
/// dropped), so handlers stop queueing into a controller that will never run.
struct ShutDownOnDrop(Option<RateLimitingQueue<ObjectKey>>);

impl ShutDownOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for ShutDownOnDrop {
    fn drop(&mut self) {
        if let Some(queue) = self.0.take() {
            queue.shut_down();
        }
    }
}
