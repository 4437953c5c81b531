//! pod-logger end to end against the testkit API server: the handler sees every add,
//! update, resync and delete, including deletions it only learns of on relist, and the
//! reconcile loop ends up with every pod's current state (`in_step` waits for both).
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, PostParams};
use kubegen::runtime::reflector::DEFAULT_BACKOFF;
use kubegen::testkit::ApiServer;
use pod_logger::{Counts, Options, PodLogger, demo};

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(60);

async fn in_step(logger: &PodLogger, client: &kube::Client, min_resyncs: u64) -> Counts {
    tokio::time::timeout(GUARD, logger.wait_in_step(client, min_resyncs))
        .await
        .expect("in step")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_adds_updates_deletes_and_tombstones() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let logger = PodLogger::start(
        client.clone(),
        Options {
            namespace: None,
            resync: Duration::ZERO,
            reflector_backoff: DEFAULT_BACKOFF,
        },
        None,
    );
    logger.wait_for_sync().await;

    demo::seed(&client).await.unwrap();
    let counts = in_step(&logger, &client, 0).await;
    assert_eq!(
        counts,
        Counts {
            adds: 3,
            updates: 0,
            resyncs: 0,
            deletes: 0
        }
    );

    demo::churn(&client).await.unwrap();
    let counts = in_step(&logger, &client, 0).await;
    assert_eq!(
        counts,
        Counts {
            adds: 3,
            updates: 2,
            resyncs: 0,
            deletes: 1
        }
    );

    // A pod is deleted and another created while events are held back; history is
    // compacted and watches killed: the relist delivers an add and a tombstone.
    let pods: Api<Pod> = Api::namespaced(client.clone(), demo::DEMO_NAMESPACE);
    let faults = server.faults();
    faults.pause_watches();
    pods.delete("db-1", &DeleteParams::default()).await.unwrap();
    pods.create(
        &PostParams::default(),
        &demo::pod("web-3", "web", Some("node-c")),
    )
    .await
    .unwrap();
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    let counts = in_step(&logger, &client, 0).await;
    assert_eq!((counts.adds, counts.deletes), (4, 2));
    assert!(logger.agrees_with(&pods.list(&Default::default()).await.unwrap().items));

    logger.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resyncs_redeliver_every_cached_pod() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    demo::seed(&client).await.unwrap();
    let logger = PodLogger::start(
        client.clone(),
        Options {
            namespace: Some(demo::DEMO_NAMESPACE.into()),
            resync: Duration::from_millis(100),
            reflector_backoff: DEFAULT_BACKOFF,
        },
        None,
    );
    logger.wait_for_sync().await;
    // Two full rounds over three pods.
    let counts = in_step(&logger, &client, 6).await;
    assert_eq!((counts.adds, counts.updates, counts.deletes), (3, 0, 0));
    assert!(counts.resyncs >= 6);
    // The reconcile loop looked at each pod once: resyncs change nothing, so they are
    // not enqueued.
    assert_eq!(logger.reconciles(), 3);
    logger.shutdown().await.unwrap();
    server.shutdown().await;
}
