//! Sharded list and watch (KEP-5866) end to end against the testkit: the server-side
//! path (the testkit serves `shardSelector`, as an alpha server), and the client-side
//! path (the testkit ignores or refuses it), which must leave each shard's informer with
//! the same objects.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams, WatchEvent, WatchParams};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::informer::HandlerFns;
use kubegen_runtime::reflector::ListerWatcher;
use kubegen_runtime::shard::{ShardKey, ShardSelector};
use kubegen_testkit::{ApiServerConfig, ShardSelectors};
use tokio::sync::Notify;

const SHARDS: u32 = 4;
const NAMESPACE: &str = "default";

fn config_map(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        data: Some([("v".to_owned(), value.to_owned())].into()),
        ..ConfigMap::default()
    }
}

fn shard(index: u32) -> ShardSelector {
    ShardSelector::even(ShardKey::Uid, index, SHARDS).unwrap()
}

/// Names of the server's ConfigMaps in `shard`, computed from their uids.
async fn names_in(api: &Api<ConfigMap>, shard: &ShardSelector) -> BTreeSet<String> {
    let list = api.list(&ListParams::default()).await.unwrap();
    list.items
        .iter()
        .filter(|cm| shard.matches(&cm.metadata))
        .map(|cm| cm.metadata.name.clone().unwrap())
        .collect()
}

async fn create(api: &Api<ConfigMap>, prefix: &str, n: usize) {
    for i in 0..n {
        let object = config_map(&format!("{prefix}-{i}"), "0");
        api.create(&PostParams::default(), &object).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_testkit_serves_shard_selectors_on_list_and_watch() {
    let server = ApiServerConfig::default().start().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(server.client(), NAMESPACE);
    create(&api, "cm", 40).await;

    // List: only the shard's objects, and the selector echoed back.
    let mut seen = BTreeSet::new();
    for i in 0..SHARDS {
        let page = api
            .list_shard(&ListParams::default(), &shard(i))
            .await
            .unwrap();
        assert!(page.served, "the testkit echoes shardInfo");
        let names: BTreeSet<String> = page
            .list
            .items
            .iter()
            .map(|cm| cm.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(names, names_in(&api, &shard(i)).await, "shard {i}");
        assert!(
            page.list
                .items
                .iter()
                .all(|cm| shard(i).matches(&cm.metadata))
        );
        seen.extend(names);
    }
    assert_eq!(seen.len(), 40, "the shards partition the objects");

    // Watch: only the shard's events, up to a bookmark sent after every write.
    let rv = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let params = WatchParams {
        bookmarks: true,
        ..WatchParams::default()
    };
    let mut stream = api.watch_shard(&params, &rv, &shard(0)).await.unwrap();
    create(&api, "late", 40).await;
    server.faults().send_bookmarks();
    let mut added = BTreeSet::new();
    loop {
        match stream.next().await.unwrap().unwrap() {
            WatchEvent::Added(cm) => {
                assert!(shard(0).matches(&cm.metadata), "{:?}", cm.metadata.name);
                added.insert(cm.metadata.name.clone().unwrap());
            }
            WatchEvent::Bookmark(_) => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    let expected: BTreeSet<String> = names_in(&api, &shard(0))
        .await
        .into_iter()
        .filter(|name| name.starts_with("late-"))
        .collect();
    assert_eq!(added, expected);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_shard_selector_is_a_400_that_says_why() {
    let server = ApiServerConfig::default().start().await.unwrap();
    let url = "/api/v1/namespaces/default/configmaps?shardSelector=shardRange(object.metadata.name,%20%270x0%27,%20%270x1%27)";
    let request = http::Request::get(url).body(Vec::new()).unwrap();
    match server.client().request_text(request).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 400);
            assert!(
                status.message.contains("unsupported field"),
                "{}",
                status.message
            );
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_the_selector_sends_everything() {
    let server = ApiServerConfig::default()
        .shard_selectors(ShardSelectors::Ignored)
        .start()
        .await
        .unwrap();
    let api: Api<ConfigMap> = Api::namespaced(server.client(), NAMESPACE);
    create(&api, "cm", 10).await;
    let page = api
        .list_shard(&ListParams::default(), &shard(0))
        .await
        .unwrap();
    assert!(!page.served);
    assert_eq!(page.list.items.len(), 10);
    server.shutdown().await;
}

/// Four sharded informers (one per shard) over the server's ConfigMaps through writes
/// after their sync: each caches exactly its shard, whatever the server does with the
/// selector.
async fn sharded_informers_cache_exactly_their_shard(handling: ShardSelectors) {
    let server = ApiServerConfig::default()
        .shard_selectors(handling)
        .start()
        .await
        .unwrap();
    let api: Api<ConfigMap> = Api::namespaced(server.client(), NAMESPACE);
    create(&api, "cm", 40).await;
    let changed = Arc::new(Notify::new());
    let mut informers = Vec::new();
    let mut factories = Vec::new();
    for i in 0..SHARDS {
        let factory = SharedInformerFactory::new(server.client()).shard(shard(i));
        let informer = factory.informer::<ConfigMap>();
        let (a, u, d) = (changed.clone(), changed.clone(), changed.clone());
        informer.add_event_handler(
            HandlerFns::<ConfigMap>::new()
                .on_add(move |_, _| a.notify_one())
                .on_update(move |_, _| u.notify_one())
                .on_delete(move |_| d.notify_one()),
        );
        factory.start();
        informers.push(informer);
        factories.push(factory);
    }
    for factory in &factories {
        let synced = factory.wait_for_cache_sync(Duration::from_secs(30)).await;
        assert!(synced.values().all(|s| *s), "{synced:?}");
    }
    // Watched changes: creates, updates and deletes.
    create(&api, "late", 20).await;
    for i in 0..10 {
        let name = format!("cm-{i}");
        api.replace(&name, &PostParams::default(), &{
            let mut cm = api.get(&name).await.unwrap();
            cm.data = Some([("v".to_owned(), "1".to_owned())].into());
            cm
        })
        .await
        .unwrap();
    }
    for i in 10..20 {
        api.delete(&format!("cm-{i}"), &DeleteParams::default())
            .await
            .unwrap();
    }
    let expected: Vec<BTreeSet<String>> = {
        let mut sets = Vec::new();
        for i in 0..SHARDS {
            sets.push(names_in(&api, &shard(i)).await);
        }
        sets
    };
    let cached = || -> Vec<BTreeSet<String>> {
        informers
            .iter()
            .map(|informer| {
                informer
                    .store()
                    .list()
                    .iter()
                    .map(|cm| cm.metadata.name.clone().unwrap())
                    .collect()
            })
            .collect()
    };
    let updated = || {
        informers.iter().all(|informer| {
            informer
                .store()
                .list()
                .iter()
                // cm-0 to cm-9, the updated ones.
                .filter(|cm| {
                    cm.metadata
                        .name
                        .as_deref()
                        .is_some_and(|n| n.starts_with("cm-") && n.len() == 4)
                })
                .all(|cm| {
                    cm.data
                        .as_ref()
                        .and_then(|d| d.get("v"))
                        .is_some_and(|v| v == "1")
                })
        })
    };
    tokio::time::timeout(Duration::from_secs(30), async {
        while cached() != expected || !updated() {
            changed.notified().await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("caches {:?}, expected {expected:?}", cached()));
    let total: usize = expected.iter().map(BTreeSet::len).sum();
    assert_eq!(total, 50, "60 created, 10 deleted");
    for factory in factories {
        factory.shutdown().await;
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharded_informers_on_a_serving_server() {
    sharded_informers_cache_exactly_their_shard(ShardSelectors::Served).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharded_informers_filter_client_side_on_a_server_that_ignores_the_selector() {
    sharded_informers_cache_exactly_their_shard(ShardSelectors::Ignored).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharded_informers_filter_client_side_on_a_server_that_refuses_the_selector() {
    sharded_informers_cache_exactly_their_shard(ShardSelectors::Refused).await;
}
