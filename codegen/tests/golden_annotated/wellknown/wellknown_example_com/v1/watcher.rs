// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "wellknown.example.com", version = "v1", plural = "watchers")]
pub struct Watcher {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<WatcherSpec>,
    pub status: Option<WatcherStatus>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatcherSpec {
    /// Not an ObjectReference: fields are missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_ref: Option<WatcherSpecPartialRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_: Option<k8s_openapi::api::core::v1::ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
}
/// Not an ObjectReference: fields are missing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatcherSpecPartialRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatcherStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>>,
    /// Not a metav1.Condition: message is optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loose_conditions: Option<Vec<WatcherStatusLooseConditions>>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatcherStatusLooseConditions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        schema_with = "watcher_status_loose_conditions_last_transition_time_schema",
    )]
    pub last_transition_time: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub status: String,
    pub type_: String,
}
fn watcher_status_loose_conditions_last_transition_time_schema(
    _: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    schemars::json_schema!({
        "format": "date-time",
        "type": "string"
    })
}
