//! How generated types read and write their objects (the `__kubegen_serde!` impls of the
//! `Widget` CRD's types): what `#[derive(Serialize, Deserialize)]` with kubegen's serde
//! attributes did, checked through JSON text, `serde_json::Value` and YAML.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use kubegen_e2e_api::crd::example_com::v1::{Widget, WidgetSpec, WidgetSpecMode};
use serde_json::json;

fn widget_json() -> serde_json::Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {
            "size": 3,
            "mode": "Slow",
            "note": null,
            "extra": {"tags": ["a", 1], "nested": {"x": null}},
            "labels": {"team": "blue"},
            "limits": {"cpu": {"max": 4}},
            "ports": [{"name": "http", "port": 80}],
            "ratio": 0.25,
            "port": "http",
            "since": "2024-01-02T03:04:05Z",
            "template": {"image": "nginx", "args": ["-v"]}
        },
        "status": {"ready": true, "observedSize": 3}
    })
}

#[test]
fn text_value_and_yaml_read_the_same_object_and_it_writes_back_exactly() {
    let expected = widget_json();
    let from_text: Widget = serde_json::from_str(&expected.to_string()).unwrap();
    let from_value: Widget = serde_json::from_value(expected.clone()).unwrap();
    let yaml = serde_saphyr::to_string(&expected).unwrap();
    let from_yaml: Widget = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(from_text, from_value);
    assert_eq!(from_text, from_yaml);
    let spec = from_text.spec.as_ref().unwrap();
    assert_eq!(spec.size, 3);
    assert_eq!(spec.mode, Some(WidgetSpecMode::Slow));
    // A present `null` of an optional nullable property is kept, so it is written back.
    assert_eq!(spec.note, Some(None));
    assert_eq!(serde_json::to_value(&from_text).unwrap(), expected);
}

#[test]
fn absent_optional_fields_stay_absent() {
    let spec: WidgetSpec = serde_json::from_value(json!({"size": 1})).unwrap();
    assert_eq!(spec.note, None);
    assert_eq!(spec.mode, None);
    assert_eq!(serde_json::to_value(&spec).unwrap(), json!({"size": 1}));
}

#[test]
fn a_missing_required_field_is_named() {
    let error = serde_json::from_str::<WidgetSpec>(r#"{"mode": "Fast"}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "missing field `size` at line 1 column 16"
    );
}

#[test]
fn unknown_keys_are_skipped_and_a_repeated_key_keeps_its_last_value() {
    let spec: WidgetSpec =
        serde_json::from_str(r#"{"size": 1, "unknown": {"deep": [1, {"x": null}]}, "size": 2}"#)
            .unwrap();
    assert_eq!(spec.size, 2);
    assert_eq!(serde_json::to_value(&spec).unwrap(), json!({"size": 2}));
}

#[test]
fn a_value_of_the_wrong_type_names_what_was_expected() {
    let error = serde_json::from_str::<WidgetSpec>(r#"{"size": 1, "template": 5}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid type: integer `5`, expected struct WidgetSpecTemplate at line 1 column 25"
    );
    let error = serde_json::from_str::<WidgetSpec>(r#"{"size": 1, "mode": "Medium"}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown variant `Medium`, expected `Fast` or `Slow` at line 1 column 28"
    );
    let error = serde_json::from_str::<WidgetSpec>(r#"{"size": "big"}"#).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid type: string \"big\", expected i32"),
        "{error}"
    );
}

#[test]
fn a_root_writes_its_api_version_and_kind_and_reads_without_them() {
    let widget: Widget = serde_json::from_value(json!({"metadata": {"name": "w"}})).unwrap();
    assert_eq!(widget.metadata.name.as_deref(), Some("w"));
    assert_eq!(
        serde_json::to_value(&widget).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    );
    // `metadata` may be absent: it reads as the default.
    let bare: Widget = serde_json::from_value(json!({})).unwrap();
    assert_eq!(bare.metadata, Default::default());
}
