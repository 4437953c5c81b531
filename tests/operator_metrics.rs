//! `kubegen::operator::Metrics` served over HTTP: a controller's reconciles, its work
//! queue and the informers' lists appear at `/metrics` under controller-runtime's and
//! client-go's names, and `/healthz` answers.

#![cfg(feature = "metrics")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

#[path = "operator/http.rs"]
mod probe_http;

use std::time::Duration;

use kubegen::operator::Metrics;
use kubegen::runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
use kubegen::runtime::key::ObjectKey;
use probe_http::get;

struct Done;

impl Reconciler for Done {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, _: &ObjectKey) -> Result<Action, Self::Error> {
        Ok(Action::Done)
    }
}

#[tokio::test]
async fn metrics_and_healthz_are_served() {
    let metrics = Metrics::new();
    let controller = Controller::new(metrics.instrument(ControllerConfig::default().name("demo")));
    controller
        .queue()
        .add(ObjectKey::namespaced("default", "a"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let run = tokio::spawn({
        let controller = controller.clone();
        async move {
            controller
                .run(Done, async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    tokio::time::timeout(
        Duration::from_secs(10),
        controller.processed().wait_for(|n| *n >= 1),
    )
    .await
    .expect("the key is reconciled")
    .unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (shut, shutdown) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(metrics.serve(listener, async {
        let _ = shutdown.await;
    }));

    let (status, body) = get(address, "/metrics").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        body.contains(
            r#"controller_runtime_reconcile_total{controller="demo",result="success"} 1"#
        ),
        "{body}"
    );
    assert!(
        body.contains(r#"workqueue_adds_total{name="demo"} 1"#),
        "{body}"
    );
    let (status, body) = get(address, "/healthz").await;
    assert_eq!((status.as_str(), body.as_str()), ("HTTP/1.1 200 OK", "ok"));

    stop.send(()).unwrap();
    run.await.unwrap().unwrap();
    shut.send(()).unwrap();
    server.await.unwrap().unwrap();
}
