//! `icecream.example.com/v1`: the `Icecream` kind, its storage version (`v1alpha1`,
//! still served, converts to and from it: [`super::v1alpha1`]).
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
//!   topping: sprinkles              # optional: one of the toppings the webhook accepts
//!   selector:                       # a standard label selector over the namespace's pods
//!     matchLabels: { app: vanilla }
//! status:                           # written by the controller (status subresource)
//!   observedGeneration: 1           # the spec generation this status is about
//!   pods:                           # every matching pod, by name
//!   - { name: vanilla-1, nodeName: node-a }
//!   - { name: vanilla-2 }           # not scheduled yet: no nodeName
//!   nodes: [node-a]                 # the distinct nodes of the scheduled ones, sorted
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The API group.
pub const GROUP: &str = "icecream.example.com";
/// The API version.
pub const VERSION: &str = "v1";

/// An Icecream: a flavor, the pods that serve it, and (in its status) where they run.
#[derive(Debug, Default, PartialEq, DeepCopy, Resource)]
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` has its own `type`; clippy reads the repeats as duplicates"
)]
#[resource(
    group = "icecream.example.com",
    version = "v1",
    storage,
    namespaced,
    status,
    shortname = "ice",
    printcolumn(name = "Flavor", type = "string", json_path = ".spec.flavor"),
    printcolumn(name = "Topping", type = "string", json_path = ".spec.topping"),
    printcolumn(name = "Nodes", type = "string", json_path = ".status.nodes")
)]
pub struct Icecream {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// What the user wants.
    pub spec: IcecreamSpec,
    /// What the controller observed.
    pub status: Option<IcecreamStatus>,
}

/// The desired state of an [`Icecream`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcecreamSpec {
    /// The flavor (free text).
    #[serde(default)]
    pub flavor: String,
    /// The topping, if any: one of the [toppings](crate::webhooks::TOPPINGS), which the
    /// validating webhook checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topping: Option<String>,
    /// Which pods of the namespace serve this Icecream. An empty selector selects every pod.
    #[schemars(schema_with = "label_selector_schema")]
    pub selector: LabelSelector,
}

/// The observed state of an [`Icecream`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodPlacement {
    /// The pod's name.
    pub name: String,
    /// The node it is scheduled on; absent while unscheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
}

/// The schema of `metav1.LabelSelector` (k8s-openapi's own `JsonSchema` impls sit behind
/// a feature that would build schemas for every Kubernetes type).
pub(crate) fn label_selector_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "properties": {
            "matchLabels": { "type": "object", "additionalProperties": { "type": "string" } },
            "matchExpressions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["key", "operator"],
                    "properties": {
                        "key": { "type": "string" },
                        "operator": { "type": "string", "enum": ["In", "NotIn", "Exists", "DoesNotExist"] },
                        "values": { "type": "array", "items": { "type": "string" } }
                    }
                }
            }
        }
    })
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
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a failed call is a failed test
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
        let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
        let selector = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"]["selector"];
        assert_eq!(
            selector["properties"]["matchExpressions"]["items"]["required"],
            serde_json::json!(["key", "operator"])
        );
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
                topping: None,
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
