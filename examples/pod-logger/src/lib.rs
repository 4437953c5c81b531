//! The minimal kubegen informer: a [`SharedInformer`] over Pods whose handler logs every
//! add, update, periodic resync and delete, with nothing else in the way. Start here to
//! see what an informer delivers before reading the controllers.
//!
//! Next to the handler, the smallest [`kubegen::runtime::controller`]: the same informer
//! enqueues each changed pod's key ([`EnqueueObject`]) and a reconciler logs where the
//! pod stands now (`STATE`, or `GONE`), read from the lister. The handler sees every
//! notification (edge triggered); the reconciler sees each pod once per burst of changes
//! (level driven), which is what a controller works from.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), pod_logger::Error> {
//! use std::time::Duration;
//! use kubegen::runtime::reflector::DEFAULT_BACKOFF;
//! use pod_logger::{Options, PodLogger};
//!
//! let options = Options {
//!     namespace: None,
//!     resync: Duration::from_secs(30),
//!     reflector_backoff: DEFAULT_BACKOFF,
//! };
//! let logger = PodLogger::start(client.clone(), options, None);
//! logger.wait_for_sync().await;
//! let counts = logger.wait_in_step(&client, 0).await?; // the handler has seen what the server holds
//! println!("{counts}");
//! logger.shutdown().await?;
//! println!("{} reconciles", logger.reconciles());
//! # Ok(()) }
//! ```

pub mod demo;
mod handler;
mod reconcile;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::ListParams;
use kubegen::operator::RunningController;
use kubegen::runtime::backoff::Backoff;
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::controller::{Controller, ControllerConfig, EnqueueObject};
use kubegen::runtime::informer::{InformerConfig, SharedInformer};
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::leaderelection::LeaderElector;
use kubegen::runtime::reflector::ReflectorConfig;

use tokio::sync::watch;

use handler::PodHandler;
use reconcile::PodStates;

/// The name of the reconcile loop (its logs' `controller` field).
pub const CONTROLLER_NAME: &str = "pod-logger";

/// Why the logger could not compare itself with the server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Listing pods failed; the message names the call.
    #[error(transparent)]
    Api(#[from] kubegen::runtime::error::Error),
    /// The reconcile loop did not run, or stopped by itself (a lost leader election
    /// Lease).
    #[error(transparent)]
    Run(#[from] kubegen::runtime::controller::Error),
}

/// What to watch.
#[derive(Clone, Debug)]
pub struct Options {
    /// One namespace, or all.
    pub namespace: Option<String>,
    /// How often every cached pod is re-delivered (zero: never).
    pub resync: Duration,
    /// How the informer's reflector backs off after a failed list or watch
    /// (`kubegen::runtime::reflector::DEFAULT_BACKOFF` is client-go's: 800 ms doubling to a 30 s cap).
    pub reflector_backoff: Backoff,
}

/// How many notifications of each kind the handler has logged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Adds (the initial list included).
    pub adds: u64,
    /// Real updates (a new resourceVersion).
    pub updates: u64,
    /// Periodic resyncs (the same object again).
    pub resyncs: u64,
    /// Deletes (tombstones included).
    pub deletes: u64,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} adds, {} updates, {} resyncs, {} deletes",
            self.adds, self.updates, self.resyncs, self.deletes
        )
    }
}

/// What the handler and the reconciler have seen.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Each pod's last resourceVersion, as notified to the handler.
    pub(crate) pods: BTreeMap<ObjectKey, Option<String>>,
    pub(crate) counts: Counts,
    /// Each existing pod's resourceVersion at its last reconcile.
    pub(crate) states: BTreeMap<ObjectKey, Option<String>>,
    pub(crate) reconciles: u64,
}

/// A running pod informer with its logging handler and reconcile loop.
#[derive(Debug)]
pub struct PodLogger {
    informer: SharedInformer<Pod>,
    namespace: Option<String>,
    seen: Arc<Mutex<Seen>>,
    changes: watch::Receiver<u64>,
    reconciling: Mutex<Option<RunningController>>,
}

impl PodLogger {
    /// Creates the informer, registers the handler and the reconcile loop's, and starts
    /// them. With `elector`, the reconcile loop runs only while this replica leads (the
    /// informer and its logging handler always run).
    pub fn start(client: kube::Client, options: Options, elector: Option<LeaderElector>) -> Self {
        let api = match &options.namespace {
            Some(ns) => kube::Api::<Pod>::namespaced(client, ns),
            None => kube::Api::<Pod>::all(client),
        };
        let config = InformerConfig::default()
            .resync(options.resync)
            .reflector(ReflectorConfig::default().backoff(options.reflector_backoff));
        let informer = SharedInformer::new(api, config);
        let seen = Arc::new(Mutex::new(Seen::default()));
        let changes = Arc::new(watch::Sender::new(0));
        let receiver = changes.subscribe();
        informer.add_event_handler(PodHandler::new(Arc::clone(&seen), Arc::clone(&changes)));

        // Resyncs re-deliver unchanged pods: the handler logs them, the loop skips them.
        let controller = Controller::new(ControllerConfig::default().name(CONTROLLER_NAME));
        controller.watches(
            &informer,
            EnqueueObject::new(controller.queue()).skip_resyncs(),
        );
        let states = PodStates::new(informer.lister(), Arc::clone(&seen), changes);
        let reconciling = RunningController::spawn(controller, states, elector);
        informer.start();
        Self {
            informer,
            namespace: options.namespace,
            seen,
            changes: receiver,
            reconciling: Mutex::new(Some(reconciling)),
        }
    }

    /// Waits until the initial list is cached and handed to the handler.
    pub async fn wait_for_sync(&self) {
        self.informer.wait_for_sync().await;
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        lock(&self.seen).counts
    }

    /// How many reconciles the loop has run so far.
    pub fn reconciles(&self) -> u64 {
        lock(&self.seen).reconciles
    }

    /// Whether the handler has seen exactly `pods`, each at its resourceVersion.
    pub fn agrees_with(&self, pods: &[Pod]) -> bool {
        let seen = lock(&self.seen);
        same_versions(&seen.pods, pods)
    }

    /// Whether the reconcile loop's last look at each pod found exactly `pods`, each at
    /// its resourceVersion (and every deleted pod gone).
    pub fn reconciled(&self, pods: &[Pod]) -> bool {
        let seen = lock(&self.seen);
        same_versions(&seen.states, pods)
    }

    /// Waits until the handler and the reconcile loop have seen every pod the server
    /// holds at its current resourceVersion, no deleted one, and the handler at least
    /// `min_resyncs` resyncs. Checks the server after every notification and every
    /// reconcile, never on a timer.
    pub async fn wait_in_step(
        &self,
        client: &kube::Client,
        min_resyncs: u64,
    ) -> Result<Counts, Error> {
        let scope = self
            .namespace
            .as_deref()
            .map_or(Scope::All, Scope::Namespace);
        let pods = TypedClient::<Pod>::new(client.clone(), scope, &());
        let mut changes = self.changes.clone();
        loop {
            changes.borrow_and_update();
            let listed = pods.list(&ListParams::default()).await?.items;
            if self.agrees_with(&listed)
                && self.reconciled(&listed)
                && self.counts().resyncs >= min_resyncs
            {
                return Ok(self.counts());
            }
            if changes.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Resolves once the reconcile loop has stopped by itself: under leader election,
    /// when this replica lost the Lease ([`shutdown`](Self::shutdown) then says so).
    pub async fn stopped(&self) {
        let stopped = self
            .reconciling
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(RunningController::stopped);
        if let Some(stopped) = stopped {
            stopped.await;
        }
    }

    /// Stops the reconcile loop (after draining its queue), then the informer; the
    /// handler logs what is still buffered first. Says why if the loop did not run or
    /// stopped by itself.
    pub async fn shutdown(&self) -> Result<(), Error> {
        let reconciling = self
            .reconciling
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let result = match reconciling {
            Some(reconciling) => reconciling.stop().await,
            None => Ok(()),
        };
        self.informer.shutdown().await;
        Ok(result?)
    }
}

/// Whether `seen` holds exactly `pods`, each at its resourceVersion.
fn same_versions(seen: &BTreeMap<ObjectKey, Option<String>>, pods: &[Pod]) -> bool {
    seen.len() == pods.len()
        && pods
            .iter()
            .all(|p| seen.get(&ObjectKey::of(p)) == Some(&p.metadata.resource_version))
}

pub(crate) fn lock(seen: &Mutex<Seen>) -> MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(|p| p.into_inner())
}
