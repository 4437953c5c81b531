// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "names.example.com", version = "v1", plural = "widgets")]
pub struct Widget {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<WidgetSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WidgetSpec {
    #[serde(rename = "$ref")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    #[serde(rename = "2xx")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub _2xx: Option<i32>,
    #[serde(rename = "@type")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_2: Option<String>,
    #[serde(rename = "FooBar")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo_bar_2: Option<String>,
    #[serde(rename = "a/b")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_b: Option<bool>,
    #[serde(rename = "ca.crt")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "widget_spec_ca_crt_schema")]
    pub ca_crt: Option<k8s_openapi::ByteString>,
    #[serde(rename = "foo-bar")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo_bar_3: Option<String>,
    #[serde(rename = "fooBar")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo_bar: Option<String>,
    #[serde(rename = "größe")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gr_u00f6_u00df_e: Option<String>,
    /// Would be named `WidgetSpecOption`; nested `Option` stays unambiguous.
    #[serde(rename = "option")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<WidgetSpecOption>,
    #[serde(rename = "phase")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<WidgetSpecPhase>,
    #[serde(rename = "self")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_: Option<String>,
    /// A property named like its parent's type.
    #[serde(rename = "spec")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<WidgetSpecSpec>,
    /// A keyword: becomes `type_`.
    #[serde(rename = "type")]
    pub type_: String,
}
/// Would be named `WidgetSpecOption`; nested `Option` stays unambiguous.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecOption {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WidgetSpecPhase {
    #[serde(rename = "Ready")]
    Ready,
    #[serde(rename = "ready")]
    Ready2,
    #[serde(rename = "not-ready")]
    NotReady,
    #[serde(rename = "")]
    Empty,
    #[serde(rename = "*")]
    Star,
    #[serde(rename = "1.0")]
    V10,
    #[serde(rename = "Self")]
    Self_,
}
/// A property named like its parent's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<WidgetSpecSpecSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecSpecSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
}
fn widget_spec_ca_crt_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "format": "byte",
        "type": "string"
    })
}
