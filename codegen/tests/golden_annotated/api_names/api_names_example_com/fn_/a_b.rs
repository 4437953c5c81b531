// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(
    group = "api-names.example.com",
    version = "fn",
    kind = "a-b",
    plural = "a-bs",
    storage,
)]
pub struct AB {
    /// Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    pub metadata: ObjectMeta,
    pub spec: Option<ABSpec>,
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ABSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crate_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_: Option<String>,
}
