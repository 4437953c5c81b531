//! The stale-cache guard in the reconcile loop, on paused time: a key whose last
//! reconcile wrote is put back until the cache has seen the write, or until the
//! deadline; both are counted.

#![allow(clippy::unwrap_used)]

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::*;
use crate::client::written::{GroupResource, report_write};
use crate::informer::SyncedVersion;
use crate::metrics::controller::ControllerMetricsProvider;

const RETRY: Duration = Duration::from_millis(10);
const TIMEOUT: Duration = Duration::from_secs(1);

fn deployments() -> GroupResource {
    GroupResource::new("apps", "deployments")
}

fn key() -> ObjectKey {
    ObjectKey::namespaced("default", "web")
}

/// Writes version 12 of a Deployment on its first reconcile, and records what the
/// cache held at each.
struct Writer {
    cache: SyncedVersion,
    seen: Mutex<Vec<(Instant, String)>>,
}

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

impl Reconciler for Writer {
    type Error = Never;

    async fn reconcile(&self, _: &ObjectKey) -> std::result::Result<Action, Never> {
        let first = {
            let mut seen = self.seen.lock().unwrap();
            seen.push((Instant::now(), self.cache.get()));
            seen.len() == 1
        };
        if first {
            report_write(&deployments(), Some("default"), Some("12"));
        }
        Ok(Action::Done)
    }
}

#[derive(Debug, Default)]
struct Counts {
    skips: AtomicU64,
    timeouts: AtomicU64,
}

impl ControllerMetrics for Arc<Counts> {
    fn stale_sync_skipped(&self) {
        self.skips.fetch_add(1, Ordering::SeqCst);
    }
    fn stale_sync_timed_out(&self) {
        self.timeouts.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Debug, Default, Clone)]
struct Probe(Arc<Counts>);

impl ControllerMetricsProvider for Probe {
    fn controller_metrics(&self, _: &str) -> Option<Arc<dyn ControllerMetrics>> {
        Some(Arc::new(Arc::clone(&self.0)))
    }
}

struct Running {
    controller: Controller,
    writer: Arc<Writer>,
    cache: SyncedVersion,
    probe: Probe,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<()>>,
}

/// A controller whose guard tracks one Deployment cache at version 10, running
/// [`Writer`].
fn start(guard: StaleCacheGuard) -> Running {
    let probe = Probe::default();
    let controller = Controller::new(
        ControllerConfig::default()
            .name("fresh")
            .stale_cache_guard(guard)
            .metrics(probe.clone()),
    );
    let cache = SyncedVersion::new();
    cache.set("10");
    controller
        .shared
        .guard
        .track(deployments(), None, cache.clone());
    let writer = Arc::new(Writer {
        cache: cache.clone(),
        seen: Mutex::new(Vec::new()),
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn({
        let controller = controller.clone();
        let writer = Arc::clone(&writer);
        async move {
            controller
                .run(writer, async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    Running {
        controller,
        writer,
        cache,
        probe,
        stop,
        task,
    }
}

impl Running {
    async fn reconciled(&self, count: u64) {
        let mut processed = self.controller.processed();
        processed.wait_for(|n| *n >= count).await.unwrap();
    }

    fn seen(&self) -> Vec<(Instant, String)> {
        self.writer.seen.lock().unwrap().clone()
    }

    fn skips(&self) -> u64 {
        self.probe.0.skips.load(Ordering::SeqCst)
    }

    fn timeouts(&self) -> u64 {
        self.probe.0.timeouts.load(Ordering::SeqCst)
    }

    async fn stop(self) {
        self.stop.send(()).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn the_next_reconcile_waits_for_the_cache_to_see_the_write() {
    let guard = StaleCacheGuard::default().retry(RETRY).timeout(TIMEOUT);
    let running = start(guard);
    running.controller.queue().add(key());
    running.reconciled(1).await;
    // An event enqueues the key again while the cache is still at 10.
    running.controller.queue().add(key());
    tokio::time::sleep(RETRY * 5).await;
    assert_eq!(
        running.seen().len(),
        1,
        "held back while the cache is behind"
    );
    assert!(
        running.skips() >= 5,
        "each retry found it behind: {}",
        running.skips()
    );

    running.cache.set("12");
    running.reconciled(2).await;
    let seen = running.seen();
    assert_eq!(seen[1].1, "12", "the second reconcile saw the write");
    assert!(seen[1].0 - seen[0].0 <= RETRY * 6);
    assert_eq!(running.timeouts(), 0);

    // Nothing written since: the next event is reconciled at once.
    let skips = running.skips();
    running.controller.queue().add(key());
    running.reconciled(3).await;
    assert_eq!(running.skips(), skips);
    running.stop().await;
}

#[tokio::test(start_paused = true)]
async fn past_the_deadline_the_key_is_reconciled_on_the_stale_cache() {
    let guard = StaleCacheGuard::default().retry(RETRY).timeout(TIMEOUT);
    let running = start(guard);
    running.controller.queue().add(key());
    running.reconciled(1).await;
    running.controller.queue().add(key());
    running.reconciled(2).await;
    let seen = running.seen();
    assert_eq!(seen[1].1, "10", "the cache never caught up");
    assert_eq!(
        seen[1].0 - seen[0].0,
        TIMEOUT,
        "held back exactly to the deadline"
    );
    assert_eq!(running.timeouts(), 1);
    assert_eq!(running.skips(), 100, "one look every 10 ms for 1 s");
    running.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_disabled_guard_reconciles_at_once() {
    let running = start(StaleCacheGuard::disabled());
    running.controller.queue().add(key());
    running.reconciled(1).await;
    running.controller.queue().add(key());
    running.reconciled(2).await;
    let seen = running.seen();
    assert_eq!(seen[1].1, "10", "the second reconcile read the stale cache");
    assert_eq!(seen[1].0, seen[0].0);
    assert_eq!((running.skips(), running.timeouts()), (0, 0));
    running.stop().await;
}
