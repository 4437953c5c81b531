//! Table responses, as `kubectl get` asks for them: Kubernetes' printer columns for
//! built-in kinds, `additionalPrinterColumns` for custom resources, in lists, single
//! objects and watches.

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::{Value, json};
use testkit_support::{RawResponse, configmap, create_json, raw, raw_with};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

async fn get_table(server: &ApiServer, path: &str) -> RawResponse {
    raw_with(server, "GET", path, &[("Accept", TABLE)], "").await
}

fn column_names(table: &Value) -> Vec<String> {
    table["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn built_in_kinds_list_with_kubectls_columns() {
    let server = ApiServer::start().await.expect("start");
    let configmaps = Api::default_namespaced(server.client());
    let mut cm = configmap("c1", "1");
    cm.data
        .get_or_insert_default()
        .insert("b".to_owned(), "2".to_owned());
    configmaps
        .create(&PostParams::default(), &cm)
        .await
        .expect("create");
    let list = get_table(&server, "/api/v1/namespaces/default/configmaps").await;
    assert_eq!(list.status, 200, "{}", list.body);
    let table = list.json();
    assert_eq!(table["kind"], "Table");
    assert_eq!(column_names(&table), ["Name", "Data", "Age"]);
    assert_eq!(table["rows"][0]["cells"][0], "c1");
    assert_eq!(table["rows"][0]["cells"][1], 2);
    let age = table["rows"][0]["cells"][2]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(age.ends_with('s'), "{age}");
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert!(table["metadata"]["resourceVersion"].as_str().is_some());

    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
    }))
    .expect("deployment");
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .expect("create");
    let one = get_table(&server, "/apis/apps/v1/namespaces/default/deployments/web").await;
    let table = one.json();
    assert_eq!(
        column_names(&table),
        [
            "Name",
            "Ready",
            "Up-to-date",
            "Available",
            "Age",
            "Containers",
            "Images",
            "Selector"
        ]
    );
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (&cells[0], &cells[1], &cells[2], &cells[3]),
        (&json!("web"), &json!("0/3"), &json!(0), &json!(0))
    );
    assert_eq!(
        (&cells[5], &cells[6], &cells[7]),
        (&json!("web"), &json!("nginx"), &json!("app=web"))
    );

    let namespaces = get_table(&server, "/api/v1/namespaces?includeObject=None")
        .await
        .json();
    assert_eq!(column_names(&namespaces), ["Name", "Status", "Age"]);
    assert_eq!(namespaces["rows"][0]["cells"][1], "Active");
    assert_eq!(namespaces["rows"][0]["object"], Value::Null);
    let plain = raw_with(
        &server,
        "GET",
        "/api/v1/namespaces",
        &[("Accept", "application/json")],
        "",
    )
    .await;
    assert_eq!(plain.json()["kind"], "NamespaceList");
}

#[tokio::test]
async fn custom_resources_use_additional_printer_columns() {
    let server = ApiServer::start().await.expect("start");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "foos", "kind": "Foo"},
            "versions": [
                {"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                 "additionalPrinterColumns": [
                     {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                     {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "priority": 1},
                     {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
                 ]},
                {"name": "v2", "served": true, "storage": false,
                 "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
            ]
        }
    });
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    create_json(&server, crds, &crd).await;
    let foos = "/apis/example.com/v1/namespaces/default/foos";
    let foo = json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}, "spec": {"replicas": 4}});
    create_json(&server, foos, &foo).await;
    let table = get_table(&server, foos).await.json();
    assert_eq!(column_names(&table), ["Name", "Replicas", "Phase", "Age"]);
    assert_eq!(table["columnDefinitions"][2]["priority"], 1);
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (&cells[0], &cells[1], &cells[2]),
        (&json!("f"), &json!(4), &Value::Null)
    );
    let v2 = get_table(&server, "/apis/example.com/v2/namespaces/default/foos")
        .await
        .json();
    assert_eq!(
        column_names(&v2),
        ["Name", "Age"],
        "a version without columns shows its age"
    );
    let crd_table = get_table(&server, crds).await.json();
    assert_eq!(column_names(&crd_table), ["Name", "Created At"]);

    let bad = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "bars.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "bars", "kind": "Bar"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object"}},
                               "additionalPrinterColumns": [{"name": "X", "type": "text", "jsonPath": "spec["}]}]}
    });
    let rejected = raw(
        &server,
        "POST",
        crds,
        Some("application/json"),
        &bad.to_string(),
    )
    .await;
    assert_eq!(rejected.status, 422, "{}", rejected.body);
    let body = rejected.json();
    let fields: Vec<&str> = body["details"]["causes"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["field"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        fields,
        [
            "spec.versions[0].additionalPrinterColumns[0].type",
            "spec.versions[0].additionalPrinterColumns[0].jsonPath"
        ]
    );
}

#[tokio::test]
async fn a_table_watch_sends_column_definitions_once() {
    let server = ApiServer::start().await.expect("start");
    let configmaps = Api::default_namespaced(server.client());
    for name in ["a", "b"] {
        configmaps
            .create(&PostParams::default(), &configmap(name, "1"))
            .await
            .expect("create");
    }
    let watch = get_table(
        &server,
        "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1",
    )
    .await;
    let events = watch.lines();
    assert_eq!(events.len(), 2, "{}", watch.body);
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["kind"], "Table");
    assert_eq!(column_names(&events[0]["object"]), ["Name", "Data", "Age"]);
    assert_eq!(events[1]["object"]["columnDefinitions"], json!([]));
    assert_eq!(events[1]["object"]["rows"][0]["cells"][0], "b");
}
