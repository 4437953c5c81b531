// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "defaults.example.com", version = "v1", plural = "knobs")]
pub struct Knob {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<KnobSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {
        "a": [1, -2, 0.5, null, true, "s"],
        "b": {}
    }))]
    pub anything: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {
        "a": 1,
        "b": 2,
    }))]
    pub counts: Option<::std::collections::BTreeMap<String, i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_fractions_schema")]
    #[schemars(extend("default" = [1, 1.5]))]
    pub fractions: Option<Vec<serde_json::Number>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = [1, null]))]
    pub gaps: Option<Vec<Option<i64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<::std::collections::BTreeMap<String, Vec<Option<KnobSpecGrid>>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {
        "id": 1,
        "note": null,
        "other": [1],
    }))]
    pub inner: Option<KnobSpecInner>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "high-ish"))]
    pub level: Option<KnobSpecLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "x"))]
    pub maybe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_memory_schema")]
    #[schemars(extend("default" = "1Gi"))]
    pub memory: Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    #[schemars(extend("default" = "knob"))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = -9223372036854775808i64))]
    pub offset: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_payload_schema")]
    #[schemars(extend("default" = "aGk="))]
    pub payload: Option<k8s_openapi::ByteString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_port_schema")]
    #[schemars(extend("default" = "http"))]
    pub port: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_ratio_schema")]
    #[schemars(extend("default" = -0.25))]
    pub ratio: Option<serde_json::Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<KnobSpecRules>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = {
        "matchLabels": {
            "app": "knob"
        }
    }))]
    pub selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_since_schema")]
    #[schemars(extend("default" = "2020-01-02T03:04:05Z"))]
    pub since: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = -3))]
    pub small: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = ["a", "b"]))]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "knob_spec_weight_schema")]
    #[schemars(extend("default" = 2))]
    pub weight: Option<serde_json::Number>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpecGrid {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub on: Option<bool>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpecInner {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deeper: Option<KnobSpecInnerDeeper>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
    pub id: i64,
    #[schemars(required)]
    #[schemars(extend("nullable" = true))]
    pub note: Option<String>,
    #[serde(flatten)]
    pub additional_properties: ::std::collections::BTreeMap<String, serde_json::Value>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpecInnerDeeper {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 2))]
    pub depth: Option<i64>,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum KnobSpecLevel {
    #[serde(rename = "low")]
    Low,
    #[serde(rename = "high-ish")]
    HighIsh,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpecRules {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "allow"))]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<::std::collections::BTreeMap<String, KnobSpecRulesLimits>>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnobSpecRulesLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 10))]
    pub max: Option<i64>,
}
fn knob_spec_fractions_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "items": {
            "type": "number"
        },
        "type": "array"
    })
}
fn knob_spec_memory_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "x-kubernetes-int-or-string": true
    })
}
fn knob_spec_payload_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "format": "byte",
        "type": "string"
    })
}
fn knob_spec_port_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "x-kubernetes-int-or-string": true
    })
}
fn knob_spec_ratio_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "number"
    })
}
fn knob_spec_since_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "format": "date-time",
        "type": "string"
    })
}
fn knob_spec_weight_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "number"
    })
}
