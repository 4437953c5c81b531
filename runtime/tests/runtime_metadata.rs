//! Metadata-only informers: `SharedInformer<PartialObjectMeta<K>>` lists and watches the
//! testkit with the PartialObjectMetadata Accept headers, caches metadata without bodies,
//! follows adds, updates and deletes, and relists after a 410; the factory shares one per
//! (type, namespace, selectors), apart from the full-object informer.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::factory::{InformerOptions, SharedInformerFactory};
use kubegen_runtime::informer::{HandlerFns, InformerConfig, SharedInformer};
use kubegen_runtime::lister::Selector;
use kubegen_runtime::metrics::informer::ReflectorMetrics;
use kubegen_runtime::reflector::ReflectorConfig;
use kubegen_testkit::ApiServer;
use serde_json::json;
use tokio::sync::mpsc;

type SecretMeta = PartialObjectMeta<Secret>;

fn secret(name: &str, app: &str) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some([("app".to_owned(), app.to_owned())].into()),
            ..Default::default()
        },
        string_data: Some(
            [(
                "password".to_owned(),
                format!("{name}-{}", "x".repeat(2048)),
            )]
            .into(),
        ),
        ..Default::default()
    }
}

async fn create(server: &ApiServer, namespace: &str, name: &str, app: &str) {
    TypedClient::<Secret>::new(server.client(), Scope::Namespace(namespace), &())
        .create(&secret(name, app))
        .await
        .expect("create secret");
}

/// A cached object was sent as metadata only: `kind: PartialObjectMetadata` (so it came
/// through the metadata API, not a whole Secret decoded and trimmed) and nothing but
/// type and metadata.
fn assert_metadata_only(object: &SecretMeta) {
    let types = object.types.as_ref().expect("types");
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    let value = serde_json::to_value(object).expect("serialize");
    let keys: BTreeSet<&str> = value
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, BTreeSet::from(["apiVersion", "kind", "metadata"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_factory_shares_a_metadata_informer_apart_from_the_full_one() {
    let server = ApiServer::start().await.expect("start");
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(server.client());
    namespaces
        .create(
            &Default::default(),
            &serde_json::from_value(json!({"metadata": {"name": "team-a"}})).expect("ns"),
        )
        .await
        .expect("namespace");
    for (namespace, name, app) in [
        ("default", "a", "web"),
        ("default", "b", "db"),
        ("team-a", "c", "web"),
    ] {
        create(&server, namespace, name, app).await;
    }

    let factory = SharedInformerFactory::new(server.client());
    let metadata = factory.informer::<SecretMeta>();
    let _same = factory.informer::<SecretMeta>();
    assert_eq!(
        factory.len(),
        1,
        "one metadata informer per type and options"
    );
    let full = factory.informer::<Secret>();
    assert_eq!(factory.len(), 2, "the full-object informer is another one");
    let web = factory
        .informer_with::<SecretMeta>(&(), InformerOptions::default().label_selector("app=web"));
    let team_a =
        factory.informer_with::<SecretMeta>(&(), InformerOptions::default().namespace("team-a"));
    assert_eq!(factory.len(), 4);
    factory.start();
    let synced = factory.wait_for_cache_sync(Duration::from_secs(30)).await;
    assert!(synced.values().all(|ok| *ok), "{synced:?}");
    assert!(
        synced.contains_key("secrets.v1 (PartialObjectMeta<Secret>)"),
        "{synced:?}"
    );
    assert!(synced.contains_key("secrets.v1 (Secret)"), "{synced:?}");

    let cached = metadata.store().list();
    assert_eq!(cached.len(), 3);
    cached.iter().for_each(|o| assert_metadata_only(o));
    let lister = metadata.lister();
    let a = lister.namespace("default").get("a").expect("a by name");
    assert_eq!(
        a.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("app"))
            .map(String::as_str),
        Some("web")
    );
    let selector: Selector = "app=web".parse().expect("selector");
    assert_eq!(lister.list(&selector).len(), 2);
    let names = |informer: &SharedInformer<SecretMeta>| -> BTreeSet<String> {
        informer
            .store()
            .list()
            .iter()
            .filter_map(|o| o.metadata.name.clone())
            .collect()
    };
    assert_eq!(names(&web), BTreeSet::from(["a".into(), "c".into()]));
    assert_eq!(names(&team_a), BTreeSet::from(["c".into()]));
    // The full informer holds the bodies the metadata one does not.
    let body = full
        .lister()
        .namespace("default")
        .get("a")
        .and_then(|s| s.data.clone())
        .expect("data");
    assert!(body["password"].0.len() > 2048);
    factory.shutdown().await;
    server.shutdown().await;
}

/// What the handler saw, sent from its thread (wait on a channel, not a timer).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Add(String),
    Update(String, Option<String>),
    Delete(String, bool),
}

#[derive(Default)]
struct Relists(AtomicUsize);

impl ReflectorMetrics for Relists {
    fn relist(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn name(object: &SecretMeta) -> String {
    object.metadata.name.clone().unwrap_or_default()
}

async fn next(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("an event in time")
        .expect("handler alive")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_informer_follows_changes_and_relists_after_410() {
    let server = ApiServer::start().await.expect("start");
    for name in ["s-0", "s-1", "s-2"] {
        create(&server, "default", name, "web").await;
    }
    let relists = Arc::new(Relists::default());
    let gone = Arc::new(AtomicUsize::new(0));
    let gone_seen = gone.clone();
    let reflector = ReflectorConfig::default()
        .name("secret-metadata")
        .metrics(relists.clone())
        .error_handler(move |e| {
            if e.is_gone() {
                gone_seen.fetch_add(1, Ordering::SeqCst);
            }
        });
    let informer = SharedInformer::new(
        Api::<SecretMeta>::all(server.client()),
        InformerConfig::default().reflector(reflector),
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (add, update, delete) = (tx.clone(), tx.clone(), tx);
    informer.add_event_handler(
        HandlerFns::new()
            .on_add(move |o: Arc<SecretMeta>, _| {
                assert_metadata_only(&o);
                let _ = add.send(Seen::Add(name(&o)));
            })
            .on_update(move |_, o: Arc<SecretMeta>| {
                assert_metadata_only(&o);
                let app = o
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get("app").cloned());
                let _ = update.send(Seen::Update(name(&o), app));
            })
            .on_delete(move |d| {
                let _ = delete.send(Seen::Delete(name(d.object()), d.is_final_state_unknown()));
            }),
    );
    informer.start();
    informer.wait_for_sync().await;
    let mut initial = BTreeSet::new();
    for _ in 0..3 {
        initial.insert(next(&mut rx).await);
    }
    assert_eq!(
        initial,
        BTreeSet::from_iter(["s-0", "s-1", "s-2"].map(|n| Seen::Add(n.into())))
    );

    let client = TypedClient::<Secret>::new(server.client(), Scope::Namespace("default"), &());
    create(&server, "default", "s-3", "web").await;
    assert_eq!(next(&mut rx).await, Seen::Add("s-3".into()));
    client
        .patch(
            "s-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"app": "db"}}})),
        )
        .await
        .expect("relabel");
    assert_eq!(
        next(&mut rx).await,
        Seen::Update("s-0".into(), Some("db".into()))
    );
    client
        .delete("s-1", &DeleteParams::default())
        .await
        .expect("delete");
    assert_eq!(next(&mut rx).await, Seen::Delete("s-1".into(), false));

    // Changes while the watch is down and the history compacted: resuming is 410, the
    // informer relists and reports what it missed.
    server.faults().pause_watches();
    client
        .delete("s-2", &DeleteParams::default())
        .await
        .expect("delete while down");
    create(&server, "default", "s-4", "web").await;
    server.faults().compact();
    server.faults().drop_watches();
    server.faults().resume_watches();
    let mut missed = BTreeSet::new();
    for _ in 0..2 {
        missed.insert(next(&mut rx).await);
    }
    assert_eq!(
        missed,
        BTreeSet::from([Seen::Delete("s-2".into(), true), Seen::Add("s-4".into())])
    );
    assert!(
        gone.load(Ordering::SeqCst) >= 1,
        "the resume was refused with 410"
    );
    assert!(
        relists.0.load(Ordering::SeqCst) >= 1,
        "and a relist followed"
    );

    let on_server: BTreeSet<String> = Api::<Secret>::all(server.client())
        .list(&ListParams::default())
        .await
        .expect("list")
        .items
        .iter()
        .filter_map(|s| s.metadata.name.clone())
        .collect();
    let cached: BTreeSet<String> = informer.store().list().iter().map(|o| name(o)).collect();
    assert_eq!(cached, on_server);
    informer
        .store()
        .list()
        .iter()
        .for_each(|o| assert_metadata_only(o));
    informer.shutdown().await;
    server.shutdown().await;
}
