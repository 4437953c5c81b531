//! Authorization as kube-apiserver's RBAC authorizer decides it
//! (`plugin/pkg/auth/authorizer/rbac/`): a request is allowed when a rule of a role bound
//! to its user allows it. ClusterRoleBindings grant their ClusterRole everywhere;
//! RoleBindings grant their Role, or a ClusterRole, in their own namespace only. What
//! kube-apiserver's default bindings give every authenticated user (`system:discovery`,
//! `system:basic-user`, `system:public-info-viewer`) is granted without stored objects.
//!
//! Also here: the Forbidden Status of a denied request and the access reviews
//! (`review.rs`: SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview,
//! and SelfSubjectRulesReview, from [`rules_of`]).

use serde_json::Value;

use crate::store::registry::StorageKey;
use crate::store::status::ApiError;
use crate::store::storage::Cluster;
use crate::store::tokens::{AUTHENTICATED, User};

pub(crate) mod review;
mod rules;

pub(crate) use rules::Rule;

/// The group of the RBAC kinds.
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// What a request asks to do, as kube-apiserver's `RequestInfo` and
/// `authorizer.Attributes` describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Attributes {
    /// A request for a resource, an object or a subresource.
    Resource(ResourceAttributes),
    /// Any other path (discovery, OpenAPI, health), with the HTTP method in lower case
    /// as its verb.
    NonResource { verb: String, path: String },
}

/// A request for a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceAttributes {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` or
    /// `deletecollection`.
    pub(crate) verb: String,
    /// The API group (`""` for core).
    pub(crate) group: String,
    /// The plural, e.g. `deployments`.
    pub(crate) resource: String,
    /// `status`, `scale`...
    pub(crate) subresource: Option<String>,
    /// Empty for cluster-scoped requests and requests across all namespaces.
    pub(crate) namespace: String,
    /// Empty for requests naming no object (list, watch, create, deletecollection).
    pub(crate) name: String,
}

/// The authorizer's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) allowed: bool,
    /// Which binding allowed it (`RBAC: allowed by ...`); empty when denied.
    pub(crate) reason: String,
}

/// What kube-apiserver's bootstrap ClusterRoles `system:discovery`,
/// `system:public-info-viewer` and `system:basic-user` allow, bound to
/// `system:authenticated` by its default ClusterRoleBindings.
fn default_rules() -> [(&'static str, Rule); 3] {
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    [
        (
            "system:discovery",
            Rule {
                verbs: strings(&["get"]),
                non_resource_urls: strings(&[
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                    "/healthz",
                    "/livez",
                    "/openapi",
                    "/openapi/*",
                    "/readyz",
                    "/version",
                    "/version/",
                ]),
                ..Rule::default()
            },
        ),
        (
            "system:basic-user",
            Rule {
                verbs: strings(&["create"]),
                api_groups: strings(&["authorization.k8s.io"]),
                resources: strings(&["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
                ..Rule::default()
            },
        ),
        (
            "system:basic-user",
            Rule {
                verbs: strings(&["create"]),
                api_groups: strings(&["authentication.k8s.io"]),
                resources: strings(&["selfsubjectreviews"]),
                ..Rule::default()
            },
        ),
    ]
}

/// One subject of a binding.
struct Subject<'a> {
    kind: &'a str,
    name: &'a str,
    namespace: &'a str,
}

fn subjects(binding: &Value) -> Vec<Subject<'_>> {
    binding
        .get("subjects")
        .and_then(Value::as_array)
        .map(|subjects| {
            subjects
                .iter()
                .map(|s| {
                    let field = |f: &str| s.get(f).and_then(Value::as_str).unwrap_or_default();
                    Subject {
                        kind: field("kind"),
                        name: field("name"),
                        namespace: field("namespace"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Subject<'_> {
    /// Whether the subject is `user`; a ServiceAccount without a namespace is one of the
    /// binding's namespace (`binding_namespace`, empty for a ClusterRoleBinding).
    fn applies_to(&self, user: &User, binding_namespace: &str) -> bool {
        match self.kind {
            "User" => user.name == self.name,
            "Group" => user.groups.iter().any(|g| g == self.name),
            "ServiceAccount" => {
                let namespace = if self.namespace.is_empty() {
                    binding_namespace
                } else {
                    self.namespace
                };
                !namespace.is_empty() && user.service_account_name() == Some((namespace, self.name))
            }
            _ => false,
        }
    }

    /// As the RBAC authorizer names a subject in its reasons.
    fn describe(&self, binding_namespace: &str) -> String {
        if self.kind == "ServiceAccount" {
            let namespace = if self.namespace.is_empty() {
                binding_namespace
            } else {
                self.namespace
            };
            format!("{} {:?}", self.kind, format!("{}/{namespace}", self.name))
        } else {
            format!("{} {:?}", self.kind, self.name)
        }
    }
}

fn key(plural: &str) -> StorageKey {
    StorageKey {
        group: RBAC_GROUP.to_owned(),
        plural: plural.to_owned(),
    }
}

/// The rules of the role a binding refers to (none when it does not exist).
fn bound_rules(cluster: &Cluster, binding: &Value, namespace: &str) -> (String, String, Vec<Rule>) {
    let field = |f: &str| {
        binding
            .pointer(&format!("/roleRef/{f}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (kind, name) = (field("kind"), field("name"));
    let role = match kind {
        "ClusterRole" => cluster.get(&key("clusterroles"), "", name),
        "Role" if !namespace.is_empty() => cluster.get(&key("roles"), namespace, name),
        _ => None,
    };
    let rules = role.map(|r| rules::of_role(&r)).unwrap_or_default();
    (kind.to_owned(), name.to_owned(), rules)
}

/// Decides `request` by `user` from the stored roles and bindings.
pub(crate) fn authorize(cluster: &Cluster, user: &User, request: &Attributes) -> Decision {
    let allowed = |reason: String| Decision {
        allowed: true,
        reason: format!("RBAC: allowed by {reason}"),
    };
    if user.groups.iter().any(|g| g == AUTHENTICATED)
        && let Some((role, _)) = default_rules().iter().find(|(_, r)| r.allows(request))
    {
        return allowed(format!(
            "ClusterRoleBinding {role:?} of ClusterRole {role:?} to Group {AUTHENTICATED:?}"
        ));
    }
    for binding in cluster.current(&key("clusterrolebindings")).values() {
        let name = binding
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for subject in subjects(binding).iter().filter(|s| s.applies_to(user, "")) {
            let (kind, role, rules) = bound_rules(cluster, binding, "");
            if kind == "ClusterRole" && rules.iter().any(|r| r.allows(request)) {
                return allowed(format!(
                    "ClusterRoleBinding {name:?} of {kind} {role:?} to {}",
                    subject.describe("")
                ));
            }
        }
    }
    let namespace = match request {
        Attributes::Resource(resource) => resource.namespace.as_str(),
        Attributes::NonResource { .. } => "",
    };
    if !namespace.is_empty() {
        let bindings = cluster.current(&key("rolebindings"));
        for ((binding_namespace, name), binding) in bindings.iter() {
            if binding_namespace != namespace {
                continue;
            }
            for subject in subjects(binding)
                .iter()
                .filter(|s| s.applies_to(user, namespace))
            {
                let (kind, role, rules) = bound_rules(cluster, binding, namespace);
                if rules.iter().any(|r| r.allows(request)) {
                    return allowed(format!(
                        "RoleBinding {:?} of {kind} {role:?} to {}",
                        format!("{name}/{namespace}"),
                        subject.describe(namespace)
                    ));
                }
            }
        }
    }
    Decision {
        allowed: false,
        reason: String::new(),
    }
}

/// Every rule that applies to `user` in `namespace`, as a SelfSubjectRulesReview lists
/// them: the default roles' for authenticated users, the ClusterRoles bound to it by
/// ClusterRoleBindings, and the roles bound by RoleBindings of `namespace`.
pub(crate) fn rules_of(cluster: &Cluster, user: &User, namespace: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    if user.groups.iter().any(|g| g == AUTHENTICATED) {
        out.extend(default_rules().into_iter().map(|(_, rule)| rule));
    }
    for binding in cluster.current(&key("clusterrolebindings")).values() {
        if subjects(binding).iter().any(|s| s.applies_to(user, "")) {
            let (kind, _, rules) = bound_rules(cluster, binding, "");
            if kind == "ClusterRole" {
                out.extend(rules);
            }
        }
    }
    if !namespace.is_empty() {
        let bindings = cluster.current(&key("rolebindings"));
        for ((binding_namespace, _), binding) in bindings.iter() {
            if binding_namespace == namespace
                && subjects(binding)
                    .iter()
                    .any(|s| s.applies_to(user, namespace))
            {
                out.extend(bound_rules(cluster, binding, namespace).2);
            }
        }
    }
    out
}

/// The 403 kube-apiserver answers a denied request with (`responsewriters.Forbidden`).
pub(crate) fn forbidden(user: &User, request: &Attributes) -> ApiError {
    match request {
        Attributes::NonResource { verb, path } => ApiError::forbidden_request(
            "",
            "",
            "",
            &format!("User {:?} cannot {verb} path {path:?}", user.name),
        ),
        Attributes::Resource(r) => {
            let resource = match &r.subresource {
                Some(sub) => format!("{}/{sub}", r.resource),
                None => r.resource.clone(),
            };
            let scope = if r.namespace.is_empty() {
                "at the cluster scope".to_owned()
            } else {
                format!("in the namespace {:?}", r.namespace)
            };
            let why = format!(
                "User {:?} cannot {} resource {resource:?} in API group {:?} {scope}",
                user.name, r.verb, r.group
            );
            ApiError::forbidden_request(&r.group, &r.resource, &r.name, &why)
        }
    }
}
