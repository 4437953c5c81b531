//! The Foo controller, step for step client-go's sample-controller, on the runtime's
//! reconcile loop: informers -> event handlers enqueue keys -> rate-limited work queue
//! -> workers call [`Controller::reconcile`], which reads from listers and writes
//! through the client. The loop itself (workers, backoff, `forget`, `done`, panics,
//! drain) is [`kubegen::runtime::controller`]'s.
//!
//! After each create or server-side apply of a Foo's Deployment, the runtime's owner
//! check reads the Foo again from the API server and deletes the Deployment if the Foo
//! was deleted meanwhile ([`Controller::confirm_owners`]): another client's deletion
//! between this reconcile's read of the Foo and its write would otherwise leave a
//! Deployment owned by nobody until a garbage collector found it.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::Resource;
use kubegen::operator::{Access, Manager, ManagerError};
use kubegen::runtime::apply::ApplyMetadata;
use kubegen::runtime::controller::{
    self as runtime, Action, ControllerConfig, EnqueueObject, EnqueueOwner, ErrorChain, OwnerCheck,
    Reconciler, is_cache_lag,
};
use kubegen::runtime::error::Verb;
use kubegen::runtime::events::{Event, EventRecorder};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::workqueue::RateLimitingQueue;
use tokio::sync::watch;

use crate::apis::samplecontroller::v1alpha1::Foo;
use crate::applyconfigurations::samplecontroller_k8s_io::v1alpha1::{FooApply, FooStatusApply};
use kubegen::applyconfigurations::apps::v1::{DeploymentApply, DeploymentSpecApply};
use kubegen::applyconfigurations::core::v1::{ContainerApply, PodSpecApply, PodTemplateSpecApply};
use kubegen::kubernetes;
use kubegen::kubernetes::listers::apps::v1::DeploymentLister;

use crate::generated::clientset::Clientset;
use crate::generated::informers::InformerFactory;
use crate::generated::listers::samplecontroller_k8s_io::v1alpha1::FooLister;

/// The controller's name: `reportingController` of its events, its queue's name and
/// the `controller` label of its metrics.
pub const CONTROLLER_NAME: &str = "sample-controller";
/// Event reason when a Foo is synced.
pub const SUCCESS_SYNCED: &str = "Synced";
/// Event reason when creating a Foo's Deployment failed (the ReplicaSet controller's
/// `FailedCreate`): the note is the API server's answer, a 403 Forbidden included.
pub const FAILED_CREATE: &str = "FailedCreate";
/// Event reason when the Deployment a Foo names exists and is not owned by it.
pub const ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";
/// How long [`Controller::run`] waits for the caches before giving up.
pub const CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a Foo could not be synced (the key is retried with backoff), or the controller
/// could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the API server failed; the message names the call.
    #[error(transparent)]
    Api(#[from] kubegen::runtime::error::Error),
    /// The reconcile loop could not run (its caches did not sync, the Lease was lost...).
    #[error(transparent)]
    Run(#[from] ManagerError),
    /// Confirming a Foo after writing its Deployment failed (see
    /// [`Controller::confirm_owners`]).
    #[error(transparent)]
    OwnerCheck(#[from] kubegen::runtime::controller::owner::Error),
}

/// The Deployment a Foo names exists and is controlled by something else: it is not
/// adopted. Reported as a Warning event and one log line, and retried with backoff
/// until the name is free.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotOwned {
    /// The Deployment's name.
    pub deployment: String,
    /// The Foo's key.
    pub foo: ObjectKey,
}

impl std::fmt::Display for NotOwned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Resource {:?} already exists and is not managed by Foo {}",
            self.deployment, self.foo
        )
    }
}

/// Watches Foos and Deployments and makes every Foo's Deployment match it: the
/// reconciler, with the runtime controller that runs it.
pub struct Controller {
    /// Built-in types: client-go's `kubeclientset`.
    kubeclientset: kubernetes::clientset::Clientset,
    /// Our types: client-go's `sampleclientset`.
    clientset: Clientset,
    foos: FooLister,
    deployments: DeploymentLister,
    recorder: EventRecorder,
    reconcile_loop: runtime::Controller,
    /// Reads the Foo again after each write of its Deployment (and deletes the
    /// Deployment if the Foo is gone), counted in the loop's metrics.
    owner_check: OwnerCheck,
    /// Whether the owner check runs ([`Controller::confirm_owners`]).
    confirm_owners: AtomicBool,
    /// Foos refused for a Deployment they do not own, with that Deployment's UID: the
    /// refusal is logged once per Deployment, not on every retry.
    refused: Mutex<HashMap<ObjectKey, String>>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("loop", &self.reconcile_loop)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts) and
    /// a reconcile loop configured by `config` (workers, metrics, the stale-cache guard:
    /// by default a Foo's next reconcile waits until both caches have seen what its last
    /// one wrote, the Deployment and the Foo's status) under the controller's name.
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
        config: ControllerConfig,
    ) -> Arc<Self> {
        // Both generated factories hand out informers of the one shared factory, as
        // client-go's kubeInformerFactory and exampleInformerFactory do.
        let shared = kubegen::gentype::InformerFactory::new(factory.clone());
        let kube_informers = kubernetes::informers::InformerFactory::new(shared.clone());
        let sample_informers = InformerFactory::new(shared);
        let foos = sample_informers.samplecontroller().v1alpha1().foos();
        let deployments = kube_informers.apps().v1().deployments();
        let reconcile_loop = runtime::Controller::new(
            config
                .name(CONTROLLER_NAME)
                .cache_sync_timeout(CACHE_SYNC_TIMEOUT),
        );

        tracing::info!("setting up event handlers");
        // A Foo changed: reconcile it.
        reconcile_loop.watches(&foos.informer(), EnqueueObject::new(reconcile_loop.queue()));
        // A Deployment changed: reconcile the Foo that controls it, if any (client-go's
        // handleObject). Periodic resyncs deliver unchanged objects; those are skipped.
        reconcile_loop.watches(
            &deployments.informer(),
            EnqueueOwner::<Foo>::new(reconcile_loop.queue()).skip_resyncs(),
        );

        Arc::new(Self {
            kubeclientset: kubernetes::clientset::Clientset::new(client.clone()),
            clientset: Clientset::new(client),
            foos: foos.lister(),
            deployments: deployments.lister(),
            recorder,
            owner_check: reconcile_loop.owner_check(),
            confirm_owners: AtomicBool::new(true),
            reconcile_loop,
            refused: Mutex::new(HashMap::new()),
        })
    }

    /// Adds the reconcile loop to `manager`: from its start, it waits for the caches,
    /// reconciles (under the manager's Lease, if any) until stopped, then drains the
    /// queue. Declares what [`reconcile`](Reconciler::reconcile) writes, for
    /// [`Manager::rbac`]: Deployments are created, server-side applied (PATCH) and
    /// deleted (by the owner check, when their Foo went away during the write), the
    /// Foo's status is applied through its subresource.
    pub fn add_to(self: &Arc<Self>, manager: &mut Manager) {
        manager
            .needs(Access::to::<Deployment>(&[
                Verb::Create,
                Verb::Patch,
                Verb::Delete,
            ]))
            .needs(Access::to::<Foo>(&[Verb::Patch]).subresource("status"))
            .add(self.reconcile_loop.clone(), Arc::clone(self));
    }

    /// Turns the owner check on (the default) or off: after creating or applying a
    /// Foo's Deployment, one live read of the Foo; if it was deleted meanwhile (or its
    /// name holds another Foo), the Deployment just written is deleted again
    /// ([`OwnerCheck`], counted in `controller_runtime_owner_checks_total` and
    /// `controller_runtime_orphans_deleted_total`). Off, such a Deployment stays until
    /// a garbage collector finds its owner gone: for comparisons (the sample-controller
    /// soak counts them).
    pub fn confirm_owners(&self, enabled: bool) {
        self.confirm_owners.store(enabled, Ordering::Relaxed);
    }

    /// A receiver of the number of keys processed so far: it changes after every
    /// reconcile, which is when convergence checks are worth running.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.reconcile_loop.processed()
    }

    /// The reconcile loop (to run it elsewhere than [`add_to`](Self::add_to) puts it,
    /// e.g. as a sharded controller).
    pub fn reconcile_loop(&self) -> &runtime::Controller {
        &self.reconcile_loop
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        self.reconcile_loop.queue()
    }

    /// The Foo lister.
    pub fn foos(&self) -> &FooLister {
        &self.foos
    }

    /// The Deployment lister.
    pub fn deployments(&self) -> &DeploymentLister {
        &self.deployments
    }

    /// Brings the Deployment of the Foo `key` in line with it, and the Foo's status in
    /// line with the Deployment.
    ///
    /// Writes refused because the caches are behind the server (a Deployment this
    /// controller just created, a status it just wrote) requeue the key quietly; the
    /// next reconcile reads the caught-up cache.
    async fn sync_handler(&self, key: &ObjectKey) -> Result<Action, Error> {
        let namespace = key.namespace().unwrap_or_default();
        let Some(foo) = self.foos.namespace(namespace).get(key.name()) else {
            // Deleted: the garbage collector removes the owned Deployment.
            tracing::info!(foo = %key, "foo in work queue no longer exists");
            self.forget_refusal(key);
            return Ok(Action::Done);
        };
        let deployment_name = foo.spec.deployment_name.as_str();
        if deployment_name.is_empty() {
            // The schema forbids it; an old object may still have it. Retrying cannot help.
            tracing::error!(foo = %key, "deployment name must be specified");
            return Ok(Action::Done);
        }

        let deployments = self.kubeclientset.apps_v1().deployments(namespace);
        let deployment = match self.deployments.namespace(namespace).get(deployment_name) {
            Some(existing) => existing,
            None => {
                if !self.still_exists(&foo).await? {
                    tracing::debug!(foo = %key, "foo deleted on the server, not yet in the cache");
                    return Ok(Action::Done);
                }
                tracing::info!(foo = %key, deployment = deployment_name, "creating deployment");
                match deployments.create(&new_deployment(&foo)).await {
                    Ok(created) => {
                        if !self.owner_still_there(&foo, &created).await? {
                            return Ok(Action::Done);
                        }
                        Arc::new(created)
                    }
                    Err(error) if is_cache_lag(&error) => return Ok(requeue(key, &error)),
                    Err(error) => {
                        let note = format!("Error creating: {}", ErrorChain(&error));
                        self.recorder
                            .publish(foo.as_ref(), Event::warning(FAILED_CREATE, "Create", note));
                        return Err(error.into());
                    }
                }
            }
        };

        if !is_controlled_by(&deployment, &foo) {
            let refusal = NotOwned {
                deployment: deployment_name.to_owned(),
                foo: key.clone(),
            };
            self.recorder.publish(
                foo.as_ref(),
                Event::warning(ERR_RESOURCE_EXISTS, "Adopt", refusal.to_string()),
            );
            let uid = deployment.metadata.uid.clone().unwrap_or_default();
            if self.note_refusal(key, uid) {
                tracing::warn!(foo = %key, "{refusal}; retrying with backoff");
            } else {
                tracing::debug!(foo = %key, "{refusal}");
            }
            return Ok(Action::Requeue);
        }
        self.forget_refusal(key);

        let replicas = foo.desired_replicas();
        let mut available = available_replicas(&deployment);
        if deployment.spec.replicas != Some(replicas) {
            tracing::info!(
                foo = %key,
                deployment = deployment_name,
                from = ?deployment.spec.replicas,
                to = replicas,
                "fixing deployment replicas"
            );
            // Server-side apply of the fields this controller declares (it made the
            // Deployment and owns them): no resourceVersion, so no stale cache to refuse
            // it, and fields other managers set (an autoscaler's, an admission
            // webhook's) are left alone.
            match deployments
                .apply(&deployment_apply(&foo), CONTROLLER_NAME, true)
                .await
            {
                Ok(fixed) => {
                    // The apply recreates a Deployment deleted meanwhile: its Foo may be
                    // gone too.
                    if !self.owner_still_there(&foo, &fixed).await? {
                        return Ok(Action::Done);
                    }
                    available = available_replicas(&fixed);
                }
                // Deleted meanwhile: its deletion enqueues the Foo again.
                Err(error) if error.is_not_found() => return Ok(requeue(key, &error)),
                Err(error) => return Err(error.into()),
            }
        }

        if foo.status.as_ref().map(|s| s.available_replicas) != Some(available) {
            match self.update_foo_status(&foo, available).await {
                Ok(()) => {}
                Err(error) if error.is_not_found() => return Ok(requeue(key, &error)),
                Err(error) => return Err(error.into()),
            }
            tracing::info!(foo = %key, available, "updated foo status");
        }
        self.recorder.publish(
            foo.as_ref(),
            Event::normal(SUCCESS_SYNCED, "Sync", "Foo synced successfully"),
        );
        tracing::info!(foo = %key, "successfully synced");
        Ok(Action::Done)
    }

    /// Writes `status.availableReplicas` by server-side apply of a `FooApply` holding only
    /// that field, to the status subresource. The status is the controller's alone, so no
    /// resourceVersion guards it: an update carrying the cached Foo's version would be
    /// refused (409) whenever the cache has not yet seen this controller's previous status
    /// write.
    async fn update_foo_status(
        &self,
        foo: &Foo,
        available: i32,
    ) -> Result<(), kubegen::runtime::error::Error> {
        let namespace = foo.metadata.namespace.as_deref().unwrap_or_default();
        let name = foo.metadata.name.as_deref().unwrap_or_default();
        let status = FooApply::new(name, namespace)
            .with_status(FooStatusApply::default().with_available_replicas(available));
        self.clientset
            .samplecontroller_v1alpha1()
            .foos(namespace)
            .apply_status(&status, CONTROLLER_NAME, true)
            .await?;
        Ok(())
    }

    /// Whether the server still holds this Foo (same UID) and is not deleting it: a live
    /// read before creating a Deployment for it, as client-go's ControllerRefManager
    /// rechecks an owner before adopting.
    ///
    /// Deleting a Foo deletes its Deployment, and that deletion enqueues the Foo; the Foo
    /// cache may not have seen the Foo's own deletion yet (two informers, two watches).
    /// Without the recheck the reconcile would create a Deployment for a Foo that is
    /// gone, owned by a UID nobody holds.
    async fn still_exists(&self, foo: &Foo) -> Result<bool, kubegen::runtime::error::Error> {
        let namespace = foo.metadata.namespace.as_deref().unwrap_or_default();
        let name = foo.metadata.name.as_deref().unwrap_or_default();
        let live = match self
            .clientset
            .samplecontroller_v1alpha1()
            .foos(namespace)
            .get(name)
            .await
        {
            Ok(live) => live,
            Err(error) if error.is_not_found() => return Ok(false),
            Err(error) => return Err(error),
        };
        Ok(live.metadata.uid == foo.metadata.uid && live.metadata.deletion_timestamp.is_none())
    }

    /// After writing `deployment` for `foo`, whether the Foo is still there: one live
    /// read (see [`confirm_owners`](Self::confirm_owners)). If it was deleted between
    /// this reconcile's read of it and the write, the write created a Deployment that
    /// the server's collection of the Foo's dependents did not see: it is deleted here,
    /// and false returned. True without a read when the check is off.
    async fn owner_still_there(&self, foo: &Foo, deployment: &Deployment) -> Result<bool, Error> {
        if !self.confirm_owners.load(Ordering::Relaxed) {
            return Ok(true);
        }
        let namespace = foo.metadata.namespace.as_deref().unwrap_or_default();
        let confirmed = self
            .owner_check
            .confirm(
                &self.clientset.samplecontroller_v1alpha1().foos(namespace),
                foo,
                &self.kubeclientset.apps_v1().deployments(namespace),
                deployment,
            )
            .await?;
        if !confirmed.owner_present() {
            tracing::info!(
                foo = %ObjectKey::of(foo),
                ?confirmed,
                "foo deleted while its deployment was written; deployment removed"
            );
        }
        Ok(confirmed.owner_present())
    }

    /// Records that `foo` is refused for the Deployment `uid`; true if that is news.
    fn note_refusal(&self, foo: &ObjectKey, uid: String) -> bool {
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        refused.insert(foo.clone(), uid.clone()) != Some(uid)
    }

    fn forget_refusal(&self, foo: &ObjectKey) {
        self.refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(foo);
    }
}

impl Reconciler for Controller {
    type Error = Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Error> {
        self.sync_handler(key).await
    }
}

/// A write refused because the caches were behind: requeue quietly.
fn requeue(key: &ObjectKey, error: &kubegen::runtime::error::Error) -> Action {
    tracing::debug!(foo = %key, error = %ErrorChain(error), "cache behind the server; requeuing");
    Action::Requeue
}

fn available_replicas(deployment: &Deployment) -> i32 {
    deployment
        .status
        .as_ref()
        .and_then(|s| s.available_replicas)
        .unwrap_or(0)
}

fn controller_of(
    deployment: &Deployment,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    deployment
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
}

/// Whether `foo` is the controller owner of `deployment` (same UID).
pub fn is_controlled_by(deployment: &Deployment, foo: &Foo) -> bool {
    controller_of(deployment).is_some_and(|r| Some(r.uid.as_str()) == foo.metadata.uid.as_deref())
}

/// The labels of a Foo's pods (and its Deployment's selector).
fn pod_labels(foo: &Foo) -> BTreeMap<String, String> {
    let name = foo.metadata.name.clone().unwrap_or_default();
    [
        ("app".to_owned(), "nginx".to_owned()),
        ("controller".to_owned(), name),
    ]
    .into()
}

/// What this controller declares of a Foo's Deployment, for server-side apply: the Foo as
/// controller owner, the replicas, the selector, and the pod template's labels and nginx
/// container; nothing else, so it owns nothing else (the fields the API server defaults
/// stay unowned by it).
pub fn deployment_apply(foo: &Foo) -> DeploymentApply {
    let labels = pod_labels(foo);
    let namespace = foo.metadata.namespace.clone().unwrap_or_default();
    DeploymentApply::new(foo.spec.deployment_name.clone(), namespace)
        .with_owner_references(foo.controller_owner_ref(&()))
        .with_spec(
            DeploymentSpecApply::default()
                .with_replicas(foo.desired_replicas())
                .with_selector(LabelSelector {
                    match_labels: Some(labels.clone()),
                    ..Default::default()
                })
                .with_template(
                    PodTemplateSpecApply::default()
                        .with_labels(labels)
                        .with_spec(
                            PodSpecApply::default().with_containers([ContainerApply::default()
                                .with_name("nginx")
                                .with_image("nginx:latest")]),
                        ),
                ),
        )
}

/// The Deployment a Foo asks for, to create it: nginx pods labelled for the Foo, owned by
/// it (the same fields as [`deployment_apply`]).
pub fn new_deployment(foo: &Foo) -> Deployment {
    let labels = pod_labels(foo);
    Deployment {
        metadata: ObjectMeta {
            name: Some(foo.spec.deployment_name.clone()),
            namespace: foo.metadata.namespace.clone(),
            owner_references: foo.controller_owner_ref(&()).map(|r| vec![r]),
            ..Default::default()
        },
        spec: DeploymentSpec {
            replicas: Some(foo.desired_replicas()),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "nginx".to_owned(),
                        image: Some("nginx:latest".to_owned()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        },
        status: None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a failed call is a failed test
mod tests {
    use super::*;
    use crate::apis::samplecontroller::v1alpha1::FooSpec;

    fn foo() -> Foo {
        let mut foo = Foo::new(
            "ns",
            "web",
            FooSpec {
                deployment_name: "web-app".into(),
                replicas: Some(3),
            },
        );
        foo.metadata.uid = Some("uid-1".into());
        foo
    }

    #[test]
    fn new_deployment_is_owned_and_sized_by_the_foo() {
        let foo = foo();
        let deployment = new_deployment(&foo);
        assert_eq!(deployment.metadata.name.as_deref(), Some("web-app"));
        assert_eq!(deployment.metadata.namespace.as_deref(), Some("ns"));
        assert_eq!(deployment.spec.replicas, Some(3));
        assert!(is_controlled_by(&deployment, &foo));
        let mut other = foo.clone();
        other.metadata.uid = Some("uid-2".into());
        assert!(!is_controlled_by(&deployment, &other));
    }

    #[test]
    fn deployment_apply_holds_only_the_controllers_fields() {
        let foo = foo();
        let apply = serde_json::to_value(deployment_apply(&foo)).unwrap();
        let owner = serde_json::to_value(foo.controller_owner_ref(&()).unwrap()).unwrap();
        let labels = serde_json::json!({"app": "nginx", "controller": "web"});
        assert_eq!(
            apply,
            serde_json::json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web-app", "namespace": "ns", "ownerReferences": [owner]},
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}
                    }
                }
            })
        );
        // The Deployment created first has the same fields (serialized, it also has the
        // required fields k8s-openapi writes as empty).
        let created = serde_json::to_value(new_deployment(&foo)).unwrap();
        assert_eq!(created["spec"]["template"], apply["spec"]["template"]);
        assert_eq!(created["metadata"], apply["metadata"]);
    }

    #[test]
    fn not_owned_message_names_both_objects() {
        let refusal = NotOwned {
            deployment: "web-app".into(),
            foo: ObjectKey::namespaced("ns", "web"),
        };
        assert_eq!(
            refusal.to_string(),
            "Resource \"web-app\" already exists and is not managed by Foo ns/web"
        );
    }
}
