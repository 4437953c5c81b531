//! `icecream.example.com/v1alpha1`: the first version of the `Icecream` kind, still
//! served, converted to and from the storage version [`v1`](super::v1) by the conversion
//! webhook ([`crate::webhooks`]).
//!
//! Two fields changed in `v1`:
//!
//! ```yaml
//! apiVersion: icecream.example.com/v1alpha1
//! kind: Icecream
//! metadata: { name: vanilla, namespace: default }
//! spec:
//!   order: vanilla with sprinkles   # v1 splits it: flavor: vanilla, topping: sprinkles
//!   podSelector:                    # v1 renames it: selector
//!     matchLabels: { app: vanilla }
//! ```
//!
//! The status is [`v1`'s](super::v1::IcecreamStatus), unchanged.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kubegen::{DeepCopy, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::v1::{IcecreamStatus, PodPlacement};

/// The API group.
pub const GROUP: &str = "icecream.example.com";
/// The API version.
pub const VERSION: &str = "v1alpha1";

/// An Icecream as `v1alpha1` writes it: an order and the pods that serve it.
#[derive(Debug, Default, PartialEq, DeepCopy, Resource)]
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` has its own `type`; clippy reads the repeats as duplicates"
)]
#[resource(
    group = "icecream.example.com",
    version = "v1alpha1",
    namespaced,
    status,
    shortname = "ice",
    printcolumn(name = "Order", type = "string", json_path = ".spec.order"),
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

/// The desired state of an [`Icecream`] in `v1alpha1`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcecreamSpec {
    /// The flavor, then optionally ` with ` and a topping: `vanilla with sprinkles`.
    #[serde(default)]
    pub order: String,
    /// Which pods of the namespace serve this Icecream (`selector` in `v1`).
    #[schemars(schema_with = "super::v1::label_selector_schema")]
    pub pod_selector: LabelSelector,
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
