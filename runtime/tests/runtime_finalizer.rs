//! The finalizer helper against the testkit API server: deletion waits for a successful
//! cleanup, failing cleanups are retried with backoff, other finalizers are kept, a
//! concurrent change fails the patch's test instead of being overwritten, and an object
//! deleted before it was finalized is left alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kubegen_runtime::client::{Deleted, Scope, TypedClient};
use kubegen_runtime::finalizer::{Error, Event, Outcome, finalize};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::workqueue::{ItemExponentialFailureRateLimiter, RateLimitingQueue};
use kubegen_testkit::ApiServer;
use serde_json::json;

const OURS: &str = "example.com/cleanup";
const THEIRS: &str = "other.example.com/keep";

type Failure = std::io::Error;

fn failure(what: &str) -> Failure {
    std::io::Error::other(what.to_owned())
}

fn configmaps(server: &ApiServer) -> TypedClient<ConfigMap> {
    TypedClient::new(server.client(), Scope::Namespace("default"), &())
}

async fn create(client: &TypedClient<ConfigMap>, name: &str, finalizers: &[&str]) {
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            finalizers: Some(finalizers.iter().map(|f| (*f).to_owned()).collect())
                .filter(|f: &Vec<String>| !f.is_empty()),
            ..Default::default()
        },
        data: Some([("k".to_owned(), "v".to_owned())].into()),
        ..Default::default()
    };
    client.create(&cm).await.expect("create");
}

async fn read(client: &TypedClient<ConfigMap>, name: &str) -> Arc<ConfigMap> {
    Arc::new(client.get(name).await.expect("get"))
}

fn finalizers(object: &ConfigMap) -> Vec<String> {
    object.metadata.finalizers.clone().unwrap_or_default()
}

async fn delete(client: &TypedClient<ConfigMap>, name: &str) {
    match client
        .delete(name, &DeleteParams::default())
        .await
        .expect("delete")
    {
        Deleted::Object(pending) => assert!(pending.metadata.deletion_timestamp.is_some()),
        Deleted::Status(status) => panic!("deleted at once: {status:?}"),
    }
}

/// A reconcile function that records what it was asked to do.
#[derive(Clone, Default)]
struct Recorder {
    applies: Arc<AtomicU32>,
    cleanups: Arc<AtomicU32>,
}

impl Recorder {
    async fn run<K>(&self, event: Event<K>, fail_cleanup: bool) -> Result<&'static str, Failure> {
        match event {
            Event::Apply(_) => {
                self.applies.fetch_add(1, Ordering::SeqCst);
                Ok("applied")
            }
            Event::Cleanup(_) => {
                self.cleanups.fetch_add(1, Ordering::SeqCst);
                if fail_cleanup {
                    Err(failure("the external resource is still there"))
                } else {
                    Ok("cleaned up")
                }
            }
        }
    }

    fn applies(&self) -> u32 {
        self.applies.load(Ordering::SeqCst)
    }

    fn cleanups(&self) -> u32 {
        self.cleanups.load(Ordering::SeqCst)
    }
}

#[tokio::test]
async fn the_object_stays_until_cleanup_succeeds() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    create(&client, "a", &[]).await;

    let outcome = finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("first reconcile");
    assert_eq!(outcome, Outcome::Applied("applied"));
    assert_eq!(finalizers(&*read(&client, "a").await), [OURS]);
    // Applying again does not write.
    let before = read(&client, "a").await;
    finalize(&client, OURS, before.clone(), |e| calls.run(e, false))
        .await
        .expect("second reconcile");
    assert_eq!(
        read(&client, "a").await.metadata.resource_version,
        before.metadata.resource_version
    );
    assert_eq!(calls.applies(), 2);

    delete(&client, "a").await;
    let deleting = read(&client, "a").await;
    assert!(deleting.metadata.deletion_timestamp.is_some());
    let failed = finalize(&client, OURS, deleting, |e| calls.run(e, true)).await;
    match failed {
        Err(error @ Error::Cleanup { .. }) => assert!(!error.is_conflict()),
        other => panic!("expected a cleanup error, got {other:?}"),
    }
    let still = read(&client, "a").await;
    assert_eq!(
        finalizers(&still),
        [OURS],
        "the finalizer stays after a failed cleanup"
    );

    let outcome = finalize(&client, OURS, still, |e| calls.run(e, false))
        .await
        .expect("cleanup");
    assert_eq!(outcome, Outcome::CleanedUp("cleaned up"));
    assert!(client.get("a").await.expect_err("gone").is_not_found());
    assert_eq!((calls.applies(), calls.cleanups()), (2, 2));
    server.shutdown().await;
}

/// The controller loop around the helper: a failing cleanup goes back to the queue with
/// a growing per-key backoff, runs again, and once it succeeds the key is forgotten and
/// the object released.
#[tokio::test]
async fn a_failing_cleanup_is_retried_with_backoff_until_it_succeeds() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    create(&client, "a", &[OURS]).await;
    delete(&client, "a").await;

    let queue: RateLimitingQueue<ObjectKey> = RateLimitingQueue::new(
        ItemExponentialFailureRateLimiter::new(Duration::from_millis(1), Duration::from_secs(1)),
    );
    let key = ObjectKey::namespaced("default", "a");
    queue.add(key.clone());
    let mut requeues_seen = Vec::new();
    while let Some(next) = queue.get().await {
        requeues_seen.push(queue.num_requeues(&next));
        let object = match client.get(next.name()).await {
            Ok(object) => Arc::new(object),
            Err(e) if e.is_not_found() => {
                queue.forget(&next);
                queue.done(&next);
                break;
            }
            Err(e) => panic!("get: {e}"),
        };
        let fail = calls.cleanups() < 3;
        match finalize(&client, OURS, object, |e| calls.run(e, fail)).await {
            Ok(_) => {
                queue.forget(&next);
                // Level driven: look at the object once more (it is gone now).
                queue.add(next.clone());
            }
            Err(error) => {
                assert!(matches!(error, Error::Cleanup { .. }), "{error}");
                queue.add_rate_limited(next.clone());
            }
        }
        queue.done(&next);
    }
    assert_eq!(calls.cleanups(), 4, "three failures, then a success");
    assert_eq!(
        requeues_seen,
        [0, 1, 2, 3, 0],
        "each failure backs off once more; success forgets"
    );
    assert_eq!(queue.num_requeues(&key), 0);
    assert!(client.get("a").await.expect_err("gone").is_not_found());
    assert_eq!(calls.applies(), 0, "nothing is applied to a deleted object");
    server.shutdown().await;
}

#[tokio::test]
async fn someone_elses_finalizer_is_kept() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    create(&client, "a", &[THEIRS]).await;

    finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("apply");
    assert_eq!(finalizers(&*read(&client, "a").await), [THEIRS, OURS]);

    delete(&client, "a").await;
    let outcome = finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("cleanup");
    assert_eq!(outcome, Outcome::CleanedUp("cleaned up"));
    let waiting = read(&client, "a").await;
    assert_eq!(finalizers(&waiting), [THEIRS]);
    assert!(waiting.metadata.deletion_timestamp.is_some());

    // Ours is gone: further reconciles neither clean up again nor re-add it.
    let outcome = finalize(&client, OURS, waiting, |e| calls.run(e, false))
        .await
        .expect("skip");
    assert_eq!(outcome, Outcome::Skipped);
    assert_eq!(calls.cleanups(), 1);

    client
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("the other controller finishes");
    assert!(client.get("a").await.expect_err("gone").is_not_found());
    server.shutdown().await;
}

#[tokio::test]
async fn a_concurrent_finalizer_change_fails_the_patch_test_instead_of_being_overwritten() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    let theirs_added = Patch::Merge(json!({"metadata": {"finalizers": [THEIRS]}}));

    // Adding: another controller adds its finalizer after our read.
    create(&client, "a", &[]).await;
    let stale = read(&client, "a").await;
    client
        .patch("a", &PatchParams::default(), &theirs_added)
        .await
        .expect("theirs");
    let error = finalize(&client, OURS, stale, |e| calls.run(e, false))
        .await
        .expect_err("the add must not overwrite their list");
    assert!(matches!(error, Error::AddFinalizer { .. }), "{error}");
    assert!(error.is_conflict(), "{error:?}");
    assert_eq!(finalizers(&*read(&client, "a").await), [THEIRS]);
    assert_eq!(calls.applies(), 0, "no apply without our finalizer");
    finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("retry on the fresh object");
    assert_eq!(finalizers(&*read(&client, "a").await), [THEIRS, OURS]);

    // Removing: while our cleanup runs, the other controller removes its finalizer, so
    // ours moves from index 1 to 0.
    delete(&client, "a").await;
    let stale = read(&client, "a").await;
    let error = finalize(&client, OURS, stale, |event| {
        let client = client.clone();
        let calls = calls.clone();
        async move {
            client
                .patch(
                    "a",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"finalizers": [OURS]}})),
                )
                .await
                .expect("theirs removed");
            calls.run(event, false).await
        }
    })
    .await
    .expect_err("the remove must test the index it read");
    assert!(matches!(error, Error::RemoveFinalizer { .. }), "{error}");
    assert!(error.is_conflict(), "{error:?}");
    assert_eq!(finalizers(&*read(&client, "a").await), [OURS]);
    let outcome = finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("retry on the fresh object");
    assert_eq!(outcome, Outcome::CleanedUp("cleaned up"));
    assert!(client.get("a").await.expect_err("gone").is_not_found());
    server.shutdown().await;
}

#[tokio::test]
async fn an_object_deleted_before_it_was_finalized_is_not_finalized() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    // Their finalizer keeps the object visible while it is being deleted.
    create(&client, "a", &[THEIRS]).await;
    let before_deletion = read(&client, "a").await;
    delete(&client, "a").await;

    let outcome = finalize(&client, OURS, read(&client, "a").await, |e| {
        calls.run(e, false)
    })
    .await
    .expect("skip");
    assert_eq!(outcome, Outcome::Skipped);

    // A cache that has not seen the deletion yet: the add's resourceVersion test fails.
    let error = finalize(&client, OURS, before_deletion, |e| calls.run(e, false))
        .await
        .expect_err("stale copy");
    assert!(error.is_conflict(), "{error:?}");
    assert_eq!(finalizers(&*read(&client, "a").await), [THEIRS]);
    assert_eq!((calls.applies(), calls.cleanups()), (0, 0));
    server.shutdown().await;
}

/// Objects watched metadata-only (a `PartialObjectMeta<K>` informer) are finalized the
/// same way: the patches answer with metadata too.
#[tokio::test]
async fn metadata_only_objects_are_finalized_too() {
    let server = ApiServer::start().await.expect("start");
    let secrets = TypedClient::<Secret>::new(server.client(), Scope::Namespace("default"), &());
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some("s".to_owned()),
            ..Default::default()
        },
        string_data: Some([("password".to_owned(), "hunter2".to_owned())].into()),
        ..Default::default()
    };
    secrets.create(&secret).await.expect("create");
    let metadata = TypedClient::<PartialObjectMeta<Secret>>::new(
        server.client(),
        Scope::Namespace("default"),
        &(),
    );
    let calls = Recorder::default();
    let read = || async { Arc::new(metadata.get("s").await.expect("get")) };

    let outcome = finalize(&metadata, OURS, read().await, |e| calls.run(e, false))
        .await
        .expect("apply");
    assert_eq!(outcome, Outcome::Applied("applied"));
    assert_eq!(
        read().await.metadata.finalizers,
        Some(vec![OURS.to_owned()])
    );
    secrets
        .delete("s", &DeleteParams::default())
        .await
        .expect("delete");
    finalize(&metadata, OURS, read().await, |e| calls.run(e, false))
        .await
        .expect("cleanup");
    assert!(secrets.get("s").await.expect_err("gone").is_not_found());
    server.shutdown().await;
}

#[tokio::test]
async fn misuse_is_reported_without_writing() {
    let server = ApiServer::start().await.expect("start");
    let client = configmaps(&server);
    let calls = Recorder::default();
    create(&client, "a", &[]).await;
    let object = read(&client, "a").await;

    let everywhere = TypedClient::<ConfigMap>::new(server.client(), Scope::All, &());
    let error = finalize(&everywhere, OURS, object.clone(), |e| calls.run(e, false))
        .await
        .expect_err("wrong scope");
    assert!(matches!(error, Error::WrongScope { .. }), "{error}");

    let error = finalize(&client, "not a/valid/finalizer", object, |e| {
        calls.run(e, false)
    })
    .await
    .expect_err("invalid name");
    assert!(matches!(error, Error::AddFinalizer { .. }), "{error}");
    assert!(
        !error.is_conflict(),
        "an invalid name is no conflict: {error:?}"
    );
    assert_eq!(
        error
            .client_error()
            .and_then(|e| e.status())
            .map(|s| s.code),
        Some(422)
    );
    assert!(finalizers(&*read(&client, "a").await).is_empty());
    assert_eq!(calls.applies(), 0);
    server.shutdown().await;
}
