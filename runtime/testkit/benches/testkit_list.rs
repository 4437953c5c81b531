//! Testkit list cost: the server time of listing 10k and 100k ConfigMaps (100
//! namespaces) in pages of 500, cluster-wide, in one namespace, with a label selector,
//! and while writes land between pages (continuations then read an older snapshot).
//!
//! A page must cost O(page size), not O(collection): the figure to watch is the
//! cluster-wide 100k line ("server time"), the time from the first request to the last
//! page's body, undecoded.
//!
//! Run: `cargo bench -p kubegen-testkit --bench testkit_list`; set
//! `KUBEGEN_BENCH_MAX=10000` to skip the 100k round.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{ListParams, ObjectMeta, PostParams};
use kube::{Api, Client};
use kubegen_testkit::ApiServer;

const NAMESPACES: usize = 100;
const PAGE: u32 = 500;

fn configmap(i: usize) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{i:06}")),
            labels: Some(
                [
                    ("app".to_owned(), "bench".to_owned()),
                    ("shard".to_owned(), (i % 10).to_string()),
                ]
                .into(),
            ),
            ..Default::default()
        },
        data: Some(
            [
                (
                    "config.yaml".to_owned(),
                    format!("replicas: {}\nimage: example/app:{i}\n", i % 7),
                ),
                (
                    "token".to_owned(),
                    format!("{:064x}", i as u128 * 0x9e37_79b9_7f4a_7c15),
                ),
            ]
            .into(),
        ),
        ..Default::default()
    }
}

async fn populate(client: &Client, from: usize, to: usize) {
    let started = Instant::now();
    futures::stream::iter(from..to)
        .map(|i| {
            let api =
                Api::<ConfigMap>::namespaced(client.clone(), &format!("ns-{:02}", i % NAMESPACES));
            async move { api.create(&PostParams::default(), &configmap(i)).await }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    println!(
        "  populated {} configmaps in {:.1?}",
        to - from,
        started.elapsed()
    );
}

/// The figures of one paged list.
struct Listed {
    pages: usize,
    items: usize,
    bytes: usize,
    elapsed: Duration,
}

/// Lists `path` in pages of 500, undecoded but for the continue token; between pages,
/// `between` runs (outside the measured time).
async fn list_pages<F, Fut>(client: &Client, path: &str, labels: &str, mut between: F) -> Listed
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut lp = ListParams::default().limit(PAGE);
    if !labels.is_empty() {
        lp = lp.labels(labels);
    }
    let mut listed = Listed {
        pages: 0,
        items: 0,
        bytes: 0,
        elapsed: Duration::ZERO,
    };
    loop {
        let request = kube::core::Request::new(path).list(&lp).unwrap();
        let started = Instant::now();
        let text = client.request_text(request).await.unwrap();
        listed.elapsed += started.elapsed();
        let page: serde_json::Value = serde_json::from_str(&text).unwrap();
        listed.pages += 1;
        listed.items += page["items"].as_array().map_or(0, Vec::len);
        listed.bytes += text.len();
        match page["metadata"]["continue"].as_str() {
            Some(token) if !token.is_empty() => lp.continue_token = Some(token.to_owned()),
            _ => return listed,
        }
        between(listed.pages).await;
    }
}

fn print(what: &str, listed: &Listed) {
    println!(
        "  {what:<44} {:>4} pages {:>7} items {:>6.1} MiB  server time {:>8.1} ms  ({:.2} ms/page)",
        listed.pages,
        listed.items,
        listed.bytes as f64 / 1_048_576.0,
        listed.elapsed.as_secs_f64() * 1000.0,
        listed.elapsed.as_secs_f64() * 1000.0 / listed.pages as f64,
    );
}

async fn nothing(_: usize) {}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let max: usize = std::env::var("KUBEGEN_BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let server = ApiServer::builder()
        .history_window(20_000)
        .start()
        .await
        .unwrap();
    let client = server.client();
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
    let mut populated = 0;
    let mut next = 1_000_000;
    for size in [10_000, 100_000].into_iter().filter(|s| *s <= max) {
        println!("== {size} ConfigMaps in {NAMESPACES} namespaces, pages of {PAGE}");
        populate(&client, populated, size).await;
        populated = size;
        let all = list_pages(&client, "/api/v1/configmaps", "", nothing).await;
        print("all namespaces", &all);
        let one = list_pages(&client, "/api/v1/namespaces/ns-42/configmaps", "", nothing).await;
        print("one namespace", &one);
        let selected = list_pages(&client, "/api/v1/configmaps", "shard=3", nothing).await;
        print("all namespaces, labelSelector shard=3", &selected);
        // 20 creates between pages: each continuation reads a snapshot older than the
        // latest state, as a real server serves it from etcd's MVCC history.
        let writer = Api::<ConfigMap>::namespaced(client.clone(), "default");
        let concurrent = list_pages(&client, "/api/v1/configmaps", "", |_| {
            let writer = writer.clone();
            let from = next;
            next += 20;
            async move {
                for i in from..from + 20 {
                    writer
                        .create(&PostParams::default(), &configmap(i))
                        .await
                        .unwrap();
                }
            }
        })
        .await;
        assert_eq!(concurrent.items, all.items, "a paged list is one snapshot");
        print("all namespaces, 20 writes between pages", &concurrent);
    }
    server.shutdown().await;
}
