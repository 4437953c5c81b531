//! Discovery documents: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/{group}` and
//! `/apis/{group}/{version}`, as a real server answers them, plus aggregated discovery.
//! Besides the registry's types they list the reviews the server answers (created,
//! never stored), with verb `create` alone.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::store::registry::{Registry, ResourceType};

/// The reviews `http/auth.rs` answers: (group, version, kind, plural, namespaced).
const REVIEWS: &[(&str, &str, &str, &str, bool)] = &[
    (
        "authentication.k8s.io",
        "v1",
        "SelfSubjectReview",
        "selfsubjectreviews",
        false,
    ),
    (
        "authentication.k8s.io",
        "v1",
        "TokenReview",
        "tokenreviews",
        false,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        true,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        false,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        false,
    ),
    (
        "authorization.k8s.io",
        "v1",
        "SubjectAccessReview",
        "subjectaccessreviews",
        false,
    ),
];

/// The reviews of `group`/`version`: (kind, plural, namespaced).
fn reviews(group: &str, version: &str) -> impl Iterator<Item = (&'static str, &'static str, bool)> {
    REVIEWS
        .iter()
        .filter(move |&&(g, v, ..)| g == group && v == version)
        .map(|&(_, _, kind, plural, namespaced)| (kind, plural, namespaced))
}

/// Every named group with its versions: the registry's and the reviews'.
fn groups(registry: &Registry) -> BTreeMap<String, Vec<String>> {
    let mut groups = registry.groups();
    for &(group, version, ..) in REVIEWS {
        let versions = groups.entry(group.to_owned()).or_default();
        if !versions.iter().any(|v| v == version) {
            versions.push(version.to_owned());
        }
    }
    groups
}

/// `/version`.
pub(crate) fn version() -> Value {
    json!({
        "major": "1",
        "minor": "34",
        "gitVersion": "v1.34.0+kubegen-testkit",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "n/a",
        "compiler": "rustc",
        "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
    })
}

/// `/api`: the core group's versions.
pub(crate) fn core_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    })
}

fn group_document(name: &str, versions: &[String]) -> Value {
    let entries: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({
        "name": name,
        "versions": entries,
        "preferredVersion": entries.first().cloned().unwrap_or(Value::Null),
    })
}

/// `/apis`: every named group.
pub(crate) fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = groups(registry)
        .iter()
        .map(|(name, versions)| group_document(name, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`, if the group is served.
pub(crate) fn group(registry: &Registry, name: &str) -> Option<Value> {
    let groups = groups(registry);
    let versions = groups.get(name)?;
    let mut document = group_document(name, versions);
    document["kind"] = json!("APIGroup");
    document["apiVersion"] = json!("v1");
    Some(document)
}

fn subresource(rt: &ResourceType, sub: &str, kind: &str, group: &str, version: &str) -> Value {
    let mut entry = json!({
        "name": format!("{}/{sub}", rt.plural),
        "singularName": "",
        "namespaced": rt.namespaced,
        "kind": kind,
        "verbs": ["get", "patch", "update"],
    });
    if !group.is_empty() {
        entry["group"] = json!(group);
        entry["version"] = json!(version);
    }
    entry
}

/// `/api/v1` or `/apis/{group}/{version}`, if served.
pub(crate) fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let types = registry.in_group_version(group, version);
    let served_reviews: Vec<_> = reviews(group, version).collect();
    if types.is_empty() && served_reviews.is_empty() && !(group.is_empty() && version == "v1") {
        return None;
    }
    let mut resources = Vec::new();
    for rt in &types {
        let mut entry = json!({
            "name": rt.plural,
            "singularName": rt.singular,
            "namespaced": rt.namespaced,
            "kind": rt.kind,
            "verbs": rt.verbs(),
            "storageVersionHash": "",
        });
        if !rt.short_names.is_empty() {
            entry["shortNames"] = json!(rt.short_names);
        }
        if !rt.categories.is_empty() {
            entry["categories"] = json!(rt.categories);
        }
        resources.push(entry);
        if rt.status {
            resources.push(subresource(rt, "status", &rt.kind, "", ""));
        }
        if rt.scale.is_some() {
            resources.push(subresource(rt, "scale", "Scale", "autoscaling", "v1"));
        }
    }
    for (kind, plural, namespaced) in served_reviews {
        resources.push(json!({
            "name": plural,
            "singularName": kind.to_ascii_lowercase(),
            "namespaced": namespaced,
            "kind": kind,
            "verbs": ["create"],
        }));
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }))
}

/// The Content-Type of aggregated discovery documents.
pub(crate) const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Whether an Accept header asks for aggregated discovery (`apidiscovery.k8s.io/v2`).
pub(crate) fn wants_aggregated(accept: &str) -> bool {
    accept.split(',').any(|media| {
        let params: Vec<&str> = media.split(';').map(str::trim).collect();
        params.contains(&"g=apidiscovery.k8s.io")
            && params.contains(&"v=v2")
            && params.contains(&"as=APIGroupDiscoveryList")
    })
}

fn aggregated_version(registry: &Registry, group: &str, version: &str) -> Value {
    let resources: Vec<Value> = registry
        .in_group_version(group, version)
        .iter()
        .map(|rt| {
            let mut subresources = Vec::new();
            if rt.status {
                subresources.push(json!({
                    "subresource": "status",
                    "responseKind": {"group": group, "version": version, "kind": rt.kind},
                    "verbs": ["get", "patch", "update"],
                }));
            }
            if rt.scale.is_some() {
                subresources.push(json!({
                    "subresource": "scale",
                    "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                    "verbs": ["get", "patch", "update"],
                }));
            }
            let mut entry = json!({
                "resource": rt.plural,
                "responseKind": {"group": group, "version": version, "kind": rt.kind},
                "scope": if rt.namespaced { "Namespaced" } else { "Cluster" },
                "singularResource": rt.singular,
                "verbs": rt.verbs(),
                "subresources": subresources,
            });
            if !rt.short_names.is_empty() {
                entry["shortNames"] = json!(rt.short_names);
            }
            if !rt.categories.is_empty() {
                entry["categories"] = json!(rt.categories);
            }
            entry
        })
        .chain(reviews(group, version).map(|(kind, plural, namespaced)| {
            json!({
                "resource": plural,
                "responseKind": {"group": group, "version": version, "kind": kind},
                "scope": if namespaced { "Namespaced" } else { "Cluster" },
                "singularResource": kind.to_ascii_lowercase(),
                "verbs": ["create"],
                "subresources": [],
            })
        }))
        .collect();
    json!({"version": version, "resources": resources, "freshness": "Current"})
}

/// Aggregated discovery (`APIGroupDiscoveryList`) for `/api` (`core`) or `/apis`.
pub(crate) fn aggregated(registry: &Registry, core: bool) -> Value {
    let items: Vec<Value> = if core {
        vec![
            json!({"metadata": {"creationTimestamp": null}, "versions": [aggregated_version(registry, "", "v1")]}),
        ]
    } else {
        groups(registry)
            .iter()
            .map(|(name, versions)| {
                let versions: Vec<Value> = versions
                    .iter()
                    .map(|v| aggregated_version(registry, name, v))
                    .collect();
                json!({"metadata": {"name": name, "creationTimestamp": null}, "versions": versions})
            })
            .collect()
    };
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregated_discovery_is_negotiated_by_accept() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert!(wants_aggregated(kubectl));
        assert!(!wants_aggregated("application/json"));
        let registry = Registry::with_built_ins();
        let core = aggregated(&registry, true);
        let pods = core["items"][0]["versions"][0]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .find(|r| r["resource"] == "pods")
            .expect("pods")
            .clone();
        assert_eq!(pods["scope"], "Namespaced");
        assert_eq!(pods["subresources"][0]["subresource"], "status");
    }

    #[test]
    fn resource_lists_include_subresources() {
        let registry = Registry::with_built_ins();
        let apps = resource_list(&registry, "apps", "v1").expect("apps/v1");
        let names: Vec<&str> = apps["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "deployments",
                "deployments/status",
                "deployments/scale",
                "replicasets",
                "replicasets/status",
                "replicasets/scale"
            ]
        );
        assert!(resource_list(&registry, "nope", "v1").is_none());
        assert_eq!(
            group(&registry, "apps").expect("apps")["preferredVersion"]["version"],
            "v1"
        );
    }

    #[test]
    fn reviews_are_listed_with_create_alone() {
        let registry = Registry::with_built_ins();
        let authorization =
            resource_list(&registry, "authorization.k8s.io", "v1").expect("authorization/v1");
        let local = authorization["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .find(|r| r["name"] == "localsubjectaccessreviews")
            .expect("localsubjectaccessreviews")
            .clone();
        assert_eq!(local["namespaced"], true);
        assert_eq!(local["verbs"], json!(["create"]));
        let names: Vec<String> = group_list(&registry)["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .filter_map(|g| g["name"].as_str().map(str::to_owned))
            .collect();
        assert!(
            names.contains(&"authentication.k8s.io".to_owned()),
            "{names:?}"
        );
        let all = aggregated(&registry, false);
        let tokens = all["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|g| g["metadata"]["name"] == "authentication.k8s.io")
            .expect("authentication.k8s.io");
        let resources = &tokens["versions"][0]["resources"];
        assert!(
            resources
                .as_array()
                .expect("resources")
                .iter()
                .any(|r| r["resource"] == "tokenreviews" && r["verbs"] == json!(["create"]))
        );
    }
}
