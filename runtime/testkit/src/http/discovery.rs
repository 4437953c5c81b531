//! Discovery documents: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/{group}` and
//! `/apis/{group}/{version}`, as a real server answers them, plus aggregated discovery.

use serde_json::{Value, json};

use crate::store::registry::{Registry, ResourceType};

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
    let groups: Vec<Value> = registry
        .groups()
        .iter()
        .map(|(name, versions)| group_document(name, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`, if the group is served.
pub(crate) fn group(registry: &Registry, name: &str) -> Option<Value> {
    let groups = registry.groups();
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
    if types.is_empty() && !(group.is_empty() && version == "v1") {
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
        registry
            .groups()
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
}
