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
use std::time::Duration;

use k8s_openapi::api::rbac::v1::{ClusterRole, Role};
use kubegen::operator::{Manager, RunningManager};
use kubegen::runtime::backoff::Backoff;
use kubegen::runtime::controller::StaleCacheGuard;
use kubegen::runtime::events::{EventRecorder, EventRecorderConfig};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::leaderelection::{LeaderElectionConfig, LeaderStatus};
use kubegen::runtime::reflector::DEFAULT_BACKOFF;
use tokio::sync::watch;

use controller::{CONTROLLER_NAME, Controller, Error};
use demo::Report;

/// How [`App::start`] runs the controller.
#[derive(Clone, Debug)]
pub struct Options {
    /// Workers processing the queue concurrently.
    pub workers: usize,
    /// How often informers re-deliver every cached object (level-based safety net).
    pub resync: Duration,
    /// How the informers' reflectors back off after a failed list or watch (default
    /// client-go's: 800 ms doubling to a 30 s cap).
    pub reflector_backoff: Backoff,
    /// The reconcile loop's stale-cache guard (default: the runtime's, on).
    pub stale_cache_guard: StaleCacheGuard,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            workers: 2,
            resync: Duration::from_secs(30),
            reflector_backoff: DEFAULT_BACKOFF,
            stale_cache_guard: StaleCacheGuard::default(),
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
            .field("running", &self.running)
            .finish_non_exhaustive()
    }
}

/// The manager with the controller added (not started), the controller and its event
/// recorder.
fn wire(
    client: kube::Client,
    options: &Options,
    election: Option<LeaderElectionConfig>,
) -> (Manager, Arc<Controller>, EventRecorder) {
    let mut manager = Manager::new(client.clone())
        .factory_with(|factory| {
            factory
                .default_resync(options.resync)
                .reflector_backoff(options.reflector_backoff)
        })
        .leader_election(election);
    let recorder = manager.event_recorder(EventRecorderConfig::new(CONTROLLER_NAME));
    let controller = Controller::new(
        client,
        manager.factory(),
        recorder.clone(),
        options.workers,
        options.stale_cache_guard,
    );
    controller.add_to(&mut manager);
    (manager, controller, recorder)
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
    let (manager, _, _) = wire(client, &Options::default(), election);
    manager.rbac(CONTROLLER_NAME)
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers on a
    /// [`Manager`](kubegen::operator::Manager), and starts them on the current tokio
    /// runtime (as `main` in client-go's sample-controller does). With `election`, the
    /// workers run only while this replica leads (the informers always run, so a new
    /// leader starts with warm caches).
    pub fn start(
        client: kube::Client,
        options: Options,
        election: Option<LeaderElectionConfig>,
    ) -> Result<Self, Error> {
        let (manager, controller, recorder) = wire(client.clone(), &options, election);
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

    /// The election as this replica sees it; `None` without leader election.
    pub fn leader_status(&self) -> Option<watch::Receiver<LeaderStatus>> {
        self.running.leader_status()
    }

    /// The shared informer factory (to add informers, e.g. [`demo::DeploymentStandIn`]).
    pub fn factory(&self) -> &SharedInformerFactory {
        self.running.factory()
    }

    /// Reads the server once and reports where every Foo stands.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.check_through(&self.client).await
    }

    /// [`check`](Self::check) reading through `client`: the report lists Events, which
    /// the controller's own role (see [`rbac`]) does not allow.
    pub async fn check_through(
        &self,
        client: &kube::Client,
    ) -> Result<Report, kubegen::runtime::error::Error> {
        self.recorder.flush().await;
        demo::check(client, &self.controller).await
    }

    /// Waits until the server shows every Foo synced (or refused with a Warning event)
    /// and the caches agree with it. Checks after every reconcile, never on a timer.
    pub async fn wait_converged(&self) -> Report {
        self.wait_converged_through(&self.client).await
    }

    /// [`wait_converged`](Self::wait_converged) reading the server through `client`.
    pub async fn wait_converged_through(&self, client: &kube::Client) -> Report {
        kubegen::operator::wait_converged(self.controller.processed(), || {
            self.check_through(client)
        })
        .await
    }

    /// Stops the workers after draining the queue (within the manager's 30 s), then the
    /// informers and the recorder (which writes what it still holds).
    pub async fn shutdown(self) -> Result<(), Error> {
        let result = self.running.stop().await.map_err(Error::from);
        self.recorder.shutdown().await;
        result
    }
}
