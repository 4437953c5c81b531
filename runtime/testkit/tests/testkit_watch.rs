//! Watch semantics: initial state, replay from a resourceVersion, 410 Expired as an
//! ERROR event, bookmarks, timeouts, streaming lists and selector transitions.

mod testkit_support;

use std::time::Duration;

use futures::{Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{configmap, create_namespace, get};

/// A compact view of an event: type, name and resourceVersion.
fn describe(event: &WatchEvent<ConfigMap>) -> (String, String, u64) {
    let (kind, meta) = match event {
        WatchEvent::Added(o) => ("ADDED", &o.metadata),
        WatchEvent::Modified(o) => ("MODIFIED", &o.metadata),
        WatchEvent::Deleted(o) => ("DELETED", &o.metadata),
        WatchEvent::Bookmark(b) => {
            return (
                "BOOKMARK".into(),
                String::new(),
                b.metadata.resource_version.parse().expect("rv"),
            );
        }
        WatchEvent::Error(status) => {
            return (
                "ERROR".into(),
                status.reason.clone(),
                u64::from(status.code),
            );
        }
    };
    let rv = meta
        .resource_version
        .as_deref()
        .expect("rv")
        .parse()
        .expect("numeric rv");
    (kind.into(), meta.name.clone().expect("name"), rv)
}

async fn next(
    stream: &mut (impl Stream<Item = kube::Result<WatchEvent<ConfigMap>>> + Unpin),
) -> (String, String, u64) {
    let event = stream
        .try_next()
        .await
        .expect("watch error")
        .expect("stream ended early");
    describe(&event)
}

async fn patch_value(api: &Api<ConfigMap>, name: &str, value: &str) {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"value": value}})),
    )
    .await
    .expect("patch");
}

#[tokio::test]
async fn watch_from_zero_starts_with_the_current_state() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    api.create(&PostParams::default(), &configmap("b", "1"))
        .await
        .expect("b");
    let mut stream = api
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .expect("watch")
        .boxed();
    assert_eq!(next(&mut stream).await.0, "ADDED");
    assert_eq!(next(&mut stream).await.1, "b");
    api.create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("c");
    patch_value(&api, "c", "2").await;
    api.delete("c", &Default::default()).await.expect("delete");
    let events: Vec<(String, String)> = {
        let mut events = Vec::new();
        for _ in 0..3 {
            let (kind, name, _) = next(&mut stream).await;
            events.push((kind, name));
        }
        events
    };
    assert_eq!(
        events,
        [
            ("ADDED".into(), "c".into()),
            ("MODIFIED".into(), "c".into()),
            ("DELETED".into(), "c".into())
        ]
    );
}

#[tokio::test]
async fn watch_from_a_resource_version_replays_what_came_after() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let a = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    let from = a.metadata.resource_version.expect("rv");
    patch_value(&api, "a", "2").await;
    api.create(&PostParams::default(), &configmap("b", "1"))
        .await
        .expect("b");
    api.delete("a", &Default::default()).await.expect("delete");
    let mut stream = api
        .watch(&WatchParams::default().disable_bookmarks(), &from)
        .await
        .expect("watch")
        .boxed();
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(next(&mut stream).await);
    }
    let kinds: Vec<(&str, &str)> = seen
        .iter()
        .map(|(k, n, _)| (k.as_str(), n.as_str()))
        .collect();
    assert_eq!(kinds, [("MODIFIED", "a"), ("ADDED", "b"), ("DELETED", "a")]);
    assert!(
        seen.windows(2).all(|w| w[0].2 < w[1].2),
        "events come in resourceVersion order: {seen:?}"
    );
    assert!(seen[0].2 > from.parse::<u64>().expect("rv"));
}

#[tokio::test]
async fn an_expired_resource_version_gets_a_410_error_event() {
    let server = ApiServer::builder()
        .history_window(2)
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let a = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    let old = a.metadata.resource_version.expect("rv");
    for value in ["2", "3", "4"] {
        patch_value(&api, "a", value).await;
    }
    // Over raw HTTP: status 200 and one ERROR event carrying a 410 Expired Status.
    let raw = get(
        &server,
        &format!("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={old}"),
    )
    .await;
    assert_eq!(raw.status, 200);
    let lines = raw.lines();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "ERROR");
    assert_eq!(lines[0]["object"]["kind"], "Status");
    assert_eq!(lines[0]["object"]["code"], 410);
    assert_eq!(lines[0]["object"]["reason"], "Expired");
    // Through kube: a WatchEvent::Error with code 410, which is what watchers relist on.
    let mut stream = api
        .watch(&WatchParams::default(), &old)
        .await
        .expect("watch")
        .boxed();
    assert_eq!(
        next(&mut stream).await,
        ("ERROR".into(), "Expired".into(), 410)
    );
    assert!(
        stream.next().await.is_none(),
        "the stream ends after the error"
    );
}

#[tokio::test]
async fn bookmarks_come_periodically_and_on_request() {
    let server = ApiServer::builder()
        .bookmark_interval(Duration::from_millis(20))
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    let mut stream = api
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    assert_eq!(next(&mut stream).await.0, "ADDED");
    let periodic = next(&mut stream).await;
    assert_eq!(periodic.0, "BOOKMARK");
    assert_eq!(periodic.2, server.resource_version());

    let quiet = ApiServer::builder()
        .bookmark_interval(Duration::from_secs(3600))
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(quiet.client());
    let mut with = api
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    let mut without = api
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .expect("watch")
        .boxed();
    // Make sure both watches are registered before asking for bookmarks.
    api.create(&PostParams::default(), &configmap("x", "1"))
        .await
        .expect("x");
    assert_eq!(next(&mut with).await.1, "x");
    assert_eq!(next(&mut without).await.1, "x");
    quiet.faults().send_bookmarks();
    api.create(&PostParams::default(), &configmap("y", "1"))
        .await
        .expect("y");
    let bookmark = next(&mut with).await;
    assert_eq!(bookmark.0, "BOOKMARK");
    assert_eq!(next(&mut with).await.1, "y");
    assert_eq!(
        next(&mut without).await.1,
        "y",
        "no bookmark without allowWatchBookmarks"
    );
}

#[tokio::test]
async fn timeout_seconds_ends_the_stream() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut stream = api
        .watch(&WatchParams::default().timeout(1), "0")
        .await
        .expect("watch")
        .boxed();
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn send_initial_events_ends_with_the_initial_events_end_bookmark() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &configmap(name, "1"))
            .await
            .expect("create");
    }
    let mut stream = api
        .watch(&WatchParams::default().initial_events(), "")
        .await
        .expect("watch")
        .boxed();
    assert_eq!(next(&mut stream).await.1, "a");
    assert_eq!(next(&mut stream).await.1, "b");
    match stream.try_next().await.expect("event").expect("bookmark") {
        WatchEvent::Bookmark(bookmark) => {
            assert_eq!(
                bookmark
                    .metadata
                    .annotations
                    .get("k8s.io/initial-events-end")
                    .map(String::as_str),
                Some("true")
            );
            assert_eq!(
                bookmark.metadata.resource_version,
                server.resource_version().to_string()
            );
        }
        other => panic!("expected the initial-events-end bookmark, got {other:?}"),
    }
    api.create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("c");
    assert_eq!(next(&mut stream).await.1, "c");
    // Without allowWatchBookmarks the server rejects it, as a real one does.
    let raw = get(&server, "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan").await;
    assert_eq!(raw.status, 422);
}

#[tokio::test]
async fn objects_moving_across_a_label_selector_are_added_and_deleted() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    let params = WatchParams::default().labels("app=web").disable_bookmarks();
    let mut stream = api
        .watch(&params, &server.resource_version().to_string())
        .await
        .expect("watch")
        .boxed();
    let label = |app: &str| Patch::Merge(json!({"metadata": {"labels": {"app": app}}}));
    api.patch("a", &PatchParams::default(), &label("web"))
        .await
        .expect("enter");
    api.patch("a", &PatchParams::default(), &label("web"))
        .await
        .expect("no-op");
    patch_value(&api, "a", "2").await;
    api.patch("a", &PatchParams::default(), &label("db"))
        .await
        .expect("leave");
    api.patch("a", &PatchParams::default(), &label("web"))
        .await
        .expect("enter again");
    let mut kinds = Vec::new();
    for _ in 0..4 {
        kinds.push(next(&mut stream).await.0);
    }
    assert_eq!(kinds, ["ADDED", "MODIFIED", "DELETED", "ADDED"]);
}

#[tokio::test]
async fn namespaced_and_field_selected_watches_see_only_their_objects() {
    let server = ApiServer::start().await.expect("start");
    create_namespace(&server, "other").await;
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let other: Api<ConfigMap> = Api::namespaced(server.client(), "other");
    let params = WatchParams::default().disable_bookmarks();
    let mut in_default = api.watch(&params, "0").await.expect("watch").boxed();
    let by_name = WatchParams::default()
        .fields("metadata.name=b")
        .disable_bookmarks();
    let all: Api<ConfigMap> = Api::all(server.client());
    let mut named_b = all.watch(&by_name, "0").await.expect("watch").boxed();
    other
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("other a");
    other
        .create(&PostParams::default(), &configmap("b", "1"))
        .await
        .expect("other b");
    api.create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("default c");
    assert_eq!(next(&mut in_default).await.1, "c");
    assert_eq!(next(&mut named_b).await.1, "b");
}

#[tokio::test]
async fn shutdown_ends_open_watches() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("a");
    let mut stream = api
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    assert_eq!(next(&mut stream).await.1, "a");
    let faults = server.faults();
    assert_eq!(faults.open_watches(), 1);
    server.shutdown().await;
    // The stream ends (cleanly or with a transport error) instead of hanging, the
    // server no longer tracks it, and nothing answers any more.
    let rest: Vec<_> = stream.by_ref().collect().await;
    assert!(
        rest.iter().all(|e| !matches!(e, Ok(WatchEvent::Added(_)))),
        "{rest:?}"
    );
    assert_eq!(faults.open_watches(), 0);
    assert!(api.list(&Default::default()).await.is_err());
}

#[tokio::test]
async fn kube_watcher_in_streaming_list_mode_syncs_and_follows() {
    use kube::runtime::watcher;

    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &configmap(name, "1"))
            .await
            .expect("create");
    }
    let mut events =
        watcher::watcher(api.clone(), watcher::Config::default().streaming_lists()).boxed();
    let mut initial = Vec::new();
    loop {
        match events.try_next().await.expect("watcher").expect("event") {
            watcher::Event::Init => {}
            watcher::Event::InitApply(cm) => initial.push(cm.metadata.name.expect("name")),
            watcher::Event::InitDone => break,
            other => panic!("unexpected before InitDone: {other:?}"),
        }
    }
    assert_eq!(initial, ["a", "b"]);
    api.create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("create c");
    match events.try_next().await.expect("watcher").expect("event") {
        watcher::Event::Apply(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("c")),
        other => panic!("expected Apply(c), got {other:?}"),
    }
}

#[tokio::test]
async fn dropping_the_server_ends_open_watches() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut stream = api
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .expect("watch")
        .boxed();
    drop(server);
    let rest: Vec<_> = stream.by_ref().collect().await;
    assert!(
        rest.iter().all(|e| e.is_err()),
        "nothing but a transport error after the drop: {rest:?}"
    );
}

#[tokio::test]
async fn shutdown_leaves_no_tasks_behind() {
    let metrics = tokio::runtime::Handle::current().metrics();
    let baseline = metrics.num_alive_tasks();
    let server = ApiServer::builder()
        .bookmark_interval(Duration::from_millis(5))
        .start()
        .await
        .expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let mut stream = api
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch")
        .boxed();
    assert_eq!(next(&mut stream).await.1, "a");
    assert!(metrics.num_alive_tasks() > baseline);
    server.shutdown().await;
    let _ = stream.by_ref().collect::<Vec<_>>().await;
    drop(stream);
    drop(api);
    // Connection tasks end once the server closed them; the timeout only guards a hang.
    tokio::time::timeout(Duration::from_secs(30), async {
        while metrics.num_alive_tasks() > baseline {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("every task of the server and its connections ended");
}
