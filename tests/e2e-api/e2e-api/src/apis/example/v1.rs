//! `example.com/v1`: a namespaced kind without subresources.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};

/// Settings, like a ConfigMap.
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(group = "example.com", version = "v1")]
pub struct Setting {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The settings.
    pub data: BTreeMap<String, String>,
}
