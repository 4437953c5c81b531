//! List semantics: label and field selectors, pagination, resourceVersion rules.

mod testkit_support;

use k8s_openapi::api::core::v1::{ConfigMap, Pod, PodSpec, Secret};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, VersionMatch};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{api_error, configmap, create_namespace, get, meta};

async fn labelled(api: &Api<ConfigMap>, name: &str, labels: &[(&str, &str)]) {
    let mut cm = configmap(name, "1");
    cm.metadata.labels = Some(
        labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    );
    api.create(&PostParams::default(), &cm)
        .await
        .expect("create");
}

async fn names(api: &Api<ConfigMap>, params: &ListParams) -> Vec<String> {
    api.list(params)
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect()
}

#[tokio::test]
async fn label_selectors_equality_and_set_based() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    labelled(&api, "a", &[("app", "web"), ("tier", "front")]).await;
    labelled(&api, "b", &[("app", "db")]).await;
    labelled(&api, "c", &[("app", "cache"), ("tier", "back")]).await;
    labelled(&api, "d", &[]).await;
    let cases: &[(&str, &[&str])] = &[
        ("app=web", &["a"]),
        ("app==web", &["a"]),
        ("app!=web", &["b", "c", "d"]),
        ("app in (web,db)", &["a", "b"]),
        ("app notin (web,db)", &["c", "d"]),
        ("tier", &["a", "c"]),
        ("!tier", &["b", "d"]),
        ("app,tier notin (front)", &["b", "c"]),
    ];
    for (selector, expected) in cases {
        assert_eq!(
            names(&api, &ListParams::default().labels(selector)).await,
            *expected,
            "{selector}"
        );
    }
    assert_eq!(
        api_error(api.list(&ListParams::default().labels("app in web")).await).0,
        400
    );
}

#[tokio::test]
async fn field_selectors_on_metadata_and_declared_fields() {
    let server = ApiServer::start().await.expect("start");
    create_namespace(&server, "other").await;
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    labelled(&api, "a", &[]).await;
    labelled(&api, "b", &[]).await;
    let other: Api<ConfigMap> = Api::namespaced(server.client(), "other");
    labelled(&other, "a", &[]).await;
    assert_eq!(
        names(&api, &ListParams::default().fields("metadata.name=b")).await,
        ["b"]
    );
    assert_eq!(
        names(&api, &ListParams::default().fields("metadata.name!=b")).await,
        ["a"]
    );
    let all: Api<ConfigMap> = Api::all(server.client());
    let in_other = all
        .list(&ListParams::default().fields("metadata.namespace=other"))
        .await
        .expect("list");
    assert_eq!(in_other.items.len(), 1);
    assert_eq!(
        all.list(&ListParams::default())
            .await
            .expect("list all")
            .items
            .len(),
        3
    );

    let pods: Api<Pod> = Api::default_namespaced(server.client());
    for (name, node) in [("p1", "n1"), ("p2", "n2")] {
        let pod = Pod {
            metadata: meta(name),
            spec: Some(PodSpec {
                node_name: Some(node.into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        pods.create(&PostParams::default(), &pod)
            .await
            .expect("pod");
    }
    let on_n2 = pods
        .list(&ListParams::default().fields("spec.nodeName=n2"))
        .await
        .expect("list pods");
    assert_eq!(on_n2.items[0].metadata.name.as_deref(), Some("p2"));
    assert_eq!(on_n2.items.len(), 1);

    let secrets: Api<Secret> = Api::default_namespaced(server.client());
    for (name, kind) in [("s1", "Opaque"), ("s2", "kubernetes.io/tls")] {
        let secret = Secret {
            metadata: meta(name),
            type_: Some(kind.into()),
            ..Default::default()
        };
        secrets
            .create(&PostParams::default(), &secret)
            .await
            .expect("secret");
    }
    let tls = secrets
        .list(&ListParams::default().fields("type=kubernetes.io/tls"))
        .await
        .expect("list secrets");
    assert_eq!(tls.items.len(), 1);
    assert_eq!(
        api_error(
            api.list(&ListParams::default().fields("data.value=1"))
                .await
        ),
        (400, "BadRequest".into())
    );
}

#[tokio::test]
async fn pagination_is_stable_against_concurrent_writes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for i in 0..10 {
        api.create(
            &PostParams::default(),
            &configmap(&format!("cm-{i:02}"), "1"),
        )
        .await
        .expect("create");
    }
    let first = api
        .list(&ListParams::default().limit(4))
        .await
        .expect("page 1");
    assert_eq!(first.items.len(), 4);
    assert_eq!(first.metadata.remaining_item_count, Some(6));
    let snapshot_rv = first.metadata.resource_version.clone();
    // Writes between pages do not show up in later pages of the same list.
    api.delete("cm-05", &Default::default())
        .await
        .expect("delete");
    api.create(&PostParams::default(), &configmap("cm-04a", "1"))
        .await
        .expect("insert");
    let mut seen: Vec<String> = first
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    let mut token = first.metadata.continue_.clone();
    while let Some(next) = token.filter(|t| !t.is_empty()) {
        let page = api
            .list(&ListParams::default().limit(4).continue_token(&next))
            .await
            .expect("next page");
        assert_eq!(
            page.metadata.resource_version, snapshot_rv,
            "pages share the first page's resourceVersion"
        );
        seen.extend(page.items.into_iter().filter_map(|c| c.metadata.name));
        let remaining = 10 - seen.len();
        assert_eq!(
            page.metadata.remaining_item_count,
            (remaining > 0).then_some(remaining as i64),
            "counted in the snapshot, not the latest state"
        );
        token = page.metadata.continue_;
    }
    let expected: Vec<String> = (0..10).map(|i| format!("cm-{i:02}")).collect();
    assert_eq!(seen, expected);
    let fresh = names(&api, &ListParams::default()).await;
    assert!(fresh.contains(&"cm-04a".to_owned()) && !fresh.contains(&"cm-05".to_owned()));
}

#[tokio::test]
async fn list_resource_version_rules() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let at_one = api.list(&ListParams::default()).await.expect("list");
    let rv = at_one.metadata.resource_version.clone().expect("list rv");
    assert_eq!(rv, server.resource_version().to_string());
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"value": "2"}})),
    )
    .await
    .expect("patch");
    api.create(&PostParams::default(), &configmap("b", "1"))
        .await
        .expect("create b");

    // Exact: the state at that version.
    let exact = api
        .list(&ListParams::default().at(&rv).matching(VersionMatch::Exact))
        .await
        .expect("exact list");
    assert_eq!(exact.items.len(), 1);
    assert_eq!(exact.items[0].data.as_ref().expect("data")["value"], "1");
    assert_eq!(
        exact.metadata.resource_version.as_deref(),
        Some(rv.as_str())
    );

    // NotOlderThan / "0": the latest state.
    let latest = api
        .list(
            &ListParams::default()
                .at(&rv)
                .matching(VersionMatch::NotOlderThan),
        )
        .await
        .expect("not older than");
    assert_eq!(latest.items.len(), 2);
    assert_eq!(
        api.list(&ListParams::default().at("0"))
            .await
            .expect("any")
            .items
            .len(),
        2
    );

    // A version from the future times out as on a real server.
    let future = (server.resource_version() + 100).to_string();
    assert_eq!(
        api_error(
            api.list(
                &ListParams::default()
                    .at(&future)
                    .matching(VersionMatch::NotOlderThan)
            )
            .await
        )
        .0,
        504
    );

    // After compaction the old version is gone: 410 Expired.
    server.faults().compact();
    assert_eq!(
        api_error(
            api.list(&ListParams::default().at(&rv).matching(VersionMatch::Exact))
                .await
        ),
        (410, "Expired".into())
    );
    // resourceVersionMatch without resourceVersion is invalid.
    assert_eq!(
        get(
            &server,
            "/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact"
        )
        .await
        .status,
        422
    );
}

#[tokio::test]
async fn continue_tokens_expire_with_compaction() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for i in 0..3 {
        api.create(&PostParams::default(), &configmap(&format!("cm-{i}"), "1"))
            .await
            .expect("create");
    }
    let first = api
        .list(&ListParams::default().limit(1))
        .await
        .expect("page 1");
    let token = first.metadata.continue_.expect("continue token");
    api.create(&PostParams::default(), &configmap("later", "1"))
        .await
        .expect("write after the snapshot");
    server.faults().compact();
    assert_eq!(
        api_error(
            api.list(&ListParams::default().limit(1).continue_token(&token))
                .await
        ),
        (410, "Expired".into())
    );
}

#[tokio::test]
async fn list_items_and_metadata_over_raw_http() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let response = get(&server, "/api/v1/namespaces/default/configmaps").await;
    assert_eq!(response.status, 200);
    let list = response.json();
    assert_eq!(list["kind"], "ConfigMapList");
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(
        list["metadata"]["resourceVersion"],
        server.resource_version().to_string()
    );
    assert_eq!(list["items"][0]["metadata"]["name"], "a");
}

#[tokio::test]
async fn core_and_events_k8s_io_events_with_their_field_selectors() {
    use k8s_openapi::api::core::v1::{Event as CoreEvent, ObjectReference};
    use k8s_openapi::api::events::v1::Event;

    let server = ApiServer::start().await.expect("start");
    let core: Api<CoreEvent> = Api::default_namespaced(server.client());
    for (name, object) in [("e1", "pod-a"), ("e2", "pod-b")] {
        let event = CoreEvent {
            metadata: meta(name),
            involved_object: ObjectReference {
                kind: Some("Pod".into()),
                name: Some(object.into()),
                ..Default::default()
            },
            reason: Some("Started".into()),
            ..Default::default()
        };
        core.create(&PostParams::default(), &event)
            .await
            .expect("core event");
    }
    let about_a = core
        .list(&ListParams::default().fields("involvedObject.name=pod-a,reason=Started"))
        .await
        .expect("list");
    assert_eq!(about_a.items.len(), 1);
    assert_eq!(about_a.items[0].metadata.name.as_deref(), Some("e1"));

    let events: Api<Event> = Api::default_namespaced(server.client());
    let event = Event {
        metadata: meta("n1"),
        event_time: None,
        reason: Some("Scheduled".into()),
        regarding: Some(ObjectReference {
            name: Some("pod-a".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    events
        .create(&PostParams::default(), &event)
        .await
        .expect("events.k8s.io event");
    assert_eq!(
        events
            .list(&ListParams::default().fields("regarding.name=pod-a"))
            .await
            .expect("list")
            .items
            .len(),
        1
    );
    assert_eq!(
        events
            .list(&ListParams::default().fields("regarding.name=pod-b"))
            .await
            .expect("list")
            .items
            .len(),
        0
    );
}

#[tokio::test]
async fn metadata_only_get_list_and_watch() {
    use futures::{StreamExt, TryStreamExt};
    use kube::api::{WatchEvent, WatchParams};

    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let meta = api.get_metadata("a").await.expect("get metadata");
    assert_eq!(meta.metadata.name.as_deref(), Some("a"));
    assert_eq!(meta.types.expect("types").kind, "PartialObjectMetadata");
    let list = api
        .list_metadata(&ListParams::default())
        .await
        .expect("list metadata");
    assert_eq!(list.items.len(), 1);
    assert!(list.metadata.resource_version.is_some());
    let mut stream = api
        .watch_metadata(&WatchParams::default(), "0")
        .await
        .expect("watch metadata")
        .boxed();
    match stream.try_next().await.expect("event").expect("some") {
        WatchEvent::Added(object) => {
            assert_eq!(object.metadata.name.as_deref(), Some("a"));
            assert_eq!(object.types.expect("types").api_version, "meta.k8s.io/v1");
        }
        other => panic!("expected ADDED, got {other:?}"),
    }
    let raw = testkit_support::raw(
        &server,
        "GET",
        "/api/v1/namespaces/default/configmaps/a",
        None,
        "",
    )
    .await;
    assert!(
        raw.json().get("data").is_some(),
        "a plain request still gets the whole object"
    );
}
