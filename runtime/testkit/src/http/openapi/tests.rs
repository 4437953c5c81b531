//! The OpenAPI documents: built-in and custom schemas, paths kubectl reads.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::store::registry::Registry;

fn foo(registry: &Registry) -> ResourceType {
    let mut rt = (*registry
        .get("", "v1", "configmaps")
        .expect("a type to copy"))
    .clone();
    rt.group = "example.com".to_owned();
    rt.kind = "Foo".to_owned();
    rt.list_kind = "FooList".to_owned();
    rt.plural = "foos".to_owned();
    rt.custom = true;
    rt.generation = crate::store::registry::Generation::AllButMetadata;
    rt.schema = Some(json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer", "nullable": true},
            "not": {"type": "string"}
        }}}
    }));
    rt
}

#[test]
fn paths_name_the_v3_documents_with_a_hash() {
    let registry = Registry::with_built_ins();
    let index = v3_index(&registry);
    let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
        .as_str()
        .expect("apps/v1");
    assert!(url.starts_with("/openapi/v3/apis/apps/v1?hash="), "{url}");
    assert!(index["paths"]["api/v1"].is_object());
    assert_eq!(
        Document::parse(&["openapi", "v3", "api", "v1"]),
        Some(Document::V3 {
            group: String::new(),
            version: "v1".to_owned()
        })
    );
    assert!(
        document(
            &registry,
            &Document::V3 {
                group: "nope".to_owned(),
                version: "v1".to_owned()
            }
        )
        .is_err()
    );
}

#[test]
fn a_built_in_group_version_has_its_schemas_and_patch_operations() {
    let registry = Registry::with_built_ins();
    let apps = document(
        &registry,
        &Document::V3 {
            group: "apps".to_owned(),
            version: "v1".to_owned(),
        },
    )
    .expect("apps/v1");
    let schemas = &apps["components"]["schemas"];
    let deployment = &schemas["io.k8s.api.apps.v1.Deployment"];
    assert_eq!(
        deployment["x-kubernetes-group-version-kind"][0]["kind"],
        "Deployment"
    );
    assert_eq!(
        deployment["properties"]["spec"]["$ref"],
        "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"
    );
    let containers = &schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
    assert!(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].is_object());
    assert!(!apps.to_string().contains("#/definitions/"));
    let patch = &apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"]["kind"],
        "Deployment"
    );
    assert!(
        patch["parameters"]
            .as_array()
            .expect("params")
            .iter()
            .any(|p| p["name"] == "fieldValidation")
    );
    assert!(patch["requestBody"]["content"]["application/strategic-merge-patch+json"].is_object());
    assert_eq!(patch["operationId"], "patchAppsV1NamespacedDeployment");
}

#[test]
fn custom_resources_get_their_crd_schema_with_type_meta() {
    let mut registry = Registry::with_built_ins();
    let rt = foo(&registry);
    registry.insert(rt.clone());
    let doc = v3(&[Arc::new(rt.clone())]);
    let schema = &doc["components"]["schemas"]["com.example.v1.Foo"];
    assert_eq!(
        schema["x-kubernetes-group-version-kind"][0]["group"],
        "example.com"
    );
    assert_eq!(
        schema["properties"]["metadata"]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert_eq!(
        schema["properties"]["spec"]["properties"]["size"]["nullable"],
        true
    );
    assert!(doc["components"]["schemas"]["com.example.v1.FooList"].is_object());
    let patch = &doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/foos/{name}"]["patch"];
    assert!(
        patch["requestBody"]["content"]
            .get("application/strategic-merge-patch+json")
            .is_none()
    );
    assert_eq!(patch["operationId"], "patchComExampleV1NamespacedFoo");

    let swagger = v2(&registry);
    assert_eq!(swagger["swagger"], "2.0");
    let v2_schema =
        &swagger["definitions"]["com.example.v1.Foo"]["properties"]["spec"]["properties"];
    assert!(
        v2_schema["size"].get("nullable").is_none(),
        "no nullable in Swagger 2.0"
    );
    assert_eq!(
        v2_schema["not"]["type"], "string",
        "a property named `not` stays"
    );
    assert!(swagger["definitions"]["io.k8s.api.core.v1.Pod"].is_object());
    let cm_patch = &swagger["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
    assert!(
        cm_patch["consumes"]
            .as_array()
            .expect("consumes")
            .contains(&json!("application/strategic-merge-patch+json"))
    );
}

#[test]
fn json_must_be_acceptable() {
    assert!(accepts_json(""));
    assert!(accepts_json("application/json"));
    assert!(accepts_json(
        "application/com.github.proto-openapi.spec.v2@v1.0+protobuf, */*"
    ));
    assert!(!accepts_json(
        "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
    ));
}
