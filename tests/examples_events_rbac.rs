//! Every example's event recorder comes from its Manager, so the RBAC the Manager
//! derives lets the controller write its Events: `create` and `patch` on
//! `events.k8s.io` Events in the ClusterRole of icecream, secret-sync and
//! sample-controller (whose committed `config/rbac/role.yaml` is checked in
//! `examples_sample_controller_rbac.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use kubegen::testkit::ApiServer;
use secret_sync::controller::Scope;

/// The ClusterRole's rule on `events.k8s.io` resources.
fn events_rule(cluster_role: &ClusterRole) -> PolicyRule {
    let rules = cluster_role.rules.as_deref().unwrap_or_default();
    let events: Vec<&PolicyRule> = rules
        .iter()
        .filter(|rule| rule.api_groups.as_deref() == Some(&["events.k8s.io".to_owned()]))
        .collect();
    assert_eq!(events.len(), 1, "one rule for Events in {rules:#?}");
    events[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_may_write_the_events_it_records() {
    // The roles are derived without calling the server; the recorders need a runtime.
    let server = ApiServer::start().await.unwrap();
    let client = server.client();
    let roles = [
        ("icecream", icecream::rbac(client.clone(), None).0),
        (
            "secret-sync",
            secret_sync::rbac(client.clone(), Scope::new("shared"), None).0,
        ),
        ("sample-controller", sample_controller::rbac(client, None).0),
    ];
    for (example, cluster_role) in roles {
        let rule = events_rule(&cluster_role);
        assert_eq!(
            rule.resources.as_deref(),
            Some(&["events".to_owned()][..]),
            "{example}"
        );
        assert_eq!(rule.verbs, ["create", "patch"], "{example}");
    }
    server.shutdown().await;
}
