//! icecream end to end against the testkit API server: converge, then move a pod to
//! another node, relabel pods in and out of a selector, change a selector, break one,
//! and kill the watches, converging again each time.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use icecream::App;
use icecream::apis::icecream::v1::{Icecream, IcecreamStatus, PodPlacement};
use icecream::controller::REASON_INVALID_SELECTOR;
use icecream::demo::{self, DEMO_NAMESPACE, Report};
use icecream::menu::{FINALIZER, MENU};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::api::events::v1::Event as KubeEvent;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kubegen::operator::ManagerOptions;
use kubegen::operator::install_crds;
use kubegen::testkit::{ApiServer, Failure, Matcher, Verb};
use serde_json::json;

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(60);

async fn start() -> (ApiServer, App) {
    let server = ApiServer::start().await.unwrap();
    install_crds(&server.client(), &[Icecream::crd()], "test", GUARD)
        .await
        .unwrap();
    let app = App::start(server.client(), ManagerOptions::default(), None).unwrap();
    demo::seed(&server.client()).await.unwrap();
    (server, app)
}

async fn converge(app: &App) -> Report {
    tokio::time::timeout(GUARD, app.wait_converged())
        .await
        .expect("the controller converges")
}

fn placed(pods: &[(&str, Option<&str>)]) -> Vec<PodPlacement> {
    pods.iter()
        .map(|(n, node)| PodPlacement {
            name: (*n).into(),
            node_name: node.map(Into::into),
        })
        .collect()
}

async fn server_status(server: &ApiServer, name: &str) -> IcecreamStatus {
    Api::<Icecream>::namespaced(server.client(), DEMO_NAMESPACE)
        .get(name)
        .await
        .unwrap()
        .status
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_follows_pods_across_nodes() {
    let (server, app) = start().await;
    converge(&app).await;
    let vanilla = server_status(&server, "vanilla").await;
    assert_eq!(
        vanilla.pods,
        placed(&[("vanilla-1", Some("node-a")), ("vanilla-2", None)])
    );
    assert_eq!(vanilla.nodes, ["node-a"]);
    assert_eq!(vanilla.observed_generation, Some(1));
    let chocolate = server_status(&server, "chocolate").await;
    assert_eq!(chocolate.nodes, ["node-b", "node-c"]);

    // The pod moves: deleted and recreated on another node (nodeName is immutable).
    let pods: Api<Pod> = Api::namespaced(server.client(), DEMO_NAMESPACE);
    pods.delete("vanilla-1", &DeleteParams::default())
        .await
        .unwrap();
    pods.create(
        &PostParams::default(),
        &demo::pod("vanilla-1", "vanilla", Some("node-d")),
    )
    .await
    .unwrap();
    converge(&app).await;
    assert_eq!(server_status(&server, "vanilla").await.nodes, ["node-d"]);

    // A pod is relabelled out of one Icecream and into the other.
    let to_vanilla = json!({ "metadata": { "labels": { "app": "vanilla" } } });
    pods.patch(
        "cocoa-1",
        &PatchParams::default(),
        &Patch::Merge(&to_vanilla),
    )
    .await
    .unwrap();
    converge(&app).await;
    assert_eq!(
        server_status(&server, "vanilla").await.nodes,
        ["node-c", "node-d"]
    );
    assert_eq!(
        server_status(&server, "chocolate").await.pods,
        placed(&[("chocolate-1", Some("node-b"))])
    );

    // The selector changes: the status follows, with the new generation.
    let icecreams: Api<Icecream> = Api::namespaced(server.client(), DEMO_NAMESPACE);
    let sorbet = json!({ "spec": { "selector": { "matchLabels": { "app": "sorbet" }, "matchExpressions": null } } });
    icecreams
        .patch("chocolate", &PatchParams::default(), &Patch::Merge(&sorbet))
        .await
        .unwrap();
    converge(&app).await;
    let chocolate = server_status(&server, "chocolate").await;
    assert_eq!(chocolate.pods, placed(&[("sorbet-1", Some("node-a"))]));
    assert_eq!(chocolate.observed_generation, Some(2));

    app.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_through_dropped_watches_and_reports_invalid_selectors() {
    let (server, app) = start().await;
    converge(&app).await;

    let pods: Api<Pod> = Api::namespaced(server.client(), DEMO_NAMESPACE);
    let faults = server.faults();
    faults.pause_watches();
    pods.delete("chocolate-1", &DeleteParams::default())
        .await
        .unwrap();
    pods.create(
        &PostParams::default(),
        &demo::pod("chocolate-2", "chocolate", Some("node-e")),
    )
    .await
    .unwrap();
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    converge(&app).await;
    assert_eq!(
        server_status(&server, "chocolate").await.nodes,
        ["node-c", "node-e"]
    );

    // `In` without values passes the schema but is not a selector: a Warning event, and
    // the last good status stays.
    let icecreams: Api<Icecream> = Api::namespaced(server.client(), DEMO_NAMESPACE);
    let broken = json!({ "spec": { "selector": { "matchLabels": null,
        "matchExpressions": [{ "key": "app", "operator": "In", "values": [] }] } } });
    icecreams
        .patch("vanilla", &PatchParams::default(), &Patch::Merge(&broken))
        .await
        .unwrap();
    let report = converge(&app).await;
    let vanilla = report
        .icecreams
        .iter()
        .find(|i| i.icecream.name() == "vanilla")
        .unwrap();
    assert!(vanilla.invalid_selector.is_some());
    assert_eq!(
        report.status("vanilla").unwrap().observed_generation,
        Some(1)
    );
    // Converged means the Warning event is on the server too; check it directly.
    let vanilla_uid = icecreams.get("vanilla").await.unwrap().metadata.uid;
    let events = Api::<KubeEvent>::namespaced(server.client(), DEMO_NAMESPACE)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items;
    assert!(
        events
            .iter()
            .any(|e| e.reason.as_deref() == Some(REASON_INVALID_SELECTOR)
                && e.type_.as_deref() == Some("Warning")
                && e.regarding.as_ref().and_then(|r| r.uid.clone()) == vanilla_uid)
    );

    app.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_icecream_goes_only_after_its_cleanup_removed_its_menu_entry() {
    let (server, app) = start().await;
    let report = converge(&app).await;
    let menu = Api::<ConfigMap>::namespaced(server.client(), DEMO_NAMESPACE);
    let entries = |cm: ConfigMap| cm.data.unwrap_or_default();
    let before = entries(menu.get(MENU).await.unwrap());
    assert_eq!(before["vanilla"], "node-a");
    assert_eq!(before["chocolate"], "node-b,node-c");
    assert!(report.icecreams.iter().all(|i| i.menu_entry.is_some()));
    let icecreams: Api<Icecream> = Api::namespaced(server.client(), DEMO_NAMESPACE);
    let chocolate = icecreams.get("chocolate").await.unwrap();
    assert_eq!(chocolate.metadata.finalizers.unwrap(), [FINALIZER]);

    // The cleanup cannot write the menu: the finalizer keeps the Icecream.
    let faults = server.faults();
    faults.fail(
        Failure::status(500)
            .times(usize::MAX)
            .matching(Matcher::any().verb(Verb::Patch).resource("configmaps")),
    );
    let processed = app.controller().processed();
    let attempts_before = *processed.borrow();
    icecreams
        .delete("chocolate", &DeleteParams::default())
        .await
        .unwrap();
    // Several reconciles later (failed cleanups, retried with backoff), it is still there.
    let mut waiting = processed.clone();
    tokio::time::timeout(GUARD, waiting.wait_for(|n| *n >= attempts_before + 3))
        .await
        .expect("the controller retries")
        .unwrap();
    let held = icecreams.get("chocolate").await.unwrap();
    assert!(held.metadata.deletion_timestamp.is_some());
    assert_eq!(held.metadata.finalizers.unwrap(), [FINALIZER]);
    assert!(entries(menu.get(MENU).await.unwrap()).contains_key("chocolate"));

    // Once the cleanup succeeds, the entry goes, then the Icecream.
    faults.clear();
    let report = converge(&app).await;
    assert!(
        icecreams.get_opt("chocolate").await.unwrap().is_none(),
        "the finalizer was removed"
    );
    let after = entries(menu.get(MENU).await.unwrap());
    assert!(!after.contains_key("chocolate"));
    assert_eq!(after["vanilla"], "node-a");
    assert!(report.stale_menu_entries.is_empty());
    assert!(
        report
            .icecreams
            .iter()
            .all(|i| i.icecream.name() != "chocolate")
    );

    app.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_tour_deletes_chocolate_after_its_cleanup() {
    let (server, app) = start().await;
    converge(&app).await;
    let mut said = Vec::new();
    let report = tokio::time::timeout(
        GUARD,
        demo::delete_and_clean_up(&app, &server.client(), |line| said.push(line)),
    )
    .await
    .expect("the tour finishes")
    .unwrap();
    assert!(report.converged(), "{report}");
    assert_eq!(
        said.last().map(String::as_str),
        Some("Icecream chocolate is gone and its menu entry was cleaned up first")
    );
    app.shutdown().await.unwrap();
    server.shutdown().await;
}

/// The two versions and the validating webhook through the testkit, which calls the
/// example's webhook server over HTTPS: an Icecream written at v1alpha1 reads at v1 and
/// back unchanged, one written at v1 reads at v1alpha1, a watch at v1alpha1 sees the
/// controller's status updates converted, and a refused topping reaches the client with
/// its reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_convert_through_the_webhook_and_toppings_are_validated() {
    use futures::StreamExt as _;
    use icecream::apis::icecream::v1alpha1;
    use icecream::webhooks::{self, Serving};
    use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
    use kube::api::{WatchEvent, WatchParams};
    use kubegen::webhook::WebhookServerConfig;

    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let serving = Serving::on_loopback().await.unwrap();
    install_crds(
        &client,
        &[webhooks::crd(&serving.client).unwrap()],
        "test",
        GUARD,
    )
    .await
    .unwrap();
    let validating = webhooks::server(WebhookServerConfig::default())
        .configurations("icecream", &serving.client)
        .validating
        .unwrap();
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &validating)
        .await
        .unwrap();
    let app = App::start(client.clone(), ManagerOptions::default(), None).unwrap();
    demo::seed(&client).await.unwrap();

    let old: Api<v1alpha1::Icecream> = Api::namespaced(client.clone(), DEMO_NAMESPACE);
    let mut events = old
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();

    let refusal = demo::versions(&client, |_| {}).await.unwrap();
    assert_eq!(
        refusal.as_deref(),
        Some(
            "admission webhook \"validate.icecreams.icecream.example.com\" denied the request: \
             spec.topping: \"ketchup\" is not a topping; choose one of sprinkles, chocolate sauce, nuts"
        )
    );
    let strawberry = Api::<Icecream>::namespaced(client.clone(), DEMO_NAMESPACE)
        .get("strawberry")
        .await
        .unwrap();
    assert_eq!(strawberry.spec.flavor, "strawberry");
    assert_eq!(strawberry.spec.topping.as_deref(), Some("nuts"));
    let back = old.get("strawberry").await.unwrap();
    assert_eq!(back.spec.order, "strawberry with nuts");
    assert_eq!(back.spec.pod_selector, strawberry.spec.selector);
    assert_eq!(
        old.get("mint").await.unwrap().spec.order,
        "mint with sprinkles"
    );

    converge(&app).await;
    // The watch at v1alpha1 saw every Icecream converted, statuses included.
    let mut seen = std::collections::BTreeMap::new();
    while seen
        .get("mint")
        .is_none_or(|s: &Option<IcecreamStatus>| s.is_none())
    {
        let event = tokio::time::timeout(GUARD, events.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let WatchEvent::Added(ice) | WatchEvent::Modified(ice) = event {
            assert!(!ice.spec.order.is_empty(), "{ice:?}");
            seen.insert(ice.metadata.name.clone().unwrap(), ice.status.clone());
        }
    }
    assert!(seen.contains_key("strawberry"), "{seen:?}");
    app.shutdown().await.unwrap();
    serving.stop().await.unwrap();
}
