//! `example.com/v1`: a namespaced kind without subresources, and two kinds whose clients
//! offer only some verbs (a read-only one and one with an explicit verb list).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Settings, like a ConfigMap.
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(group = "example.com", version = "v1")]
pub struct Setting {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The settings.
    pub data: BTreeMap<String, String>,
}

/// A reading something else writes: clients only read it (`readonly`: get, list, watch).
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(group = "example.com", version = "v1", readonly)]
pub struct Gauge {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The reading.
    pub spec: GaugeSpec,
}

/// A gauge's reading.
#[derive(Debug, Default, PartialEq, DeepCopy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GaugeSpec {
    /// The value read.
    pub value: i64,
    /// The unit of `value`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_name: Option<String>,
}

/// A ticket is opened, read and closed, never edited (`verbs(get, list, create, delete)`).
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(
    group = "example.com",
    version = "v1",
    verbs(get, list, create, delete)
)]
pub struct Ticket {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// What the ticket asks.
    pub spec: TicketSpec,
}

/// What a ticket asks.
#[derive(Debug, Default, PartialEq, DeepCopy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketSpec {
    /// A one-line summary.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
}

/// How urgent a ticket is.
#[derive(Debug, Default, PartialEq, Eq, DeepCopy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Whenever.
    #[default]
    Low,
    /// Now.
    High,
}
