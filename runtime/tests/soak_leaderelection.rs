//! A seeded soak of a controller under leader election: three replicas (each its own
//! client, informer, work queue, elector and controller, as three processes would have)
//! run `Controller::run_with_leader_election` against one testkit server. Rounds of random
//! writes to source ConfigMaps are interleaved with random server faults (dropped watches,
//! compaction, 5xx and 429 on the Lease and the ConfigMaps, latency, paused delivery,
//! restarts) and random replica deaths (killed without releasing the Lease, or shut down
//! and releasing it); a replica that loses the Lease exits, as client-go's controllers
//! do, and every dead replica is replaced by a fresh one.
//!
//! The controller mirrors `src-N` into `out-N`. A monitor records, on one clock, when each
//! replica's elector said it led, and every reconcile: at no observation may two replicas
//! lead at once, and no reconcile may run outside its replica's leadership or alongside
//! another replica's. After every round, with faults healed, the mirror converges.
//!
//! `KUBEGEN_SOAK_SEED` replays a run (the seed is printed on failure);
//! `KUBEGEN_SOAK_ROUNDS` sets the number of rounds. The `#[ignore]`d test is the long
//! soak: `cargo test -p kubegen-runtime --test soak_leaderelection -- --ignored --nocapture`.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod soak_support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler,
};
use kubegen_runtime::informer::{InformerConfig, SharedInformer};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector, LeaderStatus};
use kubegen_runtime::reflector::ReflectorConfig;
use kubegen_runtime::store::Store;
use kubegen_runtime::workqueue::ItemExponentialFailureRateLimiter;
use kubegen_testkit::{ApiServer, Verb};
use rand::RngExt;
use rand::rngs::SmallRng;
use soak_support::{FaultPlan, Settings, Tally};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const NAMESPACE: &str = "default";
const LEASE_NAME: &str = "soak-mirror";
const REPLICAS: usize = 3;
const NAMES: usize = 6;
/// client-go's proportions, shortened.
const LEASE: Duration = Duration::from_secs(2);
const RENEW: Duration = Duration::from_secs(1);
const RETRY: Duration = Duration::from_millis(250);
/// A guard against a hang, not a timing assertion: a takeover needs about a lease.
const GUARD: Duration = Duration::from_secs(60);

/// Fast reflector retries, so that faults cost milliseconds (Retry-After still wins).
const SOAK_BACKOFF: Backoff = Backoff {
    duration: Duration::from_millis(2),
    factor: 2.0,
    jitter: 1.0,
    steps: u32::MAX,
    cap: Some(Duration::from_millis(100)),
    reset_after: Some(Duration::from_secs(1)),
};

/// One stretch of leadership as a replica's elector reported it.
#[derive(Clone, Debug)]
struct Span {
    who: String,
    to: Option<Instant>,
}

#[derive(Debug, Default)]
struct Observed {
    spans: Vec<Span>,
    /// Every replica's election status, as its elector publishes it.
    electors: Vec<(String, watch::Receiver<LeaderStatus>)>,
    /// Replicas with a reconcile in flight, and how many.
    working: BTreeMap<String, usize>,
    violations: Vec<String>,
}

impl Observed {
    fn violation(&mut self, what: String) {
        if self.violations.len() < 20 {
            self.violations.push(what);
        }
    }
}

/// Leadership and work of every replica, on one clock.
#[derive(Default)]
struct Monitor(Mutex<Observed>);

impl Monitor {
    fn lock(&self) -> std::sync::MutexGuard<'_, Observed> {
        self.0.lock().unwrap()
    }

    /// Checks at this instant that at most one living elector says it leads (a killed
    /// replica's elector is gone; its Lease expires).
    fn check_now(observed: &mut Observed) {
        let leaders: Vec<String> = observed
            .electors
            .iter()
            .filter(|(_, status)| status.has_changed().is_ok() && status.borrow().leading)
            .map(|(name, _)| name.clone())
            .collect();
        if leaders.len() > 1 {
            observed.violation(format!("{leaders:?} lead at once"));
        }
    }

    /// Records that `who` leads, and checks the others at this instant.
    fn began_leading(&self, who: &str) {
        let mut observed = self.lock();
        Self::check_now(&mut observed);
        observed.spans.push(Span {
            who: who.to_owned(),
            to: None,
        });
    }

    fn stopped_leading(&self, who: &str) {
        let now = Instant::now();
        let mut observed = self.lock();
        for span in observed.spans.iter_mut().filter(|s| s.who == who) {
            span.to.get_or_insert(now);
        }
    }

    /// Follows one replica's elector until it is dropped (the replica died).
    fn follow(self: &Arc<Self>, who: String, mut status: watch::Receiver<LeaderStatus>) {
        self.lock().electors.push((who.clone(), status.clone()));
        let monitor = self.clone();
        tokio::spawn(async move {
            let mut leading = false;
            loop {
                let now = status.borrow_and_update().leading;
                if now != leading {
                    if now {
                        monitor.began_leading(&who);
                    } else {
                        monitor.stopped_leading(&who);
                    }
                    leading = now;
                }
                if status.changed().await.is_err() {
                    monitor.stopped_leading(&who);
                    return;
                }
            }
        });
    }

    /// Marks a reconcile by `who` as started, checking that `who` alone is working and
    /// leading; it ends when the guard drops.
    fn work<'a>(&'a self, who: &'a str, status: &watch::Receiver<LeaderStatus>) -> Work<'a> {
        let leading = status.borrow().leading;
        let mut observed = self.lock();
        if !leading {
            observed.violation(format!("{who} reconciles without leading"));
        }
        let others: Vec<String> = observed
            .working
            .iter()
            .filter(|(w, n)| w.as_str() != who && **n > 0)
            .map(|(w, _)| w.clone())
            .collect();
        if !others.is_empty() {
            observed.violation(format!("{who} reconciles while {others:?} reconcile"));
        }
        *observed.working.entry(who.to_owned()).or_default() += 1;
        Work {
            monitor: self,
            who,
            leading: status.clone(),
        }
    }

    /// Everything wrong so far, after one more check of who leads now.
    fn violations(&self) -> Vec<String> {
        let mut observed = self.lock();
        Self::check_now(&mut observed);
        observed.violations.clone()
    }

    fn spans(&self) -> usize {
        self.lock().spans.len()
    }
}

/// A reconcile in flight.
struct Work<'a> {
    monitor: &'a Monitor,
    who: &'a str,
    leading: watch::Receiver<LeaderStatus>,
}

impl Drop for Work<'_> {
    fn drop(&mut self) {
        let leading = self.leading.borrow().leading;
        let mut observed = self.monitor.lock();
        if !leading {
            observed.violation(format!("{} finished a reconcile after leading", self.who));
        }
        if let Some(n) = observed.working.get_mut(self.who) {
            *n -= 1;
        }
    }
}

/// The controller's work: `out-N` mirrors the data of `src-N`, and goes when it goes.
struct Mirror {
    who: String,
    client: kube::Client,
    cache: Store<ConfigMap>,
    status: watch::Receiver<LeaderStatus>,
    monitor: Arc<Monitor>,
}

fn config_map(name: &str, data: BTreeMap<String, String>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        data: Some(data),
        ..ConfigMap::default()
    }
}

impl Reconciler for Mirror {
    type Error = kube::Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, kube::Error> {
        let _work = self.monitor.work(&self.who, &self.status);
        let name = key.name();
        let Some(n) = name
            .strip_prefix("src-")
            .or_else(|| name.strip_prefix("out-"))
        else {
            return Ok(Action::Done);
        };
        let out = format!("out-{n}");
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), NAMESPACE);
        let source = self
            .cache
            .get(&ObjectKey::namespaced(NAMESPACE, format!("src-{n}")));
        match source {
            Some(source) => {
                let want = source.data.clone().unwrap_or_default();
                match api.get_opt(&out).await? {
                    None => {
                        api.create(&PostParams::default(), &config_map(&out, want))
                            .await?;
                    }
                    Some(mut current) if current.data.clone().unwrap_or_default() != want => {
                        current.data = Some(want);
                        api.replace(&out, &PostParams::default(), &current).await?;
                    }
                    Some(_) => {}
                }
            }
            None => match api.delete(&out, &DeleteParams::default()).await {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(error) => return Err(error),
            },
        }
        Ok(Action::Done)
    }
}

/// One replica, as one process of a deployment would run it.
struct Replica {
    name: String,
    informer: SharedInformer<ConfigMap>,
    shutdown: CancellationToken,
    task: JoinHandle<kubegen_runtime::controller::Result<()>>,
}

impl Replica {
    fn start(server: &ApiServer, name: String, monitor: &Arc<Monitor>) -> Self {
        let client = writer_client(server);
        let reflector = ReflectorConfig::default()
            .name(name.clone())
            .backoff(SOAK_BACKOFF)
            .min_watch_timeout(Duration::from_secs(2));
        let informer = SharedInformer::new(
            Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE),
            InformerConfig::default().reflector(reflector),
        );
        let controller = Controller::new(
            ControllerConfig::default()
                .name("mirror")
                .workers(2)
                .rate_limiter(ItemExponentialFailureRateLimiter::new(
                    Duration::from_millis(5),
                    Duration::from_millis(200),
                )),
        );
        controller.watches(&informer, EnqueueObject::new(controller.queue()));
        informer.start();
        let mut elector = LeaderElector::new(
            client.clone(),
            LeaderElectionConfig::default()
                .lease_name(LEASE_NAME)
                .namespace(NAMESPACE)
                .identity(name.clone())
                .lease_duration(LEASE)
                .renew_deadline(RENEW)
                .retry_period(RETRY)
                .release_on_cancel(true),
        )
        .unwrap();
        monitor.follow(name.clone(), elector.status());
        let reconciler = Mirror {
            who: name.clone(),
            client,
            cache: informer.store(),
            status: elector.status(),
            monitor: monitor.clone(),
        };
        let shutdown = CancellationToken::new();
        let task = tokio::spawn({
            let shutdown = shutdown.clone();
            async move {
                controller
                    .run_with_leader_election(reconciler, &mut elector, shutdown)
                    .await
            }
        });
        Self {
            name,
            informer,
            shutdown,
            task,
        }
    }

    /// The process dies: no release, nothing more from it.
    async fn kill(self) {
        self.task.abort();
        let _ = self.task.await;
        self.informer.shutdown().await;
    }

    /// The process is told to stop: it drains, releases the Lease and exits.
    async fn stop(self) {
        self.shutdown.cancel();
        let result = tokio::time::timeout(GUARD, self.task)
            .await
            .expect("a replica stops");
        // Stopping after it lost the Lease is the one error it may have returned.
        if let Ok(Err(error)) = result {
            assert!(
                matches!(
                    error,
                    kubegen_runtime::controller::Error::LeadershipLost { .. }
                ),
                "{}: {error}",
                self.name
            );
        }
        self.informer.shutdown().await;
    }
}

/// A client with its own connections, rebuilt after each restart.
fn writer_client(server: &ApiServer) -> kube::Client {
    let mut config = server.kube_config();
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

/// Retries a write the fault schedule failed: an injected failure is answered before the
/// server does anything, so trying again is safe.
async fn unfaulted<T, F: Future<Output = kube::Result<T>>>(mut call: impl FnMut() -> F) -> T {
    loop {
        match call().await {
            Err(kube::Error::Api(status)) if status.message.starts_with("injected fault") => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            result => return result.unwrap(),
        }
    }
}

fn random_data(rng: &mut SmallRng) -> BTreeMap<String, String> {
    (0..rng.random_range(0..3usize))
        .map(|i| (format!("k{i}"), format!("v{}", rng.random_range(0..5u32))))
        .collect()
}

/// One random write to a source; `live` mirrors the sources, which only the soak writes.
async fn random_write(
    client: &kube::Client,
    rng: &mut SmallRng,
    live: &mut BTreeMap<String, BTreeMap<String, String>>,
    tally: &mut Tally,
) {
    let name = format!("src-{}", rng.random_range(0..NAMES));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    if live.get(&name).is_none() {
        let data = random_data(rng);
        let object = config_map(&name, data.clone());
        let params = PostParams::default();
        unfaulted(|| api.create(&params, &object)).await;
        live.insert(name, data);
        tally.count("write: create");
    } else if rng.random_bool(0.6) {
        let data = random_data(rng);
        let object = config_map(&name, data.clone());
        let params = PostParams::default();
        unfaulted(|| api.replace(&name, &params, &object)).await;
        live.insert(name, data);
        tally.count("write: update");
    } else {
        let params = DeleteParams::default();
        unfaulted(|| api.delete(&name, &params)).await;
        live.remove(&name);
        tally.count("write: delete");
    }
}

/// Sources and mirrors on the server, by N.
async fn mirrored(
    client: &kube::Client,
) -> (
    BTreeMap<String, BTreeMap<String, String>>,
    BTreeMap<String, BTreeMap<String, String>>,
) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let params = ListParams::default();
    let list = unfaulted(|| api.list(&params)).await;
    let (mut sources, mut mirrors) = (BTreeMap::new(), BTreeMap::new());
    for cm in list.items {
        let name = cm.metadata.name.clone().unwrap_or_default();
        let data = cm.data.clone().unwrap_or_default();
        if let Some(n) = name.strip_prefix("src-") {
            sources.insert(n.to_owned(), data);
        } else if let Some(n) = name.strip_prefix("out-") {
            mirrors.insert(n.to_owned(), data);
        }
    }
    (sources, mirrors)
}

/// Waits until the mirror matches the sources, checking the monitor as it goes.
async fn converge(client: &kube::Client, monitor: &Monitor) -> Result<(), String> {
    let mut last = String::new();
    let wait = async {
        loop {
            let violations = monitor.violations();
            if !violations.is_empty() {
                return Err(format!("{violations:#?}"));
            }
            let (sources, mirrors) = mirrored(client).await;
            if sources == mirrors {
                return Ok(());
            }
            last = format!("sources {sources:?}, mirrors {mirrors:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    match tokio::time::timeout(GUARD, wait).await {
        Ok(result) => result,
        Err(_) => Err(format!("no convergence within {GUARD:?}: {last}")),
    }
}

async fn soak(settings: Settings) {
    let _report = settings.report_on_failure();
    let mut rng = settings.rng();
    let mut server = kubegen_testkit::ApiServerConfig::default()
        .history_window(200)
        .start()
        .await
        .unwrap();
    let mut client = writer_client(&server);
    let monitor = Arc::new(Monitor::default());
    let mut spare = 0usize;
    let mut next_name = || {
        spare += 1;
        format!("r{}", spare - 1)
    };
    let mut replicas: Vec<Replica> = (0..REPLICAS)
        .map(|_| Replica::start(&server, next_name(), &monitor))
        .collect();
    let mut live = BTreeMap::new();
    let mut tally = Tally::default();
    let targets = [
        (Verb::Get, "leases"),
        (Verb::Update, "leases"),
        (Verb::List, "configmaps"),
        (Verb::Watch, "configmaps"),
        (Verb::Create, "configmaps"),
        (Verb::Update, "configmaps"),
    ];
    for round in 0..settings.rounds {
        let writes = rng.random_range(1..8usize);
        let plan = FaultPlan::random(&mut rng, writes, &targets);
        for step in 0..=writes {
            for fault in plan.at(step) {
                if fault.inject(&mut server, &mut tally).await {
                    client = writer_client(&server);
                }
            }
            if rng.random_bool(0.12) && !replicas.is_empty() {
                let victim = replicas.remove(rng.random_range(0..replicas.len()));
                if rng.random_bool(0.5) {
                    victim.kill().await;
                    tally.count("replica: killed");
                } else {
                    victim.stop().await;
                    tally.count("replica: stopped");
                }
            }
            if step < writes {
                random_write(&client, &mut rng, &mut live, &mut tally).await;
            }
        }
        FaultPlan::heal(&server);
        // Replicas that lost the Lease have exited; the deployment replaces every dead one.
        let mut alive = Vec::new();
        for replica in replicas {
            if replica.task.is_finished() {
                replica.stop().await;
                tally.count("replica: exited after losing the lease");
            } else {
                alive.push(replica);
            }
        }
        replicas = alive;
        while replicas.len() < REPLICAS {
            replicas.push(Replica::start(&server, next_name(), &monitor));
        }
        if let Err(what) = converge(&client, &monitor).await {
            panic!("round {round}: {what}");
        }
        tally.count("rounds");
    }
    tally.add("leadership spans", monitor.spans() as u64);
    for replica in replicas {
        replica.stop().await;
    }
    let violations = monitor.violations();
    assert!(violations.is_empty(), "{violations:#?}");
    println!("{}", tally.summary(&settings));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_never_lead_together_and_converge_under_random_faults() {
    soak(Settings::from_env(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long soak: run with --ignored"]
async fn three_replicas_never_lead_together_and_converge_under_random_faults_long() {
    soak(Settings::from_env(100)).await;
}
