//! How the examples find their cluster: a kubeconfig file (here one the testkit server
//! writes, so the same code path as a real cluster runs end to end), `--embedded`, and a
//! kubeconfig that cannot be read.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::path::PathBuf;
use std::time::Duration;

use kubegen::operator::{Cluster, ClusterArgs, ClusterSource, ConnectError, install_crds};
use kubegen::testkit::ApiServer;
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::demo::{self, DeploymentStandIn};
use sample_controller::{App, Options};

/// A guard against a hang, not a timing assertion.
const GUARD: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kubeconfig_reaches_the_cluster_it_names() {
    let server = ApiServer::start().await.unwrap();
    let args = ClusterArgs {
        kubeconfig: Some(server.kubeconfig().unwrap()),
        ..Default::default()
    };
    let cluster = Cluster::connect(&args).await.unwrap();
    assert_eq!(cluster.source(), &ClusterSource::Kubeconfig);
    assert!(!cluster.is_embedded());

    // The sample controller, through the kubeconfig's client, converges as it does on
    // the embedded server.
    let client = cluster.client();
    install_crds(&client, &[Foo::crd()], "test", GUARD)
        .await
        .unwrap();
    let app = App::start(client.clone(), Options::default(), None).unwrap();
    let stand_in = DeploymentStandIn::start(client.clone(), app.running().factory());
    demo::seed(&client).await.unwrap();
    let report = tokio::time::timeout(GUARD, app.wait_converged())
        .await
        .unwrap();
    assert_eq!(report.foos.len(), 3);
    app.shutdown().await.unwrap();
    stand_in.stop().await;
    cluster.shutdown().await;
    server.shutdown().await;
}

#[tokio::test]
async fn embedded_starts_a_server_in_process() {
    let cluster = Cluster::connect(&ClusterArgs {
        embedded: true,
        ..Default::default()
    })
    .await
    .unwrap();
    assert!(cluster.is_embedded());
    let ClusterSource::Embedded { url } = cluster.source().clone() else {
        panic!("embedded")
    };
    assert!(url.starts_with("http://127.0.0.1:"));
    assert_eq!(cluster.server().map(ApiServer::url), Some(url));
    cluster.shutdown().await;
}

#[tokio::test]
async fn an_unreadable_kubeconfig_is_an_error_naming_the_file() {
    let path = PathBuf::from("/nonexistent/kubegen/kubeconfig");
    let args = ClusterArgs {
        kubeconfig: Some(path.clone()),
        ..Default::default()
    };
    let error = Cluster::connect(&args).await.unwrap_err();
    assert!(matches!(&error, ConnectError::ReadKubeconfig { path: p, .. } if *p == path));
    assert!(
        error
            .to_string()
            .contains("/nonexistent/kubegen/kubeconfig")
    );
}
