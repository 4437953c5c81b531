//! sample-controller's sharding demo (`--replicas 3 --shards 3`) end to end against the
//! testkit API server: the Foos split by namespace into three shards, one Lease each,
//! a replica killed and its shards taken over. Asserts on the state the demo returns and
//! on the server, never on how long the takeover took.
#![cfg(feature = "embedded")]
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ListParams};
use kubegen::operator::install_crds;
use kubegen::testkit::ApiServer;
use sample_controller::Options;
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::controller::CONTROLLER_NAME;
use sample_controller::sharding::{self, ShardingOptions};

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(180);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_split_the_foos_and_take_over_a_killed_ones_shards() {
    let server = ApiServer::start().await.unwrap();
    install_crds(&server.client(), &[Foo::crd()], "test", GUARD)
        .await
        .unwrap();
    let options = ShardingOptions {
        replicas: 3,
        shards: 3,
        namespaces: 12,
        foos: 36,
        options: Options::default(),
    };
    let mut lines = Vec::new();
    let outcome = tokio::time::timeout(
        GUARD,
        sharding::run(server.kube_config(), server.client(), options, |line| {
            lines.push(line)
        }),
    )
    .await
    .expect("the demo finishes")
    .unwrap();

    // Before the kill: every shard held by exactly one replica, every Foo and its
    // Deployment cached once (36 of each), and reconciled.
    let held: Vec<u32> = outcome
        .before
        .iter()
        .flat_map(|r| r.shards.clone())
        .collect();
    assert_eq!(held.len(), 3, "{:#?}", outcome.before);
    assert_eq!(held.iter().collect::<BTreeSet<_>>().len(), 3);
    let cached: usize = outcome.before.iter().map(|r| r.cached_objects).sum();
    assert_eq!(cached, 72, "{:#?}", outcome.before);
    assert!(outcome.before.iter().map(|r| r.reconciles).sum::<u64>() >= 36);

    // After: the killed replica's shards run on the survivors, and they hold all three.
    assert!(!outcome.orphaned.is_empty());
    let after: BTreeSet<u32> = outcome
        .after
        .iter()
        .flat_map(|r| r.shards.clone())
        .collect();
    assert_eq!(after, BTreeSet::from([0, 1, 2]), "{:#?}", outcome.after);
    assert!(outcome.after.iter().all(|r| r.name != outcome.killed));
    assert_eq!(
        outcome
            .after
            .iter()
            .map(|r| r.cached_objects)
            .sum::<usize>(),
        72
    );

    // The server: every Foo scaled to 2 and reported available; one Lease per shard.
    let foos = Api::<Foo>::all(server.client())
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(foos.items.len(), 36);
    assert!(
        foos.items
            .iter()
            .all(|f| f.status.as_ref().is_some_and(|s| s.available_replicas == 2))
    );
    let leases: BTreeSet<String> = Api::<Lease>::namespaced(server.client(), "default")
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|l| l.metadata.name)
        .collect();
    for i in 0..3 {
        assert!(
            leases.contains(&format!("{CONTROLLER_NAME}-shard-{i}")),
            "{leases:?}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Its shards were taken over"))
    );
    server.shutdown().await;
}
