//! Kinds whose generated clients offer only some verbs, on the testkit: a read-only
//! `Gauge` (`#[resource(readonly)]`: get, list, watch), whose objects a plain every-verb
//! client writes here as the component owning them would, and a `Ticket`
//! (`#[resource(verbs(get, list, create, delete))]`). That the other verbs do not compile
//! is checked by the `compile_fail` doctests of `kubegen_e2e_api::generated`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{DeleteParams, ListParams, WatchEvent, WatchParams};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen_e2e_api::apis::example::v1::{Gauge, GaugeSpec, Priority, Ticket, TicketSpec};
use kubegen_e2e_api::generated::clientset::Clientset;
use kubegen_testkit::ApiServer;

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: Some("default".to_owned()),
        ..Default::default()
    }
}

fn gauge(name: &str, value: i64) -> Gauge {
    Gauge {
        metadata: meta(name),
        spec: GaugeSpec {
            value,
            unit_name: Some("cores".to_owned()),
        },
    }
}

fn ticket(name: &str, title: &str, priority: Priority) -> Ticket {
    Ticket {
        metadata: meta(name),
        spec: TicketSpec {
            title: title.to_owned(),
            priority,
        },
    }
}

async fn server_with(crd: CustomResourceDefinition) -> ApiServer {
    let server = ApiServer::start().await.unwrap();
    TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &())
        .create(&crd)
        .await
        .unwrap();
    server
}

fn names<K: kube::Resource>(items: &[K]) -> Vec<String> {
    let mut names: Vec<String> = items.iter().filter_map(|o| o.meta().name.clone()).collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_client_gets_lists_and_watches() {
    let server = server_with(Gauge::crd()).await;
    // The component that owns the readings writes them with every verb.
    let writer = TypedClient::<Gauge>::new(server.client(), Scope::Namespace("default"), &());
    writer.create(&gauge("cpu", 3)).await.unwrap();

    let gauges = Clientset::new(server.client())
        .example_v1()
        .gauges("default");
    assert_eq!(gauges.get("cpu").await.unwrap().spec, gauge("cpu", 3).spec);
    assert!(gauges.get("memory").await.unwrap_err().is_not_found());
    let listed = gauges.list(&ListParams::default()).await.unwrap();
    assert_eq!(names(&listed.items), ["cpu"]);

    let rv = listed.metadata.resource_version.clone().unwrap_or_default();
    let mut stream = Box::pin(gauges.watch(&WatchParams::default(), &rv).await.unwrap());
    writer.create(&gauge("memory", 8)).await.unwrap();
    let added = loop {
        match stream.next().await.expect("watch stays open").unwrap() {
            WatchEvent::Added(object) => break object,
            WatchEvent::Bookmark(_) => continue,
            other => panic!("unexpected event {other:?}"),
        }
    };
    assert_eq!(added, writer.get("memory").await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verb_list_client_creates_reads_and_deletes() {
    let server = server_with(Ticket::crd()).await;
    let tickets = Clientset::new(server.client())
        .example_v1()
        .tickets("default");

    let opened = tickets
        .create(&ticket("t1", "disk full", Priority::High))
        .await
        .unwrap();
    assert!(opened.metadata.uid.is_some());
    tickets
        .create(&ticket("t2", "typo", Priority::Low))
        .await
        .unwrap();
    assert!(
        tickets
            .create(&ticket("t1", "again", Priority::Low))
            .await
            .unwrap_err()
            .is_already_exists()
    );
    let got = tickets.get("t1").await.unwrap();
    assert_eq!(got.spec, ticket("t1", "disk full", Priority::High).spec);
    assert_eq!(
        names(&tickets.list(&ListParams::default()).await.unwrap().items),
        ["t1", "t2"]
    );

    tickets
        .delete("t1", &DeleteParams::default())
        .await
        .unwrap();
    assert!(tickets.get("t1").await.unwrap_err().is_not_found());
    assert_eq!(
        names(&tickets.list(&ListParams::default()).await.unwrap().items),
        ["t2"]
    );
}
