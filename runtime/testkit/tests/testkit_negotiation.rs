//! Content negotiation: the metadata-only and Table Accept headers on get, list, watch and writes,
//! fallbacks to the whole object, and 406 NotAcceptable, as a real API server answers.

mod testkit_support;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::core::PartialObjectMeta;
use kubegen_testkit::ApiServer;
use serde_json::{Value, json};
use testkit_support::{RawResponse, configmap, raw_with};

const OBJECT: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const KUBECTL_TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

async fn accept(server: &ApiServer, path: &str, accept: &str) -> RawResponse {
    raw_with(server, "GET", path, &[("Accept", accept)], "").await
}

async fn server_with(names: &[&str]) -> ApiServer {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in names {
        api.create(&PostParams::default(), &configmap(name, "secret body"))
            .await
            .expect("create");
    }
    server
}

fn assert_partial(object: &Value, api_version: &str, name: &str) {
    assert_eq!(object["kind"], "PartialObjectMetadata", "{object}");
    assert_eq!(object["apiVersion"], api_version, "{object}");
    assert_eq!(object["metadata"]["name"], name, "{object}");
    assert!(
        object["metadata"]["resourceVersion"].is_string(),
        "{object}"
    );
    let keys: Vec<&String> = object.as_object().expect("object").keys().collect();
    assert_eq!(
        keys.len(),
        3,
        "only kind, apiVersion and metadata: {object}"
    );
}

fn assert_not_acceptable(response: &RawResponse) {
    assert_eq!(response.status, 406, "{}", response.body);
    let status = response.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "NotAcceptable");
}

#[tokio::test]
async fn get_answers_each_accept_form() {
    let server = server_with(&["a"]).await;
    let path = "/api/v1/namespaces/default/configmaps/a";
    assert_partial(
        &accept(&server, path, OBJECT).await.json(),
        "meta.k8s.io/v1",
        "a",
    );
    let beta = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1";
    assert_partial(
        &accept(&server, path, beta).await.json(),
        "meta.k8s.io/v1beta1",
        "a",
    );
    // client-go's metadata client: protobuf first (not served here), JSON metadata next.
    let client_go = format!(
        "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,{OBJECT},application/json"
    );
    assert_partial(
        &accept(&server, path, &client_go).await.json(),
        "meta.k8s.io/v1",
        "a",
    );
    let table = accept(&server, path, KUBECTL_TABLE).await.json();
    assert_eq!(table["kind"], "Table", "{table}");
    assert_eq!(
        table["rows"][0]["object"]["metadata"]["name"], "a",
        "{table}"
    );
    for whole in [
        "application/json;as=Table;v=v2;g=meta.k8s.io,application/json",
        "*/*",
        "application/json",
        "",
    ] {
        let response = accept(&server, path, whole).await;
        assert_eq!(response.status, 200, "{whole}: {}", response.body);
        assert_eq!(response.json()["kind"], "ConfigMap", "{whole}");
        assert_eq!(response.json()["data"]["value"], "secret body", "{whole}");
    }
    // The list form of one object, a Table in an unknown version, or an unknown kind:
    // nothing to serve.
    assert_not_acceptable(&accept(&server, path, LIST).await);
    assert_not_acceptable(
        &accept(
            &server,
            path,
            "application/json;as=Table;v=v2;g=meta.k8s.io",
        )
        .await,
    );
    assert_not_acceptable(&accept(&server, path, "application/yaml").await);
    server.shutdown().await;
}

#[tokio::test]
async fn list_answers_each_accept_form_and_keeps_paging() {
    let server = server_with(&["a", "b", "c"]).await;
    let path = "/api/v1/namespaces/default/configmaps";
    let list = accept(&server, path, LIST).await.json();
    assert_eq!(list["kind"], "PartialObjectMetadataList", "{list}");
    assert_eq!(list["apiVersion"], "meta.k8s.io/v1");
    assert!(list["metadata"]["resourceVersion"].is_string(), "{list}");
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    for (item, name) in items.iter().zip(["a", "b", "c"]) {
        assert_partial(item, "meta.k8s.io/v1", name);
    }

    let page = accept(&server, &format!("{path}?limit=2"), LIST)
        .await
        .json();
    assert_eq!(page["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(page["metadata"]["remainingItemCount"], 1, "{page}");
    let token = page["metadata"]["continue"].as_str().expect("continue");
    let rest = accept(&server, &format!("{path}?limit=2&continue={token}"), LIST)
        .await
        .json();
    assert_partial(&rest["items"][0], "meta.k8s.io/v1", "c");

    let table = accept(&server, path, KUBECTL_TABLE).await.json();
    assert_eq!(table["kind"], "Table", "{table}");
    assert_eq!(table["rows"].as_array().map(Vec::len), Some(3), "{table}");
    let whole = accept(&server, path, "application/json").await.json();
    assert_eq!(whole["kind"], "ConfigMapList");
    assert_eq!(whole["items"][0]["data"]["value"], "secret body");
    assert_not_acceptable(&accept(&server, path, OBJECT).await);
    server.shutdown().await;
}

fn events(response: &RawResponse) -> Vec<(String, Value)> {
    assert_eq!(response.status, 200, "{}", response.body);
    response
        .lines()
        .into_iter()
        .map(|line| {
            (
                line["type"].as_str().unwrap_or_default().to_owned(),
                line["object"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn watch_sends_partial_objects_and_bookmarks() {
    let server = server_with(&["a", "b"]).await;
    let path = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1\
                &allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
    let seen = events(&accept(&server, path, OBJECT).await);
    assert_eq!(seen.len(), 3, "{seen:?}");
    for ((kind, object), name) in seen.iter().zip(["a", "b"]) {
        assert_eq!(kind, "ADDED");
        assert_partial(object, "meta.k8s.io/v1", name);
    }
    let (kind, bookmark) = &seen[2];
    assert_eq!(kind, "BOOKMARK");
    assert_eq!(bookmark["kind"], "PartialObjectMetadata");
    assert_eq!(bookmark["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(
        bookmark["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );

    // A watch cannot fail part-way: the list form, which single objects cannot take,
    // falls back to whole objects, as a real server's watch does.
    let seen = events(&accept(&server, path, LIST).await);
    assert_eq!(seen[0].1["kind"], "ConfigMap");
    assert_eq!(seen[0].1["data"]["value"], "secret body");

    // Errors stay a Status.
    server.faults().compact();
    let old = "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&resourceVersion=1";
    let seen = events(&accept(&server, old, OBJECT).await);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, "ERROR");
    assert_eq!(seen[0].1["kind"], "Status");
    assert_eq!(seen[0].1["code"], 410);
    server.shutdown().await;
}

#[tokio::test]
async fn writes_answer_with_metadata_when_asked() {
    let server = server_with(&[]).await;
    let path = "/api/v1/namespaces/default/configmaps";
    let body = json!({"metadata": {"name": "w"}, "data": {"value": "x"}}).to_string();
    let created = raw_with(
        &server,
        "POST",
        path,
        &[("Accept", OBJECT), ("Content-Type", "application/json")],
        &body,
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_partial(&created.json(), "meta.k8s.io/v1", "w");
    let patch = json!({"metadata": {"labels": {"app": "web"}}}).to_string();
    let patched = raw_with(
        &server,
        "PATCH",
        &format!("{path}/w"),
        &[
            ("Accept", OBJECT),
            ("Content-Type", "application/merge-patch+json"),
        ],
        &patch,
    )
    .await;
    assert_eq!(patched.status, 200, "{}", patched.body);
    assert_partial(&patched.json(), "meta.k8s.io/v1", "w");
    assert_eq!(patched.json()["metadata"]["labels"]["app"], "web");
    let stored = accept(&server, &format!("{path}/w"), "").await.json();
    assert_eq!(
        stored["data"]["value"], "x",
        "the body is kept, only not sent"
    );
    server.shutdown().await;
}

/// kube's `Api<PartialObjectMeta<K>>` (what metadata informers list and watch through)
/// round-trips against the testkit.
#[tokio::test]
async fn kube_metadata_api_reads_and_patches() {
    use futures::{StreamExt, TryStreamExt};

    let server = server_with(&["a"]).await;
    let api: Api<PartialObjectMeta<ConfigMap>> = Api::default_namespaced(server.client());
    let got = api.get("a").await.expect("get");
    assert_eq!(got.types.expect("types").kind, "PartialObjectMetadata");
    let list = api.list(&ListParams::default()).await.expect("list");
    assert_eq!(list.items.len(), 1);
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));
    let mut stream = api
        .watch(&WatchParams::default().timeout(1), "0")
        .await
        .expect("watch")
        .boxed();
    match stream.try_next().await.expect("event") {
        Some(WatchEvent::Added(object)) => {
            assert_eq!(object.types.expect("types").api_version, "meta.k8s.io/v1");
        }
        other => panic!("expected ADDED, got {other:?}"),
    }
    let patched = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {"seen": "yes"}}})),
        )
        .await
        .expect("patch");
    assert_eq!(
        patched
            .metadata
            .annotations
            .and_then(|a| a.get("seen").cloned()),
        Some("yes".to_owned())
    );
    server.shutdown().await;
}
