//! The election's state machine and driver on paused time, against a scripted store.

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::jiff::Timestamp;
use kube::core::Status;
use tokio::sync::watch;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::lock::{LeaseLock, Versioned};
use super::record::LeaseRecord;
use super::state::{Election, State};
use super::*;

/// One call the elector made.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Get,
    Create(String),
    Update(String),
}

/// How the store answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Healthy,
    /// Every call fails with a 500.
    Failing,
    /// Every call hangs forever.
    Hanging,
}

#[derive(Debug)]
struct Inner {
    record: Option<LeaseRecord>,
    version: u64,
    mode: Mode,
    calls: Vec<(Instant, Call)>,
    /// Applied at the start of the next update, as if another replica wrote first.
    interloper: Option<LeaseRecord>,
}

/// An in-memory election record with resourceVersion semantics, recording every call.
#[derive(Clone, Debug)]
struct ScriptedLock(Arc<Mutex<Inner>>);

impl ScriptedLock {
    fn new(record: Option<LeaseRecord>) -> Self {
        Self(Arc::new(Mutex::new(Inner {
            version: u64::from(record.is_some()),
            record,
            mode: Mode::Healthy,
            calls: Vec::new(),
            interloper: None,
        })))
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap()
    }

    fn record(&self) -> LeaseRecord {
        self.inner().record.clone().expect("a record")
    }

    /// Another replica writes `record`.
    fn set(&self, record: LeaseRecord) {
        let mut inner = self.inner();
        inner.record = Some(record);
        inner.version += 1;
    }

    /// Someone changes the object without touching the election's fields.
    fn bump_version(&self) {
        self.inner().version += 1;
    }

    fn mode(&self, mode: Mode) {
        self.inner().mode = mode;
    }

    fn calls(&self) -> Vec<(Instant, Call)> {
        self.inner().calls.clone()
    }

    fn answer<T: Send + 'static>(
        &self,
        call: Call,
        apply: impl FnOnce(&mut Inner) -> Result<T> + Send + 'static,
    ) -> BoxFuture<'static, Result<T>> {
        let this = self.clone();
        Box::pin(async move {
            let mode = {
                let mut inner = this.inner();
                inner.calls.push((Instant::now(), call));
                inner.mode
            };
            match mode {
                Mode::Healthy => apply(&mut this.inner()),
                Mode::Failing => Err(Error::Api {
                    action: "update",
                    lease: "default/test".into(),
                    source: kube::Error::Api(
                        Status::failure("boom", "InternalError")
                            .with_code(500)
                            .boxed(),
                    ),
                }),
                Mode::Hanging => futures::future::pending().await,
            }
        })
    }
}

fn conflict() -> Error {
    Error::Conflict {
        lease: "default/test".into(),
    }
}

impl LeaseLock for ScriptedLock {
    fn get(&self) -> BoxFuture<'_, Result<Option<Versioned>>> {
        self.answer(Call::Get, |inner| {
            Ok(inner.record.clone().map(|record| Versioned {
                record,
                version: inner.version.to_string(),
            }))
        })
    }

    fn create(&self, record: LeaseRecord) -> BoxFuture<'_, Result<String>> {
        self.answer(Call::Create(record.holder.clone()), move |inner| {
            if inner.record.is_some() {
                return Err(conflict());
            }
            inner.record = Some(record);
            inner.version += 1;
            Ok(inner.version.to_string())
        })
    }

    fn update(&self, record: LeaseRecord, version: String) -> BoxFuture<'_, Result<String>> {
        self.answer(Call::Update(record.holder.clone()), move |inner| {
            if let Some(other) = inner.interloper.take() {
                inner.record = Some(other);
                inner.version += 1;
            }
            if inner.record.is_none() || version != inner.version.to_string() {
                return Err(conflict());
            }
            inner.record = Some(record);
            inner.version += 1;
            Ok(inner.version.to_string())
        })
    }

    fn describe(&self) -> String {
        "default/test".into()
    }
}

const LEASE: Duration = Duration::from_secs(15);
const RENEW: Duration = Duration::from_secs(10);
const RETRY: Duration = Duration::from_secs(2);

fn config() -> LeaderElectionConfig {
    LeaderElectionConfig::default()
        .lease_name("test")
        .identity("me")
}

fn held_by(holder: &str, renew_time: Timestamp) -> LeaseRecord {
    LeaseRecord {
        holder: holder.into(),
        lease_duration_seconds: 15,
        acquire_time: Some(renew_time),
        renew_time: Some(renew_time),
        transitions: 3,
    }
}

fn election(lock: &ScriptedLock) -> (Election, watch::Receiver<LeaderStatus>) {
    let (status, rx) = watch::channel(LeaderStatus::default());
    (Election::new(Arc::new(lock.clone()), &config(), status), rx)
}

/// Steps until the state is not a candidate's; returns it and when it was reached.
async fn campaign(election: &mut Election, mut state: State) -> (State, Instant) {
    while let State::Candidate { .. } = state {
        state = election.step(state).await;
    }
    (state, Instant::now())
}

#[tokio::test(start_paused = true)]
async fn a_missing_lease_is_created_then_renewed_every_retry_period_on_the_fast_path() {
    let lock = ScriptedLock::new(None);
    let (mut election, status) = election(&lock);
    let start = Instant::now();
    let state = election.step(election.start()).await;
    assert_eq!(
        state,
        State::Leader {
            renewed: start,
            at: start + RETRY
        }
    );
    let record = lock.record();
    assert_eq!(
        (
            record.holder.as_str(),
            record.lease_duration_seconds,
            record.transitions
        ),
        ("me", 15, 0)
    );
    assert_eq!(status.borrow().leader.as_deref(), Some("me"));

    let mut state = state;
    for _ in 0..3 {
        state = election.step(state).await;
    }
    let calls: Vec<_> = lock
        .calls()
        .into_iter()
        .map(|(at, call)| (at - start, call))
        .collect();
    assert_eq!(
        calls,
        vec![
            (Duration::ZERO, Call::Get),
            (Duration::ZERO, Call::Create("me".into())),
            (RETRY, Call::Update("me".into())),
            (RETRY * 2, Call::Update("me".into())),
            (RETRY * 3, Call::Update("me".into())),
        ]
    );
    // Renewals keep the acquire time and the transition count.
    assert_eq!(lock.record().acquire_time, record.acquire_time);
    assert_eq!(lock.record().transitions, 0);
    assert_ne!(lock.record().renew_time, None);
}

#[tokio::test(start_paused = true)]
async fn an_unchanged_lease_is_taken_over_one_lease_duration_after_it_was_observed_whatever_its_timestamps_say()
 {
    let wall = Timestamp::now();
    let long_ago = wall - jiff_hours(1);
    let far_ahead = wall + jiff_hours(1);
    for renew_time in [long_ago, wall, far_ahead] {
        let lock = ScriptedLock::new(Some(held_by("other", renew_time)));
        let (mut election, status) = election(&lock);
        let start = Instant::now();
        let first = election.start();
        let (state, acquired) = campaign(&mut election, first).await;
        assert!(matches!(state, State::Leader { .. }));
        // Exactly a lease duration after it was first seen: the wait is cut to the expiry.
        assert_eq!(acquired - start, LEASE, "renewTime {renew_time}");
        let record = lock.record();
        assert_eq!((record.holder.as_str(), record.transitions), ("me", 4));
        assert_ne!(record.acquire_time, Some(renew_time));
        assert_eq!(status.borrow().leader.as_deref(), Some("me"));
        // Candidates poll at the jittered retry period meanwhile.
        let polls = lock.calls().iter().filter(|(_, c)| *c == Call::Get).count();
        assert!((4..=9).contains(&polls), "{polls} reads in 15 s");
    }
}

fn jiff_hours(hours: i64) -> k8s_openapi::jiff::SignedDuration {
    k8s_openapi::jiff::SignedDuration::from_hours(hours)
}

#[tokio::test(start_paused = true)]
async fn a_holder_that_keeps_renewing_keeps_the_lease() {
    let lock = ScriptedLock::new(Some(held_by("other", Timestamp::now())));
    let (mut election, status) = election(&lock);
    let start = Instant::now();
    let mut state = election.start();
    let mut renewals = 0;
    while Instant::now() - start < LEASE * 10 {
        // The holder renews every 14 s: just inside the lease duration.
        if renewals * 14 < (Instant::now() - start).as_secs() {
            renewals += 1;
            lock.set(held_by("other", Timestamp::now()));
        }
        state = election.step(state).await;
        assert!(matches!(state, State::Candidate { .. }), "{state:?}");
    }
    assert_eq!(status.borrow().leader.as_deref(), Some("other"));
    assert_eq!(lock.record().holder, "other");
}

#[tokio::test(start_paused = true)]
async fn a_released_lease_is_acquired_on_the_next_attempt() {
    let released = LeaseRecord {
        lease_duration_seconds: 1,
        transitions: 7,
        ..held_by("", Timestamp::now())
    };
    let lock = ScriptedLock::new(Some(released));
    let (mut election, status) = election(&lock);
    let start = Instant::now();
    assert_eq!(status.borrow().leader, None);
    let state = election.step(election.start()).await;
    assert!(matches!(state, State::Leader { renewed, .. } if renewed == start));
    assert_eq!(
        (lock.record().holder.as_str(), lock.record().transitions),
        ("me", 8)
    );
}

#[tokio::test(start_paused = true)]
async fn a_leader_whose_renewals_fail_steps_down_exactly_at_the_renew_deadline() {
    for mode in [Mode::Failing, Mode::Hanging] {
        let lock = ScriptedLock::new(None);
        let (mut election, _status) = election(&lock);
        let mut state = election.step(election.start()).await;
        let State::Leader { renewed, .. } = state else {
            panic!("not leading: {state:?}");
        };
        lock.mode(mode);
        while state != State::Lost {
            state = election.step(state).await;
        }
        assert_eq!(Instant::now() - renewed, RENEW, "{mode:?}");
        let attempts = lock
            .calls()
            .iter()
            .filter(|(_, c)| matches!(c, Call::Update(_)))
            .count();
        // Failing: an attempt every retry period (at 2, 4, 6 and 8 s). Hanging: the first
        // attempt hangs until the deadline.
        let expected = if mode == Mode::Failing { 4 } else { 1 };
        assert_eq!(attempts, expected, "{mode:?}");
        // The record still names the leader: nobody took it, it simply expires.
        assert_eq!(lock.record().holder, "me");
    }
}

#[tokio::test(start_paused = true)]
async fn a_leader_that_sees_another_holder_steps_down_at_once() {
    let lock = ScriptedLock::new(None);
    let (mut election, status) = election(&lock);
    let state = election.step(election.start()).await;
    lock.set(held_by("other", Timestamp::now()));
    let before = Instant::now();
    let state = election.step(state).await;
    assert_eq!(state, State::Lost);
    assert_eq!(Instant::now() - before, RETRY);
    assert_eq!(status.borrow().leader.as_deref(), Some("other"));
}

#[tokio::test(start_paused = true)]
async fn a_conflicting_renewal_reads_the_lease_and_renews_over_the_new_version() {
    let lock = ScriptedLock::new(None);
    let (mut election, _status) = election(&lock);
    let state = election.step(election.start()).await;
    lock.bump_version();
    let state = election.step(state).await;
    assert!(matches!(state, State::Leader { .. }), "{state:?}");
    let calls: Vec<_> = lock.calls().into_iter().map(|(_, c)| c).skip(2).collect();
    assert_eq!(
        calls,
        vec![
            Call::Update("me".into()),
            Call::Get,
            Call::Update("me".into())
        ]
    );
    assert_eq!(
        election.observed().map(|o| o.version.clone()),
        Some("3".into())
    );
}

#[tokio::test(start_paused = true)]
async fn a_lost_race_leaves_the_candidate_waiting_for_the_winner_s_lease() {
    let released = LeaseRecord {
        lease_duration_seconds: 1,
        ..held_by("", Timestamp::now())
    };
    let lock = ScriptedLock::new(Some(released));
    lock.inner().interloper = Some(held_by("winner", Timestamp::now()));
    let (mut election, status) = election(&lock);
    let start = Instant::now();
    let state = election.step(election.start()).await;
    assert!(matches!(state, State::Candidate { .. }), "{state:?}");
    let (state, acquired) = campaign(&mut election, state).await;
    assert!(matches!(state, State::Leader { .. }));
    // The winner's record is first seen on the next read, at most 2.2 retry periods later.
    let waited = acquired - start;
    assert!(
        waited >= LEASE + RETRY && waited <= LEASE + RETRY.mul_f64(2.2),
        "{waited:?}"
    );
    assert_eq!(status.borrow().leader.as_deref(), Some("me"));
}

#[tokio::test(start_paused = true)]
async fn release_frees_the_lease_for_a_second_and_keeps_the_transition_count() {
    let lock = ScriptedLock::new(Some(held_by("other", Timestamp::now())));
    let (mut election, status) = election(&lock);
    let first = election.start();
    let _ = campaign(&mut election, first).await;
    assert!(election.release().await);
    let record = lock.record();
    assert_eq!(
        (
            record.holder(),
            record.lease_duration_seconds,
            record.transitions
        ),
        (None, 1, 4)
    );
    assert_eq!(status.borrow().leader, None);

    // A replica that does not hold the lease writes nothing.
    lock.set(held_by("other", Timestamp::now()));
    let (mut follower, _) = election_with_identity(&lock, "follower");
    let _ = follower.step(follower.start()).await;
    let writes = lock.calls().len();
    assert!(follower.release().await);
    assert_eq!(lock.calls().len(), writes);
    assert_eq!(lock.record().holder, "other");
}

fn election_with_identity(
    lock: &ScriptedLock,
    identity: &str,
) -> (Election, watch::Receiver<LeaderStatus>) {
    let (status, rx) = watch::channel(LeaderStatus::default());
    let config = config().identity(identity);
    (Election::new(Arc::new(lock.clone()), &config, status), rx)
}

/// Records every `leading` value the metrics see.
#[derive(Debug, Default, Clone)]
struct Recorded(Arc<Mutex<Vec<(String, bool)>>>);

impl crate::metrics::leaderelection::LeaderElectionMetrics for Recorded {
    fn leading(&self, name: &str, leading: bool) {
        self.0.lock().unwrap().push((name.to_owned(), leading));
    }
}

/// Records when the status changed, and to what.
fn track(mut status: watch::Receiver<LeaderStatus>) -> Arc<Mutex<Vec<(Instant, LeaderStatus)>>> {
    let seen = Arc::new(Mutex::new(vec![(Instant::now(), status.borrow().clone())]));
    let sink = seen.clone();
    tokio::spawn(async move {
        while status.changed().await.is_ok() {
            let now = status.borrow_and_update().clone();
            sink.lock().unwrap().push((Instant::now(), now));
        }
    });
    seen
}

#[tokio::test(start_paused = true)]
async fn a_lost_lease_cancels_the_work_and_awaits_it_before_reporting_stopped_leading() {
    let lock = ScriptedLock::new(None);
    let metrics = Recorded::default();
    let mut elector =
        LeaderElector::with_lock(Arc::new(lock.clone()), config().metrics(metrics.clone()))
            .unwrap();
    let statuses = track(elector.status());
    let start = Instant::now();
    let failing = lock.clone();
    let outcome = elector
        .run(CancellationToken::new(), |leading| async move {
            sleep(Duration::from_secs(1)).await;
            failing.mode(Mode::Failing);
            leading.cancelled().await;
            let cancelled = Instant::now();
            // Draining takes 3 s, inside the 5 s margin between deadline and lease.
            sleep(Duration::from_secs(3)).await;
            (cancelled, Instant::now())
        })
        .await;
    let Outcome::Led {
        output: (cancelled, drained),
        reason: StepDown::LeaseLost,
    } = outcome
    else {
        panic!("unexpected {outcome:?}");
    };
    // Acquired at 0 s; every renewal failed (at 2, 4, 6 and 8 s): deadline 10 s.
    assert_eq!(cancelled - start, RENEW);
    assert_eq!(drained - cancelled, Duration::from_secs(3));
    sleep(Duration::from_millis(1)).await;
    let statuses = statuses.lock().unwrap().clone();
    let stopped = statuses
        .iter()
        .find(|(_, s)| !s.leading && s.leader.is_some())
        .map(|(at, _)| *at)
        .unwrap();
    assert!(
        stopped >= drained,
        "stopped leading reported before the work finished"
    );
    assert!(statuses.iter().any(|(at, s)| s.leading && *at == start));
    assert_eq!(
        metrics.0.lock().unwrap().clone(),
        vec![
            ("test".into(), false),
            ("test".into(), true),
            ("test".into(), false)
        ]
    );
    // Without release_on_cancel the lease is left to expire.
    assert_eq!(lock.record().holder, "me");
}

#[tokio::test(start_paused = true)]
async fn on_shutdown_the_lease_is_renewed_while_the_work_drains_then_released() {
    let lock = ScriptedLock::new(None);
    let mut elector =
        LeaderElector::with_lock(Arc::new(lock.clone()), config().release_on_cancel(true)).unwrap();
    let shutdown = CancellationToken::new();
    let start = Instant::now();
    let trigger = shutdown.clone();
    tokio::spawn(async move {
        sleep(Duration::from_secs(5)).await;
        trigger.cancel();
    });
    let outcome = elector
        .run(shutdown, |leading| async move {
            leading.cancelled().await;
            // Longer than a whole lease duration: only renewals keep others out.
            sleep(LEASE * 2).await;
            Instant::now()
        })
        .await;
    let Outcome::Led {
        output: drained,
        reason: StepDown::Shutdown,
    } = outcome
    else {
        panic!("unexpected {outcome:?}");
    };
    assert_eq!(drained - start, Duration::from_secs(5) + LEASE * 2);
    let updates: Vec<Instant> = lock
        .calls()
        .into_iter()
        .filter(|(_, c)| matches!(c, Call::Update(_)))
        .map(|(at, _)| at)
        .collect();
    // Renewals every retry period through the drain, then the release.
    assert!(
        updates.windows(2).all(|w| w[1] - w[0] <= RETRY),
        "{updates:?}"
    );
    assert_eq!(updates.last().copied(), Some(drained));
    let record = lock.record();
    assert_eq!((record.holder(), record.lease_duration_seconds), (None, 1));
    assert!(!elector.status().borrow().leading);
}

#[tokio::test(start_paused = true)]
async fn work_that_returns_ends_leadership_and_hands_back_its_output() {
    let lock = ScriptedLock::new(None);
    let mut elector = LeaderElector::with_lock(Arc::new(lock.clone()), config()).unwrap();
    let outcome = elector
        .run(CancellationToken::new(), |_| async {
            sleep(Duration::from_secs(5)).await;
            42
        })
        .await;
    assert_eq!(
        outcome,
        Outcome::Led {
            output: 42,
            reason: StepDown::WorkReturned
        }
    );
    assert_eq!(lock.record().holder, "me");
    // Another run campaigns again and, holding the record still, leads at once.
    let again = elector.run(CancellationToken::new(), |_| async { 7 }).await;
    assert_eq!(
        again,
        Outcome::Led {
            output: 7,
            reason: StepDown::WorkReturned
        }
    );
}

#[tokio::test(start_paused = true)]
async fn shutdown_before_acquiring_never_starts_the_work() {
    let lock = ScriptedLock::new(Some(held_by("other", Timestamp::now())));
    let mut elector = LeaderElector::with_lock(Arc::new(lock.clone()), config()).unwrap();
    let status = elector.status();
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    tokio::spawn(async move {
        sleep(Duration::from_secs(5)).await;
        trigger.cancel();
    });
    let outcome = elector
        .run(shutdown, |_| async { panic!("the work must not start") })
        .await;
    assert_eq!(outcome, Outcome::<()>::NeverLed);
    assert_eq!(
        *status.borrow(),
        LeaderStatus {
            leader: Some("other".into()),
            leading: false
        }
    );
    assert_eq!(lock.record().holder, "other");
}

#[test]
fn an_invalid_config_is_refused() {
    let lock = ScriptedLock::new(None);
    let error =
        LeaderElector::with_lock(Arc::new(lock), config().renew_deadline(LEASE)).unwrap_err();
    assert!(matches!(error, Error::InvalidConfig { .. }), "{error}");
}
