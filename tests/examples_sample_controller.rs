//! sample-controller end to end against the testkit API server: converge on the demo
//! objects, then perturb the cluster (delete the owned Deployment, change its replicas,
//! change the Foo, kill the watches, fail writes, remove the conflicting Deployment) and
//! converge again, asserting on what the server holds.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::events::v1::Event as KubeEvent;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kubegen::operator::ManagerOptions;
use kubegen::operator::install_crds;
use kubegen::runtime::key::ObjectKey;
use kubegen::testkit::{ApiServer, Failure, Matcher, Verb};
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::controller::{ERR_RESOURCE_EXISTS, is_controlled_by};
use sample_controller::demo::{self, DeploymentStandIn, FooState, Report};
use sample_controller::{App, Options};
use serde_json::json;

/// A guard against a hang, not a timing assertion: convergence takes milliseconds.
const GUARD: Duration = Duration::from_secs(60);

struct Fixture {
    server: ApiServer,
    app: App,
    stand_in: DeploymentStandIn,
}

impl Fixture {
    async fn start() -> Self {
        let server = ApiServer::start().await.unwrap();
        let client = server.client();
        install_crds(&client, &[Foo::crd()], "test", GUARD)
            .await
            .unwrap();
        let app = App::start(
            client.clone(),
            Options {
                manager: ManagerOptions {
                    workers: 2,
                    resync: Duration::from_secs(30),
                    ..ManagerOptions::default()
                },
                ..Options::default()
            },
            None,
        )
        .unwrap();
        let stand_in = DeploymentStandIn::start(client.clone(), app.running().factory());
        demo::seed(&client).await.unwrap();
        Self {
            server,
            app,
            stand_in,
        }
    }

    async fn converge(&self) -> Report {
        tokio::time::timeout(GUARD, self.app.wait_converged())
            .await
            .expect("the controller converges")
    }

    fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.server.client(), "default")
    }

    fn foos(&self) -> Api<Foo> {
        Api::namespaced(self.server.client(), "default")
    }

    async fn stop(self) {
        self.app.shutdown().await.unwrap();
        self.stand_in.stop().await;
        self.server.shutdown().await;
    }
}

fn state<'a>(report: &'a Report, name: &str) -> &'a FooState {
    &report
        .foos
        .iter()
        .find(|f| f.foo.name() == name)
        .expect("foo in report")
        .state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_on_the_demo_objects() {
    let fx = Fixture::start().await;
    let report = fx.converge().await;
    assert_eq!(
        state(&report, "example-foo"),
        &FooState::Synced {
            replicas: 1,
            available: 1
        }
    );
    assert_eq!(
        state(&report, "web"),
        &FooState::Synced {
            replicas: 3,
            available: 3
        }
    );
    assert_eq!(state(&report, "intruder"), &FooState::Refused);

    // Server state, read independently of the report.
    let web = fx.foos().get("web").await.unwrap();
    let deployment = fx.deployments().get("web-frontend").await.unwrap();
    assert!(is_controlled_by(&deployment, &web));
    assert_eq!(deployment.spec.replicas, Some(3));
    assert_eq!(web.status.unwrap().available_replicas, 3);
    let owners = deployment.metadata.owner_references.unwrap();
    assert_eq!(
        (owners[0].kind.as_str(), owners[0].name.as_str()),
        ("Foo", "web")
    );
    assert_eq!(owners[0].api_version, "samplecontroller.k8s.io/v1alpha1");

    // The unowned Deployment was left alone, and one Warning event (a series, however
    // many retries) says why.
    let legacy = fx.deployments().get("legacy-app").await.unwrap();
    assert!(legacy.metadata.owner_references.is_none());
    let intruder = fx.foos().get("intruder").await.unwrap();
    // Events are read once the controller has drained: a convergence check may pass
    // between a reconcile's status write and the Synced event it publishes next, and the
    // shutdown writes every event published.
    let Fixture {
        server,
        app,
        stand_in,
    } = fx;
    app.shutdown().await.unwrap();
    let events = Api::<KubeEvent>::namespaced(server.client(), "default")
        .list(&ListParams::default())
        .await
        .unwrap()
        .items;
    let warnings: Vec<_> = events
        .iter()
        .filter(|e| e.reason.as_deref() == Some(ERR_RESOURCE_EXISTS))
        .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.clone()) == intruder.metadata.uid)
        .collect();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].type_.as_deref(), Some("Warning"));
    assert_eq!(
        warnings[0].reporting_controller.as_deref(),
        Some("sample-controller")
    );
    assert!(warnings[0].note.as_deref().unwrap().contains("legacy-app"));
    let synced = events
        .iter()
        .filter(|e| e.reason.as_deref() == Some("Synced"))
        .count();
    assert_eq!(synced, 2, "one Synced event (a series) per synced Foo");
    stand_in.stop().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recreates_a_deleted_deployment_and_fixes_drifted_replicas() {
    let fx = Fixture::start().await;
    fx.converge().await;
    let before = fx.deployments().get("web-frontend").await.unwrap();

    fx.deployments()
        .delete("web-frontend", &DeleteParams::default())
        .await
        .unwrap();
    let report = fx.converge().await;
    assert_eq!(
        state(&report, "web"),
        &FooState::Synced {
            replicas: 3,
            available: 3
        }
    );
    let recreated = fx.deployments().get("web-frontend").await.unwrap();
    assert_ne!(
        recreated.metadata.uid, before.metadata.uid,
        "a new Deployment"
    );
    assert!(is_controlled_by(
        &recreated,
        &fx.foos().get("web").await.unwrap()
    ));

    let scale = json!({ "spec": { "replicas": 7 } });
    fx.deployments()
        .patch(
            "example-foo",
            &PatchParams::default(),
            &Patch::Merge(&scale),
        )
        .await
        .unwrap();
    fx.converge().await;
    assert_eq!(
        fx.deployments()
            .get("example-foo")
            .await
            .unwrap()
            .spec
            .replicas,
        Some(1)
    );

    // Deleting a Foo: the server's garbage collector follows the controller owner
    // reference to the Deployment, and the controller has nothing left to do for it.
    fx.foos()
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    let report = fx.converge().await;
    assert!(report.foos.iter().all(|f| f.foo.name() != "web"));
    assert!(
        fx.deployments()
            .get_opt("web-frontend")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        fx.deployments()
            .get_opt("example-foo")
            .await
            .unwrap()
            .is_some()
    );
    fx.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follows_a_changed_foo_and_adopts_nothing_until_the_conflict_is_gone() {
    let fx = Fixture::start().await;
    fx.converge().await;

    let more = json!({ "spec": { "replicas": 5 } });
    fx.foos()
        .patch("web", &PatchParams::default(), &Patch::Merge(&more))
        .await
        .unwrap();
    let report = fx.converge().await;
    assert_eq!(
        state(&report, "web"),
        &FooState::Synced {
            replicas: 5,
            available: 5
        }
    );
    assert_eq!(
        fx.foos()
            .get("web")
            .await
            .unwrap()
            .status
            .unwrap()
            .available_replicas,
        5
    );

    // Removing the conflicting Deployment lets the Foo create its own.
    fx.deployments()
        .delete("legacy-app", &DeleteParams::default())
        .await
        .unwrap();
    let report = fx.converge().await;
    assert_eq!(
        state(&report, "intruder"),
        &FooState::Synced {
            replicas: 2,
            available: 2
        }
    );
    let legacy = fx.deployments().get("legacy-app").await.unwrap();
    assert!(is_controlled_by(
        &legacy,
        &fx.foos().get("intruder").await.unwrap()
    ));
    fx.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_through_dropped_watches_and_failing_writes() {
    let fx = Fixture::start().await;
    fx.converge().await;

    // A Deployment is deleted while watch events are held back; then the history is
    // compacted and the watches are killed: the informers must relist (410 Gone), learn
    // of the deletion from the difference (a tombstone), and the Foo is reconciled.
    let faults = fx.server.faults();
    faults.pause_watches();
    fx.deployments()
        .delete("example-foo", &DeleteParams::default())
        .await
        .unwrap();
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    fx.converge().await;
    assert!(fx.deployments().get("example-foo").await.is_ok());

    // Writes fail for a while: the key is retried with backoff until they pass.
    faults.fail(
        Failure::status(500)
            .times(3)
            .matching(Matcher::any().verb(Verb::Create).resource("deployments")),
    );
    faults.fail(
        Failure::status(500)
            .times(3)
            .matching(Matcher::any().verb(Verb::Patch).resource("foos/status")),
    );
    fx.deployments()
        .delete("web-frontend", &DeleteParams::default())
        .await
        .unwrap();
    let less = json!({ "spec": { "replicas": 2 } });
    fx.foos()
        .patch("web", &PatchParams::default(), &Patch::Merge(&less))
        .await
        .unwrap();
    let report = fx.converge().await;
    assert_eq!(
        state(&report, "web"),
        &FooState::Synced {
            replicas: 2,
            available: 2
        }
    );
    assert_eq!(
        fx.foos()
            .get("web")
            .await
            .unwrap()
            .status
            .unwrap()
            .available_replicas,
        2
    );
    fx.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_the_queue() {
    let fx = Fixture::start().await;
    fx.converge().await;
    // Keys queued before the stop are still processed: shutdown drains, it does not drop.
    let queue = fx.app.controller().queue().clone();
    let processed = fx.app.controller().processed();
    let before = *processed.borrow();
    for name in ["example-foo", "web", "intruder"] {
        queue.add(ObjectKey::namespaced("default", name));
    }
    fx.stop().await;
    assert!(
        *processed.borrow() >= before + 3,
        "every queued key was processed"
    );
    assert!(queue.is_shutting_down());
    assert_eq!((queue.len(), queue.waiting_len()), (0, 0));
}
