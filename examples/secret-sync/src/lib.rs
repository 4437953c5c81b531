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
//! use kubegen::operator::ManagerOptions;
//! use secret_sync::App;
//! use secret_sync::controller::Scope;
//!
//! let scope = Scope::new("shared-secrets");
//! let app = App::start(client, scope, ManagerOptions::default(), None)?;
//! let report = app.wait_converged().await;
//! print!("{report}");
//! app.shutdown().await
//! # }
//! ```

pub mod controller;
pub mod demo;

use std::sync::Arc;

use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use kubegen::operator::{Manager, ManagerOptions, RunningManager};
use kubegen::runtime::controller::ControllerConfig;
use kubegen::runtime::events::EventRecorderConfig;
use kubegen::runtime::leaderelection::LeaderElectionConfig;

use controller::{CONTROLLER_NAME, Controller, Error, Scope};
use demo::Report;

/// The controller on its manager (informer factory, optional Lease, event recorder),
/// running.
pub struct App {
    client: kube::Client,
    controller: Arc<Controller>,
    running: RunningManager,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("controller", &self.controller)
            .field("running", &self.running)
            .finish_non_exhaustive()
    }
}

/// The manager with the controller for `scope` added (not started), and the controller.
fn wire(
    client: kube::Client,
    scope: Scope,
    options: &ManagerOptions,
    election: Option<LeaderElectionConfig>,
) -> (Manager, Arc<Controller>) {
    let mut manager = Manager::new(client.clone())
        .options(options)
        .leader_election(election);
    let recorder = manager.event_recorder(EventRecorderConfig::new(CONTROLLER_NAME));
    let config = manager.controller_config(ControllerConfig::default());
    let controller = Controller::new(client, manager.factory(), recorder, scope, config);
    controller.add_to(&mut manager);
    (manager, controller)
}

/// The ClusterRole `secret-sync` the controller for `scope` needs (and with `election`
/// the Role for its Lease), as its [`Manager`] derives them from the wiring
/// [`App::start`] runs. Nothing is started; `client` is not called.
///
/// # Panics
/// Outside a tokio runtime (the event recorder spawns its writer).
pub fn rbac(
    client: kube::Client,
    scope: Scope,
    election: Option<LeaderElectionConfig>,
) -> (ClusterRole, Option<Role>) {
    let (manager, _) = wire(client, scope, &ManagerOptions::default(), election);
    manager.rbac(CONTROLLER_NAME)
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers for `scope` on a
    /// [`Manager`] run as `options` say, and starts them. With `election`, the workers
    /// run only while this replica leads (the informers always run, so a new leader
    /// starts with warm caches).
    pub fn start(
        client: kube::Client,
        scope: Scope,
        options: ManagerOptions,
        election: Option<LeaderElectionConfig>,
    ) -> Result<Self, Error> {
        let (manager, controller) = wire(client.clone(), scope, &options, election);
        let running = manager.start()?;
        Ok(Self {
            client,
            controller,
            running,
        })
    }

    /// The controller.
    pub fn controller(&self) -> &Arc<Controller> {
        &self.controller
    }

    /// The running manager (whether it stopped by itself, its informer factory).
    pub fn running(&self) -> &RunningManager {
        &self.running
    }

    /// Reads the server once and reports every target namespace.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.running.flush_events().await;
        demo::check(&self.client, &self.controller).await
    }

    /// Waits until every target namespace holds exactly the copies it should and the
    /// caches agree with the server. Checks after every sync, never on a timer.
    pub async fn wait_converged(&self) -> Report {
        let (client, controller) = (&self.client, &self.controller);
        self.running
            .wait_converged(|| demo::check(client, controller))
            .await
    }

    /// Drains the queue and stops workers, informers and recorder.
    pub async fn shutdown(self) -> Result<(), Error> {
        Ok(self.running.stop().await?)
    }
}
