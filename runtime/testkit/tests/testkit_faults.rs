//! Fault injection: dropped watches, failing requests, compaction, delays, paused
//! event delivery; and kube's own watcher converging through them.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod testkit_support;

use std::collections::BTreeSet;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kubegen_testkit::{ApiServer, Delay, Failure, Matcher, Verb};
use serde_json::json;
use testkit_support::{api_error, configmap};

fn name_of(event: &WatchEvent<ConfigMap>) -> Option<String> {
    match event {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => {
            o.metadata.name.clone()
        }
        _ => None,
    }
}

#[tokio::test]
async fn drop_watches_ends_every_open_watch_now() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let params = WatchParams::default().disable_bookmarks();
    let mut first = api.watch(&params, "0").await.expect("watch").boxed();
    let mut second = api.watch(&params, "0").await.expect("watch").boxed();
    assert_eq!(server.faults().open_watches(), 2);
    server.faults().drop_watches();
    assert!(first.next().await.is_none());
    assert!(second.next().await.is_none());
    assert_eq!(server.faults().open_watches(), 0);
    // New watches work afterwards.
    let mut third = api
        .watch(&params, &server.resource_version().to_string())
        .await
        .expect("watch")
        .boxed();
    api.create(&PostParams::default(), &configmap("after", "1"))
        .await
        .expect("create");
    let event = third.try_next().await.expect("event").expect("some");
    assert_eq!(name_of(&event).as_deref(), Some("after"));
}

#[tokio::test]
async fn failures_hit_only_the_next_matching_requests() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    server.faults().fail(
        Failure::status(500)
            .times(2)
            .matching(Matcher::any().verb(Verb::Get).resource("configmaps")),
    );
    assert!(
        api.list(&ListParams::default()).await.is_ok(),
        "lists do not match"
    );
    assert_eq!(api_error(api.get("a").await), (500, "InternalError".into()));
    assert_eq!(api_error(api.get("a").await), (500, "InternalError".into()));
    assert!(api.get("a").await.is_ok(), "only two failures were armed");

    server
        .faults()
        .fail(Failure::status(409).matching(Matcher::any().resource("configmaps/status")));
    assert!(
        api.patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"x": "y"}}))
        )
        .await
        .is_ok()
    );
    server.faults().clear();
}

#[tokio::test]
async fn watches_can_be_failed_too() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    server
        .faults()
        .fail(Failure::status(500).matching(Matcher::any().verb(Verb::Watch)));
    let failed = api.watch(&WatchParams::default(), "0").await.map(|_| ());
    assert_eq!(api_error(failed), (500, "InternalError".into()));
    assert!(
        api.watch(&WatchParams::default(), "0").await.is_ok(),
        "the next watch works"
    );
}

#[tokio::test]
async fn kube_retries_see_real_503s() {
    let server = ApiServer::start().await.expect("start");
    let retrying = kube::Client::try_from(server.kube_config()).expect("client with retries");
    let api: Api<ConfigMap> = Api::default_namespaced(retrying);
    server.faults().fail(
        Failure::status(503)
            .times(2)
            .matching(Matcher::any().verb(Verb::Create)),
    );
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("kube retried through two 503s");
}

#[tokio::test]
async fn compaction_expires_old_resource_versions() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let old = created.metadata.resource_version.expect("rv");
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"value": "2"}})),
    )
    .await
    .expect("patch");
    server.faults().compact();
    let mut stream = api
        .watch(&WatchParams::default(), &old)
        .await
        .expect("watch")
        .boxed();
    match stream.try_next().await.expect("event") {
        Some(WatchEvent::Error(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
        }
        other => panic!("expected 410, got {other:?}"),
    }
    // The current version is still fine.
    let current = server.resource_version().to_string();
    let mut fresh = api
        .watch(&WatchParams::default().disable_bookmarks(), &current)
        .await
        .expect("watch")
        .boxed();
    api.create(&PostParams::default(), &configmap("b", "1"))
        .await
        .expect("b");
    assert_eq!(
        name_of(&fresh.try_next().await.expect("event").expect("some")).as_deref(),
        Some("b")
    );
}

#[tokio::test(start_paused = true)]
async fn delays_hold_matching_responses() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    server
        .faults()
        .delay(Delay::new(Duration::from_secs(10)).matching(Matcher::any().verb(Verb::Create)));
    let started = tokio::time::Instant::now();
    api.create(&PostParams::default(), &configmap("slow", "1"))
        .await
        .expect("create");
    assert!(
        started.elapsed() >= Duration::from_secs(10),
        "virtual time advanced by the delay"
    );
    let started = tokio::time::Instant::now();
    api.get("slow").await.expect("get");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "gets are not delayed"
    );
}

#[tokio::test(start_paused = true)]
async fn paused_events_are_delivered_in_order_on_resume() {
    // No periodic bookmarks in the way: only the one asked for while paused.
    let server = ApiServer::builder()
        .bookmark_interval(Duration::from_secs(1 << 30))
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let params = WatchParams::default().timeout(86_400);
    let mut stream = api
        .watch(&params, &server.resource_version().to_string())
        .await
        .expect("watch")
        .boxed();
    server.faults().pause_watches();
    for name in ["a", "b", "c"] {
        api.create(&PostParams::default(), &configmap(name, "1"))
            .await
            .expect("create");
    }
    server.faults().send_bookmarks();
    let held = tokio::time::timeout(Duration::from_secs(3600), stream.next()).await;
    assert!(
        held.is_err(),
        "nothing is delivered while paused (an hour of virtual time)"
    );
    server.faults().resume_watches();
    api.create(&PostParams::default(), &configmap("d", "1"))
        .await
        .expect("create after resume");
    let mut seen = Vec::new();
    while seen.len() < 5 {
        let event = stream.try_next().await.expect("event").expect("some");
        seen.push(match &event {
            WatchEvent::Bookmark(_) => "bookmark".to_owned(),
            other => name_of(other).expect("name"),
        });
    }
    assert_eq!(seen, ["a", "b", "c", "bookmark", "d"]);
}

#[tokio::test]
async fn kube_watcher_converges_through_dropped_watches_and_compaction() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b", "c"] {
        api.create(&PostParams::default(), &configmap(name, "1"))
            .await
            .expect("create");
    }
    let (store, writer) = reflector::store::<ConfigMap>();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let stream = reflector(
        writer,
        watcher(api.clone(), watcher::Config::default()).default_backoff(),
    );
    let driver = tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        while let Some(item) = stream.next().await {
            let expired =
                matches!(&item, Err(watcher::Error::WatchError(status)) if status.code == 410);
            if tx.send(expired).is_err() {
                break;
            }
        }
    });
    let state = |store: &reflector::Store<ConfigMap>| -> BTreeSet<(String, String)> {
        store
            .state()
            .iter()
            .map(|c| {
                (
                    c.metadata.name.clone().unwrap_or_default(),
                    c.data
                        .as_ref()
                        .map(|d| d["value"].clone())
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    let mut saw_expired = false;
    let wanted: BTreeSet<(String, String)> = [("a", "1"), ("b", "1"), ("c", "1")]
        .iter()
        .map(|(n, v)| ((*n).into(), (*v).into()))
        .collect();
    while state(&store) != wanted {
        saw_expired |= rx.recv().await.expect("watcher running");
    }

    // Hold events back, change things, forget history, and break the watch: the
    // watcher's resourceVersion is now older than anything kept.
    let faults = server.faults();
    faults.pause_watches();
    api.delete("a", &Default::default())
        .await
        .expect("delete a");
    api.patch(
        "b",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"value": "2"}})),
    )
    .await
    .expect("patch b");
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    api.create(&PostParams::default(), &configmap("d", "1"))
        .await
        .expect("create d");
    let wanted: BTreeSet<(String, String)> = [("b", "2"), ("c", "1"), ("d", "1")]
        .iter()
        .map(|(n, v)| ((*n).into(), (*v).into()))
        .collect();
    while state(&store) != wanted {
        saw_expired |= rx.recv().await.expect("watcher running");
    }
    assert!(
        saw_expired,
        "the watcher hit 410 Expired on its re-watch and relisted"
    );
    driver.abort();
}

#[tokio::test]
async fn restart_closes_connections_and_keeps_the_data_and_history() {
    let mut server = ApiServer::start().await.expect("start");
    let port = server.address().port();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let since = created.metadata.resource_version.clone().expect("rv");
    let mut open = api
        .watch(&WatchParams::default().disable_bookmarks(), &since)
        .await
        .expect("watch")
        .boxed();
    let before = server.resource_version();

    server.restart().await.expect("restart");
    assert!(
        open.next().await.is_none_or(|item| item.is_err()),
        "the open watch ended with the old process"
    );
    assert_eq!(server.address().port(), port, "same address");
    assert_eq!(server.resource_version(), before);
    // A client that had connections to the old process reconnects.
    let again = api.get("a").await.expect("get after restart");
    assert_eq!(again.metadata.uid, created.metadata.uid);
    assert_eq!(again.metadata.resource_version.as_deref(), Some(&*since));
    // The history survived: a watch from before the restart replays what followed.
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"value": "2"}})),
    )
    .await
    .expect("patch");
    let mut resumed = api
        .watch(&WatchParams::default().disable_bookmarks(), &since)
        .await
        .expect("watch")
        .boxed();
    match resumed.try_next().await.expect("event") {
        Some(WatchEvent::Modified(cm)) => {
            assert_eq!(cm.data.unwrap()["value"], "2");
        }
        other => panic!("expected the modification, got {other:?}"),
    }
    server.shutdown().await;
}
