//! Many writers and many watchers at once: every watcher sees every change, in
//! resourceVersion order, none lost.

mod testkit_support;

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::configmap;

const WRITERS: usize = 4;
const WATCHERS: usize = 4;
const OBJECTS_PER_WRITER: usize = 10;
const UPDATES_PER_OBJECT: usize = 4;

/// (type, name, resourceVersion) of one event.
type Seen = (String, String, u64);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_and_watchers_lose_nothing() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let start = server.resource_version().to_string();
    // Each writer: create its objects, update each a few times, delete half of them.
    let writes_per_writer = OBJECTS_PER_WRITER * (2 + UPDATES_PER_OBJECT) + OBJECTS_PER_WRITER / 2;
    let expected_events = WRITERS * writes_per_writer;

    let mut watchers = Vec::new();
    for _ in 0..WATCHERS {
        let api = api.clone();
        let mut stream = api
            .watch(&WatchParams::default(), &start)
            .await
            .expect("watch")
            .boxed();
        watchers.push(tokio::spawn(async move {
            let mut seen: Vec<Seen> = Vec::new();
            while seen.len() < expected_events {
                let event = stream
                    .try_next()
                    .await
                    .expect("watch error")
                    .expect("stream ended early");
                let (kind, object) = match event {
                    WatchEvent::Added(o) => ("ADDED", o),
                    WatchEvent::Modified(o) => ("MODIFIED", o),
                    WatchEvent::Deleted(o) => ("DELETED", o),
                    WatchEvent::Bookmark(_) => continue,
                    WatchEvent::Error(status) => panic!("watch error event: {status:?}"),
                };
                let rv = object
                    .metadata
                    .resource_version
                    .expect("rv")
                    .parse()
                    .expect("numeric");
                seen.push((kind.to_owned(), object.metadata.name.expect("name"), rv));
            }
            seen
        }));
    }

    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let api = api.clone();
        writers.push(tokio::spawn(async move {
            let mut written: Vec<Seen> = Vec::new();
            for i in 0..OBJECTS_PER_WRITER {
                let name = format!("w{writer}-{i}");
                let created = api
                    .create(&PostParams::default(), &configmap(&name, "0"))
                    .await
                    .expect("create");
                let rv = |cm: &ConfigMap| {
                    cm.metadata
                        .resource_version
                        .clone()
                        .expect("rv")
                        .parse::<u64>()
                        .expect("rv")
                };
                written.push(("ADDED".into(), name.clone(), rv(&created)));
                for update in 1..=UPDATES_PER_OBJECT {
                    let patch = Patch::Merge(json!({"data": {"value": update.to_string()}}));
                    let patched = api
                        .patch(&name, &PatchParams::default(), &patch)
                        .await
                        .expect("patch");
                    written.push(("MODIFIED".into(), name.clone(), rv(&patched)));
                }
                let label = Patch::Merge(json!({"metadata": {"labels": {"done": "true"}}}));
                let labelled = api
                    .patch(&name, &PatchParams::default(), &label)
                    .await
                    .expect("label");
                written.push(("MODIFIED".into(), name.clone(), rv(&labelled)));
                if i % 2 == 0 {
                    let deleted = api
                        .delete(&name, &Default::default())
                        .await
                        .expect("delete")
                        .left()
                        .expect("object");
                    written.push(("DELETED".into(), name.clone(), rv(&deleted)));
                }
            }
            written
        }));
    }

    let mut all_writes: Vec<Seen> = Vec::new();
    for writer in writers {
        all_writes.extend(writer.await.expect("writer"));
    }
    all_writes.sort_by_key(|w| w.2);
    assert_eq!(all_writes.len(), expected_events);
    assert!(
        all_writes.windows(2).all(|w| w[0].2 < w[1].2),
        "every write has its own resourceVersion"
    );

    for watcher in watchers {
        let seen = watcher.await.expect("watcher");
        assert!(
            seen.windows(2).all(|w| w[0].2 < w[1].2),
            "events arrive in resourceVersion order"
        );
        assert_eq!(seen, all_writes, "each watcher saw exactly every write");
    }

    // Per object, the last event a watcher saw matches what was stored.
    let survivors: BTreeMap<String, String> = api
        .list(&Default::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .map(|c| {
            (
                c.metadata.name.expect("name"),
                c.metadata.resource_version.expect("rv"),
            )
        })
        .collect();
    assert_eq!(survivors.len(), WRITERS * OBJECTS_PER_WRITER / 2);
    for (name, rv) in &survivors {
        let last = all_writes
            .iter()
            .rev()
            .find(|w| &w.1 == name)
            .expect("written");
        assert_eq!(last.2.to_string(), *rv);
    }
}
