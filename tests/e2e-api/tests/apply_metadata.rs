//! The object metadata setters of apply configurations (the runtime's `ApplyMetadata`,
//! implemented by every generated `FooApply` and by nested apply configurations with
//! object metadata): what they send, and on the testkit, labels, annotations, an owner
//! reference and a finalizer applied to a built-in ConfigMap and to a CRD kind, read back,
//! owned by the manager that applied them and extracted again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::Resource;
use kubegen::applyconfigurations::apps::v1::{DeploymentApply, DeploymentSpecApply};
use kubegen::applyconfigurations::core::v1::{ConfigMapApply, PodTemplateSpecApply};
use kubegen::runtime::apply::ApplyMetadata;
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen_e2e_api::apis::samplecontroller::v1alpha1::Foo;
use kubegen_e2e_api::applyconfigurations::samplecontroller_k8s_io::v1alpha1::{
    FooApply, FooSpecApply,
};
use kubegen_e2e_api::crd_apply::example_com::v1::WidgetApply;
use kubegen_e2e_api::generated::clientset::Clientset;
use kubegen_testkit::ApiServer;
use serde_json::json;

const NAMESPACE: &str = "default";

fn owner(name: &str, uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: "samplecontroller.k8s.io/v1alpha1".into(),
        kind: "Foo".into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

#[test]
fn metadata_setters_send_what_they_set_and_add_up() {
    let settings = ConfigMapApply::new("settings", NAMESPACE)
        .with_labels([("app", "web")])
        .with_labels([("tier".to_owned(), "front".to_owned())])
        .with_annotations([("example.com/note", "x")])
        .with_owner_references([owner("a", "uid-a")])
        .with_finalizers(["example.com/cleanup"])
        .with_data([("level".to_owned(), "3".to_owned())]);
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "settings",
                "namespace": "default",
                "labels": {"app": "web", "tier": "front"},
                "annotations": {"example.com/note": "x"},
                "ownerReferences": [{
                    "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo", "name": "a",
                    "uid": "uid-a", "controller": true, "blockOwnerDeletion": true
                }],
                "finalizers": ["example.com/cleanup"]
            },
            "data": {"level": "3"}
        })
    );

    // Generated from a CRD, and nested object metadata (a pod template's labels).
    assert_eq!(
        serde_json::to_value(WidgetApply::new("w", "ns").with_labels([("a", "1")])).unwrap()["metadata"],
        json!({"name": "w", "namespace": "ns", "labels": {"a": "1"}})
    );
    let deployment = DeploymentApply::new("web", NAMESPACE).with_spec(
        DeploymentSpecApply::default()
            .with_template(PodTemplateSpecApply::default().with_labels([("app", "web")])),
    );
    assert_eq!(
        serde_json::to_value(&deployment).unwrap()["spec"]["template"],
        json!({"metadata": {"labels": {"app": "web"}}})
    );
}

/// A Foo (a CRD kind) applied with labels and an annotation, then a ConfigMap it owns
/// applied with labels, an annotation, the Foo as controlling owner and a finalizer: the
/// server keeps all of it, each manager owns what it applied (a label it stops applying
/// goes, another manager's stays), and `extract` gives back exactly what was applied.
#[tokio::test]
async fn labels_annotations_owner_references_and_finalizers_are_applied_and_read_back() {
    let server = ApiServer::start().await.unwrap();
    let crds = TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &());
    crds.create(&Foo::crd()).await.unwrap();
    let foos = Clientset::new(server.client())
        .samplecontroller_v1alpha1()
        .foos(NAMESPACE);
    let builtin = kubegen::kubernetes::clientset::Clientset::new(server.client());
    let config_maps = builtin.core_v1().config_maps(NAMESPACE);

    let foo_apply = FooApply::new("web", NAMESPACE)
        .with_labels([("app", "web")])
        .with_annotations([("example.com/team", "a")])
        .with_spec(
            FooSpecApply::default()
                .with_deployment_name("web")
                .with_replicas(1),
        );
    let foo = foos.apply(&foo_apply, "operator", false).await.unwrap();
    assert_eq!(
        foo.metadata.labels,
        Some([("app".into(), "web".into())].into())
    );
    assert_eq!(
        foo.metadata.annotations,
        Some([("example.com/team".into(), "a".into())].into())
    );
    assert_eq!(
        FooApply::extract(&foos.get("web").await.unwrap(), "operator").unwrap(),
        foo_apply
    );

    // The operator's ConfigMap, owned by the Foo (kube's controller_owner_ref is an
    // Option, which the setter takes as an iterator).
    let owner_ref = foo
        .controller_owner_ref(&())
        .expect("the Foo has a name and a uid");
    let settings = |labels: &[(&str, &str)]| {
        ConfigMapApply::new("web-settings", NAMESPACE)
            .with_labels(labels.iter().copied())
            .with_annotations([("example.com/checksum", "abc")])
            .with_owner_references(foo.controller_owner_ref(&()))
            .with_finalizers(["example.com/cleanup"])
            .with_data([("replicas".to_owned(), "1".to_owned())])
    };
    let applied = settings(&[("app", "web"), ("part-of", "foo")]);
    let created = config_maps
        .apply(&applied, "operator", false)
        .await
        .unwrap();
    let meta = &created.metadata;
    assert_eq!(
        meta.labels,
        Some(
            [
                ("app".into(), "web".into()),
                ("part-of".into(), "foo".into())
            ]
            .into()
        )
    );
    assert_eq!(
        meta.annotations,
        Some([("example.com/checksum".into(), "abc".into())].into())
    );
    assert_eq!(meta.owner_references, Some(vec![owner_ref.clone()]));
    assert_eq!(owner_ref.uid, foo.metadata.uid.clone().unwrap());
    assert_eq!(
        meta.finalizers,
        Some(vec!["example.com/cleanup".to_owned()])
    );

    let live: ConfigMap = config_maps.get("web-settings").await.unwrap();
    assert_eq!(ConfigMapApply::extract(&live, "operator").unwrap(), applied);

    // Another manager adds a label of its own; the operator then stops applying
    // `part-of`: it goes, the other manager's label stays, and so does the rest.
    let other = ConfigMapApply::new("web-settings", NAMESPACE).with_labels([("audited", "yes")]);
    config_maps.apply(&other, "auditor", false).await.unwrap();
    let reapplied = config_maps
        .apply(&settings(&[("app", "web")]), "operator", false)
        .await
        .unwrap();
    assert_eq!(
        reapplied.metadata.labels,
        Some(
            [
                ("app".into(), "web".into()),
                ("audited".into(), "yes".into())
            ]
            .into()
        )
    );
    assert_eq!(reapplied.metadata.owner_references, Some(vec![owner_ref]));
    assert_eq!(
        reapplied.metadata.finalizers,
        Some(vec!["example.com/cleanup".to_owned()])
    );
    assert_eq!(
        ConfigMapApply::extract(&reapplied, "auditor").unwrap(),
        other
    );
}
