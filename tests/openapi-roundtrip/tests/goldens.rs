//! Objects round-trip through the types generated for the OpenAPI fixtures (the codegen
//! goldens `openapi_*`, compiled into this crate): `$ref`s and `allOf` wrappers, keyword and
//! dashed field names, int-or-string, quantities, bytes, enums, preserved unknown fields,
//! recursion, and the resource impls that kinds get from the document's paths.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use k8s_openapi::{ListableResource, Resource};
use kubegen_openapi_roundtrip::golden;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn round_trip<K: DeserializeOwned + Serialize>(value: Value) -> K {
    let typed: K = serde_json::from_value(value.clone()).expect("deserializes");
    assert_eq!(serde_json::to_value(&typed).unwrap(), value, "round trip");
    typed
}

#[test]
fn v3_widget_keeps_every_field() {
    use golden::openapi_v3_widgets::widgets_example_com::v1::{Widget, WidgetSpecMode};
    let widget: Widget = round_trip(json!({
        "apiVersion": "widgets.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {
            "replicas": 3,
            "size": 9007199254740993_i64,
            "ratio": 0.1,
            "payload": "aGVsbG8=",
            "mode": "not-sure",
            "port": "http",
            "resources": {"cpu": "250m", "memory": "1Gi"},
            "selector": {"matchLabels": {"app": "w"}},
            "template": {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
            "config": null,
            "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
            "ports": [{"name": "http", "number": 80}],
            "annotations": {"a": "b"}
        },
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z", "message": "", "reason": "Ok"}],
            "lastScaleTime": "2024-01-02T03:04:05Z",
            "replicas": 3
        }
    }));
    let spec = widget.spec.unwrap();
    assert_eq!(spec.mode, Some(WidgetSpecMode::NotSure));
    assert_eq!(spec.config, Some(Value::Null), "explicit null kept");
    assert_eq!(Widget::URL_PATH_SEGMENT, "widgets");
    assert_eq!(Widget::LIST_KIND, "WidgetList");
    assert!(
        std::any::type_name::<<Widget as Resource>::Scope>().ends_with("NamespaceResourceScope")
    );
}

#[test]
fn v3_gizmo_is_a_cluster_scoped_tree() {
    use golden::openapi_v3_widgets::widgets_example_com::v1::Gizmo;
    let gizmo: Gizmo = round_trip(json!({
        "apiVersion": "widgets.example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": "g"},
        "root": {"label": "a", "children": [{"label": "b"}], "next": {"label": "c", "next": {"label": "d"}}}
    }));
    let root = gizmo.root.unwrap();
    assert_eq!(root.next.unwrap().next.unwrap().label.as_deref(), Some("d"));
    assert!(std::any::type_name::<<Gizmo as Resource>::Scope>().ends_with("ClusterResourceScope"));
}

#[test]
fn v2_gadget_maps_odd_names_and_k8s_openapi_types() {
    use golden::openapi_v2_gadgets::gadgets_example_com::v1::{Gadget, GadgetStatusPhase};
    let gadget: Gadget = round_trip(json!({
        "apiVersion": "gadgets.example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "g"},
        "spec": {
            "owner": {"kind": "Pod", "name": "p"},
            "type": "t",
            "x-kube-field": "x",
            "fields": {"f:metadata": {}},
            "at": "2024-01-02T03:04:05.123456Z",
            "raw": {"anything": [1, 2]}
        },
        "status": {"phase": "Ready"}
    }));
    let spec = gadget.spec.unwrap();
    assert_eq!(spec.type_.as_deref(), Some("t"));
    assert_eq!(spec.x_kube_field.as_deref(), Some("x"));
    assert_eq!(gadget.status.unwrap().phase, Some(GadgetStatusPhase::Ready));

    use golden::openapi_v2_gadgets::gadgets_example_com::v1beta1::Gadget as GadgetBeta;
    assert_eq!(GadgetBeta::API_VERSION, "gadgets.example.com/v1beta1");
    use golden::openapi_v2_gadgets::core::v1::Pod;
    assert_eq!(
        (Pod::API_VERSION, Pod::GROUP, Pod::URL_PATH_SEGMENT),
        ("v1", "", "pods")
    );
}
