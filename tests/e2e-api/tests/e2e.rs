//! The whole chain: derived types -> `crd()` installed into the testkit API server ->
//! generated clientset, listers and informers (committed, compiled here) exercised verb by
//! verb; plus the generated `kubernetes` clientset and informers of the built-in groups.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, WatchEvent, WatchParams};
use kubegen::gentype;
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::informer::HandlerFns;
use kubegen::runtime::lister::Selector;
use kubegen_e2e_api::apis::example::v1::Setting;
use kubegen_e2e_api::apis::samplecontroller::v1alpha1::{Foo, FooSpec, FooStatus, Zone, ZoneSpec};
use kubegen_e2e_api::generated::clientset::Clientset;
use kubegen_e2e_api::generated::informers::InformerFactory;
use kubegen_testkit::ApiServer;
use serde_json::json;
use tokio::sync::mpsc;

const SYNC: Duration = Duration::from_secs(30);

fn meta(name: &str, labels: &[(&str, &str)]) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        labels: (!labels.is_empty()).then(|| {
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        }),
        ..ObjectMeta::default()
    }
}

fn foo(name: &str, replicas: i32, labels: &[(&str, &str)]) -> Foo {
    Foo {
        metadata: meta(name, labels),
        spec: FooSpec {
            deployment_name: format!("{name}-deploy"),
            replicas,
        },
        status: None,
    }
}

/// Installs the CRDs from `crd()` and a second namespace (through the generated
/// `kubernetes` clientset).
async fn install_crds(server: &ApiServer) {
    let crds = TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &());
    for crd in [Foo::crd(), Zone::crd(), Setting::crd()] {
        crds.create(&crd).await.expect("CRD from crd() is accepted");
    }
    let kubernetes = kubegen::kubernetes::clientset::Clientset::new(server.client());
    let namespace = Namespace {
        metadata: meta("other", &[]),
        ..Namespace::default()
    };
    kubernetes
        .core_v1()
        .namespaces()
        .create(&namespace)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_clientset_verbs() {
    let server = ApiServer::start().await.unwrap();
    install_crds(&server).await;
    let cs = Clientset::new(server.client());
    let foos = cs.samplecontroller_v1alpha1().foos("default");

    // create / get
    let created = foos.create(&foo("a", 1, &[("app", "web")])).await.unwrap();
    assert!(created.metadata.resource_version.is_some());
    let got = foos.get("a").await.unwrap();
    assert_eq!(
        got.spec,
        FooSpec {
            deployment_name: "a-deploy".into(),
            replicas: 1
        }
    );
    assert!(foos.get("missing").await.unwrap_err().is_not_found());
    assert!(
        foos.create(&foo("a", 1, &[]))
            .await
            .unwrap_err()
            .is_already_exists()
    );

    // update, and optimistic concurrency
    let mut changed = got.clone();
    changed.spec.replicas = 2;
    let updated = foos.update(&changed).await.unwrap();
    assert_eq!(updated.spec.replicas, 2);
    assert!(
        foos.update(&changed).await.unwrap_err().is_conflict(),
        "stale resourceVersion"
    );

    // status subresource: update_status and patch_status (declared by `status`)
    let mut with_status = updated.clone();
    with_status.status = Some(FooStatus {
        available_replicas: 2,
    });
    let status = foos.update_status(&with_status).await.unwrap();
    assert_eq!(
        status.status,
        Some(FooStatus {
            available_replicas: 2
        })
    );
    let patched = foos
        .patch_status(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"availableReplicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.status.as_ref().map(|s| s.available_replicas),
        Some(1)
    );

    // patch (merge) and server-side apply
    let patched = foos
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"deploymentName": "renamed"}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.deployment_name, "renamed");
    let applied = foos
        .apply(&foo("b", 3, &[("app", "web")]), "e2e", true)
        .await
        .unwrap();
    assert_eq!(applied.spec.replicas, 3);

    // scale subresource (declared by `scale(...)`)
    let scale = foos.get_scale("a").await.unwrap();
    assert_eq!(scale.spec.as_ref().and_then(|s| s.replicas), Some(2));
    let mut new_scale = scale.clone();
    new_scale.spec.get_or_insert_with(Default::default).replicas = Some(5);
    foos.update_scale("a", &new_scale).await.unwrap();
    assert_eq!(foos.get("a").await.unwrap().spec.replicas, 5);

    // list (with a label selector) and watch
    let listed = foos
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap();
    let mut names: Vec<_> = listed
        .items
        .iter()
        .filter_map(|f| f.metadata.name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "b"]);
    let rv = listed.metadata.resource_version.clone().unwrap_or_default();
    let stream = foos.watch(&WatchParams::default(), &rv).await.unwrap();
    let mut stream = Box::pin(stream);
    foos.create(&foo("c", 1, &[])).await.unwrap();
    let added = loop {
        match stream.next().await.expect("watch stays open").unwrap() {
            WatchEvent::Added(object) => break object,
            WatchEvent::Bookmark(_) => continue,
            other => panic!("unexpected event {other:?}"),
        }
    };
    assert_eq!(added.metadata.name.as_deref(), Some("c"));

    // all namespaces ("" as client-go's NamespaceAll)
    let others = cs.samplecontroller_v1alpha1().foos("other");
    others.create(&foo("x", 1, &[])).await.unwrap();
    let everywhere = cs
        .samplecontroller_v1alpha1()
        .foos("")
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(everywhere.items.len(), 4);

    // delete and delete_collection
    foos.delete("c", &DeleteParams::default()).await.unwrap();
    assert!(foos.get("c").await.unwrap_err().is_not_found());
    foos.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("app=web"),
    )
    .await
    .unwrap();
    assert!(
        foos.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // a cluster-scoped kind (no namespace argument) and a kind of another group
    let zones = cs.samplecontroller_v1alpha1().zones();
    zones
        .create(&Zone {
            metadata: meta("eu", &[]),
            spec: ZoneSpec {
                region: "eu-west".into(),
            },
        })
        .await
        .unwrap();
    assert_eq!(zones.get("eu").await.unwrap().spec.region, "eu-west");
    assert_eq!(
        zones
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        1
    );
    zones.delete("eu", &DeleteParams::default()).await.unwrap();
    let settings = cs.example_v1().settings("default");
    let data: BTreeMap<String, String> = [("k".to_owned(), "v".to_owned())].into();
    settings
        .create(&Setting {
            metadata: meta("s", &[]),
            data: data.clone(),
        })
        .await
        .unwrap();
    assert_eq!(settings.get("s").await.unwrap().data, data);

    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_informers_and_listers() {
    let server = ApiServer::start().await.unwrap();
    install_crds(&server).await;
    let cs = Clientset::new(server.client());
    let foos = cs.samplecontroller_v1alpha1().foos("default");
    foos.create(&foo("a", 1, &[("tier", "web")])).await.unwrap();
    foos.create(&foo("b", 1, &[("tier", "db")])).await.unwrap();
    cs.samplecontroller_v1alpha1()
        .foos("other")
        .create(&foo("c", 1, &[("tier", "web")]))
        .await
        .unwrap();
    cs.samplecontroller_v1alpha1()
        .zones()
        .create(&Zone {
            metadata: meta("eu", &[]),
            spec: ZoneSpec {
                region: "eu-west".into(),
            },
        })
        .await
        .unwrap();

    let shared = SharedInformerFactory::new(server.client());
    let factory = InformerFactory::new(gentype::InformerFactory::new(shared.clone()));
    let foo_informer = factory.samplecontroller().v1alpha1().foos();
    let informer = foo_informer.informer();
    let lister = foo_informer.lister();
    let zones = factory.samplecontroller().v1alpha1().zones().lister();
    // Filtered: one namespace, a label selector and a tweak adding a field selector.
    let filtered = InformerFactory::new(
        gentype::InformerFactory::new(shared.clone())
            .namespace("default")
            .label_selector("tier=web")
            .tweak(|options| options.field_selector = Some("metadata.name!=skip".into())),
    );
    let web = filtered.samplecontroller().v1alpha1().foos().lister();
    // Asking again hands out the shared informer, not a new one.
    assert_eq!(shared.len(), 3);
    let _again = factory.samplecontroller().v1alpha1().foos().informer();
    assert_eq!(shared.len(), 3);

    let (added, mut added_rx) = mpsc::unbounded_channel();
    informer.add_event_handler(HandlerFns::<Foo>::new().on_add(move |object, _| {
        let _ = added.send(object.metadata.name.clone().unwrap_or_default());
    }));
    factory.factory().start();
    let synced = factory.factory().wait_for_cache_sync(SYNC).await;
    assert!(synced.values().all(|s| *s), "{synced:?}");

    // listers read the caches
    assert_eq!(lister.list(&Selector::everything()).len(), 3);
    let a = lister.namespace("default").get("a").expect("cached");
    assert_eq!(a.spec.deployment_name, "a-deploy");
    assert!(
        lister.namespace("default").get("c").is_none(),
        "namespace lister stays in its namespace"
    );
    let selector: Selector = "tier=web".parse().unwrap();
    assert_eq!(lister.list(&selector).len(), 2);
    assert_eq!(
        zones.get("eu").map(|z| z.spec.region.clone()).as_deref(),
        Some("eu-west")
    );
    let web_names: Vec<_> = web
        .list(&Selector::everything())
        .iter()
        .filter_map(|f| f.metadata.name.clone())
        .collect();
    assert_eq!(web_names, ["a"]);

    // the informer follows the server
    let mut seen = Vec::new();
    while seen.len() < 3 {
        seen.push(added_rx.recv().await.expect("initial adds"));
    }
    foos.create(&foo("d", 2, &[])).await.unwrap();
    loop {
        if added_rx.recv().await.expect("add of d") == "d" {
            break;
        }
    }
    assert_eq!(
        lister
            .namespace("default")
            .get("d")
            .map(|f| f.spec.replicas),
        Some(2)
    );

    // cached objects are shared (`Arc`); a controller deep-copies before changing one
    let mut mine = Foo::clone(&lister.namespace("default").get("a").unwrap());
    mine.spec.replicas = 9;
    foos.update(&mine).await.unwrap();

    factory.factory().shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_kubernetes_clientset_and_informers() {
    use kubegen::kubernetes::clientset::Clientset as Kubernetes;
    use kubegen::kubernetes::informers::InformerFactory as KubernetesInformers;

    let server = ApiServer::start().await.unwrap();
    let cs = Kubernetes::new(server.client());
    let config_maps = cs.core_v1().config_maps("default");
    let cm = ConfigMap {
        metadata: meta("settings", &[("app", "web")]),
        data: Some([("k".to_owned(), "v".to_owned())].into()),
        ..ConfigMap::default()
    };
    config_maps.create(&cm).await.unwrap();
    assert_eq!(config_maps.get("settings").await.unwrap().data, cm.data);

    let factory = KubernetesInformers::new(gentype::InformerFactory::new(
        SharedInformerFactory::new(server.client()),
    ));
    let lister = factory.core().v1().config_maps().lister();
    factory.factory().start();
    assert!(
        factory
            .factory()
            .wait_for_cache_sync(SYNC)
            .await
            .values()
            .all(|s| *s)
    );
    assert_eq!(
        lister
            .namespace("default")
            .get("settings")
            .and_then(|c| c.data.clone()),
        cm.data
    );
    factory.factory().shutdown().await;
    server.shutdown().await;
}

/// `core/v1` and `events.k8s.io/v1` both have a kind `Event`: each group's generated client,
/// informer and lister reads and writes its own type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_kubernetes_clients_keep_the_two_event_kinds_apart() {
    use k8s_openapi::api::core::v1::{Event as CoreEvent, ObjectReference};
    use k8s_openapi::api::events::v1::Event;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
    use kubegen::kubernetes::clientset::Clientset as Kubernetes;
    use kubegen::kubernetes::informers::InformerFactory as KubernetesInformers;

    let server = ApiServer::start().await.unwrap();
    let cs = Kubernetes::new(server.client());
    let regarding = ObjectReference {
        api_version: Some("v1".to_owned()),
        kind: Some("ConfigMap".to_owned()),
        name: Some("settings".to_owned()),
        namespace: Some("default".to_owned()),
        ..ObjectReference::default()
    };
    let event = Event {
        metadata: meta("through-events-k8s-io", &[]),
        event_time: Some(MicroTime(k8s_openapi::jiff::Timestamp::now())),
        action: Some("Sync".to_owned()),
        reason: Some("Synced".to_owned()),
        note: Some("written through events.k8s.io/v1".to_owned()),
        regarding: Some(regarding.clone()),
        reporting_controller: Some("example.com/e2e".to_owned()),
        reporting_instance: Some("e2e-0".to_owned()),
        type_: Some("Normal".to_owned()),
        ..Event::default()
    };
    let core = CoreEvent {
        metadata: meta("through-core", &[]),
        involved_object: regarding,
        message: Some("written through core/v1".to_owned()),
        reason: Some("Synced".to_owned()),
        type_: Some("Normal".to_owned()),
        ..CoreEvent::default()
    };
    let events = cs.events_v1().events("default");
    let core_events = cs.core_v1().events("default");
    events.create(&event).await.unwrap();
    core_events.create(&core).await.unwrap();
    let read = events.get("through-events-k8s-io").await.unwrap();
    assert_eq!(
        (read.note, read.reporting_controller),
        (event.note.clone(), event.reporting_controller.clone())
    );
    assert_eq!(
        core_events.get("through-core").await.unwrap().message,
        core.message
    );

    let factory = KubernetesInformers::new(gentype::InformerFactory::new(
        SharedInformerFactory::new(server.client()),
    ));
    let events = factory.events().v1().events().lister();
    let core_events = factory.core().v1().events().lister();
    factory.factory().start();
    assert!(
        factory
            .factory()
            .wait_for_cache_sync(SYNC)
            .await
            .values()
            .all(|s| *s)
    );
    assert_eq!(
        events
            .namespace("default")
            .get("through-events-k8s-io")
            .and_then(|e| e.note.clone()),
        event.note
    );
    assert_eq!(
        core_events
            .namespace("default")
            .get("through-core")
            .and_then(|e| e.message.clone()),
        core.message
    );
    factory.factory().shutdown().await;
    server.shutdown().await;
}
