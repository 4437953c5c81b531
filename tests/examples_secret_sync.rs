//! secret-sync end to end against the testkit API server: converge, then change and
//! delete a source Secret, create a namespace, tamper with and delete copies, kill the
//! watches, and restart the controller after changes made while it was down.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubegen::operator::ManagerOptions;
use kubegen::testkit::ApiServer;
use secret_sync::App;
use secret_sync::controller::{
    MANAGED_BY_LABEL, SERVICE_ACCOUNT_TOKEN, SOURCE_ANNOTATION, Scope, is_managed,
};
use secret_sync::demo::{self, DEMO_SOURCE, Report};
use serde_json::json;

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(60);

fn start(server: &ApiServer) -> App {
    App::start(
        server.client(),
        Scope::new(DEMO_SOURCE),
        ManagerOptions::default(),
        None,
    )
    .unwrap()
}

async fn converge(app: &App) -> Report {
    tokio::time::timeout(GUARD, app.wait_converged())
        .await
        .expect("the controller converges")
}

fn secrets(server: &ApiServer, namespace: &str) -> Api<Secret> {
    Api::namespaced(server.client(), namespace)
}

async fn data(server: &ApiServer, namespace: &str, name: &str) -> Option<Vec<u8>> {
    let secret = secrets(server, namespace).get_opt(name).await.unwrap()?;
    Some(
        secret
            .data
            .unwrap_or_default()
            .remove("password")
            .map(|b| b.0)
            .unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copies_follow_their_sources() {
    let server = ApiServer::start().await.unwrap();
    demo::seed(&server.client(), DEMO_SOURCE).await.unwrap();
    let app = start(&server);
    let report = converge(&app).await;
    for ns in ["default", "team-a", "team-b"] {
        assert_eq!(
            report.namespace(ns).unwrap().in_step,
            ["registry-credentials", "tls-ca"],
            "{ns}"
        );
    }
    assert!(
        report.namespace("kube-system").is_none(),
        "system namespaces are skipped"
    );
    assert!(
        secrets(&server, "kube-system")
            .get_opt("tls-ca")
            .await
            .unwrap()
            .is_none()
    );
    let copy = secrets(&server, "team-a")
        .get("registry-credentials")
        .await
        .unwrap();
    assert!(is_managed(&copy));
    assert_eq!(
        copy.metadata.annotations.unwrap()[SOURCE_ANNOTATION],
        "shared-secrets/registry-credentials"
    );
    assert_eq!(
        data(&server, "team-a", "registry-credentials")
            .await
            .unwrap(),
        b"s3cr3t"
    );

    // The source changes: every copy follows.
    let rotate = json!({ "data": { "password": ByteString(b"rotated".to_vec()) } });
    secrets(&server, DEMO_SOURCE)
        .patch(
            "registry-credentials",
            &PatchParams::default(),
            &Patch::Merge(&rotate),
        )
        .await
        .unwrap();
    converge(&app).await;
    for ns in ["default", "team-a", "team-b"] {
        assert_eq!(
            data(&server, ns, "registry-credentials").await.unwrap(),
            b"rotated",
            "{ns}"
        );
    }

    // A new namespace gets copies.
    Api::<Namespace>::all(server.client())
        .create(&PostParams::default(), &demo::namespace("team-c"))
        .await
        .unwrap();
    let report = converge(&app).await;
    assert_eq!(report.namespace("team-c").unwrap().in_step.len(), 2);

    // The source goes: so do its copies.
    secrets(&server, DEMO_SOURCE)
        .delete("tls-ca", &DeleteParams::default())
        .await
        .unwrap();
    converge(&app).await;
    for ns in ["default", "team-a", "team-b", "team-c"] {
        assert!(
            secrets(&server, ns)
                .get_opt("tls-ca")
                .await
                .unwrap()
                .is_none(),
            "{ns}"
        );
    }

    // Copies that are edited or deleted by hand are put back.
    let tamper = json!({ "data": { "password": ByteString(b"tampered".to_vec()) } });
    secrets(&server, "team-b")
        .patch(
            "registry-credentials",
            &PatchParams::default(),
            &Patch::Merge(&tamper),
        )
        .await
        .unwrap();
    secrets(&server, "team-c")
        .delete("registry-credentials", &DeleteParams::default())
        .await
        .unwrap();
    converge(&app).await;
    assert_eq!(
        data(&server, "team-b", "registry-credentials")
            .await
            .unwrap(),
        b"rotated"
    );
    assert_eq!(
        data(&server, "team-c", "registry-credentials")
            .await
            .unwrap(),
        b"rotated"
    );

    app.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_overwrites_an_unmanaged_secret() {
    let server = ApiServer::start().await.unwrap();
    demo::seed(&server.client(), DEMO_SOURCE).await.unwrap();
    let mine = demo::secret("team-a", "tls-ca", &[("password", "mine")]);
    secrets(&server, "team-a")
        .create(&PostParams::default(), &mine)
        .await
        .unwrap();
    let app = start(&server);
    let report = converge(&app).await;
    let team_a = report.namespace("team-a").unwrap();
    assert_eq!(team_a.refused, ["tls-ca"]);
    assert_eq!(team_a.in_step, ["registry-credentials"]);
    let kept = secrets(&server, "team-a").get("tls-ca").await.unwrap();
    assert!(
        !kept
            .metadata
            .labels
            .unwrap_or_default()
            .contains_key(MANAGED_BY_LABEL)
    );
    assert_eq!(data(&server, "team-a", "tls-ca").await.unwrap(), b"mine");
    app.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_through_dropped_watches_and_after_a_restart() {
    let server = ApiServer::start().await.unwrap();
    demo::seed(&server.client(), DEMO_SOURCE).await.unwrap();
    let app = start(&server);
    converge(&app).await;

    // Changes while events are held back, history compacted, watches killed.
    let faults = server.faults();
    faults.pause_watches();
    secrets(&server, DEMO_SOURCE)
        .delete("tls-ca", &DeleteParams::default())
        .await
        .unwrap();
    Api::<Namespace>::all(server.client())
        .create(&PostParams::default(), &demo::namespace("team-d"))
        .await
        .unwrap();
    faults.compact();
    faults.drop_watches();
    faults.resume_watches();
    let report = converge(&app).await;
    assert_eq!(
        report.namespace("team-d").unwrap().in_step,
        ["registry-credentials"]
    );
    assert!(
        secrets(&server, "team-a")
            .get_opt("tls-ca")
            .await
            .unwrap()
            .is_none()
    );

    // Stopped; meanwhile a source appears, a copy is deleted, a namespace is created.
    app.shutdown().await.unwrap();
    let fresh = demo::secret(DEMO_SOURCE, "api-token", &[("password", "t0ken")]);
    secrets(&server, DEMO_SOURCE)
        .create(&PostParams::default(), &fresh)
        .await
        .unwrap();
    secrets(&server, "team-b")
        .delete("registry-credentials", &DeleteParams::default())
        .await
        .unwrap();
    Api::<Namespace>::all(server.client())
        .create(&PostParams::default(), &demo::namespace("team-e"))
        .await
        .unwrap();

    // A new controller process misses nothing: the sync is level-based.
    let restarted = start(&server);
    let report = converge(&restarted).await;
    for ns in ["default", "team-a", "team-b", "team-d", "team-e"] {
        assert_eq!(
            report.namespace(ns).unwrap().in_step,
            ["api-token", "registry-credentials"],
            "{ns}"
        );
    }
    restarted.shutdown().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skips_service_account_tokens_and_a_custom_exclusion() {
    let server = ApiServer::start().await.unwrap();
    demo::seed(&server.client(), DEMO_SOURCE).await.unwrap();
    let mut token = demo::secret(DEMO_SOURCE, "builder-token", &[("token", "t")]);
    token.type_ = Some(SERVICE_ACCOUNT_TOKEN.to_owned());
    token.metadata.annotations = Some(
        [(
            "kubernetes.io/service-account.name".to_owned(),
            "builder".to_owned(),
        )]
        .into(),
    );
    secrets(&server, DEMO_SOURCE)
        .create(&PostParams::default(), &token)
        .await
        .unwrap();
    let mut scope = Scope::new(DEMO_SOURCE);
    scope.excluded.insert("team-b".to_owned());
    let app = App::start(server.client(), scope, ManagerOptions::default(), None).unwrap();
    let report = converge(&app).await;
    assert!(report.namespace("team-b").is_none());
    assert_eq!(
        report.namespace("team-a").unwrap().in_step,
        ["registry-credentials", "tls-ca"]
    );
    assert!(
        secrets(&server, "team-b")
            .get_opt("tls-ca")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        secrets(&server, "team-a")
            .get_opt("builder-token")
            .await
            .unwrap()
            .is_none()
    );
    app.shutdown().await.unwrap();
    server.shutdown().await;
}
