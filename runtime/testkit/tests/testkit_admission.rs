//! Admission webhooks called by the testkit as kube-apiserver calls them: real HTTPS
//! webhook servers in the test (a throwaway CA and a serving certificate for 127.0.0.1),
//! registered through Validating and Mutating WebhookConfigurations, and kube-rs clients
//! writing through the testkit.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use kubegen_testkit::ApiServer;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A CA and a serving certificate for 127.0.0.1 signed by it.
struct Certs {
    ca_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: Vec<u8>,
}

fn certs() -> Certs {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
        .expect("CA certificate");
    let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    params
        .subject_alt_names
        .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    let key = KeyPair::generate().expect("key");
    let cert = params.signed_by(&key, &ca).expect("serving certificate");
    Certs {
        ca_pem: ca.pem(),
        chain: vec![cert.der().clone()],
        key: key.serialize_der(),
    }
}

fn base64(text: &str) -> String {
    serde_json::to_value(k8s_openapi::ByteString(text.as_bytes().to_vec()))
        .expect("base64")
        .as_str()
        .expect("a string")
        .to_owned()
}

/// What the webhook answers to one review.
enum Reply {
    /// An AdmissionReview with this `response` (its `uid` filled in).
    Review(Value),
    /// A raw HTTP answer.
    Raw(StatusCode, &'static str),
    /// Sleeps, then answers allowed.
    Slow(Duration),
}

type Behaviour = dyn Fn(&Value) -> Reply + Send + Sync;

struct Hook {
    behaviour: Box<Behaviour>,
    calls: AtomicUsize,
    requests: Mutex<Vec<Value>>,
}

/// An HTTPS webhook server on 127.0.0.1 answering every POST with `behaviour`.
struct WebhookServer {
    url: String,
    ca_bundle: String,
    hook: Arc<Hook>,
}

impl WebhookServer {
    async fn start(behaviour: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Self {
        let certs = certs();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("protocols")
        .with_no_client_auth()
        .with_single_cert(
            certs.chain.clone(),
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certs.key.clone())),
        )
        .expect("server config");
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let hook = Arc::new(Hook {
            behaviour: Box::new(behaviour),
            calls: AtomicUsize::new(0),
            requests: Mutex::new(Vec::new()),
        });
        let router = Router::new()
            .route("/{*path}", post(answer))
            .with_state(hook.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let acceptor = acceptor.clone();
                let router = router.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), TowerToHyperService::new(router))
                        .await;
                });
            }
        });
        Self {
            url: format!("https://{address}/admit"),
            ca_bundle: base64(&certs.ca_pem),
            hook,
        }
    }

    fn calls(&self) -> usize {
        self.hook.calls.load(Ordering::SeqCst)
    }

    fn requests(&self) -> Vec<Value> {
        self.hook.requests.lock().expect("requests").clone()
    }

    /// A `clientConfig` for this server.
    fn client_config(&self) -> Value {
        json!({"url": self.url, "caBundle": self.ca_bundle})
    }
}

async fn answer(State(hook): State<Arc<Hook>>, body: Bytes) -> (StatusCode, String) {
    hook.calls.fetch_add(1, Ordering::SeqCst);
    let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = review.get("request").cloned().unwrap_or(Value::Null);
    hook.requests
        .lock()
        .expect("requests")
        .push(request.clone());
    let uid = request.get("uid").cloned().unwrap_or(Value::Null);
    let reply = (hook.behaviour)(&request);
    let mut response = match reply {
        Reply::Raw(code, text) => return (code, text.to_owned()),
        Reply::Slow(delay) => {
            tokio::time::sleep(delay).await;
            json!({"allowed": true})
        }
        Reply::Review(response) => response,
    };
    response["uid"] = uid;
    let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response});
    (StatusCode::OK, review.to_string())
}

fn allow() -> Reply {
    Reply::Review(json!({"allowed": true}))
}

/// A webhook entry for `server`, with `rules` and extra fields merged in.
fn webhook(name: &str, server: &WebhookServer, rules: Value, extra: Value) -> Value {
    let mut hook = json!({
        "name": name,
        "clientConfig": server.client_config(),
        "rules": rules,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    });
    if let (Some(hook), Some(extra)) = (hook.as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            hook.insert(key.clone(), value.clone());
        }
    }
    hook
}

fn rule(operations: &[&str], group: &str, resources: &[&str]) -> Value {
    json!([{"operations": operations, "apiGroups": [group], "apiVersions": ["*"], "resources": resources}])
}

async fn validating(client: &kube::Client, name: &str, webhooks: Vec<Value>) {
    let configuration: ValidatingWebhookConfiguration = serde_json::from_value(json!({
        "metadata": {"name": name},
        "webhooks": webhooks,
    }))
    .expect("a configuration");
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &configuration)
        .await
        .expect("validating configuration created");
}

async fn mutating(client: &kube::Client, name: &str, webhooks: Vec<Value>) {
    let configuration: MutatingWebhookConfiguration = serde_json::from_value(json!({
        "metadata": {"name": name},
        "webhooks": webhooks,
    }))
    .expect("a configuration");
    Api::<MutatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &configuration)
        .await
        .expect("mutating configuration created");
}

fn configmap(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            ),
            ..Default::default()
        },
        data: Some([("k".to_owned(), "v".to_owned())].into()),
        ..Default::default()
    }
}

/// The API error of a failed write.
fn api_error<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_denied_create_returns_the_reason_and_an_allowed_one_is_stored() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|request| {
        if request.pointer("/object/metadata/name") == Some(&json!("forbidden")) {
            Reply::Review(
                json!({"allowed": false, "status": {"message": "configmaps may not be named forbidden"}}),
            )
        } else {
            Reply::Review(json!({"allowed": true, "warnings": ["looked at it"]}))
        }
    })
    .await;
    let rules = rule(&["CREATE"], "", &["configmaps"]);
    validating(
        &client,
        "deny",
        vec![webhook("deny.testkit.io", &hook, rules, json!({}))],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("forbidden", &[]))
            .await,
    );
    assert_eq!(code, 403);
    assert_eq!(
        message,
        "admission webhook \"deny.testkit.io\" denied the request: configmaps may not be named forbidden"
    );
    assert!(
        configmaps
            .get_opt("forbidden")
            .await
            .expect("get")
            .is_none()
    );

    configmaps
        .create(&PostParams::default(), &configmap("fine", &[]))
        .await
        .expect("allowed");
    assert!(configmaps.get_opt("fine").await.expect("get").is_some());
    let requests = hook.requests();
    assert_eq!(requests.len(), 2);
    let request = &requests[1];
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(
        request["kind"],
        json!({"group": "", "version": "v1", "kind": "ConfigMap"})
    );
    assert_eq!(
        request["resource"],
        json!({"group": "", "version": "v1", "resource": "configmaps"})
    );
    assert_eq!(request["namespace"], "default");
    assert_eq!(request["name"], "fine");
    assert_eq!(request["object"]["data"], json!({"k": "v"}));
    assert_eq!(request["oldObject"], Value::Null);
    assert_eq!(request["dryRun"], false);
    server.shutdown().await;
}

#[tokio::test]
async fn a_mutating_webhooks_patch_is_in_the_stored_object() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let patch = base64(r#"[{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}]"#);
    let hook = WebhookServer::start(move |_| {
        Reply::Review(json!({"allowed": true, "patchType": "JSONPatch", "patch": patch}))
    })
    .await;
    let rules = rule(&["CREATE"], "", &["configmaps"]);
    mutating(
        &client,
        "label",
        vec![webhook("label.testkit.io", &hook, rules, json!({}))],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let created = configmaps
        .create(&PostParams::default(), &configmap("patched", &[]))
        .await
        .expect("created");
    let labels = |cm: &ConfigMap| cm.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        labels(&created).get("mutated").map(String::as_str),
        Some("yes")
    );
    let stored = configmaps.get("patched").await.expect("get");
    assert_eq!(
        labels(&stored).get("mutated").map(String::as_str),
        Some("yes")
    );
    assert_eq!(hook.calls(), 1);
    server.shutdown().await;
}

#[tokio::test]
async fn if_needed_webhooks_run_again_after_a_later_webhook_changed_the_object() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let first = WebhookServer::start(|_| allow()).await;
    let patch = base64(r#"[{"op":"add","path":"/data/added","value":"by b"}]"#);
    let second = WebhookServer::start(move |request| {
        if request.pointer("/object/data/added").is_some() {
            allow()
        } else {
            Reply::Review(json!({"allowed": true, "patchType": "JSONPatch", "patch": patch}))
        }
    })
    .await;
    let rules = rule(&["CREATE"], "", &["configmaps"]);
    mutating(
        &client,
        "a",
        vec![webhook(
            "a.testkit.io",
            &first,
            rules.clone(),
            json!({"reinvocationPolicy": "IfNeeded"}),
        )],
    )
    .await;
    mutating(
        &client,
        "b",
        vec![webhook("b.testkit.io", &second, rules, json!({}))],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    configmaps
        .create(&PostParams::default(), &configmap("twice", &[]))
        .await
        .expect("created");
    assert_eq!(first.calls(), 2);
    assert_eq!(second.calls(), 1);
    assert_eq!(
        first.requests()[1].pointer("/object/data/added"),
        Some(&json!("by b"))
    );
    server.shutdown().await;
}

#[tokio::test]
async fn rules_that_do_not_match_are_not_called() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|_| allow()).await;
    // Secrets on create, configmaps on delete, pods in apps (no such thing), cluster scope.
    let rules = json!([
        {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["secrets"]},
        {"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["*"], "resources": ["configmaps"]},
        {"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["*"], "resources": ["pods"]},
        {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "scope": "Cluster"},
    ]);
    validating(
        &client,
        "some",
        vec![webhook("some.testkit.io", &hook, rules, json!({}))],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let mut cm = configmaps
        .create(&PostParams::default(), &configmap("c", &[]))
        .await
        .expect("created");
    cm.data = Some([("k".to_owned(), "changed".to_owned())].into());
    configmaps
        .replace("c", &PostParams::default(), &cm)
        .await
        .expect("updated");
    assert_eq!(hook.calls(), 0, "create and update of a configmap");
    configmaps
        .delete("c", &DeleteParams::default())
        .await
        .expect("deleted");
    assert_eq!(hook.calls(), 1, "delete of a configmap");
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some("cluster-scoped".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .expect("namespace");
    assert_eq!(hook.calls(), 2, "a cluster-scoped create");
    server.shutdown().await;
}

#[tokio::test]
async fn namespace_and_object_selectors_filter() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let by_namespace = WebhookServer::start(|_| allow()).await;
    let by_object = WebhookServer::start(|_| allow()).await;
    let rules = rule(&["*"], "", &["configmaps"]);
    validating(
        &client,
        "selectors",
        vec![
            webhook(
                "namespace.testkit.io",
                &by_namespace,
                rules.clone(),
                json!({"namespaceSelector": {"matchLabels": {"team": "a"}}}),
            ),
            webhook(
                "object.testkit.io",
                &by_object,
                rules,
                json!({"objectSelector": {"matchExpressions": [{"key": "checked", "operator": "In", "values": ["yes"]}]}}),
            ),
        ],
    )
    .await;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    for (name, team) in [("team-a", "a"), ("team-b", "b")] {
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some([("team".to_owned(), team.to_owned())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        namespaces
            .create(&PostParams::default(), &ns)
            .await
            .expect("namespace");
    }
    let in_b: Api<ConfigMap> = Api::namespaced(client.clone(), "team-b");
    in_b.create(&PostParams::default(), &configmap("plain", &[]))
        .await
        .expect("created");
    assert_eq!((by_namespace.calls(), by_object.calls()), (0, 0));
    let in_a: Api<ConfigMap> = Api::namespaced(client.clone(), "team-a");
    in_a.create(&PostParams::default(), &configmap("plain", &[]))
        .await
        .expect("created");
    assert_eq!((by_namespace.calls(), by_object.calls()), (1, 0));
    in_b.create(
        &PostParams::default(),
        &configmap("labelled", &[("checked", "yes")]),
    )
    .await
    .expect("created");
    assert_eq!((by_namespace.calls(), by_object.calls()), (1, 1));
    // The old object's labels select an update that removes them.
    let mut cm = in_b.get("labelled").await.expect("get");
    cm.metadata.labels = None;
    in_b.replace("labelled", &PostParams::default(), &cm)
        .await
        .expect("updated");
    assert_eq!((by_namespace.calls(), by_object.calls()), (1, 2));
    server.shutdown().await;
}

/// A URL where nothing listens.
async fn closed_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address: SocketAddr = listener.local_addr().expect("address");
    drop(listener);
    format!("https://{address}/admit")
}

#[tokio::test]
async fn a_webhook_that_is_down_fails_the_request_or_is_ignored() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|_| allow()).await;
    let url = closed_url().await;
    let down = |name: &str, group: &str, policy: &str| {
        let mut entry = webhook(
            name,
            &hook,
            rule(&["CREATE"], group, &["configmaps", "secrets"]),
            json!({"failurePolicy": policy}),
        );
        entry["clientConfig"]["url"] = json!(url);
        entry
    };
    validating(
        &client,
        "down-fail",
        vec![down("fail.testkit.io", "", "Fail")],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("c", &[]))
            .await,
    );
    assert_eq!(code, 500);
    assert!(
        message
            .starts_with("Internal error occurred: failed calling webhook \"fail.testkit.io\": "),
        "{message}"
    );
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .delete("down-fail", &DeleteParams::default())
        .await
        .expect("deleted");
    validating(
        &client,
        "down-ignore",
        vec![down("ignore.testkit.io", "", "Ignore")],
    )
    .await;
    configmaps
        .create(&PostParams::default(), &configmap("c", &[]))
        .await
        .expect("ignored failure");
    assert!(configmaps.get_opt("c").await.expect("get").is_some());
    server.shutdown().await;
}

#[tokio::test]
async fn a_slow_webhook_hits_its_timeout_and_the_failure_policy_applies() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let slow = WebhookServer::start(|_| Reply::Slow(Duration::from_secs(20))).await;
    validating(
        &client,
        "slow",
        vec![
            webhook(
                "fail.testkit.io",
                &slow,
                rule(&["CREATE"], "", &["configmaps"]),
                json!({"timeoutSeconds": 1, "failurePolicy": "Fail"}),
            ),
            webhook(
                "ignore.testkit.io",
                &slow,
                rule(&["CREATE"], "", &["secrets"]),
                json!({"timeoutSeconds": 1, "failurePolicy": "Ignore"}),
            ),
        ],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let guard = Duration::from_secs(15);
    let result = tokio::time::timeout(
        guard,
        configmaps.create(&PostParams::default(), &configmap("c", &[])),
    )
    .await
    .expect("answered well before the webhook");
    let (code, message) = api_error(result);
    assert_eq!(code, 500);
    assert!(message.contains("context deadline exceeded"), "{message}");
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.clone(), "default");
    let secret = k8s_openapi::api::core::v1::Secret {
        metadata: ObjectMeta {
            name: Some("s".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    tokio::time::timeout(guard, secrets.create(&PostParams::default(), &secret))
        .await
        .expect("answered well before the webhook")
        .expect("created, the failure ignored");
    server.shutdown().await;
}

#[tokio::test]
async fn the_webhooks_certificate_is_verified_against_its_ca_bundle() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|_| allow()).await;
    let other_ca = base64(&certs().ca_pem);
    let mut entry = webhook(
        "tls.testkit.io",
        &hook,
        rule(&["CREATE"], "", &["configmaps"]),
        json!({}),
    );
    entry["clientConfig"]["caBundle"] = json!(other_ca);
    validating(&client, "tls", vec![entry]).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("c", &[]))
            .await,
    );
    assert_eq!(code, 500);
    assert!(message.contains("failed calling webhook"), "{message}");
    assert_eq!(hook.calls(), 0, "the TLS handshake failed");
    server.shutdown().await;
}

#[tokio::test]
async fn bad_answers_are_failures_under_the_failure_policy() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let garbage = WebhookServer::start(|_| Reply::Raw(StatusCode::OK, "not json")).await;
    let error =
        WebhookServer::start(|_| Reply::Raw(StatusCode::INTERNAL_SERVER_ERROR, "boom")).await;
    let wrong_uid = WebhookServer::start(|_| {
        Reply::Raw(
            StatusCode::OK,
            r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"another","allowed":true}}"#,
        )
    })
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for (i, hook) in [&garbage, &error, &wrong_uid].into_iter().enumerate() {
        let name = format!("bad-{i}");
        validating(
            &client,
            &name,
            vec![webhook(
                "bad.testkit.io",
                hook,
                rule(&["CREATE"], "", &["configmaps"]),
                json!({}),
            )],
        )
        .await;
        let (code, _) = api_error(
            configmaps
                .create(&PostParams::default(), &configmap("c", &[]))
                .await,
        );
        assert_eq!(code, 500);
        Api::<ValidatingWebhookConfiguration>::all(client.clone())
            .delete(&name, &DeleteParams::default())
            .await
            .expect("deleted");
    }
    assert_eq!(
        (garbage.calls(), error.calls(), wrong_uid.calls()),
        (1, 1, 1)
    );
    configmaps
        .create(&PostParams::default(), &configmap("c", &[]))
        .await
        .expect("no webhook left");
    server.shutdown().await;
}

#[tokio::test]
async fn a_status_rule_fires_on_status_updates_only() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|_| allow()).await;
    validating(
        &client,
        "status",
        vec![webhook(
            "status.testkit.io",
            &hook,
            rule(&["UPDATE"], "", &["pods/status"]),
            json!({}),
        )],
    )
    .await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }))
    .expect("pod");
    let mut pod = pods
        .create(&PostParams::default(), &pod)
        .await
        .expect("created");
    pod.metadata.labels = Some([("changed".to_owned(), "yes".to_owned())].into());
    let mut pod = pods
        .replace("p", &PostParams::default(), &pod)
        .await
        .expect("updated");
    assert_eq!(hook.calls(), 0);
    pod.status = Some(serde_json::from_value(json!({"phase": "Running"})).expect("status"));
    pods.replace_status("p", &PostParams::default(), &pod)
        .await
        .expect("status updated");
    assert_eq!(hook.calls(), 1);
    let request = &hook.requests()[0];
    assert_eq!(request["subResource"], "status");
    assert_eq!(request["operation"], "UPDATE");
    assert_eq!(request["object"]["status"]["phase"], "Running");
    assert_eq!(request["oldObject"]["status"]["phase"], "Pending");
    server.shutdown().await;
}

#[tokio::test]
async fn a_delete_is_admitted_with_the_old_object() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|request| {
        if request.pointer("/oldObject/metadata/labels/protected") == Some(&json!("true")) {
            Reply::Review(
                json!({"allowed": false, "status": {"code": 409, "message": "protected"}}),
            )
        } else {
            allow()
        }
    })
    .await;
    validating(
        &client,
        "delete",
        vec![webhook(
            "delete.testkit.io",
            &hook,
            rule(&["DELETE"], "", &["configmaps"]),
            json!({}),
        )],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for (name, protected) in [("keep", "true"), ("drop", "false")] {
        configmaps
            .create(
                &PostParams::default(),
                &configmap(name, &[("protected", protected)]),
            )
            .await
            .expect("created");
    }
    let (code, message) = api_error(configmaps.delete("keep", &DeleteParams::default()).await);
    assert_eq!(code, 409);
    assert!(
        message.ends_with("denied the request: protected"),
        "{message}"
    );
    assert!(configmaps.get_opt("keep").await.expect("get").is_some());
    configmaps
        .delete("drop", &DeleteParams::default())
        .await
        .expect("deleted");
    assert!(configmaps.get_opt("drop").await.expect("get").is_none());
    let requests = hook.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1]["operation"], "DELETE");
    assert_eq!(requests[1]["object"], Value::Null);
    assert_eq!(requests[1]["oldObject"]["metadata"]["name"], "drop");
    assert_eq!(requests[1]["options"]["kind"], "DeleteOptions");
    server.shutdown().await;
}

#[tokio::test]
async fn dry_run_needs_webhooks_without_side_effects() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|_| allow()).await;
    validating(
        &client,
        "effects",
        vec![
            webhook(
                "none.testkit.io",
                &hook,
                rule(&["CREATE"], "", &["configmaps"]),
                json!({"sideEffects": "NoneOnDryRun"}),
            ),
            webhook(
                "some.testkit.io",
                &hook,
                rule(&["CREATE"], "", &["secrets"]),
                json!({"sideEffects": "Some"}),
            ),
        ],
    )
    .await;
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    configmaps
        .create(&dry_run, &configmap("c", &[]))
        .await
        .expect("dry run");
    assert_eq!(hook.requests()[0]["dryRun"], true);
    assert!(configmaps.get_opt("c").await.expect("get").is_none());
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.clone(), "default");
    let secret = k8s_openapi::api::core::v1::Secret {
        metadata: ObjectMeta {
            name: Some("s".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let (code, message) = api_error(secrets.create(&dry_run, &secret).await);
    assert_eq!(code, 400);
    assert_eq!(
        message,
        "admission webhook \"some.testkit.io\" does not support dry run"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn client_configs_are_validated_as_kube_apiserver_validates_them() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let configuration = |client_config: Value| -> ValidatingWebhookConfiguration {
        serde_json::from_value(json!({
            "metadata": {"name": "service"},
            "webhooks": [{
                "name": "service.testkit.io",
                "clientConfig": client_config,
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }],
        }))
        .expect("a configuration")
    };
    let api = Api::<ValidatingWebhookConfiguration>::all(client.clone());
    let (code, message) = api_error(
        api.create(
            &PostParams::default(),
            &configuration(json!({"service": {"name": "webhook", "path": "no-slash"}})),
        )
        .await,
    );
    assert_eq!(code, 422);
    assert!(
        message.contains("webhooks[0].clientConfig.service.namespace: Required value: service namespace is required"),
        "{message}"
    );
    assert!(
        message.contains("webhooks[0].clientConfig.service.path: Invalid value: \"no-slash\": must start with a '/'"),
        "{message}"
    );
    let (code, message) = api_error(
        api.create(
            &PostParams::default(),
            &configuration(json!({"url": "https://127.0.0.1:1/", "service": {"name": "webhook", "namespace": "default"}})),
        )
        .await,
    );
    assert_eq!(code, 422);
    assert!(
        message.contains("exactly one of url or service is required"),
        "{message}"
    );
    api.create(
        &PostParams::default(),
        &configuration(
            json!({"service": {"name": "webhook", "namespace": "default", "path": "/validate"}}),
        ),
    )
    .await
    .expect("a service is accepted");
    server.shutdown().await;
}

#[tokio::test]
async fn patches_and_applies_are_admitted_as_the_writes_they_are() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|request| {
        if request.pointer("/object/data/k") == Some(&json!("bad")) {
            Reply::Review(json!({"allowed": false, "status": {"message": "bad value"}}))
        } else {
            allow()
        }
    })
    .await;
    validating(
        &client,
        "patches",
        vec![webhook(
            "patch.testkit.io",
            &hook,
            rule(&["CREATE", "UPDATE"], "", &["configmaps"]),
            json!({}),
        )],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    configmaps
        .create(&PostParams::default(), &configmap("c", &[]))
        .await
        .expect("created");
    let merge = |value: &str| Patch::Merge(json!({"data": {"k": value}}));
    let (code, message) = api_error(
        configmaps
            .patch("c", &PatchParams::default(), &merge("bad"))
            .await,
    );
    assert_eq!(code, 403);
    assert!(
        message.ends_with("denied the request: bad value"),
        "{message}"
    );
    let stored = configmaps.get("c").await.expect("get");
    assert_eq!(stored.data.expect("data")["k"], "v");
    configmaps
        .patch("c", &PatchParams::default(), &merge("good"))
        .await
        .expect("patched");
    let last = hook.requests().pop().expect("a request");
    assert_eq!(last["operation"], "UPDATE");
    assert_eq!(last["oldObject"]["data"]["k"], "v");
    assert_eq!(last["object"]["data"]["k"], "good");

    let apply = |value: &str| {
        Patch::Apply(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "applied"}, "data": {"k": value},
        }))
    };
    let params = PatchParams::apply("admission-test");
    let applied = configmaps
        .patch("applied", &params, &apply("v"))
        .await
        .expect("applied");
    assert_eq!(
        hook.requests().pop().expect("a request")["operation"],
        "CREATE"
    );
    let managers: Vec<_> = applied
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|entry| (entry.manager, entry.operation))
        .collect();
    assert_eq!(
        managers,
        [(Some("admission-test".to_owned()), Some("Apply".to_owned()))]
    );
    let (code, _) = api_error(configmaps.patch("applied", &params, &apply("bad")).await);
    assert_eq!(code, 403);
    server.shutdown().await;
}

#[tokio::test]
async fn a_delete_collection_admits_every_object_as_a_delete() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let hook = WebhookServer::start(|request| {
        if request.pointer("/oldObject/metadata/name") == Some(&json!("z-protected")) {
            Reply::Review(json!({"allowed": false, "status": {"message": "protected"}}))
        } else {
            allow()
        }
    })
    .await;
    validating(
        &client,
        "collection",
        vec![webhook(
            "collection.testkit.io",
            &hook,
            rule(&["DELETE"], "", &["configmaps"]),
            json!({}),
        )],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for name in ["a", "b", "z-protected"] {
        configmaps
            .create(&PostParams::default(), &configmap(name, &[("set", "one")]))
            .await
            .expect("created");
    }
    let lp = kube::api::ListParams::default().labels("set=one");
    let (code, message) = api_error(
        configmaps
            .delete_collection(&DeleteParams::default(), &lp)
            .await,
    );
    assert_eq!(code, 403);
    assert!(
        message.ends_with("denied the request: protected"),
        "{message}"
    );
    let left: Vec<_> = configmaps
        .list(&lp)
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|cm| cm.metadata.name)
        .collect();
    assert_eq!(left, ["z-protected"]);
    let operations: Vec<_> = hook
        .requests()
        .iter()
        .map(|r| {
            (
                r["operation"].clone(),
                r["oldObject"]["metadata"]["name"].clone(),
            )
        })
        .collect();
    assert_eq!(
        operations,
        [
            (json!("DELETE"), json!("a")),
            (json!("DELETE"), json!("b")),
            (json!("DELETE"), json!("z-protected")),
        ]
    );
    server.shutdown().await;
}
