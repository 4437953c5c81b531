//! A type both versions of `Gizmo` use.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a Gizmo runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tier {
    /// The tier's name.
    pub name: String,
    /// Its weight, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}
