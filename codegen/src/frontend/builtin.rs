//! The built-in API groups kubegen generates a `kubernetes` clientset and informer
//! factory for, with k8s-openapi as the type source.
//!
//! A committed table rather than the OpenAPI documents: the client surface needs only
//! names, scope and subresources, which the table states in one screen and which do not
//! depend on documents being present at generation time (the corpus is test data, not a
//! build input); the types themselves come from k8s-openapi. It covers the GA versions of
//! the groups client-go's `kubernetes` clientset has (57 listed and watched kinds in 18
//! groups, [`KINDS`]), CustomResourceDefinitions, and the six create-only reviews of
//! `authentication.k8s.io` and `authorization.k8s.io` ([`REVIEWS`]: a client with
//! `create` alone, no lister or informer, no apply configuration, as in client-go). Left
//! out: the other kinds that cannot be listed or watched (`Binding`, `Eviction`,
//! `TokenRequest`, `Scale`: subresources in client-go, methods of another kind's client),
//! the deprecated `ComponentStatus` (listed, never watched), and `apiregistration.k8s.io`
//! `APIService`, which is kube-aggregator's clientset's in Go, not client-go's; alpha and
//! beta versions too.
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
//! use kubegen_codegen::__internal::frontend::builtin;
//! use kubegen_codegen::__internal::model::{Model, RootType};
//!
//! let mut model = Model::default();
//! builtin::load(&mut model, &builtin::Options::default())?;
//! let apps = &model.groups["apps"].versions["v1"];
//! assert!(apps.kinds["Deployment"].subresources.scale.is_some());
//! assert!(matches!(&apps.kinds["Deployment"].root,
//!     RootType::External(t) if t.path == "k8s_openapi::api::apps::v1::Deployment"));
//! assert_eq!(model.groups[""].versions["v1"].kinds["Endpoints"].names.plural, "endpoints");
//! # Ok::<(), kubegen_codegen::__internal::frontend::Error>(())
//! ```

use super::{Error, Result, Versions};
use crate::model::{
    ClientVerb, ClientVerbs, ExternalType, Kind, KindNames, Model, Origin, RootType, Scale, Scope,
    Subresources,
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

/// (group, version, kind, scope, subresources): every kind that client-go's `kubernetes`
/// clientset serves at a GA version (`v1`, `v2`) and that can be listed and watched, plus
/// `apiextensions.k8s.io/v1` CustomResourceDefinition (the apiextensions-apiserver's
/// clientset has it in Go; operators install CRDs and set their conversion webhooks). The
/// facts are the API server's: `codegen/tests/builtin_kinds.rs` checks every row against
/// Kubernetes' OpenAPI document, and that nothing it serves is missing but the kinds it
/// leaves out with their reasons. Subresources other than status and scale (`approval`,
/// `finalize`, `ephemeralcontainers`, `resize`, `log`...) get no client methods.
#[rustfmt::skip] // One row a line.
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
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", Cluster, Plain),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", Cluster, Status),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", Cluster, Plain),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", Cluster, Plain),
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", Cluster, Status),
    ("apps", "v1", "ControllerRevision", Namespaced, Plain),
    ("apps", "v1", "DaemonSet", Namespaced, Status),
    ("apps", "v1", "Deployment", Namespaced, StatusScale),
    ("apps", "v1", "ReplicaSet", Namespaced, StatusScale),
    ("apps", "v1", "StatefulSet", Namespaced, StatusScale),
    ("autoscaling", "v1", "HorizontalPodAutoscaler", Namespaced, Status),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", Namespaced, Status),
    ("batch", "v1", "CronJob", Namespaced, Status),
    ("batch", "v1", "Job", Namespaced, Status),
    ("certificates.k8s.io", "v1", "CertificateSigningRequest", Cluster, Status),
    ("coordination.k8s.io", "v1", "Lease", Namespaced, Plain),
    ("discovery.k8s.io", "v1", "EndpointSlice", Namespaced, Plain),
    ("events.k8s.io", "v1", "Event", Namespaced, Plain),
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", Cluster, Status),
    ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", Cluster, Status),
    ("networking.k8s.io", "v1", "IPAddress", Cluster, Plain),
    ("networking.k8s.io", "v1", "Ingress", Namespaced, Status),
    ("networking.k8s.io", "v1", "IngressClass", Cluster, Plain),
    ("networking.k8s.io", "v1", "NetworkPolicy", Namespaced, Plain),
    ("networking.k8s.io", "v1", "ServiceCIDR", Cluster, Status),
    ("node.k8s.io", "v1", "RuntimeClass", Cluster, Plain),
    ("policy", "v1", "PodDisruptionBudget", Namespaced, Status),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", Cluster, Plain),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", Cluster, Plain),
    ("rbac.authorization.k8s.io", "v1", "Role", Namespaced, Plain),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", Namespaced, Plain),
    ("resource.k8s.io", "v1", "DeviceClass", Cluster, Plain),
    ("resource.k8s.io", "v1", "ResourceClaim", Namespaced, Status),
    ("resource.k8s.io", "v1", "ResourceClaimTemplate", Namespaced, Plain),
    ("resource.k8s.io", "v1", "ResourceSlice", Cluster, Plain),
    ("scheduling.k8s.io", "v1", "PriorityClass", Cluster, Plain),
    ("storage.k8s.io", "v1", "CSIDriver", Cluster, Plain),
    ("storage.k8s.io", "v1", "CSINode", Cluster, Plain),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", Namespaced, Plain),
    ("storage.k8s.io", "v1", "StorageClass", Cluster, Plain),
    ("storage.k8s.io", "v1", "VolumeAttachment", Cluster, Status),
    ("storage.k8s.io", "v1", "VolumeAttributesClass", Cluster, Plain),
];

/// (group, version, kind, scope): the create-only kinds of client-go's `kubernetes`
/// clientset at a GA version, `AuthenticationV1()` and `AuthorizationV1()`: the API server
/// answers a POST with the review's `status` and stores nothing, so their clients offer
/// `create` alone. `codegen/tests/builtin_kinds.rs` checks each against Kubernetes'
/// OpenAPI document (its only `x-kubernetes-action` is `post`).
#[rustfmt::skip] // One row a line.
const REVIEWS: &[(&str, &str, &str, Scope)] = &[
    ("authentication.k8s.io", "v1", "SelfSubjectReview", Cluster),
    ("authentication.k8s.io", "v1", "TokenReview", Cluster),
    ("authorization.k8s.io", "v1", "LocalSubjectAccessReview", Namespaced),
    ("authorization.k8s.io", "v1", "SelfSubjectAccessReview", Cluster),
    ("authorization.k8s.io", "v1", "SelfSubjectRulesReview", Cluster),
    ("authorization.k8s.io", "v1", "SubjectAccessReview", Cluster),
];

/// The k8s-openapi module of a built-in group's version, which mirrors the Go package:
/// `k8s_openapi::api::apps::v1` (`k8s.io/api/apps/v1`), and for `apiextensions.k8s.io` the
/// apiextensions-apiserver's package.
fn k8s_openapi_module(group: &str, version: &str) -> String {
    match group {
        "apiextensions.k8s.io" => {
            format!("k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::{version}")
        }
        _ => format!(
            "k8s_openapi::api::{}::{version}",
            naming::group_short(group)
        ),
    }
}

/// Adds the built-in kinds of the selected versions to `model` (their types are
/// k8s-openapi's), then validates it. The table is the input; the kinds get no fields
/// (see the module docs).
pub fn load(model: &mut Model, options: &Options) -> Result<()> {
    let every_verb = KINDS.iter().map(|&(group, version, kind, scope, sub)| {
        (group, version, kind, scope, sub, ClientVerbs::default())
    });
    let create_only = REVIEWS.iter().map(|&(group, version, kind, scope)| {
        let verbs = ClientVerbs {
            verbs: [ClientVerb::Create].into_iter().collect(),
            no_status: false,
        };
        (group, version, kind, scope, Plain, verbs)
    });
    for (group, version, kind, scope, sub, client_verbs) in every_verb.chain(create_only) {
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
        let path = format!("{}::{kind}", k8s_openapi_module(group, version));
        let entry = Kind {
            name: kind.to_owned(),
            names,
            scope,
            served: true,
            storage: true,
            deprecated: None,
            client_verbs,
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
    fn types_are_k8s_openapi_paths_of_their_group() {
        let model = model();
        let path = |group: &str, version: &str, kind: &str| match &model.groups[group].versions
            [version]
            .kinds[kind]
            .root
        {
            RootType::External(t) => t.path.clone(),
            other => panic!("{kind}: {other:?}"),
        };
        assert_eq!(path("", "v1", "Event"), "k8s_openapi::api::core::v1::Event");
        assert_eq!(
            path("events.k8s.io", "v1", "Event"),
            "k8s_openapi::api::events::v1::Event"
        );
        assert_eq!(
            path("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"),
            "k8s_openapi::api::flowcontrol::v1::FlowSchema"
        );
        assert_eq!(
            path("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition"
        );
    }

    #[test]
    fn reviews_are_create_only_and_the_rest_have_every_verb() {
        let model = model();
        let authorization = &model.groups["authorization.k8s.io"].versions["v1"].kinds;
        let review = &authorization["LocalSubjectAccessReview"];
        assert_eq!(review.scope, Scope::Namespaced);
        assert_eq!(review.names.plural, "localsubjectaccessreviews");
        assert_eq!(
            review
                .client_verbs
                .verbs
                .iter()
                .copied()
                .collect::<Vec<_>>(),
            [ClientVerb::Create]
        );
        assert!(!review.client_verbs.informable());
        let tokens = &model.groups["authentication.k8s.io"].versions["v1"].kinds["TokenReview"];
        assert_eq!(tokens.scope, Scope::Cluster);
        assert!(matches!(&tokens.root,
            RootType::External(t) if t.path == "k8s_openapi::api::authentication::v1::TokenReview"));
        let pods = &model.groups[""].versions["v1"].kinds["Pod"];
        assert!(pods.client_verbs.is_all());
    }

    #[test]
    fn every_requested_group_is_present() {
        let model = model();
        let groups: Vec<&str> = model.groups.keys().map(String::as_str).collect();
        assert_eq!(
            groups,
            [
                "",
                "admissionregistration.k8s.io",
                "apiextensions.k8s.io",
                "apps",
                "authentication.k8s.io",
                "authorization.k8s.io",
                "autoscaling",
                "batch",
                "certificates.k8s.io",
                "coordination.k8s.io",
                "discovery.k8s.io",
                "events.k8s.io",
                "flowcontrol.apiserver.k8s.io",
                "networking.k8s.io",
                "node.k8s.io",
                "policy",
                "rbac.authorization.k8s.io",
                "resource.k8s.io",
                "scheduling.k8s.io",
                "storage.k8s.io"
            ]
        );
        assert_eq!(model.kind_count(), KINDS.len() + REVIEWS.len());
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
