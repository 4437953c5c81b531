//! Generated apply configurations: what they serialize (unset fields absent, explicitly
//! empty lists and maps present), extracting one manager's fields from hand-written
//! `managedFields`, and the clients' `apply` / `apply_status` verbs on the testkit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::runtime::apply::ExtractError;
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen_e2e_api::apis::samplecontroller::v1alpha1::{Foo, FooStatus, Zone};
use kubegen_e2e_api::applyconfigurations::samplecontroller_k8s_io::v1alpha1::{
    FooApply, FooSpecApply, FooStatusApply, ZoneApply, ZoneSpecApply,
};
use kubegen_e2e_api::crd::example_com::v1::{Widget, WidgetSpecMode};
use kubegen_e2e_api::crd_apply::example_com::v1::{
    WidgetApply, WidgetSpecApply, WidgetSpecPortsApply, WidgetSpecTemplateApply, WidgetStatusApply,
};
use kubegen_e2e_api::generated::clientset::Clientset;
use kubegen_testkit::ApiServer;
use serde_json::json;

#[test]
fn new_sets_only_api_version_kind_and_name() {
    assert_eq!(
        serde_json::to_value(WidgetApply::new("w", "ns")).unwrap(),
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": "ns"}
        })
    );
    assert_eq!(
        serde_json::to_value(ZoneApply::new("z")).unwrap(),
        json!({
            "apiVersion": "samplecontroller.k8s.io/v1alpha1",
            "kind": "Zone",
            "metadata": {"name": "z"}
        })
    );
}

#[test]
fn unset_fields_are_absent_and_empty_collections_present() {
    let widget = WidgetApply::new("w", "ns").with_spec(
        WidgetSpecApply::default()
            .with_size(3)
            .with_labels([])
            .with_ports([WidgetSpecPortsApply::default().with_name("http")])
            .with_template(WidgetSpecTemplateApply::default().with_args(Vec::new())),
    );
    assert_eq!(
        serde_json::to_value(&widget).unwrap()["spec"],
        json!({"size": 3, "labels": {}, "ports": [{"name": "http"}], "template": {"args": []}})
    );
}

#[test]
fn list_and_map_setters_extend() {
    let spec = WidgetSpecApply::default()
        .with_labels([("a".to_owned(), "1".to_owned())])
        .with_labels([("b".to_owned(), "2".to_owned())])
        .with_ports([WidgetSpecPortsApply::default().with_name("a")])
        .with_ports([WidgetSpecPortsApply::default().with_name("b").with_port(80)])
        .with_mode(WidgetSpecMode::Fast);
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        json!({
            "labels": {"a": "1", "b": "2"},
            "mode": "Fast",
            "ports": [{"name": "a"}, {"name": "b", "port": 80}]
        })
    );
}

/// A Widget two managers applied to, `sizer` owning the size and one port, `labeller` the
/// labels, and `observer` the status; `editor` only updated it.
fn live_widget() -> Widget {
    let entry = |manager: &str, operation: &str, subresource: &str, fields| {
        json!({"manager": manager, "operation": operation, "subresource": subresource,
               "apiVersion": "example.com/v1", "fieldsType": "FieldsV1", "fieldsV1": fields})
    };
    serde_json::from_value(json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w",
            "namespace": "ns",
            "uid": "u-1",
            "managedFields": [
                entry("sizer", "Apply", "", json!({"f:spec": {
                    "f:size": {},
                    "f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}}
                }})),
                entry("labeller", "Apply", "", json!({"f:spec": {"f:labels": {"f:team": {}}}})),
                entry("editor", "Update", "", json!({"f:spec": {"f:mode": {}}})),
                entry("observer", "Apply", "status", json!({"f:status": {"f:ready": {}}})),
            ]
        },
        "spec": {
            "size": 3,
            "mode": "Slow",
            "labels": {"team": "a", "other": "b"},
            "ports": [
                {"name": "admin", "port": 9000},
                {"name": "http", "port": 80, "protocol": "TCP"}
            ]
        },
        "status": {"ready": true, "observedSize": 3}
    }))
    .unwrap()
}

#[test]
fn extract_keeps_exactly_the_managers_fields() {
    let widget = live_widget();
    let sizer = WidgetApply::extract(&widget, "sizer").unwrap();
    assert_eq!(
        sizer,
        WidgetApply::new("w", "ns").with_spec(
            WidgetSpecApply::default()
                .with_size(3)
                .with_ports([WidgetSpecPortsApply::default()
                    .with_name("http")
                    .with_port(80)])
        )
    );
    let labeller = WidgetApply::extract(&widget, "labeller").unwrap();
    assert_eq!(
        serde_json::to_value(&labeller).unwrap()["spec"],
        json!({"labels": {"team": "a"}})
    );
    let observer = WidgetApply::extract_status(&widget, "observer").unwrap();
    assert_eq!(
        observer,
        WidgetApply::new("w", "ns").with_status(WidgetStatusApply::default().with_ready(true))
    );
}

#[test]
fn extract_refuses_managers_that_never_applied() {
    let widget = live_widget();
    for manager in ["editor", "nobody"] {
        let error = WidgetApply::extract(&widget, manager).unwrap_err();
        assert!(matches!(error, ExtractError::NoManager { .. }), "{error}");
        assert!(error.to_string().contains(manager), "{error}");
    }
    assert!(WidgetApply::extract_status(&widget, "sizer").is_err());
}

#[tokio::test]
async fn clients_apply_configurations_and_status() {
    let server = ApiServer::start().await.unwrap();
    let crds = TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &());
    crds.create(&Foo::crd()).await.unwrap();
    crds.create(&Zone::crd()).await.unwrap();
    let clientset = Clientset::new(server.client());
    let foos = clientset.samplecontroller_v1alpha1().foos("default");

    let desired = FooApply::new("a", "default").with_spec(
        FooSpecApply::default()
            .with_deployment_name("a-deploy")
            .with_replicas(2),
    );
    let created = foos.apply(&desired, "e2e-apply", false).await.unwrap();
    assert_eq!(created.spec.replicas, 2);
    assert_eq!(created.status, None);

    let status = FooApply::new("a", "default")
        .with_status(FooStatusApply::default().with_available_replicas(2));
    let with_status = foos
        .apply_status(&status, "e2e-status", true)
        .await
        .unwrap();
    assert_eq!(
        with_status.status,
        Some(FooStatus {
            available_replicas: 2
        })
    );
    assert_eq!(with_status.spec.deployment_name, "a-deploy");

    let zones = clientset.samplecontroller_v1alpha1().zones();
    let zone = zones
        .apply(
            &ZoneApply::new("z").with_spec(ZoneSpecApply::default().with_region("eu")),
            "e2e-apply",
            false,
        )
        .await
        .unwrap();
    assert_eq!(zone.spec.region, "eu");
    assert_eq!(zone.metadata.namespace, None);
}

/// Two managers of one hand-written Foo, each applying only its own spec field through the
/// nested `FooSpecApply`: neither clobbers the other, and each one's `extract` gives back
/// exactly its field.
#[tokio::test]
async fn two_managers_own_different_fields_of_one_foo() {
    let server = ApiServer::start().await.unwrap();
    let crds = TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &());
    crds.create(&Foo::crd()).await.unwrap();
    let clientset = Clientset::new(server.client());
    let foos = clientset.samplecontroller_v1alpha1().foos("default");
    let spec = |spec: FooSpecApply| FooApply::new("shared", "default").with_spec(spec);

    // The deployer creates the Foo (both fields are required), then hands the replicas to
    // the scaler, which takes them over.
    let deployer = spec(
        FooSpecApply::default()
            .with_deployment_name("web")
            .with_replicas(1),
    );
    foos.apply(&deployer, "deployer", false).await.unwrap();
    let scaled = foos
        .apply(
            &spec(FooSpecApply::default().with_replicas(3)),
            "scaler",
            true,
        )
        .await
        .unwrap();
    assert_eq!(
        (scaled.spec.deployment_name.as_str(), scaled.spec.replicas),
        ("web", 3)
    );

    // The deployer now applies only the name it owns: the scaler's replicas stay.
    let renamed = foos
        .apply(
            &spec(FooSpecApply::default().with_deployment_name("web-2")),
            "deployer",
            false,
        )
        .await
        .unwrap();
    assert_eq!(
        (renamed.spec.deployment_name.as_str(), renamed.spec.replicas),
        ("web-2", 3)
    );

    let live = foos.get("shared").await.unwrap();
    assert_eq!(
        FooApply::extract(&live, "deployer").unwrap().spec,
        Some(FooSpecApply::default().with_deployment_name("web-2"))
    );
    assert_eq!(
        FooApply::extract(&live, "scaler").unwrap().spec,
        Some(FooSpecApply::default().with_replicas(3))
    );

    // The scaler changes its field: the deployer's name stays.
    let rescaled = foos
        .apply(
            &spec(FooSpecApply::default().with_replicas(5)),
            "scaler",
            false,
        )
        .await
        .unwrap();
    assert_eq!(
        (
            rescaled.spec.deployment_name.as_str(),
            rescaled.spec.replicas
        ),
        ("web-2", 5)
    );
}
