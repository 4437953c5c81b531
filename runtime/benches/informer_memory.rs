//! Informer memory under churn: a `SharedInformer` holding 100k ConfigMaps through 100
//! relists (each 410 Gone, each list bringing 1% changed objects) and then 1M watch
//! events, with two handlers; then a handler that stops consuming while 200k more
//! events arrive, is removed, and must release what its buffer held.
//!
//! The source is in memory (no HTTP server in the process, no JSON decoding), so the
//! process's RSS is the informer's plus fresh copies of each list. Prints RSS (`VmRSS`)
//! and peak RSS (`VmHWM`) at each phase against the live set's serialized (JSON) size.
//! A removed handler's buffer is released when its thread has drained it; since glibc
//! keeps freed small chunks, that shows as the next 200k events not growing RSS.
//! Run with `cargo bench -p kubegen-runtime --bench informer_memory`;
//! `KUBEGEN_BENCH_OBJECTS`, `KUBEGEN_BENCH_RELISTS` and `KUBEGEN_BENCH_EVENTS` scale it;
//! `KUBEGEN_BENCH_RELEASE=0` turns off `ReflectorConfig::release_memory_after_list`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, ObjectList, ObjectMeta, WatchEvent, WatchParams};
use kube::core::{ListMeta, Status, TypeMeta};
use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::informer::{HandlerFns, InformerConfig, SharedInformer};
use kubegen_runtime::reflector::{ListerWatcher, ReflectorConfig, WatchStream};
use tokio::sync::Notify;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `(VmRSS, VmHWM)` in MiB.
fn rss() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn configmap(index: usize, rv: u64) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{index:06}")),
            namespace: Some(format!("ns-{:02}", index % 50)),
            uid: Some(format!("00000000-0000-0000-0000-{index:012}")),
            resource_version: Some(rv.to_string()),
            labels: Some(BTreeMap::from([(
                "app".into(),
                format!("app-{}", index % 7),
            )])),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([
            ("key".into(), format!("value-{rv}")),
            ("payload".into(), "x".repeat(64)),
        ])),
        ..ConfigMap::default()
    }
}

/// A collection of `objects` ConfigMaps: lists return all of it; the first `relists`
/// watches answer 410 Gone (each list changes 1% of the objects first); the following
/// watches stream `events` modifications in total, `per_watch` at a time; then watches
/// stay open and quiet.
struct Synthetic {
    versions: Mutex<Vec<u64>>,
    rv: AtomicU64,
    relists_left: AtomicUsize,
    events_left: AtomicUsize,
    per_watch: usize,
    /// Notified when the events are all streamed.
    streamed: Arc<Notify>,
    /// Notify to end the quiet watch (after adding events).
    more: Arc<Notify>,
}

impl Synthetic {
    fn bump(&self) -> u64 {
        self.rv.fetch_add(1, Ordering::SeqCst) + 1
    }
}

impl ListerWatcher<ConfigMap> for Synthetic {
    fn list<'a>(&'a self, _: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<ConfigMap>>> {
        async move {
            let mut versions = self.versions.lock().unwrap();
            let n = versions.len();
            for i in (0..n).step_by(100) {
                versions[(i + self.rv.load(Ordering::SeqCst) as usize) % n] = self.bump();
            }
            let rv = self.bump();
            Ok(ObjectList {
                types: TypeMeta::list::<ConfigMap>(),
                metadata: ListMeta {
                    resource_version: Some(rv.to_string()),
                    ..ListMeta::default()
                },
                items: versions
                    .iter()
                    .enumerate()
                    .map(|(i, v)| configmap(i, *v))
                    .collect(),
            })
        }
        .boxed()
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<ConfigMap>>> {
        async move {
            if self
                .relists_left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok()
            {
                let gone = Status::failure("too old", "Expired").with_code(410);
                return Ok(futures::stream::iter([Ok(WatchEvent::Error(Box::new(gone)))]).boxed());
            }
            let take = self
                .events_left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    n.checked_sub(n.min(self.per_watch))
                })
                .unwrap_or(0)
                .min(self.per_watch);
            if take == 0 {
                self.streamed.notify_one();
                let more = self.more.clone();
                let quiet = futures::stream::once(async move { more.notified().await })
                    .filter_map(|()| async { None });
                return Ok(quiet.boxed());
            }
            let n = self.versions.lock().unwrap().len();
            let events: Vec<_> = (0..take)
                .map(|k| {
                    let rv = self.bump();
                    let index = (rv as usize).wrapping_mul(7919).wrapping_add(k) % n;
                    self.versions.lock().unwrap()[index] = rv;
                    Ok(WatchEvent::Modified(configmap(index, rv)))
                })
                .collect();
            Ok(futures::stream::iter(events).boxed())
        }
        .boxed()
    }
}

fn live_set_json_bytes(informer: &SharedInformer<ConfigMap>) -> usize {
    informer
        .store()
        .list()
        .iter()
        .map(|o| serde_json::to_vec(o.as_ref()).map_or(0, |v| v.len()))
        .sum()
}

fn report(phase: &str, started: Instant, live: usize) {
    let (rss, peak) = rss();
    let live = live as f64 / (1024.0 * 1024.0);
    println!(
        "  {phase:<42} {:>7.1} s  RSS {rss:>8.1} MiB  peak {peak:>8.1} MiB  live set {live:>6.1} MiB JSON  RSS/live {:>5.2}",
        started.elapsed().as_secs_f64(),
        if live > 0.0 { rss / live } else { f64::NAN },
    );
}

fn main() {
    let objects = env_or("KUBEGEN_BENCH_OBJECTS", 100_000);
    let relists = env_or("KUBEGEN_BENCH_RELISTS", 100);
    let events = env_or("KUBEGEN_BENCH_EVENTS", 1_000_000);
    let release = env_or("KUBEGEN_BENCH_RELEASE", 1) != 0;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        println!(
            "informer memory: {objects} objects, {relists} relists, {events} watch events, free memory released after lists: {release}"
        );
        let started = Instant::now();
        report("start", started, 0);
        let streamed = Arc::new(Notify::new());
        let source = Arc::new(Synthetic {
            versions: Mutex::new((0..objects).map(|i| i as u64 + 1).collect()),
            rv: AtomicU64::new(objects as u64),
            relists_left: AtomicUsize::new(relists),
            events_left: AtomicUsize::new(events),
            per_watch: 10_000,
            streamed: streamed.clone(),
            more: Arc::new(Notify::new()),
        });
        let backoff = Backoff {
            duration: Duration::from_millis(1),
            factor: 1.0,
            jitter: 0.0,
            steps: 1,
            cap: None,
            reset_after: None,
        };
        let informer = SharedInformer::from_shared(
            source.clone(),
            InformerConfig::default().reflector(
                ReflectorConfig::default()
                    .backoff(backoff)
                    .release_memory_after_list(release),
            ),
        );
        let handled = Arc::new(AtomicU64::new(0));
        for _ in 0..2 {
            let (a, u, d) = (handled.clone(), handled.clone(), handled.clone());
            informer.add_event_handler(
                HandlerFns::new()
                    .on_add(move |_, _| {
                        a.fetch_add(1, Ordering::Relaxed);
                    })
                    .on_update(move |_, _| {
                        u.fetch_add(1, Ordering::Relaxed);
                    })
                    .on_delete(move |_| {
                        d.fetch_add(1, Ordering::Relaxed);
                    }),
            );
        }
        informer.start();
        informer.wait_for_sync().await;
        let live = live_set_json_bytes(&informer);
        report("synced", started, live);
        streamed.notified().await;
        report(
            &format!("after {relists} relists + {events} events"),
            started,
            live_set_json_bytes(&informer),
        );

        // A handler that stops consuming: its buffer holds every notification (and
        // through them old object versions) until it is removed and drained.
        let gate = Arc::new(std::sync::Barrier::new(2));
        let held = gate.clone();
        let (ended_tx, ended) = tokio::sync::oneshot::channel::<()>();
        let on_drop = DropSignal(Some(ended_tx));
        let mut first = true;
        let stalled = informer.add_event_handler(HandlerFns::new().on_update(move |_, _| {
            let _keep = &on_drop;
            if std::mem::take(&mut first) {
                held.wait();
            }
        }));
        let stall_events = events / 5;
        source.events_left.store(stall_events, Ordering::SeqCst);
        source.more.notify_one();
        streamed.notified().await;
        report(
            &format!("{stall_events} events held by a stalled handler"),
            started,
            live_set_json_bytes(&informer),
        );
        informer.remove_event_handler(&stalled);
        tokio::task::spawn_blocking(move || {
            gate.wait();
        })
        .await
        .unwrap();
        ended.await.unwrap();
        report(
            "stalled handler removed and drained",
            started,
            live_set_json_bytes(&informer),
        );
        // Freed buffers show as reuse: as many events again, with no stalled handler,
        // should not grow the process (glibc keeps freed small chunks for reuse rather
        // than returning them, so RSS does not fall on release).
        source.events_left.store(stall_events, Ordering::SeqCst);
        source.more.notify_one();
        streamed.notified().await;
        report(
            &format!("{stall_events} more events, none held"),
            started,
            live_set_json_bytes(&informer),
        );
        println!(
            "  notifications handled by the two steady handlers: {}",
            handled.load(Ordering::Relaxed)
        );
        informer.shutdown().await;
    });
}

/// Signals when dropped: the handler owning it has ended.
struct DropSignal(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}
