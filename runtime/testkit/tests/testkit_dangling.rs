//! The collection of dangling dependents through `kube::Api`: objects written with
//! ownerReferences to owners that are gone are deleted after the write, asynchronously,
//! as kube-controller-manager's garbage collector deletes them; the switch turns it off.

mod testkit_support;

use std::collections::BTreeSet;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, PostParams, WatchEvent, WatchParams};
use kubegen_testkit::ApiServer;
use testkit_support::{api_error, configmap};

/// A guard against a hang, not a timing assertion.
const GUARD: std::time::Duration = std::time::Duration::from_secs(30);

fn owned_by(name: &str, owner: &str, uid: &str) -> ConfigMap {
    let mut cm = configmap(name, "1");
    cm.metadata.owner_references = Some(vec![OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: owner.into(),
        uid: uid.into(),
        controller: Some(true),
        ..Default::default()
    }]);
    cm
}

/// Waits, from `resource_version`, for as many deletions as `names` holds, and checks
/// they are those (in any order: the collector runs on its own task).
async fn deletions(api: &Api<ConfigMap>, resource_version: &str, names: &[&str]) {
    let stream = api
        .watch(&WatchParams::default(), resource_version)
        .await
        .expect("watch");
    let deleted = stream
        .try_filter_map(|event| async move {
            Ok(match event {
                WatchEvent::Deleted(cm) => cm.metadata.name,
                _ => None,
            })
        })
        .take(names.len())
        .try_collect::<BTreeSet<String>>();
    let deleted = tokio::time::timeout(GUARD, deleted)
        .await
        .expect("the deletions within the guard")
        .expect("watch events");
    assert_eq!(deleted, names.iter().map(|n| n.to_string()).collect());
}

#[tokio::test]
async fn dependents_of_gone_owners_are_collected_after_the_write() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let post = PostParams::default();
    let owner = api
        .create(&post, &configmap("owner", "1"))
        .await
        .expect("owner");
    let old_uid = owner.metadata.uid.clone().expect("uid");
    let start = owner.metadata.resource_version.clone().expect("rv");

    // Owner alive: kept. Owner never existed: collected.
    api.create(&post, &owned_by("kept", "owner", &old_uid))
        .await
        .expect("kept");
    let dangling = api
        .create(&post, &owned_by("dangling", "nobody", "uid-nobody"))
        .await
        .expect("the write itself succeeds");
    assert!(dangling.metadata.uid.is_some());

    // The owner deleted and recreated under its name: a dependent naming the old uid is
    // collected, one naming the new uid kept.
    api.delete("owner", &DeleteParams::background())
        .await
        .expect("delete owner");
    let recreated = api
        .create(&post, &configmap("owner", "2"))
        .await
        .expect("recreate owner");
    let new_uid = recreated.metadata.uid.clone().expect("uid");
    assert_ne!(new_uid, old_uid);
    api.create(&post, &owned_by("fresh", "owner", &new_uid))
        .await
        .expect("fresh");
    api.create(&post, &owned_by("stale", "owner", &old_uid))
        .await
        .expect("stale");

    // `kept` goes with its owner's deletion (synchronously), the others after their write.
    deletions(&api, &start, &["dangling", "owner", "kept", "stale"]).await;
    for name in ["dangling", "kept", "stale"] {
        assert_eq!(api_error(api.get(name).await).0, 404, "{name}");
    }
    // Written before `stale`, so looked at before it (the collector takes writes in
    // order), and kept.
    api.get("fresh").await.expect("fresh stays");
    server.shutdown().await;
}

#[tokio::test]
async fn turned_off_dependents_of_gone_owners_stay() {
    let server = ApiServer::builder()
        .collect_dangling_dependents(false)
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let post = PostParams::default();
    api.create(&post, &owned_by("dangling", "nobody", "uid-nobody"))
        .await
        .expect("dangling");
    // Owner deletion still collects the dependents that exist then.
    let owner = api
        .create(&post, &configmap("owner", "1"))
        .await
        .expect("owner");
    let uid = owner.metadata.uid.clone().expect("uid");
    let start = owner.metadata.resource_version.clone().expect("rv");
    api.create(&post, &owned_by("child", "owner", &uid))
        .await
        .expect("child");
    api.delete("owner", &DeleteParams::background())
        .await
        .expect("delete owner");
    deletions(&api, &start, &["owner", "child"]).await;
    // A write after the owner's deletion is looked at by nobody.
    api.create(&post, &owned_by("late", "owner", &uid))
        .await
        .expect("late");
    api.get("dangling").await.expect("dangling stays");
    api.get("late").await.expect("late stays");
    server.shutdown().await;
}
