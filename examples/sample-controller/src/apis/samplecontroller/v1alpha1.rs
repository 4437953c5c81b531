//! `samplecontroller.k8s.io/v1alpha1`: the `Foo` kind.

use std::borrow::Cow;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::NamespaceResourceScope;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The API group.
pub const GROUP: &str = "samplecontroller.k8s.io";
/// The API version.
pub const VERSION: &str = "v1alpha1";

/// A Foo asks for a Deployment named `spec.deploymentName` running `spec.replicas` pods.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Foo {
    /// Standard object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the user wants.
    pub spec: FooSpec,
    /// What the controller observed (written through the status subresource).
    #[serde(default)]
    pub status: Option<FooStatus>,
}

/// The desired state of a [`Foo`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The name of the Deployment the Foo owns.
    pub deployment_name: String,
    /// How many replicas the Deployment runs (1 to 10; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// The observed state of a [`Foo`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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

    /// The CustomResourceDefinition that serves Foos.
    pub fn crd() -> CustomResourceDefinition {
        let manifest = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": format!("foos.{GROUP}") },
            "spec": {
                "group": GROUP,
                "names": { "kind": "Foo", "listKind": "FooList", "plural": "foos", "singular": "foo" },
                "scope": "Namespaced",
                "versions": [{
                    "name": VERSION,
                    "served": true,
                    "storage": true,
                    "subresources": { "status": {} },
                    "additionalPrinterColumns": [
                        { "name": "Deployment", "type": "string", "jsonPath": ".spec.deploymentName" },
                        { "name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas" },
                        { "name": "Available", "type": "integer", "jsonPath": ".status.availableReplicas" }
                    ],
                    "schema": { "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["deploymentName"],
                                "properties": {
                                    "deploymentName": { "type": "string", "minLength": 1 },
                                    "replicas": { "type": "integer", "format": "int32", "minimum": 1, "maximum": 10 }
                                }
                            },
                            "status": {
                                "type": "object",
                                "properties": {
                                    "availableReplicas": { "type": "integer", "format": "int32" }
                                }
                            }
                        }
                    }}
                }]
            }
        });
        // A fixed manifest: the unit test below proves it deserializes.
        serde_json::from_value(manifest).unwrap_or_default()
    }
}

impl Serialize for Foo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            api_version: &'static str,
            kind: &'static str,
            metadata: &'a ObjectMeta,
            spec: &'a FooSpec,
            #[serde(skip_serializing_if = "Option::is_none")]
            status: Option<&'a FooStatus>,
        }
        Wire {
            api_version: "samplecontroller.k8s.io/v1alpha1",
            kind: "Foo",
            metadata: &self.metadata,
            spec: &self.spec,
            status: self.status.as_ref(),
        }
        .serialize(serializer)
    }
}

impl kube::Resource for Foo {
    type DynamicType = ();
    type Scope = NamespaceResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        "Foo".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        GROUP.into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        VERSION.into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "foos".into()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
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
