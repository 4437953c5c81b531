//! `derived.kubegen.io/v1`: the `Gizmo` of today, the hub of its conversions.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::Tier;

/// A Gizmo.
#[derive(Debug, Default, PartialEq, DeepCopy, Resource)]
#[resource(group = "derived.kubegen.io", version = "v1", storage, status)]
pub struct Gizmo {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// Desired state.
    pub spec: GizmoSpec,
    /// Observed state.
    pub status: Option<GizmoStatus>,
}

/// What a Gizmo wants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GizmoSpec {
    /// How big.
    pub size: i32,
    /// Its color.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The owner's first name.
    pub owner_first_name: String,
    /// The owner's last name, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_last_name: Option<String>,
    /// Free labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Its ports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<GizmoPort>,
    /// When it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<GizmoSchedule>,
    /// Where it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
}

/// When a Gizmo runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GizmoSchedule {
    /// A cron expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
}

/// A port.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GizmoPort {
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its number.
    pub port: i32,
    /// Its protocol (new in v1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

/// What a Gizmo has.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GizmoStatus {
    /// Where it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<GizmoPhase>,
    /// The generation observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The phases of v1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum GizmoPhase {
    /// Not ready yet.
    Pending,
    /// Ready.
    Ready,
    /// Failed (new in v1).
    Failed,
}
