//! `metadata.generation`: set on create, bumped on update and on the deletion mark, as
//! the kind's registry strategy in kube-apiserver does it ([`Generation`] has the table
//! and its sources).

use serde_json::{Value, json};

use crate::store::registry::{Generation, ResourceType};

/// On create: 1 for kinds with a generation (a body's value is replaced); a body's value
/// is kept for the others, as a real server keeps it.
pub(crate) fn on_create(rt: &ResourceType, object: &mut Value) {
    if rt.generation != Generation::Unset {
        object["metadata"]["generation"] = json!(1);
    }
}

/// On an update of the main resource (not of `/status`, whose writes keep `old`'s):
/// `old`'s generation, bumped when what the kind counts changed. A request cannot set it.
pub(crate) fn on_update(rt: &ResourceType, old: &Value, new: &mut Value) {
    let stored = old.pointer("/metadata/generation").and_then(Value::as_i64);
    let generation = if changed(rt, old, new) {
        Some(stored.unwrap_or(0) + 1)
    } else {
        stored
    };
    match generation {
        Some(generation) => new["metadata"]["generation"] = json!(generation),
        None => {
            if let Some(metadata) = new["metadata"].as_object_mut() {
                metadata.remove("generation");
            }
        }
    }
}

/// On marking an object with finalizers as deleted: a set generation is bumped
/// (`markAsDeleting` in the generic registry store); kinds without one get none.
pub(crate) fn on_deletion_mark(marked: &mut Value) {
    if let Some(generation) = marked
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .filter(|g| *g > 0)
    {
        marked["metadata"]["generation"] = json!(generation + 1);
    }
}

/// Whether `new` differs from `old` in what bumps the kind's generation.
fn changed(rt: &ResourceType, old: &Value, new: &Value) -> bool {
    match rt.generation {
        Generation::Unset => false,
        Generation::Spec => old.get("spec") != new.get("spec"),
        Generation::SpecOrAnnotations => {
            old.get("spec") != new.get("spec")
                || !same_map(
                    old.pointer("/metadata/annotations"),
                    new.pointer("/metadata/annotations"),
                )
        }
        Generation::AllButMetadata => {
            let strip = |object: &Value| {
                let mut object = object.clone();
                if let Some(map) = object.as_object_mut() {
                    map.remove("metadata");
                    map.remove("apiVersion");
                    map.remove("kind");
                    if rt.status {
                        map.remove("status");
                    }
                }
                object
            };
            strip(old) != strip(new)
        }
    }
}

/// Whether two optional JSON maps are equal, an absent or `null` map being an empty one
/// (Go's `apiequality.Semantic.DeepEqual` holds a nil map equal to an empty one).
fn same_map(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a.and_then(Value::as_object), b.and_then(Value::as_object)) {
        (Some(a), Some(b)) => a == b,
        (Some(map), None) | (None, Some(map)) => map.is_empty(),
        (None, None) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    fn rt(group: &str, plural: &str) -> ResourceType {
        let registry = Registry::with_built_ins();
        let rt = registry.get(group, "v1", plural).expect("a built-in");
        (*rt).clone()
    }

    /// `old` updated to `new` by the main resource: the generation stored.
    fn updated(rt: &ResourceType, old: &Value, mut new: Value) -> Option<i64> {
        on_update(rt, old, &mut new);
        new.pointer("/metadata/generation").and_then(Value::as_i64)
    }

    #[test]
    fn the_table_follows_the_registry_strategies() {
        for (group, plural, generation) in [
            ("", "configmaps", Generation::Unset),
            ("", "secrets", Generation::Unset),
            ("", "namespaces", Generation::Unset),
            ("", "services", Generation::Unset),
            ("", "endpoints", Generation::Unset),
            (
                "discovery.k8s.io",
                "endpointslices",
                Generation::AllButMetadata,
            ),
            ("", "events", Generation::Unset),
            ("events.k8s.io", "events", Generation::Unset),
            ("coordination.k8s.io", "leases", Generation::Unset),
            ("", "pods", Generation::Spec),
            ("apps", "replicasets", Generation::Spec),
            ("apps", "deployments", Generation::SpecOrAnnotations),
            (
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                Generation::Spec,
            ),
        ] {
            assert_eq!(rt(group, plural).generation, generation, "{group}/{plural}");
        }
    }

    #[test]
    fn kinds_without_a_generation_never_get_one() {
        let configmaps = rt("", "configmaps");
        let mut created = json!({"metadata": {"name": "a"}, "data": {"k": "1"}});
        on_create(&configmaps, &mut created);
        assert_eq!(created.pointer("/metadata/generation"), None);
        let changed = json!({"metadata": {"name": "a", "generation": 7}, "data": {"k": "2"}});
        assert_eq!(
            updated(&configmaps, &created, changed),
            None,
            "a request cannot set it"
        );
        // A value a client sent on create is kept, and updates keep it.
        let mut sent = json!({"metadata": {"name": "a", "generation": 5}});
        on_create(&configmaps, &mut sent);
        assert_eq!(sent["metadata"]["generation"], 5);
        assert_eq!(
            updated(&configmaps, &sent, json!({"metadata": {}, "data": {}})),
            Some(5)
        );
        let mut marked = created.clone();
        on_deletion_mark(&mut marked);
        assert_eq!(marked.pointer("/metadata/generation"), None);
    }

    #[test]
    fn deployments_count_spec_and_annotations() {
        let deployments = rt("apps", "deployments");
        let mut old =
            json!({"metadata": {"name": "web", "generation": 99}, "spec": {"replicas": 1}});
        on_create(&deployments, &mut old);
        assert_eq!(old["metadata"]["generation"], 1, "create sets 1");
        let relabelled = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"replicas": 1}, "status": {"replicas": 1}});
        assert_eq!(updated(&deployments, &old, relabelled), Some(1));
        let empty_annotations = json!({"metadata": {"annotations": {}}, "spec": {"replicas": 1}});
        assert_eq!(updated(&deployments, &old, empty_annotations), Some(1));
        let annotated = json!({"metadata": {"annotations": {"a": "b"}}, "spec": {"replicas": 1}});
        assert_eq!(updated(&deployments, &old, annotated), Some(2));
        let scaled = json!({"metadata": {}, "spec": {"replicas": 2}});
        assert_eq!(updated(&deployments, &old, scaled), Some(2));
        let mut marked = old.clone();
        on_deletion_mark(&mut marked);
        assert_eq!(marked["metadata"]["generation"], 2);
    }

    #[test]
    fn spec_kinds_count_spec_only() {
        let pods = rt("", "pods");
        let old = json!({"metadata": {"generation": 3}, "spec": {"nodeName": "a"}});
        let annotated = json!({"metadata": {"annotations": {"a": "b"}}, "spec": {"nodeName": "a"}});
        assert_eq!(updated(&pods, &old, annotated), Some(3));
        let moved = json!({"metadata": {}, "spec": {"nodeName": "b"}});
        assert_eq!(updated(&pods, &old, moved), Some(4));
    }

    #[test]
    fn custom_resources_count_everything_but_metadata() {
        let mut with_status = rt("", "configmaps");
        with_status.custom = true;
        with_status.status = true;
        with_status.generation = Generation::AllButMetadata;
        let mut without_status = with_status.clone();
        without_status.status = false;
        let old = json!({"metadata": {"generation": 1}, "spec": {"a": 1}});
        let status = json!({"metadata": {}, "spec": {"a": 1}, "status": {"ok": true}});
        assert_eq!(updated(&with_status, &old, status.clone()), Some(1));
        assert_eq!(updated(&without_status, &old, status), Some(2));
        let other = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"a": 1}, "data": 1});
        assert_eq!(updated(&with_status, &old, other), Some(2));
    }
}
