//! Peak RSS of one sharded replica against one unsharded replica over the same objects,
//! each in a process of its own (RSS is per process).
//!
//! The parent starts a testkit API server in its own process, creates
//! `KUBEGEN_BENCH_OBJECTS` ConfigMaps (default 40 000, each with a 2 KiB value), then runs
//! this binary again as a child once per case: a replica that lists and watches shard 0
//! of `KUBEGEN_BENCH_SHARDS` (default 4; `shardSelector` served by the testkit), and an
//! unsharded replica. Each child is what a replica of a controller runs: a
//! `SharedInformerFactory` informer (sharded or not), a `Controller` with two workers
//! and a reconciler that counts keys; it waits until every cached object was reconciled,
//! and prints the objects it cached, their JSON size and its peak RSS (`VmHWM`).
//!
//! Run with `cargo bench -p kubegen-runtime --bench shard_memory`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler,
};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::shard::{ShardKey, ShardSelector};
use kubegen_testkit::ApiServerConfig;

const CHILD: &str = "KUBEGEN_SHARD_MEMORY_CHILD";
const SERVER: &str = "KUBEGEN_SHARD_MEMORY_SERVER";

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Peak RSS (`VmHWM`) in MiB.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

fn configmap(index: usize) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{index:06}")),
            labels: Some(BTreeMap::from([(
                "app".into(),
                format!("app-{}", index % 7),
            )])),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([
            ("key".into(), format!("value-{index}")),
            ("payload".into(), "x".repeat(2048)),
        ])),
        ..ConfigMap::default()
    }
}

/// Counts the keys it reconciles.
struct Count;

impl Reconciler for Count {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, _: &ObjectKey) -> Result<Action, Self::Error> {
        Ok(Action::Done)
    }
}

/// One replica: caches (its shard of) the ConfigMaps and reconciles each once.
async fn replica(url: &str, shard: Option<ShardSelector>) {
    let config = kube::Config::new(url.parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    let mut factory = SharedInformerFactory::new(client);
    if let Some(shard) = shard {
        factory = factory.shard(shard);
    }
    let informer = factory.informer::<ConfigMap>();
    let controller = Controller::new(ControllerConfig::default().name("count").workers(2));
    controller.watches(&informer, EnqueueObject::new(controller.queue()));
    factory.start();
    let mut processed = controller.processed();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let run = tokio::spawn({
        let controller = controller.clone();
        async move {
            controller
                .run(Count, async {
                    stop_rx.await.ok();
                })
                .await
        }
    });
    informer.wait_for_sync().await;
    let cached = informer.store().len() as u64;
    processed.wait_for(|n| *n >= cached).await.unwrap();
    let bytes: usize = informer
        .store()
        .list()
        .iter()
        .map(|cm| serde_json::to_vec(cm.as_ref()).map_or(0, |b| b.len()))
        .sum();
    println!(
        "objects={cached} json_mib={:.1} peak_rss_mib={:.1}",
        bytes as f64 / 1048576.0,
        peak_rss_mib()
    );
    stop_tx.send(()).ok();
    run.await.unwrap().unwrap();
    factory.shutdown().await;
}

/// Runs this binary as a child replica and returns its report line.
fn child(case: &str, url: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, case)
        .env(SERVER, url)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{case}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|l| l.starts_with("objects="))
        .unwrap_or_default()
        .to_owned()
}

fn field(line: &str, name: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

fn main() {
    let shards = u32::try_from(env_or("KUBEGEN_BENCH_SHARDS", 4)).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    if let Ok(case) = std::env::var(CHILD) {
        let url = std::env::var(SERVER).unwrap();
        let shard =
            (case == "sharded").then(|| ShardSelector::even(ShardKey::Uid, 0, shards).unwrap());
        runtime.block_on(replica(&url, shard));
        return;
    }
    let objects = env_or("KUBEGEN_BENCH_OBJECTS", 40_000);
    runtime.block_on(async move {
        let server = ApiServerConfig::default().start().await.unwrap();
        let api: Api<ConfigMap> = Api::namespaced(server.client(), "default");
        let started = Instant::now();
        futures::stream::iter(0..objects)
            .map(|i| {
                let api = api.clone();
                async move { api.create(&PostParams::default(), &configmap(i)).await.unwrap() }
            })
            .buffer_unordered(16)
            .collect::<Vec<_>>()
            .await;
        println!(
            "shard memory: {objects} ConfigMaps of ~2 KiB created in {:.1} s; one replica per process",
            started.elapsed().as_secs_f64()
        );
        let url = server.url();
        let unsharded = tokio::task::spawn_blocking({
            let url = url.clone();
            move || child("unsharded", &url)
        })
        .await
        .unwrap();
        let sharded = tokio::task::spawn_blocking(move || child("sharded", &url))
            .await
            .unwrap();
        println!("unsharded replica:           {unsharded}");
        println!("sharded replica (1 of {shards}):   {sharded}");
        println!(
            "sharded / unsharded: objects {:.3}x, peak RSS {:.3}x",
            field(&sharded, "objects") / field(&unsharded, "objects").max(1.0),
            field(&sharded, "peak_rss_mib") / field(&unsharded, "peak_rss_mib").max(1.0)
        );
        tokio::time::timeout(Duration::from_secs(30), server.shutdown())
            .await
            .ok();
    });
}
