//! What an operator's wiring gets from `kubegen::operator::Manager` against the testkit
//! API server: `ManagerOptions` reaching the controllers, an event recorder the manager
//! owns (in its RBAC, flushed before every convergence check, shut down by `stop`),
//! `RunningManager::wait_converged` over its controllers and `until_shutdown`.

#![cfg(feature = "embedded")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, ObjectReference};
use k8s_openapi::api::events::v1::Event as ApiEvent;
use kube::api::{Api, ListParams, ObjectMeta, PostParams};
use kubegen::operator::{Converged, Manager, ManagerOptions};
use kubegen::runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler,
};
use kubegen::runtime::events::{Event, EventRecorder, EventRecorderConfig};
use kubegen::runtime::key::ObjectKey;
use kubegen::testkit::ApiServer;

/// The failure guard of every wait.
const GUARD: Duration = Duration::from_secs(60);

/// Publishes a `Seen` event about every ConfigMap it reconciles.
struct Noting(EventRecorder);

fn reference(key: &ObjectKey) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("ConfigMap".into()),
        name: Some(key.name().to_owned()),
        namespace: key.namespace().map(str::to_owned),
        ..ObjectReference::default()
    }
}

impl Reconciler for Noting {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        self.0
            .publish_ref(reference(key), Event::normal("Seen", "Reconcile", "seen"));
        Ok(Action::Done)
    }
}

/// The ConfigMaps the server holds Events about.
struct Noted(BTreeSet<String>);

impl fmt::Display for Noted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "events about {:?}", self.0)
    }
}

impl Converged for Noted {
    fn converged(&self) -> bool {
        self.0 == BTreeSet::from(["a".to_owned(), "b".to_owned()])
    }
}

async fn noted(client: &kube::Client) -> Result<Noted, kube::Error> {
    let events = Api::<ApiEvent>::namespaced(client.clone(), "default")
        .list(&ListParams::default())
        .await?;
    Ok(Noted(
        events
            .items
            .into_iter()
            .filter_map(|event| event.regarding.and_then(|r| r.name))
            .collect(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_recorder_and_convergence_come_from_the_manager() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let config_maps = Api::<ConfigMap>::namespaced(client.clone(), "default");
    for name in ["a", "b"] {
        let object = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        config_maps
            .create(&PostParams::default(), &object)
            .await
            .unwrap();
    }

    let options = ManagerOptions {
        workers: 3,
        resync: Duration::ZERO,
        ..ManagerOptions::default()
    };
    let mut manager = Manager::new(client.clone()).options(&options);
    let config = manager.controller_config(ControllerConfig::default().name("noter"));
    assert_eq!(config.worker_count(), 3, "the options' workers");
    let recorder = manager.event_recorder(EventRecorderConfig::new("noter"));
    let controller = Controller::new(config);
    controller.watches(
        &manager.factory().informer::<ConfigMap>(),
        EnqueueObject::new(controller.queue()),
    );
    manager.add(controller, Noting(recorder.clone()));

    let (cluster_role, _) = manager.rbac("noter");
    let rules = cluster_role.rules.unwrap_or_default();
    let events = rules
        .iter()
        .find(|rule| rule.api_groups.as_deref() == Some(&["events.k8s.io".to_owned()]))
        .expect("a rule for the recorder's Events");
    assert_eq!(events.verbs, ["create", "patch"]);

    let running = manager.start().unwrap();
    // Each check runs after the recorder's queue is written: the last reconcile's Event
    // is on the server when the check that follows it reads.
    let report = tokio::time::timeout(GUARD, running.wait_converged(|| noted(&client)))
        .await
        .expect("an Event about every ConfigMap");
    assert!(report.converged(), "{report}");
    assert_eq!(running.until_shutdown(async { 7 }).await, Some(7));

    running.stop().await.unwrap();
    let dropped = recorder.dropped();
    recorder.publish_ref(
        reference(&ObjectKey::namespaced("default", "a")),
        Event::normal("Late", "Reconcile", "after the stop"),
    );
    assert_eq!(
        recorder.dropped(),
        dropped + 1,
        "the manager's stop shut its recorder down"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_options_a_controller_keeps_its_own_workers() {
    let server = ApiServer::start().await.unwrap();
    let manager = Manager::new(server.client());
    let config = manager.controller_config(ControllerConfig::default().workers(5));
    assert_eq!(config.worker_count(), 5);
    let manager = manager.options(&ManagerOptions::default());
    let config = manager.controller_config(ControllerConfig::default().workers(5));
    assert_eq!(config.worker_count(), 2, "the options' workers replace it");
    let (cluster_role, _) = manager.rbac("quiet");
    assert!(
        cluster_role.rules.unwrap_or_default().is_empty(),
        "no recorder, no informer: no rule"
    );
    server.shutdown().await;
}
