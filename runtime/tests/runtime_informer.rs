//! Shared informers and the factory end to end against the testkit API server, and a
//! controller-shaped test: informer -> handler enqueues keys -> queue -> worker reads the
//! lister -> writes through the client, converging on the server state.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DeleteParams, ListParams, ObjectMeta};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::factory::{InformerOptions, SharedInformerFactory};
use kubegen_runtime::informer::{HandlerFns, wait_for_cache_sync};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::lister::Selector;
use kubegen_runtime::workqueue::{RateLimitingQueue, default_controller_rate_limiter};
use kubegen_testkit::ApiServer;
use serde_json::json;
use tokio::sync::Notify;

fn cm(name: &str, labels: &[(&str, &str)], data: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        data: Some(
            data.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ),
        ..Default::default()
    }
}

async fn wait_until(notify: &Notify, mut done: impl FnMut() -> bool) {
    tokio::time::timeout(Duration::from_secs(30), async {
        while !done() {
            notify.notified().await;
        }
    })
    .await
    .expect("condition reached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn factory_shares_one_informer_per_type_and_options_and_syncs_them() {
    let server = ApiServer::start().await.unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    cms.create(&cm("a", &[("app", "web")], &[])).await.unwrap();
    cms.create(&cm("b", &[("app", "db")], &[])).await.unwrap();

    let factory =
        SharedInformerFactory::new(server.client()).default_resync(Duration::from_secs(3600));
    let first = factory.informer::<ConfigMap>();
    let second = factory.informer::<ConfigMap>();
    assert_eq!(factory.len(), 1, "asked twice, built once");
    let web = factory
        .informer_with::<ConfigMap>(&(), InformerOptions::default().label_selector("app=web"));
    let in_default =
        factory.informer_with::<ConfigMap>(&(), InformerOptions::default().namespace("default"));
    let secrets = factory.informer::<Secret>();
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "ConfigMap"));
    let dynamic = factory.informer_with::<DynamicObject>(&resource, InformerOptions::default());
    assert_eq!(factory.len(), 5, "{factory:?}");

    // Before start() nothing syncs: the wait reports so at once instead of waiting out
    // its timeout (a guard of a minute fails the test if it waits).
    let unstarted = tokio::time::timeout(
        Duration::from_secs(60),
        factory.wait_for_cache_sync(Duration::from_secs(3600)),
    )
    .await
    .expect("returns at once before start()");
    assert_eq!(unstarted.len(), 5);
    assert!(unstarted.values().all(|synced| !synced), "{unstarted:?}");

    factory.start();
    let report = factory.wait_for_cache_sync(Duration::from_secs(30)).await;
    assert_eq!(report.len(), 5);
    assert!(report.values().all(|synced| *synced), "{report:?}");
    assert!(
        report.contains_key("configmaps.v1 (ConfigMap) labels \"app=web\""),
        "{report:?}"
    );
    assert!(
        report.contains_key("configmaps.v1 (ConfigMap) in namespace \"default\""),
        "{report:?}"
    );
    assert!(
        report.contains_key("configmaps.v1 (DynamicObject)"),
        "{report:?}"
    );
    assert!(report.contains_key("secrets.v1 (Secret)"), "{report:?}");

    // One cache behind both handles.
    assert!(second.has_synced());
    assert_eq!(first.store().len(), 2);
    assert_eq!(second.store().len(), 2);
    assert_eq!(web.store().len(), 1);
    assert_eq!(
        in_default
            .lister()
            .namespace("default")
            .list(&Selector::everything())
            .len(),
        2
    );
    assert!(secrets.store().is_empty());
    assert_eq!(dynamic.store().len(), 2);

    // An informer asked for after start starts by itself.
    let db: Selector = "app=db".parse().unwrap();
    let late = factory.informer_with::<ConfigMap>(
        &(),
        InformerOptions::default().label_selector(db.to_string()),
    );
    assert!(wait_for_cache_sync(Duration::from_secs(30), &[&late]).await);
    assert_eq!(late.store().len(), 1);

    factory.shutdown().await;
    assert!(first.is_stopped() && secrets.is_stopped() && late.is_stopped());
    factory.start(); // no-op after shutdown
    assert!(first.is_stopped());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releasing_one_informer_leaves_the_others_running() {
    let server = ApiServer::start().await.unwrap();
    let crds = TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &());
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
            }]
        }
    }))
    .unwrap();
    crds.create(&crd).await.unwrap();
    let widgets = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Widget"),
        "widgets",
    );
    let widget_client =
        TypedClient::<DynamicObject>::new(server.client(), Scope::Namespace("default"), &widgets);
    let widget: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 1}
    }))
    .unwrap();
    widget_client.create(&widget).await.unwrap();

    let factory = SharedInformerFactory::new(server.client());
    let widget_informer =
        factory.informer_with::<DynamicObject>(&widgets, InformerOptions::default());
    let configmaps = factory.informer::<ConfigMap>();
    let changed = Arc::new(Notify::new());
    let notify = changed.clone();
    configmaps
        .add_event_handler(HandlerFns::<ConfigMap>::new().on_add(move |_, _| notify.notify_one()));
    factory.start();
    assert!(
        factory
            .wait_for_cache_sync(Duration::from_secs(30))
            .await
            .values()
            .all(|s| *s)
    );
    assert_eq!(widget_informer.store().len(), 1);

    // The CRD goes away: release its informer (client-go cannot, kubernetes#79610).
    crds.delete("widgets.example.com", &DeleteParams::default())
        .await
        .unwrap();
    assert!(
        factory
            .release::<DynamicObject>(&widgets, InformerOptions::default())
            .await
    );
    assert!(widget_informer.is_stopped());
    assert!(
        !factory
            .release::<DynamicObject>(&widgets, InformerOptions::default())
            .await
    );
    assert_eq!(factory.len(), 1);

    // The rest keeps running.
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    cms.create(&cm("after-release", &[], &[])).await.unwrap();
    let store = configmaps.store();
    wait_until(&changed, || {
        store
            .get(&ObjectKey::namespaced("default", "after-release"))
            .is_some()
    })
    .await;
    assert!(!configmaps.is_stopped());
    factory.shutdown().await;
    server.shutdown().await;
}

const SOURCE: &str = "role=source";
const COPY_OF: &str = "copy-of";

/// The controller: every ConfigMap labelled `role=source` has a copy `<name>-copy` with
/// the same data, labelled `copy-of=<name>`; copies without a source are deleted.
async fn reconcile(
    key: &ObjectKey,
    sources: &kubegen_runtime::lister::Lister<ConfigMap>,
    client: &TypedClient<ConfigMap>,
) -> Result<(), kubegen_runtime::error::Error> {
    let ns = key.namespace().unwrap_or("default");
    let copy_name = format!("{}-copy", key.name());
    let copy = sources.namespace(ns).get(&copy_name);
    match sources.namespace(ns).get(key.name()) {
        Some(source) => {
            let mut desired = cm(&copy_name, &[(COPY_OF, key.name())], &[]);
            desired.data = source.data.clone();
            match copy {
                None => client.create(&desired).await.map(drop).or_else(|e| {
                    if e.is_already_exists() {
                        Ok(())
                    } else {
                        Err(e)
                    }
                }),
                Some(existing) if existing.data != desired.data => {
                    let mut updated = (*existing).clone();
                    updated.data = desired.data;
                    client.update(&updated).await.map(drop)
                }
                Some(_) => Ok(()),
            }
        }
        None => match copy {
            Some(_) => client
                .delete(&copy_name, &DeleteParams::default())
                .await
                .map(drop)
                .or_else(|e| if e.is_not_found() { Ok(()) } else { Err(e) }),
            None => Ok(()),
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controller_converges_through_informer_queue_lister_and_client() {
    let server = ApiServer::start().await.unwrap();
    let client = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    for i in 0..10 {
        client
            .create(&cm(
                &format!("src-{i}"),
                &[("role", "source")],
                &[("v", "0")],
            ))
            .await
            .unwrap();
    }

    let factory =
        SharedInformerFactory::new(server.client()).default_resync(Duration::from_secs(30));
    let informer = factory.informer::<ConfigMap>();
    let queue: RateLimitingQueue<ObjectKey> =
        RateLimitingQueue::new(default_controller_rate_limiter());
    let source: Selector = SOURCE.parse().unwrap();
    // Sources enqueue themselves; copies enqueue their source.
    let key_of = move |o: &ConfigMap| -> Option<ObjectKey> {
        let labels = o.metadata.labels.clone().unwrap_or_default();
        let ns = o.metadata.namespace.as_deref();
        if source.matches(&labels) {
            Some(ObjectKey::of(o))
        } else {
            labels
                .get(COPY_OF)
                .map(|name| ObjectKey::new(ns, name.clone()))
        }
    };
    let (q1, q2, q3, k1, k2, k3) = (
        queue.clone(),
        queue.clone(),
        queue.clone(),
        key_of.clone(),
        key_of.clone(),
        key_of,
    );
    informer.add_event_handler(
        HandlerFns::<ConfigMap>::new()
            .on_add(move |o, _| k1(&o).into_iter().for_each(|k| q1.add(k)))
            .on_update(move |_, new| k2(&new).into_iter().for_each(|k| q2.add(k)))
            .on_delete(move |gone| k3(gone.object()).into_iter().for_each(|k| q3.add(k))),
    );
    factory.start();
    assert!(
        factory
            .wait_for_cache_sync(Duration::from_secs(30))
            .await
            .values()
            .all(|s| *s)
    );

    let idle = Arc::new(Notify::new());
    let worker = {
        let (lister, client, queue, idle) = (
            informer.lister(),
            client.clone(),
            queue.clone(),
            idle.clone(),
        );
        tokio::spawn(async move {
            // The client-go worker loop: read from the lister, write through the client,
            // `add_rate_limited` on error, `forget` on success, `done` always.
            while let Some(key) = queue.get().await {
                match reconcile(&key, &lister, &client).await {
                    Ok(()) => queue.forget(&key),
                    // A stale cache read: retry with backoff, the informer will catch up.
                    Err(error)
                        if error.is_conflict()
                            || error.is_already_exists()
                            || error.is_not_found() =>
                    {
                        queue.add_rate_limited(key.clone())
                    }
                    Err(error) => panic!("reconcile {key}: {error:?}"),
                }
                queue.done(&key);
                idle.notify_one();
            }
        })
    };

    // Change the world while the controller runs.
    for i in 0..4 {
        let mut source = client.get(&format!("src-{i}")).await.unwrap();
        source.data = Some([("v".to_string(), "1".to_string())].into());
        client.update(&source).await.unwrap();
    }
    for i in 8..10 {
        client
            .delete(&format!("src-{i}"), &DeleteParams::default())
            .await
            .unwrap();
    }
    client
        .create(&cm("src-new", &[("role", "source")], &[("v", "new")]))
        .await
        .unwrap();
    // Someone tampers with a copy: the controller puts it back.
    let tampered = loop {
        match client.get("src-5-copy").await {
            Ok(copy) => break copy,
            Err(e) if e.is_not_found() => idle.notified().await,
            Err(e) => panic!("{e}"),
        }
    };
    let mut tampered = tampered;
    tampered.data = Some([("v".to_string(), "tampered".to_string())].into());
    let _ = client.update(&tampered).await;

    type DataByCopy = BTreeMap<String, Option<BTreeMap<String, String>>>;
    let expected = |items: &[ConfigMap]| -> (DataByCopy, DataByCopy) {
        let mut sources = BTreeMap::new();
        let mut copies = BTreeMap::new();
        for o in items {
            let name = o.metadata.name.clone().unwrap();
            let labels = o.metadata.labels.clone().unwrap_or_default();
            if labels.get("role").map(String::as_str) == Some("source") {
                sources.insert(format!("{name}-copy"), o.data.clone());
            } else if labels.contains_key(COPY_OF) {
                copies.insert(name, o.data.clone());
            }
        }
        (sources, copies)
    };
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let items = client.list(&ListParams::default()).await.unwrap().items;
            let (want, have) = expected(&items);
            if want == have && want.len() == 9 {
                return;
            }
            idle.notified().await;
        }
    })
    .await
    .expect("controller converged");
    let items = client.list(&ListParams::default()).await.unwrap().items;
    let copy = items
        .iter()
        .find(|o| o.metadata.name.as_deref() == Some("src-5-copy"))
        .unwrap();
    assert_eq!(
        copy.data.as_ref().unwrap()["v"],
        "0",
        "tampering was undone"
    );
    assert!(
        items
            .iter()
            .all(|o| o.metadata.name.as_deref() != Some("src-8-copy"))
    );

    factory.shutdown().await;
    queue.shut_down_with_drain().await;
    worker.await.unwrap();
    server.shutdown().await;
}
