//! What every operator binary needs around its controller: connecting to a cluster,
//! installing its CRDs, running the controller on a task, stopping it cleanly on SIGTERM
//! or Ctrl-C, and its command-line flags.
//!
//! - [`Cluster::connect`]: a real cluster through the kubeconfig or the in-cluster
//!   configuration (`kube::Config::infer`); with the `embedded` feature, when none is
//!   configured (or with `--embedded`), an API server started in this process (the
//!   testkit's, `kubegen::testkit`), so the operator runs and demos itself anywhere.
//! - [`install_crds`]: applies CustomResourceDefinitions and waits until the server
//!   establishes them.
//! - [`Manager`]: several controllers in one process on one informer factory, one
//!   optional Lease and (feature `metrics`) one registry served with `/healthz` and
//!   `/readyz`; stopped with a drain within a deadline (controller-runtime's Manager),
//!   then its event recorders ([`Manager::event_recorder`]). [`ManagerOptions`]: the
//!   knobs its controllers share (workers, resync, reflector backoff).
//!   [`RunningManager`]: the started manager, which runs work until a signal
//!   ([`RunningManager::until_shutdown`]), waits for every controller to converge
//!   ([`RunningManager::wait_converged`]) and stops.
//! - [`Manager::rbac`]: the ClusterRole (and leader election Role) the manager's
//!   controllers need, derived from its informers, its event recorder, its Lease and
//!   the writes declared with [`Access`]; `rbac_manifest` (feature `cli`) writes them
//!   as YAML for `config/rbac/role.yaml`.
//! - [`ShardConfig`], [`Manager::add_sharded`]: a manager's controllers split across
//!   replicas by shard (KEP-5866's hash of the uid or namespace), one Lease per shard;
//!   the replica holding a shard runs that shard's controllers on informers that list
//!   and watch its objects only.
//! - [`RunningController`]: the reconcile loop on its own task, alone or under leader
//!   election.
//! - [`shutdown_signal`]: resolves on SIGTERM or SIGINT (Ctrl-C elsewhere), to stop the
//!   controller with a drain and, under leader election, release the Lease.
//! - [`wait_converged`]: waits until a [`Converged`] report says the controller is done,
//!   checked after every processed key (demos and tests).
//! - `Metrics` (feature `metrics`): the runtime's Prometheus metrics in one registry,
//!   served at `/metrics` with `/healthz` beside it.
//! - [`run_main`]: an operator's `main` around its `run`: the Tokio runtime, the exit
//!   status, the error printed with its sources.
//! - [`ClusterArgs`], [`RunArgs`], [`LeaderElectArgs`]: the flags every operator takes
//!   (`--kubeconfig`, `--context`, `--embedded`, `--workers`, `--resync-seconds`, `--keep-running`,
//!   `--leader-elect`, `--leader-elect-lease-name`, `--leader-elect-namespace`); with
//!   the `cli` feature they derive `clap::Args`, and `init_logging` sets up `tracing`.
//!
//! An operator's `main`, without the flags:
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
//! use kubegen::operator::{Cluster, ClusterArgs, LeaderElectArgs, RunningController, install_crds, shutdown_signal};
//! use kubegen::runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
//! use kubegen::runtime::key::ObjectKey;
//!
//! struct Foos;
//!
//! impl Reconciler for Foos {
//!     type Error = std::convert::Infallible;
//!     async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
//!         println!("reconcile {key}");
//!         Ok(Action::Done)
//!     }
//! }
//!
//! # fn foo_crd() -> CustomResourceDefinition { CustomResourceDefinition::default() }
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let cluster = Cluster::connect(&ClusterArgs::default()).await?;
//!     let client = cluster.client();
//!     install_crds(&client, &[foo_crd()], "foo-controller", Duration::from_secs(30)).await?;
//!     let controller = Controller::new(ControllerConfig::default().name("foo-controller"));
//!     // controller.watches(&informer, EnqueueObject::new(controller.queue())); factory.start();
//!     let elector = LeaderElectArgs::default().elector(&client, "foo-controller")?;
//!     let running = RunningController::spawn(controller, Foos, elector);
//!     tokio::select! {
//!         () = shutdown_signal() => {} // SIGTERM, or Ctrl-C
//!         () = running.stopped() => {} // stopped by itself: a lost Lease
//!     }
//!     running.stop().await?; // drained; under leader election the Lease is released
//!     cluster.shutdown().await;
//!     Ok(())
//! }
//! ```

mod args;
mod cluster;
mod convergence;
mod crds;
#[cfg(feature = "cli")]
mod logging;
mod manager;
#[cfg(feature = "metrics")]
mod metrics;
mod options;
#[cfg(feature = "metrics")]
mod probes;
mod process;
mod rbac;
mod running;
mod running_manager;
mod shards;
mod shutdown;

pub use args::{ClusterArgs, LeaderElectArgs, RunArgs};
pub use cluster::{Cluster, ClusterSource, ConnectError};
pub use convergence::{Converged, wait_converged};
pub use crds::{CrdError, install_crds};
#[cfg(feature = "cli")]
pub use logging::init_logging;
pub use manager::{DEFAULT_SHUTDOWN_TIMEOUT, Manager, ManagerError};
#[cfg(feature = "metrics")]
pub use metrics::Metrics;
pub use options::ManagerOptions;
pub use process::run_main;
pub use rbac::Access;
#[cfg(feature = "cli")]
pub use rbac::{ManifestError, manifest as rbac_manifest};
pub use running::RunningController;
pub use running_manager::RunningManager;
pub use shards::{HeldShards, Shard, ShardConfig};
pub use shutdown::shutdown_signal;
