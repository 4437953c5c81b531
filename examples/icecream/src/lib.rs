//! icecream: watches Pods and writes into each `Icecream` custom resource
//! (`icecream.example.com/v1`) the nodes its pods are scheduled on. An Icecream selects
//! the pods of its namespace with a standard label selector (`spec.selector`); its status
//! lists every matching pod with its node (`status.pods`), the distinct nodes
//! (`status.nodes`) and the spec generation it reflects (`status.observedGeneration`).
//! See [`apis::icecream::v1`] for the API (written with `#[derive(Resource, DeepCopy)]`);
//! its clientset, lister and informer are generated into [`generated`]. Pods come from
//! the generated informers of the built-in groups (`kubegen::kubernetes`).
//!
//! The kind has a second, older version, [`apis::icecream::v1alpha1`], still served: the
//! API server converts between the two through the example's conversion webhook, and
//! checks `v1` toppings with its validating webhook ([`webhooks`]; the conversions
//! themselves are generated into [`conversions`], but for the four fields only we can
//! convert).
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), icecream::controller::Error> {
//! use icecream::App;
//! use kubegen::operator::ManagerOptions;
//!
//! let app = App::start(client, ManagerOptions::default(), None)?;
//! let report = app.wait_converged().await;
//! print!("{report}");
//! app.shutdown().await
//! # }
//! ```

pub mod apis;
pub mod controller;
pub mod demo;
pub mod menu;
pub mod webhooks;
// Written by `kubegen generate --rust src/apis` (hack/update-codegen.sh); never edited, so
// rustfmt leaves the generator's layout alone and verify-codegen.sh can diff it.
#[rustfmt::skip]
pub mod generated;
// Apply configurations (`FooApply`), written by `kubegen generate --apply-out`.
#[rustfmt::skip]
pub mod applyconfigurations;
// Conversions between v1alpha1 and v1, written by `kubegen generate --conversions-out`;
// `webhooks` implements the fields only we can convert.
#[rustfmt::skip]
pub mod conversions;

use std::sync::Arc;

use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use kubegen::operator::{Manager, ManagerOptions, RunningManager};
use kubegen::runtime::controller::ControllerConfig;
use kubegen::runtime::events::EventRecorderConfig;
use kubegen::runtime::leaderelection::LeaderElectionConfig;

use controller::{CONTROLLER_NAME, Controller, Error};
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

/// The manager with the controller added (not started), and the controller.
fn wire(
    client: kube::Client,
    options: &ManagerOptions,
    election: Option<LeaderElectionConfig>,
) -> (Manager, Arc<Controller>) {
    let mut manager = Manager::new(client.clone())
        .options(options)
        .leader_election(election);
    let recorder = manager.event_recorder(EventRecorderConfig::new(CONTROLLER_NAME));
    let config = manager.controller_config(ControllerConfig::default());
    let controller = Controller::new(client, manager.factory(), recorder, config);
    controller.add_to(&mut manager);
    (manager, controller)
}

/// The ClusterRole `icecream-controller` the controller needs (and with `election` the
/// Role for its Lease), as its [`Manager`] derives them from the wiring [`App::start`]
/// runs. Nothing is started; `client` is not called.
///
/// # Panics
/// Outside a tokio runtime (the event recorder spawns its writer).
pub fn rbac(
    client: kube::Client,
    election: Option<LeaderElectionConfig>,
) -> (ClusterRole, Option<Role>) {
    let (manager, _) = wire(client, &ManagerOptions::default(), election);
    manager.rbac(CONTROLLER_NAME)
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers on a [`Manager`] run as
    /// `options` say, and starts them. With `election`, the workers run only while this
    /// replica leads (the informers always run, so a new leader starts with warm caches).
    #[allow(
        clippy::result_large_err,
        reason = "called once per process; the error is the reconciler's, which kube's error sizes"
    )]
    pub fn start(
        client: kube::Client,
        options: ManagerOptions,
        election: Option<LeaderElectionConfig>,
    ) -> Result<Self, Error> {
        let (manager, controller) = wire(client.clone(), &options, election);
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

    /// Reads the server once and reports every Icecream.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.running.flush_events().await;
        demo::check(&self.client, &self.controller).await
    }

    /// Waits until every Icecream's status matches the pods on the server and the caches
    /// agree with it. Checks after every sync, never on a timer.
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
