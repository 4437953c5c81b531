//! The Icecream controller: pod events enqueue the Icecreams whose selector matches the
//! pod (before or after the change); a sync recomputes one Icecream's status from the
//! pod lister and writes it through the status subresource when it differs.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kubegen::kubernetes;
use kubegen::kubernetes::listers::core::v1::PodLister;
use kubegen_runtime::events::{Event, EventRecorder};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::informer::{
    DeletedObject, HandlerFns, HandlerRegistration, HasSynced, wait_for_cache_sync,
};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::lister::Selector;
use kubegen_runtime::workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
use tokio::sync::watch;

use crate::apis::icecream::v1::{Icecream, IcecreamStatus, PodPlacement};
use crate::generated::clientset::Clientset;
use crate::generated::informers::InformerFactory;
use crate::generated::listers::icecream_example_com::v1::IcecreamLister;

/// The controller's name: `reportingController` of its events and its queue's name.
pub const CONTROLLER_NAME: &str = "icecream-controller";
/// Event reason when an Icecream's selector cannot be used.
pub const REASON_INVALID_SELECTOR: &str = "InvalidSelector";
/// Event reason when an Icecream's pods moved.
pub const REASON_PLACED: &str = "Placed";
/// How long [`Controller::run`] waits for the caches.
pub const CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an Icecream could not be synced (it is retried with backoff), or the controller
/// could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the API server failed; the message names the call.
    #[error(transparent)]
    Api(#[from] kubegen_runtime::error::Error),
    /// The informer caches did not sync in time.
    #[error("failed to wait for the Icecream and Pod caches to sync")]
    CacheSync,
}

/// Keeps every Icecream's status in step with where its pods run.
pub struct Controller {
    client: kube::Client,
    icecreams: IcecreamLister,
    pods: PodLister,
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

/// Enqueues the Icecreams of a pod's namespace whose selector matches it.
#[derive(Clone)]
struct PodEnqueuer {
    icecreams: IcecreamLister,
    queue: RateLimitingQueue<ObjectKey>,
}

impl PodEnqueuer {
    fn pod(&self, pod: &Pod) {
        let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
        for icecream in self
            .icecreams
            .icecreams(namespace)
            .list(&Selector::everything())
        {
            // An invalid selector is reported by the Icecream's own sync.
            let matches = Selector::try_from(&icecream.spec.selector)
                .is_ok_and(|s| s.matches_labels(pod.metadata.labels.as_ref()));
            if matches {
                self.queue.add(ObjectKey::of(icecream.as_ref()));
            }
        }
    }
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts).
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
    ) -> Arc<Self> {
        // Icecreams from our generated factory, Pods from the built-in groups' generated
        // factory; both hand out informers of the one shared factory.
        let shared = kubegen::gentype::InformerFactory::new(factory.clone());
        let icecreams = InformerFactory::new(shared.clone())
            .icecream()
            .v1()
            .icecreams();
        let pods = kubernetes::informers::InformerFactory::new(shared)
            .core()
            .v1()
            .pods();
        let icecream_informer = icecreams.informer();
        let pod_informer = pods.informer();
        let queue = RateLimitingQueue::with_config(
            default_controller_rate_limiter(),
            QueueConfig::default().name(CONTROLLER_NAME),
        );
        let icecream_registration = icecream_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let queue = queue.clone();
                    move |ice: Arc<Icecream>, _| queue.add(ObjectKey::of(ice.as_ref()))
                })
                .on_update({
                    let queue = queue.clone();
                    move |_, ice: Arc<Icecream>| queue.add(ObjectKey::of(ice.as_ref()))
                }),
        );
        let enqueuer = PodEnqueuer {
            icecreams: icecreams.lister(),
            queue: queue.clone(),
        };
        let pod_registration = pod_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let e = enqueuer.clone();
                    move |pod: Arc<Pod>, _| e.pod(&pod)
                })
                .on_update({
                    let e = enqueuer.clone();
                    move |old: Arc<Pod>, new: Arc<Pod>| {
                        if old.metadata.resource_version == new.metadata.resource_version {
                            return; // a resync: nothing moved
                        }
                        // Old labels too: an Icecream the pod no longer matches must drop it.
                        e.pod(&old);
                        e.pod(&new);
                    }
                })
                .on_delete(move |gone: DeletedObject<Pod>| enqueuer.pod(gone.object())),
        );
        Arc::new(Self {
            client,
            icecreams: icecreams.lister(),
            pods: pods.lister(),
            synced: vec![icecream_registration, pod_registration],
            queue,
            recorder,
            processed: watch::Sender::new(0),
        })
    }

    /// Waits for the caches, runs `workers` workers until `shutdown` resolves, then drains
    /// the queue.
    pub async fn run(
        self: Arc<Self>,
        workers: usize,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), Error> {
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
        Ok(())
    }

    /// A receiver of the number of keys processed so far.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.processed.subscribe()
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        &self.queue
    }

    /// The Icecream lister.
    pub fn icecreams(&self) -> &IcecreamLister {
        &self.icecreams
    }

    /// The Pod lister.
    pub fn pods(&self) -> &PodLister {
        &self.pods
    }

    async fn process_next_work_item(&self) -> bool {
        let Some(key) = self.queue.get().await else {
            return false;
        };
        match self.sync_handler(&key).await {
            Ok(()) => self.queue.forget(&key),
            Err(error) => {
                tracing::warn!(icecream = %key, %error, "error syncing; requeuing");
                self.queue.add_rate_limited(key.clone());
            }
        }
        self.queue.done(&key);
        self.processed.send_modify(|n| *n += 1);
        true
    }

    async fn sync_handler(&self, key: &ObjectKey) -> Result<(), Error> {
        let namespace = key.namespace().unwrap_or_default();
        let Some(icecream) = self.icecreams.icecreams(namespace).get(key.name()) else {
            return Ok(()); // deleted
        };
        let selector = match Selector::try_from(&icecream.spec.selector) {
            Ok(selector) => selector,
            Err(error) => {
                // Retrying cannot fix the spec; its next update is enqueued anyway.
                self.recorder.publish(
                    icecream.as_ref(),
                    Event::warning(REASON_INVALID_SELECTOR, "Select", error.to_string()),
                );
                return Ok(());
            }
        };
        let pods = self.pods.pods(namespace).list(&selector);
        let status = status_for(&pods, icecream.metadata.generation);
        if icecream.status.as_ref() == Some(&status) {
            return Ok(());
        }
        let mut copy = Icecream::clone(&icecream);
        copy.status = Some(status.clone());
        Clientset::new(self.client.clone())
            .icecream_v1()
            .icecreams(namespace)
            .update_status(&copy)
            .await?;
        let placement = describe(&status);
        tracing::info!(icecream = %key, %placement, "updated status");
        self.recorder.publish(
            icecream.as_ref(),
            Event::normal(REASON_PLACED, "UpdateStatus", placement),
        );
        Ok(())
    }
}

/// The status an Icecream should have for its matching `pods`.
pub fn status_for(pods: &[Arc<Pod>], generation: Option<i64>) -> IcecreamStatus {
    let mut placements: Vec<PodPlacement> = pods
        .iter()
        .map(|pod| PodPlacement {
            name: pod.metadata.name.clone().unwrap_or_default(),
            node_name: pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .filter(|n| !n.is_empty()),
        })
        .collect();
    placements.sort_by(|a, b| a.name.cmp(&b.name));
    let nodes: BTreeSet<String> = placements
        .iter()
        .filter_map(|p| p.node_name.clone())
        .collect();
    IcecreamStatus {
        observed_generation: generation,
        pods: placements,
        nodes: nodes.into_iter().collect(),
    }
}

/// `a on node-1, b unscheduled`, or `no pods`.
pub fn describe(status: &IcecreamStatus) -> String {
    if status.pods.is_empty() {
        return "no pods".to_owned();
    }
    status
        .pods
        .iter()
        .map(|p| match &p.node_name {
            Some(node) => format!("{} on {node}", p.name),
            None => format!("{} unscheduled", p.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::PodSpec;
    use kube::api::ObjectMeta;

    use super::*;

    fn pod(name: &str, node: Option<&str>) -> Arc<Pod> {
        Arc::new(Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            spec: Some(PodSpec {
                node_name: node.map(Into::into),
                ..Default::default()
            }),
            status: None,
        })
    }

    #[test]
    fn status_is_sorted_and_deduplicated() {
        let status = status_for(
            &[pod("b", Some("n2")), pod("a", Some("n2")), pod("c", None)],
            Some(3),
        );
        assert_eq!(status.observed_generation, Some(3));
        assert_eq!(
            status
                .pods
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert_eq!(status.nodes, ["n2"]);
        assert_eq!(describe(&status), "a on n2, b on n2, c unscheduled");
        assert_eq!(describe(&status_for(&[], None)), "no pods");
    }
}
