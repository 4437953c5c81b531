//! The level-driven view: a reconciler that logs where each changed pod stands now,
//! read from the lister, once per burst of changes rather than once per notification.

use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::Pod;
use kubegen::runtime::controller::{Action, Reconciler};
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::lister::Lister;
use tokio::sync::watch;

use crate::handler::{node, phase};
use crate::{Seen, lock};

/// Logs one `STATE` line per reconciled pod (or `GONE` once it is deleted).
pub(crate) struct PodStates {
    pods: Lister<Pod>,
    seen: Arc<Mutex<Seen>>,
    changes: Arc<watch::Sender<u64>>,
}

impl PodStates {
    pub(crate) fn new(
        pods: Lister<Pod>,
        seen: Arc<Mutex<Seen>>,
        changes: Arc<watch::Sender<u64>>,
    ) -> Self {
        Self {
            pods,
            seen,
            changes,
        }
    }
}

impl Reconciler for PodStates {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        let current = self.pods.get_key(key);
        match &current {
            Some(pod) => {
                tracing::info!(pod = %key, phase = phase(pod), node = node(pod), "STATE");
            }
            None => tracing::info!(pod = %key, "GONE"),
        }
        {
            let mut seen = lock(&self.seen);
            seen.reconciles += 1;
            match current {
                Some(pod) => {
                    seen.states
                        .insert(key.clone(), pod.metadata.resource_version.clone());
                }
                None => {
                    seen.states.remove(key);
                }
            }
        }
        self.changes.send_modify(|n| *n += 1);
        Ok(Action::Done)
    }
}
