//! The generated conversions as a real conversion webhook: the fixture CRD
//! (crds/gadgets.yaml, v1alpha1 and the storage version v1) installed on the testkit with
//! `spec.conversion.strategy: Webhook`, pointing at the runtime's `WebhookServer` on
//! 127.0.0.1 over HTTPS (the testkit's throwaway CA as `caBundle`), which serves the
//! generated `gadget::convert` through a plain closure. Objects written at one version
//! read back unchanged at the other and back, fields only one version has included; a
//! watch at the non-storage version converts every event; a list of many objects converts.

mod support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kubegen_conversion_roundtrip::conversions::ANNOTATION;
use kubegen_conversion_roundtrip::conversions::conversion_kubegen_io::gadget;
use kubegen_runtime::webhook::{WebhookServer, WebhookServerConfig, converter_fn};
use kubegen_testkit::ApiServer;
use kubegen_testkit::certs::TestCa;
use serde_json::{Value, json};
use support::gadgets::Gadgets;
use tokio::net::TcpListener;

const GROUP: &str = "conversion.kubegen.io";

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kubegen-conversion-roundtrip-{}-{}",
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

/// The runtime's webhook server on 127.0.0.1, converting Gadgets with the generated code.
struct Webhook {
    url: String,
    ca_pem: String,
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
        let config = WebhookServerConfig::default().cert_dir(&dir.0);
        let server = WebhookServer::new(config).conversion(
            "/convert",
            converter_fn(move |object, version| gadget::convert(&Gadgets, object, version)),
        );
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
            stop: Some(stop),
            task,
            _dir: dir,
        }
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.expect("the server task");
    }
}

/// The fixture CRD, converting through the webhook.
fn crd(webhook: &Webhook) -> CustomResourceDefinition {
    let mut crd = support::crd(include_str!("../crds/gadgets.yaml"));
    let ca_bundle =
        serde_json::to_value(k8s_openapi::ByteString(webhook.ca_pem.as_bytes().to_vec()))
            .expect("base64");
    crd["spec"]["conversion"] = json!({
        "strategy": "Webhook",
        "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": {"url": webhook.url, "caBundle": ca_bundle},
        },
    });
    serde_json::from_value(crd).expect("a CRD")
}

/// The testkit with the fixture CRD converting through `webhook`.
async fn server(webhook: &Webhook) -> ApiServer {
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.create(&PostParams::default(), &crd(webhook))
        .await
        .expect("create the CRD");
    server
}

/// Gadgets at `version` in `default`.
fn gadgets(server: &ApiServer, version: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: GROUP.to_owned(),
        version: version.to_owned(),
        api_version: format!("{GROUP}/{version}"),
        kind: "Gadget".to_owned(),
        plural: "gadgets".to_owned(),
    };
    Api::namespaced_with(server.client(), "default", &resource)
}

fn object(version: &str, name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": "Gadget",
        "metadata": {"name": name, "labels": {"app": "shop"}},
        "spec": spec,
    }))
    .expect("a Gadget")
}

/// A v1alpha1 spec using every difference between the versions.
fn old_spec() -> Value {
    json!({
        "size": 3,
        "colour": "red",
        "owner": "Ada Lovelace",
        "labels": {"team": "a"},
        "ports": [{"name": "http", "port": 80}],
        "schedule": {"cron": "@daily", "suspend": true},
    })
}

/// A v1 spec of owner `First<i> Last<i>`, even ones with a port protocol.
fn hub_spec(i: usize) -> Value {
    let mut port = json!({"name": format!("p{i}"), "port": 8000 + i});
    if i.is_multiple_of(2) {
        port["protocol"] = json!("TCP");
    }
    json!({
        "size": i,
        "color": "blue",
        "ownerFirstName": format!("First{i}"),
        "ownerLastName": format!("Last{i}"),
        "ports": [port],
        "schedule": {"cron": "@hourly"},
    })
}

fn spec(object: &DynamicObject) -> &Value {
    &object.data["spec"]
}

fn api_version(object: &DynamicObject) -> Option<&str> {
    object.types.as_ref().map(|t| t.api_version.as_str())
}

/// The annotation's data, if the object carries it.
fn carried(object: &DynamicObject) -> Option<Value> {
    let text = object.metadata.annotations.as_ref()?.get(ANNOTATION)?;
    Some(serde_json::from_str(text).expect("the annotation is JSON"))
}

#[tokio::test]
async fn objects_read_back_unchanged_through_the_other_version() {
    let webhook = Webhook::start().await;
    let server = server(&webhook).await;
    let (old, hub) = (gadgets(&server, "v1alpha1"), gadgets(&server, "v1"));

    // Written at v1alpha1, stored at v1 with what v1 lacks in the annotation.
    let created = old
        .create(&PostParams::default(), &object("v1alpha1", "g", old_spec()))
        .await
        .expect("create at v1alpha1");
    assert_eq!(spec(&created), &old_spec());
    let stored = hub.get("g").await.expect("get at v1");
    assert_eq!(api_version(&stored), Some("conversion.kubegen.io/v1"));
    assert_eq!(
        spec(&stored),
        &json!({
            "size": 3,
            "color": "red",
            "ownerFirstName": "Ada",
            "ownerLastName": "Lovelace",
            "labels": {"team": "a"},
            "ports": [{"name": "http", "port": 80}],
            "schedule": {"cron": "@daily"},
        })
    );
    assert_eq!(
        carried(&stored),
        Some(json!({
            "apiVersion": "conversion.kubegen.io/v1alpha1",
            "fields": {"/spec/schedule/suspend": true},
        }))
    );
    assert_eq!(stored.metadata.uid, created.metadata.uid);

    // Read at v1alpha1 again: as written, the annotation consumed.
    let read = old.get("g").await.expect("get at v1alpha1");
    assert_eq!(spec(&read), &old_spec());
    assert_eq!(read.metadata.labels, created.metadata.labels);
    assert_eq!(carried(&read), None);

    // A field only v1 has, set at v1, survives an update at v1alpha1.
    let ports = json!({"spec": {"ports": [{"name": "http", "port": 80, "protocol": "UDP"}]}});
    hub.patch("g", &PatchParams::default(), &Patch::Merge(&ports))
        .await
        .expect("patch at v1");
    let mut read = old.get("g").await.expect("get at v1alpha1");
    assert_eq!(spec(&read), &old_spec(), "v1alpha1 has no protocol");
    read.data["spec"]["size"] = json!(4);
    old.replace("g", &PostParams::default(), &read)
        .await
        .expect("update at v1alpha1");
    let stored = hub.get("g").await.expect("get at v1");
    assert_eq!(spec(&stored)["size"], 4);
    assert_eq!(
        spec(&stored)["ports"],
        json!([{"name": "http", "port": 80, "protocol": "UDP"}])
    );
    assert_eq!(
        spec(&old.get("g").await.expect("get"))["schedule"]["suspend"],
        true
    );

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn a_watch_at_the_non_storage_version_converts_every_event() {
    let webhook = Webhook::start().await;
    let server = server(&webhook).await;
    let (old, hub) = (gadgets(&server, "v1alpha1"), gadgets(&server, "v1"));
    hub.create(&PostParams::default(), &object("v1", "before", hub_spec(1)))
        .await
        .expect("create at v1");

    let mut events = old
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch at v1alpha1")
        .boxed();
    let mut next =
        async || match tokio::time::timeout(Duration::from_secs(10), events.try_next()).await {
            Ok(Ok(Some(event))) => event,
            other => panic!("expected an event, got {other:?}"),
        };
    // Every object at v1alpha1: `owner` joined, `colour` renamed, no v1 field left.
    let check = |object: &DynamicObject, owner: &str, colour: &str| {
        assert_eq!(api_version(object), Some("conversion.kubegen.io/v1alpha1"));
        assert_eq!(spec(object)["owner"], owner);
        assert_eq!(spec(object)["colour"], colour);
        for field in ["color", "ownerFirstName", "ownerLastName"] {
            assert!(spec(object).get(field).is_none(), "{field}: {object:?}");
        }
    };
    match next().await {
        WatchEvent::Added(object) => check(&object, "First1 Last1", "blue"),
        other => panic!("expected the initial ADDED, got {other:?}"),
    }
    hub.create(&PostParams::default(), &object("v1", "w", hub_spec(2)))
        .await
        .expect("create at v1");
    match next().await {
        WatchEvent::Added(object) => {
            check(&object, "First2 Last2", "blue");
            // The protocol v1alpha1 lacks waits in the annotation.
            assert_eq!(
                carried(&object),
                Some(json!({
                    "apiVersion": "conversion.kubegen.io/v1",
                    "fields": {"/spec/ports/0/protocol": "TCP"},
                }))
            );
        }
        other => panic!("expected ADDED, got {other:?}"),
    }
    let patch = json!({"spec": {"color": "green", "ownerLastName": null}});
    hub.patch("w", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch at v1");
    match next().await {
        WatchEvent::Modified(object) => check(&object, "First2", "green"),
        other => panic!("expected MODIFIED, got {other:?}"),
    }
    hub.delete("w", &DeleteParams::default())
        .await
        .expect("delete at v1");
    match next().await {
        WatchEvent::Deleted(object) => check(&object, "First2", "green"),
        other => panic!("expected DELETED, got {other:?}"),
    }

    server.shutdown().await;
    webhook.stop().await;
}

#[tokio::test]
async fn a_list_of_many_objects_converts() {
    const COUNT: usize = 300;
    let webhook = Webhook::start().await;
    let server = server(&webhook).await;
    let (old, hub) = (gadgets(&server, "v1alpha1"), gadgets(&server, "v1"));
    for i in 0..COUNT {
        hub.create(
            &PostParams::default(),
            &object("v1", &format!("g{i:03}"), hub_spec(i)),
        )
        .await
        .expect("create at v1");
    }

    let listed = old
        .list(&ListParams::default())
        .await
        .expect("list at v1alpha1");
    assert_eq!(listed.items.len(), COUNT);
    for (i, item) in listed.items.iter().enumerate() {
        assert_eq!(item.metadata.name.as_deref(), Some(&*format!("g{i:03}")));
        assert_eq!(spec(item)["owner"], format!("First{i} Last{i}"));
        assert_eq!(spec(item)["size"], i);
        assert!(spec(item)["ports"][0].get("protocol").is_none());
        assert_eq!(carried(item).is_some(), i.is_multiple_of(2), "{item:?}");
    }

    // Each written back at v1alpha1 as it was read gives the v1 object back.
    for item in listed.items.iter().step_by(37) {
        let name = item.metadata.name.as_deref().expect("a name");
        old.replace(name, &PostParams::default(), item)
            .await
            .expect("update at v1alpha1");
    }
    let stored = hub.list(&ListParams::default()).await.expect("list at v1");
    for (i, item) in stored.items.iter().enumerate() {
        assert_eq!(spec(item), &hub_spec(i), "{item:?}");
    }

    server.shutdown().await;
    webhook.stop().await;
}
