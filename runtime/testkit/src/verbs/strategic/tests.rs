//! Strategic merge patch with the patches kubectl sends (`kubectl apply` three-way
//! patches with `$setElementOrder`, `kubectl patch`, `kubectl edit`), checked against the
//! results apimachinery gives.

use serde_json::{Value, json};

use super::*;

fn deployment() -> Ty {
    root("apps", "v1", "Deployment")
}

fn pod() -> Ty {
    root("", "v1", "Pod")
}

fn patched(ty: Ty, original: Value, patch: Value) -> Value {
    let mut target = original;
    apply(&mut target, &patch, ty).unwrap_or_else(|e| panic!("{e}"));
    target
}

fn failure(ty: Ty, original: Value, patch: Value) -> Error {
    let mut target = original;
    apply(&mut target, &patch, ty).expect_err("the patch must fail")
}

fn web_deployment() -> Value {
    json!({
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{
                    "name": "web",
                    "image": "nginx:1.25",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
                }]}
            }
        }
    })
}

fn containers(object: &Value) -> &Value {
    &object["spec"]["template"]["spec"]["containers"]
}

#[test]
fn maps_merge_and_nulls_delete_as_in_merge_patch() {
    let cm = root("", "v1", "ConfigMap");
    let result = patched(
        cm,
        json!({"metadata": {"name": "c1"}, "data": {"a": "b", "x": "y"}}),
        json!({"data": {"a": "c", "x": null, "new": "v"}}),
    );
    assert_eq!(result["data"], json!({"a": "c", "new": "v"}));
    assert_eq!(result["metadata"]["name"], "c1");
}

#[test]
fn kubectl_apply_changes_an_image_and_keeps_the_rest_of_the_container() {
    let patch = json!({"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "web"}],
        "containers": [{"image": "nginx:1.26", "name": "web"}]
    }}}});
    let result = patched(deployment(), web_deployment(), patch);
    let web = &containers(&result)[0];
    assert_eq!(web["image"], "nginx:1.26");
    assert_eq!(
        web["ports"],
        json!([{"containerPort": 80, "protocol": "TCP"}])
    );
    assert_eq!(web["env"].as_array().map(Vec::len), Some(2));
}

#[test]
fn containers_are_added_in_set_element_order_and_deleted_by_directive() {
    let added = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "web"}],
            "containers": [{"name": "sidecar", "image": "busybox"}]
        }}}}),
    );
    let names: Vec<&str> = containers(&added)
        .as_array()
        .expect("containers")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["sidecar", "web"]);
    let removed = patched(
        deployment(),
        added,
        json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [{"$patch": "delete", "name": "sidecar"}]
        }}}}),
    );
    assert_eq!(containers(&removed).as_array().map(Vec::len), Some(1));
    assert_eq!(containers(&removed)[0]["image"], "nginx:1.25");
}

#[test]
fn env_merges_by_name_inside_the_container_it_belongs_to() {
    let result = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [{
                "name": "web",
                "$setElementOrder/env": [{"name": "A"}, {"name": "C"}, {"name": "B"}],
                "env": [{"name": "C", "value": "3"}, {"name": "B", "value": "20"}]
            }]
        }}}}),
    );
    assert_eq!(
        containers(&result)[0]["env"],
        json!([{"name": "A", "value": "1"}, {"name": "C", "value": "3"}, {"name": "B", "value": "20"}])
    );
}

#[test]
fn new_items_without_an_order_go_first_as_apimachinery_puts_them() {
    let result = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "env": [{"name": "Z", "value": "9"}]}]}}}}),
    );
    let env: Vec<&str> = containers(&result)[0]["env"]
        .as_array()
        .expect("env")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(env, ["Z", "A", "B"]);
}

#[test]
fn finalizers_are_a_merged_set_with_a_deletion_list() {
    let object = json!({"metadata": {"name": "x", "finalizers": ["a", "b"]}});
    let cm = root("", "v1", "ConfigMap");
    let merged = patched(
        cm,
        object.clone(),
        json!({"metadata": {"finalizers": ["c", "b"]}}),
    );
    assert_eq!(merged["metadata"]["finalizers"], json!(["c", "a", "b"]));
    let kubectl = patched(
        cm,
        object,
        json!({"metadata": {
            "$deleteFromPrimitiveList/finalizers": ["a"],
            "$setElementOrder/finalizers": ["b", "c"],
            "finalizers": ["c"]
        }}),
    );
    assert_eq!(kubectl["metadata"]["finalizers"], json!(["b", "c"]));
}

#[test]
fn owner_references_merge_by_uid() {
    let cm = root("", "v1", "ConfigMap");
    let result = patched(
        cm,
        json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "a", "kind": "Foo", "apiVersion": "v1"}]}}),
        json!({"metadata": {"ownerReferences": [{"uid": "1", "controller": true}, {"uid": "2", "name": "b", "kind": "Foo", "apiVersion": "v1"}]}}),
    );
    let refs = result["metadata"]["ownerReferences"]
        .as_array()
        .expect("refs");
    assert_eq!(refs.len(), 2);
    let first = refs.iter().find(|r| r["uid"] == "1").expect("uid 1");
    assert_eq!(
        (first["name"].as_str(), first["controller"].as_bool()),
        (Some("a"), Some(true))
    );
}

#[test]
fn retain_keys_switches_a_volume_source_and_a_deployment_strategy() {
    let volumes = patched(
        pod(),
        json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}]}}),
        json!({"spec": {
            "$setElementOrder/volumes": [{"name": "v"}, {"name": "w"}],
            "volumes": [{"$retainKeys": ["configMap", "name"], "configMap": {"name": "cfg"}, "name": "v"}]
        }}),
    );
    assert_eq!(
        volumes["spec"]["volumes"],
        json!([{"name": "v", "configMap": {"name": "cfg"}}, {"name": "w", "emptyDir": {}}])
    );
    let strategy = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": null}}}),
    );
    assert_eq!(strategy["spec"]["strategy"], json!({"type": "Recreate"}));
}

#[test]
fn replace_and_delete_directives_on_maps_and_lists() {
    let labels = patched(
        deployment(),
        web_deployment(),
        json!({"metadata": {"labels": {"$patch": "replace", "tier": "front"}}}),
    );
    assert_eq!(labels["metadata"]["labels"], json!({"tier": "front"}));
    let cleared = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"metadata": {"$patch": "delete"}}}}),
    );
    assert_eq!(cleared["spec"]["template"]["metadata"], json!({}));
    let replaced = patched(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "x"}]}}}}),
    );
    assert_eq!(
        containers(&replaced),
        &json!([{"name": "only", "image": "x"}])
    );
}

#[test]
fn lists_without_the_merge_strategy_are_replaced() {
    let result = patched(
        pod(),
        json!({"spec": {"containers": [{"name": "c", "args": ["a", "b"]}]}}),
        json!({"spec": {"containers": [{"name": "c", "args": ["z"]}]}}),
    );
    assert_eq!(result["spec"]["containers"][0]["args"], json!(["z"]));
}

#[test]
fn service_ports_merge_by_port() {
    let service = root("", "v1", "Service");
    let result = patched(
        service,
        json!({"spec": {"ports": [{"port": 80, "targetPort": 8080}]}}),
        json!({"spec": {"$setElementOrder/ports": [{"port": 80}, {"port": 443}], "ports": [{"port": 443, "targetPort": 8443}]}}),
    );
    assert_eq!(
        result["spec"]["ports"],
        json!([{"port": 80, "targetPort": 8080}, {"port": 443, "targetPort": 8443}])
    );
}

#[test]
fn directives_under_new_fields_are_applied_not_stored() {
    let result = patched(
        pod(),
        json!({"spec": {}}),
        json!({"spec": {
            "$setElementOrder/volumes": [{"name": "v"}],
            "volumes": [{"$retainKeys": ["emptyDir", "name"], "emptyDir": {}, "name": "v"}],
            "nodeSelector": {"disk": "ssd", "gone": null}
        }}),
    );
    assert_eq!(
        result["spec"]["volumes"],
        json!([{"name": "v", "emptyDir": {}}])
    );
    assert_eq!(result["spec"]["nodeSelector"], json!({"disk": "ssd"}));
    assert!(!result.to_string().contains('$'), "{result}");
}

#[test]
fn malformed_patches_fail_with_apimachinerys_answers() {
    let merge_in_map = failure(
        deployment(),
        web_deployment(),
        json!({"metadata": {"$patch": "merge"}}),
    );
    assert_eq!(merge_in_map.code(), 500);
    let merge_in_list = failure(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {"containers": [{"$patch": "merge", "name": "web"}]}}}}),
    );
    assert_eq!(merge_in_list, Error::MergeDirectiveInList);
    let no_key = failure(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}),
    );
    assert!(matches!(no_key, Error::NoMergeKey(..)), "{no_key}");
    let disordered = failure(
        deployment(),
        web_deployment(),
        json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
            "containers": [{"name": "b", "image": "x"}, {"name": "a", "image": "y"}]
        }}}}),
    );
    assert_eq!(disordered.code(), 400, "{disordered}");
    let retained = failure(
        deployment(),
        web_deployment(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {"maxSurge": 1}}}}),
    );
    assert_eq!(retained.code(), 422, "{retained}");
    assert_eq!(
        failure(deployment(), web_deployment(), json!([1])),
        Error::NotAnObject
    );
    let bad_delete_list = failure(
        deployment(),
        web_deployment(),
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}}),
    );
    assert_eq!(bad_delete_list.code(), 400);
}

#[test]
fn a_type_without_special_fields_patches_like_a_merge_patch_with_directives() {
    let result = patched(
        None,
        json!({"spec": {"list": [1, 2], "map": {"a": 1}}}),
        json!({"spec": {"list": [3], "map": {"$patch": "replace", "b": 2}}}),
    );
    assert_eq!(result, json!({"spec": {"list": [3], "map": {"b": 2}}}));
}
