//! Informer behaviour on a scripted source: delivery order, late handlers, tombstones on
//! relist, slow handlers, resync, shutdown.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::WatchEvent;
use tokio::sync::mpsc;

use super::*;
use crate::reflector::tests::{Script, WatchScript, bookmark, cm, page, status};

type Events = mpsc::UnboundedReceiver<String>;

fn recorder() -> (HandlerFns<ConfigMap>, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    let name = |o: &ConfigMap| {
        format!(
            "{}@{}",
            o.metadata.name.clone().unwrap(),
            o.metadata.resource_version.clone().unwrap()
        )
    };
    let (a, u, d) = (tx.clone(), tx.clone(), tx);
    let handler = HandlerFns::new()
        .on_add(move |o, initial| {
            let _ = a.send(format!(
                "add {}{}",
                name(&o),
                if initial { " initial" } else { "" }
            ));
        })
        .on_update(move |old, new| {
            let _ = u.send(format!("update {} -> {}", name(&old), name(&new)));
        })
        .on_delete(move |gone| {
            let tag = if gone.is_final_state_unknown() {
                "tombstone"
            } else {
                "delete"
            };
            let _ = d.send(format!("{tag} {}", name(gone.object())));
        });
    (handler, rx)
}

async fn next(rx: &mut Events, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(rx.recv().await.expect("handler ended"));
    }
    out.sort();
    out
}

/// Waits, without a timer, until `item` has synced. A handler registration syncs on its
/// handler's OS thread, which tokio's paused clock does not wait for: a
/// `wait_for_cache_sync` timeout started while that thread is still between the last
/// replayed add and the synced marker is auto-advanced past at once and reports `false`.
async fn synced(item: &dyn HasSynced) {
    item.synced_receiver()
        .wait_for(|synced| *synced)
        .await
        .expect("the registration was dropped before it synced");
}

type Live = mpsc::UnboundedSender<kube::Result<WatchEvent<ConfigMap>>>;

fn live_watch(script: &Script) -> Live {
    let (tx, rx) = mpsc::unbounded_channel();
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Live(rx));
    tx
}

/// An informer over `script`, without request deadlines: its handlers run on OS threads,
/// which the paused clock does not wait for, so a pending deadline would be jumped to
/// while a test waits on a handler.
fn informer(script: &Arc<Script>, config: InformerConfig<ConfigMap>) -> SharedInformer<ConfigMap> {
    let reflector = config.reflector.clone().request_timeout(Duration::ZERO);
    SharedInformer::new(script.clone(), config.reflector(reflector))
}

#[tokio::test(start_paused = true)]
async fn handlers_see_initial_list_then_changes_in_order() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1"), cm("b", "2")], "2", None));
    let watch = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    let (handler, mut events) = recorder();
    let registration = informer.add_event_handler(handler);
    assert!(!informer.has_synced());
    informer.start();
    assert_eq!(
        next(&mut events, 2).await,
        ["add a@1 initial", "add b@2 initial"]
    );
    informer.wait_for_sync().await;
    synced(&registration).await;
    assert!(wait_for_cache_sync(Duration::from_secs(1), &[&informer, &registration]).await);

    watch.send(Ok(WatchEvent::Modified(cm("a", "3")))).unwrap();
    watch.send(Ok(WatchEvent::Added(cm("c", "4")))).unwrap();
    watch.send(Ok(WatchEvent::Deleted(cm("b", "5")))).unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(events.recv().await.unwrap());
    }
    assert_eq!(got, ["update a@1 -> a@3", "add c@4", "delete b@5"]);
    assert_eq!(informer.store().len(), 2);
    informer.shutdown().await;
    assert!(informer.is_stopped());
}

#[tokio::test(start_paused = true)]
async fn late_handler_gets_the_cache_replayed_once_then_changes() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "1", None));
    let watch = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    informer.start();
    informer.wait_for_sync().await;
    let (handler, mut events) = recorder();
    let registration = informer.add_event_handler(handler);
    assert_eq!(next(&mut events, 1).await, ["add a@1 initial"]);
    synced(&registration).await;
    assert!(registration.has_synced());
    watch.send(Ok(WatchEvent::Added(cm("b", "2")))).unwrap();
    assert_eq!(next(&mut events, 1).await, ["add b@2"]);
    informer.shutdown().await;
    assert!(events.recv().await.is_none(), "nothing else was delivered");
}

#[tokio::test(start_paused = true)]
async fn relist_after_gone_reports_vanished_objects_as_tombstones() {
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        page(vec![cm("a", "1"), cm("b", "2"), cm("c", "3")], "3", None),
        page(vec![cm("a", "1"), cm("b", "9"), cm("d", "9")], "9", None),
    ]);
    let watch = live_watch(&script);
    let _second = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    let (handler, mut events) = recorder();
    informer.add_event_handler(handler);
    informer.start();
    next(&mut events, 3).await;
    watch
        .send(Ok(WatchEvent::Error(status(410, "Expired", 0))))
        .unwrap();
    assert_eq!(
        next(&mut events, 3).await,
        ["add d@9", "tombstone c@3", "update b@2 -> b@9"]
    );
    informer.shutdown().await;
    assert!(
        events.recv().await.is_none(),
        "unchanged a@1 was not re-delivered"
    );
}

#[tokio::test(start_paused = true)]
async fn relist_reports_an_object_recreated_under_its_name_as_tombstone_then_add() {
    let with_uid = |name: &str, rv: &str, uid: &str| {
        let mut object = cm(name, rv);
        object.metadata.uid = Some(uid.into());
        object
    };
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        page(vec![with_uid("a", "1", "first")], "1", None),
        page(vec![with_uid("a", "7", "second")], "7", None),
    ]);
    let watch = live_watch(&script);
    let _second = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    let (tx, mut events) = mpsc::unbounded_channel();
    let (a, u, d) = (tx.clone(), tx.clone(), tx);
    let uid = |o: &ConfigMap| o.metadata.uid.clone().unwrap();
    informer.add_event_handler(
        HandlerFns::new()
            .on_add(move |o, _| {
                let _ = a.send(format!("add {}", uid(&o)));
            })
            .on_update(move |old, new| {
                let _ = u.send(format!("update {} -> {}", uid(&old), uid(&new)));
            })
            .on_delete(move |gone| {
                let _ = d.send(format!("delete {}", uid(gone.object())));
            }),
    );
    informer.start();
    assert_eq!(events.recv().await.unwrap(), "add first");
    watch
        .send(Ok(WatchEvent::Error(status(410, "Expired", 0))))
        .unwrap();
    // In this order: a handler keyed by name must end up with the key present.
    assert_eq!(events.recv().await.unwrap(), "delete first");
    assert_eq!(events.recv().await.unwrap(), "add second");
    informer.shutdown().await;
    assert!(events.recv().await.is_none(), "nothing else was delivered");
}

#[tokio::test(start_paused = true)]
async fn a_blocked_handler_does_not_stall_the_others() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "1", None));
    let watch = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let (blocked_tx, mut blocked_events) = mpsc::unbounded_channel();
    informer.add_event_handler(HandlerFns::new().on_add(move |o: Arc<ConfigMap>, _| {
        // Blocks until the test releases it.
        let _ = release_rx.recv();
        let _ = blocked_tx.send(o.metadata.name.clone().unwrap());
    }));
    let (handler, mut events) = recorder();
    informer.add_event_handler(handler);
    informer.start();
    for i in 2..50 {
        watch
            .send(Ok(WatchEvent::Added(cm(&format!("o{i}"), &i.to_string()))))
            .unwrap();
    }
    assert_eq!(
        next(&mut events, 49).await.len(),
        49,
        "the free handler got everything"
    );
    assert!(
        blocked_events.try_recv().is_err(),
        "the blocked handler got nothing yet"
    );
    for _ in 0..49 {
        release_tx.send(()).unwrap();
    }
    for _ in 0..49 {
        blocked_events.recv().await.unwrap();
    }
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn resync_redelivers_every_object_as_update_per_handler_period() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1"), cm("b", "2")], "2", None));
    let _watch = live_watch(&script);
    let informer = informer(
        &script,
        InformerConfig::default().resync(Duration::from_secs(60)),
    );
    let (with_resync, mut resynced) = recorder();
    let (without, mut quiet) = recorder();
    informer.add_event_handler(with_resync);
    informer.add_event_handler_with_resync(without, Duration::ZERO);
    let start = tokio::time::Instant::now();
    informer.start();
    next(&mut resynced, 2).await;
    next(&mut quiet, 2).await;
    assert_eq!(
        next(&mut resynced, 2).await,
        ["update a@1 -> a@1", "update b@2 -> b@2"]
    );
    assert!(
        start.elapsed() >= Duration::from_secs(60),
        "resync waited its period"
    );
    assert_eq!(
        next(&mut resynced, 2).await.len(),
        2,
        "and again a period later"
    );
    assert!(start.elapsed() >= Duration::from_secs(120));
    informer.shutdown().await;
    assert!(
        quiet.recv().await.is_none(),
        "a handler without resync got no resync"
    );
}

#[tokio::test(start_paused = true)]
async fn removed_handler_gets_nothing_more() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![], "1", None));
    let watch = live_watch(&script);
    let informer = informer(&script, InformerConfig::default());
    let (handler, mut events) = recorder();
    let registration = informer.add_event_handler(handler);
    let (other, mut other_events) = recorder();
    informer.add_event_handler(other);
    informer.start();
    informer.wait_for_sync().await;
    informer.remove_event_handler(&registration);
    watch.send(Ok(WatchEvent::Added(cm("a", "2")))).unwrap();
    assert_eq!(next(&mut other_events, 1).await, ["add a@2"]);
    assert!(events.recv().await.is_none());
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn sync_wait_times_out_while_lists_fail() {
    let script = Arc::new(Script::default());
    for _ in 0..20 {
        script
            .lists
            .lock()
            .unwrap()
            .push_back(Err(kube::Error::Api(status(500, "InternalError", 0))));
    }
    let informer = informer(&script, InformerConfig::default());
    informer.start();
    assert!(!wait_for_cache_sync(Duration::from_secs(10), &[&informer]).await);
    assert!(!informer.has_synced());
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn streaming_informer_syncs_at_the_end_bookmark() {
    let script = Arc::new(Script::default());
    let watch = live_watch(&script);
    let mut config = InformerConfig::default();
    config.reflector = config.reflector.streaming_initial_list(true);
    let informer = informer(&script, config);
    let (handler, mut events) = recorder();
    informer.add_event_handler(handler);
    informer.start();
    watch.send(Ok(WatchEvent::Added(cm("a", "1")))).unwrap();
    watch.send(bookmark("2", true)).unwrap();
    assert_eq!(next(&mut events, 1).await, ["add a@1 initial"]);
    informer.wait_for_sync().await;
    informer.shutdown().await;
}
