//! A controller's reconciles, encoded from a real Prometheus registry under
//! controller-runtime's names, next to its queue's client-go metrics.
#![cfg(feature = "prometheus")]
#![allow(clippy::unwrap_used)]

mod prometheus_support;

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, ObjectList, WatchParams};
use kubegen_runtime::client::written::{GroupResource, report_write};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler, StaleCacheGuard,
};
use kubegen_runtime::informer::{InformerConfig, SharedInformer};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::metrics::prometheus::{
    PrometheusControllerMetrics, PrometheusWorkqueueMetrics,
};
use kubegen_runtime::reflector::{ListerWatcher, WatchStream};
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
    for counter in ["stale_sync_skips", "stale_sync_timeouts"] {
        assert_eq!(
            value(&format!(
                r#"controller_runtime_{counter}_total{{controller="demo"}}"#
            )),
            0.0,
            "nothing written: the guard held nothing back"
        );
    }
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

/// An empty collection of ConfigMaps at resourceVersion 10 whose watch never delivers.
struct Quiet;

impl ListerWatcher<ConfigMap> for Quiet {
    fn list<'a>(&'a self, _: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<ConfigMap>>> {
        let list = serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMapList",
            "metadata": { "resourceVersion": "10" },
            "items": [],
        });
        async move { Ok(serde_json::from_value(list).unwrap()) }.boxed()
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<ConfigMap>>> {
        async { Ok(futures::StreamExt::boxed(futures::stream::pending())) }.boxed()
    }

    fn resource(&self) -> Option<GroupResource> {
        Some(GroupResource::new("", "configmaps"))
    }
}

/// Writes ConfigMap version 12, which the quiet informer never reaches, on its first
/// reconcile.
#[derive(Default)]
struct WritesOnce {
    seen: Mutex<u32>,
}

impl Reconciler for WritesOnce {
    type Error = NotYet;

    async fn reconcile(&self, _: &ObjectKey) -> Result<Action, NotYet> {
        let calls = {
            let mut seen = self.seen.lock().unwrap();
            *seen += 1;
            *seen
        };
        if calls == 1 {
            report_write(
                &GroupResource::new("", "configmaps"),
                Some("default"),
                Some("12"),
            );
        }
        Ok(Action::Done)
    }
}

#[tokio::test]
async fn the_stale_cache_guard_counts_its_skips_and_its_timeouts() {
    let mut registry = Registry::default();
    let controller = Controller::new(
        ControllerConfig::default()
            .name("guarded")
            .stale_cache_guard(StaleCacheGuard::default().timeout(Duration::from_millis(100)))
            .metrics(PrometheusControllerMetrics::register(&mut registry)),
    );
    let informer = SharedInformer::new(Quiet, InformerConfig::default());
    controller.watches(&informer, EnqueueObject::new(controller.queue()));
    informer.start();
    let key = ObjectKey::namespaced("default", "web");
    controller.queue().add(key.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn({
        let controller = controller.clone();
        async move {
            controller
                .run(WritesOnce::default(), async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    controller.processed().wait_for(|n| *n >= 1).await.unwrap();
    // The write is recorded; the next reconcile waits for version 12 until the deadline.
    controller.queue().add(key);
    controller.processed().wait_for(|n| *n >= 2).await.unwrap();

    let samples = scrape(&registry);
    let value = |series: &str| {
        *samples
            .get(series)
            .unwrap_or_else(|| panic!("no {series} in {samples:#?}"))
    };
    assert!(value(r#"controller_runtime_stale_sync_skips_total{controller="guarded"}"#) >= 1.0);
    assert_eq!(
        value(r#"controller_runtime_stale_sync_timeouts_total{controller="guarded"}"#),
        1.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_total{controller="guarded",result="success"}"#),
        2.0
    );

    stop.send(()).unwrap();
    task.await.unwrap().unwrap();
    informer.shutdown().await;
}
