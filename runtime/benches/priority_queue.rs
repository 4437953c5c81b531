//! The latency of a live change made while a controller works through its initial sync:
//! kubegen's priority queue (keys of the initial list at low priority), the same queue
//! first in, first out (client-go's order), and kube-runtime's `Controller`, in one run
//! against the same testkit API server.
//!
//! The server holds `KUBEGEN_BENCH_OBJECTS` ConfigMaps (default 100,000). Each
//! controller runs one worker (kube-runtime: concurrency 1) whose reconcile spins for
//! `KUBEGEN_BENCH_COST_US` microseconds (default 20), so the initial sync is a backlog of
//! about two seconds. Once the first reconcile has run (the cache is synced), the bench
//! creates `KUBEGEN_BENCH_LIVE` new ConfigMaps (default 40), one every 20 ms, and
//! measures, for each, the time from the create call to the start of its reconcile.
//! Modes run in alternating order over `KUBEGEN_BENCH_ROUNDS` rounds (default 2).
//!
//! Run with `cargo bench -p kubegen-runtime --bench priority_queue`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ObjectMeta, PostParams};
use kube::runtime::controller::{self as kube_controller, Action as KubeAction};
use kube::runtime::watcher;
use kube::{Api, Client, ResourceExt};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler,
};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::workqueue::QueueConfig;
use kubegen_testkit::ApiServer;

const NAMESPACE: &str = "default";

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What every controller under test shares: the work each reconcile costs, when each
/// live object was created, and when its first reconcile started.
struct Probe {
    cost: Duration,
    reconciles: std::sync::atomic::AtomicU64,
    created: Mutex<HashMap<String, Instant>>,
    latencies: Mutex<Vec<Duration>>,
}

impl Probe {
    fn new(cost: Duration) -> Arc<Self> {
        Arc::new(Self {
            cost,
            reconciles: std::sync::atomic::AtomicU64::new(0),
            created: Mutex::new(HashMap::new()),
            latencies: Mutex::new(Vec::new()),
        })
    }

    /// Records a reconcile of `name` starting now, then spins for the cost.
    fn reconcile(&self, name: &str) {
        let started = Instant::now();
        self.reconciles
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Some(created) = self.created.lock().unwrap().remove(name) {
            self.latencies
                .lock()
                .unwrap()
                .push(started.saturating_duration_since(created));
        }
        while started.elapsed() < self.cost {
            std::hint::spin_loop();
        }
    }

    fn reconciled_any(&self) -> bool {
        self.reconciles.load(std::sync::atomic::Ordering::SeqCst) > 0
    }
}

struct Ours(Arc<Probe>);

impl Reconciler for Ours {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        self.0.reconcile(key.name());
        Ok(Action::Done)
    }
}

fn configmap(name: String) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name),
            ..Default::default()
        },
        data: Some([("k".to_owned(), "v".to_owned())].into()),
        ..Default::default()
    }
}

async fn populate(client: &Client, count: u64) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let started = Instant::now();
    futures::stream::iter(0..count)
        .map(|i| {
            let api = api.clone();
            async move {
                api.create(
                    &PostParams::default(),
                    &configmap(format!("initial-{i:06}")),
                )
                .await
                .map(drop)
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<()>>()
        .await
        .unwrap();
    println!("populated {count} ConfigMaps in {:.1?}", started.elapsed());
}

/// Creates the live objects once the controller has started reconciling, and waits
/// until each has been reconciled.
async fn live_changes(client: &Client, probe: &Probe, round: u64, mode: &str, count: u64) {
    while !probe.reconciled_any() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    for i in 0..count {
        let name = format!("live-{mode}-{round}-{i:03}");
        probe
            .created
            .lock()
            .unwrap()
            .insert(name.clone(), Instant::now());
        api.create(&PostParams::default(), &configmap(name))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let guard = Instant::now();
    while !probe.created.lock().unwrap().is_empty() {
        assert!(
            guard.elapsed() < Duration::from_secs(600),
            "live changes never reconciled"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn run_ours(client: &Client, probe: Arc<Probe>, priorities: bool, round: u64, live: u64) {
    let factory = SharedInformerFactory::new(client.clone());
    let informer = factory.informer::<ConfigMap>();
    let controller = Controller::new(
        ControllerConfig::default()
            .name("bench")
            .workers(1)
            .queue(QueueConfig::default().priorities(priorities)),
    );
    controller.watches(&informer, EnqueueObject::new(controller.queue()));
    factory.start();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn({
        let controller = controller.clone();
        let probe = Arc::clone(&probe);
        async move {
            controller
                .run(Ours(probe), async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    let mode = if priorities { "priority" } else { "fifo" };
    live_changes(client, &probe, round, mode, live).await;
    let _ = stop.send(());
    task.await.unwrap().unwrap();
    factory.shutdown().await;
}

async fn run_kube(client: &Client, probe: Arc<Probe>, round: u64, live: u64) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let controller = kube_controller::Controller::new(api, watcher::Config::default())
        .with_config(kube_controller::Config::default().concurrency(1))
        .graceful_shutdown_on(async {
            let _ = stopped.await;
        });
    let task = tokio::spawn(
        controller
            .run(
                |object: Arc<ConfigMap>, probe: Arc<Probe>| async move {
                    probe.reconcile(&object.name_any());
                    Ok::<_, kube::Error>(KubeAction::await_change())
                },
                |_, _, _| KubeAction::await_change(),
                Arc::clone(&probe),
            )
            .for_each(|_| async {}),
    );
    live_changes(client, &probe, round, "kube", live).await;
    let _ = stop.send(());
    task.await.unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("priority_queue: measures only under `cargo bench`");
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let objects = env("KUBEGEN_BENCH_OBJECTS", 100_000);
        let cost = Duration::from_micros(env("KUBEGEN_BENCH_COST_US", 20));
        let live = env("KUBEGEN_BENCH_LIVE", 40);
        let rounds = env("KUBEGEN_BENCH_ROUNDS", 2);
        let server = ApiServer::start().await.unwrap();
        let client = server.client();
        populate(&client, objects).await;
        let modes = ["priority", "fifo", "kube-runtime"];
        let mut latencies: HashMap<&str, Vec<Duration>> = HashMap::new();
        for round in 0..rounds {
            let order: Vec<&str> = if round % 2 == 0 {
                modes.to_vec()
            } else {
                modes.iter().rev().copied().collect()
            };
            for mode in order {
                let probe = Probe::new(cost);
                let started = Instant::now();
                match mode {
                    "priority" => run_ours(&client, Arc::clone(&probe), true, round, live).await,
                    "fifo" => run_ours(&client, Arc::clone(&probe), false, round, live).await,
                    _ => run_kube(&client, Arc::clone(&probe), round, live).await,
                }
                let mut round_latencies = probe.latencies.lock().unwrap().clone();
                round_latencies.sort();
                println!(
                    "round {round}: {mode:<12} p50 {:>8.1?}  p99 {:>8.1?}  ({} live changes, {:.1?} in all)",
                    percentile(&round_latencies, 0.5),
                    percentile(&round_latencies, 0.99),
                    round_latencies.len(),
                    started.elapsed()
                );
                latencies.entry(mode).or_default().extend(round_latencies);
            }
        }
        println!(
            "\n| live change during the initial sync of {objects} objects ({live} changes x {rounds} rounds, {cost:?} per reconcile, 1 worker) | p50 | p99 | max |"
        );
        println!("|---|---|---|---|");
        for mode in modes {
            let mut all = latencies.remove(mode).unwrap_or_default();
            all.sort();
            println!(
                "| {mode} | {:.1?} | {:.1?} | {:.1?} |",
                percentile(&all, 0.5),
                percentile(&all, 0.99),
                all.last().copied().unwrap_or_default()
            );
        }
        server.shutdown().await;
    });
}
