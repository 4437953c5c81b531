//! `/openapi/v2` and `/openapi/v3`, as kubectl fetches them (`kubectl explain`, the
//! field validation check, `kubectl apply`'s patch computation).

mod testkit_support;

use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{create_json, get, raw_with};

#[tokio::test]
async fn v3_index_and_group_version_documents_follow_crds() {
    let server = ApiServer::start().await.expect("start");
    let index = get(&server, "/openapi/v3").await.json();
    let core = index["paths"]["api/v1"]["serverRelativeURL"]
        .as_str()
        .expect("core")
        .to_owned();
    let doc = get(&server, &core).await;
    assert_eq!(doc.status, 200, "{}", doc.body);
    let doc = doc.json();
    assert_eq!(doc["openapi"], "3.0.0");
    assert_eq!(
        doc["components"]["schemas"]["io.k8s.api.core.v1.ConfigMap"]["x-kubernetes-group-version-kind"]
            [0]["kind"],
        "ConfigMap"
    );
    assert!(index["paths"].get("apis/example.com/v1").is_none());

    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "foos", "kind": "Foo"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                     "type": "object", "description": "A Foo.",
                     "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}
                 }}}]}
    });
    create_json(
        &server,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    )
    .await;
    let index = get(&server, "/openapi/v3").await.json();
    let url = index["paths"]["apis/example.com/v1"]["serverRelativeURL"]
        .as_str()
        .expect("the CRD's group version is listed");
    let foo = get(&server, url).await.json();
    let schema = &foo["components"]["schemas"]["com.example.v1.Foo"];
    assert_eq!(schema["description"], "A Foo.");
    assert_eq!(
        schema["properties"]["spec"]["properties"]["size"]["type"],
        "integer"
    );
    let patch = &foo["paths"]["/apis/example.com/v1/namespaces/{namespace}/foos/{name}"]["patch"];
    assert!(
        patch["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .any(|p| p["name"] == "fieldValidation"),
        "kubectl asks the server to validate only where PATCH takes fieldValidation"
    );
    assert_eq!(
        get(&server, "/openapi/v3/apis/nope.example.com/v1")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn v2_is_json_only() {
    let server = ApiServer::start().await.expect("start");
    let protobuf = raw_with(
        &server,
        "GET",
        "/openapi/v2",
        &[(
            "Accept",
            "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
        )],
        "",
    )
    .await;
    assert_eq!(protobuf.status, 406);
    assert_eq!(protobuf.json()["reason"], "NotAcceptable");
    let swagger = raw_with(
        &server,
        "GET",
        "/openapi/v2",
        &[("Accept", "application/json")],
        "",
    )
    .await;
    assert_eq!(swagger.status, 200);
    let swagger = swagger.json();
    assert_eq!(swagger["swagger"], "2.0");
    assert!(swagger["definitions"]["io.k8s.api.apps.v1.Deployment"].is_object());
    assert!(
        swagger["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
            .is_object()
    );
}
