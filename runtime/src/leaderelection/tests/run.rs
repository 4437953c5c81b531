//! [`LeaderElector::run`]: the work under the election.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::super::{Error, LeaderElector, LeaderStatus, Outcome, StepDown};
use super::scripted::{Call, Mode, ScriptedLock};
use super::*;

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

#[tokio::test(start_paused = true)]
async fn a_replica_stops_reporting_leading_before_it_releases_the_lease() {
    let lock = ScriptedLock::new(None);
    let mut elector =
        LeaderElector::with_lock(Arc::new(lock.clone()), config().release_on_cancel(true)).unwrap();
    let mut status = elector.status();
    let shutdown = CancellationToken::new();
    let run = tokio::spawn({
        let (shutdown, lock) = (shutdown.clone(), lock.clone());
        async move {
            elector
                .run(shutdown, |leading| async move {
                    leading.cancelled().await;
                    // The release that follows the work never gets an answer.
                    lock.mode(Mode::Hanging);
                    Instant::now()
                })
                .await
        }
    });
    status.wait_for(|s| s.leading).await.unwrap();
    shutdown.cancel();
    // Once the release is sent another replica may take over: this one must already
    // have said it no longer leads, or two would report leading at once.
    tokio::time::timeout(LEASE, status.wait_for(|s| !s.leading))
        .await
        .expect("not leading while the release is in flight")
        .unwrap();
    let stopped = Instant::now();
    let last_call = lock.calls().last().map(|(at, _)| *at);
    assert_eq!(last_call, Some(stopped), "the release is under way");
    assert!(!run.is_finished());
    run.abort();
}
