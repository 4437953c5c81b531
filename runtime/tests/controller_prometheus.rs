//! A controller's reconciles, encoded from a real Prometheus registry under
//! controller-runtime's names, next to its queue's client-go metrics.
#![cfg(feature = "prometheus")]
#![allow(clippy::unwrap_used)]

mod prometheus_support;

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use kubegen_runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::metrics::prometheus::{
    PrometheusControllerMetrics, PrometheusWorkqueueMetrics,
};
use kubegen_runtime::workqueue::QueueConfig;
use prometheus_client::registry::Registry;
use prometheus_support::scrape;

#[derive(Debug, thiserror::Error)]
#[error("not yet")]
struct NotYet;

/// Each key misbehaves as its name says the first time, then succeeds.
#[derive(Default)]
struct FirstTimeUnlucky {
    seen: Mutex<HashSet<ObjectKey>>,
}

impl Reconciler for FirstTimeUnlucky {
    type Error = NotYet;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, NotYet> {
        let first = self.seen.lock().unwrap().insert(key.clone());
        // Reconciles take 20 ms of (paused) time.
        tokio::time::sleep(Duration::from_millis(20)).await;
        if !first {
            return Ok(Action::Done);
        }
        match key.name() {
            "fails" => Err(NotYet),
            "panics" => panic!("first time unlucky"),
            "requeues" => Ok(Action::Requeue),
            "polls" => Ok(Action::RequeueAfter(Duration::from_secs(1))),
            _ => Ok(Action::Done),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn reconciles_are_counted_under_controller_runtime_names() {
    let mut registry = Registry::default();
    let controller_metrics = PrometheusControllerMetrics::register(&mut registry);
    let queue_metrics = PrometheusWorkqueueMetrics::register(&mut registry);
    let controller = Controller::new(
        ControllerConfig::default()
            .name("demo")
            .workers(3)
            .queue(QueueConfig::default().metrics(queue_metrics))
            .metrics(controller_metrics),
    );
    for name in ["fine", "fails", "panics", "requeues", "polls"] {
        controller
            .queue()
            .add(ObjectKey::namespaced("default", name));
    }
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn({
        let controller = controller.clone();
        async move {
            controller
                .run(FirstTimeUnlucky::default(), async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    // Five first reconciles, then the four second ones.
    controller.processed().wait_for(|n| *n >= 9).await.unwrap();

    let samples = scrape(&registry);
    let value = |series: &str| {
        *samples
            .get(series)
            .unwrap_or_else(|| panic!("no {series} in {samples:#?}"))
    };
    let total = |result: &str| {
        value(&format!(
            r#"controller_runtime_reconcile_total{{controller="demo",result="{result}"}}"#
        ))
    };
    assert_eq!(total("success"), 5.0);
    assert_eq!(total("error"), 2.0, "the failure and the panic");
    assert_eq!(total("requeue"), 1.0);
    assert_eq!(total("requeue_after"), 1.0);
    assert_eq!(
        value(r#"controller_runtime_reconcile_errors_total{controller="demo"}"#),
        2.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_panics_total{controller="demo"}"#),
        1.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_timeouts_total{controller="demo"}"#),
        0.0,
        "the series exists from the start"
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_time_seconds_count{controller="demo"}"#),
        9.0
    );
    let seconds = value(r#"controller_runtime_reconcile_time_seconds_sum{controller="demo"}"#);
    assert!((seconds - 9.0 * 0.02).abs() < 1e-9, "{seconds}");
    assert_eq!(
        value(r#"controller_runtime_reconcile_time_seconds_bucket{le="0.01",controller="demo"}"#),
        0.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_time_seconds_bucket{le="0.025",controller="demo"}"#),
        9.0
    );
    assert_eq!(
        value(r#"controller_runtime_max_concurrent_reconciles{controller="demo"}"#),
        3.0
    );
    assert_eq!(
        value(r#"controller_runtime_active_workers{controller="demo"}"#),
        0.0
    );
    // The queue is named after the controller, so client-go's queue metrics report too.
    assert_eq!(value(r#"workqueue_adds_total{name="demo"}"#), 9.0);
    assert_eq!(value(r#"workqueue_retries_total{name="demo"}"#), 4.0);

    stop.send(()).unwrap();
    task.await.unwrap().unwrap();
}
