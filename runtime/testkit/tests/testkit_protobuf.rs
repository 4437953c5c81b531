//! Protobuf over HTTP: built-in objects created with `application/vnd.kubernetes.protobuf`
//! bodies (encoded by k8s-pb the way Go writes them, empty value fields included) are
//! stored exactly as the same objects sent as Go's JSON; malformed bodies are a 400
//! Status; a protobuf-first Accept header gets a protobuf answer that decodes back, and
//! what has no protobuf form here (lists, watches, Tables, Scales, custom resources) is
//! JSON when the Accept header also allows JSON and 406 NotAcceptable when it does not.

mod testkit_support;

use std::collections::BTreeMap;

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta_pb;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use kubegen_testkit::ApiServer;
use prost::Message as _;
use serde_json::{Value, json};
use testkit_support::{create_json, deployment, raw_bytes, raw_with};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

fn envelope(api_version: &str, kind: &str, object: &impl prost::Message) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.to_owned()),
            kind: Some(kind.to_owned()),
        }),
        raw: Some(object.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.encode_to_vec());
    body
}

/// ObjectMeta as Go's protobuf encoder writes it: every value field present.
fn meta(name: &str, labels: &[(&str, &str)]) -> meta_pb::ObjectMeta {
    meta_pb::ObjectMeta {
        name: Some(name.to_owned()),
        generate_name: Some(String::new()),
        namespace: Some(String::new()),
        self_link: Some(String::new()),
        uid: Some(String::new()),
        resource_version: Some(String::new()),
        generation: Some(0),
        creation_timestamp: Some(meta_pb::Time {
            seconds: Some(0),
            nanos: Some(0),
        }),
        labels: labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        ..Default::default()
    }
}

/// The stored object without what the server assigns per write.
async fn stored(server: &ApiServer, path: &str) -> Value {
    let response = raw_with(server, "GET", path, &[], "").await;
    assert_eq!(response.status, 200, "{}", response.body);
    let mut object = response.json();
    let metadata = object["metadata"].as_object_mut().expect("metadata");
    for assigned in [
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "managedFields",
    ] {
        metadata.remove(assigned);
    }
    object
}

/// Creates `object` as protobuf on one server and `json` on another; both stored alike.
async fn assert_stored_alike(collection: &str, name: &str, protobuf: Vec<u8>, json: Value) {
    let (by_protobuf, by_json) = (
        ApiServer::start().await.expect("start"),
        ApiServer::start().await.expect("start"),
    );
    let content_type = [("Content-Type", PROTOBUF)];
    let created = raw_bytes(&by_protobuf, "POST", collection, &content_type, &protobuf).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let body = json.to_string();
    let content_type = [("Content-Type", "application/json")];
    let response = raw_with(&by_json, "POST", collection, &content_type, &body).await;
    assert_eq!(response.status, 201, "{}", response.body);
    let path = format!("{collection}/{name}");
    assert_eq!(
        stored(&by_protobuf, &path).await,
        stored(&by_json, &path).await
    );
}

#[tokio::test]
async fn a_config_map_from_protobuf_is_stored_as_from_json() {
    // `kubectl create configmap c1 --from-literal=a=b`
    let cm = core::ConfigMap {
        metadata: Some(meta("c1", &[])),
        data: BTreeMap::from([("a".to_owned(), "b".to_owned())]),
        binary_data: BTreeMap::from([("bin".to_owned(), vec![0, 1, 2])]),
        immutable: None,
    };
    let json = json!({
        "kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {"name": "c1", "creationTimestamp": null},
        "data": {"a": "b"}, "binaryData": {"bin": "AAEC"}
    });
    let path = "/api/v1/namespaces/default/configmaps";
    assert_stored_alike(path, "c1", envelope("v1", "ConfigMap", &cm), json).await;
}

#[tokio::test]
async fn a_namespace_from_protobuf_is_stored_as_from_json() {
    // `kubectl create namespace demo`
    let namespace = core::Namespace {
        metadata: Some(meta("demo", &[])),
        spec: Some(core::NamespaceSpec::default()),
        status: Some(core::NamespaceStatus {
            phase: Some(String::new()),
            conditions: Vec::new(),
        }),
    };
    let json = json!({
        "kind": "Namespace", "apiVersion": "v1",
        "metadata": {"name": "demo", "creationTimestamp": null},
        "spec": {}, "status": {}
    });
    let body = envelope("v1", "Namespace", &namespace);
    assert_stored_alike("/api/v1/namespaces", "demo", body, json).await;
}

#[tokio::test]
async fn a_deployment_from_protobuf_is_stored_as_from_json() {
    // `kubectl create deployment d1 --image=nginx --replicas=0`, with the value fields
    // Go's protobuf encoder writes even when empty.
    let container = core::Container {
        name: Some("nginx".to_owned()),
        image: Some("nginx".to_owned()),
        working_dir: Some(String::new()),
        resources: Some(core::ResourceRequirements::default()),
        termination_message_path: Some(String::new()),
        image_pull_policy: Some(String::new()),
        stdin: Some(false),
        stdin_once: Some(false),
        tty: Some(false),
        termination_message_policy: Some(String::new()),
        ..Default::default()
    };
    let deployment = apps::Deployment {
        metadata: Some(meta("d1", &[("app", "d1")])),
        spec: Some(apps::DeploymentSpec {
            replicas: Some(0),
            selector: Some(meta_pb::LabelSelector {
                match_labels: BTreeMap::from([("app".to_owned(), "d1".to_owned())]),
                ..Default::default()
            }),
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta("", &[("app", "d1")])),
                spec: Some(core::PodSpec {
                    containers: vec![container],
                    restart_policy: Some(String::new()),
                    dns_policy: Some(String::new()),
                    service_account_name: Some(String::new()),
                    node_name: Some(String::new()),
                    host_network: Some(false),
                    scheduler_name: Some(String::new()),
                    ..Default::default()
                }),
            }),
            strategy: Some(apps::DeploymentStrategy {
                r#type: Some(String::new()),
                rolling_update: None,
            }),
            min_ready_seconds: Some(0),
            paused: Some(false),
            ..Default::default()
        }),
        status: Some(apps::DeploymentStatus {
            observed_generation: Some(0),
            replicas: Some(0),
            updated_replicas: Some(0),
            ready_replicas: Some(0),
            available_replicas: Some(0),
            unavailable_replicas: Some(0),
            ..Default::default()
        }),
    };
    let json = json!({
        "kind": "Deployment", "apiVersion": "apps/v1",
        "metadata": {"name": "d1", "creationTimestamp": null, "labels": {"app": "d1"}},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "d1"}},
            "template": {
                "metadata": {"creationTimestamp": null, "labels": {"app": "d1"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]}
            },
            "strategy": {}
        },
        "status": {}
    });
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let body = envelope("apps/v1", "Deployment", &deployment);
    assert_stored_alike(path, "d1", body, json).await;
}

#[tokio::test]
async fn malformed_protobuf_bodies_are_a_400_status() {
    let server = ApiServer::start().await.expect("start");
    let path = "/api/v1/namespaces/default/configmaps";
    let headers = [("Content-Type", PROTOBUF)];
    let cm = core::ConfigMap {
        metadata: Some(meta("c1", &[])),
        ..Default::default()
    };
    let mut truncated = envelope("v1", "ConfigMap", &cm);
    truncated.truncate(truncated.len() - 3);
    for body in [
        b"{\"kind\":\"ConfigMap\"}".to_vec(),
        b"k8s\0\x0a\xff".to_vec(),
        truncated,
    ] {
        let response = raw_bytes(&server, "POST", path, &headers, &body).await;
        assert_eq!(response.status, 400);
        assert_eq!(response.header("content-type"), Some("application/json"));
        let status = response.json().expect("a Status");
        assert_eq!(
            (status["kind"].as_str(), status["code"].as_i64()),
            (Some("Status"), Some(400))
        );
        assert_eq!(status["reason"], "BadRequest");
    }
    let list = raw_with(&server, "GET", path, &[], "").await;
    assert_eq!(list.json()["items"], json!([]), "nothing was stored");
}

fn decode_response(body: &[u8]) -> (TypeMeta, Vec<u8>) {
    let unknown = Unknown::decode(body.strip_prefix(b"k8s\0").expect("magic")).expect("Unknown");
    (
        unknown.type_meta.expect("type meta"),
        unknown.raw.expect("raw"),
    )
}

#[tokio::test]
async fn a_protobuf_first_accept_gets_protobuf_that_decodes_back() {
    let server = ApiServer::start().await.expect("start");
    let accept = "application/vnd.kubernetes.protobuf, application/json";
    let path = "/api/v1/namespaces/default/configmaps";
    let cm = core::ConfigMap {
        metadata: Some(meta("c1", &[("app", "web")])),
        data: BTreeMap::from([("a".to_owned(), "b".to_owned())]),
        ..Default::default()
    };
    let headers = [("Content-Type", PROTOBUF), ("Accept", accept)];
    let body = envelope("v1", "ConfigMap", &cm);
    let created = raw_bytes(&server, "POST", path, &headers, &body).await;
    assert_eq!(created.status, 201);
    assert_eq!(created.header("content-type"), Some(PROTOBUF));
    let (type_meta, raw) = decode_response(&created.body);
    assert_eq!(
        (type_meta.api_version.as_deref(), type_meta.kind.as_deref()),
        (Some("v1"), Some("ConfigMap"))
    );
    let created = core::ConfigMap::decode(raw.as_slice()).expect("ConfigMap");
    assert_eq!(created.data, cm.data);

    // The protobuf answer to a GET carries what the JSON answer does.
    let json = raw_with(&server, "GET", &format!("{path}/c1"), &[], "")
        .await
        .json();
    let headers = [("Accept", accept)];
    let read = raw_bytes(&server, "GET", &format!("{path}/c1"), &headers, b"").await;
    assert_eq!(read.status, 200);
    let (_, raw) = decode_response(&read.body);
    let got = core::ConfigMap::decode(raw.as_slice()).expect("ConfigMap");
    let metadata = got.metadata.expect("metadata");
    let created_at = metadata
        .creation_timestamp
        .and_then(|t| t.seconds)
        .expect("creationTimestamp");
    let json_created_at: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time =
        serde_json::from_value(json["metadata"]["creationTimestamp"].clone()).expect("time");
    assert_eq!(
        (
            metadata.name.as_deref(),
            metadata.namespace.as_deref(),
            metadata.uid.as_deref(),
            metadata.resource_version.as_deref(),
            metadata.labels.get("app").map(String::as_str),
            created_at,
        ),
        (
            json["metadata"]["name"].as_str(),
            json["metadata"]["namespace"].as_str(),
            json["metadata"]["uid"].as_str(),
            json["metadata"]["resourceVersion"].as_str(),
            Some("web"),
            json_created_at.0.as_second(),
        )
    );
    assert_eq!(got.data, cm.data);

    // A JSON-first Accept keeps JSON.
    let headers = [(
        "Accept",
        "application/json, application/vnd.kubernetes.protobuf",
    )];
    let read = raw_bytes(&server, "GET", &format!("{path}/c1"), &headers, b"").await;
    assert_eq!(read.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn custom_resources_have_no_protobuf_form() {
    let server = ApiServer::start().await.expect("start");
    create_foo_crd(&server).await;
    let foo = core::ConfigMap {
        metadata: Some(meta("f", &[])),
        ..Default::default()
    };
    let body = envelope("example.com/v1", "Foo", &foo);
    let foos = "/apis/example.com/v1/namespaces/default/foos";
    let refused = raw_bytes(&server, "POST", foos, &[("Content-Type", PROTOBUF)], &body).await;
    assert_eq!(refused.status, 415, "{}", refused.text());
    let status = refused.json().expect("a Status");
    assert_eq!(status["reason"], "UnsupportedMediaType");
}

/// Registers the namespaced custom resource `foos.example.com/v1`.
async fn create_foo_crd(server: &ApiServer) {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Foo", "plural": "foos", "singular": "foo", "listKind": "FooList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    });
    create_json(
        server,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    )
    .await;
}

/// Status and Content-Type of a GET with this Accept header; a 406 must be a Status.
async fn answer(server: &ApiServer, path: &str, accept: &str) -> (u16, String) {
    let response = raw_bytes(server, "GET", path, &[("Accept", accept)], b"").await;
    if response.status == 406 {
        let status = response.json().expect("a Status");
        assert_eq!(status["reason"], "NotAcceptable", "{path} {accept}");
    }
    if response.status == 200 && accept.contains("as=Table") {
        let table = response.json().expect("a Table");
        assert_eq!(table["kind"], "Table", "{path} {accept}");
    }
    let content_type = response.header("content-type").unwrap_or_default();
    (response.status, content_type.to_owned())
}

#[tokio::test]
async fn one_negotiation_decides_protobuf_json_or_406_for_every_response() {
    let server = ApiServer::start().await.expect("start");
    let client = server.client();
    let configmaps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::default_namespaced(client.clone());
    configmaps
        .create(&Default::default(), &testkit_support::configmap("c1", "v"))
        .await
        .expect("create configmap");
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
        kube::Api::default_namespaced(client);
    deployments
        .create(&Default::default(), &deployment("d1", 1))
        .await
        .expect("create deployment");
    create_foo_crd(&server).await;
    let foo = json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f1"}});
    let foos = "/apis/example.com/v1/namespaces/default/foos";
    let created = raw_with(
        &server,
        "POST",
        foos,
        &[("Content-Type", "application/json")],
        &foo.to_string(),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);

    const JSON: &str = "application/json";
    let or_json = "application/vnd.kubernetes.protobuf, application/json";
    let or_anything = "application/vnd.kubernetes.protobuf, */*";
    let watch_pb = "application/vnd.kubernetes.protobuf;stream=watch";
    let watch_or_json =
        "application/vnd.kubernetes.protobuf;stream=watch, application/json;stream=watch";
    let table_pb = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io";
    let table_or_json = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io, application/json";
    let cms = "/api/v1/namespaces/default/configmaps";
    let cm = "/api/v1/namespaces/default/configmaps/c1";
    let watch = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1";
    let deploy = "/apis/apps/v1/namespaces/default/deployments/d1";
    let scale = "/apis/apps/v1/namespaces/default/deployments/d1/scale";
    let status = "/apis/apps/v1/namespaces/default/deployments/d1/status";
    let foo = "/apis/example.com/v1/namespaces/default/foos/f1";
    let cases = [
        // One whole built-in object: protobuf whenever the client prefers it.
        (cm, PROTOBUF, 200, PROTOBUF),
        (cm, or_json, 200, PROTOBUF),
        (deploy, or_anything, 200, PROTOBUF),
        (status, PROTOBUF, 200, PROTOBUF),
        // No protobuf form: JSON when the header allows it, 406 when it does not.
        (cms, PROTOBUF, 406, JSON),
        (cms, or_json, 200, JSON),
        (watch, watch_pb, 406, JSON),
        (watch, watch_or_json, 200, JSON),
        (cm, table_pb, 406, JSON),
        (cm, table_or_json, 200, JSON),
        (cms, table_or_json, 200, JSON),
        (scale, PROTOBUF, 406, JSON),
        (scale, or_json, 200, JSON),
        (foo, PROTOBUF, 406, JSON),
        (foo, or_anything, 200, JSON),
        (foos, or_json, 200, JSON),
    ];
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for (path, accept, code, content_type) in cases {
        expected.push((path.to_owned(), accept, code, content_type.to_owned()));
        let (code, content_type) = answer(&server, path, accept).await;
        got.push((path.to_owned(), accept, code, content_type));
    }
    assert_eq!(got, expected);
}
