//! sample-controller's failover demo (`--replicas 3`) end to end against the testkit API
//! server: three replicas under leader election, the leader stopped without release, a
//! Foo changed while nobody leads, a standby taking over. Asserts on the state the demo
//! returns and on the server, never on how long the takeover took.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kubegen::operator::install_crds;
use kubegen::testkit::ApiServer;
use sample_controller::Options;
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::controller::CONTROLLER_NAME;
use sample_controller::demo::{DEMO_NAMESPACE, FooState};
use sample_controller::failover;

/// A guard against a hang, not a timing assertion: the demo takes a few seconds.
const GUARD: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_fail_over_with_one_leader_at_a_time_and_converge() {
    let server = ApiServer::start().await.unwrap();
    install_crds(&server.client(), &[Foo::crd()], "test", GUARD)
        .await
        .unwrap();
    let mut lines = Vec::new();
    let outcome = tokio::time::timeout(
        GUARD,
        failover::run(server.client(), 3, Options::default(), |line| {
            lines.push(line)
        }),
    )
    .await
    .expect("the demo finishes")
    .unwrap();

    // Never two leaders at once; the stopped leader was replaced by another replica.
    assert!(outcome.one_leader_at_a_time(), "{:#?}", outcome.terms);
    assert_ne!(outcome.first_leader, outcome.new_leader);
    let leaders: Vec<&str> = outcome.terms.iter().map(|t| t.replica.as_str()).collect();
    assert_eq!(
        leaders,
        [outcome.first_leader.as_str(), outcome.new_leader.as_str()]
    );
    assert!(outcome.terms.iter().all(|t| t.end.is_some()));
    let replicas: BTreeSet<&str> = ["replica-0", "replica-1", "replica-2"].into();
    assert!(replicas.contains(outcome.first_leader.as_str()));
    assert!(replicas.contains(outcome.new_leader.as_str()));

    // The demo said who led, in turn.
    let said = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(said(&format!("Leader: {}", outcome.first_leader)), 1);
    assert_eq!(said(&format!("New leader: {}", outcome.new_leader)), 1);
    assert_eq!(said("Leader: ") + said("New leader: "), 2, "{lines:#?}");

    // The new leader converged, including the change made while nobody led.
    let report = &outcome.report;
    assert!(report.converged(), "{report}");
    let state = |name: &str| {
        &report
            .foos
            .iter()
            .find(|f| f.foo.name() == name)
            .unwrap()
            .state
    };
    assert_eq!(
        state("web"),
        &FooState::Synced {
            replicas: 5,
            available: 5
        }
    );
    assert_eq!(
        state("example-foo"),
        &FooState::Synced {
            replicas: 1,
            available: 1
        }
    );
    assert_eq!(state("intruder"), &FooState::Refused);

    // Nobody released the Lease: it still names the last leader.
    let lease = Api::<Lease>::namespaced(server.client(), DEMO_NAMESPACE)
        .get(CONTROLLER_NAME)
        .await
        .unwrap();
    let holder = lease.spec.and_then(|s| s.holder_identity);
    assert_eq!(holder.as_deref(), Some(outcome.new_leader.as_str()));
    server.shutdown().await;
}
