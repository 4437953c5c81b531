// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "nullable.example.com", version = "v1", plural = "things")]
pub struct Thing {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<ThingSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThingSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 3))]
    pub maybe_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maybe_object: Option<ThingSpecMaybeObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "thing_spec_maybe_ratio_schema")]
    pub maybe_ratio: Option<serde_json::Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maybe_string: Option<String>,
    #[schemars(required)]
    #[schemars(extend("nullable" = true))]
    pub must_exist: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<::std::collections::BTreeMap<String, Option<i64>>>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThingSpecMaybeObject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
}
fn thing_spec_maybe_ratio_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "nullable": true,
        "type": "number"
    })
}
