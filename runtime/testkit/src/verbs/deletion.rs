//! Deletion: preconditions, finalizers and deletionTimestamp, collections, and the
//! cascades of namespace and CRD deletion.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::store::meta::{self, meta_str};
use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::storage::{self, Cluster};
use crate::verbs::crd;
use crate::verbs::generation;
use crate::verbs::place::{Place, existing, namespaces_key};

/// What happens to dependents (objects whose ownerReferences name the deleted one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Propagation {
    /// Dependents are deleted too (`Background`, and `Foreground` which is served the
    /// same way: dependents go first, synchronously).
    #[default]
    Cascade,
    /// Dependents stay, with the owner reference removed.
    Orphan,
}

/// Validated `DeleteOptions`.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeleteOptions {
    uid: Option<String>,
    resource_version: Option<String>,
    pub(crate) propagation: Propagation,
    /// `dryRun: ["All"]` in the body.
    pub(crate) dry_run: bool,
}

impl DeleteOptions {
    /// Reads a `DeleteOptions` body (empty allowed) merged with query parameters.
    pub(crate) fn parse(body: &[u8], propagation_query: Option<&str>) -> ApiResult<Self> {
        let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
            json!({})
        } else {
            serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?
        };
        let policy = body
            .get("propagationPolicy")
            .and_then(Value::as_str)
            .or(propagation_query);
        if let Some(policy) = policy
            && !matches!(policy, "Orphan" | "Background" | "Foreground")
        {
            let cause = Cause::new(
                "FieldValueNotSupported",
                "propagationPolicy",
                format!(
                    "Unsupported value: {policy:?}: supported values: \"Foreground\", \"Background\", \"Orphan\""
                ),
            );
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "DeleteOptions",
                "",
                vec![cause],
            ));
        }
        let precondition = |field: &str| {
            body.pointer(&format!("/preconditions/{field}"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let orphan = policy == Some("Orphan")
            || (policy.is_none()
                && body.get("orphanDependents").and_then(Value::as_bool) == Some(true));
        Ok(Self {
            uid: precondition("uid"),
            resource_version: precondition("resourceVersion"),
            dry_run: body
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|modes| modes.iter().any(|m| m == "All")),
            propagation: if orphan {
                Propagation::Orphan
            } else {
                Propagation::Cascade
            },
        })
    }
}

/// DELETE: removes an object, or marks it deleted while finalizers remain.
pub(crate) fn delete(
    cluster: &mut Cluster,
    place: &Place<'_>,
    name: &str,
    options: &DeleteOptions,
) -> ApiResult<Arc<Value>> {
    let old = existing(cluster, place, name)?;
    let actual_uid = meta_str(&old, "uid").unwrap_or_default();
    if let Some(uid) = options.uid.as_deref().filter(|uid| *uid != actual_uid) {
        return Err(ApiError::conflict(
            place.subject(name),
            format!(
                "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual_uid}"
            ),
        ));
    }
    let actual_rv = meta_str(&old, "resourceVersion").unwrap_or_default();
    if let Some(rv) = options
        .resource_version
        .as_deref()
        .filter(|rv| *rv != actual_rv)
    {
        return Err(ApiError::conflict(
            place.subject(name),
            format!(
                "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {actual_rv}"
            ),
        ));
    }
    delete_object(cluster, place.rt, old, options.propagation)
}

/// Deletes one object without preconditions (used by collections and cascades).
pub(crate) fn delete_object(
    cluster: &mut Cluster,
    rt: &ResourceType,
    old: Arc<Value>,
    propagation: Propagation,
) -> ApiResult<Arc<Value>> {
    // Cascades may already have removed or changed it: work on the stored object.
    let (namespace, name) = storage::object_key(&old);
    let Some(old) = cluster.get(&rt.storage_key(), &namespace, &name) else {
        return Ok(old);
    };
    let has_finalizers = old
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    if has_finalizers {
        if meta_str(&old, "deletionTimestamp").is_some() {
            return Ok(old);
        }
        let mut marked = (*old).clone();
        marked["metadata"]["deletionTimestamp"] = json!(meta::now_rfc3339());
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        generation::on_deletion_mark(&mut marked);
        return Ok(cluster.update(&rt.storage_key(), marked, old));
    }
    if rt.group.is_empty() && rt.plural == "namespaces" {
        let name = meta_str(&old, "name").unwrap_or_default().to_owned();
        if !empty_namespace(cluster, &name) {
            return Ok(terminate_namespace(cluster, old));
        }
    }
    let last = (*old).clone();
    Ok(remove(cluster, rt, last, old, propagation))
}

/// Removes an object for good and runs the cascades that follow.
pub(crate) fn remove(
    cluster: &mut Cluster,
    rt: &ResourceType,
    last: Value,
    old: Arc<Value>,
    propagation: Propagation,
) -> Arc<Value> {
    let storage = rt.storage_key();
    let namespace = meta_str(&old, "namespace").unwrap_or_default().to_owned();
    let removed = cluster.delete(&storage, last, old);
    if crd::is_crd(rt) {
        crd::unregister(cluster, &removed);
    }
    if let Some(uid) = meta_str(&removed, "uid") {
        collect_garbage(cluster, uid, propagation);
    }
    if !namespace.is_empty() {
        finish_namespace_if_empty(cluster, &namespace);
    }
    removed
}

/// Marks a namespace Terminating and deletes its contents; objects with finalizers keep
/// it alive until they are gone.
fn terminate_namespace(cluster: &mut Cluster, namespace: Arc<Value>) -> Arc<Value> {
    let name = meta_str(&namespace, "name").unwrap_or_default().to_owned();
    let mut terminating = (*namespace).clone();
    terminating["metadata"]["deletionTimestamp"] = json!(meta::now_rfc3339());
    terminating["metadata"]["deletionGracePeriodSeconds"] = json!(0);
    terminating["status"]["phase"] = json!("Terminating");
    let terminating = cluster.update(&namespaces_key(), terminating, namespace);
    for (storage, objects) in cluster.stores_with_namespace(&name) {
        let Some(rt) = cluster.registry.any_version(&storage) else {
            continue;
        };
        for object in objects {
            // Deleting contents cannot fail: no preconditions are involved.
            let _ = delete_object(cluster, &rt, object, Propagation::Cascade);
        }
    }
    cluster
        .get(&namespaces_key(), "", &name)
        .unwrap_or(terminating)
}

fn empty_namespace(cluster: &Cluster, namespace: &str) -> bool {
    cluster.stores_with_namespace(namespace).is_empty()
}

fn finish_namespace_if_empty(cluster: &mut Cluster, namespace: &str) {
    let Some(ns) = cluster.get(&namespaces_key(), "", namespace) else {
        return;
    };
    if meta_str(&ns, "deletionTimestamp").is_some() && empty_namespace(cluster, namespace) {
        let last = (*ns).clone();
        cluster.delete(&namespaces_key(), last, ns);
    }
}

/// What the garbage collector does once an owner is gone, done synchronously: dependents
/// (objects with an ownerReference to `owner_uid`) are deleted, or orphaned by removing
/// that reference.
fn collect_garbage(cluster: &mut Cluster, owner_uid: &str, propagation: Propagation) {
    for (storage, dependent) in cluster.dependents_of(owner_uid) {
        let Some(rt) = cluster.registry.any_version(&storage) else {
            continue;
        };
        match propagation {
            Propagation::Cascade => {
                // No preconditions are involved: deleting a dependent cannot fail.
                let _ = delete_object(cluster, &rt, dependent, Propagation::Cascade);
            }
            Propagation::Orphan => {
                let mut orphaned = (*dependent).clone();
                if let Some(references) = orphaned["metadata"]["ownerReferences"].as_array_mut() {
                    references.retain(|r| r.get("uid").and_then(Value::as_str) != Some(owner_uid));
                    if references.is_empty()
                        && let Some(metadata) = orphaned["metadata"].as_object_mut()
                    {
                        metadata.remove("ownerReferences");
                    }
                }
                cluster.update(&storage, orphaned, dependent);
            }
        }
    }
}

/// Deletes every object of a type (optionally in one namespace) matching `matching`.
pub(crate) fn delete_collection(
    cluster: &mut Cluster,
    rt: &ResourceType,
    matching: impl Fn(&Value) -> bool,
    propagation: Propagation,
) -> ApiResult<Vec<Arc<Value>>> {
    let targets: Vec<Arc<Value>> = cluster
        .current(&rt.storage_key())
        .values()
        .filter(|o| matching(o))
        .cloned()
        .collect();
    targets
        .into_iter()
        .map(|object| delete_object(cluster, rt, object, propagation))
        .collect()
}
