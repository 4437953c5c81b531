//! `samplecontroller.k8s.io/v1alpha1`: the `Foo` kind.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The API group.
pub const GROUP: &str = "samplecontroller.k8s.io";
/// The API version.
pub const VERSION: &str = "v1alpha1";

/// A Foo asks for a Deployment named `spec.deploymentName` running `spec.replicas` pods.
#[derive(Debug, Default, PartialEq, DeepCopy, Resource)]
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` has its own `type`; clippy reads the repeats as duplicates"
)]
#[resource(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    namespaced,
    status,
    printcolumn(
        name = "Deployment",
        type = "string",
        json_path = ".spec.deploymentName"
    ),
    printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas"),
    printcolumn(
        name = "Available",
        type = "integer",
        json_path = ".status.availableReplicas"
    )
)]
pub struct Foo {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// What the user wants.
    pub spec: FooSpec,
    /// What the controller observed (written through the status subresource).
    pub status: Option<FooStatus>,
}

/// The desired state of a [`Foo`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The name of the Deployment the Foo owns.
    #[schemars(length(min = 1))]
    pub deployment_name: String,
    /// How many replicas the Deployment runs (1 to 10; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10))]
    pub replicas: Option<i32>,
}

/// The observed state of a [`Foo`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// The owned Deployment's `status.availableReplicas`.
    #[serde(default)]
    pub available_replicas: i32,
}

impl Foo {
    /// A Foo named `name` in `namespace`.
    pub fn new(namespace: &str, name: &str, spec: FooSpec) -> Self {
        Self {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            },
            spec,
            status: None,
        }
    }

    /// The replicas the Foo asks for (`spec.replicas`, default 1).
    pub fn desired_replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a failed call is a failed test
mod tests {
    use super::*;

    #[test]
    fn crd_manifest_is_complete() {
        let crd = Foo::crd();
        assert_eq!(
            crd.metadata.name.as_deref(),
            Some("foos.samplecontroller.k8s.io")
        );
        assert_eq!(crd.spec.names.kind, "Foo");
        assert_eq!(crd.spec.versions.len(), 1);
        assert!(
            crd.spec.versions[0]
                .subresources
                .as_ref()
                .and_then(|s| s.status.as_ref())
                .is_some()
        );
        let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
        let replicas = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"]["replicas"];
        assert_eq!(
            (replicas["minimum"].as_f64(), replicas["maximum"].as_f64()),
            (Some(1.0), Some(10.0))
        );
    }

    #[test]
    fn serde_round_trip_carries_api_version_and_kind() {
        let mut foo = Foo::new(
            "default",
            "a",
            FooSpec {
                deployment_name: "d".into(),
                replicas: Some(2),
            },
        );
        foo.status = Some(FooStatus {
            available_replicas: 1,
        });
        let value = serde_json::to_value(&foo).unwrap();
        assert_eq!(value["apiVersion"], "samplecontroller.k8s.io/v1alpha1");
        assert_eq!(value["kind"], "Foo");
        assert_eq!(value["spec"]["deploymentName"], "d");
        assert_eq!(value["status"]["availableReplicas"], 1);
        assert_eq!(serde_json::from_value::<Foo>(value).unwrap(), foo);
    }
}
