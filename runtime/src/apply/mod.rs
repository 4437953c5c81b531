//! Typed server-side apply: the [`ApplyConfiguration`] trait that links an apply
//! configuration (kubegen's generated `FooApply`, every field optional) to its kind, and
//! [`extract`], which rebuilds the apply configuration a field manager owns from a live
//! object's `metadata.managedFields`, as client-go's `ExtractFoo(obj, fieldManager)`.
//! [`FieldSet`] is the one reader and writer of `fieldsV1` field sets, shared with the
//! testkit's API server, which keeps its server-side apply ownership in them.
//! [`ApplyMetadata`] holds the object metadata setters of every generated apply
//! configuration (`with_labels`, `with_annotations`, `with_owner_references`,
//! `with_finalizers`, ...).
//!
//! [`TypedClient::apply`](crate::client::TypedClient::apply) takes any
//! `ApplyConfiguration<K>`: a generated `FooApply` (only what was set is sent, so only
//! that is claimed) or a whole `K` (which claims every field it serializes).
//!
//! ```
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry, ObjectMeta};
//! use kubegen_runtime::apply::extract;
//! use serde_json::json;
//!
//! let live = ConfigMap {
//!     metadata: ObjectMeta {
//!         name: Some("settings".into()),
//!         namespace: Some("default".into()),
//!         managed_fields: Some(vec![ManagedFieldsEntry {
//!             manager: Some("tuner".into()),
//!             operation: Some("Apply".into()),
//!             fields_v1: Some(FieldsV1(json!({"f:data": {"f:level": {}}}))),
//!             ..Default::default()
//!         }]),
//!         ..Default::default()
//!     },
//!     data: Some([("level".into(), "3".into()), ("other".into(), "x".into())].into()),
//!     ..Default::default()
//! };
//! // A whole ConfigMap is its own apply configuration; generated `FooApply`s work alike.
//! let owned: ConfigMap = extract(&live, "tuner", "")?;
//! assert_eq!(owned.data, Some([("level".into(), "3".into())].into()));
//! assert_eq!(owned.metadata.name.as_deref(), Some("settings"));
//! assert!(owned.metadata.managed_fields.is_none());
//! # Ok::<(), kubegen_runtime::apply::ExtractError>(())
//! ```

mod fields;
mod fieldset;
mod metadata;

use std::fmt::Debug;

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use fields::owned_fields;
pub use fieldset::{Element, FieldSet, FieldsError, Path, path_string};
pub use metadata::ApplyMetadata;

/// What server-side apply of a `K` sends: a generated apply configuration of `K`, or a
/// whole `K` (blanket impl).
///
/// Only what the value serializes is sent, and the field manager owns exactly that; an
/// apply configuration leaves unset fields out, a whole object sends every field it has.
pub trait ApplyConfiguration<K>: Serialize + Debug {
    /// The name of the object to apply (`metadata.name`; empty when unset, which the
    /// server refuses).
    fn object_name(&self) -> &str;
}

impl<K> ApplyConfiguration<K> for K
where
    K: Resource + Serialize + Debug,
{
    fn object_name(&self) -> &str {
        self.meta().name.as_deref().unwrap_or_default()
    }
}

/// Why an apply configuration could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The object's `metadata.managedFields` has no `Apply` entry of this manager for
    /// this subresource.
    #[error(
        "failed to extract the fields of manager `{manager}`{}: metadata.managedFields has no Apply entry for it",
        subresource_suffix(subresource)
    )]
    NoManager {
        /// The field manager.
        manager: String,
        /// The subresource (`""` for the main resource).
        subresource: String,
    },
    /// The manager's `fieldsV1` is not a valid field set.
    #[error("failed to extract the fields of manager `{manager}`")]
    Fields {
        /// The field manager.
        manager: String,
        /// What is wrong with the field set.
        #[source]
        source: FieldsError,
    },
    /// The object could not be serialized, or its owned part not read back as the apply
    /// configuration.
    #[error("failed to convert the fields of manager `{manager}` to an apply configuration")]
    Convert {
        /// The field manager.
        manager: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

fn subresource_suffix(subresource: &str) -> String {
    if subresource.is_empty() {
        String::new()
    } else {
        format!(" on subresource `{subresource}`")
    }
}

/// The apply configuration `field_manager` owns in `object`: exactly the fields its
/// `Apply` entry of `metadata.managedFields` for `subresource` (`""` for the main
/// resource, `"status"`) lists, plus `apiVersion`, `kind`, `metadata.name` and
/// `metadata.namespace`, read back as `A`. Applying the result again as the same manager
/// changes nothing.
///
/// Fails with [`ExtractError::NoManager`] when the manager has no such entry (it never
/// applied to this object, or only wrote with update/patch operations). Extract from an
/// object read from the server: informers drop `managedFields` from the objects they
/// cache unless told to keep them
/// ([`ReflectorConfig::keep_managed_fields`](crate::reflector::ReflectorConfig::keep_managed_fields)).
pub fn extract<K, A>(object: &K, field_manager: &str, subresource: &str) -> Result<A, ExtractError>
where
    K: Resource + Serialize,
    A: DeserializeOwned,
{
    let entry = object
        .meta()
        .managed_fields
        .iter()
        .flatten()
        .find(|entry| {
            entry.manager.as_deref() == Some(field_manager)
                && entry.operation.as_deref() == Some("Apply")
                && entry.subresource.as_deref().unwrap_or_default() == subresource
        })
        .ok_or_else(|| ExtractError::NoManager {
            manager: field_manager.to_owned(),
            subresource: subresource.to_owned(),
        })?;
    let convert = |source| ExtractError::Convert {
        manager: field_manager.to_owned(),
        source,
    };
    let full = serde_json::to_value(object).map_err(convert)?;
    let empty = Value::Object(Default::default());
    let set = entry.fields_v1.as_ref().map_or(&empty, |f| &f.0);
    let set = FieldSet::from_json(set).map_err(|source| ExtractError::Fields {
        manager: field_manager.to_owned(),
        source,
    })?;
    let mut owned = owned_fields(&full, &set);
    if let Value::Object(map) = &mut owned {
        for key in ["apiVersion", "kind"] {
            if let Some(value) = full.get(key) {
                map.insert(key.to_owned(), value.clone());
            }
        }
        let meta = map
            .entry("metadata")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(meta) = meta {
            for key in ["name", "namespace"] {
                if let Some(value) = full.get("metadata").and_then(|m| m.get(key)) {
                    meta.insert(key.to_owned(), value.clone());
                }
            }
        }
    }
    serde_json::from_value(owned).map_err(convert)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
