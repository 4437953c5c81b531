//! sample-controller under RBAC: the roles its Manager derives from its code are the
//! committed `config/rbac/role.yaml`, and they are enough: run as a ServiceAccount bound
//! to exactly them, on the testkit with RBAC on, it converges; with one rule taken away
//! (create on Deployments), the API server's 403 surfaces as the controller's Warning
//! event.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::events::v1::Event as KubeEvent;
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, Role, RoleBinding, RoleRef, Subject,
};
use kube::api::{Api, ObjectMeta, PostParams, WatchEvent, WatchParams};
use kubegen::operator::{LeaderElectArgs, install_crds, rbac_manifest};
use kubegen::testkit::ApiServer;
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::controller::FAILED_CREATE;
use sample_controller::demo::{self, DeploymentStandIn, FooState, Report};
use sample_controller::{App, Options};

/// A guard against a hang, not a timing assertion: convergence takes milliseconds.
const GUARD: Duration = Duration::from_secs(60);

/// The ServiceAccount the controller runs as.
const SERVICE_ACCOUNT: &str = "sample-controller";

/// `--leader-elect`, as the committed manifest was written with.
fn election() -> Option<kubegen::runtime::leaderelection::LeaderElectionConfig> {
    let args = LeaderElectArgs {
        leader_elect: true,
        ..LeaderElectArgs::default()
    };
    args.config("sample-controller")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_committed_role_is_what_the_code_derives() {
    let server = ApiServer::start().await.unwrap();
    let (cluster_role, role) = sample_controller::rbac(server.client(), election());
    let derived = format!(
        "{}{}",
        sample_controller::RBAC_HEADER,
        rbac_manifest(&cluster_role, role.as_ref()).unwrap()
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/sample-controller/config/rbac/role.yaml"
    );
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(
        committed == derived,
        "{path} is stale: run `cargo run -p sample-controller -- --embedded --leader-elect --print-rbac > {path}`\n--- derived\n{derived}"
    );
    server.shutdown().await;
}

struct Fixture {
    server: ApiServer,
    app: App,
    stand_in: DeploymentStandIn,
}

/// Binds `cluster_role` cluster-wide and `role` in its namespace to the controller's
/// ServiceAccount, through the administrator's client.
async fn bind(server: &ApiServer, cluster_role: &ClusterRole, role: Option<&Role>) {
    let admin = server.client();
    let pp = PostParams::default();
    let subject = Subject {
        kind: "ServiceAccount".to_owned(),
        name: SERVICE_ACCOUNT.to_owned(),
        namespace: Some("default".to_owned()),
        ..Subject::default()
    };
    let role_ref = |kind: &str, name: &Option<String>| RoleRef {
        api_group: Some("rbac.authorization.k8s.io".to_owned()),
        kind: kind.to_owned(),
        name: name.clone().unwrap(),
    };
    Api::<ClusterRole>::all(admin.clone())
        .create(&pp, cluster_role)
        .await
        .unwrap();
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta {
            name: cluster_role.metadata.name.clone(),
            ..ObjectMeta::default()
        },
        role_ref: role_ref("ClusterRole", &cluster_role.metadata.name),
        subjects: Some(vec![subject.clone()]),
    };
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&pp, &binding)
        .await
        .unwrap();
    if let Some(role) = role {
        let namespace = role.metadata.namespace.clone().unwrap();
        Api::<Role>::namespaced(admin.clone(), &namespace)
            .create(&pp, role)
            .await
            .unwrap();
        let binding = RoleBinding {
            metadata: ObjectMeta {
                name: role.metadata.name.clone(),
                ..ObjectMeta::default()
            },
            role_ref: role_ref("Role", &role.metadata.name),
            subjects: Some(vec![subject]),
        };
        Api::<RoleBinding>::namespaced(admin, &namespace)
            .create(&pp, &binding)
            .await
            .unwrap();
    }
}

impl Fixture {
    /// The testkit with RBAC on, the roles the code derives (changed by `edit`) bound to
    /// the controller's ServiceAccount, the controller running as it under leader
    /// election, and the demo objects seeded by the administrator.
    async fn start(edit: impl FnOnce(&mut ClusterRole)) -> Self {
        let server = ApiServer::builder().rbac(true).start().await.unwrap();
        let admin = server.client();
        install_crds(&admin, &[Foo::crd()], "test", GUARD)
            .await
            .unwrap();
        let client = server
            .service_account_client("default", SERVICE_ACCOUNT)
            .unwrap();
        let (mut cluster_role, role) = sample_controller::rbac(client.clone(), election());
        edit(&mut cluster_role);
        bind(&server, &cluster_role, role.as_ref()).await;
        let app = App::start(client, Options::default(), election()).unwrap();
        // The stand-in for the deployment controller writes Deployment status as the
        // administrator (reading through the controller's informer, which its role allows).
        let stand_in = DeploymentStandIn::start(admin.clone(), app.running().factory());
        demo::seed(&admin).await.unwrap();
        Self {
            server,
            app,
            stand_in,
        }
    }

    async fn converge(&self) -> Report {
        let admin = self.server.client();
        tokio::time::timeout(GUARD, self.app.wait_converged_through(&admin))
            .await
            .expect("the controller converges")
    }

    fn events(&self) -> Api<KubeEvent> {
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
async fn converges_as_a_service_account_bound_to_exactly_the_derived_roles() {
    let fx = Fixture::start(|_| {}).await;
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
    let leader = fx.app.running().leader_status().unwrap().borrow().clone();
    assert!(
        leader.leading,
        "it holds the Lease its Role covers: {leader:?}"
    );
    let failed = fx
        .events()
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(FAILED_CREATE))
        .count();
    assert_eq!(failed, 0, "no write was refused");
    fx.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_create_on_deployments_the_403_surfaces_as_a_warning_event() {
    let fx = Fixture::start(|cluster_role| {
        for rule in cluster_role.rules.as_mut().unwrap() {
            if rule.resources.as_deref() == Some(&["deployments".to_owned()][..]) {
                rule.verbs.retain(|verb| verb != "create");
            }
        }
    })
    .await;
    // Watched from the start (resourceVersion "0": the events so far, then every change),
    // until the first FailedCreate.
    let events = fx.events();
    let stream = events.watch(&WatchParams::default(), "0").await.unwrap();
    let failed = tokio::time::timeout(
        GUARD,
        stream
            .try_filter_map(|event| async move {
                Ok(match event {
                    WatchEvent::Added(e) | WatchEvent::Modified(e)
                        if e.reason.as_deref() == Some(FAILED_CREATE) =>
                    {
                        Some(e)
                    }
                    _ => None,
                })
            })
            .boxed()
            .try_next(),
    )
    .await
    .expect("a FailedCreate event")
    .unwrap()
    .expect("the watch ends only after one");
    assert_eq!(failed.type_.as_deref(), Some("Warning"));
    let note = failed.note.unwrap();
    assert!(
        note.contains(r#"deployments.apps is forbidden: User "system:serviceaccount:default:sample-controller" cannot create resource "deployments" in API group "apps" in the namespace "default""#),
        "{note}"
    );
    fx.stop().await;
}
