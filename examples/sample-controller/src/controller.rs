//! The Foo controller, step for step client-go's sample-controller:
//! informers -> event handlers enqueue keys -> rate-limited work queue -> workers read
//! from listers -> write through the client -> `add_rate_limited` on error, `forget` on
//! success, `done` always.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::Resource;
use kubegen_runtime::events::{Event, EventRecorder};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::informer::{
    DeletedObject, HandlerFns, HandlerRegistration, HasSynced, wait_for_cache_sync,
};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
use tokio::sync::watch;

use crate::apis::samplecontroller::v1alpha1::{Foo, FooStatus};
use kubegen::kubernetes;
use kubegen::kubernetes::listers::apps::v1::DeploymentLister;

use crate::generated::clientset::Clientset;
use crate::generated::informers::InformerFactory;
use crate::generated::listers::samplecontroller_k8s_io::v1alpha1::FooLister;

/// The controller's name: `reportingController` of its events and its queue's name.
pub const CONTROLLER_NAME: &str = "sample-controller";
/// Event reason when a Foo is synced.
pub const SUCCESS_SYNCED: &str = "Synced";
/// Event reason when the Deployment a Foo names exists and is not owned by it.
pub const ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";
/// How long [`Controller::run`] waits for the caches before giving up.
pub const CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a Foo could not be synced (the key is retried with backoff), or the controller
/// could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the API server failed; the message names the call.
    #[error(transparent)]
    Api(#[from] kubegen_runtime::error::Error),
    /// The Deployment exists and is controlled by something else: it is not adopted.
    #[error("Resource {deployment:?} already exists and is not managed by Foo {foo}")]
    NotOwned {
        /// The Deployment's name.
        deployment: String,
        /// The Foo's key.
        foo: ObjectKey,
    },
    /// The informer caches did not sync in time.
    #[error("failed to wait for the Foo and Deployment caches to sync")]
    CacheSync,
}

/// Watches Foos and Deployments and makes every Foo's Deployment match it.
pub struct Controller {
    /// Built-in types: client-go's `kubeclientset`.
    kubeclientset: kubernetes::clientset::Clientset,
    /// Our types: client-go's `sampleclientset`.
    clientset: Clientset,
    foos: FooLister,
    deployments: DeploymentLister,
    synced: Vec<HandlerRegistration>,
    queue: RateLimitingQueue<ObjectKey>,
    recorder: EventRecorder,
    processed: watch::Sender<u64>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts).
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
    ) -> Arc<Self> {
        // Both generated factories hand out informers of the one shared factory, as
        // client-go's kubeInformerFactory and exampleInformerFactory do.
        let shared = kubegen::gentype::InformerFactory::new(factory.clone());
        let kube_informers = kubernetes::informers::InformerFactory::new(shared.clone());
        let sample_informers = InformerFactory::new(shared);
        let foo_informer = sample_informers.samplecontroller().v1alpha1().foos();
        let deployments = kube_informers.apps().v1().deployments();
        let deployment_informer = deployments.informer();
        let queue = RateLimitingQueue::with_config(
            default_controller_rate_limiter(),
            QueueConfig::default().name(CONTROLLER_NAME),
        );
        let foos = foo_informer.lister();
        let foo_informer = foo_informer.informer();

        tracing::info!("setting up event handlers");
        // A Foo changed: reconcile it.
        let foo_registration = foo_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let queue = queue.clone();
                    move |foo: Arc<Foo>, _| queue.add(ObjectKey::of(foo.as_ref()))
                })
                .on_update({
                    let queue = queue.clone();
                    move |_, foo: Arc<Foo>| queue.add(ObjectKey::of(foo.as_ref()))
                }),
        );
        // A Deployment changed: reconcile the Foo that controls it, if any. Periodic
        // resyncs deliver unchanged objects; those are skipped.
        let deployment_registration = deployment_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let (queue, foos) = (queue.clone(), foos.clone());
                    move |d: Arc<Deployment>, _| enqueue_owner(&queue, &foos, d.as_ref())
                })
                .on_update({
                    let (queue, foos) = (queue.clone(), foos.clone());
                    move |old: Arc<Deployment>, new: Arc<Deployment>| {
                        if old.metadata.resource_version != new.metadata.resource_version {
                            enqueue_owner(&queue, &foos, new.as_ref());
                        }
                    }
                })
                .on_delete({
                    let (queue, foos) = (queue.clone(), foos.clone());
                    move |gone: DeletedObject<Deployment>| {
                        enqueue_owner(&queue, &foos, gone.object().as_ref())
                    }
                }),
        );

        Arc::new(Self {
            kubeclientset: kubernetes::clientset::Clientset::new(client.clone()),
            clientset: Clientset::new(client),
            foos,
            deployments: deployments.lister(),
            synced: vec![foo_registration, deployment_registration],
            queue,
            recorder,
            processed: watch::Sender::new(0),
        })
    }

    /// Waits for the caches, runs `workers` workers until `shutdown` resolves, then stops
    /// taking new keys and drains the queue (keys being processed are finished).
    pub async fn run(
        self: Arc<Self>,
        workers: usize,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), Error> {
        tracing::info!("waiting for informer caches to sync");
        let synced: Vec<&dyn HasSynced> = self.synced.iter().map(|r| r as &dyn HasSynced).collect();
        if !wait_for_cache_sync(CACHE_SYNC_TIMEOUT, &synced).await {
            return Err(Error::CacheSync);
        }
        tracing::info!(workers, "starting workers");
        let handles: Vec<_> = (0..workers.max(1))
            .map(|_| {
                let controller = Arc::clone(&self);
                tokio::spawn(async move { while controller.process_next_work_item().await {} })
            })
            .collect();
        shutdown.await;
        tracing::info!("shutting down workers, draining the queue");
        self.queue.shut_down_with_drain().await;
        for handle in handles {
            if let Err(error) = handle.await {
                tracing::error!(%error, "a worker panicked");
            }
        }
        tracing::info!("workers stopped");
        Ok(())
    }

    /// A receiver of the number of keys processed so far: it changes after every
    /// reconcile, which is when convergence checks are worth running.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.processed.subscribe()
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        &self.queue
    }

    /// The Foo lister.
    pub fn foos(&self) -> &FooLister {
        &self.foos
    }

    /// The Deployment lister.
    pub fn deployments(&self) -> &DeploymentLister {
        &self.deployments
    }

    /// Takes one key, syncs it, and tells the queue how it went. Returns false once the
    /// queue is shut down and drained.
    async fn process_next_work_item(&self) -> bool {
        let Some(key) = self.queue.get().await else {
            return false;
        };
        match self.sync_handler(&key).await {
            Ok(()) => {
                self.queue.forget(&key);
                tracing::info!(foo = %key, "successfully synced");
            }
            Err(error) => {
                tracing::warn!(foo = %key, error = %error_chain(&error), "error syncing; requeuing");
                self.queue.add_rate_limited(key.clone());
            }
        }
        self.queue.done(&key);
        self.processed.send_modify(|n| *n += 1);
        true
    }

    /// Brings the Deployment of the Foo `key` in line with it, and the Foo's status in
    /// line with the Deployment.
    async fn sync_handler(&self, key: &ObjectKey) -> Result<(), Error> {
        let namespace = key.namespace().unwrap_or_default();
        let Some(foo) = self.foos.foos(namespace).get(key.name()) else {
            // Deleted: the garbage collector removes the owned Deployment.
            tracing::info!(foo = %key, "foo in work queue no longer exists");
            return Ok(());
        };
        let deployment_name = foo.spec.deployment_name.as_str();
        if deployment_name.is_empty() {
            // The schema forbids it; an old object may still have it. Retrying cannot help.
            tracing::error!(foo = %key, "deployment name must be specified");
            return Ok(());
        }

        let deployments = self.kubeclientset.apps_v1().deployments(namespace);
        let mut deployment = match self.deployments.deployments(namespace).get(deployment_name) {
            Some(existing) => existing,
            None => {
                tracing::info!(foo = %key, deployment = deployment_name, "creating deployment");
                Arc::new(deployments.create(&new_deployment(&foo)).await?)
            }
        };

        if !is_controlled_by(&deployment, &foo) {
            let error = Error::NotOwned {
                deployment: deployment_name.to_owned(),
                foo: key.clone(),
            };
            self.recorder.publish(
                foo.as_ref(),
                Event::warning(ERR_RESOURCE_EXISTS, "Adopt", error.to_string()),
            );
            return Err(error);
        }

        let replicas = foo.desired_replicas();
        if deployment.spec.replicas != Some(replicas) {
            tracing::info!(
                foo = %key,
                deployment = deployment_name,
                from = ?deployment.spec.replicas,
                to = replicas,
                "fixing deployment replicas"
            );
            let mut fixed = Deployment::clone(&deployment);
            fixed.spec.replicas = Some(replicas);
            // The cached resourceVersion makes this optimistic: a newer Deployment fails
            // with a conflict and the key is retried with fresh state.
            deployment = Arc::new(deployments.update(&fixed).await?);
        }

        self.update_foo_status(&foo, &deployment).await?;
        self.recorder.publish(
            foo.as_ref(),
            Event::normal(SUCCESS_SYNCED, "Sync", "Foo synced successfully"),
        );
        Ok(())
    }

    async fn update_foo_status(&self, foo: &Foo, deployment: &Deployment) -> Result<(), Error> {
        let available = deployment
            .status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0);
        if foo.status.as_ref().map(|s| s.available_replicas) == Some(available) {
            return Ok(());
        }
        // Cached objects are shared: change a copy.
        let mut copy = foo.clone();
        copy.status = Some(FooStatus {
            available_replicas: available,
        });
        let namespace = foo.metadata.namespace.as_deref().unwrap_or_default();
        self.clientset
            .samplecontroller_v1alpha1()
            .foos(namespace)
            .update_status(&copy)
            .await?;
        tracing::info!(foo = %ObjectKey::of(foo), available, "updated foo status");
        Ok(())
    }
}

/// Enqueues the Foo that controls `deployment`, if it is a Foo that exists.
fn enqueue_owner(queue: &RateLimitingQueue<ObjectKey>, foos: &FooLister, deployment: &Deployment) {
    let Some(owner) = controller_of(deployment) else {
        return;
    };
    if owner.kind != "Foo" || owner.api_version != Foo::api_version(&()) {
        return;
    }
    let namespace = deployment.metadata.namespace.as_deref().unwrap_or_default();
    match foos.foos(namespace).get(&owner.name) {
        Some(foo) if foo.metadata.uid.as_deref() == Some(owner.uid.as_str()) => {
            queue.add(ObjectKey::of(foo.as_ref()));
        }
        _ => {
            tracing::debug!(deployment = ?deployment.metadata.name, "ignoring orphaned deployment")
        }
    }
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

/// The Deployment a Foo asks for: nginx pods labelled for the Foo, owned by it.
pub fn new_deployment(foo: &Foo) -> Deployment {
    let name = foo.metadata.name.clone().unwrap_or_default();
    let labels: BTreeMap<String, String> = [
        ("app".to_owned(), "nginx".to_owned()),
        ("controller".to_owned(), name),
    ]
    .into();
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

/// An error and its sources, `: `-separated, for one-line logs.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
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
    fn not_owned_message_names_both_objects() {
        let error = Error::NotOwned {
            deployment: "web-app".into(),
            foo: ObjectKey::namespaced("ns", "web"),
        };
        assert_eq!(
            error.to_string(),
            "Resource \"web-app\" already exists and is not managed by Foo ns/web"
        );
    }
}
