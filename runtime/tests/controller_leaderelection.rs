//! A controller under leader election on the testkit server
//! (`Controller::run_with_leader_election`): replicas with their own informers, queues and
//! electors. Only the leader reconciles; a standby queues keys and reconciles them once
//! it takes over; a leader that loses the Lease drains, stops for good and says so.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Error, Reconciler,
};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector, LeaderStatus};
use kubegen_testkit::{ApiServer, Failure, Matcher, Verb};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(30);
const LEASE_NAME: &str = "configmaps-controller";

/// One reconcile, as the reconciler saw it.
#[derive(Clone, Debug)]
struct Reconcile {
    who: String,
    key: String,
    /// Whether the replica's elector said it was leading when the reconcile started, and
    /// when it ended.
    leading: (bool, bool),
    ended: Instant,
}

type Log = Arc<Mutex<Vec<Reconcile>>>;

/// Records every reconcile with what the replica's elector said about leading.
struct Recorder {
    who: String,
    status: watch::Receiver<LeaderStatus>,
    log: Log,
}

impl Reconciler for Recorder {
    type Error = std::convert::Infallible;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        let started = self.status.borrow().leading;
        tokio::task::yield_now().await;
        let ended = self.status.borrow().leading;
        self.log.lock().unwrap().push(Reconcile {
            who: self.who.clone(),
            key: key.name().to_owned(),
            leading: (started, ended),
            ended: Instant::now(),
        });
        Ok(Action::Done)
    }
}

/// A replica: its own informer factory, controller and elector, all on one server.
struct Replica {
    controller: Controller,
    factory: SharedInformerFactory,
    status: watch::Receiver<LeaderStatus>,
    shutdown: CancellationToken,
    task: JoinHandle<kubegen_runtime::controller::Result<()>>,
}

impl Replica {
    fn start(server: &ApiServer, who: &str, log: &Log) -> Self {
        let client = server.client();
        let factory = SharedInformerFactory::new(client.clone());
        let controller = Controller::new(ControllerConfig::default().name("configmaps"));
        controller.watches(
            &factory.informer::<ConfigMap>(),
            EnqueueObject::new(controller.queue()),
        );
        factory.start();
        let mut elector = LeaderElector::new(
            client,
            LeaderElectionConfig::default()
                .lease_name(LEASE_NAME)
                .namespace("default")
                .identity(who)
                .lease_duration(Duration::from_secs(2))
                .renew_deadline(Duration::from_secs(1))
                .retry_period(Duration::from_millis(250))
                .release_on_cancel(true),
        )
        .unwrap();
        let status = elector.status();
        let reconciler = Recorder {
            who: who.to_owned(),
            status: status.clone(),
            log: log.clone(),
        };
        let shutdown = CancellationToken::new();
        let task = tokio::spawn({
            let (controller, shutdown) = (controller.clone(), shutdown.clone());
            async move {
                controller
                    .run_with_leader_election(reconciler, &mut elector, shutdown)
                    .await
            }
        });
        Self {
            controller,
            factory,
            status,
            shutdown,
            task,
        }
    }

    async fn wait_status(&mut self, what: &str, until: impl FnMut(&LeaderStatus) -> bool) {
        tokio::time::timeout(GUARD, self.status.wait_for(until))
            .await
            .unwrap_or_else(|_| panic!("{what} within {GUARD:?}"))
            .unwrap();
    }

    async fn wait_processed(&self, at_least: u64) {
        let mut processed = self.controller.processed();
        tokio::time::timeout(GUARD, processed.wait_for(|n| *n >= at_least))
            .await
            .unwrap_or_else(|_| panic!("{at_least} reconciles within {GUARD:?}"))
            .unwrap();
    }

    /// Waits for the controller's run to end and returns its result.
    async fn ended(&mut self) -> kubegen_runtime::controller::Result<()> {
        let result = tokio::time::timeout(GUARD, &mut self.task)
            .await
            .expect("the controller stops")
            .unwrap();
        self.factory.shutdown().await;
        result
    }
}

async fn create_configmap(server: &ApiServer, name: &str) {
    TypedClient::<ConfigMap>::new(server.client(), Scope::Namespace("default"), &())
        .create(&ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .await
        .unwrap();
}

fn reconciled_by(log: &Log, who: &str) -> Vec<Reconcile> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|r| r.who == who)
        .cloned()
        .collect()
}

fn keys(reconciles: &[Reconcile]) -> BTreeSet<String> {
    reconciles.iter().map(|r| r.key.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_leader_reconciles_and_a_leader_that_loses_the_lease_stops() {
    let server = ApiServer::start().await.unwrap();
    for name in ["a", "b", "c"] {
        create_configmap(&server, name).await;
    }
    let log = Log::default();
    let mut r0 = Replica::start(&server, "r0", &log);
    r0.wait_status("r0 leads", |s| s.leading).await;
    r0.wait_processed(3).await;

    // A standby: its informer runs and queues every ConfigMap, its workers do not.
    let mut r1 = Replica::start(&server, "r1", &log);
    r1.wait_status("r1 sees r0 lead", |s| s.leader.as_deref() == Some("r0"))
        .await;
    create_configmap(&server, "d").await;
    r0.wait_processed(4).await;
    assert_eq!(*r1.controller.processed().borrow(), 0);
    assert!(reconciled_by(&log, "r1").is_empty());

    // Lease updates fail: r0 cannot renew, steps down at its renew deadline, drains and
    // stops for good; r1 cannot take over until the updates work again.
    let faults = server.faults();
    faults.fail(
        Failure::status(500)
            .times(usize::MAX)
            .matching(Matcher::any().verb(Verb::Update).resource("leases")),
    );
    let lost = r0.ended().await;
    let r0_stopped = Instant::now();
    assert!(
        matches!(&lost, Err(Error::LeadershipLost { controller, identity })
            if controller == "configmaps" && identity == "r0"),
        "{lost:?}"
    );
    assert!(!r0.status.borrow().leading);
    assert!(r0.controller.queue().is_shutting_down());
    faults.clear();

    // r1 takes over and reconciles what it queued as a standby.
    r1.wait_status("r1 leads", |s| s.leading).await;
    r1.wait_processed(4).await;
    let by_r0 = reconciled_by(&log, "r0");
    let by_r1 = reconciled_by(&log, "r1");
    assert_eq!(keys(&by_r0), keys(&by_r1));
    assert_eq!(keys(&by_r1), ["a", "b", "c", "d"].map(String::from).into());
    for reconcile in log.lock().unwrap().iter() {
        assert_eq!(reconcile.leading, (true, true), "{reconcile:?}");
    }
    assert!(by_r0.iter().all(|r| r.ended < r0_stopped));
    assert!(by_r1.iter().all(|r| r.ended > r0_stopped));

    // A stopped leader stays stopped: nothing it queues is reconciled.
    let before = *r0.controller.processed().borrow();
    r0.controller
        .queue()
        .add(ObjectKey::namespaced("default", "a"));
    assert_eq!(r0.controller.queue().len(), 0);
    assert_eq!(*r0.controller.processed().borrow(), before);

    // Shutdown: drained under the Lease, then released; a clean stop.
    r1.shutdown.cancel();
    r1.ended().await.unwrap();
    assert!(!r1.status.borrow().leading);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_shut_down_before_it_leads_never_reconciles() {
    let server = ApiServer::start().await.unwrap();
    create_configmap(&server, "a").await;
    let log = Log::default();
    let mut r0 = Replica::start(&server, "r0", &log);
    r0.wait_status("r0 leads", |s| s.leading).await;
    r0.wait_processed(1).await;

    let mut r1 = Replica::start(&server, "r1", &log);
    r1.wait_status("r1 sees r0 lead", |s| s.leader.as_deref() == Some("r0"))
        .await;
    r1.shutdown.cancel();
    r1.ended().await.unwrap();
    assert_eq!(*r1.controller.processed().borrow(), 0);
    assert!(r1.controller.queue().is_shutting_down());
    // A controller runs once.
    let again = r1
        .controller
        .run(
            Recorder {
                who: "r1".into(),
                status: r1.status.clone(),
                log: log.clone(),
            },
            std::future::ready(()),
        )
        .await;
    assert!(
        matches!(again, Err(Error::AlreadyStarted { .. })),
        "{again:?}"
    );

    r0.shutdown.cancel();
    r0.ended().await.unwrap();
    assert!(reconciled_by(&log, "r1").is_empty());
    assert_eq!(keys(&reconciled_by(&log, "r0")), ["a".to_owned()].into());
    server.shutdown().await;
}
