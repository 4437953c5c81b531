//! A seeded soak of shared informers against the testkit API server: rounds of random
//! creates, updates and deletes of ConfigMaps in a few namespaces, interleaved with
//! random faults (dropped watches, compaction, 410/429/5xx answers with and without
//! Retry-After, latency, paused delivery, deletes missed while disconnected, server
//! restarts that keep their data). After every round, once each informer has caught up
//! with the server's resourceVersion, its cache equals the server's objects, and every
//! handler's replayed history is consistent and ends in the same objects.
//!
//! `KUBEGEN_SOAK_SEED` replays a run (the seed is printed on failure);
//! `KUBEGEN_SOAK_ROUNDS` sets the number of rounds. The `#[ignore]`d test is the long
//! soak: `cargo test -p kubegen-runtime --test soak_informer --
//! --ignored --nocapture`.
//!
//! The reflectors give a request up after 5 s without an answer (their request
//! timeout), well inside the 30 s guard. The testkit should answer at once, so every
//! request given up is printed and counted ("stalled requests" in the summary), to be
//! replayed with the seed printed at the start.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod soak_support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::informer::{
    DeletedObject, EventHandler, HandlerRegistration, InformerConfig, SharedInformer,
};
use kubegen_runtime::metrics::informer::ReflectorMetrics;
use kubegen_runtime::reflector::{Error as ReflectorError, ReflectorConfig};
use kubegen_testkit::{ApiServer, ApiServerConfig, Verb};
use rand::RngExt;
use rand::rngs::SmallRng;
use soak_support::{FaultPlan, Settings, Tally};
use tokio::sync::Notify;

const NAMESPACES: [&str; 3] = ["soak-a", "soak-b", "soak-c"];
const NAMES_PER_NAMESPACE: usize = 6;
/// A guard against a hang, not a timing assertion: a round converges in milliseconds.
const GUARD: Duration = Duration::from_secs(30);
/// How long a reflector's list or watch may go unanswered before it is given up.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Fast retries, so that faults cost milliseconds (Retry-After still wins).
const SOAK_BACKOFF: Backoff = Backoff {
    duration: Duration::from_millis(2),
    factor: 2.0,
    jitter: 1.0,
    steps: u32::MAX,
    cap: Some(Duration::from_millis(50)),
    reset_after: Some(Duration::from_secs(1)),
};

/// What the soak compares: one object as the server, a cache or a handler knows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Seen {
    uid: String,
    resource_version: u64,
    data: BTreeMap<String, String>,
}

type Snapshot = BTreeMap<(String, String), Seen>;

fn rv_of(cm: &ConfigMap) -> u64 {
    cm.metadata
        .resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .unwrap_or(0)
}

fn uid_of(cm: &ConfigMap) -> String {
    cm.metadata.uid.clone().unwrap_or_default()
}

fn key_of(cm: &ConfigMap) -> (String, String) {
    (
        cm.metadata.namespace.clone().unwrap_or_default(),
        cm.metadata.name.clone().unwrap_or_default(),
    )
}

fn seen(cm: &ConfigMap) -> Seen {
    Seen {
        uid: uid_of(cm),
        resource_version: rv_of(cm),
        data: cm.data.clone().unwrap_or_default(),
    }
}

fn snapshot<'a>(objects: impl IntoIterator<Item = &'a ConfigMap>) -> Snapshot {
    objects.into_iter().map(|o| (key_of(o), seen(o))).collect()
}

/// How `got` differs from `expected`, key by key.
fn diff(expected: &Snapshot, got: &Snapshot) -> String {
    let keys: std::collections::BTreeSet<_> = expected.keys().chain(got.keys()).collect();
    keys.into_iter()
        .filter(|k| expected.get(*k) != got.get(*k))
        .map(|k| {
            format!(
                "{k:?}: expected {:?}, got {:?}",
                expected.get(k),
                got.get(k)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The reflector's last-seen resourceVersion, relist count and requests given up, with a
/// wake-up on change.
#[derive(Default)]
struct Probe {
    resource_version: AtomicU64,
    relists: AtomicU64,
    stalled: AtomicU64,
    changed: Notify,
}

impl ReflectorMetrics for Probe {
    fn last_resource_version(&self, resource_version: &str) {
        if let Ok(rv) = resource_version.parse() {
            self.resource_version.store(rv, Ordering::SeqCst);
            self.changed.notify_waiters();
        }
    }
    fn relist(&self) {
        self.relists.fetch_add(1, Ordering::Relaxed);
    }
}

/// One handler's view of the history it was told, checked event by event.
#[derive(Default)]
struct History {
    live: HashMap<String, Arc<ConfigMap>>,
    gone: HashSet<String>,
    violations: Vec<String>,
    resyncs: u64,
    tombstones: u64,
}

impl History {
    fn violation(&mut self, what: String) {
        if self.violations.len() < 20 {
            self.violations.push(what);
        }
    }

    fn view(&self) -> Snapshot {
        snapshot(self.live.values().map(|o| o.as_ref()))
    }
}

/// A handler that checks every notification against the history it has seen.
struct Recorder {
    history: Arc<Mutex<History>>,
    changed: Arc<Notify>,
}

impl Recorder {
    fn record(&self, f: impl FnOnce(&mut History)) {
        f(&mut self.history.lock().unwrap());
        self.changed.notify_waiters();
    }
}

impl EventHandler<ConfigMap> for Recorder {
    fn on_add(&mut self, object: Arc<ConfigMap>, _in_initial_list: bool) {
        self.record(|h| {
            let uid = uid_of(&object);
            if h.gone.contains(&uid) {
                h.violation(format!("add after delete: {:?}", key_of(&object)));
            }
            if h.live.contains_key(&uid) {
                h.violation(format!("second add: {:?}", key_of(&object)));
            }
            h.live.insert(uid, object);
        });
    }

    fn on_update(&mut self, old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        self.record(|h| {
            let uid = uid_of(&new);
            let key = key_of(&new);
            if uid_of(&old) != uid {
                h.violation(format!("update across uids: {key:?}"));
            }
            let Some(last) = h.live.get(&uid).cloned() else {
                let when = if h.gone.contains(&uid) {
                    "after delete"
                } else {
                    "before add"
                };
                h.violation(format!("update {when}: {key:?}"));
                return;
            };
            if Arc::ptr_eq(&old, &new) {
                h.resyncs += 1;
                if seen(&new) != seen(&last) {
                    h.violation(format!(
                        "resync re-delivered a changed object: {key:?} rv {} after rv {}",
                        rv_of(&new),
                        rv_of(&last)
                    ));
                }
            } else {
                if rv_of(&old) != rv_of(&last) {
                    h.violation(format!(
                        "update's old state rv {} is not the last delivered rv {}: {key:?}",
                        rv_of(&old),
                        rv_of(&last)
                    ));
                }
                if rv_of(&new) < rv_of(&last) {
                    h.violation(format!(
                        "resourceVersion went back from {} to {}: {key:?}",
                        rv_of(&last),
                        rv_of(&new)
                    ));
                }
            }
            h.live.insert(uid, new);
        });
    }

    fn on_delete(&mut self, object: DeletedObject<ConfigMap>) {
        self.record(|h| {
            let gone = object.object();
            let uid = uid_of(gone);
            let key = key_of(gone);
            let Some(last) = h.live.remove(&uid) else {
                h.violation(format!(
                    "delete of an object never added or deleted twice: {key:?}"
                ));
                return;
            };
            h.gone.insert(uid);
            if object.is_final_state_unknown() {
                h.tombstones += 1;
                if seen(gone) != seen(&last) {
                    h.violation(format!("tombstone is not the last known state: {key:?}"));
                }
            } else if rv_of(gone) < rv_of(&last) {
                h.violation(format!(
                    "delete's resourceVersion {} is older than the last delivered {}: {key:?}",
                    rv_of(gone),
                    rv_of(&last)
                ));
            }
        });
    }
}

/// An informer under test, its probe and its handlers.
struct Watched {
    name: &'static str,
    informer: SharedInformer<ConfigMap>,
    probe: Arc<Probe>,
    handlers: Vec<(HandlerRegistration, Arc<Mutex<History>>)>,
    removed: Vec<Arc<Mutex<History>>>,
}

impl Watched {
    fn start(
        name: &'static str,
        server: &ApiServer,
        streaming: bool,
        resyncs: &[Option<Duration>],
        changed: &Arc<Notify>,
    ) -> Self {
        let probe = Arc::new(Probe::default());
        let reflector = ReflectorConfig::default()
            .name(name)
            .page_size(4)
            .backoff(SOAK_BACKOFF)
            .min_watch_timeout(Duration::from_secs(2))
            .request_timeout(REQUEST_TIMEOUT)
            .streaming_initial_list(streaming)
            .metrics(probe.clone())
            .error_handler({
                let probe = probe.clone();
                move |error| {
                    if let ReflectorError::Timeout { .. } = error {
                        eprintln!("soak: {error}");
                        probe.stalled.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        let informer = SharedInformer::new(
            Api::<ConfigMap>::all(server.client()),
            InformerConfig::default().reflector(reflector),
        );
        let mut watched = Self {
            name,
            informer,
            probe,
            handlers: Vec::new(),
            removed: Vec::new(),
        };
        for resync in resyncs {
            watched.add_handler(*resync, changed);
        }
        watched.informer.start();
        watched
    }

    fn add_handler(&mut self, resync: Option<Duration>, changed: &Arc<Notify>) {
        let history = Arc::new(Mutex::new(History::default()));
        let recorder = Recorder {
            history: history.clone(),
            changed: changed.clone(),
        };
        let registration = match resync {
            Some(period) => self
                .informer
                .add_event_handler_with_resync(recorder, period),
            None => self.informer.add_event_handler(recorder),
        };
        self.handlers.push((registration, history));
    }

    fn remove_handler(&mut self, index: usize) {
        let (registration, history) = self.handlers.remove(index);
        self.informer.remove_event_handler(&registration);
        self.removed.push(history);
    }

    /// What is still wrong, or `None` once cache and handlers match the server.
    fn lag(&self, server_rv: u64, expected: &Snapshot) -> Option<String> {
        let seen_rv = self.probe.resource_version.load(Ordering::SeqCst);
        if seen_rv < server_rv {
            return Some(format!("{}: at rv {seen_rv} of {server_rv}", self.name));
        }
        let cached = snapshot(self.informer.store().list().iter().map(|o| o.as_ref()));
        if &cached != expected {
            return Some(format!("{}: cache {}", self.name, diff(expected, &cached)));
        }
        for (i, (_, history)) in self.handlers.iter().enumerate() {
            let view = history.lock().unwrap().view();
            if &view != expected {
                return Some(format!(
                    "{}: handler {i} {}",
                    self.name,
                    diff(expected, &view)
                ));
            }
        }
        None
    }

    fn violations(&self) -> Vec<String> {
        self.handlers
            .iter()
            .map(|(_, h)| h)
            .chain(&self.removed)
            .flat_map(|h| h.lock().unwrap().violations.clone())
            .collect()
    }

    fn counts(&self) -> (u64, u64) {
        self.handlers
            .iter()
            .map(|(_, h)| h)
            .chain(&self.removed)
            .fold((0, 0), |(r, t), h| {
                let h = h.lock().unwrap();
                (r + h.resyncs, t + h.tombstones)
            })
    }
}

/// A client for the soak's own writes, rebuilt after each restart so that no pooled
/// connection to the old server process is reused.
fn writer_client(server: &ApiServer) -> kube::Client {
    let mut config = server.kube_config();
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

fn random_data(rng: &mut SmallRng) -> BTreeMap<String, String> {
    (0..rng.random_range(0..4usize))
        .map(|i| (format!("k{i}"), format!("v{}", rng.random_range(0..5u32))))
        .collect()
}

/// One random write; `live` is the set of existing (namespace, name) keys, which only
/// the soak changes.
async fn random_write(
    client: &kube::Client,
    rng: &mut SmallRng,
    live: &mut HashMap<(String, String), BTreeMap<String, String>>,
    tally: &mut Tally,
) {
    let ns = NAMESPACES[rng.random_range(0..NAMESPACES.len())];
    let name = format!("cm-{}", rng.random_range(0..NAMES_PER_NAMESPACE));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    let key = (ns.to_owned(), name.clone());
    let object = |data: BTreeMap<String, String>| ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            ..ObjectMeta::default()
        },
        data: Some(data),
        ..ConfigMap::default()
    };
    match live.get(&key).cloned() {
        None => {
            let data = random_data(rng);
            api.create(&PostParams::default(), &object(data.clone()))
                .await
                .unwrap();
            live.insert(key, data);
            tally.count("write: create");
        }
        Some(current) if rng.random_bool(0.6) => {
            // Sometimes the same data: a no-op update, which a server does not record.
            let data = if rng.random_bool(0.15) {
                current
            } else {
                random_data(rng)
            };
            api.replace(&name, &PostParams::default(), &object(data.clone()))
                .await
                .unwrap();
            live.insert(key, data);
            tally.count("write: update");
        }
        Some(_) => {
            api.delete(&name, &DeleteParams::default()).await.unwrap();
            live.remove(&key);
            tally.count("write: delete");
        }
    }
}

async fn server_state(client: &kube::Client) -> Snapshot {
    let api: Api<ConfigMap> = Api::all(client.clone());
    let list = api.list(&ListParams::default()).await.unwrap();
    snapshot(
        list.items
            .iter()
            .filter(|o| NAMESPACES.contains(&o.metadata.namespace.as_deref().unwrap_or(""))),
    )
}

/// Waits until every informer has caught up with the server and matches it.
async fn converge(
    server: &ApiServer,
    client: &kube::Client,
    informers: &[Watched],
    changed: &Notify,
) -> Result<(), String> {
    let expected = server_state(client).await;
    let server_rv = server.resource_version();
    let wait = async {
        loop {
            let notified = changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let probes: Vec<_> = informers
                .iter()
                .map(|w| w.probe.changed.notified())
                .collect();
            if informers
                .iter()
                .all(|w| w.lag(server_rv, &expected).is_none())
            {
                return;
            }
            // A watch at an older resourceVersion learns the current one from a bookmark.
            server.faults().send_bookmarks();
            // Re-check on any change, and now and then in case a bookmark found no open
            // watch (it was being re-opened).
            tokio::select! {
                () = notified => {}
                _ = futures::future::select_all(probes.into_iter().map(Box::pin)) => {}
                () = tokio::time::sleep(Duration::from_millis(20)) => {}
            }
        }
    };
    match tokio::time::timeout(GUARD, wait).await {
        Ok(()) => Ok(()),
        Err(_) => Err(informers
            .iter()
            .filter_map(|w| w.lag(server_rv, &expected))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

async fn soak(settings: Settings) {
    let _report = settings.report_on_failure();
    let mut rng = settings.rng();
    let mut server = ApiServerConfig::default()
        .history_window(200)
        .start()
        .await
        .unwrap();
    let mut client = writer_client(&server);
    let namespaces: Api<Namespace> = Api::all(client.clone());
    for ns in NAMESPACES {
        let namespace = Namespace {
            metadata: ObjectMeta {
                name: Some(ns.into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        namespaces
            .create(&PostParams::default(), &namespace)
            .await
            .unwrap();
    }
    let changed = Arc::new(Notify::new());
    let resync = Some(Duration::from_millis(25));
    let mut informers = vec![
        Watched::start("list-watch", &server, false, &[None, resync], &changed),
        Watched::start("streaming", &server, true, &[None], &changed),
    ];
    let mut live = HashMap::new();
    let mut tally = Tally::default();
    for round in 0..settings.rounds {
        let writes = rng.random_range(1..12usize);
        let plan = FaultPlan::random(
            &mut rng,
            writes,
            &[(Verb::List, "configmaps"), (Verb::Watch, "configmaps")],
        );
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
        // Handlers come and go: a late one gets the cache replayed, a removed one
        // gets nothing more.
        if rng.random_bool(0.05) {
            let watched = &mut informers[rng.random_range(0..2usize)];
            watched.add_handler(None, &changed);
            tally.count("handler: added");
        } else if rng.random_bool(0.03) && informers[0].handlers.len() > 2 {
            let last = informers[0].handlers.len() - 1;
            informers[0].remove_handler(last);
            tally.count("handler: removed");
        }
        FaultPlan::heal(&server);
        if let Err(lag) = converge(&server, &client, &informers, &changed).await {
            panic!("round {round}: informers did not converge: {lag}");
        }
        for watched in &informers {
            let violations = watched.violations();
            assert!(
                violations.is_empty(),
                "round {round}: {} handlers saw an inconsistent history: {violations:#?}",
                watched.name
            );
        }
        tally.count("rounds");
    }
    for watched in &informers {
        let (resyncs, tombstones) = watched.counts();
        tally.add(&format!("{}: resync deliveries", watched.name), resyncs);
        tally.add(&format!("{}: tombstones", watched.name), tombstones);
        tally.add(
            &format!("{}: relists", watched.name),
            watched.probe.relists.load(Ordering::Relaxed),
        );
        tally.add(
            &format!("{}: stalled requests", watched.name),
            watched.probe.stalled.load(Ordering::Relaxed),
        );
        watched.informer.shutdown().await;
    }
    println!("{}", tally.summary(&settings));
    server.shutdown().await;
}

/// The CI soak: 150 rounds take 10 to 30 s on a loaded 2-core machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informers_converge_under_random_faults() {
    soak(Settings::from_env(150)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long soak: run with --ignored"]
async fn informers_converge_under_random_faults_long() {
    soak(Settings::from_env(3000)).await;
}
