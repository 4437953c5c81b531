use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};
use serde_json::{Value, json};

use super::*;

fn entry(manager: &str, operation: &str, subresource: &str, fields: Value) -> Value {
    json!({
        "manager": manager,
        "operation": operation,
        "subresource": subresource,
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    })
}

/// A Deployment two managers applied to: `scaler` owns the replicas, `deployer` the
/// labels, one container and the selector; `kubectl` updated (not applied) the paused
/// flag; `status-writer` applied the status.
fn deployment() -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "prod",
            "uid": "1234",
            "resourceVersion": "42",
            "labels": {"app": "web", "tier": "front"},
            "finalizers": ["a", "b"],
            "managedFields": [
                entry("scaler", "Apply", "", json!({"f:spec": {"f:replicas": {}}})),
                entry("deployer", "Apply", "", json!({
                    "f:metadata": {"f:labels": {"f:app": {}}, "f:finalizers": {"v:\"b\"": {}}},
                    "f:spec": {
                        "f:selector": {},
                        "f:template": {"f:spec": {"f:containers": {
                            "k:{\"name\":\"app\"}": {".": {}, "f:name": {}, "f:image": {}}
                        }}}
                    }
                })),
                entry("kubectl", "Update", "", json!({"f:spec": {"f:paused": {}}})),
                entry("status-writer", "Apply", "status", json!({"f:status": {"f:replicas": {}}})),
            ],
        },
        "spec": {
            "replicas": 3,
            "paused": true,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"spec": {"containers": [
                {"name": "sidecar", "image": "proxy"},
                {"name": "app", "image": "web:1", "imagePullPolicy": "Always"}
            ]}}
        },
        "status": {"replicas": 2, "readyReplicas": 1}
    }))
    .unwrap()
}

/// What `manager` owns, as JSON (a `Deployment` would add its required fields back).
fn extracted(manager: &str, subresource: &str) -> Value {
    extract(&deployment(), manager, subresource).unwrap()
}

#[test]
fn keeps_exactly_the_managers_leaf_fields() {
    assert_eq!(
        extracted("scaler", ""),
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "prod"},
            "spec": {"replicas": 3}
        })
    );
}

#[test]
fn follows_associative_and_set_lists_maps_and_atomic_fields() {
    assert_eq!(
        extracted("deployer", ""),
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web",
                "namespace": "prod",
                "labels": {"app": "web"},
                "finalizers": ["b"]
            },
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [{"name": "app", "image": "web:1"}]}}
            }
        })
    );
}

#[test]
fn reads_the_status_subresource_entry_only_when_asked() {
    assert_eq!(
        extracted("status-writer", "status")["status"],
        json!({"replicas": 2})
    );
    let main: Result<Deployment, _> = extract(&deployment(), "status-writer", "");
    assert!(matches!(main, Err(ExtractError::NoManager { .. })));
}

#[test]
fn refuses_managers_without_an_apply_entry() {
    for manager in ["kubectl", "nobody"] {
        let error = extract::<_, Deployment>(&deployment(), manager, "").unwrap_err();
        assert!(matches!(&error, ExtractError::NoManager { manager: m, .. } if m == manager));
        assert!(
            error.to_string().contains(&format!("`{manager}`")),
            "{error}"
        );
    }
    let error = extract::<_, Deployment>(&deployment(), "x", "status").unwrap_err();
    assert!(
        error.to_string().contains("subresource `status`"),
        "{error}"
    );
}

#[test]
fn reports_malformed_field_sets() {
    for (fields, expected) in [
        (
            json!({"f:spec": {"q:x": {}}}),
            "unknown field set key `q:x`",
        ),
        (json!({"f:spec": {"k:{not json": {}}}), "`k:{not json`"),
        (json!({"f:spec": 3}), "`f:spec` is not a JSON object"),
    ] {
        let mut object = deployment();
        object.metadata.managed_fields = Some(vec![ManagedFieldsEntry {
            manager: Some("m".into()),
            operation: Some("Apply".into()),
            fields_v1: Some(FieldsV1(fields)),
            ..Default::default()
        }]);
        let error = extract::<_, Deployment>(&object, "m", "").unwrap_err();
        let ExtractError::Fields { source, .. } = &error else {
            panic!("expected a field set error, got {error}");
        };
        assert!(source.to_string().contains(expected), "{source}");
    }
}

#[test]
fn walks_index_keys_and_keeps_present_empty_nodes() {
    let object = json!({"a": [{"x": 1}, {"x": 2}], "b": {"c": 1}, "d": [], "e": {}, "g": {"h": 1}});
    // `{".": {}}` alone and `{}` are the same set: `b` is a member with nothing listed
    // below it, so it is kept whole, like `g`.
    let set = json!({"f:a": {"i:1": {}}, "f:b": {".": {}}, "f:d": {}, "f:e": {}, "f:g": {}, "f:missing": {}});
    assert_eq!(
        owned_fields(&object, &FieldSet::from_json(&set).unwrap()),
        json!({"a": [{"x": 2}], "b": {"c": 1}, "d": [], "e": {}, "g": {"h": 1}})
    );
}

#[test]
fn whole_objects_are_their_own_apply_configuration() {
    fn name<K, A: ApplyConfiguration<K>>(config: &A) -> &str {
        config.object_name()
    }
    assert_eq!(name::<Deployment, _>(&deployment()), "web");
}
