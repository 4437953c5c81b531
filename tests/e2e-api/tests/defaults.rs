//! Schema defaults: the generated `with_defaults()` of the `Widget` CRD's types gives what
//! the testkit API server stores for the same object (the server applies the CRD's
//! structural defaults on create), for scalars, an enum, a nullable field, int-or-string,
//! a date (deserialized, having no literal), arbitrary JSON, a nested object whose default
//! has defaults inside, list items and map values. Deserializing never applies them: round
//! trips stay exact.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen_e2e_api::crd::example_com::v1::{
    Widget, WidgetSpec, WidgetSpecLimits, WidgetSpecMode, WidgetSpecPorts, WidgetSpecTemplate,
};
use kubegen_testkit::ApiServer;
use serde_json::json;

const WIDGETS_CRD: &str = include_str!("../crds/widgets.yaml");

async fn widgets(server: &ApiServer) -> TypedClient<Widget> {
    let crd: CustomResourceDefinition = serde_saphyr::from_str(WIDGETS_CRD).unwrap();
    TypedClient::<CustomResourceDefinition>::new(server.client(), Scope::All, &())
        .create(&crd)
        .await
        .expect("the Widget CRD is accepted");
    TypedClient::new(server.client(), Scope::Namespace("default"), &())
}

fn widget(name: &str, spec: WidgetSpec) -> Widget {
    Widget {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        status: None,
    }
}

fn port(name: &str, protocol: Option<&str>) -> WidgetSpecPorts {
    WidgetSpecPorts {
        name: name.to_owned(),
        port: 80,
        protocol: protocol.map(str::to_owned),
    }
}

/// `object` with the server's metadata: what the server stored, if it applied exactly
/// `with_defaults()`.
fn as_stored(object: Widget, stored: &Widget) -> Widget {
    Widget {
        metadata: stored.metadata.clone(),
        ..object
    }
}

#[tokio::test]
async fn with_defaults_matches_what_the_server_stores() {
    let server = ApiServer::start().await.unwrap();
    let widgets = widgets(&server).await;

    // Almost nothing set: every default applies, the template's default gets its own
    // nested default, list items and map values get theirs.
    let sparse = widget(
        "sparse",
        WidgetSpec {
            size: 3,
            ports: Some(vec![port("a", None), port("b", Some("UDP"))]),
            limits: Some(BTreeMap::from([
                ("cpu".to_owned(), WidgetSpecLimits::default()),
                (
                    "memory".to_owned(),
                    WidgetSpecLimits {
                        max: Some(2),
                        min: Some(1),
                    },
                ),
            ])),
            ..WidgetSpec::default()
        },
    );
    let stored = widgets.create(&sparse).await.unwrap();
    assert_eq!(stored, as_stored(sparse.clone().with_defaults(), &stored));
    // Both sides defaulted (the comparison is not between two untouched objects).
    let spec = stored.spec.as_ref().unwrap();
    assert_eq!(spec.mode, Some(WidgetSpecMode::Fast));
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(spec.ratio, serde_json::Number::from_f64(0.5));
    assert_eq!(spec.port, Some(IntOrString::Int(8080)));
    assert_eq!(spec.note, Some(Some("none".to_owned())));
    assert_eq!(
        spec.since,
        Some(Time(k8s_openapi::jiff::Timestamp::UNIX_EPOCH))
    );
    assert_eq!(spec.extra, Some(json!({"tags": ["a", 1]})));
    assert_eq!(
        spec.template,
        Some(WidgetSpecTemplate {
            args: None,
            image: Some("nginx".to_owned()),
            pull_policy: Some("IfNotPresent".to_owned()),
        })
    );
    let ports = spec.ports.as_ref().unwrap();
    assert_eq!(ports[0].protocol.as_deref(), Some("TCP"));
    assert_eq!(
        ports[1].protocol.as_deref(),
        Some("UDP"),
        "set values are kept"
    );
    let limits = spec.limits.as_ref().unwrap();
    assert_eq!(limits["cpu"].max, Some(10));
    assert_eq!(limits["memory"].max, Some(2));

    // Explicit nulls: a nullable field keeps its null, a non-nullable one takes its
    // default; a set object gets only the defaults inside it.
    let nulls = widget(
        "nulls",
        WidgetSpec {
            size: 1,
            note: Some(None),
            extra: Some(serde_json::Value::Null),
            template: Some(WidgetSpecTemplate {
                image: Some("custom".to_owned()),
                ..WidgetSpecTemplate::default()
            }),
            ..WidgetSpec::default()
        },
    );
    let stored = widgets.create(&nulls).await.unwrap();
    assert_eq!(stored, as_stored(nulls.clone().with_defaults(), &stored));
    let spec = stored.spec.as_ref().unwrap();
    assert_eq!(spec.note, Some(None));
    assert_eq!(spec.extra, Some(json!({"tags": ["a", 1]})));
    let template = spec.template.as_ref().unwrap();
    assert_eq!(template.image.as_deref(), Some("custom"));
    assert_eq!(template.pull_policy.as_deref(), Some("IfNotPresent"));

    // Everything set: nothing changes on either side.
    let full = stored.clone();
    let stored = widgets
        .create(&Widget {
            metadata: ObjectMeta {
                name: Some("full".to_owned()),
                ..ObjectMeta::default()
            },
            ..full.clone()
        })
        .await
        .unwrap();
    assert_eq!(stored.spec, full.spec);
    assert_eq!(full.clone().with_defaults(), full);
}

#[test]
fn deserializing_applies_no_defaults() {
    let widget: Widget = serde_json::from_value(json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"size": 1, "ports": [{"name": "a", "port": 80}]}
    }))
    .unwrap();
    let spec = widget.spec.as_ref().unwrap();
    assert_eq!(spec.mode, None);
    assert_eq!(spec.ports.as_ref().unwrap()[0].protocol, None);
    assert_eq!(
        serde_json::to_value(&widget).unwrap()["spec"],
        json!({"size": 1, "ports": [{"name": "a", "port": 80}]})
    );
    let defaulted = widget.clone().with_defaults();
    assert_eq!(defaulted.clone().with_defaults(), defaulted, "idempotent");
    assert_ne!(defaulted, widget);
}
