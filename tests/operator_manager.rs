//! `kubegen::operator::Manager` against the testkit API server: two controllers on one
//! informer factory reconcile their objects, `/metrics`, `/healthz` and `/readyz` answer
//! on one address, one Lease covers both controllers, and a shutdown that outlives its
//! deadline is reported.

#![cfg(all(feature = "metrics", feature = "embedded"))]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

#[path = "operator/http.rs"]
mod probe_http;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ObjectMeta, PostParams};
use kubegen::operator::{Manager, ManagerError};
use kubegen::runtime::controller::EnqueueObject;
use kubegen::runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
use kubegen::runtime::informer::SharedInformer;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::leaderelection::LeaderElectionConfig;
use kubegen::testkit::{ApiServer, Failure, Matcher, Verb};
use probe_http::get;

/// Counts its reconciles.
#[derive(Clone, Default)]
struct Count(Arc<AtomicUsize>);

impl Reconciler for Count {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, _: &ObjectKey) -> Result<Action, Self::Error> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Action::Done)
    }
}

/// Starts reconciles (and counts them) but never finishes one.
struct Stuck(Count);

impl Reconciler for Stuck {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        let _ = self.0.reconcile(key).await;
        std::future::pending().await
    }
}

/// Polls `check` every 20 ms until it holds (a minute is the failure guard).
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        ..Default::default()
    }
}

/// A controller named `name` enqueueing every object of `informer`.
fn controller<K>(manager: &Manager, name: &str, informer: &SharedInformer<K>) -> Controller
where
    K: kube::Resource + Clone + Send + Sync + 'static,
{
    let config = manager.controller_config(ControllerConfig::default().name(name));
    let controller = Controller::new(config);
    controller.watches(informer, EnqueueObject::new(controller.queue()));
    controller
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_controllers_share_one_factory_probes_and_lease() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    Api::<ConfigMap>::namespaced(client.clone(), "default")
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: meta("a"),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    Api::<Secret>::namespaced(client.clone(), "default")
        .create(
            &PostParams::default(),
            &Secret {
                metadata: meta("s"),
                ..Default::default()
            },
        )
        .await
        .unwrap();

    let election = LeaderElectionConfig::default()
        .lease_name("pair-manager")
        .namespace("default")
        .identity("replica-a")
        .release_on_cancel(true);
    let mut manager = Manager::new(client.clone())
        .leader_election(Some(election))
        .probe_address(Some("127.0.0.1:0".parse().unwrap()));
    let (configmaps, secrets) = (Count::default(), Count::default());
    let first = controller(
        &manager,
        "configmaps",
        &manager.factory().informer::<ConfigMap>(),
    );
    let second = controller(&manager, "secrets", &manager.factory().informer::<Secret>());
    manager
        .add(first, configmaps.clone())
        .add(second, secrets.clone());
    assert_eq!(manager.factory().len(), 2, "one informer per kind");
    let running = manager.start().unwrap();
    let address = running.probe_address().expect("probes served");

    eventually("both controllers reconciled", async || {
        configmaps.0.load(Ordering::SeqCst) >= 1 && secrets.0.load(Ordering::SeqCst) >= 1
    })
    .await;
    eventually("/readyz is 200 once the caches synced", async || {
        get(address, "/readyz").await.0 == "HTTP/1.1 200 OK"
    })
    .await;
    let (status, body) = get(address, "/healthz").await;
    assert_eq!((status.as_str(), body.as_str()), ("HTTP/1.1 200 OK", "ok"));
    let (status, body) = get(address, "/metrics").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    for controller in ["configmaps", "secrets"] {
        let line = format!(
            r#"controller_runtime_reconcile_total{{controller="{controller}",result="success"}}"#
        );
        assert!(body.contains(&line), "{body}");
    }
    assert!(body.contains("leader_election_master_status"), "{body}");
    let leases = Api::<Lease>::namespaced(client.clone(), "default");
    let lease = leases.get("pair-manager").await.unwrap();
    let holder = lease.spec.and_then(|s| s.holder_identity);
    assert_eq!(holder.as_deref(), Some("replica-a"), "one Lease for both");

    running.stop().await.unwrap();
    let lease = leases.get("pair-manager").await.unwrap();
    let holder = lease
        .spec
        .and_then(|s| s.holder_identity)
        .unwrap_or_default();
    assert!(holder.is_empty(), "released on shutdown, got {holder:?}");
    assert!(
        tokio::net::TcpStream::connect(address).await.is_err(),
        "the probes stop with the manager"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_says_which_informers_have_not_synced() {
    let server = ApiServer::start().await.unwrap();
    // Lists fail, so the informer never syncs.
    let lists = Matcher::any().verb(Verb::List).resource("configmaps");
    server
        .faults()
        .fail(Failure::status(500).times(usize::MAX).matching(lists));
    let mut manager =
        Manager::new(server.client()).probe_address(Some("127.0.0.1:0".parse().unwrap()));
    let controller = controller(
        &manager,
        "configmaps",
        &manager.factory().informer::<ConfigMap>(),
    );
    manager.add(controller, Count::default());
    let running = manager.start().unwrap();
    let (status, body) = get(running.probe_address().unwrap(), "/readyz").await;
    assert_eq!(status, "HTTP/1.1 503 Service Unavailable", "{body}");
    assert!(body.contains("configmaps.v1 (ConfigMap)"), "{body}");
    server.faults().clear();
    running.stop().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_outliving_its_deadline_is_an_error() {
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    Api::<ConfigMap>::namespaced(client.clone(), "default")
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: meta("a"),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let mut manager = Manager::new(client).shutdown_timeout(Duration::from_millis(200));
    let stuck = controller(
        &manager,
        "stuck",
        &manager.factory().informer::<ConfigMap>(),
    );
    let started = Count::default();
    manager.add(stuck, Stuck(started.clone()));
    let running = manager.start().unwrap();
    eventually("the reconcile started", async || {
        started.0.load(Ordering::SeqCst) == 1
    })
    .await;
    match running.stop().await {
        Err(ManagerError::ShutdownTimeout { waited }) => {
            assert_eq!(waited, Duration::from_millis(200));
        }
        other => panic!("expected a shutdown timeout, got {other:?}"),
    }
    server.shutdown().await;
}
