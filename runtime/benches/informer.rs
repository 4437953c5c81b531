//! Informer benchmarks: initial sync of 10k and 100k ConfigMaps from the testkit API
//! server into our `Store` (bare reflector and full `SharedInformer`) and into
//! kube-runtime's `watcher` + `reflector` + `Store`, in the same run; a namespace-scoped
//! list on a 100k cache (our namespace lister vs kube-runtime's `state_filter`); and raw
//! `serde_json` decoding of the same list pages as the floor.
//!
//! Both sides list in pages of 500 (client-go's and kube-runtime's default), without
//! streaming lists. The testkit records `managedFields` as a real server does; our
//! reflector drops them by default and kube-runtime's keeps them, so kube-runtime runs
//! twice: as it comes (`kube`), and with `managedFields` cleared before its store
//! (`kube-nomf`), which caches the very objects ours does.
//!
//! Each sync runs in a child process of this binary so its peak RSS (`VmHWM` from
//! `/proc/self/status`) is its own; the child also reports the heap bytes it holds
//! (requested sizes, counted by a wrapper around the system allocator), which tells the
//! objects apart from what the allocator keeps around them. Run with
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
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

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
        // Exit without tearing the runtime down: kube-runtime's watcher (no backoff
        // here) retries a failed request at once, so while the runtime shuts the
        // connections down its task can spin without yielding and the drop never ends.
        std::process::exit(0);
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

/// Heap bytes held (allocated and not freed), in KiB.
fn heap_kib() -> u64 {
    let stats = GLOBAL.stats();
    (stats
        .bytes_allocated
        .saturating_sub(stats.bytes_deallocated)
        / 1024) as u64
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

async fn sync_ours(
    client: Client,
    config: ReflectorConfig<ConfigMap>,
) -> (Store<ConfigMap>, Duration) {
    let started = Instant::now();
    let (store, writer) = Store::<ConfigMap>::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let sink = SyncSignal {
        writer,
        synced: Some(tx),
    };
    let reflector = Reflector::new(Api::<ConfigMap>::all(client), sink, config);
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

/// kube-runtime's reflector with `managedFields` cleared before the store, as ours does
/// by default: the same objects cached.
async fn sync_kube_without_managed_fields(
    client: Client,
) -> (kube_reflector::Store<ConfigMap>, Duration) {
    let started = Instant::now();
    let (reader, writer) = kube_reflector::store::<ConfigMap>();
    let events = watcher(Api::<ConfigMap>::all(client), watcher::Config::default())
        .modify(|cm: &mut ConfigMap| cm.metadata.managed_fields = None);
    let stream = kube_reflector::reflector(writer, events);
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

/// The highest heap size seen by sampling every millisecond until dropped, in KiB.
struct HeapPeak {
    stop: Arc<std::sync::atomic::AtomicBool>,
    sampler: Option<std::thread::JoinHandle<u64>>,
}

impl HeapPeak {
    fn start() -> Self {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let sampler = std::thread::spawn(move || {
            let mut peak = heap_kib();
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(heap_kib());
                std::thread::sleep(Duration::from_millis(1));
            }
            peak.max(heap_kib())
        });
        Self {
            stop,
            sampler: Some(sampler),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.sampler
            .take()
            .map_or(0, |sampler| sampler.join().unwrap())
    }
}

async fn child(mode: &str, url: &str) {
    let client = client_for(url);
    // Warm the connection so the baseline includes the client.
    Api::<Namespace>::all(client.clone())
        .list(&ListParams::default().limit(1))
        .await
        .unwrap();
    let (rss_before, _) = memory_kib();
    let heap_before = heap_kib();
    let heap_peak = HeapPeak::start();
    // What the mode caches is kept alive until measured.
    let (objects, elapsed, _held): (usize, Duration, Box<dyn std::any::Any>) = match mode {
        "ours" => {
            let (store, t) = sync_ours(client, ReflectorConfig::default()).await;
            (store.len(), t, Box::new(store))
        }
        "ours-notrim" => {
            let config = ReflectorConfig::default().release_memory_after_list(false);
            let (store, t) = sync_ours(client, config).await;
            (store.len(), t, Box::new(store))
        }
        "informer" => {
            let (informer, t) = sync_informer(client).await;
            (informer.store().len(), t, Box::new(informer))
        }
        "kube" => {
            let (store, t) = sync_kube(client).await;
            (store.state().len(), t, Box::new(store))
        }
        "kube-nomf" => {
            let (store, t) = sync_kube_without_managed_fields(client).await;
            (store.state().len(), t, Box::new(store))
        }
        "decode" => {
            let pages = list_pages(&client).await;
            let (rss_pages, _) = memory_kib();
            let started = Instant::now();
            let items = decode(&pages);
            let t = started.elapsed();
            drop(pages);
            println!("PAGES_KIB {}", rss_pages.saturating_sub(rss_before));
            (items.len(), t, Box::new(items))
        }
        other => panic!("unknown mode {other}"),
    };
    // Steady state: what the cache holds once the sync's aftermath (our reflector gives
    // free memory back just after the store is swapped in) is over.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let heap_peak = heap_peak.finish();
    let (rss_after, hwm) = memory_kib();
    let heap_after = heap_kib();
    println!(
        "RESULT {mode} {objects} {} {rss_before} {rss_after} {hwm} {heap_before} {heap_after} {heap_peak}",
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

/// One child's figures (KiB but for the time).
#[derive(Clone, Copy)]
struct SyncFigures {
    objects: u64,
    ms: f64,
    rss_before: u64,
    rss_after: u64,
    hwm: u64,
    heap_before: u64,
    heap_after: u64,
    heap_peak: u64,
}

impl SyncFigures {
    /// Peak RSS above the warmed-up process.
    fn peak(&self) -> u64 {
        self.hwm.saturating_sub(self.rss_before)
    }
    /// RSS held once synced, above the warmed-up process.
    fn held(&self) -> u64 {
        self.rss_after.saturating_sub(self.rss_before)
    }
    /// Heap bytes held once synced, above the warmed-up process.
    fn heap(&self) -> u64 {
        self.heap_after.saturating_sub(self.heap_before)
    }
    /// The most heap bytes held during the sync (sampled), above the warmed-up process.
    fn heap_peak(&self) -> u64 {
        self.heap_peak.saturating_sub(self.heap_before)
    }
}

/// Prints a child's result line and returns its mode and figures.
fn report(output: &str) -> Option<(String, SyncFigures)> {
    let mut result = None;
    for l in output.lines() {
        if let Some(rest) = l.strip_prefix("RESULT ") {
            let f: Vec<&str> = rest.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            let sync = SyncFigures {
                objects: n(1),
                ms: f[2].parse::<f64>().unwrap() / 1000.0,
                rss_before: n(3),
                rss_after: n(4),
                hwm: n(5),
                heap_before: n(6),
                heap_after: n(7),
                heap_peak: n(8),
            };
            println!(
                "  {:<11} {:>7} objects  sync {:>8.1} ms  RSS before {:>7} KiB  after {:>7} KiB  peak (VmHWM) {:>7} KiB  peak-before {:>7} KiB  heap held {:>7} KiB  heap peak {:>7} KiB",
                f[0],
                sync.objects,
                sync.ms,
                sync.rss_before,
                sync.rss_after,
                sync.hwm,
                sync.peak(),
                sync.heap(),
                sync.heap_peak(),
            );
            result = Some((f[0].to_owned(), sync));
        } else if let Some(kib) = l.strip_prefix("PAGES_KIB ") {
            println!("  (decode) raw page bytes held: {kib} KiB RSS");
        }
    }
    result
}

/// The best (lowest) round of each mode, side by side, and ours against kube-runtime's.
fn summarize(results: &[(String, SyncFigures)]) {
    let best = |mode: &str| {
        let runs = results.iter().filter(|(m, _)| m == mode).map(|(_, s)| *s);
        runs.min_by_key(SyncFigures::peak)
    };
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "  best round of each (MiB above the warmed-up child; cache = RSS held 0.5 s after the sync):"
    );
    for mode in ["ours", "ours-notrim", "informer", "kube", "kube-nomf"] {
        let Some(s) = best(mode) else { continue };
        let per_100k = |kib: u64| mib(kib) * 100_000.0 / s.objects.max(1) as f64;
        println!(
            "    {mode:<11} peak {:>7.1}  cache {:>7.1}  heap {:>7.1}  heap peak {:>7.1}  (cache {:>6.1} MiB per 100k objects, heap {:>6.1})",
            mib(s.peak()),
            mib(s.held()),
            mib(s.heap()),
            mib(s.heap_peak()),
            per_100k(s.held()),
            per_100k(s.heap()),
        );
    }
    for (a, b) in [
        ("ours", "kube"),
        ("ours-notrim", "kube"),
        ("informer", "kube"),
        ("ours", "kube-nomf"),
        ("ours-notrim", "kube-nomf"),
        ("informer", "kube-nomf"),
    ] {
        if let (Some(a_s), Some(b_s)) = (best(a), best(b)) {
            println!(
                "    {a} / {b}: peak {:.2}x  cache {:.2}x  heap {:.2}x",
                a_s.peak() as f64 / b_s.peak().max(1) as f64,
                a_s.held() as f64 / b_s.held().max(1) as f64,
                a_s.heap() as f64 / b_s.heap().max(1) as f64,
            );
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
            "  list: {} pages, {:.1} MiB of JSON ({} bytes an object), fetched undecoded in {:.1} ms (the server's share of a sync)",
            pages.len(),
            bytes as f64 / 1048576.0,
            bytes / size,
            fetched.as_secs_f64() * 1000.0
        );
        // Each round runs every mode once, alternating the order between rounds so no mode
        // always goes first (the machine is shared; repeat to see the spread).
        let mut results = Vec::new();
        for round in 0..repeat {
            let mut modes = [
                "decode",
                "ours",
                "ours-notrim",
                "informer",
                "kube",
                "kube-nomf",
            ];
            if round % 2 == 1 {
                modes.reverse();
            }
            for mode in modes {
                results.extend(report(&run_child(mode, &url)));
            }
        }
        summarize(&results);
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
    let (ours, _) = sync_ours(client.clone(), ReflectorConfig::default()).await;
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
