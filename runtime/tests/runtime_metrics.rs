//! Reflector metrics reach a Prometheus registry when an informer syncs from the testkit.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::metrics::prometheus::PrometheusInformerMetrics;
use kubegen_testkit::ApiServer;
use prometheus_client::registry::Registry;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_sync_is_counted_in_prometheus() {
    let server = ApiServer::start().await.unwrap();
    let client = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    for i in 0..3 {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("cm-{i}")),
                ..Default::default()
            },
            ..Default::default()
        };
        client.create(&cm).await.unwrap();
    }

    let mut registry = Registry::default();
    let metrics = PrometheusInformerMetrics::register(&mut registry);
    let factory = SharedInformerFactory::new(server.client()).metrics(Arc::new(metrics));
    let _informer = factory.informer::<ConfigMap>();
    factory.start();
    let synced = factory.wait_for_cache_sync(Duration::from_secs(30)).await;
    assert!(synced.values().all(|s| *s), "{synced:?}");

    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    let line = |metric: &str| {
        text.lines()
            .find(|l| l.starts_with(metric))
            .unwrap_or_else(|| panic!("no {metric} in\n{text}"))
            .to_owned()
    };
    assert!(line("reflector_lists_total{").ends_with(" 1"), "{text}");
    assert!(line("reflector_list_items{").ends_with(" 3"), "{text}");
    assert!(line("reflector_store_objects{").ends_with(" 3"), "{text}");
    let version: i64 = line("reflector_last_resource_version{")
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(version > 0);
    factory.shutdown().await;
    server.shutdown().await;
}
