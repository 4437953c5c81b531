// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "unions.example.com", version = "v1", plural = "routes")]
pub struct Route {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<RouteSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<RouteSpecAddress>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<RouteSpecBackend>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<RouteSpecMerged>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "route_spec_number_schema")]
    pub number: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// A host name or a list of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "route_spec_target_schema")]
    pub target: Option<RouteSpecTarget>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpecAddress {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpecBackend {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpecMerged {
    pub a: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<bool>,
}
/// A host name or a list of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RouteSpecTarget {
    String(String),
    Array(Vec<String>),
}
fn route_spec_number_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "x-kubernetes-int-or-string": true
    })
}
fn route_spec_target_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "A host name or a list of them.",
        "x-kubernetes-preserve-unknown-fields": true
    })
}
