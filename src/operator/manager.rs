//! Several controllers in one process, as controller-runtime's Manager runs them: one
//! informer factory, one leader election, one metrics registry and one probe endpoint,
//! the event recorders, and one shutdown with a deadline. The handle of a started
//! manager, [`RunningManager`], is in `running_manager.rs`.

use std::net::SocketAddr;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use kubegen_runtime::controller::{self, Controller, ControllerConfig, Reconciler};
use kubegen_runtime::events::{EventRecorder, EventRecorderConfig};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::leaderelection::{
    self, LeaderElectionConfig, LeaderElector, Outcome, StepDown,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::ManagerOptions;
#[cfg(feature = "metrics")]
use super::probes;
use super::rbac::{self, Access, Needs};
use super::running_manager::RunningManager;
use super::shards::{self, Shard, ShardConfig, Shards};

/// controller-runtime's default `GracefulShutdownTimeout`.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a manager stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// A controller failed (its caches never synced, it was started twice...).
    #[error(transparent)]
    Controller(#[from] controller::Error),
    /// The leader election configuration is invalid.
    #[error(transparent)]
    Election(#[from] leaderelection::Error),
    /// This replica led and lost the Lease: its controllers stopped. Exit and let the
    /// Deployment restart the process, as controller-runtime's managers do.
    #[error("lost the Lease {lease} while leading: the controllers stopped")]
    LeadershipLost {
        /// The Lease's name.
        lease: String,
    },
    /// The sharding configuration is invalid, or sharded controllers were added without
    /// one.
    #[error("invalid sharding: {reason}")]
    Sharding {
        /// Which rule.
        reason: String,
    },
    /// The probe endpoint could not be bound.
    #[error("failed to serve the probes on {address}: {source}")]
    Probes {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The controllers did not finish draining within the shutdown timeout.
    #[error("the controllers did not stop within {waited:?} of the shutdown")]
    ShutdownTimeout {
        /// The timeout.
        waited: Duration,
    },
}

/// One controller's run, waiting for the token that stops it.
pub(super) type Run =
    Box<dyn FnOnce(CancellationToken) -> BoxFuture<'static, controller::Result<()>> + Send>;

/// Controllers sharing one informer factory, one optional leader election (all of them
/// reconcile while this replica leads; the caches stay warm on standby replicas) and,
/// with the `metrics` feature, one registry served with `/healthz` and `/readyz` (ready
/// once every informer synced, leader or not).
///
/// ```no_run
/// # async fn demo(client: kube::Client, reconciler: impl kubegen::runtime::controller::Reconciler) -> Result<(), kubegen::operator::ManagerError> {
/// use kubegen::operator::{Manager, shutdown_signal};
/// use kubegen::runtime::controller::{Controller, ControllerConfig};
///
/// let mut manager = Manager::new(client);
/// let controller = Controller::new(manager.controller_config(ControllerConfig::default().name("foos")));
/// // controller.watches(&manager.factory().informer::<Foo>(), EnqueueObject::new(controller.queue()));
/// manager.add(controller, reconciler);
/// manager.run(shutdown_signal()).await // SIGTERM: drain every controller, release the Lease
/// # }
/// ```
pub struct Manager {
    factory: SharedInformerFactory,
    client: kube::Client,
    election: Option<LeaderElectionConfig>,
    shutdown_timeout: Duration,
    runs: Vec<Run>,
    processed: Vec<watch::Receiver<u64>>,
    workers: Option<usize>,
    access: Vec<Access>,
    recorders: Vec<EventRecorder>,
    sharding: Option<ShardConfig>,
    sharded: Vec<shards::Build>,
    #[cfg(feature = "metrics")]
    metrics: super::Metrics,
    #[cfg(feature = "metrics")]
    probe_address: Option<SocketAddr>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("controllers", &self.runs.len())
            .field("sharded_controllers", &self.sharded.len())
            .field("shards", &self.sharding.as_ref().map(ShardConfig::shards))
            .field("leader_election", &self.election.as_ref().map(|c| c.name()))
            .field("shutdown_timeout", &self.shutdown_timeout)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager on `client` with no controllers, no leader election, and the default
    /// shutdown timeout (30 s).
    pub fn new(client: kube::Client) -> Self {
        #[cfg(feature = "metrics")]
        let metrics = super::Metrics::new();
        let factory = SharedInformerFactory::new(client.clone());
        #[cfg(feature = "metrics")]
        let factory = metrics.instrument_informers(factory);
        Self {
            factory,
            client,
            election: None,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            runs: Vec::new(),
            processed: Vec::new(),
            workers: None,
            access: Vec::new(),
            recorders: Vec::new(),
            sharding: None,
            sharded: Vec::new(),
            #[cfg(feature = "metrics")]
            metrics,
            #[cfg(feature = "metrics")]
            probe_address: None,
        }
    }

    /// Applies `options`: the informer factory's resync period and reflector backoff,
    /// and the workers [`controller_config`](Self::controller_config) gives each
    /// controller (see [`ManagerOptions`]).
    pub fn options(mut self, options: &ManagerOptions) -> Self {
        self.factory = self
            .factory
            .default_resync(options.resync)
            .reflector_backoff(options.reflector_backoff);
        self.workers = Some(options.workers);
        self
    }

    /// Runs the controllers only while this replica holds the Lease `config` names
    /// (`None`: always).
    pub fn leader_election(mut self, config: Option<LeaderElectionConfig>) -> Self {
        #[cfg(feature = "metrics")]
        let config = config.map(|config| self.metrics.instrument_election(config));
        self.election = config;
        self
    }

    /// Splits the objects of the controllers added with [`add_sharded`](Self::add_sharded)
    /// into shards, each run by the replica holding its Lease (see [`ShardConfig`] and
    /// the `shards` module documentation for the protocol).
    pub fn shards(mut self, config: ShardConfig) -> Self {
        #[cfg(feature = "metrics")]
        let config = {
            let mut config = config;
            let election = config.election_mut();
            *election = self.metrics.instrument_election(election.clone());
            config
        };
        self.sharding = Some(config);
        self
    }

    /// How long [`RunningManager::stop`] waits for the controllers to drain.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Serves `/metrics`, `/healthz` and `/readyz` on `address` while running (`None`:
    /// not served).
    #[cfg(feature = "metrics")]
    pub fn probe_address(mut self, address: Option<SocketAddr>) -> Self {
        self.probe_address = address;
        self
    }

    /// The manager's informer factory built on by `configure` (resync period,
    /// reflector backoff, ...).
    pub fn factory_with(
        mut self,
        configure: impl FnOnce(SharedInformerFactory) -> SharedInformerFactory,
    ) -> Self {
        self.factory = configure(self.factory);
        self
    }

    /// The informer factory every controller of this manager should take its informers
    /// from (started by [`start`](Self::start)).
    pub fn factory(&self) -> &SharedInformerFactory {
        &self.factory
    }

    /// The manager's metrics registry.
    #[cfg(feature = "metrics")]
    pub fn metrics(&self) -> &super::Metrics {
        &self.metrics
    }

    /// `config` with the workers of the manager's [`options`](Self::options) (when set;
    /// set a controller's own count on the result) and reporting to the manager's
    /// registry (with the `metrics` feature).
    pub fn controller_config(&self, config: ControllerConfig) -> ControllerConfig {
        let config = match self.workers {
            Some(workers) => config.workers(workers),
            None => config,
        };
        #[cfg(feature = "metrics")]
        let config = self.metrics.instrument(config);
        config
    }

    /// An event recorder on the manager's client (client-go's `events.EventRecorder`),
    /// which the manager owns: [`RunningManager::flush_events`] flushes it and
    /// [`RunningManager::stop`] shuts it down once the controllers drained. Making one
    /// puts `create` and `patch` on `events.k8s.io` Events in [`rbac`](Self::rbac)'s
    /// ClusterRole.
    ///
    /// ```no_run
    /// # async fn demo(client: kube::Client) -> Result<(), kubegen::operator::ManagerError> {
    /// use kubegen::operator::Manager;
    /// use kubegen::runtime::events::EventRecorderConfig;
    ///
    /// let mut manager = Manager::new(client);
    /// let recorder = manager.event_recorder(EventRecorderConfig::new("foo-controller"));
    /// // Controller::new(..., recorder) publishes through it.
    /// # drop(recorder);
    /// let (cluster_role, _) = manager.rbac("foo-controller"); // create, patch on events
    /// # let _ = cluster_role;
    /// manager.start()?.stop().await // drains, then writes the events still queued
    /// # }
    /// ```
    ///
    /// # Panics
    /// Outside a Tokio runtime (the recorder spawns its writer).
    pub fn event_recorder(&mut self, config: EventRecorderConfig) -> EventRecorder {
        let recorder = EventRecorder::new(self.client.clone(), config);
        self.recorders.push(recorder.clone());
        recorder
    }

    /// Declares access a controller needs beyond watching (what its reconciler writes,
    /// subresources included), for [`rbac`](Self::rbac); next to the controller:
    /// `manager.needs(Access::to::<Deployment>(&[Verb::Create, Verb::Update]))`.
    pub fn needs(&mut self, access: Access) -> &mut Self {
        self.access.push(access);
        self
    }

    /// The RBAC roles the manager's controllers need as configured now: a ClusterRole
    /// `name` with `get`, `list` and `watch` on every resource its factory's informers
    /// watch (one namespace or all), `create` and `patch` on `events.k8s.io` Events when
    /// [`event_recorder`](Self::event_recorder) made a recorder, and what
    /// [`needs`](Self::needs) declared; and under leader election a Role
    /// `<name>-leader-election` with `get`, `create` and `update` on Leases in the
    /// Lease's namespace (the client's default namespace when the configuration sets
    /// none). Ask once every controller is added: informers asked for later are not in
    /// it. The rules are sorted, so the same code always gives the same roles.
    pub fn rbac(&self, name: &str) -> (ClusterRole, Option<Role>) {
        let lease_namespace = self.election.as_ref().map(|config| {
            config
                .lease_namespace()
                .unwrap_or(self.client.default_namespace())
        });
        let needs = Needs {
            informed: self.factory.resources(),
            events: !self.recorders.is_empty(),
            lease_namespace,
            access: &self.access,
        };
        rbac::derive(name, &needs)
    }

    /// Adds a controller and its reconciler; it runs from [`start`](Self::start).
    pub fn add<R: Reconciler>(&mut self, controller: Controller, reconciler: R) -> &mut Self {
        self.processed.push(controller.processed());
        self.runs.push(Box::new(move |stop: CancellationToken| {
            async move { controller.run(reconciler, stop.cancelled_owned()).await }.boxed()
        }));
        self
    }

    /// Adds a sharded controller: each time this replica takes a shard, `build` makes the
    /// shard's controller and reconciler, watching informers of
    /// [`Shard::factory`] (which list and watch that shard's objects only); they run
    /// while the replica holds the shard's Lease. Needs [`shards`](Self::shards).
    ///
    /// ```no_run
    /// # async fn demo(client: kube::Client, reconciler: impl kubegen::runtime::controller::Reconciler + Clone) -> Result<(), kubegen::operator::ManagerError> {
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kubegen::operator::{Manager, ShardConfig, shutdown_signal};
    /// use kubegen::runtime::controller::{Controller, ControllerConfig, EnqueueObject};
    /// use kubegen::runtime::leaderelection::LeaderElectionConfig;
    ///
    /// let election = LeaderElectionConfig::default().lease_name("foos").release_on_cancel(true);
    /// let mut manager = Manager::new(client).shards(ShardConfig::new(election, 4).replicas(4));
    /// manager.add_sharded(move |shard| {
    ///     let controller = Controller::new(shard.controller_config(ControllerConfig::default().name("foos")));
    ///     controller.watches(&shard.factory().informer::<ConfigMap>(), EnqueueObject::new(controller.queue()));
    ///     (controller, reconciler.clone())
    /// });
    /// manager.run(shutdown_signal()).await
    /// # }
    /// ```
    pub fn add_sharded<R, F>(&mut self, build: F) -> &mut Self
    where
        R: Reconciler,
        F: Fn(&Shard) -> (Controller, R) + Send + Sync + 'static,
    {
        self.sharded.push(shards::build(build));
        self
    }

    /// Starts the informers, the probes and the controllers (under the Lease, when
    /// configured; sharded ones under their shards' Leases) on tasks of the current
    /// Tokio runtime.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn start(self) -> Result<RunningManager, ManagerError> {
        let elector = match self.election {
            Some(config) => {
                let lease = config.name().to_owned();
                Some((LeaderElector::new(self.client.clone(), config)?, lease))
            }
            None => None,
        };
        let leader_status = elector.as_ref().map(|(elector, _)| elector.status());
        let shards = match (self.sharding, self.sharded.is_empty()) {
            (Some(config), _) => Some(Shards::new(
                config,
                self.client.clone(),
                self.factory.clone(),
                self.sharded,
                self.workers,
                #[cfg(feature = "metrics")]
                self.metrics.clone(),
            )?),
            (None, true) => None,
            (None, false) => {
                return Err(ManagerError::Sharding {
                    reason: "sharded controllers were added without Manager::shards".into(),
                });
            }
        };
        let held_shards = shards.as_ref().map(Shards::held);
        let stop = CancellationToken::new();
        #[cfg(feature = "metrics")]
        let listener = match self.probe_address {
            Some(address) => Some(
                probes::bind(address).map_err(|source| ManagerError::Probes { address, source })?,
            ),
            None => None,
        };
        self.factory.start();
        #[cfg(feature = "metrics")]
        let probes = listener.map(|(listener, address)| {
            probes::serve(
                listener,
                address,
                self.metrics,
                self.factory.clone(),
                stop.clone(),
            )
        });
        let stopped = CancellationToken::new();
        let task = tokio::spawn(run_controllers(
            self.runs,
            elector,
            shards,
            stop.clone(),
            stopped.clone(),
        ));
        Ok(RunningManager {
            factory: self.factory,
            leader_status,
            held_shards,
            recorders: self.recorders,
            processed: self.processed,
            stop,
            stopped,
            task,
            shutdown_timeout: self.shutdown_timeout,
            #[cfg(feature = "metrics")]
            probes,
        })
    }

    /// [`start`](Self::start)s, runs until `shutdown` resolves or the controllers stop by
    /// themselves (a lost Lease, caches that never synced), then
    /// [`stop`](RunningManager::stop)s.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), ManagerError> {
        let running = self.start()?;
        tokio::select! {
            () = shutdown => {}
            () = running.stopped() => {}
        }
        running.stop().await
    }
}

/// Runs every controller until `stop` (or, under leader election, until the Lease is
/// lost) and the shards' campaigns until `stop`, and cancels `stopped` when they all
/// have ended.
async fn run_controllers(
    runs: Vec<Run>,
    elector: Option<(LeaderElector, String)>,
    shards: Option<Shards>,
    stop: CancellationToken,
    stopped: CancellationToken,
) -> Result<(), ManagerError> {
    let _stopped = stopped.drop_guard();
    // Either part failing (a lost Lease, a controller's error) stops the other: the
    // manager as a whole has failed.
    let failing = |result: Result<(), ManagerError>| {
        if result.is_err() {
            stop.cancel();
        }
        result
    };
    let sharded = async {
        match shards {
            Some(shards) => failing(shards.run(stop.clone()).await),
            None => Ok(()),
        }
    };
    let unsharded = async { failing(run_unsharded(runs, elector, stop.clone()).await) };
    let (unsharded, sharded) = tokio::join!(unsharded, sharded);
    unsharded.and(sharded)
}

/// Runs the controllers added with [`Manager::add`] until `stop` or, under leader
/// election, until the Lease is lost.
async fn run_unsharded(
    runs: Vec<Run>,
    elector: Option<(LeaderElector, String)>,
    stop: CancellationToken,
) -> Result<(), ManagerError> {
    if runs.is_empty() {
        return Ok(());
    }
    // One controller failing stops the others: the manager as a whole has failed.
    let all = |token: CancellationToken| shards::run_all(runs, token);
    let Some((mut elector, lease)) = elector else {
        all(stop).await?;
        return Ok(());
    };
    match elector.run(stop, all).await {
        Outcome::NeverLed => Ok(()),
        Outcome::Led {
            output,
            reason: StepDown::LeaseLost,
        } => {
            output?;
            Err(ManagerError::LeadershipLost { lease })
        }
        Outcome::Led { output, .. } => output.map_err(ManagerError::from),
    }
}
