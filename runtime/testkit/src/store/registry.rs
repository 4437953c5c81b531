//! The resource types the server serves: a table of built-ins plus those registered by
//! CustomResourceDefinitions at runtime.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::store::jsonpath::JsonPath;

/// Where a `scale` subresource reads and writes replicas.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScalePaths {
    /// Dotted path of the desired replicas, e.g. `spec.replicas`.
    pub(crate) spec_replicas: String,
    /// Dotted path of the observed replicas, e.g. `status.replicas`.
    pub(crate) status_replicas: String,
    /// Where the selector comes from, if anywhere.
    pub(crate) selector: Option<SelectorSource>,
}

/// The source of `Scale.status.selector`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SelectorSource {
    /// A `metav1.LabelSelector` object at this path (deployments, replicasets).
    LabelSelectorAt(String),
    /// A string already in selector syntax at this path (CRD `labelSelectorPath`).
    StringAt(String),
}

/// A CRD version's `additionalPrinterColumns` entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrinterColumn {
    pub(crate) name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub(crate) ty: String,
    pub(crate) format: String,
    pub(crate) description: String,
    pub(crate) priority: i64,
    pub(crate) path: JsonPath,
}

/// When the server sets `metadata.generation` and bumps it: what the kind's registry
/// strategy in kube-apiserver does. `PrepareForCreate` sets 1 where the table below
/// says so (generic code never sets it: a body's value is kept on create, and every
/// update keeps the stored value, `rest.BeforeUpdate`), and `PrepareForUpdate` bumps it.
///
/// | kind                                                | generation            | source (kubernetes/kubernetes)                                     |
/// |-----------------------------------------------------|-----------------------|--------------------------------------------------------------------|
/// | Deployment                                          | [`SpecOrAnnotations`] | `pkg/registry/apps/deployment/strategy.go`                         |
/// | ReplicaSet, StatefulSet, DaemonSet                  | [`Spec`]              | `pkg/registry/apps/{replicaset,statefulset,daemonset}/strategy.go` |
/// | Job, CronJob                                        | [`Spec`]              | `pkg/registry/batch/{job,cronjob}/strategy.go`                     |
/// | ReplicationController                               | [`Spec`]              | `pkg/registry/core/controller/strategy.go`                         |
/// | Pod (since Kubernetes 1.33, KEP-5067)               | [`Spec`]              | `pkg/registry/core/pod/strategy.go` (`updatePodGeneration`)        |
/// | CustomResourceDefinition                            | [`Spec`]              | `apiextensions-apiserver/pkg/registry/customresourcedefinition/`   |
/// | custom resources                                    | [`AllButMetadata`]    | `apiextensions-apiserver/pkg/registry/customresource/strategy.go`  |
/// | Validating/MutatingWebhookConfiguration (no status) | [`AllButMetadata`]    | `pkg/registry/admissionregistration/*webhookconfiguration/strategy.go` (bumped when `webhooks` change) |
/// | EndpointSlice (no status)                           | [`AllButMetadata`]    | `pkg/registry/discovery/endpointslice/strategy.go` (there a label change bumps it too) |
/// | ConfigMap, Secret, Namespace, Service, Endpoints, Event, Lease | [`Unset`]  | their `strategy.go`: no `Generation` at all                        |
///
/// Marking an object with finalizers as deleted bumps a set generation too
/// (`markAsDeleting` in the generic registry store).
///
/// [`SpecOrAnnotations`]: Generation::SpecOrAnnotations
/// [`Spec`]: Generation::Spec
/// [`AllButMetadata`]: Generation::AllButMetadata
/// [`Unset`]: Generation::Unset
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generation {
    /// The server never sets it.
    Unset,
    /// 1 on create; bumped when `spec` changes.
    Spec,
    /// 1 on create; bumped when `spec` or `metadata.annotations` change (a Deployment
    /// copies its annotations to its ReplicaSets).
    SpecOrAnnotations,
    /// 1 on create; bumped when anything but `metadata` changes: `status` too, unless
    /// the type has a status subresource (whose writes never bump it).
    AllButMetadata,
}

/// One served resource in one group version.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResourceType {
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) kind: String,
    pub(crate) list_kind: String,
    pub(crate) plural: String,
    pub(crate) singular: String,
    pub(crate) namespaced: bool,
    pub(crate) short_names: Vec<String>,
    pub(crate) categories: Vec<String>,
    /// Whether a `status` subresource exists.
    pub(crate) status: bool,
    /// The `scale` subresource, if any.
    pub(crate) scale: Option<ScalePaths>,
    /// Field selector labels besides `metadata.name` / `metadata.namespace` (dotted paths).
    pub(crate) selectable_fields: Vec<String>,
    /// The structural schema (`openAPIV3Schema`) for CRD versions.
    pub(crate) schema: Option<Value>,
    /// Whether this type was registered by a CRD.
    pub(crate) custom: bool,
    /// When the server sets and bumps `metadata.generation`.
    pub(crate) generation: Generation,
    /// A CRD version's `additionalPrinterColumns` (empty for built-ins: their columns
    /// are Kubernetes' printers').
    pub(crate) printer_columns: Vec<PrinterColumn>,
    /// How objects are converted between the served versions (`spec.conversion`).
    pub(crate) conversion: Conversion,
}

/// How a CRD's objects are converted between its versions (`spec.conversion.strategy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conversion {
    /// `None` (and every built-in kind): one stored object serves every version, with
    /// its `apiVersion` changed.
    None,
    /// `Webhook`: objects are stored at the storage version and converted by the
    /// webhook to any other.
    Webhook(Arc<ConversionWebhook>),
}

/// A CRD's conversion webhook (`spec.conversion.webhook`) and its storage version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConversionWebhook {
    /// `clientConfig.url` or `clientConfig.service`.
    pub(crate) client: WebhookClient,
    /// `clientConfig.caBundle`, decoded: the PEM certificates the call trusts.
    pub(crate) ca_bundle: Vec<u8>,
    /// The version objects are stored at (`storage: true`).
    pub(crate) storage_version: String,
}

/// Where a webhook (admission or conversion) is called: its `clientConfig`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WebhookClient {
    /// `clientConfig.url` (https).
    Url(String),
    /// `clientConfig.service`, resolved to a loopback address when called.
    Service(ServiceReference),
}

/// A `clientConfig.service`: the Service a webhook is reached through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServiceReference {
    /// `service.namespace`.
    pub(crate) namespace: String,
    /// `service.name`.
    pub(crate) name: String,
    /// `service.path` (empty: `/`).
    pub(crate) path: String,
    /// `service.port` (default 443): a port of the Service, not of its endpoints.
    pub(crate) port: u16,
}

impl ServiceReference {
    /// The name the webhook's certificate must hold, as kube-apiserver verifies it:
    /// `<name>.<namespace>.svc`.
    pub(crate) fn server_name(&self) -> String {
        format!("{}.{}.svc", self.name, self.namespace)
    }

    /// The URL kube-apiserver prints for a call: `https://<name>.<namespace>.svc:<port><path>`.
    pub(crate) fn url(&self) -> String {
        format!("https://{}:{}{}", self.server_name(), self.port, self.path)
    }
}

impl ResourceType {
    /// `group/version`, or `version` for the core group.
    pub(crate) fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The key objects are stored under: one store per group and plural, across versions.
    pub(crate) fn storage_key(&self) -> StorageKey {
        StorageKey {
            group: self.group.clone(),
            plural: self.plural.clone(),
        }
    }

    /// The verbs of the main resource, as discovery lists them.
    pub(crate) fn verbs(&self) -> Vec<&'static str> {
        let mut verbs = vec![
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
        ];
        if self.plural == "namespaces" && self.group.is_empty() {
            verbs.retain(|v| *v != "deletecollection");
        }
        verbs
    }
}

/// Identifies one object store: `(group, plural)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct StorageKey {
    pub(crate) group: String,
    pub(crate) plural: String,
}

/// One line of the built-in table.
struct BuiltIn {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    status: bool,
    scale: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    fields: &'static [&'static str],
    generation: Generation,
}

/// Built-in resources. Adding one is one line (the storage key is `(group, plural)`;
/// kind-specific defaulting lives in `objects::defaults`).
#[rustfmt::skip]
const BUILT_INS: &[BuiltIn] = &[
    //       group                   version kind                         plural                       ns     status scale  short names   categories  extra field selectors  generation
    BuiltIn { group: "",                    version: "v1", kind: "Namespace",  plural: "namespaces",  namespaced: false, status: true,  scale: false, short_names: &["ns"],     categories: &[],      fields: &["status.phase"], generation: Generation::Unset },
    BuiltIn { group: "",                    version: "v1", kind: "Pod",        plural: "pods",        namespaced: true,  status: true,  scale: false, short_names: &["po"],     categories: &["all"], fields: &["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"], generation: Generation::Spec },
    BuiltIn { group: "",                    version: "v1", kind: "Secret",     plural: "secrets",     namespaced: true,  status: false, scale: false, short_names: &[],         categories: &[],      fields: &["type"], generation: Generation::Unset },
    BuiltIn { group: "",                    version: "v1", kind: "ConfigMap",  plural: "configmaps",  namespaced: true,  status: false, scale: false, short_names: &["cm"],     categories: &[],      fields: &[], generation: Generation::Unset },
    BuiltIn { group: "",                    version: "v1", kind: "Service",    plural: "services",    namespaced: true,  status: true,  scale: false, short_names: &["svc"],    categories: &["all"], fields: &["spec.clusterIP", "spec.type"], generation: Generation::Unset },
    BuiltIn { group: "",                    version: "v1", kind: "Endpoints",  plural: "endpoints",   namespaced: true,  status: false, scale: false, short_names: &["ep"],     categories: &[],      fields: &[], generation: Generation::Unset },
    BuiltIn { group: "",                    version: "v1", kind: "Event",      plural: "events",      namespaced: true,  status: false, scale: false, short_names: &["ev"],     categories: &[],      fields: &["involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"], generation: Generation::Unset },
    BuiltIn { group: "events.k8s.io",       version: "v1", kind: "Event",      plural: "events",      namespaced: true,  status: false, scale: false, short_names: &["ev"],     categories: &[],      fields: &["regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "reason", "reportingController", "type"], generation: Generation::Unset },
    BuiltIn { group: "apps",                version: "v1", kind: "Deployment", plural: "deployments", namespaced: true,  status: true,  scale: true,  short_names: &["deploy"], categories: &["all"], fields: &[], generation: Generation::SpecOrAnnotations },
    BuiltIn { group: "apps",                version: "v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true,  status: true,  scale: true,  short_names: &["rs"],     categories: &["all"], fields: &["status.replicas"], generation: Generation::Spec },
    BuiltIn { group: "coordination.k8s.io", version: "v1", kind: "Lease",      plural: "leases",      namespaced: true,  status: false, scale: false, short_names: &[],         categories: &[],      fields: &[], generation: Generation::Unset },
    BuiltIn { group: "discovery.k8s.io",    version: "v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true, status: false, scale: false, short_names: &[], categories: &[], fields: &[], generation: Generation::AllButMetadata },
    BuiltIn { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false, status: false, scale: false, short_names: &[], categories: &["api-extensions"], fields: &[], generation: Generation::AllButMetadata },
    BuiltIn { group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false, status: false, scale: false, short_names: &[], categories: &["api-extensions"], fields: &[], generation: Generation::AllButMetadata },
    BuiltIn { group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false, status: true, scale: false, short_names: &["crd", "crds"], categories: &["api-extensions"], fields: &[], generation: Generation::Spec },
    BuiltIn { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", namespaced: true, status: false, scale: false, short_names: &[], categories: &[], fields: &[], generation: Generation::Unset },
    BuiltIn { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", namespaced: true, status: false, scale: false, short_names: &[], categories: &[], fields: &[], generation: Generation::Unset },
    BuiltIn { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false, status: false, scale: false, short_names: &[], categories: &[], fields: &[], generation: Generation::Unset },
    BuiltIn { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false, status: false, scale: false, short_names: &[], categories: &[], fields: &[], generation: Generation::Unset },
];

impl BuiltIn {
    fn resource_type(&self) -> ResourceType {
        ResourceType {
            group: self.group.to_owned(),
            version: self.version.to_owned(),
            kind: self.kind.to_owned(),
            list_kind: format!("{}List", self.kind),
            plural: self.plural.to_owned(),
            singular: self.kind.to_lowercase(),
            namespaced: self.namespaced,
            short_names: self.short_names.iter().map(|s| (*s).to_owned()).collect(),
            categories: self.categories.iter().map(|s| (*s).to_owned()).collect(),
            status: self.status,
            scale: self.scale.then(|| ScalePaths {
                spec_replicas: "spec.replicas".to_owned(),
                status_replicas: "status.replicas".to_owned(),
                selector: Some(SelectorSource::LabelSelectorAt("spec.selector".to_owned())),
            }),
            selectable_fields: self.fields.iter().map(|s| (*s).to_owned()).collect(),
            schema: None,
            custom: false,
            generation: self.generation,
            printer_columns: Vec::new(),
            conversion: Conversion::None,
        }
    }
}

/// Served resource types by group, version and plural.
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    /// `(group, version, plural)` -> type.
    types: BTreeMap<(String, String, String), Arc<ResourceType>>,
}

impl Registry {
    /// A registry holding the built-in table.
    pub(crate) fn with_built_ins() -> Self {
        let mut registry = Self {
            types: BTreeMap::new(),
        };
        for built_in in BUILT_INS {
            registry.insert(built_in.resource_type());
        }
        registry
    }

    pub(crate) fn insert(&mut self, rt: ResourceType) {
        let key = (rt.group.clone(), rt.version.clone(), rt.plural.clone());
        self.types.insert(key, Arc::new(rt));
    }

    /// Removes every version of the given group/plural that a CRD registered.
    pub(crate) fn remove_custom(&mut self, group: &str, plural: &str) {
        self.types
            .retain(|(g, _, p), rt| !(rt.custom && g == group && p == plural));
    }

    pub(crate) fn get(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<Arc<ResourceType>> {
        self.types
            .get(&(group.to_owned(), version.to_owned(), plural.to_owned()))
            .cloned()
    }

    /// The type an ownerReference's `apiVersion` and `kind` name (`apps/v1`,
    /// `Deployment`), if served.
    pub(crate) fn by_kind(&self, api_version: &str, kind: &str) -> Option<Arc<ResourceType>> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.types
            .iter()
            .find(|((g, v, _), rt)| g == group && v == version && rt.kind == kind)
            .map(|(_, rt)| rt.clone())
    }

    /// Any served version of a storage key (to render objects of that store).
    pub(crate) fn any_version(&self, key: &StorageKey) -> Option<Arc<ResourceType>> {
        self.types
            .values()
            .find(|rt| rt.group == key.group && rt.plural == key.plural)
            .cloned()
    }

    /// Every served version of a storage key, preferred version first (Kubernetes'
    /// version priority): the resources equivalent to one another.
    pub(crate) fn versions_of(&self, key: &StorageKey) -> Vec<Arc<ResourceType>> {
        let mut versions: Vec<_> = self
            .types
            .values()
            .filter(|rt| rt.group == key.group && rt.plural == key.plural)
            .cloned()
            .collect();
        versions.sort_by(|a, b| {
            version_priority(&b.version)
                .cmp(&version_priority(&a.version))
                .then_with(|| a.version.cmp(&b.version))
        });
        versions
    }

    /// Types in a group version, sorted by plural.
    pub(crate) fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<ResourceType>> {
        self.types
            .iter()
            .filter(|((g, v, _), _)| g == group && v == version)
            .map(|(_, rt)| rt.clone())
            .collect()
    }

    /// Named groups (not the core group) with their versions, preferred version first.
    pub(crate) fn groups(&self) -> BTreeMap<String, Vec<String>> {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (group, version, _) in self.types.keys() {
            if group.is_empty() {
                continue;
            }
            let versions = groups.entry(group.clone()).or_default();
            if !versions.contains(version) {
                versions.push(version.clone());
            }
        }
        for versions in groups.values_mut() {
            versions.sort_by(|a, b| {
                version_priority(b)
                    .cmp(&version_priority(a))
                    .then_with(|| a.cmp(b))
            });
        }
        groups
    }
}

/// Kubernetes version ordering: GA > beta > alpha, higher numbers first; others last.
pub(crate) fn version_priority(version: &str) -> (u8, u64, u64) {
    let Some(rest) = version.strip_prefix('v') else {
        return (0, 0, 0);
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(major) = digits.parse::<u64>() else {
        return (0, 0, 0);
    };
    let tail = &rest[digits.len()..];
    let (level, tail) = if tail.is_empty() {
        return (3, major, 0);
    } else if let Some(t) = tail.strip_prefix("beta") {
        (2, t)
    } else if let Some(t) = tail.strip_prefix("alpha") {
        (1, t)
    } else {
        return (0, 0, 0);
    };
    match tail.parse::<u64>() {
        Ok(minor) => (level, major, minor),
        Err(_) => (0, 0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;

    #[test]
    fn versions_sort_like_kubernetes() {
        let mut versions = vec!["v1alpha1", "v2", "v1beta2", "v1", "foo", "v1beta1"];
        versions.sort_by(|a, b| {
            version_priority(b)
                .cmp(&version_priority(a))
                .then_with(|| a.cmp(b))
        });
        assert_eq!(
            versions,
            ["v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]
        );
    }

    #[test]
    fn built_ins_are_registered() {
        let registry = Registry::with_built_ins();
        let deployments = registry
            .get("apps", "v1", "deployments")
            .expect("deployments");
        assert!(deployments.status && deployments.scale.is_some());
        assert_eq!(registry.groups()["apps"], ["v1"]);
        assert!(
            registry
                .get("", "v1", "namespaces")
                .is_some_and(|rt| !rt.namespaced)
        );
    }

    #[test]
    fn every_served_built_in_has_its_facts() {
        let registry = Registry::with_built_ins();
        let mut versions = vec![(String::new(), vec!["v1".to_owned()])];
        versions.extend(registry.groups());
        let built_ins: Vec<_> = versions
            .iter()
            .flat_map(|(group, versions)| versions.iter().map(move |v| (group, v)))
            .flat_map(|(group, version)| registry.in_group_version(group, version))
            .collect();
        for rt in &built_ins {
            assert!(
                builtin::definition(&rt.group, &rt.version, &rt.kind).is_some(),
                "{}/{} {} is served but not in the generated tables: add it to \
                 `SERVED` in codegen/src/testkit_tables/mod.rs and run hack/update-codegen.sh",
                rt.group,
                rt.version,
                rt.kind
            );
        }
        assert_eq!(builtin::kind_count(), built_ins.len(), "and nothing else");
    }
}
