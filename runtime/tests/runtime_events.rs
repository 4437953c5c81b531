//! The recorder against the testkit API server.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::api::events::v1::Event as KubeEvent;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};

use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::events::*;
use kubegen_testkit::{ApiServer, Failure, Matcher, Verb};

fn config() -> EventRecorderConfig {
    EventRecorderConfig::new("example.com/test-controller")
        .reporting_instance("test-0")
        .retry(Backoff {
            duration: Duration::from_millis(1),
            ..DEFAULT_WRITE_RETRY
        })
}

async fn configmap(server: &ApiServer, name: &str) -> ConfigMap {
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<ConfigMap>::namespaced(server.client(), "default")
        .create(&PostParams::default(), &cm)
        .await
        .unwrap()
}

async fn events(server: &ApiServer, namespace: &str) -> Vec<KubeEvent> {
    Api::<KubeEvent>::namespaced(server.client(), namespace)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
}

#[tokio::test]
async fn records_an_event_with_every_field() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config());
    recorder.publish(
        &cm,
        Event::normal("Synced", "Reconcile", "settings are up to date"),
    );
    recorder.flush().await;

    let events = events(&server, "default").await;
    assert_eq!(events.len(), 1);
    let event = &events[0];
    assert!(
        event
            .metadata
            .name
            .as_deref()
            .unwrap()
            .starts_with("settings.")
    );
    assert_eq!(
        event.reporting_controller.as_deref(),
        Some("example.com/test-controller")
    );
    assert_eq!(event.reporting_instance.as_deref(), Some("test-0"));
    assert_eq!(event.action.as_deref(), Some("Reconcile"));
    assert_eq!(event.reason.as_deref(), Some("Synced"));
    assert_eq!(event.note.as_deref(), Some("settings are up to date"));
    assert_eq!(event.type_.as_deref(), Some("Normal"));
    assert!(event.event_time.is_some());
    assert!(event.series.is_none());
    let regarding = event.regarding.as_ref().unwrap();
    assert_eq!(regarding.kind.as_deref(), Some("ConfigMap"));
    assert_eq!(regarding.api_version.as_deref(), Some("v1"));
    assert_eq!(regarding.namespace.as_deref(), Some("default"));
    assert_eq!(regarding.name.as_deref(), Some("settings"));
    assert_eq!(regarding.uid, cm.metadata.uid);
    recorder.shutdown().await;
}

#[tokio::test]
async fn repeats_become_one_event_with_a_series() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config());
    for _ in 0..3 {
        recorder.publish(&cm, Event::warning("Failed", "Sync", "boom"));
    }
    recorder.publish(&cm, Event::warning("Failed", "Sync", "a different failure"));
    recorder.flush().await;

    let mut events = events(&server, "default").await;
    events.sort_by_key(|e| e.note.clone());
    assert_eq!(events.len(), 2);
    assert!(
        events[0].series.is_none(),
        "a different note is a different event"
    );
    let series = events[1].series.as_ref().expect("repeats make a series");
    assert_eq!(series.count, 3);
    assert!(series.last_observed_time >= *events[1].event_time.as_ref().unwrap());
    recorder.shutdown().await;
}

#[tokio::test]
async fn a_repeat_of_a_deleted_event_recreates_it_keeping_the_count() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config());
    let event = Event::normal("Synced", "Sync", "ok");
    recorder.publish(&cm, event.clone());
    recorder.flush().await;
    let first = events(&server, "default").await.remove(0);
    Api::<KubeEvent>::namespaced(server.client(), "default")
        .delete(
            first.metadata.name.as_deref().unwrap(),
            &DeleteParams::default(),
        )
        .await
        .unwrap();

    recorder.publish(&cm, event.clone());
    recorder.flush().await;
    let recreated = events(&server, "default").await;
    assert_eq!(recreated.len(), 1);
    assert_ne!(recreated[0].metadata.name, first.metadata.name);
    assert_eq!(recreated[0].series.as_ref().map(|s| s.count), Some(2));

    // The series continues on the new Event.
    recorder.publish(&cm, event);
    recorder.flush().await;
    let continued = events(&server, "default").await;
    assert_eq!(continued.len(), 1);
    assert_eq!(continued[0].series.as_ref().map(|s| s.count), Some(3));
    recorder.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_full_queue_drops_instead_of_blocking() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config().queue_capacity(2));
    // No await between publishes: on this single-threaded runtime the writer cannot run,
    // so the queue holds two and the rest are dropped, and publish returned every time.
    for i in 0..6 {
        recorder.publish(&cm, Event::normal("Synced", "Sync", format!("event {i}")));
    }
    assert_eq!(recorder.dropped(), 4);
    recorder.flush().await;
    let mut notes: Vec<_> = events(&server, "default")
        .await
        .into_iter()
        .filter_map(|e| e.note)
        .collect();
    notes.sort();
    assert_eq!(notes, ["event 0", "event 1"]);
    recorder.shutdown().await;
}

#[tokio::test]
async fn transient_failures_are_retried_and_permanent_ones_dropped() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config());
    let creates = Matcher::any().verb(Verb::Create).resource("events");
    server
        .faults()
        .fail(Failure::status(500).times(2).matching(creates.clone()));
    recorder.publish(&cm, Event::normal("Synced", "Sync", "after two 500s"));
    recorder.flush().await;
    assert_eq!(events(&server, "default").await.len(), 1);

    // 403 is not retried: the event is dropped and the next repeat starts afresh.
    server
        .faults()
        .fail(Failure::status(403).times(1).matching(creates));
    recorder.publish(&cm, Event::normal("Other", "Sync", "forbidden once"));
    recorder.flush().await;
    assert_eq!(events(&server, "default").await.len(), 1);
    recorder.publish(&cm, Event::normal("Other", "Sync", "forbidden once"));
    recorder.flush().await;
    let all = events(&server, "default").await;
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|e| e.series.is_none()));
    recorder.shutdown().await;
}

#[tokio::test]
async fn cluster_scoped_objects_get_events_in_default_and_shutdown_stops_recording() {
    let server = ApiServer::start().await.unwrap();
    let ns = Api::<Namespace>::all(server.client())
        .get("kube-public")
        .await
        .unwrap();
    let recorder = EventRecorder::new(server.client(), config());
    recorder.publish(&ns, Event::normal("Seen", "Observe", "a namespace"));
    recorder.shutdown().await;
    let events = events(&server, "default").await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].regarding.as_ref().and_then(|r| r.kind.as_deref()),
        Some("Namespace")
    );

    recorder.publish(&ns, Event::normal("Seen", "Observe", "after shutdown"));
    assert_eq!(recorder.dropped(), 1);
    recorder.flush().await; // returns at once
}

#[tokio::test]
async fn repeats_across_updates_of_the_object_fold_into_one_series() {
    let server = ApiServer::start().await.unwrap();
    let cm = configmap(&server, "settings").await;
    let recorder = EventRecorder::new(server.client(), config());
    let event = Event::normal("Synced", "Sync", "ok");
    recorder.publish(&cm, event.clone());
    let mut updated = cm.clone();
    updated.data = Some([("k".to_owned(), "v".to_owned())].into());
    let updated = Api::<ConfigMap>::namespaced(server.client(), "default")
        .replace("settings", &PostParams::default(), &updated)
        .await
        .unwrap();
    assert_ne!(
        updated.metadata.resource_version,
        cm.metadata.resource_version
    );
    recorder.publish(&updated, event);
    recorder.flush().await;
    let events = events(&server, "default").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].series.as_ref().map(|s| s.count), Some(2));
    assert!(
        events[0]
            .regarding
            .as_ref()
            .unwrap()
            .resource_version
            .is_none()
    );
    recorder.shutdown().await;
}
