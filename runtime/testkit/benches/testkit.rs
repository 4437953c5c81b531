//! Testkit API server throughput: creates per second through `kube::Api`, and watch
//! events per second delivered to 10 concurrent watchers.
//!
//! Run: `cargo bench -p kubegen-testkit --bench testkit`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams, WatchEvent, WatchParams};
use kubegen_testkit::ApiServer;

const WATCHERS: usize = 10;
const WRITERS: usize = 4;

static NAMES: AtomicUsize = AtomicUsize::new(0);

fn configmap() -> ConfigMap {
    let n = NAMES.fetch_add(1, Ordering::Relaxed);
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{n}")),
            ..Default::default()
        },
        data: Some([("value".to_owned(), n.to_string())].into()),
        ..Default::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn creates(c: &mut Criterion) {
    let rt = runtime();
    let server = rt
        .block_on(ApiServer::builder().history_window(1_000).start())
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut group = c.benchmark_group("testkit");
    group.throughput(Throughput::Elements(1));
    group.bench_function("create_configmap", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    api.create(&PostParams::default(), &configmap())
                        .await
                        .expect("create");
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

/// Writes `events` configmaps from WRITERS tasks while WATCHERS watches each wait for
/// all of them; returns the time from the first write to the last delivery.
async fn fan_out(server: &ApiServer, events: usize) -> Duration {
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let from = server.resource_version().to_string();
    let mut watchers = Vec::new();
    for _ in 0..WATCHERS {
        let mut stream = api
            .watch(&WatchParams::default().disable_bookmarks(), &from)
            .await
            .expect("watch")
            .boxed();
        watchers.push(tokio::spawn(async move {
            let mut seen = 0;
            while seen < events {
                if let WatchEvent::Added(_) = stream
                    .try_next()
                    .await
                    .expect("watch")
                    .expect("stream open")
                {
                    seen += 1;
                }
            }
        }));
    }
    let start = Instant::now();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let api = api.clone();
            let count = events / WRITERS + usize::from(w < events % WRITERS);
            tokio::spawn(async move {
                for _ in 0..count {
                    api.create(&PostParams::default(), &configmap())
                        .await
                        .expect("create");
                }
            })
        })
        .collect();
    for task in writers.into_iter().chain(watchers) {
        task.await.expect("task");
    }
    start.elapsed()
}

fn watch_fan_out(c: &mut Criterion) {
    let rt = runtime();
    let server = rt
        .block_on(ApiServer::builder().history_window(100_000).start())
        .expect("start");
    let batch = 200;
    let mut group = c.benchmark_group("testkit");
    group.throughput(Throughput::Elements((batch * WATCHERS) as u64));
    group.bench_function("watch_events_to_10_watchers", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += fan_out(&server, batch).await;
                }
                total
            })
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = creates, watch_fan_out
}
criterion_main!(benches);
