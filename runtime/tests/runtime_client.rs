//! TypedClient end to end against the testkit API server: CRUD, pagination, watch,
//! patches, deletes with preconditions, scale, typed error predicates and
//! retry_on_conflict.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{
    DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, Preconditions, WatchEvent,
    WatchParams,
};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubegen_runtime::client::{
    DEFAULT_BACKOFF, DEFAULT_RETRY, Deleted, Scope, TypedClient, retry_on_conflict,
};
use kubegen_testkit::{ApiServer, Failure, Matcher, Verb};
use serde_json::json;

fn configmap(name: &str, data: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some(
            data.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ),
        ..Default::default()
    }
}

async fn namespace(server: &ApiServer, name: &str) {
    let namespaces = TypedClient::<Namespace>::new(server.client(), Scope::All, &());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces.create(&ns).await.unwrap();
}

#[tokio::test]
async fn crud_with_optimistic_concurrency_and_predicates() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());

    let created = cms.create(&configmap("a", &[("k", "1")])).await.unwrap();
    let again = cms.create(&configmap("a", &[])).await.unwrap_err();
    assert!(again.is_already_exists() && !again.is_conflict(), "{again}");
    assert!(
        again
            .to_string()
            .contains("create configmaps \"a\" in namespace \"default\""),
        "{again}"
    );

    let mut fresh = cms.get("a").await.unwrap();
    fresh
        .data
        .get_or_insert_default()
        .insert("k".into(), "2".into());
    let updated = cms.update(&fresh).await.unwrap();
    assert_ne!(
        updated.metadata.resource_version,
        created.metadata.resource_version
    );

    // `created` carries a stale resourceVersion now.
    let stale = cms.update(&created).await.unwrap_err();
    assert!(stale.is_conflict(), "{stale}");

    let missing = cms.get("nope").await.unwrap_err();
    assert!(missing.is_not_found() && !missing.is_gone());

    let invalid = cms.create(&configmap("Not_Valid", &[])).await.unwrap_err();
    assert!(invalid.is_invalid(), "{invalid}");

    // Delete with a stale resourceVersion precondition fails; with the current one it works.
    let dp = DeleteParams::default().preconditions(Preconditions {
        resource_version: created.metadata.resource_version.clone(),
        uid: None,
    });
    assert!(cms.delete("a", &dp).await.unwrap_err().is_conflict());
    let dp = DeleteParams::foreground().preconditions(Preconditions {
        resource_version: updated.metadata.resource_version.clone(),
        uid: updated.metadata.uid.clone(),
    });
    match cms.delete("a", &dp).await.unwrap() {
        Deleted::Object(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("a")),
        Deleted::Status(status) => assert!(status.is_success()),
    }
    assert!(cms.get("a").await.unwrap_err().is_not_found());
    server.shutdown().await;
}

/// A client without kube's built-in retry of 429/503/504 (`Config::default_retry`), so
/// the throttling reaches our error type.
fn client_without_retry(server: &ApiServer) -> kube::Client {
    let mut config = kube::Config::new(server.url().parse().unwrap());
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

#[tokio::test]
async fn throttling_and_gone_are_recognized() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(
        client_without_retry(&server),
        Scope::Namespace("default"),
        &(),
    );
    server.faults().fail(
        Failure::status(429)
            .retry_after(Duration::from_secs(2))
            .matching(Matcher::any().verb(Verb::Get).resource("configmaps")),
    );
    let throttled = cms.get("x").await.unwrap_err();
    assert!(throttled.is_too_many_requests(), "{throttled:?}");
    assert_eq!(throttled.retry_after(), Some(Duration::from_secs(2)));

    cms.create(&configmap("x", &[])).await.unwrap();
    let old = cms
        .get("x")
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    cms.create(&configmap("y", &[])).await.unwrap();
    server.faults().compact();
    let gone = cms
        .list(
            &ListParams::default()
                .at(&old)
                .matching(kube::api::VersionMatch::Exact),
        )
        .await
        .unwrap_err();
    assert!(gone.is_gone(), "{gone}");
    server.shutdown().await;
}

#[tokio::test]
async fn list_follows_continue_tokens_and_returns_the_collection_version() {
    let server = ApiServer::start().await.unwrap();
    namespace(&server, "many").await;
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("many"), &());
    for i in 0..23 {
        cms.create(&configmap(&format!("cm-{i:02}"), &[]))
            .await
            .unwrap();
    }
    let page = cms
        .list_page(&ListParams::default().limit(5))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 5);
    assert!(page.metadata.continue_.is_some());

    let all = cms.list(&ListParams::default().limit(5)).await.unwrap();
    assert_eq!(all.items.len(), 23);
    let names: Vec<_> = all
        .items
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names.len(), sorted.len(), "no duplicates across pages");
    let rv = all.metadata.resource_version.clone().unwrap();
    assert_eq!(rv.parse::<u64>().unwrap(), server.resource_version());

    // Watching from the list's version sees only later changes.
    let mut watch = cms
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    cms.create(&configmap("late", &[])).await.unwrap();
    match watch.next().await.unwrap().unwrap() {
        WatchEvent::Added(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("late")),
        other => panic!("unexpected {other:?}"),
    }
    let removed = cms
        .delete_collection(&DeleteParams::default(), &ListParams::default())
        .await
        .unwrap();
    if let Deleted::Object(list) = removed {
        assert_eq!(list.items.len(), 24);
    }
    assert!(
        cms.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    server.shutdown().await;
}

#[tokio::test]
async fn merge_json_and_apply_patches() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    cms.create(&configmap("p", &[("a", "1")])).await.unwrap();

    let merged = cms
        .patch(
            "p",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"b": "2"}})),
        )
        .await
        .unwrap();
    assert_eq!(
        merged.data.unwrap(),
        BTreeMap::from([("a".into(), "1".into()), ("b".into(), "2".into())])
    );

    let ops: json_patch::Patch =
        serde_json::from_value(json!([{"op": "replace", "path": "/data/a", "value": "9"}]))
            .unwrap();
    let patched = cms
        .patch("p", &PatchParams::default(), &Patch::Json::<()>(ops))
        .await
        .unwrap();
    assert_eq!(patched.data.unwrap()["a"], "9");

    let mut desired = configmap("applied", &[("x", "y")]);
    desired.metadata.namespace = Some("default".into());
    let applied = cms.apply(&desired, "kubegen-test", true).await.unwrap();
    assert_eq!(applied.data.unwrap()["x"], "y");
    server.shutdown().await;
}

#[tokio::test]
async fn two_field_managers_apply_one_object_without_clobbering() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    let mut mine = configmap("shared", &[("a", "1"), ("a2", "x")]);
    mine.metadata.namespace = Some("default".into());
    let mut theirs = configmap("shared", &[("b", "2")]);
    theirs.metadata.namespace = Some("default".into());
    cms.apply(&mine, "one", false).await.unwrap();
    cms.apply(&theirs, "two", false).await.unwrap();
    // "one" drops a2: only its own field goes.
    let mut fewer = configmap("shared", &[("a", "1")]);
    fewer.metadata.namespace = Some("default".into());
    let applied = cms.apply(&fewer, "one", false).await.unwrap();
    assert_eq!(
        applied.data.unwrap(),
        BTreeMap::from([("a".into(), "1".into()), ("b".into(), "2".into())])
    );
    // Changing "two"'s field is a conflict until forced.
    let mut grab = configmap("shared", &[("a", "1"), ("b", "3")]);
    grab.metadata.namespace = Some("default".into());
    let refused = cms.apply(&grab, "one", false).await.unwrap_err();
    assert!(refused.is_conflict(), "{refused:?}");
    let forced = cms.apply(&grab, "one", true).await.unwrap();
    assert_eq!(forced.data.unwrap()["b"], "3");
    server.shutdown().await;
}

#[tokio::test]
async fn retry_on_conflict_converges_with_a_concurrent_writer() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    cms.create(&configmap("counter", &[("n", "0")]))
        .await
        .unwrap();
    let attempts = Arc::new(AtomicUsize::new(0));
    let result = retry_on_conflict(DEFAULT_BACKOFF, || {
        let cms = cms.clone();
        let attempts = attempts.clone();
        async move {
            let mut cm = cms.get("counter").await?;
            if attempts.fetch_add(1, Ordering::SeqCst) == 0 {
                // Another writer sneaks in between our read and our write.
                let mut other = cm.clone();
                other
                    .data
                    .get_or_insert_default()
                    .insert("other".into(), "yes".into());
                cms.update(&other).await?;
            }
            let n: u32 = cm
                .data
                .as_ref()
                .and_then(|d| d.get("n"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            cm.data
                .get_or_insert_default()
                .insert("n".into(), (n + 1).to_string());
            cms.update(&cm).await
        }
    })
    .await
    .unwrap();
    assert_eq!(attempts.load(Ordering::SeqCst), 2);
    let data = result.data.unwrap();
    assert_eq!((data["n"].as_str(), data["other"].as_str()), ("1", "yes"));

    // A conflict that never clears gives up after DEFAULT_RETRY's five attempts.
    let tries = AtomicUsize::new(0);
    let stale = cms.get("counter").await.unwrap();
    cms.patch(
        "counter",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"bump": "1"}})),
    )
    .await
    .unwrap();
    let err = retry_on_conflict(DEFAULT_RETRY, || {
        tries.fetch_add(1, Ordering::SeqCst);
        cms.update(&stale)
    })
    .await
    .unwrap_err();
    assert!(err.is_conflict());
    assert_eq!(tries.load(Ordering::SeqCst), 5);
    server.shutdown().await;
}

#[tokio::test]
async fn status_and_scale_subresources() {
    let server = ApiServer::start().await.unwrap();
    let deployments =
        TypedClient::<Deployment>::new(server.client(), Scope::Namespace("default"), &());
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        }
    }))
    .unwrap();
    let created = deployments.create(&deployment).await.unwrap();

    let mut with_status = created.clone();
    with_status.status =
        Some(serde_json::from_value(json!({"observedGeneration": 1, "replicas": 1})).unwrap());
    let updated = deployments.update_status(&with_status).await.unwrap();
    assert_eq!(updated.status.unwrap().observed_generation, Some(1));
    assert!(
        deployments
            .update_status(&with_status)
            .await
            .unwrap_err()
            .is_conflict()
    );

    let mut scale = deployments.get_scale("web").await.unwrap();
    assert_eq!(scale.spec.as_ref().and_then(|s| s.replicas), Some(1));
    scale.spec.get_or_insert_default().replicas = Some(4);
    deployments.update_scale("web", &scale).await.unwrap();
    assert_eq!(deployments.get("web").await.unwrap().spec.replicas, Some(4));
    server.shutdown().await;
}

#[tokio::test]
async fn dynamic_objects_through_an_api_resource() {
    let server = ApiServer::start().await.unwrap();
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "ConfigMap"));
    let dynamic =
        TypedClient::<DynamicObject>::new(server.client(), Scope::Namespace("default"), &resource);
    let object: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "dyn"}, "data": {"k": "v"}
    }))
    .unwrap();
    dynamic.create(&object).await.unwrap();
    let typed = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    assert_eq!(typed.get("dyn").await.unwrap().data.unwrap()["k"], "v");
    let all = TypedClient::<DynamicObject>::new(server.client(), Scope::All, &resource);
    assert!(
        all.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .iter()
            .any(|o| o.metadata.name.as_deref() == Some("dyn"))
    );
    server.shutdown().await;
}
