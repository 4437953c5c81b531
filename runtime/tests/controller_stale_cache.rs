//! The stale-cache guard end to end against the testkit API server: a reconcile writes
//! through a `TypedClient` while watch delivery is paused, and asks to run again at once.
//! Without the guard the next reconcile reads the cache from before its own write; with
//! it, the key waits until the watch delivers the write.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ObjectMeta, Patch, PatchParams};
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler, StaleCacheGuard,
};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::lister::Lister;
use kubegen_runtime::metrics::controller::{ControllerMetrics, ControllerMetricsProvider};
use kubegen_testkit::ApiServer;
use serde_json::json;
use tokio::sync::watch;

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(30);

/// Reads the ConfigMap's `v` from the cache; the first time, sets it to `2` on the
/// server and asks to be reconciled again at once.
struct Bumper {
    configmaps: Lister<ConfigMap>,
    client: TypedClient<ConfigMap>,
    /// What each reconcile read from the cache.
    seen: watch::Sender<Vec<String>>,
}

impl Reconciler for Bumper {
    type Error = kubegen_runtime::error::Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        let cached = self
            .configmaps
            .namespace(key.namespace().unwrap_or_default())
            .get(key.name())
            .and_then(|cm| cm.data.as_ref()?.get("v").cloned())
            .unwrap_or_default();
        let mut first = false;
        self.seen.send_modify(|seen| {
            seen.push(cached);
            first = seen.len() == 1;
        });
        if !first {
            return Ok(Action::Done);
        }
        let patch = Patch::Merge(json!({ "data": { "v": "2" } }));
        self.client
            .patch(key.name(), &PatchParams::default(), &patch)
            .await?;
        Ok(Action::RequeueAfter(Duration::ZERO))
    }
}

/// Counts the guard's skips.
#[derive(Debug, Clone)]
struct Skips(Arc<watch::Sender<u64>>);

impl ControllerMetrics for Skips {
    fn stale_sync_skipped(&self) {
        self.0.send_modify(|n| *n += 1);
    }
}

impl ControllerMetricsProvider for Skips {
    fn controller_metrics(&self, _: &str) -> Option<Arc<dyn ControllerMetrics>> {
        Some(Arc::new(self.clone()))
    }
}

/// What the first two reconciles of a ConfigMap read, the watches paused from before the
/// first until the test saw the guard hold the second back (or, without the guard, saw
/// the second run); and the guard's skips by then.
async fn first_two_reads(guard: StaleCacheGuard) -> (Vec<String>, u64) {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let configmaps =
        TypedClient::<ConfigMap>::new(client.clone(), Scope::Namespace("default"), &());
    configmaps
        .create(&ConfigMap {
            metadata: ObjectMeta {
                name: Some("web".into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([("v".to_owned(), "1".to_owned())])),
            ..ConfigMap::default()
        })
        .await
        .unwrap();

    let factory = SharedInformerFactory::new(client);
    let informer = factory.informer::<ConfigMap>();
    let skips = Skips(Arc::new(watch::Sender::new(0)));
    let mut skipped = skips.0.subscribe();
    let controller = Controller::new(
        ControllerConfig::default()
            .name("bumper")
            .stale_cache_guard(guard.timeout(GUARD))
            .metrics(skips.clone()),
    );
    controller.watches(&informer, EnqueueObject::new(controller.queue()));
    factory.start();
    let synced = factory.wait_for_cache_sync(GUARD).await;
    assert!(synced.values().all(|s| *s), "{synced:?}");
    // From here on the informer cannot learn of any write until the test resumes.
    server.faults().pause_watches();

    let (seen, mut reads) = watch::channel(Vec::new());
    let bumper = Bumper {
        configmaps: informer.lister(),
        client: configmaps,
        seen,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn({
        let controller = controller.clone();
        async move {
            controller
                .run(bumper, async {
                    let _ = stopped.await;
                })
                .await
        }
    });

    let watching = tokio::time::timeout(GUARD, async {
        // The first reconcile wrote; the second runs, or the guard holds it back.
        while reads.borrow().len() < 2 && *skipped.borrow() == 0 {
            tokio::select! {
                changed = reads.changed() => changed.unwrap(),
                changed = skipped.changed() => changed.unwrap(),
            }
        }
    });
    watching.await.expect("a second reconcile or a skip");
    assert_eq!(reads.borrow().len(), if guard.is_enabled() { 1 } else { 2 });
    let skips_then = *skipped.borrow();
    server.faults().resume_watches();
    tokio::time::timeout(GUARD, reads.wait_for(|seen| seen.len() >= 2))
        .await
        .expect("a second reconcile")
        .unwrap();
    let first_two = reads.borrow()[..2].to_vec();

    stop.send(()).unwrap();
    running.await.unwrap().unwrap();
    factory.shutdown().await;
    server.shutdown().await;
    (first_two, skips_then)
}

#[tokio::test]
async fn without_the_guard_the_next_reconcile_reads_the_cache_before_its_own_write() {
    let (reads, skips) = first_two_reads(StaleCacheGuard::disabled()).await;
    assert_eq!(
        reads,
        ["1", "1"],
        "the second reconcile read the stale cache"
    );
    assert_eq!(skips, 0);
}

#[tokio::test]
async fn with_the_guard_the_next_reconcile_waits_for_its_own_write() {
    let (reads, skips) = first_two_reads(StaleCacheGuard::default()).await;
    assert_eq!(reads, ["1", "2"], "the second reconcile saw its own write");
    assert!(
        skips > 0,
        "the guard held the key back while the watch was paused"
    );
}
