#![allow(clippy::unwrap_used)]
use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;

use super::*;

pub(crate) fn cm(ns: &str, name: &str, rv: &str, labels: &[(&str, &str)]) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(ns.into()),
            resource_version: Some(rv.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        ..Default::default()
    })
}

fn app_label(cm: &ConfigMap) -> Vec<String> {
    cm.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("app").cloned())
        .into_iter()
        .collect()
}

fn names(mut objects: Vec<Arc<ConfigMap>>) -> Vec<String> {
    objects.sort_by_key(|o| ObjectKey::of(o.as_ref()));
    objects
        .iter()
        .map(|o| ObjectKey::of(o.as_ref()).to_string())
        .collect()
}

#[test]
fn insert_update_remove_keep_namespace_and_user_indexes_consistent() {
    let mut builder = Store::<ConfigMap>::builder();
    let by_app = builder.index("app", app_label);
    let (store, mut writer) = builder.build();

    assert!(
        writer
            .insert(cm("a", "x", "1", &[("app", "web")]))
            .is_none()
    );
    writer.insert(cm("a", "y", "2", &[("app", "db")]));
    writer.insert(cm("b", "x", "3", &[("app", "web")]));
    assert_eq!(store.len(), 3);
    assert_eq!(names(store.list_namespace(Some("a"))), ["a/x", "a/y"]);
    assert_eq!(names(store.by_index(&by_app, "web")), ["a/x", "b/x"]);

    // An update moves the object between index values.
    let old = writer.insert(cm("a", "x", "4", &[("app", "db")])).unwrap();
    assert_eq!(old.metadata.resource_version.as_deref(), Some("1"));
    assert_eq!(store.len(), 3);
    assert_eq!(names(store.by_index(&by_app, "web")), ["b/x"]);
    assert_eq!(names(store.by_index(&by_app, "db")), ["a/x", "a/y"]);

    let gone = writer.remove(&ObjectKey::namespaced("b", "x")).unwrap();
    assert_eq!(gone.metadata.resource_version.as_deref(), Some("3"));
    assert!(writer.remove(&ObjectKey::namespaced("b", "x")).is_none());
    assert!(store.list_namespace(Some("b")).is_empty());
    assert!(store.by_index(&by_app, "web").is_empty());
    let mut values = store.index_values(&by_app);
    values.sort();
    assert_eq!(values, ["db"]);
    assert_eq!(store.len(), 2);
}

#[test]
fn replace_reports_added_updated_unchanged_and_vanished() {
    let mut builder = Store::<ConfigMap>::builder();
    let by_app = builder.index("app", app_label);
    let (store, mut writer) = builder.build();
    writer.insert(cm("a", "keep", "1", &[("app", "web")]));
    writer.insert(cm("a", "change", "1", &[("app", "web")]));
    writer.insert(cm("b", "vanish", "1", &[("app", "web")]));

    let diff = writer.replace([
        cm("a", "keep", "1", &[("app", "web")]),
        cm("a", "change", "7", &[("app", "db")]),
        cm("c", "new", "7", &[]),
    ]);
    assert_eq!(names(diff.added), ["c/new"]);
    assert_eq!(diff.updated.len(), 1);
    assert_eq!(
        diff.updated[0].0.metadata.resource_version.as_deref(),
        Some("1")
    );
    assert_eq!(diff.unchanged.len(), 1);
    assert_eq!(names(diff.deleted), ["b/vanish"]);

    let rvs: BTreeMap<String, String> = store
        .list()
        .iter()
        .map(|o| {
            (
                ObjectKey::of(o.as_ref()).to_string(),
                o.metadata.resource_version.clone().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rvs,
        BTreeMap::from([
            ("a/change".to_string(), "7".to_string()),
            ("a/keep".to_string(), "1".to_string()),
            ("c/new".to_string(), "7".to_string()),
        ])
    );
    assert_eq!(names(store.by_index(&by_app, "web")), ["a/keep"]);
    assert!(store.list_namespace(Some("b")).is_empty());
    assert_eq!(store.len(), 3);
}

fn with_uid(object: Arc<ConfigMap>, uid: &str) -> Arc<ConfigMap> {
    let mut object = Arc::unwrap_or_clone(object);
    object.metadata.uid = Some(uid.into());
    Arc::new(object)
}

#[test]
fn replace_reports_an_object_recreated_under_its_name_as_deleted_and_added() {
    let (store, mut writer) = Store::<ConfigMap>::new();
    writer.insert(with_uid(cm("a", "again", "1", &[]), "uid-1"));
    writer.insert(with_uid(cm("a", "same", "2", &[]), "uid-2"));
    let diff = writer.replace([
        with_uid(cm("a", "again", "5", &[]), "uid-5"),
        with_uid(cm("a", "same", "6", &[]), "uid-2"),
    ]);
    assert_eq!(names(diff.deleted.clone()), ["a/again"]);
    assert_eq!(diff.deleted[0].metadata.uid.as_deref(), Some("uid-1"));
    assert_eq!(names(diff.added.clone()), ["a/again"]);
    assert_eq!(diff.added[0].metadata.uid.as_deref(), Some("uid-5"));
    assert_eq!(diff.updated.len(), 1, "same uid, new resourceVersion");
    assert_eq!(store.len(), 2);
}

#[test]
fn index_added_late_is_backfilled_and_survives_replace() {
    let (store, mut writer) = Store::<ConfigMap>::new();
    writer.insert(cm("a", "x", "1", &[("app", "web")]));
    let by_app = store.add_index("app", app_label);
    assert_eq!(names(store.by_index(&by_app, "web")), ["a/x"]);
    writer.replace([cm("a", "y", "2", &[("app", "web")])]);
    assert_eq!(names(store.by_index(&by_app, "web")), ["a/y"]);
    assert_eq!(
        store.index_keys(&by_app, "web"),
        [ObjectKey::namespaced("a", "y")]
    );
}

#[test]
fn emptied_index_values_are_dropped() {
    let mut builder = Store::<ConfigMap>::builder();
    builder.index("app", app_label);
    let (_store, mut writer) = builder.build();
    writer.insert(cm("a", "x", "1", &[("app", "web")]));
    writer.remove(&ObjectKey::namespaced("a", "x"));
    assert_eq!(writer.index_entry_count(), 0);
}

#[test]
fn cluster_scoped_objects_live_under_no_namespace() {
    let (store, mut writer) = Store::<ConfigMap>::new();
    let mut obj = (*cm("", "global", "1", &[])).clone();
    obj.metadata.namespace = None;
    writer.insert(Arc::new(obj));
    assert!(store.get_in(None, "global").is_some());
    assert_eq!(store.keys(), [ObjectKey::cluster("global")]);
    assert_eq!(store.list_namespace(None).len(), 1);
}

#[test]
#[cfg_attr(debug_assertions, should_panic(expected = "did not issue it"))]
fn foreign_handle_finds_nothing() {
    let mut b1 = Store::<ConfigMap>::builder();
    let h1 = b1.index("app", app_label);
    let (_s1, _w1) = b1.build();
    let mut b2 = Store::<ConfigMap>::builder();
    b2.index("app", app_label);
    let (s2, mut w2) = b2.build();
    w2.insert(cm("a", "x", "1", &[("app", "web")]));
    assert!(s2.by_index(&h1, "web").is_empty());
}

#[test]
fn readers_see_whole_states_during_concurrent_replace() {
    let (store, mut writer) = Store::<ConfigMap>::new();
    let generation =
        |g: usize| (0..200).map(move |i| cm("ns", &format!("o{i}"), &g.to_string(), &[]));
    writer.replace(generation(0));
    let reader = std::thread::spawn(move || {
        for _ in 0..200 {
            let objects = store.list();
            assert_eq!(objects.len(), 200);
            let first = objects[0].metadata.resource_version.clone();
            assert!(objects.iter().all(|o| o.metadata.resource_version == first));
        }
    });
    for g in 1..50 {
        writer.replace(generation(g));
    }
    reader.join().unwrap();
}
