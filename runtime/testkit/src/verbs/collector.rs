//! The collection of dangling dependents, as kube-controller-manager's garbage collector
//! does it for owners it has never seen ("virtual" nodes of its graph, attemptToDelete):
//! an object written with ownerReferences is looked at after the write, and each owner
//! is looked up live by its `apiVersion`, `kind` and `name` (in the dependent's namespace
//! for a namespaced owner): not found, or found with another uid, it is dangling. When
//! every owner is dangling the dependent is deleted (background propagation); when some
//! exist, the dangling references are removed. An owner whose kind is not served is
//! neither: the dependent is left as it is (the real collector retries until it can tell).
//!
//! Deletion of an owner collects the dependents that exist at that moment
//! (`deletion.rs`); this collects those written afterwards for an owner already gone.
//! The server runs it on its own task, after the write has been answered, as a cluster
//! does (`ApiServerConfig::collect_dangling_dependents`).

use serde_json::Value;

use crate::store::meta::meta_str;
use crate::store::storage::{Cluster, OwnedWrite};
use crate::verbs::deletion::{self, Propagation};

/// What the collector did with one written object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collected {
    /// Every owner exists (or cannot be told): nothing to do.
    Kept,
    /// Some owners exist, the others' references were removed.
    ReferencesRemoved,
    /// Every owner was gone: the object was deleted.
    Deleted,
    /// The object is gone, or is another one now (uid), or holds no references.
    Skipped,
}

/// Looks at every object written with ownerReferences since the last call (oldest
/// first), under the cluster lock the caller holds. Returns what was done, per write.
pub(crate) fn collect_dangling(cluster: &mut Cluster) -> Vec<(OwnedWrite, Collected)> {
    cluster
        .take_owned_writes()
        .into_iter()
        .map(|write| {
            let collected = collect_one(cluster, &write);
            (write, collected)
        })
        .collect()
}

/// Whether an ownerReference names an owner that is gone: `Some(true)` dangling,
/// `Some(false)` present, `None` its kind is not served.
fn dangling(cluster: &Cluster, namespace: &str, reference: &Value) -> Option<bool> {
    let field = |name: &str| reference.get(name).and_then(Value::as_str);
    let rt = cluster
        .registry
        .by_kind(field("apiVersion")?, field("kind")?)?;
    let namespace = if rt.namespaced { namespace } else { "" };
    let owner = cluster.get(&rt.storage_key(), namespace, field("name")?);
    Some(owner.is_none_or(|owner| meta_str(&owner, "uid") != field("uid")))
}

fn collect_one(cluster: &mut Cluster, write: &OwnedWrite) -> Collected {
    let (namespace, name) = &write.key;
    let Some(object) = cluster.get(&write.storage, namespace, name) else {
        return Collected::Skipped;
    };
    if meta_str(&object, "uid") != Some(write.uid.as_str()) {
        return Collected::Skipped;
    }
    let Some(references) = object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .filter(|refs| !refs.is_empty())
    else {
        return Collected::Skipped;
    };
    let verdicts: Vec<Option<bool>> = references
        .iter()
        .map(|reference| dangling(cluster, namespace, reference))
        .collect();
    if verdicts.iter().all(|v| *v == Some(true)) {
        let Some(rt) = cluster.registry.any_version(&write.storage) else {
            return Collected::Skipped;
        };
        // No preconditions are involved (the uid was checked under the same lock):
        // deleting cannot fail.
        let _ = deletion::delete_object(cluster, &rt, object, Propagation::Cascade);
        return Collected::Deleted;
    }
    if !verdicts.contains(&Some(true)) {
        return Collected::Kept;
    }
    let kept: Vec<Value> = references
        .iter()
        .zip(&verdicts)
        .filter(|(_, verdict)| **verdict != Some(true))
        .map(|(reference, _)| reference.clone())
        .collect();
    let mut updated = (*object).clone();
    updated["metadata"]["ownerReferences"] = Value::Array(kept);
    cluster.update(&write.storage, updated, object);
    Collected::ReferencesRemoved
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::registry::StorageKey;

    fn configmaps() -> StorageKey {
        StorageKey {
            group: String::new(),
            plural: "configmaps".to_owned(),
        }
    }

    fn owner_ref(name: &str, uid: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid})
    }

    fn configmap(name: &str, uid: &str, owners: &[Value]) -> Value {
        let mut object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "default", "name": name, "uid": uid},
        });
        if !owners.is_empty() {
            object["metadata"]["ownerReferences"] = json!(owners);
        }
        object
    }

    fn exists(cluster: &Cluster, name: &str) -> bool {
        cluster.get(&configmaps(), "default", name).is_some()
    }

    fn verdicts(cluster: &mut Cluster) -> Vec<(String, Collected)> {
        collect_dangling(cluster)
            .into_iter()
            .map(|(write, collected)| (write.key.1, collected))
            .collect()
    }

    #[test]
    fn dependents_of_missing_or_replaced_owners_are_deleted_others_kept() {
        let mut cluster = Cluster::new(100);
        let _signal = cluster.queue_owned_writes();
        cluster.create(&configmaps(), configmap("owner", "u-owner", &[]));
        let live = owner_ref("owner", "u-owner");
        let replaced = owner_ref("owner", "u-before");
        let missing = owner_ref("nobody", "u-nobody");
        let unserved =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "u-w"});
        cluster.create(
            &configmaps(),
            configmap("kept", "1", std::slice::from_ref(&live)),
        );
        cluster.create(
            &configmaps(),
            configmap("gone", "2", std::slice::from_ref(&missing)),
        );
        cluster.create(&configmaps(), configmap("stale", "3", &[replaced]));
        cluster.create(&configmaps(), configmap("mixed", "4", &[live, missing]));
        cluster.create(&configmaps(), configmap("unknown", "5", &[unserved]));
        assert_eq!(
            verdicts(&mut cluster),
            [
                ("kept".to_owned(), Collected::Kept),
                ("gone".to_owned(), Collected::Deleted),
                ("stale".to_owned(), Collected::Deleted),
                ("mixed".to_owned(), Collected::ReferencesRemoved),
                ("unknown".to_owned(), Collected::Kept),
            ]
        );
        assert!(exists(&cluster, "kept") && exists(&cluster, "unknown"));
        assert!(!exists(&cluster, "gone") && !exists(&cluster, "stale"));
        let mixed = cluster
            .get(&configmaps(), "default", "mixed")
            .expect("mixed stays");
        assert_eq!(
            mixed["metadata"]["ownerReferences"],
            json!([owner_ref("owner", "u-owner")])
        );
        // The update that removed a reference is itself a write with owners: looked at
        // again, it is kept.
        assert_eq!(
            verdicts(&mut cluster),
            [("mixed".to_owned(), Collected::Kept)]
        );
    }

    #[test]
    fn an_object_replaced_or_deleted_before_it_is_looked_at_is_skipped() {
        let mut cluster = Cluster::new(100);
        let _signal = cluster.queue_owned_writes();
        let missing = owner_ref("nobody", "u-nobody");
        let first = cluster.create(
            &configmaps(),
            configmap("a", "1", std::slice::from_ref(&missing)),
        );
        let last = (*first).clone();
        cluster.delete(&configmaps(), last, first);
        cluster.create(&configmaps(), configmap("a", "2", &[]));
        assert_eq!(
            verdicts(&mut cluster),
            [("a".to_owned(), Collected::Skipped)]
        );
        assert!(exists(&cluster, "a"), "the new object of that name stays");
    }

    #[test]
    fn nothing_is_queued_unless_asked() {
        let mut cluster = Cluster::new(100);
        let missing = owner_ref("nobody", "u-nobody");
        cluster.create(&configmaps(), configmap("gone", "1", &[missing]));
        assert!(verdicts(&mut cluster).is_empty());
        assert!(exists(&cluster, "gone"));
    }

    #[test]
    fn dry_runs_are_not_queued() {
        let mut cluster = Cluster::new(100);
        let _signal = cluster.queue_owned_writes();
        cluster.set_dry_run(true);
        let missing = owner_ref("nobody", "u-nobody");
        cluster.create(&configmaps(), configmap("gone", "1", &[missing]));
        cluster.set_dry_run(false);
        assert!(verdicts(&mut cluster).is_empty());
    }
}
