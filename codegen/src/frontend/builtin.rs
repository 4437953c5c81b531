//! The built-in API groups kubegen generates a `kubernetes` clientset and informer
//! factory for, with k8s-openapi as the type source.
//!
//! A committed table rather than the OpenAPI documents: the client surface needs only
//! names, scope and subresources, which the table states in one screen and which do not
//! depend on documents being present at generation time (the corpus is test data, not a
//! build input); the types themselves come from k8s-openapi. Kinds that cannot be listed
//! or watched (`Binding`, `Eviction`) and the deprecated `ComponentStatus` are left out.
//!
//! Each kind's Rust type is k8s-openapi's, by path ([`RootType::External`]): the
//! generated clients name it through the facade's re-export of k8s-openapi.
//!
//! The kinds' fields, for the apply configurations, are the OpenAPI front-end's to read
//! from Kubernetes' OpenAPI documents ([`load_external_fields`]; [`Input::Kubernetes`]
//! with documents runs both): the types stay k8s-openapi's, the model describes their
//! fields. Without documents the kinds have no field model (the clients need none).
//!
//! [`load_external_fields`]: super::openapi::load_external_fields
//! [`Input::Kubernetes`]: super::Input::Kubernetes
//!
//! ```
//! use kubegen_codegen::frontend::builtin;
//! use kubegen_codegen::model::{Model, RootType};
//!
//! let mut model = Model::default();
//! builtin::load(&mut model, &builtin::Options::default())?;
//! let apps = &model.groups["apps"].versions["v1"];
//! assert!(apps.kinds["Deployment"].subresources.scale.is_some());
//! assert!(matches!(&apps.kinds["Deployment"].root,
//!     RootType::External(t) if t.path == "k8s_openapi::api::apps::v1::Deployment"));
//! assert_eq!(model.groups[""].versions["v1"].kinds["Endpoints"].names.plural, "endpoints");
//! # Ok::<(), kubegen_codegen::frontend::Error>(())
//! ```

use super::{Error, Result, Versions};
use crate::model::{
    ClientVerbs, ExternalType, Kind, KindNames, Model, Origin, RootType, Scale, Scope, Subresources,
};
use crate::naming;

/// Options of the built-in front-end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Which versions to add (each built-in kind here has one version, served and stored).
    pub versions: Versions,
}

impl Options {
    /// Selects the versions to add.
    pub fn versions(mut self, versions: Versions) -> Self {
        self.versions = versions;
        self
    }
}

/// Subresources of a built-in kind.
#[derive(Clone, Copy)]
enum Sub {
    None,
    Status,
    StatusScale,
}

use Scope::{Cluster, Namespaced};
use Sub::{None as Plain, Status, StatusScale};

/// (group, version, kind, scope, subresources).
const KINDS: &[(&str, &str, &str, Scope, Sub)] = &[
    ("", "v1", "ConfigMap", Namespaced, Plain),
    ("", "v1", "Endpoints", Namespaced, Plain),
    ("", "v1", "Event", Namespaced, Plain),
    ("", "v1", "LimitRange", Namespaced, Plain),
    ("", "v1", "Namespace", Cluster, Status),
    ("", "v1", "Node", Cluster, Status),
    ("", "v1", "PersistentVolume", Cluster, Status),
    ("", "v1", "PersistentVolumeClaim", Namespaced, Status),
    ("", "v1", "Pod", Namespaced, Status),
    ("", "v1", "PodTemplate", Namespaced, Plain),
    ("", "v1", "ReplicationController", Namespaced, StatusScale),
    ("", "v1", "ResourceQuota", Namespaced, Status),
    ("", "v1", "Secret", Namespaced, Plain),
    ("", "v1", "Service", Namespaced, Status),
    ("", "v1", "ServiceAccount", Namespaced, Plain),
    ("apps", "v1", "ControllerRevision", Namespaced, Plain),
    ("apps", "v1", "DaemonSet", Namespaced, Status),
    ("apps", "v1", "Deployment", Namespaced, StatusScale),
    ("apps", "v1", "ReplicaSet", Namespaced, StatusScale),
    ("apps", "v1", "StatefulSet", Namespaced, StatusScale),
    (
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        Namespaced,
        Status,
    ),
    ("batch", "v1", "CronJob", Namespaced, Status),
    ("batch", "v1", "Job", Namespaced, Status),
    ("coordination.k8s.io", "v1", "Lease", Namespaced, Plain),
    ("networking.k8s.io", "v1", "IPAddress", Cluster, Plain),
    ("networking.k8s.io", "v1", "Ingress", Namespaced, Status),
    ("networking.k8s.io", "v1", "IngressClass", Cluster, Plain),
    (
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        Namespaced,
        Plain,
    ),
    ("networking.k8s.io", "v1", "ServiceCIDR", Cluster, Status),
    ("policy", "v1", "PodDisruptionBudget", Namespaced, Status),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        Cluster,
        Plain,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        Cluster,
        Plain,
    ),
    ("rbac.authorization.k8s.io", "v1", "Role", Namespaced, Plain),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        Namespaced,
        Plain,
    ),
    ("storage.k8s.io", "v1", "CSIDriver", Cluster, Plain),
    ("storage.k8s.io", "v1", "CSINode", Cluster, Plain),
    (
        "storage.k8s.io",
        "v1",
        "CSIStorageCapacity",
        Namespaced,
        Plain,
    ),
    ("storage.k8s.io", "v1", "StorageClass", Cluster, Plain),
    ("storage.k8s.io", "v1", "VolumeAttachment", Cluster, Status),
    (
        "storage.k8s.io",
        "v1",
        "VolumeAttributesClass",
        Cluster,
        Plain,
    ),
];

/// Adds the built-in kinds of the selected versions to `model` (their types are
/// k8s-openapi's), then validates it. The table is the input; the kinds get no fields
/// (see the module docs).
pub fn load(model: &mut Model, options: &Options) -> Result<()> {
    for &(group, version, kind, scope, sub) in KINDS {
        if !options.versions.selects(version, true, true) {
            continue;
        }
        let scale = matches!(sub, StatusScale).then(|| Scale {
            spec_replicas_path: ".spec.replicas".to_owned(),
            status_replicas_path: ".status.replicas".to_owned(),
            label_selector_path: Some(".status.selector".to_owned()),
        });
        let names = KindNames {
            plural: naming::plural(kind),
            singular: kind.to_ascii_lowercase(),
            short_names: Vec::new(),
            categories: Vec::new(),
            list_kind: format!("{kind}List"),
        };
        let path = format!(
            "k8s_openapi::api::{}::{version}::{kind}",
            naming::group_short(group)
        );
        let entry = Kind {
            name: kind.to_owned(),
            names,
            scope,
            served: true,
            storage: true,
            deprecated: None,
            client_verbs: ClientVerbs::default(),
            subresources: Subresources {
                status: !matches!(sub, Plain),
                scale,
            },
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            validation: Default::default(),
            root: RootType::External(ExternalType::new(path, true)),
            module: naming::kind_module(kind),
            origin: Origin::default(),
        };
        let target = model.version_mut(group, version);
        if target.kinds.contains_key(kind) {
            return Err(Error::DuplicateKind {
                at: None,
                api_version: naming::api_version(group, version),
                kind: kind.to_owned(),
            });
        }
        target.kinds.insert(kind.to_owned(), entry);
    }
    model.validate()?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn model() -> Model {
        let mut model = Model::default();
        load(&mut model, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        model
    }

    #[test]
    fn versions_select_kinds() {
        let mut model = Model::default();
        load(
            &mut model,
            &Options::default().versions("v2".parse().unwrap()),
        )
        .unwrap();
        assert_eq!(model.kind_count(), 1);
        assert!(
            model.groups["autoscaling"].versions["v2"]
                .kinds
                .contains_key("HorizontalPodAutoscaler")
        );
    }

    #[test]
    fn every_requested_group_is_present() {
        let model = model();
        let groups: Vec<&str> = model.groups.keys().map(String::as_str).collect();
        assert_eq!(
            groups,
            [
                "",
                "apps",
                "autoscaling",
                "batch",
                "coordination.k8s.io",
                "networking.k8s.io",
                "policy",
                "rbac.authorization.k8s.io",
                "storage.k8s.io"
            ]
        );
        assert_eq!(model.kind_count(), KINDS.len());
        let core = &model.groups[""].versions["v1"].kinds;
        assert_eq!(core["Node"].scope, Scope::Cluster);
        assert_eq!(core["Pod"].names.plural, "pods");
        let policies = &model.groups["networking.k8s.io"].versions["v1"].kinds["NetworkPolicy"];
        assert_eq!(policies.names.plural, "networkpolicies");
        assert_eq!(
            model.groups["networking.k8s.io"].versions["v1"].kinds["Ingress"]
                .names
                .plural,
            "ingresses"
        );
    }
}
