//! The built-in kinds' apply configurations (`kubegen::applyconfigurations`, generated
//! from Kubernetes' OpenAPI documents) on the testkit: two field managers own different
//! fields of one Deployment through `DeploymentApply` without clobbering each other, a
//! third conflicts on a field it does not own unless it forces, and `extract` reads back
//! exactly what each manager owns.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kubegen::applyconfigurations::apps::v1::{DeploymentApply, DeploymentSpecApply};
use kubegen::applyconfigurations::core::v1::{
    ContainerApply, EnvVarApply, PodSpecApply, PodTemplateSpecApply,
};
use kubegen::kubernetes::clientset::Clientset;
use kubegen_testkit::ApiServer;
use serde_json::json;

const NAMESPACE: &str = "default";

/// The deployer's configuration: selector, template labels and the `web` container with
/// `image`, no replicas.
fn deployer(image: &str) -> DeploymentApply {
    let labels = [("app".to_owned(), "web".to_owned())];
    DeploymentApply::new("web", NAMESPACE).with_spec(
        DeploymentSpecApply::default()
            .with_selector(LabelSelector {
                match_labels: Some(labels.clone().into()),
                ..Default::default()
            })
            .with_template(
                PodTemplateSpecApply::default()
                    .with_metadata(ObjectMeta {
                        labels: Some(labels.into()),
                        ..Default::default()
                    })
                    .with_spec(PodSpecApply::default().with_containers([
                        ContainerApply::default().with_name("web").with_image(image),
                    ])),
            ),
    )
}

/// The scaler's configuration: replicas only.
fn scaler(replicas: i32) -> DeploymentApply {
    DeploymentApply::new("web", NAMESPACE)
        .with_spec(DeploymentSpecApply::default().with_replicas(replicas))
}

fn image(deployment: &Deployment) -> Option<&str> {
    let spec = deployment.spec.template.spec.as_ref()?;
    spec.containers.first()?.image.as_deref()
}

fn replicas(deployment: &Deployment) -> Option<i32> {
    deployment.spec.replicas
}

#[test]
fn new_sets_only_api_version_kind_and_name() {
    assert_eq!(
        serde_json::to_value(scaler(2)).unwrap(),
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 2}
        })
    );
    // Cluster-scoped kinds take a name only.
    assert_eq!(
        serde_json::to_value(kubegen::applyconfigurations::core::v1::NamespaceApply::new(
            "n"
        ))
        .unwrap(),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}})
    );
}

#[tokio::test]
async fn two_managers_own_different_fields_of_one_deployment() {
    let server = ApiServer::start().await.unwrap();
    let clientset = Clientset::new(server.client());
    let deployments = clientset.apps_v1().deployments(NAMESPACE);

    let created = deployments
        .apply(&deployer("nginx:1"), "deployer", false)
        .await
        .unwrap();
    assert_eq!(image(&created), Some("nginx:1"));

    let scaled = deployments
        .apply(&scaler(5), "scaler", false)
        .await
        .unwrap();
    assert_eq!(replicas(&scaled), Some(5));
    assert_eq!(image(&scaled), Some("nginx:1"), "the scaler left the image");

    // The deployer applies again without replicas: the scaler's replicas stay.
    let rolled = deployments
        .apply(&deployer("nginx:2"), "deployer", false)
        .await
        .unwrap();
    assert_eq!(image(&rolled), Some("nginx:2"));
    assert_eq!(replicas(&rolled), Some(5), "the deployer left the replicas");

    // The scaler again: the template stays the deployer's.
    let rescaled = deployments
        .apply(&scaler(7), "scaler", false)
        .await
        .unwrap();
    assert_eq!(replicas(&rescaled), Some(7));
    assert_eq!(image(&rescaled), Some("nginx:2"));

    // Each manager's apply configuration is exactly what it applied.
    let live = deployments.get("web").await.unwrap();
    assert_eq!(
        DeploymentApply::extract(&live, "scaler").unwrap(),
        scaler(7)
    );
    assert_eq!(
        DeploymentApply::extract(&live, "deployer").unwrap(),
        deployer("nginx:2")
    );

    // A third manager setting the image conflicts with the deployer unless it forces.
    let patcher = DeploymentApply::new("web", NAMESPACE).with_spec(
        DeploymentSpecApply::default().with_template(
            PodTemplateSpecApply::default().with_spec(
                PodSpecApply::default().with_containers([ContainerApply::default()
                    .with_name("web")
                    .with_image("nginx:3")
                    .with_env([EnvVarApply::default().with_name("MODE").with_value("debug")])]),
            ),
        ),
    );
    let error = deployments
        .apply(&patcher, "patcher", false)
        .await
        .unwrap_err();
    assert!(error.is_conflict(), "{error}");
    let forced = deployments.apply(&patcher, "patcher", true).await.unwrap();
    assert_eq!(image(&forced), Some("nginx:3"));
    assert_eq!(replicas(&forced), Some(7));
    let container = &forced.spec.template.spec.as_ref().unwrap().containers[0];
    assert_eq!(
        container.env.as_ref().map(|env| env[0].value.as_deref()),
        Some(Some("debug"))
    );
    // The deployer lost the image to the patcher, and kept the rest.
    let deployer_now = DeploymentApply::extract(&forced, "deployer").unwrap();
    let container =
        serde_json::to_value(&deployer_now).unwrap()["spec"]["template"]["spec"]["containers"][0]
            .clone();
    assert_eq!(container, json!({"name": "web"}));
}
