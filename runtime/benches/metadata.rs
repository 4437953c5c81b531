//! Memory of a Secret cache, whole objects versus metadata only: the initial sync of
//! 10k and 100k Secrets (about 4 KiB of data each, like a TLS secret) from the testkit
//! API server into a `SharedInformer<Secret>` and into a
//! `SharedInformer<PartialObjectMeta<Secret>>`.
//!
//! Each sync runs in a child process of this binary so its peak RSS (`VmHWM` from
//! `/proc/self/status`) is its own, as in `benches/informer.rs`. Run with
//! `cargo bench -p kubegen-runtime --bench metadata`; set
//! `KUBEGEN_BENCH_MAX=10000` to skip the 100k round and `KUBEGEN_BENCH_REPEAT=n` to run
//! each child `n` times (default 2, in alternating order).

#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{ListParams, ObjectMeta, PostParams};
use kube::core::PartialObjectMeta;
use kube::{Api, Client};
use kubegen_runtime::informer::{InformerConfig, SharedInformer};
use kubegen_testkit::ApiServer;

const NAMESPACES: usize = 100;
const CHILD_MODE: &str = "KUBEGEN_BENCH_CHILD";
const CHILD_URL: &str = "KUBEGEN_BENCH_URL";
/// Sizes of the Secret's data values, in bytes (a certificate, its key, a CA).
const DATA: [(&str, usize); 3] = [("tls.crt", 2048), ("tls.key", 1680), ("ca.crt", 512)];

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    if let Ok(mode) = std::env::var(CHILD_MODE) {
        let url = std::env::var(CHILD_URL).unwrap();
        runtime.block_on(child(&mode, &url));
        return;
    }
    runtime.block_on(parent());
}

fn client_for(url: &str) -> Client {
    Client::try_from(kube::Config::new(url.parse().unwrap())).unwrap()
}

/// `(VmRSS, VmHWM)` in KiB.
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Starts an informer over `api`, waits for its first sync and returns its cache size.
async fn sync<K>(api: Api<K>) -> (usize, Duration, SharedInformer<K>)
where
    K: kube::Resource
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let started = Instant::now();
    let informer = SharedInformer::new(api, InformerConfig::default());
    informer.start();
    informer.wait_for_sync().await;
    (informer.store().len(), started.elapsed(), informer)
}

async fn child(mode: &str, url: &str) {
    let client = client_for(url);
    // Warm the connection so the baseline includes the client.
    Api::<Namespace>::all(client.clone())
        .list(&ListParams::default().limit(1))
        .await
        .unwrap();
    let (rss_before, _) = memory_kib();
    let (objects, elapsed) = match mode {
        "full" => {
            let (n, t, informer) = sync(Api::<Secret>::all(client)).await;
            let data: usize = informer
                .store()
                .list()
                .iter()
                .flat_map(|s| s.data.iter().flatten())
                .map(|(_, v)| v.0.len())
                .sum();
            assert!(data >= n * 4096, "the full cache holds the data");
            (n, t)
        }
        "metadata" => {
            let (n, t, informer) = sync(Api::<PartialObjectMeta<Secret>>::all(client)).await;
            let first = informer.store().list().first().cloned().unwrap();
            assert_eq!(first.types.as_ref().unwrap().kind, "PartialObjectMetadata");
            (n, t)
        }
        other => panic!("unknown mode {other}"),
    };
    let (rss_after, hwm) = memory_kib();
    println!(
        "RESULT {mode} {objects} {} {rss_before} {rss_after} {hwm}",
        elapsed.as_micros()
    );
}

fn run_child(mode: &str, url: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_MODE, mode)
        .env(CHILD_URL, url)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{mode}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Deterministic bytes that do not compress (xorshift).
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

fn secret(i: usize) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(format!("tls-{i:06}")),
            labels: Some(
                [
                    ("app".to_string(), "bench".to_string()),
                    ("shard".to_string(), (i % 10).to_string()),
                ]
                .into(),
            ),
            annotations: Some(
                [(
                    "cert-manager.io/issuer-name".to_string(),
                    "letsencrypt-prod".to_string(),
                )]
                .into(),
            ),
            ..Default::default()
        },
        type_: Some("kubernetes.io/tls".to_string()),
        data: Some(
            DATA.iter()
                .enumerate()
                .map(|(k, (key, len))| {
                    (
                        (*key).to_string(),
                        ByteString(bytes((i * 3 + k) as u64, *len)),
                    )
                })
                .collect(),
        ),
        ..Default::default()
    }
}

async fn populate(client: &Client, from: usize, to: usize) {
    let started = Instant::now();
    futures::stream::iter(from..to)
        .map(|i| {
            let api =
                Api::<Secret>::namespaced(client.clone(), &format!("ns-{:02}", i % NAMESPACES));
            async move {
                api.create(&PostParams::default(), &secret(i))
                    .await
                    .map(|_| ())
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
    println!(
        "  populated {} secrets in {:.1?}",
        to - from,
        started.elapsed()
    );
}

/// Bytes of JSON one full list of every Secret takes, with a given Accept header.
async fn list_bytes(client: &Client, accept: Option<&str>) -> usize {
    let mut total = 0;
    let mut lp = ListParams::default().limit(500);
    loop {
        let mut request = kube::core::Request::new("/api/v1/secrets")
            .list(&lp)
            .unwrap();
        if let Some(accept) = accept {
            request
                .headers_mut()
                .insert("Accept", accept.parse().unwrap());
        }
        let text = client.request_text(request).await.unwrap();
        total += text.len();
        let page: serde_json::Value = serde_json::from_str(&text).unwrap();
        match page["metadata"]["continue"].as_str() {
            Some(token) if !token.is_empty() => lp.continue_token = Some(token.to_owned()),
            _ => return total,
        }
    }
}

fn report(output: &str) -> Option<(String, u64)> {
    let rest = output.lines().find_map(|l| l.strip_prefix("RESULT "))?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let us: f64 = f[2].parse().unwrap();
    let (before, after, hwm): (u64, u64, u64) = (
        f[3].parse().unwrap(),
        f[4].parse().unwrap(),
        f[5].parse().unwrap(),
    );
    let growth = hwm.saturating_sub(before);
    println!(
        "  {:<9} {:>7} objects  sync {:>9.1} ms  RSS before {:>7} KiB  after {:>7} KiB  peak (VmHWM) {:>7} KiB  peak-before {:>7} KiB",
        f[0],
        f[1],
        us / 1000.0,
        before,
        after,
        hwm,
        growth
    );
    Some((f[0].to_owned(), growth))
}

async fn parent() {
    let max: usize = std::env::var("KUBEGEN_BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let repeat: usize = std::env::var("KUBEGEN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let url = server.url();
    let namespaces = Api::<Namespace>::all(client.clone());
    for n in 0..NAMESPACES {
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(format!("ns-{n:02}")),
                ..Default::default()
            },
            ..Default::default()
        };
        namespaces
            .create(&PostParams::default(), &ns)
            .await
            .unwrap();
    }
    let data_bytes: usize = DATA.iter().map(|(_, len)| len).sum();
    let mut populated = 0;
    for size in [10_000, 100_000].into_iter().filter(|s| *s <= max) {
        println!(
            "== Secret cache of {size} Secrets ({data_bytes} bytes of data each, {NAMESPACES} namespaces), pages of 500"
        );
        populate(&client, populated, size).await;
        populated = size;
        let full = list_bytes(&client, None).await;
        let metadata = list_bytes(
            &client,
            Some("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
        )
        .await;
        println!(
            "  list JSON: full {:.1} MiB, metadata only {:.1} MiB",
            full as f64 / 1048576.0,
            metadata as f64 / 1048576.0
        );
        let mut growth: Vec<(String, u64)> = Vec::new();
        for round in 0..repeat {
            let modes = if round % 2 == 0 {
                ["full", "metadata"]
            } else {
                ["metadata", "full"]
            };
            for mode in modes {
                growth.extend(report(&run_child(mode, &url)));
            }
        }
        let best = |mode: &str| {
            growth
                .iter()
                .filter(|(m, _)| m == mode)
                .map(|(_, kib)| *kib)
                .min()
                .unwrap_or(0)
        };
        let (full, metadata) = (best("full"), best("metadata"));
        println!(
            "  peak growth (best of {repeat}): full {:.1} MiB, metadata only {:.1} MiB ({:.1}x less)",
            full as f64 / 1024.0,
            metadata as f64 / 1024.0,
            full as f64 / metadata.max(1) as f64
        );
    }
    server.shutdown().await;
}
