//! Testkit webhook costs on loopback, with the runtime's webhook server
//! (`kubegen_runtime::webhook::WebhookServer`) as the webhook:
//!
//! - CRD conversion throughput: a LIST of 10,000 custom resources at the non-storage
//!   version (every item converted by the webhook, in one ConversionReview) against the
//!   same LIST at the storage version (nothing converted), in the same run, alternating;
//!   objects per second from the median round. Times are from the request to the whole
//!   body, undecoded.
//! - Admission latency: a ConfigMap create with one validating webhook (allowing) against
//!   a create with no webhook configuration stored, alternating rounds; median and p99
//!   of the client-side latency, and the difference (what one webhook call adds).
//!
//! Run: `cargo bench -p kubegen-testkit --features certs --bench testkit_conversion`;
//! `KUBEGEN_BENCH_OBJECTS` changes the list size (default 10000).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::http::Request;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ObjectMeta, PostParams};
use kubegen_runtime::webhook::{
    AdmissionRequest, Converter, Validator, Verdict, WebhookServer, WebhookServerConfig,
};
use kubegen_testkit::ApiServer;
use kubegen_testkit::certs::TestCa;
use serde_json::{Value, json};
use tokio::net::TcpListener;

const LIST_ROUNDS: usize = 7;
const ADMISSION_ROUNDS: usize = 5;
const CREATES_PER_ROUND: usize = 200;

/// v1alpha1 `spec.colour` <-> v1 `spec.color`.
struct Colours;

impl Converter for Colours {
    type Error = String;

    fn convert(&self, mut object: Value, desired_api_version: &str) -> Result<Value, String> {
        let (from, to) = match desired_api_version {
            "example.com/v1" => ("colour", "color"),
            "example.com/v1alpha1" => ("color", "colour"),
            other => return Err(format!("unknown version {other}")),
        };
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
            && let Some(value) = spec.remove(from)
        {
            spec.insert(to.to_owned(), value);
        }
        object["apiVersion"] = json!(desired_api_version);
        Ok(object)
    }
}

/// Allows every ConfigMap.
struct AllowAll;

impl Validator<ConfigMap> for AllowAll {
    async fn validate_create(&self, _: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
        Verdict::allow()
    }
}

fn base64(text: &str) -> String {
    serde_json::to_value(k8s_openapi::ByteString(text.as_bytes().to_vec()))
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

fn crd(url: &str, ca_bundle: &str) -> CustomResourceDefinition {
    let version = |name: &str, field: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    field: {"type": "string"}, "size": {"type": "integer"}}},
            }}},
        })
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [version("v1alpha1", "colour", false), version("v1", "color", true)],
            "conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"url": url, "caBundle": ca_bundle},
            }},
        },
    }))
    .unwrap()
}

fn validating(url: &str, ca_bundle: &str) -> ValidatingWebhookConfiguration {
    serde_json::from_value(json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "allow-configmaps"},
        "webhooks": [{
            "name": "allow.configmaps.example.com",
            "clientConfig": {"url": url, "caBundle": ca_bundle},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["configmaps"]}],
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
        }],
    }))
    .unwrap()
}

fn widgets(client: &Client, version: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "example.com".to_owned(),
        version: version.to_owned(),
        api_version: format!("example.com/{version}"),
        kind: "Widget".to_owned(),
        plural: "widgets".to_owned(),
    };
    Api::namespaced_with(client.clone(), "default", &resource)
}

/// Creates `count` widgets at the storage version.
async fn populate(client: &Client, count: usize) {
    let api = widgets(client, "v1");
    let started = Instant::now();
    futures::stream::iter(0..count)
        .map(|i| {
            let api = api.clone();
            async move {
                let color = ["red", "green", "blue"][i % 3];
                let widget: DynamicObject = serde_json::from_value(json!({
                    "apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": format!("w-{i:06}"), "labels": {"app": "bench"}},
                    "spec": {"color": color, "size": i},
                }))
                .unwrap();
                api.create(&PostParams::default(), &widget).await
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    println!(
        "  populated {count} widgets at v1 in {:.1?}",
        started.elapsed()
    );
}

/// One whole LIST of widgets at `version`: its time and body size.
async fn list(client: &Client, version: &str) -> (Duration, usize) {
    let request = Request::get(format!(
        "/apis/example.com/{version}/namespaces/default/widgets"
    ))
    .body(Vec::new())
    .unwrap();
    let started = Instant::now();
    let body = client.request_text(request).await.unwrap();
    (started.elapsed(), body.len())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    percentile(values, 0.5)
}

async fn conversion_throughput(client: &Client, objects: usize) {
    println!("conversion: LIST of {objects} widgets, {LIST_ROUNDS} rounds each, alternating");
    populate(client, objects).await;
    // Warm-up, and a check that the converted list is what it should be.
    let converted = widgets(client, "v1alpha1")
        .list(&Default::default())
        .await
        .unwrap();
    assert_eq!(converted.items.len(), objects);
    assert!(
        converted
            .items
            .iter()
            .all(|w| w.data["spec"].get("colour").is_some())
    );
    list(client, "v1").await;
    let mut stored = Vec::new();
    let mut through_webhook = Vec::new();
    let mut bytes = (0, 0);
    for _ in 0..LIST_ROUNDS {
        let (elapsed, size) = list(client, "v1").await;
        stored.push(elapsed);
        bytes.0 = size;
        let (elapsed, size) = list(client, "v1alpha1").await;
        through_webhook.push(elapsed);
        bytes.1 = size;
    }
    println!("  raw v1 (storage) times: {stored:.1?}");
    println!("  raw v1alpha1 (webhook) times: {through_webhook:.1?}");
    let stored = median(&mut stored);
    let through_webhook = median(&mut through_webhook);
    let rate = |elapsed: Duration| objects as f64 / elapsed.as_secs_f64();
    println!(
        "  storage version v1:      median {stored:>10.1?}  {:>10.0} objects/s  ({} bytes)",
        rate(stored),
        bytes.0
    );
    println!(
        "  converted to v1alpha1:   median {through_webhook:>10.1?}  {:>10.0} objects/s  ({} bytes)",
        rate(through_webhook),
        bytes.1
    );
    println!(
        "  conversion costs {:.2}x the unconverted list",
        through_webhook.as_secs_f64() / stored.as_secs_f64()
    );
}

async fn admission_latency(client: &Client, url: &str, ca_bundle: &str) {
    println!(
        "admission: ConfigMap creates, {ADMISSION_ROUNDS} rounds of {CREATES_PER_ROUND} without and {CREATES_PER_ROUND} with one validating webhook"
    );
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let configurations: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
    let mut plain = Vec::new();
    let mut hooked = Vec::new();
    let mut next = 0usize;
    let mut create = async |samples: &mut Vec<Duration>| {
        for _ in 0..CREATES_PER_ROUND {
            let configmap = ConfigMap {
                metadata: ObjectMeta {
                    name: Some(format!("cm-{next:06}")),
                    ..Default::default()
                },
                data: Some([("key".to_owned(), "value".to_owned())].into()),
                ..Default::default()
            };
            next += 1;
            let started = Instant::now();
            configmaps
                .create(&PostParams::default(), &configmap)
                .await
                .unwrap();
            samples.push(started.elapsed());
        }
    };
    for _ in 0..ADMISSION_ROUNDS {
        create(&mut plain).await;
        configurations
            .create(&PostParams::default(), &validating(url, ca_bundle))
            .await
            .unwrap();
        create(&mut hooked).await;
        configurations
            .delete("allow-configmaps", &DeleteParams::default())
            .await
            .unwrap();
    }
    plain.sort();
    hooked.sort();
    let figures = |samples: &[Duration]| (percentile(samples, 0.5), percentile(samples, 0.99));
    let (plain_median, plain_p99) = figures(&plain);
    let (hooked_median, hooked_p99) = figures(&hooked);
    println!(
        "  no webhook:          median {plain_median:>9.1?}  p99 {plain_p99:>9.1?}  ({} creates)",
        plain.len()
    );
    println!(
        "  one validating hook: median {hooked_median:>9.1?}  p99 {hooked_p99:>9.1?}  ({} creates)",
        hooked.len()
    );
    println!(
        "  added per create:    median {:>9.1?}  p99 {:>9.1?}",
        hooked_median.saturating_sub(plain_median),
        hooked_p99.saturating_sub(plain_p99)
    );
}

fn main() {
    let objects: usize = std::env::var("KUBEGEN_BENCH_OBJECTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir: PathBuf =
            std::env::temp_dir().join(format!("kubegen-bench-conversion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = TestCa::new().unwrap();
        ca.serving_cert(&["127.0.0.1"])
            .unwrap()
            .write_to(&dir)
            .unwrap();
        let server = WebhookServer::new(WebhookServerConfig::default().cert_dir(&dir))
            .conversion("/convert", Colours)
            .validating::<ConfigMap, _>("/validate", AllowAll);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let webhooks = tokio::spawn(server.serve(listener, async {
            let _ = stopped.await;
        }));
        let ca_bundle = base64(ca.cert_pem());

        let apiserver = ApiServer::start().await.unwrap();
        let client = apiserver.client();
        let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
        crds.create(
            &PostParams::default(),
            &crd(&format!("https://{address}/convert"), &ca_bundle),
        )
        .await
        .unwrap();

        conversion_throughput(&client, objects).await;
        admission_latency(&client, &format!("https://{address}/validate"), &ca_bundle).await;

        apiserver.shutdown().await;
        let _ = stop.send(());
        webhooks.await.unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    });
}
