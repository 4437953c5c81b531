//! Error bodies (`metav1.Status` with the right HTTP codes, read off the wire and as
//! `kube::Error::Api`) and discovery documents.

mod testkit_support;

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams};
use kube::discovery::{Discovery, Scope};
use kubegen_testkit::{ApiServer, Failure, Matcher, Verb};
use serde_json::json;
use testkit_support::{api_error, configmap, get, raw};

const CM_PATH: &str = "/api/v1/namespaces/default/configmaps";

fn assert_status(body: &serde_json::Value, code: u16, reason: &str) {
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["apiVersion"], "v1");
    assert_eq!(body["status"], "Failure");
    assert_eq!(body["code"], code);
    assert_eq!(body["reason"], reason);
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

#[tokio::test]
async fn not_found_already_exists_and_conflict_bodies() {
    let server = ApiServer::start().await.expect("start");
    let missing = get(&server, &format!("{CM_PATH}/nope")).await;
    assert_eq!(missing.status, 404);
    assert_status(&missing.json(), 404, "NotFound");
    assert_eq!(
        missing.json()["details"],
        json!({"name": "nope", "kind": "configmaps"})
    );
    assert_eq!(missing.json()["message"], "configmaps \"nope\" not found");

    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}"#;
    assert_eq!(
        raw(&server, "POST", CM_PATH, Some("application/json"), body)
            .await
            .status,
        201
    );
    let duplicate = raw(&server, "POST", CM_PATH, Some("application/json"), body).await;
    assert_eq!(duplicate.status, 409);
    assert_status(&duplicate.json(), 409, "AlreadyExists");

    let stale =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}"#;
    let conflict = raw(
        &server,
        "PUT",
        &format!("{CM_PATH}/a"),
        Some("application/json"),
        stale,
    )
    .await;
    assert_eq!(conflict.status, 409);
    assert_status(&conflict.json(), 409, "Conflict");
    assert!(
        conflict.json()["message"]
            .as_str()
            .expect("message")
            .contains("the object has been modified")
    );
}

#[tokio::test]
async fn invalid_bodies_list_their_causes() {
    let server = ApiServer::start().await.expect("start");
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Not_Valid"}}"#;
    let invalid = raw(&server, "POST", CM_PATH, Some("application/json"), body).await;
    assert_eq!(invalid.status, 422);
    let status = invalid.json();
    assert_status(&status, 422, "Invalid");
    assert_eq!(status["details"]["kind"], "ConfigMap");
    assert_eq!(status["details"]["name"], "Not_Valid");
    assert_eq!(status["details"]["causes"][0]["field"], "metadata.name");
    assert_eq!(
        status["details"]["causes"][0]["reason"],
        "FieldValueInvalid"
    );
    let garbage = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/json"),
        "{not json",
    )
    .await;
    assert_eq!(garbage.status, 400);
    assert_status(&garbage.json(), 400, "BadRequest");
    let wrong_kind = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/json"),
        r#"{"kind":"Secret","metadata":{"name":"x"}}"#,
    )
    .await;
    assert_eq!(wrong_kind.status, 400);
}

#[tokio::test]
async fn method_not_allowed_and_unsupported_media_type() {
    let server = ApiServer::start().await.expect("start");
    let post_named = raw(
        &server,
        "POST",
        &format!("{CM_PATH}/a"),
        Some("application/json"),
        "{}",
    )
    .await;
    assert_eq!(post_named.status, 405);
    assert_status(&post_named.json(), 405, "MethodNotAllowed");
    let put_collection = raw(&server, "PUT", CM_PATH, Some("application/json"), "{}").await;
    assert_eq!(put_collection.status, 405);
    let cbor = raw(&server, "POST", CM_PATH, Some("application/cbor"), "x").await;
    assert_eq!(cbor.status, 415);
    assert_status(&cbor.json(), 415, "UnsupportedMediaType");
    // Protobuf is spoken for built-in kinds: a body that is not protobuf is a 400.
    let protobuf = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/vnd.kubernetes.protobuf"),
        "x",
    )
    .await;
    assert_eq!(protobuf.status, 400);
    assert_status(&protobuf.json(), 400, "BadRequest");
    let xml = raw(
        &server,
        "PATCH",
        &format!("{CM_PATH}/a"),
        Some("application/xml"),
        "{}",
    )
    .await;
    assert_eq!(xml.status, 415);
    let unknown = get(&server, "/apis/nope.example.com/v1/things").await;
    assert_eq!(unknown.status, 404);
    assert_status(&unknown.json(), 404, "NotFound");
}

/// Found by the HTTP fuzzer: a write to an unknown group or version was 405, as if the
/// discovery document existed and only the method were wrong.
#[tokio::test]
async fn writes_to_missing_discovery_paths_are_not_found() {
    let server = ApiServer::start().await.expect("start");
    for path in [
        "/apis/nope",
        "/apis/apps/v7",
        "/api/v2",
        "/openapi/v3/apis/nope/v1",
    ] {
        let answer = raw(&server, "POST", path, Some("application/json"), "{}").await;
        assert_eq!(answer.status, 404, "POST {path}: {}", answer.body);
        assert_status(&answer.json(), 404, "NotFound");
    }
    for path in [
        "/apis/apps",
        "/apis/apps/v1",
        "/api/v1",
        "/api",
        "/openapi/v2",
    ] {
        let answer = raw(&server, "DELETE", path, None, "").await;
        assert_eq!(answer.status, 405, "DELETE {path}: {}", answer.body);
        assert_status(&answer.json(), 405, "MethodNotAllowed");
    }
}

#[tokio::test]
async fn injected_errors_have_real_reasons_and_retry_after() {
    let server = ApiServer::start().await.expect("start");
    let faults = server.faults();
    faults.fail(
        Failure::status(429)
            .retry_after(Duration::from_secs(3))
            .matching(Matcher::any().verb(Verb::List).resource("configmaps")),
    );
    let throttled = get(&server, CM_PATH).await;
    assert_eq!(throttled.status, 429);
    assert_eq!(throttled.header("retry-after"), Some("3"));
    assert_status(&throttled.json(), 429, "TooManyRequests");
    assert_eq!(throttled.json()["details"]["retryAfterSeconds"], 3);

    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for (code, reason) in [
        (500, "InternalError"),
        (409, "Conflict"),
        (503, "ServiceUnavailable"),
        (429, "TooManyRequests"),
    ] {
        faults.fail(Failure::status(code).matching(Matcher::any().verb(Verb::Create)));
        assert_eq!(
            api_error(
                api.create(&PostParams::default(), &configmap("a", "1"))
                    .await
            ),
            (code, reason.into())
        );
    }
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("faults are used up");
}

#[tokio::test]
async fn discovery_documents() {
    let server = ApiServer::start().await.expect("start");
    let version = get(&server, "/version").await.json();
    assert_eq!(version["major"], "1");
    assert!(
        version["gitVersion"]
            .as_str()
            .expect("gitVersion")
            .starts_with("v1.")
    );

    let api = get(&server, "/api").await.json();
    assert_eq!(api["kind"], "APIVersions");
    assert_eq!(api["versions"], json!(["v1"]));

    let core = get(&server, "/api/v1").await.json();
    assert_eq!(core["kind"], "APIResourceList");
    assert_eq!(core["groupVersion"], "v1");
    let resources = core["resources"].as_array().expect("resources");
    let pods = resources
        .iter()
        .find(|r| r["name"] == "pods")
        .expect("pods");
    assert_eq!(pods["namespaced"], true);
    assert_eq!(pods["kind"], "Pod");
    assert_eq!(pods["shortNames"], json!(["po"]));
    assert_eq!(
        pods["verbs"],
        json!([
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch"
        ])
    );
    assert!(resources.iter().any(|r| r["name"] == "pods/status"));
    let namespaces = resources
        .iter()
        .find(|r| r["name"] == "namespaces")
        .expect("namespaces");
    assert_eq!(namespaces["namespaced"], false);

    let groups = get(&server, "/apis").await.json();
    assert_eq!(groups["kind"], "APIGroupList");
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    for expected in [
        "apps",
        "coordination.k8s.io",
        "events.k8s.io",
        "apiextensions.k8s.io",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let apps = get(&server, "/apis/apps").await.json();
    assert_eq!(apps["kind"], "APIGroup");
    assert_eq!(apps["preferredVersion"]["groupVersion"], "apps/v1");
    let apps_v1 = get(&server, "/apis/apps/v1").await.json();
    let scale = apps_v1["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["name"] == "deployments/scale")
        .expect("scale");
    assert_eq!(
        (scale["group"].clone(), scale["kind"].clone()),
        (json!("autoscaling"), json!("Scale"))
    );
    assert_eq!(get(&server, "/apis/apps/v2").await.status, 404);
}

#[tokio::test]
async fn kube_discovery_finds_the_built_ins() {
    let server = ApiServer::start().await.expect("start");
    let discovery = Discovery::new(server.client())
        .run()
        .await
        .expect("discovery");
    let expected = [
        ("", "ConfigMap", Scope::Namespaced),
        ("", "Namespace", Scope::Cluster),
        ("apps", "Deployment", Scope::Namespaced),
        ("coordination.k8s.io", "Lease", Scope::Namespaced),
        ("events.k8s.io", "Event", Scope::Namespaced),
        (
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            Scope::Cluster,
        ),
    ];
    for (group, kind, scope) in expected {
        let (_, caps) = discovery
            .groups()
            .filter(|g| g.name() == group)
            .flat_map(|g| g.recommended_resources())
            .find(|(r, _)| r.kind == kind)
            .unwrap_or_else(|| panic!("{group} {kind} discovered"));
        assert_eq!(caps.scope, scope, "{kind}");
    }
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    assert!(api.list(&ListParams::default()).await.is_ok());
}

#[tokio::test]
async fn kubeconfig_points_other_clients_at_the_server() {
    let server = ApiServer::start().await.expect("start");
    let path = server.kubeconfig().expect("kubeconfig");
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).expect("parse kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("config");
    assert_eq!(config.cluster_url.to_string(), format!("{}/", server.url()));
    let client = kube::Client::try_from(config).expect("client");
    let api: Api<ConfigMap> = Api::default_namespaced(client);
    api.create(&PostParams::default(), &configmap("via-kubeconfig", "1"))
        .await
        .expect("create");
    server.shutdown().await;
    assert!(!path.exists(), "the kubeconfig is removed with the server");
}

#[tokio::test]
async fn kube_aggregated_discovery_matches_the_legacy_documents() {
    let server = ApiServer::start().await.expect("start");
    let aggregated = Discovery::new(server.client())
        .run_aggregated()
        .await
        .expect("aggregated discovery");
    let legacy = Discovery::new(server.client())
        .run()
        .await
        .expect("legacy discovery");
    let summarize = |discovery: &Discovery| {
        let mut kinds: Vec<(String, String, bool)> = discovery
            .groups()
            .flat_map(|g| g.recommended_resources())
            .map(|(r, caps)| (r.api_version, r.plural, caps.scope == Scope::Namespaced))
            .collect();
        kinds.sort();
        kinds
    };
    assert_eq!(summarize(&aggregated), summarize(&legacy));
    assert!(summarize(&aggregated).contains(&(
        "apps/v1".to_owned(),
        "deployments".to_owned(),
        true
    )));
    let raw = testkit_support::raw(&server, "GET", "/apis", None, "").await;
    assert_eq!(
        raw.json()["kind"],
        "APIGroupList",
        "plain JSON without the aggregated Accept header"
    );
}

#[tokio::test]
async fn yaml_request_bodies_are_accepted() {
    let server = ApiServer::start().await.expect("start");
    let yaml =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  key: value\n";
    let created = raw(&server, "POST", CM_PATH, Some("application/yaml"), yaml).await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.json()["data"]["key"], "value");
    let broken = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/yaml"),
        "a: [unclosed",
    )
    .await;
    assert_eq!(broken.status, 400);
    assert_status(&broken.json(), 400, "BadRequest");
}

#[tokio::test]
async fn an_oversized_body_is_a_413_status() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for megabytes in [4, 50] {
        let big = configmap("big", &"x".repeat(megabytes * 1024 * 1024));
        let created = api.create(&PostParams::default(), &big).await;
        assert_eq!(
            api_error(created),
            (413, "RequestEntityTooLarge".into()),
            "{megabytes} MiB"
        );
    }
    let just_under = configmap("fits", &"x".repeat(3 * 1024 * 1024 - 1024));
    api.create(&PostParams::default(), &just_under)
        .await
        .expect("a body under 3 MiB is accepted");
}

#[tokio::test]
async fn built_in_objects_are_decoded_through_their_types() {
    let server = ApiServer::start().await.expect("start");
    let number = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/json"),
        r#"{"metadata": {"name": "n"}, "data": {"a": 1}}"#,
    )
    .await;
    assert_eq!(number.status, 400, "{}", number.body);
    assert_status(&number.json(), 400, "BadRequest");
    let message = number.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with("ConfigMap in version \"v1\" cannot be handled as a ConfigMap"),
        "{message}"
    );
    let secret = raw(
        &server,
        "POST",
        "/api/v1/namespaces/default/secrets",
        Some("application/json"),
        r#"{"metadata": {"name": "s"}, "data": {"a": "not base64!"}}"#,
    )
    .await;
    assert_eq!(secret.status, 400, "{}", secret.body);
    // Unknown fields are dropped, as a real server's typed decoding drops them.
    let created = raw(
        &server,
        "POST",
        CM_PATH,
        Some("application/json"),
        r#"{"metadata": {"name": "ok", "colour": "red"}, "data": {"a": "1"}, "extra": true}"#,
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let stored = created.json();
    assert!(stored.get("extra").is_none() && stored["metadata"].get("colour").is_none());
    // A patch whose result does not decode is 422 Invalid, naming the patch.
    let patched = raw(
        &server,
        "PATCH",
        &format!("{CM_PATH}/ok"),
        Some("application/merge-patch+json"),
        r#"{"data": {"a": ["x"]}}"#,
    )
    .await;
    assert_eq!(patched.status, 422, "{}", patched.body);
    assert_status(&patched.json(), 422, "Invalid");
    assert_eq!(patched.json()["details"]["causes"][0]["field"], "patch");
    let updated = raw(
        &server,
        "PUT",
        &format!("{CM_PATH}/ok"),
        Some("application/json"),
        r#"{"metadata": {"name": "ok"}, "data": {"a": true}}"#,
    )
    .await;
    assert_eq!(updated.status, 400, "{}", updated.body);
}
