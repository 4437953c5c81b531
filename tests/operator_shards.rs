//! `Manager::shards` against the testkit API server: four replicas (each its own Tokio
//! runtime, client and proxy to the server, as four processes would have) split four
//! shards of ConfigMaps, one Lease per shard, under the election soak's fault schedule
//! (`runtime/tests/soak_support`: dropped watches, compaction, 5xx and 429 on Leases and
//! ConfigMaps, latency, paused delivery, restarts) and random replica deaths: killed
//! (its runtime shut down: no release, nothing more from it), paused (its link stalled
//! past the lease duration, then back) or stopped (drained, Leases released).
//!
//! A shared timeline records every reconcile as (replica, key, start, end): no key may be
//! reconciled by two replicas at overlapping times, every reconcile must be of an object
//! of the shard it ran for, and after each round every object must have been reconciled
//! since its last write. The time from a kill until the victim's shards run elsewhere
//! is printed.
//!
//! `KUBEGEN_SOAK_SEED` replays a run; `KUBEGEN_SOAK_ROUNDS` sets the number of rounds.

#![cfg(feature = "embedded")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

#[path = "../runtime/tests/leaderelection_support/proxy.rs"]
#[allow(unreachable_pub)]
mod proxy;
#[path = "../runtime/tests/soak_support/mod.rs"]
mod soak_support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kubegen::operator::{HeldShards, Manager, ShardConfig};
use kubegen::runtime::backoff::Backoff;
use kubegen::runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueObject, Reconciler,
};
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::leaderelection::LeaderElectionConfig;
use kubegen::runtime::shard::ShardSelector;
use kubegen::runtime::store::Store;
use kubegen::runtime::workqueue::ItemExponentialFailureRateLimiter;
use kubegen_testkit::{ApiServer, ApiServerConfig, Verb};
use proxy::{Link, Proxy};
use rand::RngExt;
use rand::rngs::SmallRng;
use soak_support::{FaultPlan, Settings, Tally};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

const NAMESPACE: &str = "default";
const LEASE_NAME: &str = "sharded";
const SHARDS: u32 = 4;
const REPLICAS: usize = 4;
const NAMES: usize = 24;
/// client-go's proportions, shortened (as the election soak's).
const LEASE: Duration = Duration::from_secs(2);
const RENEW: Duration = Duration::from_secs(1);
const RETRY: Duration = Duration::from_millis(250);
/// Well inside `LEASE - RENEW`: a reconcile stuck on a stalled link is dropped before
/// another replica may take its shard.
const RECONCILE_TIMEOUT: Duration = Duration::from_millis(300);
/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(60);

const SOAK_BACKOFF: Backoff = Backoff {
    duration: Duration::from_millis(2),
    factor: 2.0,
    jitter: 1.0,
    steps: u32::MAX,
    cap: Some(Duration::from_millis(100)),
    reset_after: Some(Duration::from_secs(1)),
};

/// One reconcile: who, which key, when.
#[derive(Clone, Debug)]
struct Reconcile {
    who: String,
    key: String,
    start: Instant,
    end: Option<Instant>,
}

#[derive(Default)]
struct Spans {
    reconciles: Vec<Reconcile>,
    violations: Vec<String>,
}

/// Every reconcile of every replica, on one clock.
#[derive(Clone, Default)]
struct Timeline(Arc<Mutex<Spans>>);

impl Timeline {
    fn lock(&self) -> MutexGuard<'_, Spans> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a reconcile's start, checking that no other replica reconciles the key
    /// now; it ends when the guard drops (also when its task is dropped).
    fn begin(&self, who: &str, key: &str) -> Inside {
        let mut spans = self.lock();
        let others: Vec<String> = spans
            .reconciles
            .iter()
            .filter(|r| r.key == key && r.end.is_none() && r.who != who)
            .map(|r| r.who.clone())
            .collect();
        if !others.is_empty() && spans.violations.len() < 20 {
            let what = format!("{who} reconciles {key} while {others:?} do");
            spans.violations.push(what);
        }
        spans.reconciles.push(Reconcile {
            who: who.to_owned(),
            key: key.to_owned(),
            start: Instant::now(),
            end: None,
        });
        Inside {
            timeline: self.clone(),
            index: spans.reconciles.len() - 1,
        }
    }

    fn violation(&self, what: String) {
        let mut spans = self.lock();
        if spans.violations.len() < 20 {
            spans.violations.push(what);
        }
    }

    /// Every problem: the ones seen as they happened, and every pair of reconciles of
    /// one key by two replicas whose spans overlap.
    fn violations(&self) -> Vec<String> {
        let spans = self.lock();
        let mut found = spans.violations.clone();
        let mut by_key: BTreeMap<&str, Vec<&Reconcile>> = BTreeMap::new();
        for r in &spans.reconciles {
            by_key.entry(&r.key).or_default().push(r);
        }
        let far = Instant::now() + GUARD;
        for (key, list) in by_key {
            for (i, a) in list.iter().enumerate() {
                for b in &list[i + 1..] {
                    let overlap = a.start < b.end.unwrap_or(far) && b.start < a.end.unwrap_or(far);
                    if a.who != b.who && overlap && found.len() < 40 {
                        found.push(format!("{key}: {} and {} overlap", a.who, b.who));
                    }
                }
            }
        }
        found
    }

    /// The last start of a reconcile of `key`.
    fn last_start(&self, key: &str) -> Option<Instant> {
        self.lock()
            .reconciles
            .iter()
            .filter(|r| r.key == key)
            .map(|r| r.start)
            .max()
    }

    /// The last reconciles of `key`: who, and whether it ended (for failure reports).
    fn last_of(&self, key: &str) -> Vec<(String, bool)> {
        let spans = self.lock();
        let mut last: Vec<(String, bool)> = spans
            .reconciles
            .iter()
            .filter(|r| r.key == key)
            .map(|r| (r.who.clone(), r.end.is_some()))
            .collect();
        last.drain(..last.len().saturating_sub(3));
        last
    }

    fn count(&self) -> usize {
        self.lock().reconciles.len()
    }

    fn by_replica(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for r in &self.lock().reconciles {
            *counts.entry(r.who.clone()).or_default() += 1;
        }
        counts
    }
}

/// A reconcile in flight.
struct Inside {
    timeline: Timeline,
    index: usize,
}

impl Drop for Inside {
    fn drop(&mut self) {
        self.timeline.lock().reconciles[self.index].end = Some(Instant::now());
    }
}

/// Records the reconcile, checks the object belongs to the shard, and reads it from the
/// server (so a stalled link stalls it until the reconcile timeout).
struct Recorder {
    who: String,
    shard: ShardSelector,
    cache: Store<ConfigMap>,
    client: kube::Client,
    timeline: Timeline,
}

impl Reconciler for Recorder {
    type Error = kube::Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, kube::Error> {
        let _inside = self.timeline.begin(&self.who, &key.to_string());
        if let Some(object) = self.cache.get(key)
            && !self.shard.matches(&object.metadata)
        {
            self.timeline.violation(format!(
                "{} reconciled {key} outside {}",
                self.who, self.shard
            ));
        }
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), NAMESPACE);
        api.get_opt(key.name()).await?;
        Ok(Action::Done)
    }
}

/// One replica, as one process of a deployment would run it: its own runtime, client
/// and link to the server.
struct Replica {
    name: String,
    /// Taken when the replica ends; shut down in the background (a runtime cannot be
    /// dropped inside another).
    runtime: Option<tokio::runtime::Runtime>,
    proxy: Proxy,
    held: HeldShards,
    stop: CancellationToken,
    done: tokio::task::JoinHandle<()>,
}

impl Replica {
    async fn start(server: &ApiServer, name: String, timeline: &Timeline) -> Self {
        let proxy = Proxy::start(server.address()).await;
        let mut config = server.kube_config();
        config.cluster_url = proxy.url().parse().unwrap();
        config.default_retry = false;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let stop = CancellationToken::new();
        let (held_tx, held_rx) = oneshot::channel();
        let done = runtime.spawn({
            let (name, timeline, stop) = (name.clone(), timeline.clone(), stop.clone());
            async move {
                let client = kube::Client::try_from(config).unwrap();
                let manager = manager(client, &name, &timeline);
                let running = manager.start().unwrap();
                held_tx.send(running.held_shards().unwrap()).ok();
                tokio::select! {
                    () = stop.cancelled() => {}
                    () = running.stopped() => {}
                }
                running.stop().await.unwrap();
            }
        });
        let held = held_rx.await.unwrap();
        Self {
            name,
            runtime: Some(runtime),
            proxy,
            held,
            stop,
            done,
        }
    }

    fn held(&self) -> BTreeSet<u32> {
        self.held.borrow().clone()
    }

    /// The process dies: its runtime is gone at once, no release, no more requests.
    fn kill(mut self) {
        self.proxy.set(Link::Cut);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    /// The process is told to stop: it drains, releases its Leases and exits.
    async fn stop(mut self) {
        self.stop.cancel();
        let done = &mut self.done;
        tokio::time::timeout(GUARD, done)
            .await
            .unwrap_or_else(|_| panic!("{} stops", self.name))
            .expect("the replica's task ends cleanly");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn manager(client: kube::Client, name: &str, timeline: &Timeline) -> Manager {
    let election = LeaderElectionConfig::default()
        .lease_name(LEASE_NAME)
        .namespace(NAMESPACE)
        .identity(name)
        .lease_duration(LEASE)
        .renew_deadline(RENEW)
        .retry_period(RETRY)
        .release_on_cancel(true);
    let shards = ShardConfig::new(election, SHARDS).replicas(REPLICAS as u32);
    let mut manager = Manager::new(client.clone())
        .factory_with(|factory| factory.reflector_backoff(SOAK_BACKOFF))
        .shards(shards)
        .shutdown_timeout(GUARD);
    let (who, timeline) = (name.to_owned(), timeline.clone());
    manager.add_sharded(move |shard| {
        let informer = shard.factory().informer::<ConfigMap>();
        let controller = Controller::new(
            shard.controller_config(
                ControllerConfig::default()
                    .name("recorder")
                    .workers(2)
                    .reconcile_timeout(RECONCILE_TIMEOUT)
                    .rate_limiter(ItemExponentialFailureRateLimiter::new(
                        Duration::from_millis(5),
                        Duration::from_millis(200),
                    )),
            ),
        );
        controller.watches(&informer, EnqueueObject::new(controller.queue()));
        let recorder = Recorder {
            who: who.clone(),
            shard: shard.selector().clone(),
            cache: informer.store(),
            client: client.clone(),
            timeline: timeline.clone(),
        };
        (controller, recorder)
    });
    manager
}

/// A client of the test itself, rebuilt after each server restart.
fn writer_client(server: &ApiServer) -> kube::Client {
    let mut config = server.kube_config();
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

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

fn config_map(name: &str, value: u32) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        data: Some([("v".to_owned(), value.to_string())].into()),
        ..ConfigMap::default()
    }
}

/// One random write; `live` holds when each existing object was last written.
async fn random_write(
    client: &kube::Client,
    rng: &mut SmallRng,
    live: &mut BTreeMap<String, Instant>,
    tally: &mut Tally,
) {
    let name = format!("cm-{}", rng.random_range(0..NAMES));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    // A value never written before: an update that changes nothing is no event, and
    // nothing to reconcile.
    let serial = u32::try_from(tally.get("write: create") + tally.get("write: update")).unwrap();
    let object = config_map(&name, serial);
    let params = PostParams::default();
    // Before the write: its watch event may reach a replica before its answer reaches us.
    let written = Instant::now();
    if !live.contains_key(&name) {
        unfaulted(|| api.create(&params, &object)).await;
        tally.count("write: create");
    } else if rng.random_bool(0.7) {
        unfaulted(|| api.replace(&name, &params, &object)).await;
        tally.count("write: update");
    } else {
        let params = DeleteParams::default();
        unfaulted(|| api.delete(&name, &params)).await;
        live.remove(&name);
        tally.count("write: delete");
        return;
    }
    live.insert(name, written);
}

/// Waits until every shard is held and every live object was reconciled after its last
/// write, checking the timeline as it goes.
async fn converge(
    replicas: &[Replica],
    live: &BTreeMap<String, Instant>,
    timeline: &Timeline,
) -> Result<(), String> {
    let mut last = String::new();
    let wait = async {
        loop {
            let violations = timeline.violations();
            if !violations.is_empty() {
                return Err(format!("{violations:#?}"));
            }
            let held: BTreeSet<u32> = replicas.iter().flat_map(Replica::held).collect();
            let stale: Vec<&String> = live
                .iter()
                .filter(|(name, written)| {
                    let key = format!("{NAMESPACE}/{name}");
                    timeline
                        .last_start(&key)
                        .is_none_or(|start| start < **written)
                })
                .map(|(name, _)| name)
                .collect();
            if held.len() == SHARDS as usize && stale.is_empty() {
                return Ok(());
            }
            let holders: Vec<(String, BTreeSet<u32>)> = replicas
                .iter()
                .map(|r| (r.name.clone(), r.held()))
                .collect();
            let history: Vec<(String, Vec<(String, bool)>)> = stale
                .iter()
                .map(|name| {
                    let key = format!("{NAMESPACE}/{name}");
                    (key.clone(), timeline.last_of(&key))
                })
                .collect();
            last = format!(
                "held {holders:?}, not reconciled since written (key, last reconciles (who, ended)): {history:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    match tokio::time::timeout(GUARD, wait).await {
        Ok(result) => result,
        Err(_) => Err(format!("no convergence within {GUARD:?}: {last}")),
    }
}

/// Kills the replica holding the most shards and measures how long its shards take to
/// be held by the others.
async fn kill_and_measure_takeover(replicas: &mut Vec<Replica>) -> Duration {
    let index = (0..replicas.len())
        .max_by_key(|&i| replicas[i].held().len())
        .unwrap();
    let victim = replicas.remove(index);
    let orphaned = victim.held();
    let killed = Instant::now();
    victim.kill();
    tokio::time::timeout(GUARD, async {
        loop {
            let held: BTreeSet<u32> = replicas.iter().flat_map(Replica::held).collect();
            if orphaned.is_subset(&held) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the dead replica's shards are taken over");
    killed.elapsed()
}

async fn soak(settings: Settings) {
    let _report = settings.report_on_failure();
    let mut rng = settings.rng();
    let mut server = ApiServerConfig::default()
        .history_window(500)
        .start()
        .await
        .unwrap();
    let mut client = writer_client(&server);
    let timeline = Timeline::default();
    let mut spare = 0usize;
    let mut next_name = || {
        spare += 1;
        format!("r{}", spare - 1)
    };
    let mut replicas = Vec::new();
    for _ in 0..REPLICAS {
        replicas.push(Replica::start(&server, next_name(), &timeline).await);
    }
    let mut live = BTreeMap::new();
    let mut tally = Tally::default();
    converge(&replicas, &live, &timeline).await.unwrap();
    let shares: Vec<usize> = replicas.iter().map(|r| r.held().len()).collect();
    println!("shards held per replica at start: {shares:?}");
    let targets = [
        (Verb::Get, "leases"),
        (Verb::Update, "leases"),
        (Verb::List, "configmaps"),
        (Verb::Watch, "configmaps"),
        (Verb::Get, "configmaps"),
    ];
    let mut takeovers = Vec::new();
    let mut actions: Vec<String> = Vec::new();
    for round in 0..settings.rounds {
        let writes = rng.random_range(2..10usize);
        let plan = FaultPlan::random(&mut rng, writes, &targets);
        let mut paused = None;
        for step in 0..=writes {
            for fault in plan.at(step) {
                if fault.inject(&mut server, &mut tally).await {
                    client = writer_client(&server);
                }
            }
            if step < writes {
                random_write(&client, &mut rng, &mut live, &mut tally).await;
            }
        }
        match rng.random_range(0..10u32) {
            0..3 => {
                actions.push(format!("round {round}: kill"));
                takeovers.push(kill_and_measure_takeover(&mut replicas).await);
                tally.count("replica: killed");
            }
            3..5 => {
                let victim = rng.random_range(0..replicas.len());
                actions.push(format!("round {round}: pause {}", replicas[victim].name));
                replicas[victim].proxy.set(Link::Stalled);
                paused = Some(victim);
                tally.count("replica: paused");
            }
            5..7 => {
                let victim = replicas.remove(rng.random_range(0..replicas.len()));
                actions.push(format!("round {round}: stop {}", victim.name));
                victim.stop().await;
                tally.count("replica: stopped");
            }
            _ => {}
        }
        if let Some(victim) = paused {
            // Past a lease: its shards move; then it comes back and campaigns again.
            tokio::time::sleep(LEASE + RENEW).await;
            replicas[victim].proxy.set(Link::Up);
        }
        FaultPlan::heal(&server);
        while replicas.len() < REPLICAS {
            replicas.push(Replica::start(&server, next_name(), &timeline).await);
        }
        if let Err(what) = converge(&replicas, &live, &timeline).await {
            panic!("round {round}: {what}\nreplicas: {actions:?}");
        }
        tally.count("rounds");
    }
    tally.add("reconciles", timeline.count() as u64);
    for replica in replicas {
        replica.stop().await;
    }
    let violations = timeline.violations();
    assert!(violations.is_empty(), "{violations:#?}");
    let millis: Vec<u128> = takeovers.iter().map(Duration::as_millis).collect();
    println!("takeover after a kill (ms): {millis:?}");
    println!("reconciles per replica: {:?}", timeline.by_replica());
    println!("{}", tally.summary(&settings));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_replicas_split_four_shards_and_never_reconcile_a_key_together() {
    soak(Settings::from_env(6)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_replicas_shards_are_taken_over() {
    let server = ApiServer::start().await.unwrap();
    let timeline = Timeline::default();
    let mut replicas = Vec::new();
    for i in 0..REPLICAS {
        replicas.push(Replica::start(&server, format!("r{i}"), &timeline).await);
    }
    let client = writer_client(&server);
    let api: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
    let mut live = BTreeMap::new();
    for i in 0..NAMES {
        let name = format!("cm-{i}");
        let written = Instant::now();
        api.create(&PostParams::default(), &config_map(&name, 0))
            .await
            .unwrap();
        live.insert(name, written);
    }
    converge(&replicas, &live, &timeline).await.unwrap();
    let before = replicas.iter().map(Replica::held).collect::<Vec<_>>();
    let takeover = kill_and_measure_takeover(&mut replicas).await;
    println!("held before the kill: {before:?}; taken over {takeover:?} after the kill");
    // Every object is reconciled again once written after the takeover.
    for name in live.keys().cloned().collect::<Vec<_>>() {
        let written = Instant::now();
        api.replace(&name, &PostParams::default(), &config_map(&name, 1))
            .await
            .unwrap();
        live.insert(name, written);
    }
    converge(&replicas, &live, &timeline).await.unwrap();
    for replica in replicas {
        replica.stop().await;
    }
    let violations = timeline.violations();
    assert!(violations.is_empty(), "{violations:#?}");
    server.shutdown().await;
}
