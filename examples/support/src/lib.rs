//! What every kubegen example binary shares, so each example's own code is only its
//! controller:
//!
//! - [`ClusterArgs`] / [`RunArgs`] / [`LeaderElectArgs`]: the flags every example takes
//!   (`--kubeconfig`, `--context`, `--embedded`, `--workers`, `--keep-running`,
//!   `--leader-elect`, `--leader-elect-lease-name`, `--leader-elect-namespace`).
//! - [`RunningController`]: the reconcile loop on its own task, alone or under leader
//!   election.
//! - [`Cluster::connect`]: a real cluster through the kubeconfig or in-cluster config
//!   (`kube::Config::infer`), or, when none is configured, the testkit API server
//!   started in this process.
//! - [`install_crds`]: creates or updates CustomResourceDefinitions and waits until the
//!   server establishes them.
//! - [`wait_converged`]: the embedded demo's wait until a controller's [`Converged`]
//!   report says it is done, checked after every processed key.
//! - [`init_logging`] and [`ctrl_c`].

mod cli;
mod cluster;
mod convergence;
mod crds;
mod logging;
mod running;

pub use cli::{ClusterArgs, LeaderElectArgs, RunArgs};
pub use cluster::{Cluster, ClusterSource, Error};
pub use convergence::{Converged, wait_converged};
pub use crds::{CrdError, install_crds};
pub use logging::init_logging;
pub use running::RunningController;

/// Resolves on Ctrl-C (SIGINT). If the signal cannot be listened for, logs why and never
/// resolves, so the caller's other stop conditions still apply.
pub async fn ctrl_c() {
    if let Err(error) = tokio::signal::ctrl_c().await {
        tracing::error!(%error, "failed to listen for Ctrl-C");
        std::future::pending::<()>().await;
    }
    tracing::info!("Ctrl-C: shutting down, draining the work queue");
}
