//! The reconcile loop on paused time: what each outcome does to the queue, panics,
//! cache-sync waits, drain on shutdown, and one key per worker.

#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::time::Duration;

use tokio::sync::{oneshot, watch};
use tokio::time::Instant;

use super::*;
use crate::metrics::controller::{ControllerMetricsProvider, ReconcileResult};
use crate::metrics::workqueue::{UnfinishedWorkProbe, WorkqueueMetrics, WorkqueueMetricsProvider};
use crate::workqueue::QueueConfig;

fn key(name: &str) -> ObjectKey {
    ObjectKey::namespaced("default", name)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// What a scripted reconcile does.
enum Step {
    Return(Action),
    Fail,
    Panic,
    /// Waits until the sender fires (or is dropped), then returns done.
    Block(oneshot::Receiver<()>),
    /// Takes this long, then returns the action.
    Slow(Duration, Action),
}

/// One call of the scripted reconciler.
#[derive(Clone, Debug)]
struct Call {
    key: ObjectKey,
    at: Instant,
    /// The key's failures tracked by the rate limiter when the call started.
    requeues: u32,
}

#[derive(Debug, thiserror::Error)]
#[error("scripted failure")]
struct Failure;

/// Plays a script per key (done once the script is exhausted) and records every call.
struct Scripted {
    queue: RateLimitingQueue<ObjectKey>,
    steps: Mutex<HashMap<ObjectKey, VecDeque<Step>>>,
    calls: Mutex<Vec<Call>>,
    /// Keys being reconciled now, and whether one was ever reconciled twice at once.
    in_flight: Mutex<HashSet<ObjectKey>>,
    overlapped: AtomicBool,
}

impl Scripted {
    fn new(controller: &Controller) -> Arc<Self> {
        Arc::new(Self {
            queue: controller.queue().clone(),
            steps: Mutex::new(HashMap::new()),
            calls: Mutex::new(Vec::new()),
            in_flight: Mutex::new(HashSet::new()),
            overlapped: AtomicBool::new(false),
        })
    }

    fn script(&self, name: &str, steps: impl IntoIterator<Item = Step>) {
        self.steps
            .lock()
            .unwrap()
            .entry(key(name))
            .or_default()
            .extend(steps);
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn calls_of(&self, name: &str) -> Vec<Call> {
        let wanted = key(name);
        self.calls()
            .into_iter()
            .filter(|c| c.key == wanted)
            .collect()
    }
}

impl Reconciler for Scripted {
    type Error = Failure;

    async fn reconcile(&self, key: &ObjectKey) -> std::result::Result<Action, Failure> {
        if !self.in_flight.lock().unwrap().insert(key.clone()) {
            self.overlapped.store(true, Ordering::SeqCst);
        }
        self.calls.lock().unwrap().push(Call {
            key: key.clone(),
            at: Instant::now(),
            requeues: self.queue.num_requeues(key),
        });
        let step = self
            .steps
            .lock()
            .unwrap()
            .get_mut(key)
            .and_then(VecDeque::pop_front);
        // Leave the in-flight set before any way out, a panic included.
        let result = match step {
            None => Ok(Action::Done),
            Some(Step::Return(action)) => Ok(action),
            Some(Step::Fail) => Err(Failure),
            Some(Step::Panic) => {
                self.in_flight.lock().unwrap().remove(key);
                panic!("scripted panic for {key}");
            }
            Some(Step::Block(release)) => {
                let _ = release.await;
                Ok(Action::Done)
            }
            Some(Step::Slow(duration, action)) => {
                tokio::time::sleep(duration).await;
                Ok(action)
            }
        };
        self.in_flight.lock().unwrap().remove(key);
        result
    }
}

/// Records what a controller reports.
#[derive(Debug, Default)]
struct Recorded {
    results: Mutex<Vec<ReconcileResult>>,
    panics: AtomicU64,
    timeouts: AtomicU64,
    active: AtomicI64,
    max_active: AtomicI64,
    max_concurrent: AtomicU64,
}

impl ControllerMetrics for Arc<Recorded> {
    fn max_concurrent_reconciles(&self, workers: usize) {
        self.max_concurrent.store(workers as u64, Ordering::SeqCst);
    }
    fn worker_busy(&self) {
        let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_active.fetch_max(now, Ordering::SeqCst);
    }
    fn worker_idle(&self) {
        self.active.fetch_sub(1, Ordering::SeqCst);
    }
    fn reconciled(&self, result: ReconcileResult, _: Duration) {
        self.results.lock().unwrap().push(result);
    }
    fn panicked(&self) {
        self.panics.fetch_add(1, Ordering::SeqCst);
    }
    fn timed_out(&self) {
        self.timeouts.fetch_add(1, Ordering::SeqCst);
    }
}

/// Hands out [`Recorded`] for controllers and counts the queue's `done`s.
#[derive(Debug, Default, Clone)]
struct Probe {
    recorded: Arc<Recorded>,
    dones: Arc<AtomicU64>,
}

impl ControllerMetricsProvider for Probe {
    fn controller_metrics(&self, _: &str) -> Option<Arc<dyn ControllerMetrics>> {
        Some(Arc::new(Arc::clone(&self.recorded)))
    }
}

#[derive(Debug)]
struct DoneCounter(Arc<AtomicU64>);

impl WorkqueueMetrics for DoneCounter {
    // The queue reports a work duration exactly when a processed key is marked done.
    fn work_duration(&self, _: Duration) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl WorkqueueMetricsProvider for Probe {
    fn queue_metrics(&self, _: &str, _: UnfinishedWorkProbe) -> Option<Arc<dyn WorkqueueMetrics>> {
        Some(Arc::new(DoneCounter(Arc::clone(&self.dones))))
    }
}

impl Probe {
    fn results(&self) -> Vec<ReconcileResult> {
        self.recorded.results.lock().unwrap().clone()
    }
}

/// A controller reporting to a fresh probe.
fn controller(workers: usize) -> (Controller, Probe) {
    controller_with(workers, |config| config)
}

/// [`controller`] with more settings.
fn controller_with(
    workers: usize,
    configure: impl FnOnce(ControllerConfig) -> ControllerConfig,
) -> (Controller, Probe) {
    let probe = Probe::default();
    let config = ControllerConfig::default()
        .name("test")
        .workers(workers)
        .queue(QueueConfig::default().metrics(probe.clone()))
        .metrics(probe.clone());
    (Controller::new(configure(config)), probe)
}

/// Runs `controller` with `reconciler` in a task; stop it with the returned sender.
fn start(
    controller: &Controller,
    reconciler: Arc<Scripted>,
) -> (oneshot::Sender<()>, tokio::task::JoinHandle<Result<()>>) {
    let (stop, stopped) = oneshot::channel::<()>();
    let controller = controller.clone();
    let task = tokio::spawn(async move {
        controller
            .run(reconciler, async {
                let _ = stopped.await;
            })
            .await
    });
    (stop, task)
}

async fn wait_processed(controller: &Controller, count: u64) {
    controller
        .processed()
        .wait_for(|n| *n >= count)
        .await
        .unwrap();
}

async fn stop(stop: oneshot::Sender<()>, task: tokio::task::JoinHandle<Result<()>>) {
    stop.send(()).unwrap();
    task.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn errors_retry_with_backoff_until_success_forgets_the_key() {
    let (controller, probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    reconciler.script("a", [Step::Fail, Step::Fail, Step::Fail]);
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 4).await;

    let calls = reconciler.calls_of("a");
    let requeues: Vec<u32> = calls.iter().map(|c| c.requeues).collect();
    assert_eq!(requeues, [0, 1, 2, 3], "each failure counts once");
    let gaps: Vec<Duration> = calls.windows(2).map(|w| w[1].at - w[0].at).collect();
    assert_eq!(
        gaps,
        [ms(5), ms(10), ms(20)],
        "the default limiter's backoff"
    );
    assert_eq!(
        controller.queue().num_requeues(&key("a")),
        0,
        "success forgets"
    );
    assert_eq!(
        probe.results(),
        [
            ReconcileResult::Error,
            ReconcileResult::Error,
            ReconcileResult::Error,
            ReconcileResult::Success
        ]
    );
    assert_eq!(
        probe.dones.load(Ordering::SeqCst),
        4,
        "done after every reconcile"
    );
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn requeue_is_rate_limited_and_requeue_after_forgets_and_waits() {
    let (controller, probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    reconciler.script(
        "a",
        [
            Step::Return(Action::Requeue),
            Step::Return(Action::Requeue),
            Step::Return(Action::RequeueAfter(Duration::from_secs(30))),
        ],
    );
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 4).await;

    let calls = reconciler.calls_of("a");
    let gaps: Vec<Duration> = calls.windows(2).map(|w| w[1].at - w[0].at).collect();
    assert_eq!(gaps, [ms(5), ms(10), Duration::from_secs(30)]);
    let requeues: Vec<u32> = calls.iter().map(|c| c.requeues).collect();
    assert_eq!(requeues, [0, 1, 2, 0], "requeue-after forgot the backoff");
    assert_eq!(
        probe.results(),
        [
            ReconcileResult::Requeue,
            ReconcileResult::Requeue,
            ReconcileResult::RequeueAfter,
            ReconcileResult::Success
        ]
    );
    assert_eq!(probe.dones.load(Ordering::SeqCst), 4);
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn an_event_during_requeue_after_is_processed_at_once() {
    let (controller, _probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    reconciler.script(
        "a",
        [Step::Return(Action::RequeueAfter(Duration::from_secs(60)))],
    );
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 1).await;
    let first = reconciler.calls_of("a")[0].at;

    tokio::time::sleep(Duration::from_secs(1)).await;
    controller.queue().add(key("a")); // a watch event supersedes the pending requeue
    wait_processed(&controller, 2).await;
    let calls = reconciler.calls_of("a");
    assert_eq!(calls[1].at - first, Duration::from_secs(1));
    // Nothing fires at the 60 s mark: the event's reconcile decided (done).
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert_eq!(reconciler.calls_of("a").len(), 2);
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn a_panic_is_caught_counted_and_retried_and_the_worker_lives_on() {
    let (controller, probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    reconciler.script("a", [Step::Panic]);
    controller.queue().add(key("a"));
    controller.queue().add(key("b"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 3).await;

    let order: Vec<String> = reconciler
        .calls()
        .iter()
        .map(|c| c.key.name().to_owned())
        .collect();
    // The one worker went on to "b", then retried "a" after its first backoff step.
    assert_eq!(order, ["a", "b", "a"]);
    let retries = reconciler.calls_of("a");
    assert_eq!(retries[1].at - retries[0].at, ms(5));
    assert_eq!(retries[1].requeues, 1, "the panic counted as a failure");
    assert_eq!(probe.recorded.panics.load(Ordering::SeqCst), 1);
    assert_eq!(
        probe.results(),
        [
            ReconcileResult::Error,
            ReconcileResult::Success,
            ReconcileResult::Success
        ]
    );
    assert_eq!(
        probe.dones.load(Ordering::SeqCst),
        3,
        "done ran after the panic too"
    );
    assert_eq!(probe.recorded.active.load(Ordering::SeqCst), 0);
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn a_reconcile_past_its_timeout_is_dropped_counted_and_retried() {
    let (controller, probe) =
        controller_with(1, |config| config.reconcile_timeout(Duration::from_secs(1)));
    let reconciler = Scripted::new(&controller);
    reconciler.script("a", [Step::Slow(Duration::from_secs(3600), Action::Done)]);
    controller.queue().add(key("a"));
    controller.queue().add(key("b"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 3).await;

    let order: Vec<String> = reconciler
        .calls()
        .iter()
        .map(|c| c.key.name().to_owned())
        .collect();
    // The worker gave up on "a" after a second, went on to "b", then retried "a".
    assert_eq!(order, ["a", "b", "a"]);
    let retries = reconciler.calls_of("a");
    assert_eq!(
        retries[1].at - retries[0].at,
        Duration::from_secs(1) + ms(5)
    );
    assert_eq!(retries[1].requeues, 1, "the timeout counted as a failure");
    assert_eq!(probe.recorded.timeouts.load(Ordering::SeqCst), 1);
    assert_eq!(probe.recorded.panics.load(Ordering::SeqCst), 0);
    assert_eq!(
        probe.results(),
        [
            ReconcileResult::Error,
            ReconcileResult::Success,
            ReconcileResult::Success
        ]
    );
    assert_eq!(probe.recorded.active.load(Ordering::SeqCst), 0);
    stop(stopper, task).await;
}

/// A cache that syncs when told to.
struct FakeCache(watch::Sender<bool>);

impl HasSynced for FakeCache {
    fn has_synced(&self) -> bool {
        *self.0.borrow()
    }
    fn synced_receiver(&self) -> watch::Receiver<bool> {
        self.0.subscribe()
    }
}

#[tokio::test(start_paused = true)]
async fn workers_start_only_once_the_caches_synced() {
    let (controller, probe) = controller(2);
    let synced = watch::Sender::new(false);
    controller.wait_for(FakeCache(synced.clone()));
    controller.wait_for(FakeCache(watch::Sender::new(true)));
    let reconciler = Scripted::new(&controller);
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));

    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(
        reconciler.calls().is_empty(),
        "no reconcile before the caches sync"
    );
    assert_eq!(probe.recorded.max_concurrent.load(Ordering::SeqCst), 0);
    let synced_at = Instant::now();
    synced.send_replace(true);
    wait_processed(&controller, 1).await;
    assert_eq!(reconciler.calls()[0].at, synced_at);
    assert_eq!(probe.recorded.max_concurrent.load(Ordering::SeqCst), 2);
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn caches_that_do_not_sync_in_time_fail_the_run() {
    let controller = Controller::new(
        ControllerConfig::default()
            .name("slow")
            .cache_sync_timeout(Duration::from_secs(5)),
    );
    controller.wait_for(FakeCache(watch::Sender::new(false)));
    controller.wait_for(FakeCache(watch::Sender::new(true)));
    let reconciler = Scripted::new(&controller);
    controller.queue().add(key("a"));
    let started = Instant::now();
    let error = controller
        .run(Arc::clone(&reconciler), std::future::pending())
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert!(
        matches!(
            &error,
            Error::CacheSyncTimeout { controller, unsynced: 1, total: 2, timeout, informers }
                if controller == "slow" && *timeout == Duration::from_secs(5) && informers.is_empty()
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "failed to start controller slow: 1 of 2 caches did not sync within 5s"
    );
    assert!(reconciler.calls().is_empty());
    assert!(controller.queue().is_shutting_down());
}

#[tokio::test(start_paused = true)]
async fn a_stop_while_the_caches_sync_returns_without_reconciling() {
    let (controller, _probe) = controller(1);
    controller.wait_for(FakeCache(watch::Sender::new(false)));
    let reconciler = Scripted::new(&controller);
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop(stopper, task).await;
    assert!(reconciler.calls().is_empty());
    assert!(controller.queue().is_shutting_down());
}

#[tokio::test(start_paused = true)]
async fn shutdown_drains_the_queue_and_waits_for_the_key_in_flight() {
    let (controller, probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    let (release, blocked) = oneshot::channel();
    reconciler.script("a", [Step::Block(blocked)]);
    // "c" would come back later: a pending retry is dropped by the drain.
    reconciler.script(
        "c",
        [Step::Return(Action::RequeueAfter(Duration::from_secs(1)))],
    );
    controller.queue().add(key("a"));
    controller.queue().add(key("b"));
    controller.queue().add(key("c"));
    let (stopper, mut task) = start(&controller, Arc::clone(&reconciler));
    wait_for_calls(&reconciler, 1).await; // "a" is in flight

    stopper.send(()).unwrap();
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(!task.is_finished(), "run waits for the key in flight");
    assert!(controller.queue().is_shutting_down());
    controller.queue().add(key("d")); // ignored: the controller stopped taking keys

    release.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(60), &mut task)
        .await
        .expect("run returns after the drain")
        .unwrap()
        .unwrap();
    let order: Vec<String> = reconciler
        .calls()
        .iter()
        .map(|c| c.key.name().to_owned())
        .collect();
    assert_eq!(
        order,
        ["a", "b", "c"],
        "queued keys finished, nothing after"
    );
    assert_eq!(probe.dones.load(Ordering::SeqCst), 3);
    assert_eq!(controller.queue().waiting_len(), 0);
}

async fn wait_for_calls(reconciler: &Scripted, count: usize) {
    while reconciler.calls().len() < count {
        tokio::time::sleep(ms(1)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_key_is_never_reconciled_by_two_workers_at_once() {
    let (controller, probe) = controller(4);
    let reconciler = Scripted::new(&controller);
    // Slow reconciles, and the same keys added again and again while they run.
    let names: Vec<String> = (0..6).map(|i| format!("k{i}")).collect();
    for name in &names {
        reconciler.script(
            name,
            (0..5).map(|_| Step::Slow(ms(3), Action::RequeueAfter(ms(1)))),
        );
    }
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    for round in 0..50 {
        for name in &names {
            controller.queue().add(key(name));
        }
        tokio::time::sleep(ms(1 + round % 3)).await;
    }
    wait_processed(&controller, 50).await;
    assert!(!reconciler.overlapped.load(Ordering::SeqCst));
    assert!(
        probe.recorded.max_active.load(Ordering::SeqCst) > 1,
        "workers ran in parallel"
    );
    assert!(probe.recorded.max_active.load(Ordering::SeqCst) <= 4);
    stop(stopper, task).await;
    assert_eq!(probe.recorded.active.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_controller_runs_once() {
    let (controller, _probe) = controller(1);
    let reconciler = Scripted::new(&controller);
    controller.queue().add(key("a"));
    let (stopper, task) = start(&controller, Arc::clone(&reconciler));
    wait_processed(&controller, 1).await;
    let error = controller
        .run(Arc::clone(&reconciler), std::future::ready(()))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::AlreadyStarted { .. }), "{error:?}");
    stop(stopper, task).await;
}

#[tokio::test(start_paused = true)]
async fn an_unnamed_queue_takes_the_controller_name() {
    #[derive(Debug, Default, Clone)]
    struct Names(Arc<Mutex<Vec<String>>>);
    impl WorkqueueMetricsProvider for Names {
        fn queue_metrics(
            &self,
            name: &str,
            _: UnfinishedWorkProbe,
        ) -> Option<Arc<dyn WorkqueueMetrics>> {
            self.0.lock().unwrap().push(name.to_owned());
            None
        }
    }
    let names = Names::default();
    let _unnamed = Controller::new(
        ControllerConfig::default()
            .name("foos")
            .queue(QueueConfig::default().metrics(names.clone())),
    );
    let _named = Controller::new(
        ControllerConfig::default().name("bars").queue(
            QueueConfig::default()
                .name("bar-queue")
                .metrics(names.clone()),
        ),
    );
    assert_eq!(*names.0.lock().unwrap(), ["foos", "bar-queue"]);
}
