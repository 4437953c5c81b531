//! [`Election::step`]: acquiring, renewing, stepping down, releasing.

use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;
use tokio::time::Instant;

use super::scripted::{Call, Mode, ScriptedLock};
use super::*;
use crate::leaderelection::JITTER_FACTOR;

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
    // The holder renews every 14 s, on its own clock: just inside the lease duration. (A
    // renewal made only between the candidate's steps could land a jittered retry period
    // late, and the lease would then really have gone unrenewed for longer than 15 s.)
    let holder = lock.clone();
    let renewing = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(14)).await;
            holder.set(held_by("other", Timestamp::now()));
        }
    });
    let mut state = election.start();
    while Instant::now() - start < LEASE * 10 {
        state = election.step(state).await;
        assert!(matches!(state, State::Candidate { .. }), "{state:?}");
    }
    renewing.abort();
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

#[tokio::test(start_paused = true)]
async fn a_gated_candidate_takes_a_vacant_lease_only_when_the_gate_lets_it() {
    use std::sync::Mutex;

    use crate::leaderelection::Vacancy;

    let asked: Arc<Mutex<Vec<Vacancy>>> = Arc::default();
    let config = {
        let asked = asked.clone();
        config().acquire_if(move |vacancy| {
            asked.lock().unwrap().push(vacancy.clone());
            vacancy.expired_holder.is_some() || vacancy.vacant_for >= LEASE
        })
    };

    // An absent Lease: taken once it has been seen absent for a lease duration.
    let lock = ScriptedLock::new(None);
    let (status, _rx) = watch::channel(LeaderStatus::default());
    let mut election = Election::new(Arc::new(lock.clone()), &config, status);
    let start = Instant::now();
    let first = election.start();
    let (state, acquired) = campaign(&mut election, first).await;
    assert!(matches!(state, State::Leader { .. }));
    assert!(acquired - start >= LEASE, "{:?}", acquired - start);
    assert!(acquired - start < LEASE + RETRY.mul_f64(1.0 + JITTER_FACTOR));
    assert_eq!(asked.lock().unwrap()[0].vacant_for, Duration::ZERO);
    assert_eq!(asked.lock().unwrap()[0].expired_holder, None);

    // A Lease whose holder stopped renewing: taken as soon as it expires, naming it.
    asked.lock().unwrap().clear();
    let lock = ScriptedLock::new(Some(held_by("dead", Timestamp::now())));
    let (status, _rx) = watch::channel(LeaderStatus::default());
    let mut election = Election::new(Arc::new(lock.clone()), &config, status);
    let start = Instant::now();
    let first = election.start();
    let (state, acquired) = campaign(&mut election, first).await;
    assert!(matches!(state, State::Leader { .. }));
    assert_eq!(acquired - start, LEASE);
    let last = asked.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.expired_holder.as_deref(), Some("dead"));
    assert_eq!(last.vacant_for, Duration::ZERO);
    assert_eq!(lock.record().holder, "me");
}
