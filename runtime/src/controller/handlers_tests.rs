//! The enqueue handlers fed objects directly: which keys each one queues.

#![allow(clippy::unwrap_used)]

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::*;
use crate::workqueue::default_controller_rate_limiter;

fn queue() -> RateLimitingQueue<ObjectKey> {
    RateLimitingQueue::new(default_controller_rate_limiter())
}

/// Every key queued now, in order.
async fn drain(queue: &RateLimitingQueue<ObjectKey>) -> Vec<String> {
    let mut keys = Vec::new();
    while !queue.is_empty() {
        let key = queue.get().await.unwrap();
        queue.done(&key);
        keys.push(key.to_string());
    }
    keys
}

fn owner(api_version: &str, kind: &str, name: &str, controller: bool) -> OwnerReference {
    OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        controller: Some(controller),
        ..Default::default()
    }
}

fn cm(name: &str, version: &str, owners: Vec<OwnerReference>) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("ns".into()),
            resource_version: Some(version.into()),
            owner_references: Some(owners),
            ..Default::default()
        },
        ..Default::default()
    })
}

#[tokio::test]
async fn object_enqueues_itself_and_can_skip_resyncs() {
    let queue = queue();
    let mut all = EnqueueObject::new(&queue);
    let mut changes = EnqueueObject::new(&queue).skip_resyncs();
    let a1 = cm("a", "1", vec![]);
    let a2 = cm("a", "2", vec![]);
    EventHandler::<ConfigMap>::on_update(&mut changes, a1.clone(), a1.clone());
    assert!(queue.is_empty(), "a resync is skipped");
    EventHandler::<ConfigMap>::on_update(&mut changes, a1.clone(), a2.clone());
    assert_eq!(drain(&queue).await, ["ns/a"]);
    EventHandler::<ConfigMap>::on_update(&mut all, a1.clone(), a1.clone());
    assert_eq!(drain(&queue).await, ["ns/a"], "resyncs count by default");
    let tombstone = DeletedObject::FinalStateUnknown {
        key: ObjectKey::namespaced("ns", "a"),
        last_known: a2,
    };
    EventHandler::<ConfigMap>::on_delete(&mut all, tombstone);
    assert_eq!(drain(&queue).await, ["ns/a"]);
}

#[tokio::test]
async fn owner_is_the_controller_reference_of_the_owner_group_and_kind() {
    let queue = queue();
    let handler = EnqueueOwner::<Deployment>::new(&queue);
    let key = |owners| {
        handler
            .owner_key(&cm("x", "1", owners).metadata)
            .map(|k| k.to_string())
    };
    assert_eq!(
        key(vec![owner("apps/v1", "Deployment", "web", true)]),
        Some("ns/web".into())
    );
    // Another version of the same group is the same kind.
    assert_eq!(
        key(vec![owner("apps/v1beta2", "Deployment", "web", true)]),
        Some("ns/web".into())
    );
    // Not the controller, another group, another kind: not ours.
    assert_eq!(
        key(vec![owner("apps/v1", "Deployment", "web", false)]),
        None
    );
    assert_eq!(
        key(vec![owner("example.com/v1", "Deployment", "web", true)]),
        None
    );
    assert_eq!(
        key(vec![owner("apps/v1", "StatefulSet", "web", true)]),
        None
    );
    assert_eq!(
        key(vec![
            owner("apps/v1", "Deployment", "not-controller", false),
            owner("apps/v1", "Deployment", "web", true)
        ]),
        Some("ns/web".into())
    );
}

#[tokio::test]
async fn cluster_scoped_owners_have_cluster_keys() {
    let queue = queue();
    let handler = EnqueueOwner::<Namespace>::new(&queue);
    let dependent = cm("x", "1", vec![owner("v1", "Namespace", "team-a", true)]);
    assert_eq!(
        handler.owner_key(&dependent.metadata),
        Some(ObjectKey::cluster("team-a"))
    );
}

#[tokio::test]
async fn owner_updates_enqueue_the_old_and_the_new_owner() {
    let queue = queue();
    let mut handler = EnqueueOwner::<Deployment>::new(&queue).skip_resyncs();
    let before = cm("x", "1", vec![owner("apps/v1", "Deployment", "old", true)]);
    let after = cm("x", "2", vec![owner("apps/v1", "Deployment", "new", true)]);
    handler.on_update(before.clone(), before.clone());
    assert!(queue.is_empty());
    handler.on_update(before, after.clone());
    assert_eq!(drain(&queue).await, ["ns/old", "ns/new"]);
    handler.on_delete(DeletedObject::Object(after));
    assert_eq!(drain(&queue).await, ["ns/new"]);
}

#[tokio::test]
async fn index_fans_out_to_every_key_under_the_values() {
    let queue = queue();
    let (store, mut writer) = Store::<ConfigMap>::new();
    let by_app = store.add_index("app", |cm: &ConfigMap| {
        cm.metadata
            .labels
            .iter()
            .flatten()
            .filter(|(k, _)| *k == "app")
            .map(|(_, v)| v.clone())
            .collect()
    });
    for (name, app) in [("a", "web"), ("b", "web"), ("c", "db")] {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("ns".into());
        cm.metadata.labels = Some([("app".to_owned(), app.to_owned())].into());
        writer.insert(Arc::new(cm));
    }
    // A ConfigMap's `wants` label names the app whose ConfigMaps it concerns.
    let mut handler = EnqueueByIndex::new(&queue, store, by_app, |cm: &ConfigMap| {
        cm.metadata
            .labels
            .iter()
            .flatten()
            .filter(|(k, _)| *k == "wants")
            .map(|(_, v)| v.clone())
            .collect()
    });
    let mut trigger = ConfigMap::default();
    trigger.metadata.labels = Some([("wants".to_owned(), "web".to_owned())].into());
    handler.on_add(Arc::new(trigger), false);
    let mut keys = drain(&queue).await;
    keys.sort();
    assert_eq!(keys, ["ns/a", "ns/b"]);
}

#[tokio::test]
async fn mapped_enqueues_what_the_function_returns_for_old_and_new() {
    let queue = queue();
    let mut handler = EnqueueMapped::new(&queue, |cm: &ConfigMap| {
        cm.metadata
            .resource_version
            .iter()
            .map(|v| ObjectKey::cluster(format!("v{v}")))
            .collect()
    });
    handler.on_update(cm("x", "1", vec![]), cm("x", "2", vec![]));
    assert_eq!(drain(&queue).await, ["v1", "v2"]);
}

#[tokio::test]
async fn initial_lists_and_resyncs_go_in_at_low_priority_behind_live_changes() {
    let queue = queue();
    let mut objects = EnqueueObject::new(&queue);
    for name in ["i1", "i2", "i3"] {
        EventHandler::<ConfigMap>::on_add(&mut objects, cm(name, "1", vec![]), true);
    }
    let unchanged = cm("r", "4", vec![]);
    EventHandler::<ConfigMap>::on_update(&mut objects, unchanged.clone(), unchanged);
    EventHandler::<ConfigMap>::on_add(&mut objects, cm("live", "5", vec![]), false);
    EventHandler::<ConfigMap>::on_update(
        &mut objects,
        cm("i3", "1", vec![]),
        cm("i3", "6", vec![]),
    );
    assert_eq!(
        drain(&queue).await,
        ["ns/live", "ns/i3", "ns/i1", "ns/i2", "ns/r"],
        "live changes first, in order; then the initial list and the resync"
    );

    let mut owners = EnqueueOwner::<Deployment>::new(&queue);
    let owned = |name: &str, owner_name: &str| {
        cm(
            name,
            "1",
            vec![owner("apps/v1", "Deployment", owner_name, true)],
        )
    };
    EventHandler::<ConfigMap>::on_add(&mut owners, owned("a", "listed"), true);
    EventHandler::<ConfigMap>::on_add(&mut owners, owned("b", "live"), false);
    assert_eq!(drain(&queue).await, ["ns/live", "ns/listed"]);
}
