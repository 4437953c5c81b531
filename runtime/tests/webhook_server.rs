//! The webhook server over real HTTPS on 127.0.0.1, with a client that trusts only the
//! test's throwaway CA: validating, mutating and conversion webhooks, bad requests, the
//! health path, certificate rotation on disk, graceful shutdown and metrics.
#![allow(clippy::unwrap_used)]

mod webhook_support;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen_runtime::webhook::{
    AdmissionRequest, CertWatcher, Converter, Error, Mutated, Mutator, Validator, Verdict,
    WebhookServer, WebhookServerConfig,
};
use kubegen_testkit::certs::TestCa;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use webhook_support::{Connection, GUARD, TempDir, admission_review, config_map, start};

/// Passwords belong in Secrets (create); `mode` never changes (update); `protected`
/// ConfigMaps stay (delete); a ConfigMap without labels gets a warning.
struct Policy;

impl Validator<ConfigMap> for Policy {
    async fn validate_create(
        &self,
        object: &ConfigMap,
        request: &AdmissionRequest<ConfigMap>,
    ) -> Verdict {
        assert_eq!(request.user_info.username.as_deref(), Some("alice"));
        if object
            .data
            .as_ref()
            .is_some_and(|d| d.contains_key("password"))
        {
            return Verdict::deny("passwords belong in Secrets");
        }
        match object.metadata.labels {
            None => Verdict::allow().warning("this ConfigMap has no labels"),
            Some(_) => Verdict::allow(),
        }
    }

    async fn validate_update(
        &self,
        old: &ConfigMap,
        new: &ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Verdict {
        let mode = |c: &ConfigMap| c.data.as_ref().and_then(|d| d.get("mode")).cloned();
        match mode(old) == mode(new) {
            true => Verdict::allow(),
            false => Verdict::deny("data.mode is immutable").code(422),
        }
    }

    async fn validate_delete(&self, old: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
        match old
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("protected"))
        {
            true => Verdict::deny("this ConfigMap is protected").code(409),
            false => Verdict::allow(),
        }
    }
}

/// Labels every ConfigMap `team: ice` and defaults `data.size`; refuses the name `nope`.
struct Defaulter;

impl Mutator<ConfigMap> for Defaulter {
    async fn mutate(
        &self,
        mut object: ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Result<Mutated<ConfigMap>, Verdict> {
        if object.metadata.name.as_deref() == Some("nope") {
            return Err(Verdict::deny("not this name"));
        }
        object
            .metadata
            .labels
            .get_or_insert_default()
            .insert("team".into(), "ice".into());
        object
            .data
            .get_or_insert_default()
            .entry("size".into())
            .or_insert_with(|| "small".into());
        Ok(Mutated::new(object).warning("defaulted data.size"))
    }
}

/// v1alpha1 `spec.colour` <-> v1 `spec.color`; `purple` has no v1 spelling.
struct IceCreams;

impl Converter for IceCreams {
    type Error = String;

    fn convert(&self, mut object: Value, desired: &str) -> Result<Value, String> {
        let (from, to) = match desired {
            "example.com/v1" => ("colour", "color"),
            "example.com/v1alpha1" => ("color", "colour"),
            other => return Err(format!("unknown version {other}")),
        };
        let spec = object["spec"].as_object_mut().ok_or("no spec")?;
        let value = spec.remove(from).unwrap_or_default();
        if value == "purple" {
            return Err("purple has no v1 spelling".into());
        }
        spec.insert(to.into(), value);
        object["apiVersion"] = desired.into();
        Ok(object)
    }
}

fn all_webhooks(config: WebhookServerConfig) -> WebhookServer {
    WebhookServer::new(config)
        .validating("/validate-configmaps", Policy)
        .mutating("/mutate-configmaps", Defaulter)
        .conversion("/convert", IceCreams)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_webhook_allows_and_denies_with_reasons_and_warnings() {
    let server = start(all_webhooks).await;
    let mut conn = server.connect().await;
    let path = "/validate-configmaps";

    let plain = config_map("plain", json!({"mode": "fast"}));
    let (status, review) = conn
        .post(path, &admission_review("CREATE", Some(plain.clone()), None))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        review,
        json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {
                "uid": "uid-CREATE-plain",
                "allowed": true,
                "status": {"code": 200},
                "warnings": ["this ConfigMap has no labels"]
            }
        })
    );

    let secret = config_map("leaky", json!({"password": "hunter2"}));
    let (status, review) = conn
        .post(path, &admission_review("CREATE", Some(secret), None))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        review["response"],
        json!({
            "uid": "uid-CREATE-leaky",
            "allowed": false,
            "status": {"code": 403, "reason": "Forbidden", "message": "passwords belong in Secrets"}
        })
    );

    let changed = config_map("plain", json!({"mode": "slow"}));
    let (_, review) = conn
        .post(
            path,
            &admission_review("UPDATE", Some(changed), Some(plain.clone())),
        )
        .await;
    assert_eq!(review["response"]["allowed"], false);
    assert_eq!(
        review["response"]["status"],
        json!({"code": 422, "reason": "Invalid", "message": "data.mode is immutable"})
    );
    let (_, review) = conn
        .post(
            path,
            &admission_review("UPDATE", Some(plain.clone()), Some(plain.clone())),
        )
        .await;
    assert_eq!(review["response"]["allowed"], true);

    let mut protected = config_map("keep", json!({}));
    protected["metadata"]["labels"] = json!({"protected": "yes"});
    let (_, review) = conn
        .post(path, &admission_review("DELETE", None, Some(protected)))
        .await;
    assert_eq!(review["response"]["allowed"], false);
    assert_eq!(review["response"]["status"]["code"], 409);
    assert_eq!(review["response"]["status"]["reason"], "Conflict");
    let (_, review) = conn
        .post(path, &admission_review("DELETE", None, Some(plain)))
        .await;
    assert_eq!(review["response"]["allowed"], true);

    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_webhook_patch_applied_to_the_input_gives_the_handlers_object() {
    let server = start(all_webhooks).await;
    let mut conn = server.connect().await;

    let mut input = config_map("cone", json!({"flavour": "vanilla"}));
    // A field ConfigMap does not model: the patch must not remove it.
    input["metadata"]["labels"] = json!({"app": "shop"});
    input["extra"] = json!({"kept": true});
    let (status, review) = conn
        .post(
            "/mutate-configmaps",
            &admission_review("CREATE", Some(input.clone()), None),
        )
        .await;
    assert_eq!(status, 200);
    let response = &review["response"];
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    assert_eq!(response["warnings"], json!(["defaulted data.size"]));
    // `patch` is base64 of the JSON patch, as the API documents it.
    assert!(response["patch"].is_string(), "{response}");
    let patch: ByteString = serde_json::from_value(response["patch"].clone()).unwrap();
    let patch: json_patch::Patch = serde_json::from_slice(&patch.0).unwrap();

    let mut patched = input.clone();
    json_patch::patch(&mut patched, &patch).unwrap();
    let expected = Defaulter
        .mutate(
            serde_json::from_value(input).unwrap(),
            &serde_json::from_value(admission_review("CREATE", None, None)["request"].clone())
                .unwrap(),
        )
        .await
        .unwrap()
        .object;
    assert_eq!(
        serde_json::from_value::<ConfigMap>(patched.clone()).unwrap(),
        expected
    );
    assert_eq!(patched["extra"], json!({"kept": true}));
    assert_eq!(
        patched["metadata"]["labels"],
        json!({"app": "shop", "team": "ice"})
    );

    // A refusal carries no patch; deletes are allowed untouched.
    let (_, review) = conn
        .post(
            "/mutate-configmaps",
            &admission_review("CREATE", Some(config_map("nope", json!({}))), None),
        )
        .await;
    assert_eq!(review["response"]["allowed"], false);
    assert_eq!(review["response"]["status"]["message"], "not this name");
    assert!(review["response"].get("patch").is_none());
    let (_, review) = conn
        .post(
            "/mutate-configmaps",
            &admission_review("DELETE", None, Some(config_map("cone", json!({})))),
        )
        .await;
    assert_eq!(review["response"]["allowed"], true);
    assert!(review["response"].get("patch").is_none());

    server.stop().await.unwrap();
}

fn ice_cream(version: &str, name: &str, field: &str, colour: &str) -> Value {
    json!({
        "apiVersion": format!("example.com/{version}"),
        "kind": "IceCream",
        "metadata": {"name": name, "namespace": "shop", "uid": format!("uid-{name}")},
        "spec": {field: colour, "scoops": 2}
    })
}

fn conversion_review(desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "desiredAPIVersion": desired,
            "objects": objects
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversion_review_converts_a_list_and_reports_a_failure() {
    let server = start(all_webhooks).await;
    let mut conn = server.connect().await;

    let objects = vec![
        ice_cream("v1alpha1", "a", "colour", "red"),
        ice_cream("v1", "b", "color", "green"),
        ice_cream("v1alpha1", "c", "colour", "blue"),
    ];
    let (status, review) = conn
        .post("/convert", &conversion_review("example.com/v1", objects))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        review,
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "response": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "result": {"status": "Success"},
                "convertedObjects": [
                    ice_cream("v1", "a", "color", "red"),
                    ice_cream("v1", "b", "color", "green"),
                    ice_cream("v1", "c", "color", "blue"),
                ]
            }
        })
    );

    let objects = vec![
        ice_cream("v1alpha1", "a", "colour", "red"),
        ice_cream("v1alpha1", "grape", "colour", "purple"),
    ];
    let (status, review) = conn
        .post("/convert", &conversion_review("example.com/v1", objects))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        review["response"],
        json!({
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "result": {
                "status": "Failure",
                "message": "failed to convert IceCream shop/grape from example.com/v1alpha1 to example.com/v1: purple has no v1 spelling"
            },
            "convertedObjects": []
        })
    );

    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_a_400_with_a_clear_message() {
    let server = start(all_webhooks).await;
    let mut conn = server.connect().await;

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "/validate-configmaps",
            b"not json".to_vec(),
            "failed to decode the AdmissionReview: expected ident at line 1 column 2",
        ),
        (
            "/validate-configmaps",
            serde_json::to_vec(&conversion_review("example.com/v1", vec![])).unwrap(),
            r#"expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "apiextensions.k8s.io/v1" kind "ConversionReview""#,
        ),
        (
            "/mutate-configmaps",
            serde_json::to_vec(
                &json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}),
            )
            .unwrap(),
            "the AdmissionReview holds no request",
        ),
        (
            "/validate-configmaps",
            {
                let mut review = admission_review("CREATE", Some(config_map("s", json!({}))), None);
                review["request"]["kind"] = json!({"group": "", "version": "v1", "kind": "Secret"});
                serde_json::to_vec(&review).unwrap()
            },
            "this webhook admits v1 ConfigMap, the request is for v1 Secret",
        ),
        (
            "/validate-configmaps",
            serde_json::to_vec(&admission_review("CREATE", None, None)).unwrap(),
            "a CREATE request without an object",
        ),
        (
            "/convert",
            b"[1, 2".to_vec(),
            "failed to decode the ConversionReview: ",
        ),
        (
            "/convert",
            serde_json::to_vec(&admission_review("CREATE", None, None)).unwrap(),
            r#"expected an apiextensions.k8s.io/v1 ConversionReview, got apiVersion "admission.k8s.io/v1" kind "AdmissionReview""#,
        ),
    ];
    for (path, body, message) in cases {
        let (status, body) = conn.send("POST", path, body).await;
        let status_body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(status, 400, "{path}: {status_body}");
        assert_eq!(status_body["kind"], "Status");
        assert_eq!(status_body["code"], 400);
        assert_eq!(status_body["reason"], "BadRequest");
        let got = status_body["message"].as_str().unwrap();
        assert!(
            got.starts_with(message),
            "{path}: {got:?} does not start with {message:?}"
        );
    }

    // Not a webhook path, or not a POST: axum's 404 and 405, and the connection lives on.
    assert_eq!(conn.send("POST", "/nowhere", vec![]).await.0, 404);
    assert_eq!(conn.send("GET", "/convert", vec![]).await.0, 405);
    let (status, review) = conn
        .post(
            "/validate-configmaps",
            &admission_review("CREATE", Some(config_map("fine", json!({}))), None),
        )
        .await;
    assert_eq!(
        (status, &review["response"]["allowed"]),
        (200, &json!(true))
    );

    server.stop().await.unwrap();
}

/// Panics on every create.
struct Panics;

impl Validator<ConfigMap> for Panics {
    async fn validate_create(&self, _: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
        panic!("boom")
    }
}

/// Panics on every object.
struct PanickingConverter;

impl Converter for PanickingConverter {
    type Error = String;

    fn convert(&self, _: Value, _: &str) -> Result<Value, String> {
        panic!("bang")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_gets_a_500_and_an_oversized_body_a_413_on_a_live_connection() {
    let server = start(|config| {
        WebhookServer::new(config.body_limit(4096))
            .validating("/panics", Panics)
            .conversion("/convert-panics", PanickingConverter)
            .validating("/validate-configmaps", Policy)
    })
    .await;
    let mut conn = server.connect().await;
    let review = admission_review("CREATE", Some(config_map("a", json!({}))), None);

    let (status, body) = conn.post("/panics", &review).await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["reason"], "InternalError");
    assert_eq!(body["message"], "the webhook handler panicked: boom");
    let objects = vec![ice_cream("v1alpha1", "a", "colour", "red")];
    let (status, body) = conn
        .post(
            "/convert-panics",
            &conversion_review("example.com/v1", objects),
        )
        .await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["message"], "the webhook handler panicked: bang");

    let mut big = config_map("big", json!({}));
    big["data"] = json!({"blob": "x".repeat(5000)});
    let (status, body) = conn
        .post(
            "/validate-configmaps",
            &admission_review("CREATE", Some(big), None),
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge");
    assert_eq!(
        body["message"],
        "the request body is larger than 4096 bytes"
    );

    // The same connection still serves.
    let (status, review) = conn.post("/validate-configmaps", &review).await;
    assert_eq!(
        (status, &review["response"]["allowed"]),
        (200, &json!(true))
    );
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_path_answers_ok() {
    let server = start(all_webhooks).await;
    let mut conn = server.connect().await;
    let (status, body) = conn.send("GET", "/healthz", vec![]).await;
    assert_eq!((status, body.as_slice()), (200, b"ok".as_slice()));
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_rotated_on_disk_reaches_new_connections_and_spares_open_ones() {
    let server = start(all_webhooks).await;
    let mut before = server.connect().await;
    let old_cert = before.peer_cert.clone();

    let new_ca = TestCa::new().unwrap();
    new_ca
        .serving_cert(&["localhost", "127.0.0.1"])
        .unwrap()
        .write_to(server.dir.path())
        .unwrap();

    // Wait (a condition, with a guard) until a client trusting only the new CA gets in.
    let mut after = tokio::time::timeout(GUARD, async {
        loop {
            match Connection::open(server.addr, new_ca.cert_pem()).await {
                Ok(conn) => break conn,
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .expect("the new certificate is served");
    assert_ne!(after.peer_cert, old_cert);
    // A client trusting only the old CA no longer does.
    assert!(
        Connection::open(server.addr, server.ca.cert_pem())
            .await
            .is_err()
    );

    // The connection opened before the rotation still works.
    let review = admission_review("CREATE", Some(config_map("a", json!({}))), None);
    let (status, answer) = before.post("/validate-configmaps", &review).await;
    assert_eq!(
        (status, &answer["response"]["allowed"]),
        (200, &json!(true))
    );
    let (status, _) = after.post("/validate-configmaps", &review).await;
    assert_eq!(status, 200);

    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_bad_pair_on_disk_keeps_the_current_certificate() {
    let dir = TempDir::new();
    let first = TestCa::new().unwrap().serving_cert(&["localhost"]).unwrap();
    first.write_to(dir.path()).unwrap();
    let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    let watcher = CertWatcher::load(&cert, &key).unwrap();
    let served = watcher.current();
    assert!(!watcher.reload().unwrap(), "nothing new to serve");

    // A certificate with another certificate's key.
    let other = TestCa::new().unwrap().serving_cert(&["localhost"]).unwrap();
    std::fs::write(&cert, other.cert_pem()).unwrap();
    assert!(matches!(watcher.reload(), Err(Error::KeyPair { .. })));
    assert!(Arc::ptr_eq(&watcher.current(), &served));
    // The same refused pair is not reported twice.
    assert!(!watcher.reload().unwrap(), "nothing new to serve");

    std::fs::write(&key, "not a key").unwrap();
    assert!(matches!(watcher.reload(), Err(Error::Pem { .. })));
    assert!(Arc::ptr_eq(&watcher.current(), &served));

    std::fs::remove_file(&key).unwrap();
    assert!(matches!(watcher.reload(), Err(Error::ReadFile { .. })));

    other.write_to(dir.path()).unwrap();
    assert!(watcher.reload().unwrap(), "the good pair is served");
    assert!(!Arc::ptr_eq(&watcher.current(), &served));
    assert_eq!(watcher.current().cert[0].as_ref(), {
        use rustls::pki_types::pem::PemObject;
        rustls::pki_types::CertificateDer::from_pem_slice(other.cert_pem().as_bytes())
            .unwrap()
            .as_ref()
            .to_vec()
    });
}

/// Tells the test it started, then waits for its release.
struct Slow {
    started: mpsc::UnboundedSender<()>,
    release: Arc<Notify>,
}

impl Validator<ConfigMap> for Slow {
    async fn validate_create(&self, _: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
        let _ = self.started.send(());
        self.release.notified().await;
        Verdict::allow()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_finishes_a_request_in_flight() {
    let (started, mut running) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let slow = Slow {
        started,
        release: Arc::clone(&release),
    };
    let mut server = start(|config| WebhookServer::new(config).validating("/slow", slow)).await;
    let mut conn = server.connect().await;
    let request = tokio::spawn(async move {
        let review = admission_review("CREATE", Some(config_map("a", json!({}))), None);
        conn.post("/slow", &review).await
    });
    tokio::time::timeout(GUARD, running.recv())
        .await
        .expect("the request reaches the handler");

    server.begin_shutdown();
    // Once the server stops accepting, new connections are refused...
    let addr = server.addr;
    tokio::time::timeout(GUARD, async {
        while tokio::net::TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the listener closes");
    // ... while the request in flight finishes.
    release.notify_one();
    let (status, review) = request.await.unwrap();
    assert_eq!(
        (status, &review["response"]["allowed"]),
        (200, &json!(true))
    );
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_gives_up_on_requests_past_its_timeout() {
    let (started, mut running) = mpsc::unbounded_channel();
    let slow = Slow {
        started,
        release: Arc::new(Notify::new()),
    };
    let mut server = start(|config| {
        WebhookServer::new(config.shutdown_timeout(Duration::from_millis(100)))
            .validating("/slow", slow)
    })
    .await;
    let mut conn = server.connect().await;
    let review = admission_review("CREATE", Some(config_map("a", json!({}))), None);
    let request = tokio::spawn(async move {
        conn.send("POST", "/slow", serde_json::to_vec(&review).unwrap())
            .await
    });
    tokio::time::timeout(GUARD, running.recv()).await.unwrap();
    server.begin_shutdown();
    // The handler never finishes: serve returns anyway, and the client's request fails.
    server.stop().await.unwrap();
    assert!(
        request.await.is_err(),
        "the request cannot have been answered"
    );
}

#[tokio::test]
async fn two_webhooks_at_one_path_are_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = WebhookServer::new(WebhookServerConfig::default())
        .validating("/configmaps", Policy)
        .mutating("/configmaps", Defaulter);
    let error = server.serve(listener, async {}).await.unwrap_err();
    assert!(
        matches!(&error, Error::DuplicatePath(path) if path == "/configmaps"),
        "{error}"
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server =
        WebhookServer::new(WebhookServerConfig::default()).conversion("convert", IceCreams);
    let error = server.serve(listener, async {}).await.unwrap_err();
    assert!(matches!(error, Error::InvalidPath(_)), "{error}");
}

#[cfg(feature = "prometheus")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_and_denials_by_webhook() {
    use kubegen_runtime::metrics::prometheus::PrometheusWebhookMetrics;
    use prometheus_client::registry::Registry;

    let mut registry = Registry::default();
    let metrics = PrometheusWebhookMetrics::register(&mut registry);
    let server = start(|config| all_webhooks(config.metrics(metrics))).await;
    let mut conn = server.connect().await;
    let validate = "/validate-configmaps";
    conn.post(
        validate,
        &admission_review("CREATE", Some(config_map("a", json!({}))), None),
    )
    .await;
    conn.post(
        validate,
        &admission_review(
            "CREATE",
            Some(config_map("b", json!({"password": "x"}))),
            None,
        ),
    )
    .await;
    conn.send("POST", validate, b"{".to_vec()).await;
    conn.post(
        "/convert",
        &conversion_review(
            "example.com/v1",
            vec![ice_cream("v1alpha1", "grape", "colour", "purple")],
        ),
    )
    .await;
    server.stop().await.unwrap();

    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    for line in [
        r#"controller_runtime_webhook_requests_total{webhook="/validate-configmaps",code="200"} 2"#,
        r#"controller_runtime_webhook_requests_total{webhook="/validate-configmaps",code="400"} 1"#,
        r#"controller_runtime_webhook_requests_total{webhook="/convert",code="200"} 1"#,
        r#"controller_runtime_webhook_requests_total{webhook="/mutate-configmaps",code="200"} 0"#,
        r#"controller_runtime_webhook_latency_seconds_count{webhook="/validate-configmaps"} 3"#,
        r#"controller_runtime_webhook_requests_in_flight{webhook="/validate-configmaps"} 0"#,
        r#"kubegen_webhook_denials_total{webhook="/validate-configmaps"} 1"#,
        r#"kubegen_webhook_denials_total{webhook="/convert"} 1"#,
        r#"kubegen_webhook_denials_total{webhook="/mutate-configmaps"} 0"#,
    ] {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
}
