// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(
    group = "shapes.example.com",
    version = "v1",
    plural = "shapes",
    cluster,
    status,
    shortname = "sh",
    category = "all",
)]
pub struct Shape {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<ShapeSpec>,
    pub status: Option<serde_json::Value>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotated: Option<ShapeSpecAnnotated>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anything: Option<::std::collections::BTreeMap<String, serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bare: Option<::std::collections::BTreeMap<String, serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub big: Option<i64>,
    /// Anything goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_data_schema")]
    pub data: Option<k8s_openapi::ByteString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-embedded-resource" = true))]
    pub embedded: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-embedded-resource" = true))]
    pub embedded_typed: Option<ShapeSpecEmbeddedTyped>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<::std::collections::BTreeMap<String, String>>,
    /// One of `1`, `2`, `3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Vec<serde_json::Value>>,
    /// How fast. See https://example.com/modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "fast"))]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_port_schema")]
    pub port: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_ratio_schema")]
    pub ratio: Option<serde_json::Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_resources_schema")]
    pub resources: Option<
        ::std::collections::BTreeMap<
            String,
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,
        >,
    >,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_size_schema")]
    pub size: Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small: Option<i32>,
    /// Known fields plus whatever else is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<ShapeSpecTemplate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "shape_spec_when_schema")]
    pub when: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeSpecAnnotated {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub additional_properties: ::std::collections::BTreeMap<String, String>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeSpecEmbeddedTyped {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<::std::collections::BTreeMap<String, serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ShapeSpecEmbeddedTypedSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeSpecEmbeddedTypedSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
}
/// Known fields plus whatever else is there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeSpecTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub additional_properties: ::std::collections::BTreeMap<String, serde_json::Value>,
}
fn shape_spec_data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "format": "byte",
        "type": "string"
    })
}
fn shape_spec_port_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "x-kubernetes-int-or-string": true
    })
}
fn shape_spec_ratio_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "number"
    })
}
fn shape_spec_resources_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "additionalProperties": {
            "x-kubernetes-int-or-string": true
        },
        "type": "object"
    })
}
fn shape_spec_size_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "x-kubernetes-int-or-string": true
    })
}
fn shape_spec_when_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "format": "date-time",
        "type": "string"
    })
}
