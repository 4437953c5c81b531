//! Controller metrics in Prometheus, with controller-runtime's names, labels and buckets.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::metrics::controller::{ControllerMetrics, ControllerMetricsProvider, ReconcileResult};

/// The `controller` label carried by every series.
type Labels = [(&'static str, String); 1];

/// The labels of `controller_runtime_reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: &'static str,
}

type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

/// controller-runtime's buckets for `controller_runtime_reconcile_time_seconds`.
const RECONCILE_TIME_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_time_histogram() -> Histogram {
    Histogram::new(RECONCILE_TIME_BUCKETS)
}

/// Controller metrics registered in a Prometheus registry, under controller-runtime's
/// names:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `controller_runtime_reconcile_total` | counter | `controller`, `result` (`success`, `error`, `requeue`, `requeue_after`) |
/// | `controller_runtime_reconcile_errors_total` | counter | `controller` |
/// | `controller_runtime_reconcile_panics_total` | counter | `controller` |
/// | `controller_runtime_reconcile_timeouts_total` | counter | `controller` |
/// | `controller_runtime_stale_sync_skips_total` | counter | `controller` |
/// | `controller_runtime_stale_sync_timeouts_total` | counter | `controller` |
/// | `controller_runtime_owner_checks_total` | counter | `controller` |
/// | `controller_runtime_orphans_deleted_total` | counter | `controller` |
/// | `controller_runtime_reconcile_time_seconds` | histogram | `controller` |
/// | `controller_runtime_max_concurrent_reconciles` | gauge | `controller` |
/// | `controller_runtime_active_workers` | gauge | `controller` |
///
/// The two `stale_sync` counters are kubegen's (controller-runtime has no stale-cache
/// guard; KEP-5647 names its counter `stale_sync_skips_total`), and so are the owner
/// checks' two (GETs of an owner after writing a dependent, dependents deleted because
/// their owner was gone: [`OwnerCheck`](crate::controller::OwnerCheck)).
///
/// As in controller-runtime, every series of a controller exists (at zero) from the
/// moment it starts, so rates and alerts work before the first error. Register once and
/// hand clones to every controller's
/// [`ControllerConfig`](crate::controller::ControllerConfig).
///
/// ```
/// use std::time::Duration;
/// use kubegen_runtime::metrics::controller::{ControllerMetricsProvider, ReconcileResult};
/// use kubegen_runtime::metrics::prometheus::PrometheusControllerMetrics;
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = PrometheusControllerMetrics::register(&mut registry);
/// let foos = metrics.controller_metrics("foos").unwrap();
/// foos.reconciled(ReconcileResult::Success, Duration::from_millis(3));
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// assert!(text.contains(r#"controller_runtime_reconcile_total{controller="foos",result="success"} 1"#));
/// assert!(text.contains(r#"controller_runtime_reconcile_errors_total{controller="foos"} 0"#));
/// ```
#[derive(Clone, Debug)]
pub struct PrometheusControllerMetrics {
    families: Arc<Families>,
}

#[derive(Debug)]
struct Families {
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<Labels, Counter>,
    reconcile_panics: Family<Labels, Counter>,
    reconcile_timeouts: Family<Labels, Counter>,
    stale_sync_skips: Family<Labels, Counter>,
    stale_sync_timeouts: Family<Labels, Counter>,
    owner_checks: Family<Labels, Counter>,
    orphans_deleted: Family<Labels, Counter>,
    reconcile_time: HistogramFamily,
    max_concurrent_reconciles: Family<Labels, Gauge>,
    active_workers: Family<Labels, Gauge>,
}

impl PrometheusControllerMetrics {
    /// Registers the controller metric families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let families = Families {
            reconcile_total: Family::default(),
            reconcile_errors: Family::default(),
            reconcile_panics: Family::default(),
            reconcile_timeouts: Family::default(),
            stale_sync_skips: Family::default(),
            stale_sync_timeouts: Family::default(),
            owner_checks: Family::default(),
            orphans_deleted: Family::default(),
            reconcile_time: Family::new_with_constructor(reconcile_time_histogram),
            max_concurrent_reconciles: Family::default(),
            active_workers: Family::default(),
        };
        // prometheus-client appends `_total` to counters.
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            families.reconcile_total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            families.reconcile_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            families.reconcile_panics.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_timeouts",
            "Total number of reconciliation timeouts per controller",
            families.reconcile_timeouts.clone(),
        );
        registry.register(
            "controller_runtime_stale_sync_skips",
            "Total number of reconciles put off because a cache had not seen the key's last write, per controller",
            families.stale_sync_skips.clone(),
        );
        registry.register(
            "controller_runtime_stale_sync_timeouts",
            "Total number of reconciles run on a cache still behind the key's last write once the wait for it timed out, per controller",
            families.stale_sync_timeouts.clone(),
        );
        registry.register(
            "controller_runtime_owner_checks",
            "Total number of live reads of an owner after writing its dependent, per controller",
            families.owner_checks.clone(),
        );
        registry.register(
            "controller_runtime_orphans_deleted",
            "Total number of dependents deleted right after being written because their owner was gone, per controller",
            families.orphans_deleted.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            families.reconcile_time.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            families.max_concurrent_reconciles.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            families.active_workers.clone(),
        );
        Self {
            families: Arc::new(families),
        }
    }
}

impl ControllerMetricsProvider for PrometheusControllerMetrics {
    fn controller_metrics(&self, controller: &str) -> Option<Arc<dyn ControllerMetrics>> {
        let labels: Labels = [("controller", controller.to_owned())];
        let f = &self.families;
        let results = ReconcileResult::ALL.map(|result| {
            f.reconcile_total.get_or_create_owned(&ResultLabels {
                controller: controller.to_owned(),
                result: result.as_str(),
            })
        });
        Some(Arc::new(ControllerSeries {
            results,
            errors: f.reconcile_errors.get_or_create_owned(&labels),
            panics: f.reconcile_panics.get_or_create_owned(&labels),
            timeouts: f.reconcile_timeouts.get_or_create_owned(&labels),
            stale_sync_skips: f.stale_sync_skips.get_or_create_owned(&labels),
            stale_sync_timeouts: f.stale_sync_timeouts.get_or_create_owned(&labels),
            owner_checks: f.owner_checks.get_or_create_owned(&labels),
            orphans_deleted: f.orphans_deleted.get_or_create_owned(&labels),
            time: f.reconcile_time.get_or_create_owned(&labels),
            max_concurrent_reconciles: f.max_concurrent_reconciles.get_or_create_owned(&labels),
            active_workers: f.active_workers.get_or_create_owned(&labels),
        }))
    }
}

/// The series of one controller, created (at zero) when it starts.
#[derive(Debug)]
struct ControllerSeries {
    /// `controller_runtime_reconcile_total`, in the order of [`ReconcileResult::ALL`].
    results: [Counter; 4],
    errors: Counter,
    panics: Counter,
    timeouts: Counter,
    stale_sync_skips: Counter,
    stale_sync_timeouts: Counter,
    owner_checks: Counter,
    orphans_deleted: Counter,
    time: Histogram,
    max_concurrent_reconciles: Gauge,
    active_workers: Gauge,
}

impl ControllerMetrics for ControllerSeries {
    fn max_concurrent_reconciles(&self, workers: usize) {
        self.max_concurrent_reconciles
            .set(i64::try_from(workers).unwrap_or(i64::MAX));
    }

    fn worker_busy(&self) {
        self.active_workers.inc();
    }

    fn worker_idle(&self) {
        self.active_workers.dec();
    }

    fn reconciled(&self, result: ReconcileResult, duration: Duration) {
        let slot = ReconcileResult::ALL
            .iter()
            .position(|r| *r == result)
            .unwrap_or_default();
        self.results[slot].inc();
        if result == ReconcileResult::Error {
            self.errors.inc();
        }
        self.time.observe(duration.as_secs_f64());
    }

    fn panicked(&self) {
        self.panics.inc();
    }

    fn timed_out(&self) {
        self.timeouts.inc();
    }

    fn stale_sync_skipped(&self) {
        self.stale_sync_skips.inc();
    }

    fn stale_sync_timed_out(&self) {
        self.stale_sync_timeouts.inc();
    }

    fn owner_checked(&self) {
        self.owner_checks.inc();
    }

    fn orphan_deleted(&self) {
        self.orphans_deleted.inc();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn encode(registry: &Registry) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
        text
    }

    #[test]
    fn every_series_exists_at_zero_once_a_controller_starts() {
        let mut registry = Registry::default();
        let provider = PrometheusControllerMetrics::register(&mut registry);
        let _foos = provider.controller_metrics("foos").unwrap();
        let text = encode(&registry);
        for line in [
            r#"controller_runtime_reconcile_total{controller="foos",result="success"} 0"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="error"} 0"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="requeue"} 0"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="requeue_after"} 0"#,
            r#"controller_runtime_reconcile_errors_total{controller="foos"} 0"#,
            r#"controller_runtime_reconcile_panics_total{controller="foos"} 0"#,
            r#"controller_runtime_stale_sync_skips_total{controller="foos"} 0"#,
            r#"controller_runtime_stale_sync_timeouts_total{controller="foos"} 0"#,
            r#"controller_runtime_owner_checks_total{controller="foos"} 0"#,
            r#"controller_runtime_orphans_deleted_total{controller="foos"} 0"#,
            r#"controller_runtime_reconcile_time_seconds_count{controller="foos"} 0"#,
            r#"controller_runtime_max_concurrent_reconciles{controller="foos"} 0"#,
            r#"controller_runtime_active_workers{controller="foos"} 0"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }

    #[test]
    fn each_event_lands_in_its_series() {
        let mut registry = Registry::default();
        let provider = PrometheusControllerMetrics::register(&mut registry);
        let foos = provider.controller_metrics("foos").unwrap();
        let bars = provider.controller_metrics("bars").unwrap();

        foos.max_concurrent_reconciles(4);
        foos.worker_busy();
        foos.worker_busy();
        foos.worker_idle();
        foos.reconciled(ReconcileResult::Success, Duration::from_millis(20));
        foos.reconciled(ReconcileResult::Requeue, Duration::from_millis(1));
        foos.reconciled(ReconcileResult::RequeueAfter, Duration::from_millis(1));
        foos.panicked();
        foos.reconciled(ReconcileResult::Error, Duration::from_secs(2));
        foos.stale_sync_skipped();
        foos.stale_sync_skipped();
        foos.stale_sync_timed_out();
        foos.owner_checked();
        foos.owner_checked();
        foos.orphan_deleted();
        bars.reconciled(ReconcileResult::Error, Duration::from_secs(90));

        let text = encode(&registry);
        for line in [
            r#"controller_runtime_max_concurrent_reconciles{controller="foos"} 4"#,
            r#"controller_runtime_active_workers{controller="foos"} 1"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="success"} 1"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="requeue"} 1"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="requeue_after"} 1"#,
            r#"controller_runtime_reconcile_total{controller="foos",result="error"} 1"#,
            r#"controller_runtime_reconcile_errors_total{controller="foos"} 1"#,
            r#"controller_runtime_reconcile_panics_total{controller="foos"} 1"#,
            r#"controller_runtime_stale_sync_skips_total{controller="foos"} 2"#,
            r#"controller_runtime_stale_sync_timeouts_total{controller="foos"} 1"#,
            r#"controller_runtime_owner_checks_total{controller="foos"} 2"#,
            r#"controller_runtime_orphans_deleted_total{controller="foos"} 1"#,
            r#"controller_runtime_reconcile_time_seconds_count{controller="foos"} 4"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="0.025",controller="foos"} 3"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="2.0",controller="foos"} 4"#,
            r#"controller_runtime_reconcile_errors_total{controller="bars"} 1"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="60.0",controller="bars"} 0"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="+Inf",controller="bars"} 1"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }
}
