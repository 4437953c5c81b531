//! client-go's [sample-controller], written with kubegen.
//!
//! For every `Foo` (`samplecontroller.k8s.io/v1alpha1`) the controller ensures a
//! Deployment named `spec.deploymentName` running `spec.replicas` pods, controlled by the
//! Foo (owner reference); recreates it when it is deleted; fixes its replicas when they
//! drift; refuses to adopt a Deployment it does not control (Warning event
//! `ErrResourceExists`); and records the Deployment's available replicas in the Foo's
//! status through the status subresource. Its writes are server-side applies: the
//! Deployment it declares, and the Foo's status as a generated `FooApply` holding only
//! `status.availableReplicas` (see [`applyconfigurations`]). It watches Foos and Deployments: a change to a
//! Deployment enqueues the Foo that controls it.
//!
//! The flow is client-go's: informers -> event handlers enqueue keys -> rate-limited work
//! queue -> workers read from listers (edge triggered, level driven) -> write through the
//! client -> `add_rate_limited` on error, `forget` on success, `done` always. The loop is
//! the runtime's ([`kubegen::runtime::controller`]); this crate supplies the handlers and
//! the reconciler. See [`controller`].
//!
//! The `Foo` type is written by hand in [`apis`] with `#[derive(Resource, DeepCopy)]`;
//! its clientset, lister and informer in [`generated`] come from
//! `kubegen generate --rust src/apis --clients-out src/generated` (the controller uses
//! `Clientset::samplecontroller_v1alpha1().foos(ns)`, `FooLister` and
//! `factory.samplecontroller().v1alpha1().foos()`). Deployments go through the
//! generated clientset and informers of the built-in groups, `kubegen::kubernetes`
//! (`apps_v1().deployments(ns)`, `DeploymentLister`), as client-go's `kubernetes`
//! package serves Go's sample-controller.
//!
//! The RBAC it needs is derived from this wiring by its Manager ([`rbac`]: the
//! informers, the event recorder, the Lease, the writes [`controller::Controller::add_to`]
//! declares) and committed as `config/rbac/role.yaml` (`sample-controller --print-rbac`).
//!
//! Two demos run on the embedded API server: [`failover`] (`--replicas N`: replicas under
//! one Lease, the leader stopped, a standby taking over) and [`sharding`] (`--replicas N
//! --shards S`: the Foos split by namespace into shards with a Lease each, a replica
//! killed and its shards taken over).
//!
//! [sample-controller]: https://github.com/kubernetes/sample-controller
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), sample_controller::controller::Error> {
//! use sample_controller::{App, Options};
//!
//! let app = App::start(client, Options::default(), None)?;
//! let report = app.wait_converged().await; // every Foo synced or refused
//! print!("{report}");
//! app.shutdown().await
//! # }
//! ```

// The kind is called Foo, as in client-go's sample-controller; so are its variables.
#![allow(clippy::disallowed_names)]

pub mod apis;
pub mod controller;
pub mod demo;
pub mod failover;
pub mod sharding;
// Written by `kubegen generate --rust src/apis` (hack/update-codegen.sh); never edited, so
// rustfmt leaves the generator's layout alone and verify-codegen.sh can diff it.
#[rustfmt::skip]
pub mod generated;
// Apply configurations (`FooApply`), written by `kubegen generate --apply-out`.
#[rustfmt::skip]
pub mod applyconfigurations;

use std::sync::Arc;

use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use kubegen::operator::{Manager, ManagerOptions, RunningManager};
use kubegen::runtime::controller::{ControllerConfig, StaleCacheGuard};
use kubegen::runtime::events::EventRecorderConfig;
use kubegen::runtime::leaderelection::LeaderElectionConfig;

use controller::{CONTROLLER_NAME, Controller, Error};
use demo::Report;

/// How [`App::start`] runs the controller.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Workers, informer resync and reflector backoff (two workers, 30 s, client-go's
    /// backoff by default).
    pub manager: ManagerOptions,
    /// The reconcile loop's stale-cache guard (default: the runtime's, on).
    pub stale_cache_guard: StaleCacheGuard,
}

impl Options {
    /// The controller's configuration on `manager`: its workers, metrics and guard.
    fn controller_config(&self, manager: &Manager) -> ControllerConfig {
        manager.controller_config(
            ControllerConfig::default().stale_cache_guard(self.stale_cache_guard),
        )
    }
}

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
    options: &Options,
    election: Option<LeaderElectionConfig>,
) -> (Manager, Arc<Controller>) {
    let mut manager = Manager::new(client.clone())
        .options(&options.manager)
        .leader_election(election);
    let recorder = manager.event_recorder(EventRecorderConfig::new(CONTROLLER_NAME));
    let config = options.controller_config(&manager);
    let controller = Controller::new(client, manager.factory(), recorder, config);
    controller.add_to(&mut manager);
    (manager, controller)
}

/// The comment atop `config/rbac/role.yaml` and `--print-rbac`'s output.
pub const RBAC_HEADER: &str = "# The RBAC roles sample-controller needs, derived from its code by its Manager.\n# Written by `sample-controller --embedded --leader-elect --print-rbac`: do not edit.\n";

/// The ClusterRole `sample-controller` the controller needs, and with `election` the Role
/// `sample-controller-leader-election` for its Lease, as its [`Manager`] derives them from
/// the wiring [`App::start`] runs (committed as `config/rbac/role.yaml`, printed by
/// `sample-controller --print-rbac`). Nothing is started; `client` is not called.
///
/// # Panics
/// Outside a tokio runtime (the event recorder spawns its writer).
pub fn rbac(
    client: kube::Client,
    election: Option<LeaderElectionConfig>,
) -> (ClusterRole, Option<Role>) {
    let (manager, _) = wire(client, &Options::default(), election);
    manager.rbac(CONTROLLER_NAME)
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers on a [`Manager`], and
    /// starts them on the current tokio runtime (as `main` in client-go's
    /// sample-controller does). With `election`, the workers run only while this replica
    /// leads (the informers always run, so a new leader starts with warm caches).
    pub fn start(
        client: kube::Client,
        options: Options,
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

    /// The running manager: its informer factory (to add informers, e.g.
    /// [`demo::DeploymentStandIn`]), its election, whether it stopped by itself.
    pub fn running(&self) -> &RunningManager {
        &self.running
    }

    /// Reads the server once and reports where every Foo stands.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.running.flush_events().await;
        demo::check(&self.client, &self.controller).await
    }

    /// Waits until the server shows every Foo synced (or refused with a Warning event)
    /// and the caches agree with it. Checks after every reconcile, never on a timer.
    pub async fn wait_converged(&self) -> Report {
        self.wait_converged_through(&self.client).await
    }

    /// [`wait_converged`](Self::wait_converged) reading the server through `client`:
    /// the report lists Events, which the controller's own role (see [`rbac`]) does not
    /// allow.
    pub async fn wait_converged_through(&self, client: &kube::Client) -> Report {
        let controller = &self.controller;
        self.running
            .wait_converged(|| demo::check(client, controller))
            .await
    }

    /// Stops the workers after draining the queue (within the manager's 30 s), then the
    /// informers and the recorder (which writes what it still holds).
    pub async fn shutdown(self) -> Result<(), Error> {
        Ok(self.running.stop().await?)
    }
}
