// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(
    group = "validations.example.com",
    version = "v1",
    plural = "pools",
    validation(rule = "self.metadata.name.size() < 40"),
)]
pub struct Pool {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<PoolSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-validations" = [{
    "fieldPath": ".minSize",
    "message": "minSize must not exceed maxSize",
    "reason": "FieldValueInvalid",
    "rule": "self.minSize <= self.maxSize",
}]))]
pub struct PoolSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("maxProperties" = 16, "x-kubernetes-map-type" = "granular"))]
    pub labels: Option<::std::collections::BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    #[schemars(extend("exclusiveMaximum" = true))]
    pub max_size: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        extend("x-kubernetes-list-map-keys" = ["name"], "x-kubernetes-list-type" = "map"),
    )]
    pub members: Option<Vec<PoolSpecMembers>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub min_size: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 63))]
    #[schemars(regex(pattern = "^[a-z]([-a-z0-9]*[a-z0-9])?$"))]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 3))]
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    pub zones: Option<Vec<String>>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PoolSpecMembers {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-validations" = [{
        "messageExpression": "'weight ' + string(self) + ' is not a multiple of 10'",
        "rule": "self % 10 == 0",
    }]))]
    pub weight: Option<i64>,
}
