//! `runs.example.com/v1`: a kind embedding the large k8s-openapi types operators embed (a pod
//! template, affinity, volumes, environment variables), whose schemas `kubegen crd` reads
//! from its well-known table. `tests/crd_manifests.rs` compiles it and checks that the
//! manifest `kubegen crd` writes from it is `crd()` (no golden: the manifest is large).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as corev1;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kubegen::Resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Runs a pod to completion, again and again.
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(group = "runs.example.com", version = "v1", cluster, status)]
pub struct Runner {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// What to run.
    pub spec: RunnerSpec,
    /// What ran.
    pub status: Option<RunnerStatus>,
}

/// What to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerSpec {
    /// The pod to run.
    pub template: corev1::PodTemplateSpec,
    /// Which pods are the runner's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// Where the pods may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<corev1::Affinity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<corev1::Volume>,
    /// Extra environment, by container name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, Vec<corev1::EnvVar>>,
    /// The token the pods use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<corev1::SecretKeySelector>,
    /// The claim of the pods' scratch space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch: Option<corev1::PersistentVolumeClaimTemplate>,
}

/// What ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerStatus {
    /// The pod of the last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_pod: Option<corev1::ObjectReference>,
    /// The number of runs.
    #[serde(default)]
    pub runs: usize,
}
