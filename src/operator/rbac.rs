//! The RBAC rules a [`Manager`](super::Manager)'s controllers need, derived from what the
//! code already states instead of a hand-kept manifest: `get`, `list` and `watch` on
//! every resource its informer factory watches, `create` and `patch` on
//! `events.k8s.io` Events when it made an event recorder, `get`, `create` and `update`
//! on Leases in the Lease's namespace under leader election, and the writes each
//! controller declares next to it with [`Access`].
//!
//! ```no_run
//! # fn demo(client: kube::Client) {
//! use k8s_openapi::api::apps::v1::Deployment;
//! use kubegen::operator::{Access, Manager};
//! use kubegen::runtime::error::Verb;
//!
//! let mut manager = Manager::new(client);
//! let _deployments = manager.factory().informer::<Deployment>();
//! manager.needs(Access::to::<Deployment>(&[Verb::Create, Verb::Update]));
//! manager.needs(Access::to::<Deployment>(&[Verb::Patch]).subresource("status"));
//! let (cluster_role, lease_role) = manager.rbac("my-operator");
//! # let _ = (cluster_role, lease_role);
//! # }
//! ```

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule, Role};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kubegen_runtime::error::Verb;
use kubegen_runtime::factory::InformedResource;

/// Access a controller needs to a resource beyond watching it (which its informers
/// already say), declared next to the controller with
/// [`Manager::needs`](super::Manager::needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    group: String,
    resource: String,
    verbs: BTreeSet<&'static str>,
}

impl Access {
    /// `verbs` on `K`'s resource, e.g. `Access::to::<Deployment>(&[Verb::Create])`.
    pub fn to<K: Resource<DynamicType = ()>>(verbs: &[Verb]) -> Self {
        Self {
            group: K::group(&()).into_owned(),
            resource: K::plural(&()).into_owned(),
            verbs: verbs.iter().map(|v| v.as_str()).collect(),
        }
    }

    /// The same verbs on one of the resource's subresources instead (`status`, `scale`),
    /// e.g. `Access::to::<Foo>(&[Verb::Patch]).subresource("status")`.
    #[must_use]
    pub fn subresource(mut self, name: &str) -> Self {
        self.resource = format!("{}/{name}", self.resource);
        self
    }
}

/// What a manager knows about the access its controllers need.
#[derive(Debug, Default)]
pub(crate) struct Needs<'a> {
    /// What its informers watch.
    pub(crate) informed: Vec<InformedResource>,
    /// Whether it made an event recorder.
    pub(crate) events: bool,
    /// The Lease's namespace under leader election.
    pub(crate) lease_namespace: Option<&'a str>,
    /// What the controllers declared.
    pub(crate) access: &'a [Access],
}

/// Verbs by `(group, resource)`, merged into as few rules as stay exact.
#[derive(Debug, Default)]
struct Rules(BTreeMap<(String, String), BTreeSet<&'static str>>);

impl Rules {
    fn add(&mut self, group: &str, resource: &str, verbs: &[&'static str]) {
        self.0
            .entry((group.to_owned(), resource.to_owned()))
            .or_default()
            .extend(verbs);
    }

    /// One rule per group and set of verbs, listing its resources (sorted), in order of
    /// group, then resources: the same needs always give the same rules.
    fn into_policy_rules(self) -> Vec<PolicyRule> {
        let mut merged: BTreeMap<(String, Vec<&'static str>), Vec<String>> = BTreeMap::new();
        for ((group, resource), verbs) in self.0 {
            merged
                .entry((group, verbs.into_iter().collect()))
                .or_default()
                .push(resource);
        }
        let mut rules: Vec<PolicyRule> = merged
            .into_iter()
            .map(|((group, verbs), resources)| PolicyRule {
                api_groups: Some(vec![group]),
                resources: Some(resources),
                verbs: verbs.into_iter().map(str::to_owned).collect(),
                ..PolicyRule::default()
            })
            .collect();
        rules.sort_by(|a, b| (&a.api_groups, &a.resources).cmp(&(&b.api_groups, &b.resources)));
        rules
    }
}

const WATCH: &[&str] = &["get", "list", "watch"];

/// The ClusterRole `name` and, under leader election, the Role `<name>-leader-election`
/// in the Lease's namespace.
pub(crate) fn derive(name: &str, needs: &Needs<'_>) -> (ClusterRole, Option<Role>) {
    let mut cluster = Rules::default();
    for informed in &needs.informed {
        cluster.add(&informed.group, &informed.plural, WATCH);
    }
    if needs.events {
        cluster.add("events.k8s.io", "events", &["create", "patch"]);
    }
    for access in needs.access {
        let verbs: Vec<&'static str> = access.verbs.iter().copied().collect();
        cluster.add(&access.group, &access.resource, &verbs);
    }
    let cluster_role = ClusterRole {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        rules: Some(cluster.into_policy_rules()),
        ..ClusterRole::default()
    };
    let role = needs.lease_namespace.map(|namespace| {
        let mut leases = Rules::default();
        leases.add(
            "coordination.k8s.io",
            "leases",
            &["create", "get", "update"],
        );
        Role {
            metadata: ObjectMeta {
                name: Some(format!("{name}-leader-election")),
                namespace: Some(namespace.to_owned()),
                ..ObjectMeta::default()
            },
            rules: Some(leases.into_policy_rules()),
        }
    });
    (cluster_role, role)
}

/// Why the RBAC manifest could not be written.
#[cfg(feature = "cli")]
#[derive(Debug, thiserror::Error)]
#[error("failed to write the RBAC manifest as YAML: {0}")]
pub struct ManifestError(String);

/// The roles as one YAML stream (the ClusterRole, then the Role if any), with their
/// `apiVersion` and `kind`, for an operator binary to print (`config/rbac/role.yaml`).
#[cfg(feature = "cli")]
pub fn manifest(cluster_role: &ClusterRole, role: Option<&Role>) -> Result<String, ManifestError> {
    fn document<K: Resource<DynamicType = ()> + serde::Serialize>(
        object: &K,
    ) -> Result<String, ManifestError> {
        let mut value = serde_json::to_value(object).map_err(|e| ManifestError(e.to_string()))?;
        if let Some(map) = value.as_object_mut() {
            // apiVersion and kind first, as kubectl writes them.
            let mut ordered = serde_json::Map::new();
            ordered.insert(
                "apiVersion".to_owned(),
                K::api_version(&()).into_owned().into(),
            );
            ordered.insert("kind".to_owned(), K::kind(&()).into_owned().into());
            ordered.extend(std::mem::take(map));
            value = serde_json::Value::Object(ordered);
        }
        let mut yaml = serde_saphyr::to_string(&value).map_err(|e| ManifestError(e.to_string()))?;
        if !yaml.ends_with('\n') {
            yaml.push('\n');
        }
        Ok(yaml)
    }
    let mut yaml = document(cluster_role)?;
    if let Some(role) = role {
        yaml.push_str("---\n");
        yaml.push_str(&document(role)?);
    }
    Ok(yaml)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    fn informed(group: &str, plural: &str) -> InformedResource {
        InformedResource {
            group: group.to_owned(),
            plural: plural.to_owned(),
            namespace: None,
        }
    }

    fn rule(group: &str, resources: &[&str], verbs: &[&str]) -> PolicyRule {
        PolicyRule {
            api_groups: Some(vec![group.to_owned()]),
            resources: Some(resources.iter().map(|r| (*r).to_owned()).collect()),
            verbs: verbs.iter().map(|v| (*v).to_owned()).collect(),
            ..PolicyRule::default()
        }
    }

    #[test]
    fn watches_writes_events_and_the_lease_become_rules() {
        let access = [
            Access::to::<Deployment>(&[Verb::Create, Verb::Update]),
            Access::to::<Deployment>(&[Verb::Patch]).subresource("status"),
            Access::to::<ConfigMap>(&[Verb::Get]),
        ];
        let needs = Needs {
            informed: vec![informed("apps", "deployments"), informed("", "secrets")],
            events: true,
            lease_namespace: Some("ops"),
            access: &access,
        };
        let (cluster_role, role) = derive("op", &needs);
        assert_eq!(cluster_role.metadata.name.as_deref(), Some("op"));
        assert_eq!(
            cluster_role.rules.expect("rules"),
            [
                rule("", &["configmaps"], &["get"]),
                rule("", &["secrets"], &["get", "list", "watch"]),
                rule(
                    "apps",
                    &["deployments"],
                    &["create", "get", "list", "update", "watch"]
                ),
                rule("apps", &["deployments/status"], &["patch"]),
                rule("events.k8s.io", &["events"], &["create", "patch"]),
            ]
        );
        let role = role.expect("a lease role");
        assert_eq!(
            (
                role.metadata.name.as_deref(),
                role.metadata.namespace.as_deref()
            ),
            (Some("op-leader-election"), Some("ops"))
        );
        assert_eq!(
            role.rules.expect("rules"),
            [rule(
                "coordination.k8s.io",
                &["leases"],
                &["create", "get", "update"]
            )]
        );
    }

    #[test]
    fn resources_with_the_same_verbs_share_a_rule_and_no_election_means_no_role() {
        let needs = Needs {
            informed: vec![informed("", "secrets"), informed("", "configmaps")],
            ..Needs::default()
        };
        let (cluster_role, role) = derive("op", &needs);
        assert_eq!(
            cluster_role.rules.expect("rules"),
            [rule(
                "",
                &["configmaps", "secrets"],
                &["get", "list", "watch"]
            )]
        );
        assert!(role.is_none());
    }

    #[cfg(feature = "cli")]
    #[test]
    fn the_manifest_is_yaml_documents_with_kinds() {
        let needs = Needs {
            informed: vec![informed("", "secrets")],
            lease_namespace: Some("ops"),
            ..Needs::default()
        };
        let (cluster_role, role) = derive("op", &needs);
        let yaml = manifest(&cluster_role, role.as_ref()).expect("yaml");
        assert!(
            yaml.starts_with("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"),
            "{yaml}"
        );
        let documents: Vec<&str> = yaml.split("---\n").collect();
        assert_eq!(documents.len(), 2);
        let back: Role = serde_saphyr::from_str(documents[1]).expect("a Role");
        assert_eq!(Some(back), role);
    }
}
