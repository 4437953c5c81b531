//! Leader election end to end: three replicas in one process compete for one Lease on
//! the testkit server while faults hit the leader (killed without release, its link cut,
//! its link stalled, its lease updates failing, released on shutdown), with and without
//! added latency. Every test checks on a shared timeline that no two replicas were ever
//! inside the critical section at once, and measures how long the takeover took (run
//! with `--nocapture` to see the figures).

mod leaderelection_support;

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kubegen_runtime::leaderelection::{JITTER_FACTOR, StepDown};
use kubegen_testkit::{Delay, Failure, Matcher, Verb};
use leaderelection_support::{Cluster, LEASE, LEASE_NAME, Link, RENEW, RETRY, Replica};

/// Room for request latency and scheduling on a loaded machine.
const SLACK: Duration = Duration::from_secs(1);

/// The longest a candidate polls without seeing a change: one jittered retry period.
fn jittered_retry() -> Duration {
    RETRY.mul_f64(1.0 + JITTER_FACTOR)
}

/// After the leader stops renewing, candidates see its last renewal within one jittered
/// retry period and take over one lease duration after they saw it.
fn takeover_bound() -> Duration {
    LEASE + jittered_retry() + SLACK
}

/// After a release, the next candidate poll finds the Lease free.
fn release_bound() -> Duration {
    jittered_retry() + SLACK / 2
}

/// What happens to the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Its task is aborted: no release, no more renewals.
    Kill,
    /// Its connections are reset and new ones refused.
    Cut,
    /// Its requests and responses are held back, then delivered late.
    Stall,
    /// Every lease update fails with 500 (for all replicas) until it has stepped down.
    FailUpdates,
    /// It is shut down with `release_on_cancel`.
    Release,
}

fn fail_lease_updates() -> Failure {
    Failure::status(500)
        .times(usize::MAX)
        .matching(Matcher::any().verb(Verb::Update).resource("leases"))
}

fn lease_latency(by: Duration) -> Delay {
    Delay::new(by).matching(Matcher::any().resource("leases"))
}

/// Applies `fault` to the settled leader, waits for the next holder, checks the bounds,
/// heals (replacing a killed or released replica), and returns the measured takeover.
async fn round(
    cluster: &mut Cluster,
    fault: Fault,
    latency: Option<Duration>,
    spare: &mut usize,
) -> Duration {
    let old = cluster.settled_leader().await;
    let start = Instant::now();
    match fault {
        Fault::Kill => cluster.replica(&old.who).task.abort(),
        Fault::Cut => cluster.replica(&old.who).proxy.set(Link::Cut),
        Fault::Stall => cluster.replica(&old.who).proxy.set(Link::Stalled),
        Fault::FailUpdates => cluster.server.faults().fail(fail_lease_updates()),
        Fault::Release => cluster.replica(&old.who).shutdown.cancel(),
    }
    if fault == Fault::FailUpdates {
        cluster.replica(&old.who).stopped_leading().await;
        let faults = cluster.server.faults();
        faults.clear();
        if let Some(latency) = latency {
            faults.delay(lease_latency(latency));
        }
    }
    let old_exit = cluster.timeline.exit_of(&old).await;
    let new = cluster.timeline.entry_after(start).await;
    let takeover = new.enter - start;
    let (left, bound) = (old_exit - start, takeover_bound());
    println!(
        "leader election, {fault:?}{}: {} left after {:.0} ms, {} took over after {:.0} ms",
        latency.map_or(String::new(), |l| format!(" with {l:?} latency")),
        old.who,
        left.as_secs_f64() * 1e3,
        new.who,
        takeover.as_secs_f64() * 1e3,
    );
    match fault {
        Fault::Release => {
            assert_ne!(new.who, old.who);
            assert!(
                takeover <= release_bound(),
                "{fault:?}: took {takeover:?}, bound {:?}",
                release_bound()
            );
        }
        Fault::FailUpdates => {
            // The old leader steps down at its deadline; once updates work again any
            // replica may win, the old one included (the record still names it).
            assert!(left <= RENEW + SLACK / 2, "{fault:?}: left after {left:?}");
            assert!(
                takeover <= bound,
                "{fault:?}: took {takeover:?}, bound {bound:?}"
            );
        }
        Fault::Kill | Fault::Cut | Fault::Stall => {
            assert_ne!(new.who, old.who);
            if fault != Fault::Kill {
                assert!(left <= RENEW + SLACK / 2, "{fault:?}: left after {left:?}");
            }
            assert!(
                takeover <= bound,
                "{fault:?}: took {takeover:?}, bound {bound:?}"
            );
            // Nobody may take over before the lease could have expired: the leader had
            // renewed within its renew deadline before `start`.
            assert!(
                takeover >= LEASE - RENEW,
                "{fault:?}: took over after {takeover:?}"
            );
        }
    }
    heal(cluster, fault, &old.who, &new.who, spare).await;
    cluster.timeline.assert_exclusive();
    takeover
}

async fn heal(cluster: &mut Cluster, fault: Fault, old: &str, new: &str, spare: &mut usize) {
    match fault {
        Fault::Kill | Fault::Release => {
            let index = cluster
                .replicas
                .iter()
                .position(|r| r.name == old)
                .expect("old replica");
            let replica = cluster.replicas.remove(index);
            if fault == Fault::Release {
                let step_downs = replica.step_downs.clone();
                let _ = replica.task.await;
                // It may have lost the lease in an earlier round; this time it shut down.
                let last = step_downs.lock().expect("lock").last().copied();
                assert_eq!(last, Some(StepDown::Shutdown));
            }
            let name = format!("r{spare}");
            *spare += 1;
            let replacement = Replica::start(&cluster.server, &name, &cluster.timeline).await;
            cluster.replicas.push(replacement);
        }
        Fault::Cut | Fault::Stall => {
            let replica = cluster.replica(old);
            replica.proxy.set(Link::Up);
            assert!(replica.step_downs().contains(&StepDown::LeaseLost));
            // Back as a candidate, it sees the new leader; requests held back while the
            // link was stalled have arrived late and changed nothing.
            let sees_new = replica
                .status
                .wait_for(|s| s.leader.as_deref() == Some(new) && !s.leading);
            tokio::time::timeout(Duration::from_secs(30), sees_new)
                .await
                .expect("the old leader sees the new one")
                .expect("elector alive");
            let lease = Api::<Lease>::namespaced(cluster.server.client(), "default")
                .get(LEASE_NAME)
                .await
                .expect("lease");
            let holder = lease.spec.and_then(|s| s.holder_identity);
            assert_eq!(holder.as_deref(), Some(new));
        }
        Fault::FailUpdates => {
            let replica = cluster.replica(old);
            assert!(replica.step_downs().contains(&StepDown::LeaseLost));
        }
    }
}

async fn single(fault: Fault) {
    let mut cluster = Cluster::start().await;
    let mut spare = cluster.replicas.len();
    round(&mut cluster, fault, None, &mut spare).await;
    let timeline = cluster.timeline.clone();
    cluster.stop().await;
    timeline.assert_exclusive();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_leader_is_replaced_within_a_lease_duration_and_a_retry_period() {
    single(Fault::Kill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_cut_off_from_the_server_steps_down_before_another_takes_over() {
    single(Fault::Cut).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_whose_requests_stall_steps_down_and_its_late_writes_change_nothing() {
    single(Fault::Stall).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_lease_updates_make_the_leader_step_down_at_its_renew_deadline() {
    single(Fault::FailUpdates).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_lease_is_taken_over_within_about_a_retry_period() {
    single(Fault::Release).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leadership_stays_exclusive_through_every_fault_in_turn_with_added_latency() {
    let mut cluster = Cluster::start().await;
    let latency = Duration::from_millis(40);
    cluster.server.faults().delay(lease_latency(latency));
    let mut spare = cluster.replicas.len();
    for fault in [
        Fault::Stall,
        Fault::Kill,
        Fault::FailUpdates,
        Fault::Cut,
        Fault::Release,
    ] {
        round(&mut cluster, fault, Some(latency), &mut spare).await;
    }
    let handovers = cluster.timeline.spans().len() - 1;
    assert!(handovers >= 5, "{handovers} handovers");
    let timeline = cluster.timeline.clone();
    cluster.stop().await;
    timeline.assert_exclusive();
}
