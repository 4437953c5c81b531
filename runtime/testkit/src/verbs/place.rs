//! Where an object lives, which part of it a write may change, and how it is found and
//! served: the one module the writes (objects), deletions and field ownership use.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::store::registry::{ResourceType, StorageKey};
use crate::store::status::{ApiError, ApiResult, Cause, Subject};
use crate::store::storage::Cluster;

/// Where an object lives: its type and, for namespaced types, its namespace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    pub(crate) rt: &'a ResourceType,
    /// The request's namespace ("" for cluster-scoped types).
    pub(crate) namespace: &'a str,
}

impl<'a> Place<'a> {
    /// The object `name` of this type, as errors name it.
    pub(crate) fn subject(&self, name: &'a str) -> Subject<'a> {
        Subject {
            group: &self.rt.group,
            resource: &self.rt.plural,
            name,
        }
    }

    /// 422 Invalid for the object `name` of this type.
    pub(crate) fn invalid(&self, name: &str, causes: Vec<Cause>) -> ApiError {
        ApiError::invalid(&self.rt.group, &self.rt.kind, name, causes)
    }
}

/// Where namespaces are stored.
pub(crate) fn namespaces_key() -> StorageKey {
    StorageKey {
        group: String::new(),
        plural: "namespaces".to_owned(),
    }
}

/// The object as served in `rt`'s version.
pub(crate) fn render(object: &Value, rt: &ResourceType) -> Value {
    let mut object = object.clone();
    if object.is_object() {
        object["apiVersion"] = json!(rt.api_version());
        object["kind"] = json!(rt.kind);
    }
    object
}

/// The current object or 404.
pub(crate) fn existing(cluster: &Cluster, place: &Place<'_>, name: &str) -> ApiResult<Arc<Value>> {
    cluster
        .get(&place.rt.storage_key(), place.namespace, name)
        .ok_or_else(|| ApiError::not_found(place.subject(name)))
}

/// Which part of an object a write may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The main resource (status changes ignored when a status subresource exists).
    Main,
    /// The `status` subresource (only status changes kept).
    Status,
}
