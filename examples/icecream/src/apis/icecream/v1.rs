//! `icecream.example.com/v1`: the `Icecream` kind.
//!
//! An Icecream selects pods of its namespace by label, and its status tells where they
//! run:
//!
//! ```yaml
//! apiVersion: icecream.example.com/v1
//! kind: Icecream
//! metadata: { name: vanilla, namespace: default }
//! spec:
//!   flavor: vanilla                 # free text, shown by kubectl get
//!   selector:                       # a standard label selector over the namespace's pods
//!     matchLabels: { app: vanilla }
//! status:                           # written by the controller (status subresource)
//!   observedGeneration: 1           # the spec generation this status is about
//!   pods:                           # every matching pod, by name
//!   - { name: vanilla-1, nodeName: node-a }
//!   - { name: vanilla-2 }           # not scheduled yet: no nodeName
//!   nodes: [node-a]                 # the distinct nodes of the scheduled ones, sorted
//! ```

use std::borrow::Cow;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::core::NamespaceResourceScope;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The API group.
pub const GROUP: &str = "icecream.example.com";
/// The API version.
pub const VERSION: &str = "v1";

/// An Icecream: a flavor, the pods that serve it, and (in its status) where they run.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Icecream {
    /// Standard object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the user wants.
    pub spec: IcecreamSpec,
    /// What the controller observed.
    #[serde(default)]
    pub status: Option<IcecreamStatus>,
}

/// The desired state of an [`Icecream`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IcecreamSpec {
    /// The flavor (free text).
    #[serde(default)]
    pub flavor: String,
    /// Which pods of the namespace serve this Icecream. An empty selector selects every pod.
    pub selector: LabelSelector,
}

/// The observed state of an [`Icecream`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IcecreamStatus {
    /// The `metadata.generation` of the spec this status was computed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Every matching pod, sorted by name, with the node it is scheduled on.
    #[serde(default)]
    pub pods: Vec<PodPlacement>,
    /// The distinct nodes of the scheduled matching pods, sorted.
    #[serde(default)]
    pub nodes: Vec<String>,
}

/// Where one pod runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodPlacement {
    /// The pod's name.
    pub name: String,
    /// The node it is scheduled on; absent while unscheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
}

impl Icecream {
    /// An Icecream named `name` in `namespace`.
    pub fn new(namespace: &str, name: &str, spec: IcecreamSpec) -> Self {
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

    /// The CustomResourceDefinition that serves Icecreams.
    pub fn crd() -> CustomResourceDefinition {
        let selector_requirement = json!({
            "type": "object",
            "required": ["key", "operator"],
            "properties": {
                "key": { "type": "string" },
                "operator": { "type": "string", "enum": ["In", "NotIn", "Exists", "DoesNotExist"] },
                "values": { "type": "array", "items": { "type": "string" } }
            }
        });
        let manifest = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": format!("icecreams.{GROUP}") },
            "spec": {
                "group": GROUP,
                "names": {
                    "kind": "Icecream", "listKind": "IcecreamList", "plural": "icecreams",
                    "singular": "icecream", "shortNames": ["ice"]
                },
                "scope": "Namespaced",
                "versions": [{
                    "name": VERSION,
                    "served": true,
                    "storage": true,
                    "subresources": { "status": {} },
                    "additionalPrinterColumns": [
                        { "name": "Flavor", "type": "string", "jsonPath": ".spec.flavor" },
                        { "name": "Nodes", "type": "string", "jsonPath": ".status.nodes" }
                    ],
                    "schema": { "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["selector"],
                                "properties": {
                                    "flavor": { "type": "string" },
                                    "selector": {
                                        "type": "object",
                                        "properties": {
                                            "matchLabels": { "type": "object", "additionalProperties": { "type": "string" } },
                                            "matchExpressions": { "type": "array", "items": selector_requirement }
                                        }
                                    }
                                }
                            },
                            "status": {
                                "type": "object",
                                "properties": {
                                    "observedGeneration": { "type": "integer", "format": "int64" },
                                    "pods": { "type": "array", "items": {
                                        "type": "object",
                                        "required": ["name"],
                                        "properties": {
                                            "name": { "type": "string" },
                                            "nodeName": { "type": "string" }
                                        }
                                    }},
                                    "nodes": { "type": "array", "items": { "type": "string" } }
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

impl Serialize for Icecream {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            api_version: &'static str,
            kind: &'static str,
            metadata: &'a ObjectMeta,
            spec: &'a IcecreamSpec,
            #[serde(skip_serializing_if = "Option::is_none")]
            status: Option<&'a IcecreamStatus>,
        }
        Wire {
            api_version: "icecream.example.com/v1",
            kind: "Icecream",
            metadata: &self.metadata,
            spec: &self.spec,
            status: self.status.as_ref(),
        }
        .serialize(serializer)
    }
}

impl kube::Resource for Icecream {
    type DynamicType = ();
    type Scope = NamespaceResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        "Icecream".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        GROUP.into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        VERSION.into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "icecreams".into()
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
        let crd = Icecream::crd();
        assert_eq!(
            crd.metadata.name.as_deref(),
            Some("icecreams.icecream.example.com")
        );
        assert_eq!(crd.spec.names.kind, "Icecream");
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
        let mut ice = Icecream::new(
            "default",
            "vanilla",
            IcecreamSpec {
                flavor: "vanilla".into(),
                selector: LabelSelector {
                    match_labels: Some([("app".to_owned(), "vanilla".to_owned())].into()),
                    ..Default::default()
                },
            },
        );
        ice.status = Some(IcecreamStatus {
            observed_generation: Some(1),
            pods: vec![PodPlacement {
                name: "p".into(),
                node_name: Some("n".into()),
            }],
            nodes: vec!["n".into()],
        });
        let value = serde_json::to_value(&ice).unwrap();
        assert_eq!(value["apiVersion"], "icecream.example.com/v1");
        assert_eq!(value["kind"], "Icecream");
        assert_eq!(value["spec"]["selector"]["matchLabels"]["app"], "vanilla");
        assert_eq!(value["status"]["pods"][0]["nodeName"], "n");
        assert_eq!(serde_json::from_value::<Icecream>(value).unwrap(), ice);
    }
}
