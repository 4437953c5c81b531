//! secret-sync: copies every Secret of a source namespace into every other namespace,
//! keeps the copies in step when a source changes, deletes them when it goes, and covers
//! namespaces created later.
//!
//! Copies carry the label `secret-sync.kubegen.io/managed-by=secret-sync` and the
//! annotation `secret-sync.kubegen.io/source=<namespace>/<name>`; only labelled Secrets
//! are ever updated or deleted, and an unlabelled Secret of the same name is left alone
//! (Warning event `TargetExists` on the source). System namespaces (`kube-system`,
//! `kube-public`, `kube-node-lease`) are skipped, and so are service account tokens.
//!
//! The sync is level-based: the work item is a target namespace, and syncing it compares
//! the whole source namespace with the whole target, so a restart or a missed event
//! costs nothing but one sync per namespace.
//!
//! Secrets are read and written through kubegen's generated clientset, listers and
//! informers of the built-in groups (`kubegen::kubernetes`). Namespaces are watched
//! through a metadata-only informer (`PartialObjectMeta<Namespace>`): the controller
//! needs their names and deletion timestamps, not their bodies.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), secret_sync::controller::Error> {
//! use secret_sync::controller::Scope;
//! use secret_sync::{App, Options};
//!
//! let app = App::start(client, Options::new(Scope::new("shared-secrets")), None)?;
//! let report = app.wait_converged().await;
//! print!("{report}");
//! app.shutdown().await
//! # }
//! ```

pub mod controller;
pub mod demo;

use std::sync::Arc;
use std::time::Duration;

use kubegen::operator::{Manager, RunningManager};
use kubegen::runtime::backoff::Backoff;
use kubegen::runtime::events::{EventRecorder, EventRecorderConfig};
use kubegen::runtime::leaderelection::LeaderElectionConfig;
use kubegen::runtime::reflector::DEFAULT_BACKOFF;

use controller::{CONTROLLER_NAME, Controller, Error, Scope};
use demo::Report;

/// How [`App::start`] runs the controller.
#[derive(Clone, Debug)]
pub struct Options {
    /// Source and excluded namespaces.
    pub scope: Scope,
    /// Workers processing the queue concurrently.
    pub workers: usize,
    /// How often informers re-deliver every cached object.
    pub resync: Duration,
    /// How the informers' reflectors back off after a failed list or watch (default
    /// client-go's: 800 ms doubling to a 30 s cap).
    pub reflector_backoff: Backoff,
}

impl Options {
    /// Two workers, 30 s resync, client-go's reflector backoff.
    pub fn new(scope: Scope) -> Self {
        Self {
            scope,
            workers: 2,
            resync: Duration::from_secs(30),
            reflector_backoff: DEFAULT_BACKOFF,
        }
    }
}

/// The controller on its manager (informer factory, optional Lease) with its event
/// recorder, running.
pub struct App {
    client: kube::Client,
    controller: Arc<Controller>,
    recorder: EventRecorder,
    running: RunningManager,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("controller", &self.controller)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers on a
    /// [`Manager`](kubegen::operator::Manager) and starts them. With `election`, the
    /// workers run only while this replica leads (the informers always run, so a new
    /// leader starts with warm caches).
    pub fn start(
        client: kube::Client,
        options: Options,
        election: Option<LeaderElectionConfig>,
    ) -> Result<Self, Error> {
        let recorder =
            EventRecorder::new(client.clone(), EventRecorderConfig::new(CONTROLLER_NAME));
        let mut manager = Manager::new(client.clone())
            .factory_with(|factory| {
                factory
                    .default_resync(options.resync)
                    .reflector_backoff(options.reflector_backoff)
            })
            .leader_election(election);
        let controller = Controller::new(
            client.clone(),
            manager.factory(),
            recorder.clone(),
            options.scope,
            options.workers,
        );
        controller.add_to(&mut manager);
        let running = manager.start()?;
        Ok(Self {
            client,
            controller,
            recorder,
            running,
        })
    }

    /// The controller.
    pub fn controller(&self) -> &Arc<Controller> {
        &self.controller
    }

    /// Resolves once the controller has stopped by itself: under leader election, when
    /// this replica lost the Lease ([`shutdown`](Self::shutdown) then says so).
    pub async fn stopped(&self) {
        self.running.stopped().await;
    }

    /// Reads the server once and reports every target namespace.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.recorder.flush().await;
        demo::check(&self.client, &self.controller).await
    }

    /// Waits until every target namespace holds exactly the copies it should and the
    /// caches agree with the server. Checks after every sync, never on a timer.
    pub async fn wait_converged(&self) -> Report {
        kubegen::operator::wait_converged(self.controller.processed(), || self.check()).await
    }

    /// Drains the queue and stops workers, informers and recorder.
    pub async fn shutdown(self) -> Result<(), Error> {
        let result = self.running.stop().await.map_err(Error::from);
        self.recorder.shutdown().await;
        result
    }
}
