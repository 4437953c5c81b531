//! The `apiextensions.k8s.io/v1` `CustomResourceDefinition` around a kind's schemas, as
//! JSON: [`Definition::to_value`]. Keys that would be empty (no short names, no printer
//! columns, no subresources...) are left out, as kube-apiserver leaves them out.

use serde_json::{Map, Value, json};

/// A CustomResourceDefinition: one kind of one group, with its versions.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// API group.
    pub group: String,
    /// The kind's names.
    pub names: Names,
    /// Whether objects live in namespaces.
    pub scope: Scope,
    /// The versions served, in the order written.
    pub versions: Vec<Version>,
}

/// The names of a kind (`spec.names`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// Kind.
    pub kind: String,
    /// List kind.
    pub list_kind: String,
    /// Plural resource name.
    pub plural: String,
    /// Singular resource name.
    pub singular: String,
    /// Short names (`kubectl get fo`).
    pub short_names: Vec<String>,
    /// Categories (`kubectl get all`).
    pub categories: Vec<String>,
}

impl Names {
    /// The names of `kind`: list kind `<kind>List`, no short names or categories.
    pub fn new(kind: &str, plural: &str, singular: &str) -> Self {
        Self {
            kind: kind.to_owned(),
            list_kind: format!("{kind}List"),
            plural: plural.to_owned(),
            singular: singular.to_owned(),
            short_names: Vec::new(),
            categories: Vec::new(),
        }
    }
}

/// Whether objects live in namespaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Namespaced objects.
    Namespaced,
    /// Cluster-wide objects.
    Cluster,
}

impl Scope {
    /// The name `spec.scope` writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }
    }
}

/// One version of a kind (an entry of `spec.versions`).
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// The version's name (`v1`).
    pub name: String,
    /// Whether the API serves it.
    pub served: bool,
    /// Whether objects are stored at it (one version of a CRD is).
    pub storage: bool,
    /// Deprecated, with the warning clients get (empty: the API server's own warning).
    pub deprecation: Option<String>,
    /// The structural OpenAPI v3 schema of the root object (`schema.openAPIV3Schema`).
    pub schema: Value,
    /// Whether the status subresource is served.
    pub status: bool,
    /// The scale subresource, if served.
    pub scale: Option<Scale>,
    /// Additional printer columns.
    pub printer_columns: Vec<PrinterColumn>,
    /// Selectable fields (JSON paths).
    pub selectable_fields: Vec<String>,
}

impl Version {
    /// A served and stored version with this schema and nothing else.
    pub fn new(name: &str, schema: Value) -> Self {
        Self {
            name: name.to_owned(),
            served: true,
            storage: true,
            deprecation: None,
            schema,
            status: false,
            scale: None,
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
        }
    }
}

/// The scale subresource's JSON paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Desired replicas (`.spec.replicas`).
    pub spec_replicas: String,
    /// Observed replicas (`.status.replicas`).
    pub status_replicas: String,
    /// The label selector (`.status.selector`), if any.
    pub label_selector: Option<String>,
}

/// An additional printer column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub type_: String,
    /// JSON path of the value.
    pub json_path: String,
    /// Description.
    pub description: Option<String>,
    /// Priority (0 shows in the standard view).
    pub priority: i32,
}

impl Definition {
    /// `plural.group`, the CRD's name.
    pub fn name(&self) -> String {
        format!("{}.{}", self.names.plural, self.group)
    }

    /// The CustomResourceDefinition as JSON.
    pub fn to_value(&self) -> Value {
        let names = &self.names;
        let mut names_value = json!({
            "kind": names.kind,
            "listKind": names.list_kind,
            "plural": names.plural,
            "singular": names.singular,
        });
        if !names.short_names.is_empty() {
            names_value["shortNames"] = names.short_names.clone().into();
        }
        if !names.categories.is_empty() {
            names_value["categories"] = names.categories.clone().into();
        }
        let versions: Vec<Value> = self.versions.iter().map(Version::to_value).collect();
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": self.name() },
            "spec": {
                "group": self.group,
                "names": names_value,
                "scope": self.scope.as_str(),
                "versions": versions,
            },
        })
    }
}

impl Version {
    /// The entry of `spec.versions`.
    pub fn to_value(&self) -> Value {
        let mut version = json!({
            "name": self.name,
            "served": self.served,
            "storage": self.storage,
            "schema": { "openAPIV3Schema": self.schema },
        });
        if let Some(warning) = &self.deprecation {
            version["deprecated"] = true.into();
            if !warning.is_empty() {
                version["deprecationWarning"] = warning.clone().into();
            }
        }
        let mut subresources = Map::new();
        if self.status {
            subresources.insert("status".into(), json!({}));
        }
        if let Some(scale) = &self.scale {
            let mut paths = json!({
                "specReplicasPath": scale.spec_replicas,
                "statusReplicasPath": scale.status_replicas,
            });
            if let Some(selector) = &scale.label_selector {
                paths["labelSelectorPath"] = selector.clone().into();
            }
            subresources.insert("scale".into(), paths);
        }
        if !subresources.is_empty() {
            version["subresources"] = Value::Object(subresources);
        }
        let columns: Vec<Value> = self
            .printer_columns
            .iter()
            .map(|c| {
                let mut column =
                    json!({ "name": c.name, "type": c.type_, "jsonPath": c.json_path });
                if let Some(description) = &c.description {
                    column["description"] = description.clone().into();
                }
                if c.priority != 0 {
                    column["priority"] = c.priority.into();
                }
                column
            })
            .collect();
        if !columns.is_empty() {
            version["additionalPrinterColumns"] = Value::Array(columns);
        }
        let selectable: Vec<Value> = self
            .selectable_fields
            .iter()
            .map(|path| json!({ "jsonPath": path }))
            .collect();
        if !selectable.is_empty() {
            version["selectableFields"] = Value::Array(selectable);
        }
        version
    }
}

/// A CRD conversion webhook served in the cluster: `spec.conversion.webhook.clientConfig`
/// names a Service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionWebhook {
    /// The Service's namespace.
    pub namespace: String,
    /// The Service's name.
    pub service: String,
    /// The Service's port.
    pub port: u16,
    /// The path the webhook server serves conversions at.
    pub path: String,
    /// The cert-manager Certificate (`<namespace>/<name>`) whose CA cert-manager's CA
    /// injector writes into the CRD's `caBundle`
    /// (annotation `cert-manager.io/inject-ca-from`).
    pub cert_manager: Option<String>,
}

impl ConversionWebhook {
    /// The Service `namespace/service` on port 443 at path `/convert` (controller-runtime's
    /// path), without cert-manager.
    pub fn service(namespace: impl Into<String>, service: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            service: service.into(),
            port: 443,
            path: "/convert".to_owned(),
            cert_manager: None,
        }
    }

    /// Makes `crd` (a CRD as JSON) convert its versions through this webhook
    /// (`spec.conversion`, ConversionReview `v1`), with cert-manager's CA injection
    /// annotation when a Certificate is named.
    pub fn set_on(&self, crd: &mut Value) {
        crd["spec"]["conversion"] = json!({
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {
                        "namespace": self.namespace,
                        "name": self.service,
                        "path": self.path,
                        "port": self.port,
                    },
                },
            },
        });
        if let Some(certificate) = &self.cert_manager {
            crd["metadata"]["annotations"] =
                json!({ "cert-manager.io/inject-ca-from": certificate });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn foo() -> Definition {
        Definition {
            group: "example.com".into(),
            names: Names::new("Foo", "foos", "foo"),
            scope: Scope::Namespaced,
            versions: vec![Version::new("v1", json!({ "type": "object" }))],
        }
    }

    #[test]
    fn a_bare_kind_writes_only_what_it_has() {
        assert_eq!(
            foo().to_value(),
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": { "name": "foos.example.com" },
                "spec": {
                    "group": "example.com",
                    "names": { "kind": "Foo", "listKind": "FooList", "plural": "foos", "singular": "foo" },
                    "scope": "Namespaced",
                    "versions": [{
                        "name": "v1", "served": true, "storage": true,
                        "schema": { "openAPIV3Schema": { "type": "object" } }
                    }]
                }
            })
        );
    }

    #[test]
    fn every_part_of_the_envelope_is_written() {
        let mut crd = foo();
        crd.scope = Scope::Cluster;
        crd.names.short_names = vec!["fo".into()];
        crd.names.categories = vec!["all".into()];
        let version = &mut crd.versions[0];
        version.served = false;
        version.storage = false;
        version.deprecation = Some("use v2".into());
        version.status = true;
        version.scale = Some(Scale {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".status.selector".into()),
        });
        version.printer_columns = vec![
            PrinterColumn {
                name: "Ready".into(),
                type_: "boolean".into(),
                json_path: ".status.ready".into(),
                description: Some("Whether it is ready.".into()),
                priority: 1,
            },
            PrinterColumn {
                name: "Age".into(),
                type_: "date".into(),
                json_path: ".metadata.creationTimestamp".into(),
                description: None,
                priority: 0,
            },
        ];
        version.selectable_fields = vec![".spec.color".into()];
        let value = crd.to_value();
        assert_eq!(value["spec"]["scope"], "Cluster");
        assert_eq!(value["spec"]["names"]["shortNames"], json!(["fo"]));
        assert_eq!(value["spec"]["names"]["categories"], json!(["all"]));
        let version = &value["spec"]["versions"][0];
        assert_eq!(version["served"], false);
        assert_eq!(version["storage"], false);
        assert_eq!(version["deprecated"], true);
        assert_eq!(version["deprecationWarning"], "use v2");
        assert_eq!(
            version["subresources"],
            json!({
                "status": {},
                "scale": { "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector" }
            })
        );
        assert_eq!(
            version["additionalPrinterColumns"],
            json!([
                { "name": "Ready", "type": "boolean", "jsonPath": ".status.ready", "description": "Whether it is ready.", "priority": 1 },
                { "name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp" }
            ])
        );
        assert_eq!(
            version["selectableFields"],
            json!([{ "jsonPath": ".spec.color" }])
        );
    }

    #[test]
    fn an_empty_deprecation_warning_is_the_servers_own() {
        let mut crd = foo();
        crd.versions[0].deprecation = Some(String::new());
        let version = &crd.to_value()["spec"]["versions"][0];
        assert_eq!(version["deprecated"], true);
        assert!(version.get("deprecationWarning").is_none());
    }

    #[test]
    fn conversion_webhooks_name_a_service_and_maybe_a_certificate() {
        let mut crd = foo().to_value();
        let mut webhook = ConversionWebhook::service("system", "webhook");
        webhook.cert_manager = Some("system/serving-cert".into());
        webhook.set_on(&mut crd);
        assert_eq!(
            crd["spec"]["conversion"],
            json!({
                "strategy": "Webhook",
                "webhook": {
                    "conversionReviewVersions": ["v1"],
                    "clientConfig": { "service": { "namespace": "system", "name": "webhook", "path": "/convert", "port": 443 } }
                }
            })
        );
        assert_eq!(
            crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "system/serving-cert"
        );
        let mut plain = foo().to_value();
        ConversionWebhook::service("system", "webhook").set_on(&mut plain);
        assert!(plain["metadata"].get("annotations").is_none());
    }
}
