//! The resources the fuzzer targets: paths, valid bodies and typed decoding.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, Secret, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

use super::rng::Rng;

/// One resource type of the testkit, as the fuzzer sees it.
#[derive(Debug)]
pub struct Kind {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    pub status: bool,
    pub scale: bool,
    pub custom: bool,
}

/// The fuzzed CRD's group.
pub const CRD_GROUP: &str = "fuzz.example.com";

pub const KINDS: &[Kind] = &[
    Kind {
        group: "",
        version: "v1",
        plural: "configmaps",
        kind: "ConfigMap",
        namespaced: true,
        status: false,
        scale: false,
        custom: false,
    },
    Kind {
        group: "",
        version: "v1",
        plural: "secrets",
        kind: "Secret",
        namespaced: true,
        status: false,
        scale: false,
        custom: false,
    },
    Kind {
        group: "",
        version: "v1",
        plural: "pods",
        kind: "Pod",
        namespaced: true,
        status: true,
        scale: false,
        custom: false,
    },
    Kind {
        group: "",
        version: "v1",
        plural: "services",
        kind: "Service",
        namespaced: true,
        status: true,
        scale: false,
        custom: false,
    },
    Kind {
        group: "apps",
        version: "v1",
        plural: "deployments",
        kind: "Deployment",
        namespaced: true,
        status: true,
        scale: true,
        custom: false,
    },
    Kind {
        group: "coordination.k8s.io",
        version: "v1",
        plural: "leases",
        kind: "Lease",
        namespaced: true,
        status: false,
        scale: false,
        custom: false,
    },
    Kind {
        group: "",
        version: "v1",
        plural: "namespaces",
        kind: "Namespace",
        namespaced: false,
        status: true,
        scale: false,
        custom: false,
    },
    Kind {
        group: CRD_GROUP,
        version: "v1",
        plural: "widgets",
        kind: "Widget",
        namespaced: true,
        status: true,
        scale: false,
        custom: true,
    },
    Kind {
        group: "apiextensions.k8s.io",
        version: "v1",
        plural: "customresourcedefinitions",
        kind: "CustomResourceDefinition",
        namespaced: false,
        status: true,
        scale: false,
        custom: false,
    },
];

/// Namespaces that objects are created in ("missing" never exists).
pub const NAMESPACES: &[&str] = &[
    "default", "fuzz", "fuzz", "default", "default", "fuzz", "missing",
];

/// Names the fuzzer gives objects: few, so that writes collide and update each other.
pub const NAMES: &[&str] = &["a", "b", "c", "web-1", "x.y.z"];

/// Names of namespaces the fuzzer creates and deletes (never holding objects).
pub const NAMESPACE_NAMES: &[&str] = &["fz-1", "fz-2", "fz-3"];

impl Kind {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `/api/v1` or `/apis/group/version`.
    pub fn base(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection path, in `namespace` for namespaced kinds (all namespaces for None).
    pub fn collection(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => {
                format!("{}/namespaces/{ns}/{}", self.base(), self.plural)
            }
            _ => format!("{}/{}", self.base(), self.plural),
        }
    }

    pub fn object(&self, namespace: &str, name: &str) -> String {
        let ns = self.namespaced.then_some(namespace);
        format!("{}/{name}", self.collection(ns))
    }

    /// The names objects of this kind get.
    pub fn names(&self) -> &'static [&'static str] {
        match self.plural {
            "namespaces" => NAMESPACE_NAMES,
            // Never the widgets CRD: deleting it would take the fuzzed widgets with it.
            "customresourcedefinitions" => &[
                "gadgets.fuzz.example.com",
                "gadgets.fuzz.example.com",
                "nope.example.com",
            ],
            _ => NAMES,
        }
    }

    /// A valid object named `name` (metadata only carries the name and maybe labels).
    pub fn valid_body(&self, rng: &mut Rng, name: &str) -> Value {
        let app = rng.pick(&["web", "db", "cache"]).to_owned();
        let mut object = json!({
            "apiVersion": self.api_version(),
            "kind": self.kind,
            "metadata": {"name": name, "labels": {"app": app}},
        });
        let spec = match self.plural {
            "configmaps" => {
                object["data"] = json!({"key": rng.string(b"abcxyz", 3)});
                None
            }
            "secrets" => {
                object["stringData"] = json!({"password": "hunter2"});
                None
            }
            "pods" => Some(json!({"containers": [{"name": "c", "image": "nginx"}]})),
            "services" => {
                Some(json!({"ports": [{"port": 80 + rng.below(10)}], "selector": {"app": app}}))
            }
            "deployments" => Some(json!({
                "replicas": rng.below(4),
                "selector": {"matchLabels": {"app": app}},
                "template": {
                    "metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                },
            })),
            "leases" => Some(
                json!({"holderIdentity": rng.pick(&["one", "two"]), "leaseDurationSeconds": 15}),
            ),
            "customresourcedefinitions" => Some(crd_spec(rng, name)),
            "widgets" => {
                Some(json!({"size": rng.below(120), "color": rng.pick(&["red", "blue", "green"])}))
            }
            _ => None,
        };
        if let Some(spec) = spec {
            object["spec"] = spec;
        }
        if self.status && rng.chance(30) {
            object["status"] = json!({"phase": "Running", "replicas": 1, "observedGeneration": 1});
        }
        object
    }

    /// Decodes a listed object through its typed form: an error names what failed.
    pub fn decode(&self, object: &Value) -> Result<(), String> {
        fn typed<T: serde::de::DeserializeOwned>(object: &Value) -> Result<(), String> {
            serde_json::from_value::<T>(object.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        match self.plural {
            "configmaps" => typed::<ConfigMap>(object),
            "secrets" => typed::<Secret>(object),
            "pods" => typed::<Pod>(object),
            "services" => typed::<Service>(object),
            "deployments" => typed::<Deployment>(object),
            "leases" => typed::<Lease>(object),
            "namespaces" => typed::<Namespace>(object),
            "customresourcedefinitions" => typed::<CustomResourceDefinition>(object),
            _ => {
                if object["apiVersion"] != self.api_version().as_str()
                    || object["kind"] != self.kind
                {
                    return Err(format!("wrong apiVersion/kind: {object}"));
                }
                if !object["metadata"]["name"].is_string() {
                    return Err(format!("no metadata.name: {object}"));
                }
                Ok(())
            }
        }
    }
}

/// A CRD spec for a CRD named `name` (`plural.group`), with a schema drawn from a few
/// kinds of fields.
fn crd_spec(rng: &mut Rng, name: &str) -> Value {
    let (plural, group) = name.split_once('.').unwrap_or((name, "example.com"));
    let field = |rng: &mut Rng| -> Value {
        rng.pick(&[
            json!({"type": "integer", "minimum": 0}),
            json!({"type": "string", "enum": ["a", "b"]}),
            json!({"type": "array", "items": {"type": "string"}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"x-kubernetes-int-or-string": true}),
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}),
            json!({"type": "string", "nullable": true, "maxLength": 3}),
        ])
        .clone()
    };
    let properties: serde_json::Map<String, Value> = (0..1 + rng.below(4))
        .map(|i| (format!("f{i}"), field(rng)))
        .collect();
    json!({
        "group": group,
        "scope": if rng.chance(50) { "Namespaced" } else { "Cluster" },
        "names": {"plural": plural, "singular": plural.trim_end_matches('s'), "kind": "Gadget"},
        "versions": [{
            "name": "v1", "served": true, "storage": true,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": properties},
            }}},
        }],
    })
}

/// The CRD registering `widgets` (with a schema, a status and printer columns).
pub fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.fuzz.example.com"},
        "spec": {
            "group": CRD_GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {"type": "object", "properties": {
                            "size": {"type": "integer", "minimum": 0, "maximum": 100},
                            "color": {"type": "string", "enum": ["red", "blue", "green"]},
                            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
                            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        }},
                        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    },
                }},
            }],
        },
    })
}
