//! The controller's watch helpers end to end against the testkit API server: owner
//! enqueue (tombstones included) and index fan-out, through real informers.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{DeleteParams, ObjectMeta};
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueByIndex, EnqueueOwner, Reconciler,
};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::informer::{DeletedObject, HandlerFns};
use kubegen_runtime::key::ObjectKey;
use kubegen_testkit::ApiServer;
use tokio::sync::mpsc;

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(30);

/// Sends every reconciled key to the test.
struct Recorder(mpsc::UnboundedSender<ObjectKey>);

impl Reconciler for Recorder {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        let _ = self.0.send(key.clone());
        Ok(Action::Done)
    }
}

/// A running controller whose reconciles the test reads, one worker so keys come in
/// the order they were first queued.
struct Running {
    reconciled: mpsc::UnboundedReceiver<ObjectKey>,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<kubegen_runtime::controller::Result<()>>,
}

impl Running {
    fn start(controller: Controller) -> Self {
        let (tx, reconciled) = mpsc::unbounded_channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn({
            async move {
                controller
                    .run(Recorder(tx), async {
                        let _ = stopped.await;
                    })
                    .await
            }
        });
        Self {
            reconciled,
            stop,
            task,
        }
    }

    /// The keys reconciled until `marker` is, in order; `marker` was queued after
    /// everything the test expects, so nothing else is still on its way.
    async fn until(&mut self, marker: &ObjectKey) -> Vec<String> {
        let mut keys = Vec::new();
        loop {
            let key = tokio::time::timeout(GUARD, self.reconciled.recv())
                .await
                .expect("a reconcile")
                .unwrap();
            if &key == marker {
                return keys;
            }
            keys.push(key.to_string());
        }
    }

    async fn stop(self) {
        self.stop.send(()).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

fn meta(namespace: Option<&str>, name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: namespace.map(Into::into),
        ..Default::default()
    }
}

fn owned_cm(name: &str, owners: Vec<OwnerReference>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            owner_references: Some(owners),
            ..meta(Some("default"), name)
        },
        ..Default::default()
    }
}

fn deployment_owner(name: &str, controller: bool) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        controller: Some(controller),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dependents_enqueue_their_controller_owner_even_through_a_tombstone() {
    // The owners named here do not exist: the collection of dangling dependents would
    // delete the ConfigMaps under the test.
    let server = ApiServer::builder()
        .collect_dangling_dependents(false)
        .start()
        .await
        .unwrap();
    let cms = TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &());
    let factory = SharedInformerFactory::new(server.client());
    let informer = factory.informer::<ConfigMap>();
    let controller = Controller::new(ControllerConfig::default().name("owners"));
    controller.watches(
        &informer,
        EnqueueOwner::<Deployment>::new(controller.queue()),
    );
    // Tells the test which deletions arrived as tombstones.
    let (tombstones_tx, mut tombstones) = mpsc::unbounded_channel();
    informer.add_event_handler(HandlerFns::new().on_delete(
        move |gone: DeletedObject<ConfigMap>| {
            if gone.is_final_state_unknown() {
                let _ = tombstones_tx.send(ObjectKey::of(gone.object().as_ref()));
            }
        },
    ));
    factory.start();
    // Synced before the writes, so they arrive as watch events in write order (an
    // initial list would deliver them in name order, the marker's first).
    let synced = factory.wait_for_cache_sync(GUARD).await;
    assert!(synced.values().all(|s| *s), "{synced:?}");
    let mut running = Running::start(controller);

    cms.create(&owned_cm("web-config", vec![deployment_owner("web", true)]))
        .await
        .unwrap();
    // Not a controller reference, another group, no owner: nothing to enqueue.
    cms.create(&owned_cm("shared", vec![deployment_owner("db", false)]))
        .await
        .unwrap();
    let mut foreign = deployment_owner("other", true);
    foreign.api_version = "example.com/v1".into();
    cms.create(&owned_cm("foreign", vec![foreign]))
        .await
        .unwrap();
    cms.create(&owned_cm("orphan", vec![])).await.unwrap();
    let marker = ObjectKey::namespaced("default", "marker");
    cms.create(&owned_cm(
        "marker-config",
        vec![deployment_owner("marker", true)],
    ))
    .await
    .unwrap();
    assert_eq!(running.until(&marker).await, ["default/web"]);

    // Deleted while the watch is paused, history compacted, watches dropped: the
    // informer learns of the deletion on relist, as a tombstone, and the owner is
    // enqueued from the last known state.
    let faults = server.faults();
    faults.pause_watches();
    cms.delete("web-config", &DeleteParams::default())
        .await
        .unwrap();
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    let gone = tokio::time::timeout(GUARD, tombstones.recv())
        .await
        .expect("a tombstone")
        .unwrap();
    assert_eq!(gone, ObjectKey::namespaced("default", "web-config"));
    cms.delete("marker-config", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(running.until(&marker).await, ["default/web"]);

    running.stop().await;
    factory.shutdown().await;
    server.shutdown().await;
}

/// The label on a namespace naming the namespace it copies Secrets from.
const COPY_FROM: &str = "copy-from";

fn namespace(name: &str, copy_from: Option<&str>) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            labels: copy_from.map(|from| [(COPY_FROM.to_owned(), from.to_owned())].into()),
            ..meta(None, name)
        },
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_fans_out_to_the_namespaces_indexed_under_its_namespace() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let namespaces = TypedClient::<Namespace>::new(client.clone(), Scope::All, &());
    for (name, from) in [
        ("src", None),
        ("team-a", Some("src")),
        ("team-b", Some("src")),
        ("team-c", Some("elsewhere")),
        // A secret in "marker-src" enqueues "marker": the end of each step, through
        // the same handler (one handler sees events in order; two handlers need not).
        ("marker-src", None),
        ("marker", Some("marker-src")),
    ] {
        namespaces.create(&namespace(name, from)).await.unwrap();
    }

    let factory = SharedInformerFactory::new(client.clone());
    let secret_informer = factory.informer::<Secret>();
    let namespace_informer = factory.informer::<Namespace>();
    let by_source = namespace_informer.add_index("source", |ns: &Namespace| {
        ns.metadata
            .labels
            .iter()
            .flatten()
            .filter(|(key, _)| *key == COPY_FROM)
            .map(|(_, from)| from.clone())
            .collect()
    });
    let controller = Controller::new(ControllerConfig::default().name("fan-out"));
    controller.watches(
        &secret_informer,
        EnqueueByIndex::new(
            controller.queue(),
            namespace_informer.store(),
            by_source,
            |secret: &Secret| secret.metadata.namespace.clone().into_iter().collect(),
        ),
    );
    // The index is read when a Secret event is handled: its cache must be synced.
    controller.wait_for(namespace_informer.clone());
    factory.start();
    let synced = factory.wait_for_cache_sync(GUARD).await;
    assert!(synced.values().all(|s| *s), "{synced:?}");
    let mut running = Running::start(controller);
    let marker = ObjectKey::cluster("marker");
    let markers = TypedClient::<Secret>::new(client.clone(), Scope::Namespace("marker-src"), &());
    let mut step = 0;
    let mut mark = async || {
        step += 1;
        markers
            .create(&Secret {
                metadata: meta(Some("marker-src"), &format!("step-{step}")),
                ..Default::default()
            })
            .await
            .unwrap();
    };

    let secrets = TypedClient::<Secret>::new(client.clone(), Scope::Namespace("src"), &());
    let secret = Secret {
        metadata: meta(Some("src"), "creds"),
        ..Default::default()
    };
    secrets.create(&secret).await.unwrap();
    // A secret in a namespace nobody copies from enqueues nothing.
    TypedClient::<Secret>::new(client.clone(), Scope::Namespace("team-c"), &())
        .create(&Secret {
            metadata: meta(Some("team-c"), "local"),
            ..Default::default()
        })
        .await
        .unwrap();
    mark().await;
    let mut fanned = running.until(&marker).await;
    fanned.sort();
    assert_eq!(fanned, ["team-a", "team-b"]);

    secrets
        .delete("creds", &DeleteParams::default())
        .await
        .unwrap();
    mark().await;
    let mut fanned = running.until(&marker).await;
    fanned.sort();
    assert_eq!(fanned, ["team-a", "team-b"], "deletions fan out too");

    running.stop().await;
    factory.shutdown().await;
    server.shutdown().await;
}
