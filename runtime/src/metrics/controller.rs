//! Metrics of [controllers](crate::controller), with controller-runtime's names.
//!
//! A controller asks its [`ControllerMetricsProvider`] once, when it starts, for a
//! [`ControllerMetrics`] handle and reports every reconcile through it:
//!
//! | event | handle call | controller-runtime metric |
//! |---|---|---|
//! | the workers start | [`max_concurrent_reconciles`](ControllerMetrics::max_concurrent_reconciles) | `controller_runtime_max_concurrent_reconciles` |
//! | a worker takes a key / is done with it | [`worker_busy`](ControllerMetrics::worker_busy), [`worker_idle`](ControllerMetrics::worker_idle) | `controller_runtime_active_workers` |
//! | a reconcile ended | [`reconciled`](ControllerMetrics::reconciled) | `controller_runtime_reconcile_total{result}`, `controller_runtime_reconcile_errors_total` (result `error`), `controller_runtime_reconcile_time_seconds` |
//! | a reconcile panicked | [`panicked`](ControllerMetrics::panicked), then `reconciled` with [`ReconcileResult::Error`] | `controller_runtime_reconcile_panics_total` |
//! | a reconcile timed out | [`timed_out`](ControllerMetrics::timed_out), then `reconciled` with [`ReconcileResult::Error`] | `controller_runtime_reconcile_timeouts_total` |
//! | the stale-cache guard put a key back | [`stale_sync_skipped`](ControllerMetrics::stale_sync_skipped) | `controller_runtime_stale_sync_skips_total` (kubegen's; KEP-5647's `stale_sync_skips_total`) |
//! | the guard's deadline passed, the key is reconciled anyway | [`stale_sync_timed_out`](ControllerMetrics::stale_sync_timed_out) | `controller_runtime_stale_sync_timeouts_total` (kubegen's) |
//! | an [owner check](crate::controller::OwnerCheck) read a dependent's owner | [`owner_checked`](ControllerMetrics::owner_checked) | `controller_runtime_owner_checks_total` (kubegen's) |
//! | it deleted a dependent whose owner was gone | [`orphan_deleted`](ControllerMetrics::orphan_deleted) | `controller_runtime_orphans_deleted_total` (kubegen's) |
//!
//! Every series is labelled `controller` with the controller's name.

use std::fmt::{self, Debug};
use std::sync::Arc;
use std::time::Duration;

use super::NoopMetrics;

/// How one reconcile ended: the `result` label of `controller_runtime_reconcile_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReconcileResult {
    /// The reconciler returned [`Action::Done`](crate::controller::Action::Done): the key
    /// was forgotten.
    Success,
    /// The reconciler failed or panicked: the key is retried with backoff.
    Error,
    /// The reconciler asked for [`Action::Requeue`](crate::controller::Action::Requeue):
    /// the key is retried with backoff, without an error.
    Requeue,
    /// The reconciler asked for
    /// [`Action::RequeueAfter`](crate::controller::Action::RequeueAfter): the key comes back
    /// after the given delay.
    RequeueAfter,
}

impl ReconcileResult {
    /// Every result, in the order controller-runtime initialises their series.
    pub const ALL: [ReconcileResult; 4] = [
        ReconcileResult::Error,
        ReconcileResult::RequeueAfter,
        ReconcileResult::Requeue,
        ReconcileResult::Success,
    ];

    /// The label value controller-runtime uses: `success`, `error`, `requeue` or
    /// `requeue_after`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReconcileResult::Success => "success",
            ReconcileResult::Error => "error",
            ReconcileResult::Requeue => "requeue",
            ReconcileResult::RequeueAfter => "requeue_after",
        }
    }
}

impl fmt::Display for ReconcileResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Builds the metrics handle of each controller.
pub trait ControllerMetricsProvider: Debug + Send + Sync + 'static {
    /// The handle the controller called `controller` reports through, or `None` to
    /// record nothing for it.
    fn controller_metrics(&self, controller: &str) -> Option<Arc<dyn ControllerMetrics>>;
}

impl ControllerMetricsProvider for NoopMetrics {
    fn controller_metrics(&self, _: &str) -> Option<Arc<dyn ControllerMetrics>> {
        None
    }
}

impl<P: ControllerMetricsProvider + ?Sized> ControllerMetricsProvider for Arc<P> {
    fn controller_metrics(&self, controller: &str) -> Option<Arc<dyn ControllerMetrics>> {
        (**self).controller_metrics(controller)
    }
}

/// The events of one controller. Every method has a default that does nothing, so an
/// implementation overrides only what it records.
pub trait ControllerMetrics: Debug + Send + Sync {
    /// The controller starts `workers` workers
    /// (`controller_runtime_max_concurrent_reconciles`).
    fn max_concurrent_reconciles(&self, workers: usize) {
        let _ = workers;
    }

    /// A worker took a key (`controller_runtime_active_workers` up by one).
    fn worker_busy(&self) {}

    /// A worker is done with its key (`controller_runtime_active_workers` down by one).
    fn worker_idle(&self) {}

    /// A reconcile ended with `result` after `duration`
    /// (`controller_runtime_reconcile_total{result}`,
    /// `controller_runtime_reconcile_time_seconds`, and
    /// `controller_runtime_reconcile_errors_total` for [`ReconcileResult::Error`]).
    fn reconciled(&self, result: ReconcileResult, duration: Duration) {
        let _ = (result, duration);
    }

    /// A reconcile panicked (`controller_runtime_reconcile_panics_total`). The panic is
    /// also reported through [`reconciled`](ControllerMetrics::reconciled) as an error.
    fn panicked(&self) {}

    /// A reconcile outlived the controller's reconcile timeout and was dropped
    /// (`controller_runtime_reconcile_timeouts_total`). It is also reported through
    /// [`reconciled`](ControllerMetrics::reconciled) as an error.
    fn timed_out(&self) {}

    /// The [stale-cache guard](crate::controller::StaleCacheGuard) put a key back in the
    /// queue instead of reconciling it: a cache had not yet seen the key's last write
    /// (`controller_runtime_stale_sync_skips_total`). No reconcile is reported.
    fn stale_sync_skipped(&self) {}

    /// The stale-cache guard stopped holding a key back at its deadline, and the key is
    /// reconciled on a cache still behind its last write
    /// (`controller_runtime_stale_sync_timeouts_total`).
    fn stale_sync_timed_out(&self) {}

    /// An [owner check](crate::controller::OwnerCheck) read a dependent's owner from the
    /// API server after the dependent was written: one GET
    /// (`controller_runtime_owner_checks_total`).
    fn owner_checked(&self) {}

    /// An owner check found the owner gone and deleted the dependent just written
    /// (`controller_runtime_orphans_deleted_total`).
    fn orphan_deleted(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_labels_are_controller_runtimes() {
        let labels: Vec<_> = ReconcileResult::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(labels, ["error", "requeue_after", "requeue", "success"]);
        assert_eq!(ReconcileResult::RequeueAfter.to_string(), "requeue_after");
    }

    #[test]
    fn noop_provider_declines() {
        assert!(NoopMetrics.controller_metrics("c").is_none());
        assert!(Arc::new(NoopMetrics).controller_metrics("c").is_none());
    }
}
