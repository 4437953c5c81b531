//! The event handler: one log line per notification.

use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::Pod;
use kubegen::runtime::informer::{DeletedObject, EventHandler};
use kubegen::runtime::key::ObjectKey;
use tokio::sync::watch;

use crate::{Seen, lock};

/// Logs and counts pod notifications.
pub(crate) struct PodHandler {
    seen: Arc<Mutex<Seen>>,
    changes: Arc<watch::Sender<u64>>,
}

impl PodHandler {
    pub(crate) fn new(seen: Arc<Mutex<Seen>>, changes: Arc<watch::Sender<u64>>) -> Self {
        Self { seen, changes }
    }

    fn record(&self, update: impl FnOnce(&mut Seen)) {
        update(&mut lock(&self.seen));
        self.changes.send_modify(|n| *n += 1);
    }
}

pub(crate) fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("Unknown")
}

pub(crate) fn node(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .unwrap_or("<unscheduled>")
}

/// What changed between two versions of a pod, for the log line.
fn changes(old: &Pod, new: &Pod) -> String {
    let mut changed = Vec::new();
    if phase(old) != phase(new) {
        changed.push(format!("phase {} -> {}", phase(old), phase(new)));
    }
    if node(old) != node(new) {
        changed.push(format!("node {} -> {}", node(old), node(new)));
    }
    if old.metadata.labels != new.metadata.labels {
        changed.push(format!(
            "labels {:?} -> {:?}",
            old.metadata.labels.clone().unwrap_or_default(),
            new.metadata.labels.clone().unwrap_or_default()
        ));
    }
    if old.metadata.deletion_timestamp.is_none() && new.metadata.deletion_timestamp.is_some() {
        changed.push("terminating".to_owned());
    }
    if changed.is_empty() {
        "metadata or status details".to_owned()
    } else {
        changed.join(", ")
    }
}

impl EventHandler<Pod> for PodHandler {
    fn on_add(&mut self, pod: Arc<Pod>, in_initial_list: bool) {
        let key = ObjectKey::of(pod.as_ref());
        tracing::info!(pod = %key, phase = phase(&pod), node = node(&pod), initial = in_initial_list, "ADD");
        self.record(|seen| {
            seen.pods.insert(key, pod.metadata.resource_version.clone());
            seen.counts.adds += 1;
        });
    }

    fn on_update(&mut self, old: Arc<Pod>, new: Arc<Pod>) {
        let key = ObjectKey::of(new.as_ref());
        let resync = old.metadata.resource_version == new.metadata.resource_version;
        if resync {
            tracing::info!(pod = %key, phase = phase(&new), node = node(&new), "RESYNC");
        } else {
            tracing::info!(pod = %key, changed = %changes(&old, &new), "UPDATE");
        }
        self.record(|seen| {
            seen.pods.insert(key, new.metadata.resource_version.clone());
            if resync {
                seen.counts.resyncs += 1;
            } else {
                seen.counts.updates += 1;
            }
        });
    }

    fn on_delete(&mut self, gone: DeletedObject<Pod>) {
        let key = ObjectKey::of(gone.object().as_ref());
        tracing::info!(pod = %key, final_state_unknown = gone.is_final_state_unknown(), "DELETE");
        self.record(|seen| {
            seen.pods.remove(&key);
            seen.counts.deletes += 1;
        });
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{PodSpec, PodStatus};

    use super::*;

    #[test]
    fn describes_what_changed() {
        let old = Pod::default();
        let mut new = old.clone();
        new.spec = Some(PodSpec {
            node_name: Some("node-a".into()),
            ..Default::default()
        });
        new.status = Some(PodStatus {
            phase: Some("Running".into()),
            ..Default::default()
        });
        assert_eq!(
            changes(&old, &new),
            "phase Unknown -> Running, node <unscheduled> -> node-a"
        );
        assert_eq!(changes(&old, &old), "metadata or status details");
    }
}
