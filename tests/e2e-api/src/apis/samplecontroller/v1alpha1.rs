//! `samplecontroller.k8s.io/v1alpha1`: a namespaced kind with status and scale, and a
//! cluster-scoped kind.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a Foo wants.
#[derive(Debug, Default, PartialEq, DeepCopy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The deployment to run.
    #[schemars(length(max = 253))]
    #[schemars(extend("x-kubernetes-validations" = [{ "rule": "self.size() > 0", "message": "deploymentName must not be empty" }]))]
    pub deployment_name: String,
    /// Desired replicas.
    pub replicas: i32,
}

/// What a Foo has.
#[derive(Debug, Default, PartialEq, DeepCopy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// Replicas available.
    pub available_replicas: i32,
}

/// A Foo runs a deployment.
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    status,
    shortname = "fo",
    validation(
        rule = "self.spec.replicas >= 0",
        message = "replicas must not be negative",
        field_path = ".spec.replicas",
        reason = "FieldValueInvalid"
    ),
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.availableReplicas"
    ),
    printcolumn(
        name = "Deployment",
        type = "string",
        json_path = ".spec.deploymentName"
    )
)]
pub struct Foo {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// Desired state.
    pub spec: FooSpec,
    /// Observed state.
    pub status: Option<FooStatus>,
}

/// Where Zones are.
#[derive(Debug, Default, PartialEq, DeepCopy, Serialize, Deserialize, JsonSchema)]
pub struct ZoneSpec {
    /// The region.
    pub region: String,
}

/// A cluster-scoped zone.
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", cluster)]
pub struct Zone {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// Desired state.
    pub spec: ZoneSpec,
}
