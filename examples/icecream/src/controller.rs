//! The Icecream controller: pod events enqueue the Icecreams whose selector matches the
//! pod (before or after the change); a sync recomputes one Icecream's status from the
//! pod lister and writes it through the status subresource when it differs, and keeps
//! the Icecream's entry in its namespace's [menu](crate::menu), under a finalizer that
//! removes the entry before a deleted Icecream goes. The loop
//! (workers, backoff, drain) is [`kubegen::runtime::controller`]'s.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Patch, PatchParams};
use kubegen::kubernetes;
use kubegen::kubernetes::listers::core::v1::PodLister;
use kubegen::operator::{Manager, ManagerError};
use kubegen::runtime::controller::{
    self as runtime, Action, ControllerConfig, EnqueueMapped, EnqueueObject, ErrorChain, Reconciler,
};
use kubegen::runtime::error::Error as ApiError;
use kubegen::runtime::events::{Event, EventRecorder};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::finalizer::{self, Event as FinalizerEvent, finalize};
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::lister::Selector;
use kubegen::runtime::workqueue::RateLimitingQueue;
use serde_json::json;
use tokio::sync::watch;

use crate::apis::icecream::v1::{Icecream, IcecreamStatus, PodPlacement};
use crate::generated::clientset::Clientset;
use crate::generated::informers::InformerFactory;
use crate::generated::listers::icecream_example_com::v1::IcecreamLister;
use crate::menu::{self, FINALIZER, MENU};

/// The controller's name: `reportingController` of its events, its queue's name and
/// the `controller` label of its metrics.
pub const CONTROLLER_NAME: &str = "icecream-controller";
/// Event reason when an Icecream's selector cannot be used.
pub const REASON_INVALID_SELECTOR: &str = "InvalidSelector";
/// Event reason when an Icecream's pods moved.
pub const REASON_PLACED: &str = "Placed";
/// How long [`Controller::run`] waits for the caches.
pub const CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an Icecream could not be synced (it is retried with backoff), or the controller
/// could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Applying or cleaning up under the finalizer failed (the message names which, and
    /// the object), or the finalizer could not be added or removed.
    #[error(transparent)]
    Finalize(#[from] finalizer::Error<ApiError>),
    /// The reconcile loop could not run (its caches did not sync, the Lease was lost...).
    #[error(transparent)]
    Run(#[from] ManagerError),
}

/// Keeps every Icecream's status in step with where its pods run: the reconciler, with
/// the runtime controller that runs it.
pub struct Controller {
    client: kube::Client,
    icecreams: IcecreamLister,
    pods: PodLister,
    recorder: EventRecorder,
    reconcile_loop: runtime::Controller,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("loop", &self.reconcile_loop)
            .finish_non_exhaustive()
    }
}

/// The keys of the Icecreams of a pod's namespace whose selector matches it.
fn icecreams_selecting(icecreams: &IcecreamLister, pod: &Pod) -> Vec<ObjectKey> {
    let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
    icecreams
        .namespace(namespace)
        .list(&Selector::everything())
        .into_iter()
        // An invalid selector is reported by the Icecream's own sync.
        .filter(|icecream| {
            Selector::try_from(&icecream.spec.selector)
                .is_ok_and(|s| s.matches_labels(pod.metadata.labels.as_ref()))
        })
        .map(|icecream| ObjectKey::of(icecream.as_ref()))
        .collect()
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts) and
    /// a reconcile loop configured by `config` (workers, metrics) under the controller's
    /// name.
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
        config: ControllerConfig,
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
        let reconcile_loop = runtime::Controller::new(
            config
                .name(CONTROLLER_NAME)
                .cache_sync_timeout(CACHE_SYNC_TIMEOUT),
        );
        reconcile_loop.watches(
            &icecreams.informer(),
            EnqueueObject::new(reconcile_loop.queue()),
        );
        // A pod changed: the Icecreams selecting it before or after the change (an
        // Icecream the pod no longer matches must drop it). Resyncs: nothing moved.
        let lister = icecreams.lister();
        reconcile_loop.watches(
            &pods.informer(),
            EnqueueMapped::new(reconcile_loop.queue(), move |pod: &Pod| {
                icecreams_selecting(&lister, pod)
            })
            .skip_resyncs(),
        );
        Arc::new(Self {
            client,
            icecreams: icecreams.lister(),
            pods: pods.lister(),
            recorder,
            reconcile_loop,
        })
    }

    /// Adds the reconcile loop to `manager`: from its start, it waits for the caches,
    /// reconciles (under the manager's Lease, if any) until stopped, then drains the
    /// queue.
    pub fn add_to(self: &Arc<Self>, manager: &mut Manager) {
        manager.add(self.reconcile_loop.clone(), Arc::clone(self));
    }

    /// A receiver of the number of keys processed so far.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.reconcile_loop.processed()
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        self.reconcile_loop.queue()
    }

    /// The Icecream lister.
    pub fn icecreams(&self) -> &IcecreamLister {
        &self.icecreams
    }

    /// The Pod lister.
    pub fn pods(&self) -> &PodLister {
        &self.pods
    }

    /// Syncs one Icecream under the controller's [finalizer](FINALIZER): the first sync
    /// adds it, the next ones [apply](Self::apply); once the Icecream is being deleted,
    /// [cleans up](Self::cleanup) and removes the finalizer, which lets it go.
    async fn sync_handler(&self, key: &ObjectKey) -> Result<Action, Error> {
        let namespace = key.namespace().unwrap_or_default();
        let Some(icecream) = self.icecreams.namespace(namespace).get(key.name()) else {
            return Ok(Action::Done); // gone: its cleanup ran before
        };
        // The generated client (status subresource, every verb) adds and removes the
        // finalizer.
        let icecreams = Clientset::new(self.client.clone())
            .icecream_v1()
            .icecreams(namespace);
        let finalized = finalize(&icecreams, FINALIZER, icecream, |event| async move {
            match event {
                FinalizerEvent::Apply(icecream) => self.apply(key, &icecream).await,
                FinalizerEvent::Cleanup(icecream) => self.cleanup(key, &icecream).await,
            }
        })
        .await;
        match finalized {
            Ok(outcome) => Ok(outcome.into_value().unwrap_or_default()),
            // The Icecream changed since the cache read it: decide again on the new one.
            Err(error) if error.is_conflict() => {
                tracing::debug!(icecream = %key, error = %ErrorChain(&error), "icecream changed; requeuing");
                Ok(Action::Requeue)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Writes the Icecream's menu entry and its status from the pods it selects.
    async fn apply(&self, key: &ObjectKey, icecream: &Icecream) -> Result<Action, ApiError> {
        let namespace = key.namespace().unwrap_or_default();
        let selector = match Selector::try_from(&icecream.spec.selector) {
            Ok(selector) => selector,
            Err(error) => {
                // Retrying cannot fix the spec; its next update is enqueued anyway.
                self.recorder.publish(
                    icecream,
                    Event::warning(REASON_INVALID_SELECTOR, "Select", error.to_string()),
                );
                return Ok(Action::Done);
            }
        };
        let pods = self.pods.namespace(namespace).list(&selector);
        let status = status_for(&pods, icecream.metadata.generation);
        menu::set_entry(
            &self.client,
            namespace,
            key.name(),
            Some(&menu::entry(&status)),
        )
        .await?;
        if icecream.status.as_ref() == Some(&status) {
            return Ok(Action::Done);
        }
        // A merge patch of the status subresource: the status is the controller's alone,
        // and an update carrying the cached Icecream's resourceVersion would be refused
        // (409) whenever the cache has not yet seen the previous status write.
        let patch = json!({ "status": {
            "observedGeneration": status.observed_generation,
            "pods": status.pods,
            "nodes": status.nodes,
        }});
        let written = Clientset::new(self.client.clone())
            .icecream_v1()
            .icecreams(namespace)
            .patch_status(key.name(), &PatchParams::default(), &Patch::Merge(&patch))
            .await;
        match written {
            Ok(_) => {}
            // Deleted meanwhile: nothing left to report on.
            Err(error) if error.is_not_found() => {
                tracing::debug!(icecream = %key, error = %ErrorChain(&error), "icecream is gone");
                return Ok(Action::Done);
            }
            Err(error) => return Err(error),
        }
        let placement = describe(&status);
        tracing::info!(icecream = %key, %placement, "updated status");
        self.recorder.publish(
            icecream,
            Event::normal(REASON_PLACED, "UpdateStatus", placement),
        );
        Ok(Action::Done)
    }

    /// The Icecream is being deleted: removes its menu entry. The finalizer, and with it
    /// the Icecream, stays until this succeeds.
    async fn cleanup(&self, key: &ObjectKey, _icecream: &Icecream) -> Result<Action, ApiError> {
        let namespace = key.namespace().unwrap_or_default();
        menu::set_entry(&self.client, namespace, key.name(), None).await?;
        tracing::info!(icecream = %key, "cleanup: removed its entry from ConfigMap {namespace}/{MENU}; releasing finalizer {FINALIZER}");
        Ok(Action::Done)
    }
}

impl Reconciler for Controller {
    type Error = Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Error> {
        self.sync_handler(key).await
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
