//! The webhook server's figures on loopback (`cargo bench -p kubegen-runtime --features
//! webhook --bench webhook`): the round trip of one admission call on a kept-alive HTTPS
//! connection beside the health path's on the same connection (the transport floor),
//! p50 and p99 over 2000 calls each; and conversion throughput, objects per second
//! through one ConversionReview of 10,000 small objects (request out, converted list
//! back), best and median of 5.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../tests/webhook_support/mod.rs"]
mod webhook_support;

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kubegen_runtime::webhook::{AdmissionRequest, Converter, Validator, Verdict, WebhookServer};
use serde_json::{Value, json};
use webhook_support::{admission_review, config_map, start};

const CALLS: usize = 2000;
const OBJECTS: usize = 10_000;
const REVIEWS: usize = 5;

/// Allows what has a `mode`, so the handler reads the object.
struct HasMode;

impl Validator<ConfigMap> for HasMode {
    async fn validate_create(
        &self,
        object: &ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Verdict {
        match object.data.as_ref().is_some_and(|d| d.contains_key("mode")) {
            true => Verdict::allow(),
            false => Verdict::deny("no mode"),
        }
    }
}

/// Renames `spec.colour` to `spec.color`.
struct Rename;

impl Converter for Rename {
    type Error = &'static str;

    fn convert(&self, mut object: Value, desired: &str) -> Result<Value, &'static str> {
        let spec = object["spec"].as_object_mut().ok_or("no spec")?;
        let colour = spec.remove("colour").ok_or("no colour")?;
        spec.insert("color".into(), colour);
        object["apiVersion"] = desired.into();
        Ok(object)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

async fn round_trips(
    conn: &mut webhook_support::Connection,
    method: &str,
    path: &str,
    body: &[u8],
) -> Vec<Duration> {
    for _ in 0..200 {
        conn.send(method, path, body.to_vec()).await;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        let (status, _) = conn.send(method, path, body.to_vec()).await;
        times.push(started.elapsed());
        assert_eq!(status, 200);
    }
    times.sort();
    times
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = start(|config| {
            WebhookServer::new(config)
                .validating("/validate", HasMode)
                .conversion("/convert", Rename)
        })
        .await;
        let mut conn = server.connect().await;

        let mut object = config_map("settings", json!({"mode": "fast", "size": "small"}));
        object["metadata"]["labels"] = json!({"app": "web", "tier": "frontend"});
        let review = serde_json::to_vec(&admission_review("CREATE", Some(object), None)).unwrap();
        let admission = round_trips(&mut conn, "POST", "/validate", &review).await;
        let health = round_trips(&mut conn, "GET", "/healthz", &[]).await;
        println!("round trip on one kept-alive HTTPS connection, loopback, {CALLS} calls ({} B AdmissionReview):", review.len());
        println!("{:<32} {:>10} {:>10}", "", "p50 (µs)", "p99 (µs)");
        for (name, times) in [("admission (validating)", &admission), ("GET /healthz (floor)", &health)] {
            println!(
                "{name:<32} {:>10.1} {:>10.1}",
                micros(percentile(times, 0.5)),
                micros(percentile(times, 0.99))
            );
        }
        println!(
            "{:<32} {:>10.1} {:>10.1}",
            "added by admission",
            micros(percentile(&admission, 0.5)) - micros(percentile(&health, 0.5)),
            micros(percentile(&admission, 0.99)) - micros(percentile(&health, 0.99))
        );

        let objects: Vec<Value> = (0..OBJECTS)
            .map(|i| {
                json!({
                    "apiVersion": "example.com/v1alpha1",
                    "kind": "IceCream",
                    "metadata": {"name": format!("cone-{i}"), "namespace": "shop", "uid": format!("uid-{i}"), "resourceVersion": "42"},
                    "spec": {"colour": "red", "scoops": 2}
                })
            })
            .collect();
        let body = serde_json::to_vec(&json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {"uid": "u", "desiredAPIVersion": "example.com/v1", "objects": objects}
        }))
        .unwrap();
        let mut rates = Vec::with_capacity(REVIEWS);
        for _ in 0..REVIEWS {
            let started = Instant::now();
            let (status, answer) = conn.send("POST", "/convert", body.clone()).await;
            let elapsed = started.elapsed();
            assert_eq!(status, 200);
            let answer: Value = serde_json::from_slice(&answer).unwrap();
            assert_eq!(answer["response"]["convertedObjects"].as_array().map(Vec::len), Some(OBJECTS));
            rates.push(OBJECTS as f64 / elapsed.as_secs_f64());
        }
        rates.sort_by(f64::total_cmp);
        println!(
            "conversion: {OBJECTS} objects per ConversionReview ({:.1} MB), {REVIEWS} reviews: best {:.0} objects/s, median {:.0} objects/s (timed from sending the body to the whole answer received)",
            body.len() as f64 / 1e6,
            rates[REVIEWS - 1],
            rates[REVIEWS / 2]
        );
        server.stop().await.unwrap();
    });
}
