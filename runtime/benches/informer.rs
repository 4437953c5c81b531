//! Informer benchmarks: initial sync of 10k and 100k ConfigMaps from the testkit API
//! server into our `Store` (bare reflector and full `SharedInformer`) and into
//! kube-runtime's `watcher` + `reflector` + `Store`, in the same run; a namespace-scoped
//! list on a 100k cache (our namespace lister vs kube-runtime's `state_filter`); and raw
//! `serde_json` decoding of the same list pages as the floor.
//!
//! Each sync runs in a child process of this binary so its peak RSS (`VmHWM` from
//! `/proc/self/status`) is its own. Run with
//! `cargo bench -p kubegen-runtime --bench informer`; set
//! `KUBEGEN_BENCH_MAX=10000` to skip the 100k round and `KUBEGEN_BENCH_REPEAT=n` to run
//! each child `n` times (default 2, in alternating order).

#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{ListParams, ObjectList, ObjectMeta, PostParams};
use kube::runtime::{WatchStreamExt, reflector as kube_reflector, watcher};
use kube::{Api, Client};
use kubegen_runtime::informer::{InformerConfig, SharedInformer};
use kubegen_runtime::lister::{Lister, Selector};
use kubegen_runtime::reflector::{Delta, DeltaSink, Reflector, ReflectorConfig};
use kubegen_runtime::store::{Store, StoreWriter};
use kubegen_testkit::ApiServer;

const NAMESPACES: usize = 100;
const CHILD_MODE: &str = "KUBEGEN_BENCH_CHILD";
const CHILD_URL: &str = "KUBEGEN_BENCH_URL";

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

/// A sink around our `StoreWriter` that reports when the first list is in.
struct SyncSignal {
    writer: StoreWriter<ConfigMap>,
    synced: Option<tokio::sync::oneshot::Sender<()>>,
}

impl DeltaSink<ConfigMap> for SyncSignal {
    fn apply(&mut self, delta: Delta<ConfigMap>) {
        DeltaSink::apply(&mut self.writer, delta);
    }
    fn replace(&mut self, objects: Vec<Arc<ConfigMap>>) {
        DeltaSink::replace(&mut self.writer, objects);
        if let Some(tx) = self.synced.take() {
            let _ = tx.send(());
        }
    }
    fn len(&self) -> usize {
        DeltaSink::len(&self.writer)
    }
}

async fn sync_ours(client: Client) -> (Store<ConfigMap>, Duration) {
    let started = Instant::now();
    let (store, writer) = Store::<ConfigMap>::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let sink = SyncSignal {
        writer,
        synced: Some(tx),
    };
    let reflector = Reflector::new(
        Api::<ConfigMap>::all(client),
        sink,
        ReflectorConfig::default(),
    );
    tokio::spawn(reflector.run(std::future::pending()));
    rx.await.unwrap();
    (store, started.elapsed())
}

async fn sync_informer(client: Client) -> (SharedInformer<ConfigMap>, Duration) {
    let started = Instant::now();
    let informer = SharedInformer::new(Api::<ConfigMap>::all(client), InformerConfig::default());
    informer.start();
    informer.wait_for_sync().await;
    (informer, started.elapsed())
}

async fn sync_kube(client: Client) -> (kube_reflector::Store<ConfigMap>, Duration) {
    let started = Instant::now();
    let (reader, writer) = kube_reflector::store::<ConfigMap>();
    let stream = kube_reflector::reflector(
        writer,
        watcher(Api::<ConfigMap>::all(client), watcher::Config::default()),
    );
    tokio::spawn(stream.applied_objects().for_each(|_| async {}));
    reader.wait_until_ready().await.unwrap();
    (reader, started.elapsed())
}

async fn list_pages(client: &Client) -> Vec<String> {
    let mut pages = Vec::new();
    let mut lp = ListParams::default().limit(500);
    loop {
        let request = kube::core::Request::new("/api/v1/configmaps")
            .list(&lp)
            .unwrap();
        let text = client.request_text(request).await.unwrap();
        let meta: serde_json::Value = serde_json::from_str(&text).unwrap();
        let next = meta["metadata"]["continue"].as_str().map(str::to_owned);
        pages.push(text);
        match next {
            Some(token) if !token.is_empty() => lp.continue_token = Some(token),
            _ => return pages,
        }
    }
}

fn decode(pages: &[String]) -> Vec<ConfigMap> {
    let mut items = Vec::new();
    for page in pages {
        let list: ObjectList<ConfigMap> = serde_json::from_str(page).unwrap();
        items.extend(list.items);
    }
    items
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
        "ours" => {
            let (store, t) = sync_ours(client).await;
            (store.len(), t)
        }
        "informer" => {
            let (informer, t) = sync_informer(client).await;
            (informer.store().len(), t)
        }
        "kube" => {
            let (store, t) = sync_kube(client).await;
            (store.state().len(), t)
        }
        "decode" => {
            let pages = list_pages(&client).await;
            let (rss_pages, _) = memory_kib();
            let started = Instant::now();
            let items = decode(&pages);
            let t = started.elapsed();
            drop(pages);
            println!("PAGES_KIB {}", rss_pages.saturating_sub(rss_before));
            (items.len(), t)
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

async fn populate(client: &Client, from: usize, to: usize) {
    let started = Instant::now();
    futures::stream::iter(from..to)
        .map(|i| {
            let api =
                Api::<ConfigMap>::namespaced(client.clone(), &format!("ns-{:02}", i % NAMESPACES));
            async move {
                let cm = ConfigMap {
                    metadata: ObjectMeta {
                        name: Some(format!("cm-{i:06}")),
                        labels: Some(
                            [
                                ("app".to_string(), "bench".to_string()),
                                ("shard".to_string(), (i % 10).to_string()),
                            ]
                            .into(),
                        ),
                        ..Default::default()
                    },
                    data: Some(
                        [
                            (
                                "config.yaml".to_string(),
                                format!("replicas: {}\nimage: example/app:{i}\n", i % 7),
                            ),
                            (
                                "token".to_string(),
                                format!("{:064x}", i as u128 * 0x9e37_79b9_7f4a_7c15),
                            ),
                        ]
                        .into(),
                    ),
                    ..Default::default()
                };
                api.create(&PostParams::default(), &cm).await.map(|_| ())
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
    println!(
        "  populated {} configmaps in {:.1?}",
        to - from,
        started.elapsed()
    );
}

fn report(line: &str) {
    for l in line.lines() {
        if let Some(rest) = l.strip_prefix("RESULT ") {
            let f: Vec<&str> = rest.split_whitespace().collect();
            let us: f64 = f[2].parse().unwrap();
            let (before, after, hwm): (u64, u64, u64) = (
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            );
            println!(
                "  {:<9} {:>7} objects  sync {:>9.1} ms  RSS before {:>7} KiB  after {:>7} KiB  peak (VmHWM) {:>7} KiB  peak-before {:>7} KiB",
                f[0],
                f[1],
                us / 1000.0,
                before,
                after,
                hwm,
                hwm.saturating_sub(before)
            );
        } else if let Some(kib) = l.strip_prefix("PAGES_KIB ") {
            println!("  (decode) raw page bytes held: {kib} KiB RSS");
        }
    }
}

fn time_per_call(iterations: usize, mut f: impl FnMut(usize) -> usize) -> (Duration, usize) {
    let started = Instant::now();
    let mut found = 0;
    for i in 0..iterations {
        found += f(i);
    }
    (started.elapsed() / iterations as u32, found / iterations)
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
    let mut populated = 0;
    for size in [10_000, 100_000].into_iter().filter(|s| *s <= max) {
        println!("== initial sync of {size} ConfigMaps ({NAMESPACES} namespaces), pages of 500");
        populate(&client, populated, size).await;
        populated = size;
        let started = Instant::now();
        let pages = list_pages(&client).await;
        let fetched = started.elapsed();
        let bytes: usize = pages.iter().map(String::len).sum();
        println!(
            "  list: {} pages, {:.1} MiB of JSON, fetched undecoded in {:.1} ms (the server's share of a sync)",
            pages.len(),
            bytes as f64 / 1048576.0,
            fetched.as_secs_f64() * 1000.0
        );
        // Each round runs every mode once, alternating the order between rounds so no mode
        // always goes first (the machine is shared; repeat to see the spread).
        for round in 0..repeat {
            let modes = if round % 2 == 0 {
                ["decode", "ours", "informer", "kube"]
            } else {
                ["kube", "informer", "ours", "decode"]
            };
            for mode in modes {
                report(&run_child(mode, &url));
            }
        }
        // The floor, in this process, three times.
        for _ in 0..3 {
            let started = Instant::now();
            let items = decode(&pages);
            println!(
                "  serde_json decode of the pages: {:.1} ms ({} items)",
                started.elapsed().as_secs_f64() * 1000.0,
                items.len()
            );
        }
    }

    println!(
        "== namespace-scoped list on a {populated}-object cache ({} per namespace)",
        populated / NAMESPACES
    );
    let (ours, _) = sync_ours(client.clone()).await;
    let (theirs, _) = sync_kube(client.clone()).await;
    let lister = Lister::new(ours);
    let everything = Selector::everything();
    let shard: Selector = "shard=3".parse().unwrap();
    let iterations = 2_000;
    let ns = |i: usize| format!("ns-{:02}", i % NAMESPACES);
    let (t, n) = time_per_call(iterations, |i| {
        lister.namespace(&ns(i)).list(&everything).len()
    });
    println!(
        "  ours  lister.namespace(ns).list(everything)      {:>10.1?} per call ({n} objects)",
        t
    );
    let (t, n) = time_per_call(iterations / 10, |i| {
        let ns = ns(i);
        theirs
            .state_filter(|o| o.metadata.namespace.as_deref() == Some(ns.as_str()))
            .len()
    });
    println!(
        "  kube  store.state_filter(namespace == ns)        {:>10.1?} per call ({n} objects)",
        t
    );
    let (t, n) = time_per_call(iterations / 10, |i| {
        let ns = ns(i);
        theirs
            .state()
            .into_iter()
            .filter(|o| o.metadata.namespace.as_deref() == Some(ns.as_str()))
            .count()
    });
    println!(
        "  kube  store.state() then filter                  {:>10.1?} per call ({n} objects)",
        t
    );
    let (t, n) = time_per_call(iterations, |i| lister.namespace(&ns(i)).list(&shard).len());
    println!(
        "  ours  lister.namespace(ns).list(shard=3)         {:>10.1?} per call ({n} objects)",
        t
    );
    server.shutdown().await;
}
