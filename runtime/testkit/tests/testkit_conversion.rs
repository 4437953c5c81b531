//! CRD conversion webhooks called by the testkit as kube-apiserver calls them: a CRD
//! with `spec.conversion.strategy: Webhook` whose webhook is the runtime's real HTTPS
//! webhook server (`kubegen_runtime::webhook::WebhookServer`) with a hand-written
//! [`Converter`] (v1alpha1 `spec.colour` <-> v1 `spec.color`, storage v1), and kube-rs
//! clients reading and writing at both versions. Reviews are counted with the server's
//! metrics hook; hand-made HTTPS answers check the refusal of bad responses.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use futures::{StreamExt, TryStreamExt};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kubegen_runtime::metrics::webhook::{WebhookMetrics, WebhookMetricsProvider};
use kubegen_runtime::webhook::{Converter, WebhookServer, WebhookServerConfig};
use kubegen_testkit::certs::TestCa;
use kubegen_testkit::{ApiServer, ApiServerConfig};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

const GROUP: &str = "example.com";

/// v1alpha1 names it `spec.colour`, v1 `spec.color`. A colour `fail` cannot be
/// converted; converting the colour `rename` renames the object (which the API server
/// must refuse).
struct Colours;

impl Converter for Colours {
    type Error = String;

    fn convert(&self, mut object: Value, desired_api_version: &str) -> Result<Value, String> {
        let (from, to) = match desired_api_version {
            "example.com/v1" => ("colour", "color"),
            "example.com/v1alpha1" => ("color", "colour"),
            other => return Err(format!("unknown version {other}")),
        };
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
            && let Some(value) = spec.remove(from)
        {
            if value == "fail" {
                return Err("the colour fail has no other name".to_owned());
            }
            if value == "rename" {
                object["metadata"]["name"] = json!("renamed");
            }
            object["spec"][to] = value;
        }
        object["apiVersion"] = json!(desired_api_version);
        Ok(object)
    }
}

/// Counts the requests the webhook server gets on each path.
#[derive(Debug, Default)]
struct Reviews(Arc<AtomicUsize>);

#[derive(Debug)]
struct Counter(Arc<AtomicUsize>);

impl WebhookMetrics for Counter {
    fn started(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl WebhookMetricsProvider for Reviews {
    fn webhook_metrics(&self, _: &str) -> Option<Arc<dyn WebhookMetrics>> {
        Some(Arc::new(Counter(Arc::clone(&self.0))))
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kubegen-conversion-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The runtime's webhook server converting [`Colours`] on 127.0.0.1.
struct Webhook {
    url: String,
    ca_pem: String,
    reviews: Arc<AtomicUsize>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
    _dir: TempDir,
}

impl Webhook {
    async fn start() -> Self {
        let dir = TempDir::new();
        let ca = TestCa::new().expect("CA");
        ca.serving_cert(&["127.0.0.1"])
            .expect("serving certificate")
            .write_to(&dir.0)
            .expect("write the certificate");
        let reviews = Arc::new(AtomicUsize::new(0));
        let config = WebhookServerConfig::default()
            .cert_dir(&dir.0)
            .metrics(Reviews(Arc::clone(&reviews)));
        let server = WebhookServer::new(config).conversion("/convert", Colours);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            server.serve(listener, shutdown).await.expect("serve");
        });
        Self {
            url: format!("https://{address}/convert"),
            ca_pem: ca.cert_pem().to_owned(),
            reviews,
            stop: Some(stop),
            task,
            _dir: dir,
        }
    }

    fn reviews(&self) -> usize {
        self.reviews.load(Ordering::SeqCst)
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.expect("the server task");
    }
}

/// A CRD `widgets.example.com` (v1alpha1, v1 stored) converting through `url`.
fn crd(url: &str, ca_pem: &str) -> CustomResourceDefinition {
    let version = |name: &str, field: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    field: {"type": "string"},
                    "replicas": {"type": "integer"},
                }},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
            }}},
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
        })
    };
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [version("v1alpha1", "colour", false), version("v1", "color", true)],
            "conversion": {"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"url": url, "caBundle": base64(ca_pem)},
            }},
        },
    }))
    .expect("a CRD")
}

fn base64(text: &str) -> String {
    serde_json::to_value(k8s_openapi::ByteString(text.as_bytes().to_vec()))
        .expect("base64")
        .as_str()
        .expect("a string")
        .to_owned()
}

/// Widgets at `version` in `default`.
fn widgets(server: &ApiServer, version: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: GROUP.to_owned(),
        version: version.to_owned(),
        api_version: format!("{GROUP}/{version}"),
        kind: "Widget".to_owned(),
        plural: "widgets".to_owned(),
    };
    Api::namespaced_with(server.client(), "default", &resource)
}

/// A widget at v1alpha1 (`colour`) or v1 (`color`).
fn widget(version: &str, name: &str, colour: &str) -> DynamicObject {
    let field = if version == "v1" { "color" } else { "colour" };
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": "shop"}},
        "spec": {field: colour, "replicas": 1},
    }))
    .expect("a widget")
}

fn spec(object: &DynamicObject) -> &Value {
    &object.data["spec"]
}

/// A testkit with the CRD registered, converting through `url`.
async fn server_with(url: &str, ca_pem: &str, config: ApiServerConfig) -> ApiServer {
    let server = ApiServer::start_with(config).await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.create(&PostParams::default(), &crd(url, ca_pem))
        .await
        .expect("create the CRD");
    server
}

/// The code and message of a failed call.
fn failure<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message.clone()),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn objects_are_stored_at_the_storage_version_and_converted_on_the_way() {
    let webhook = Webhook::start().await;
    let server = server_with(&webhook.url, &webhook.ca_pem, ApiServerConfig::default()).await;
    let alpha = widgets(&server, "v1alpha1");
    let v1 = widgets(&server, "v1");

    // A create at v1alpha1: the body converted to v1, the answer back to v1alpha1.
    let created = alpha
        .create(&PostParams::default(), &widget("v1alpha1", "a", "red"))
        .await
        .expect("create at v1alpha1");
    assert_eq!(webhook.reviews(), 2);
    assert_eq!(
        created.types.as_ref().map(|t| t.api_version.as_str()),
        Some("example.com/v1alpha1")
    );
    assert_eq!(spec(&created), &json!({"colour": "red", "replicas": 1}));

    // At the storage version nothing is converted.
    let stored = v1.get("a").await.expect("get at v1");
    assert_eq!(webhook.reviews(), 2);
    assert_eq!(
        stored.types.as_ref().map(|t| t.api_version.as_str()),
        Some("example.com/v1")
    );
    assert_eq!(spec(&stored), &json!({"color": "red", "replicas": 1}));
    assert_eq!(stored.metadata.uid, created.metadata.uid);
    assert_eq!(
        stored.metadata.resource_version,
        created.metadata.resource_version
    );

    // At v1alpha1, one review, and the object comes back as it was written.
    let round_trip = alpha.get("a").await.expect("get at v1alpha1");
    assert_eq!(webhook.reviews(), 3);
    assert_eq!(spec(&round_trip), spec(&created));
    assert_eq!(round_trip.metadata.labels, created.metadata.labels);

    // An update at v1alpha1 is stored at v1.
    let mut changed = round_trip.clone();
    changed.data["spec"]["colour"] = json!("blue");
    let updated = alpha
        .replace("a", &PostParams::default(), &changed)
        .await
        .expect("update at v1alpha1");
    assert_eq!(spec(&updated)["colour"], "blue");
    assert_eq!(spec(&v1.get("a").await.expect("get"))["color"], "blue");

    // A delete answers at the request's version.
    let deleted = alpha
        .delete("a", &DeleteParams::default())
        .await
        .expect("delete at v1alpha1");
    let deleted = deleted.left().expect("the deleted object");
    assert_eq!(spec(&deleted)["colour"], "blue");

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn a_list_at_another_version_converts_every_item_in_one_review() {
    let webhook = Webhook::start().await;
    let server = server_with(&webhook.url, &webhook.ca_pem, ApiServerConfig::default()).await;
    let alpha = widgets(&server, "v1alpha1");
    let v1 = widgets(&server, "v1");
    for (name, colour) in [("a", "red"), ("b", "green"), ("c", "blue")] {
        v1.create(&PostParams::default(), &widget("v1", name, colour))
            .await
            .expect("create at v1");
    }
    assert_eq!(
        webhook.reviews(),
        0,
        "objects at the storage version are not sent"
    );

    let listed = alpha.list(&ListParams::default()).await.expect("list");
    assert_eq!(webhook.reviews(), 1, "one review for the whole list");
    let colours: Vec<&Value> = listed.items.iter().map(|w| &spec(w)["colour"]).collect();
    assert_eq!(colours, [&json!("red"), &json!("green"), &json!("blue")]);
    assert!(listed.items.iter().all(|w| spec(w).get("color").is_none()));

    let page = alpha
        .list(&ListParams::default().limit(2))
        .await
        .expect("a page");
    assert_eq!(page.items.len(), 2);
    assert_eq!(webhook.reviews(), 2);

    v1.list(&ListParams::default()).await.expect("list at v1");
    assert_eq!(webhook.reviews(), 2, "no review at the storage version");

    // A deletecollection answers with the objects at the request's version, in one review.
    let deleted = alpha
        .delete_collection(&DeleteParams::default(), &ListParams::default())
        .await
        .expect("deletecollection");
    let deleted = deleted.left().expect("the deleted objects");
    assert_eq!(deleted.items.len(), 3);
    assert!(
        deleted
            .items
            .iter()
            .all(|w| spec(w).get("colour").is_some())
    );
    assert_eq!(webhook.reviews(), 3);

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn a_watch_at_another_version_converts_every_event() {
    let webhook = Webhook::start().await;
    let server = server_with(&webhook.url, &webhook.ca_pem, ApiServerConfig::default()).await;
    let alpha = widgets(&server, "v1alpha1");
    let v1 = widgets(&server, "v1");
    v1.create(&PostParams::default(), &widget("v1", "before", "red"))
        .await
        .expect("create");

    let mut events = alpha
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    let mut next =
        async || match tokio::time::timeout(Duration::from_secs(10), events.try_next()).await {
            Ok(Ok(Some(event))) => event,
            other => panic!("expected an event, got {other:?}"),
        };
    let colour = |object: &DynamicObject| spec(object)["colour"].clone();
    match next().await {
        WatchEvent::Added(object) => assert_eq!(colour(&object), "red"),
        other => panic!("expected the initial ADDED, got {other:?}"),
    }
    v1.create(&PostParams::default(), &widget("v1", "w", "green"))
        .await
        .expect("create");
    match next().await {
        WatchEvent::Added(object) => {
            assert_eq!(object.metadata.name.as_deref(), Some("w"));
            assert_eq!(colour(&object), "green");
            assert_eq!(
                object.types.as_ref().map(|t| t.api_version.as_str()),
                Some("example.com/v1alpha1")
            );
        }
        other => panic!("expected ADDED, got {other:?}"),
    }
    let patch = Patch::Merge(json!({"spec": {"color": "blue"}}));
    v1.patch("w", &PatchParams::default(), &patch)
        .await
        .expect("patch at v1");
    match next().await {
        WatchEvent::Modified(object) => assert_eq!(colour(&object), "blue"),
        other => panic!("expected MODIFIED, got {other:?}"),
    }
    v1.delete("w", &DeleteParams::default())
        .await
        .expect("delete");
    match next().await {
        WatchEvent::Deleted(object) => assert_eq!(colour(&object), "blue"),
        other => panic!("expected DELETED, got {other:?}"),
    }
    // One review per event: the initial ADDED, ADDED, MODIFIED, DELETED.
    assert_eq!(webhook.reviews(), 4);

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn patches_apply_to_the_object_as_the_request_version_sees_it() {
    let webhook = Webhook::start().await;
    let server = server_with(&webhook.url, &webhook.ca_pem, ApiServerConfig::default()).await;
    let alpha = widgets(&server, "v1alpha1");
    let v1 = widgets(&server, "v1");
    v1.create(&PostParams::default(), &widget("v1", "w", "red"))
        .await
        .expect("create");

    // A merge patch naming v1alpha1's field.
    let merge = Patch::Merge(json!({"spec": {"colour": "green"}}));
    let patched = alpha
        .patch("w", &PatchParams::default(), &merge)
        .await
        .expect("merge patch at v1alpha1");
    assert_eq!(spec(&patched), &json!({"colour": "green", "replicas": 1}));
    assert_eq!(spec(&v1.get("w").await.expect("get"))["color"], "green");

    // A JSON patch whose test only holds at v1alpha1.
    let operations: json_patch::Patch = serde_json::from_value(json!([
        {"op": "test", "path": "/spec/colour", "value": "green"},
        {"op": "replace", "path": "/spec/colour", "value": "teal"},
    ]))
    .expect("a JSON patch");
    let patched = alpha
        .patch("w", &PatchParams::default(), &Patch::Json::<()>(operations))
        .await
        .expect("JSON patch at v1alpha1");
    assert_eq!(spec(&patched)["colour"], "teal");

    // Server-side apply at v1alpha1: creates, then changes, and owns v1alpha1's field.
    let apply = PatchParams::apply("shop");
    let config = json!({
        "apiVersion": "example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "applied"}, "spec": {"colour": "pink"},
    });
    let applied = alpha
        .patch("applied", &apply, &Patch::Apply(&config))
        .await
        .expect("apply (create) at v1alpha1");
    assert_eq!(spec(&applied), &json!({"colour": "pink"}));
    let config = json!({
        "apiVersion": "example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "applied"}, "spec": {"colour": "lime"},
    });
    let applied = alpha
        .patch("applied", &apply, &Patch::Apply(&config))
        .await
        .expect("apply at v1alpha1");
    assert_eq!(spec(&applied), &json!({"colour": "lime"}));
    assert_eq!(
        spec(&v1.get("applied").await.expect("get"))["color"],
        "lime"
    );
    let owned = applied
        .metadata
        .managed_fields
        .as_ref()
        .and_then(|entries| {
            entries
                .iter()
                .find(|e| e.manager.as_deref() == Some("shop"))
        })
        .and_then(|entry| entry.fields_v1.as_ref())
        .map(|fields| fields.0.clone());
    assert_eq!(owned, Some(json!({"f:spec": {"f:colour": {}}})));

    // The status and scale subresources at v1alpha1.
    let status = Patch::Merge(json!({"status": {"replicas": 3}}));
    let patched = alpha
        .patch_status("w", &PatchParams::default(), &status)
        .await
        .expect("status patch at v1alpha1");
    assert_eq!(patched.data["status"]["replicas"], 3);
    assert_eq!(spec(&patched)["colour"], "teal");
    let scale = alpha.get_scale("w").await.expect("scale at v1alpha1");
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(1));
    let scaled = alpha
        .patch_scale(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 5}})),
        )
        .await
        .expect("scale patch at v1alpha1");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(5));
    let mut scale = alpha.get_scale("w").await.expect("scale at v1alpha1");
    scale.spec = Some(k8s_openapi::api::autoscaling::v1::ScaleSpec { replicas: Some(4) });
    let replaced = alpha
        .replace_scale("w", &PostParams::default(), &scale)
        .await
        .expect("scale update at v1alpha1");
    assert_eq!(replaced.spec.and_then(|s| s.replicas), Some(4));
    let stale = alpha
        .replace_scale("w", &PostParams::default(), &scale)
        .await;
    assert_eq!(
        failure(stale).0,
        409,
        "the Scale named a resourceVersion since replaced"
    );
    assert_eq!(
        spec(&v1.get("w").await.expect("get")),
        &json!({"color": "teal", "replicas": 4})
    );

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn a_failed_conversion_fails_the_request_with_the_reason() {
    let webhook = Webhook::start().await;
    let server = server_with(&webhook.url, &webhook.ca_pem, ApiServerConfig::default()).await;
    let alpha = widgets(&server, "v1alpha1");
    let v1 = widgets(&server, "v1");

    // The webhook answers with a failure.
    let refused = alpha
        .create(&PostParams::default(), &widget("v1alpha1", "f", "fail"))
        .await;
    assert_eq!(
        failure(refused),
        (
            500,
            "conversion webhook for example.com/v1alpha1, Kind=Widget failed: failed to convert Widget f from example.com/v1alpha1 to example.com/v1: the colour fail has no other name".to_owned()
        )
    );

    // The webhook renames the object.
    let renamed = alpha
        .create(&PostParams::default(), &widget("v1alpha1", "r", "rename"))
        .await;
    assert_eq!(
        failure(renamed),
        (
            500,
            "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid object: must have the same name: r != renamed".to_owned()
        )
    );
    assert!(
        v1.list(&ListParams::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );

    // The webhook is down: objects at the storage version are served, others are not.
    v1.create(&PostParams::default(), &widget("v1", "w", "red"))
        .await
        .expect("create at v1");
    let url = webhook.url.clone();
    webhook.stop().await;
    v1.get("w").await.expect("get at the storage version");
    let (code, message) = failure(alpha.get("w").await);
    assert_eq!(code, 500);
    let prefix =
        format!("conversion webhook for example.com/v1, Kind=Widget failed: Post {url:?}: ");
    assert!(message.starts_with(&prefix), "{message}");
    let (code, message) = failure(alpha.list(&ListParams::default()).await);
    assert_eq!(code, 500);
    assert!(
        message.starts_with("conversion webhook for example.com/v1, Kind=WidgetList failed: "),
        "{message}"
    );

    server.shutdown().await;
}

/// What a hand-made conversion webhook answers to a review.
type Answer = dyn Fn(&Value) -> Option<Value> + Send + Sync;

/// An HTTPS server answering every review with `answer`'s ConversionReview response, or
/// never answering when it gives `None`.
async fn hand_made(
    answer: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static,
) -> (String, String) {
    let ca = TestCa::new().expect("CA");
    let cert = ca
        .serving_cert(&["127.0.0.1"])
        .expect("serving certificate");
    let chain = CertificateDer::pem_slice_iter(cert.cert_pem().as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .expect("certificate");
    let key = PrivateKeyDer::from_pem_slice(cert.key_pem().as_bytes()).expect("key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocols")
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .expect("server config");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let answer: Arc<Answer> = Arc::new(answer);
    let router = Router::new()
        .route("/convert", post(review))
        .with_state(answer);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
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
    (
        format!("https://{address}/convert"),
        ca.cert_pem().to_owned(),
    )
}

async fn review(State(answer): State<Arc<Answer>>, body: Bytes) -> axum::Json<Value> {
    let review: Value = serde_json::from_slice(&body).expect("a review");
    let Some(response) = answer(&review["request"]) else {
        return std::future::pending().await;
    };
    axum::Json(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response,
    }))
}

/// `request`'s objects converted (by renaming the version only), with its uid.
fn converted(request: &Value) -> (Value, Vec<Value>) {
    let desired = request["desiredAPIVersion"].clone();
    let objects = request["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|object| {
            let mut object = object.clone();
            object["apiVersion"] = desired.clone();
            object
        })
        .collect();
    (request["uid"].clone(), objects)
}

#[tokio::test]
async fn answers_of_the_wrong_count_uid_or_version_are_refused() {
    let (url, ca) = hand_made(|request| {
        let (uid, mut objects) = converted(request);
        let uid = match request["objects"][0]["metadata"]["name"].as_str() {
            Some("twice") => {
                objects.push(objects[0].clone());
                uid
            }
            Some("stranger") => json!("another uid"),
            Some("unconverted") => return Some(json!({
                "uid": uid, "result": {"status": "Success"}, "convertedObjects": request["objects"],
            })),
            Some("silent") => return None,
            _ => uid,
        };
        Some(json!({"uid": uid, "result": {"status": "Success"}, "convertedObjects": objects}))
    })
    .await;
    let config = ApiServerConfig::default().conversion_timeout(Duration::from_millis(300));
    let server = server_with(&url, &ca, config).await;
    let alpha = widgets(&server, "v1alpha1");
    let subject = "conversion webhook for example.com/v1alpha1, Kind=Widget";

    alpha
        .create(&PostParams::default(), &widget("v1alpha1", "fine", "red"))
        .await
        .expect("a well-answered create");
    let twice = alpha
        .create(&PostParams::default(), &widget("v1alpha1", "twice", "red"))
        .await;
    assert_eq!(
        failure(twice),
        (500, format!("{subject} returned 2 objects, expected 1"))
    );
    let stranger = alpha
        .create(
            &PostParams::default(),
            &widget("v1alpha1", "stranger", "red"),
        )
        .await;
    let (code, message) = failure(stranger);
    assert_eq!(code, 500);
    assert!(
        message.starts_with(&format!("{subject} failed: expected response.uid=")),
        "{message}"
    );
    let unconverted = alpha
        .create(
            &PostParams::default(),
            &widget("v1alpha1", "unconverted", "red"),
        )
        .await;
    assert_eq!(
        failure(unconverted),
        (
            500,
            format!(
                "{subject} returned invalid object: invalid groupVersion (expected example.com/v1, received example.com/v1alpha1)"
            )
        )
    );
    let silent = alpha
        .create(&PostParams::default(), &widget("v1alpha1", "silent", "red"))
        .await;
    let (code, message) = failure(silent);
    assert_eq!(code, 500);
    assert!(
        message.starts_with(&format!(
            "{subject} failed: Post {url:?}: context deadline exceeded"
        )),
        "{message}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn crds_with_a_webhook_kube_apiserver_would_refuse_are_refused() {
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut crd = serde_json::to_value(crd("https://127.0.0.1:1/convert", "")).expect("JSON");
        edit(&mut crd["spec"]["conversion"]);
        serde_json::from_value::<CustomResourceDefinition>(crd).expect("a CRD")
    };
    let service = with(&|conversion| {
        conversion["webhook"]["clientConfig"] =
            json!({"service": {"namespace": "default", "path": "/convert", "port": 0}});
    });
    let (code, message) = failure(crds.create(&PostParams::default(), &service).await);
    assert_eq!(code, 422);
    assert!(
        message.contains("spec.conversion.webhook.clientConfig.service.name: Required value: service name is required"),
        "{message}"
    );
    assert!(
        message.contains(
            "spec.conversion.webhook.clientConfig.service.port: Invalid value: 0: port is not valid"
        ),
        "{message}"
    );
    let plain = with(&|conversion| {
        conversion["webhook"]["clientConfig"]["url"] = json!("http://127.0.0.1:1/convert");
    });
    let (code, message) = failure(crds.create(&PostParams::default(), &plain).await);
    assert_eq!(code, 422);
    assert!(
        message.contains("'https' is the only allowed URL scheme"),
        "{message}"
    );
    let beta = with(&|conversion| {
        conversion["webhook"]["conversionReviewVersions"] = json!(["v1beta1"]);
    });
    let (code, message) = failure(crds.create(&PostParams::default(), &beta).await);
    assert_eq!(code, 422);
    assert!(message.contains("conversionReviewVersions"), "{message}");
    let no_webhook = with(&|conversion| {
        conversion
            .as_object_mut()
            .expect("an object")
            .remove("webhook");
    });
    let (code, _) = failure(crds.create(&PostParams::default(), &no_webhook).await);
    assert_eq!(code, 422);
    server.shutdown().await;
}
