//! kube-runtime's own machinery against the testkit: its `finalizer()` helper through
//! apply and cleanup, and a `Controller` reconciling ConfigMaps to convergence. What
//! works on a cluster must work here, so these run kube's code unchanged; every wait is
//! on a condition (kube's `await_condition`, a watch), bounded by a timeout.

mod testkit_support;

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::runtime::wait::{Condition, await_condition, conditions};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::configmap;

/// The finalizer both tests put on ConfigMaps.
const FINALIZER: &str = "kubegen.example/cleanup";
/// The label that makes a ConfigMap the controller's.
const LABEL: &str = "kubegen.example/copy";
/// How long any one condition may take to hold: far more than it needs.
const PATIENCE: Duration = Duration::from_secs(30);

/// Waits until the object `name` satisfies `condition`; `what` names it for the panic.
async fn eventually<K>(
    api: &Api<K>,
    name: &str,
    what: &str,
    condition: impl Condition<K>,
) -> Option<K>
where
    K: Clone + std::fmt::Debug + Send + serde::de::DeserializeOwned + Resource + 'static,
{
    bounded(what, await_condition(api.clone(), name, condition))
        .await
        .unwrap_or_else(|e| panic!("watching for {what}: {e}"))
}

/// `future`, or a panic naming `what` after [`PATIENCE`].
async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .unwrap_or_else(|_| panic!("{what}: not within {PATIENCE:?}"))
}

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
enum ReconcileError {
    /// Writing or deleting the copy failed.
    #[error("failed to write or delete the copy of a ConfigMap")]
    Write(#[source] kube::Error),
    /// kube-runtime's finalizer helper failed (its add or remove patch, or our work).
    #[error("kube-runtime's finalizer helper failed")]
    Finalizer(#[source] Box<finalizer::Error<ReconcileError>>),
}

/// `finalizer()` by hand, one step at a time: each call is what a reconcile does with
/// the object it was handed.
#[tokio::test]
async fn kube_runtime_finalizer_adds_applies_cleans_up_and_removes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("settings", "1"))
        .await
        .expect("create");
    assert!(created.finalizers().is_empty());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let step = |object: ConfigMap| {
        let seen = seen.clone();
        let api = api.clone();
        async move {
            finalizer(&api, FINALIZER, Arc::new(object), |event| async move {
                let step = match event {
                    Event::Apply(cm) => format!("apply {}", cm.name_any()),
                    Event::Cleanup(cm) => format!("cleanup {}", cm.name_any()),
                };
                seen.lock().expect("not poisoned").push(step);
                Ok::<_, ReconcileError>(Action::await_change())
            })
            .await
        }
    };

    // No finalizer yet: kube tests `/metadata/finalizers` against null, then adds it.
    step(created)
        .await
        .expect("the finalizer is added to an object without finalizers");
    let with_finalizer = api.get("settings").await.expect("get");
    assert_eq!(with_finalizer.finalizers(), [FINALIZER]);
    assert_eq!(
        with_finalizer.metadata.generation, None,
        "adding a finalizer to a ConfigMap gives it no generation"
    );
    assert!(
        seen.lock().expect("not poisoned").is_empty(),
        "no apply before it is added"
    );

    // With the finalizer: the user's apply runs.
    step(with_finalizer).await.expect("apply");
    assert_eq!(*seen.lock().expect("not poisoned"), ["apply settings"]);

    // Deleted: the object waits for the cleanup, which then removes the finalizer.
    let uid = api.get("settings").await.expect("get").uid().expect("uid");
    api.delete("settings", &DeleteParams::default())
        .await
        .expect("delete");
    let marked = api.get("settings").await.expect("still there");
    assert!(marked.metadata.deletion_timestamp.is_some());
    step(marked).await.expect("cleanup");
    assert_eq!(
        *seen.lock().expect("not poisoned"),
        ["apply settings", "cleanup settings"]
    );
    eventually(
        &api,
        "settings",
        "the ConfigMap to be gone",
        conditions::is_deleted(&uid),
    )
    .await;
    server.shutdown().await;
}

/// What the controller's reconciles share with the test.
struct Context {
    configmaps: Api<ConfigMap>,
    secrets: Api<Secret>,
    /// ConfigMaps whose cleanup ran.
    cleaned: Mutex<BTreeSet<String>>,
}

/// Keeps an owned Secret `NAME-copy` equal to every labelled ConfigMap's data, under
/// kube-runtime's finalizer; the cleanup deletes the copy.
async fn reconcile(cm: Arc<ConfigMap>, ctx: Arc<Context>) -> Result<Action, ReconcileError> {
    let api = ctx.configmaps.clone();
    finalizer(&api, FINALIZER, cm, |event| async {
        match event {
            Event::Apply(cm) => {
                let owner = cm
                    .controller_owner_ref(&())
                    .map(|mut owner: OwnerReference| {
                        owner.block_owner_deletion = Some(true);
                        owner
                    });
                let copy = Secret {
                    metadata: ObjectMeta {
                        name: Some(copy_name(&cm)),
                        owner_references: owner.map(|o| vec![o]),
                        ..Default::default()
                    },
                    data: cm.data.as_ref().map(|data| {
                        data.iter()
                            .map(|(k, v)| (k.clone(), ByteString(v.clone().into_bytes())))
                            .collect()
                    }),
                    ..Default::default()
                };
                let mut copy = serde_json::to_value(&copy)
                    .map_err(|e| ReconcileError::Write(kube::Error::SerdeError(e)))?;
                copy["apiVersion"] = json!("v1");
                copy["kind"] = json!("Secret");
                ctx.secrets
                    .patch(
                        &copy_name(&cm),
                        &PatchParams::apply("kubegen-copier").force(),
                        &Patch::Apply(&copy),
                    )
                    .await
                    .map_err(ReconcileError::Write)?;
                Ok(Action::await_change())
            }
            Event::Cleanup(cm) => {
                match ctx
                    .secrets
                    .delete(&copy_name(&cm), &DeleteParams::default())
                    .await
                {
                    Ok(_) => {}
                    Err(kube::Error::Api(status)) if status.code == 404 => {}
                    Err(e) => return Err(ReconcileError::Write(e)),
                }
                ctx.cleaned
                    .lock()
                    .expect("not poisoned")
                    .insert(cm.name_any());
                Ok(Action::await_change())
            }
        }
    })
    .await
    .map_err(|e| ReconcileError::Finalizer(Box::new(e)))
}

/// Failed reconciles (a finalizer patch tested a stale cached object, for one) are
/// retried soon: the next attempt reads the object the watch has delivered since.
fn error_policy(_cm: Arc<ConfigMap>, _error: &ReconcileError, _ctx: Arc<Context>) -> Action {
    Action::requeue(Duration::from_millis(50))
}

fn copy_name(cm: &ConfigMap) -> String {
    format!("{}-copy", cm.name_any())
}

fn labelled(name: &str, value: &str) -> ConfigMap {
    let mut cm = configmap(name, value);
    cm.metadata.labels = Some([(LABEL.to_owned(), "true".to_owned())].into());
    cm
}

/// The copy of `value` exists, owned by the ConfigMap with `uid`.
fn copy_of(value: &'static str, uid: String) -> impl Condition<Secret> {
    move |secret: Option<&Secret>| {
        secret.is_some_and(|s| {
            let data = s.data.as_ref().and_then(|d| d.get("value"));
            let owned = s
                .owner_references()
                .iter()
                .any(|o| o.uid == uid && o.controller == Some(true));
            data.is_some_and(|d| d.0 == value.as_bytes()) && owned
        })
    }
}

#[tokio::test]
async fn kube_runtime_controller_converges_with_its_finalizer() {
    let server = ApiServer::start().await.expect("start");
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let secrets: Api<Secret> = Api::default_namespaced(server.client());
    // Objects from before the controller starts, and one it must not touch.
    let first = configmaps
        .create(&PostParams::default(), &labelled("first", "1"))
        .await
        .expect("create first");
    let ignored = configmaps
        .create(&PostParams::default(), &configmap("ignored", "0"))
        .await
        .expect("create ignored");

    let ctx = Arc::new(Context {
        configmaps: configmaps.clone(),
        secrets: secrets.clone(),
        cleaned: Mutex::new(BTreeSet::new()),
    });
    let selector = format!("{LABEL}=true");
    let controller = Controller::new(
        configmaps.clone(),
        watcher::Config::default().labels(&selector),
    )
    .owns(secrets.clone(), watcher::Config::default())
    .run(reconcile, error_policy, ctx.clone())
    .for_each(|_| async {});
    let controller = tokio::spawn(controller);

    // One created while it runs.
    let second = configmaps
        .create(&PostParams::default(), &labelled("second", "2"))
        .await
        .expect("create second");
    for (cm, value) in [(&first, "1"), (&second, "2")] {
        let name = cm.name_any();
        let uid = cm.uid().expect("uid");
        eventually(
            &configmaps,
            &name,
            &format!("{FINALIZER} on {name}"),
            |cm: Option<&ConfigMap>| cm.is_some_and(|cm| cm.finalizers() == [FINALIZER]),
        )
        .await;
        eventually(
            &secrets,
            &copy_name(cm),
            &format!("the copy of {name}"),
            copy_of(value, uid),
        )
        .await;
    }

    // A change is followed.
    configmaps
        .patch(
            "first",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"value": "1b"}})),
        )
        .await
        .expect("change first");
    eventually(
        &secrets,
        "first-copy",
        "the copy of first's new value",
        copy_of("1b", first.uid().expect("uid")),
    )
    .await;

    // A deletion waits for the cleanup, which removes the copy and then the finalizer.
    configmaps
        .delete("second", &DeleteParams::default())
        .await
        .expect("delete second");
    let second_uid = second.uid().expect("uid");
    eventually(
        &configmaps,
        "second",
        "second to be gone",
        conditions::is_deleted(&second_uid),
    )
    .await;
    assert!(
        ctx.cleaned.lock().expect("not poisoned").contains("second"),
        "second went away through the cleanup"
    );
    assert_eq!(
        secrets.get_opt("second-copy").await.expect("get copy"),
        None
    );

    // The unlabelled ConfigMap was never the controller's: not written at all.
    let untouched = configmaps.get("ignored").await.expect("get ignored");
    assert_eq!(untouched.resource_version(), ignored.resource_version());
    assert!(untouched.finalizers().is_empty());
    assert_eq!(secrets.get_opt("ignored-copy").await.expect("get"), None);

    controller.abort();
    let _ = controller.await;
    server.shutdown().await;
}
