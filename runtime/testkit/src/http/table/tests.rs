//! Table options and rendering.

use serde_json::json;

use super::*;
use crate::http::metav1::MetaVersion;
use crate::store::jsonpath::JsonPath;
use crate::store::registry::Registry;

#[test]
fn a_list_of_configmaps_as_kubectl_gets_it() {
    let registry = Registry::with_built_ins();
    let rt = registry.get("", "v1", "configmaps").expect("configmaps");
    let objects = [
        json!({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "5"}, "data": {"x": "1"}}),
        json!({"metadata": {"name": "b", "namespace": "ns", "resourceVersion": "6"}}),
    ];
    let options = TableOptions::new(MetaVersion::V1, None, None).expect("valid");
    let table = render(&rt, &objects, json!({"resourceVersion": "9"}), options);
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(table["metadata"]["resourceVersion"], "9");
    let names: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["Name", "Data", "Age"]);
    assert_eq!(table["columnDefinitions"][0]["format"], "name");
    assert_eq!(table["rows"][0]["cells"], json!(["a", 1, "<unknown>"]));
    assert_eq!(table["rows"][1]["cells"][1], 0);
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(table["rows"][0]["object"]["metadata"]["name"], "a");
    let whole = render(
        &rt,
        &objects,
        json!({}),
        TableOptions {
            include: IncludeObject::Object,
            ..options
        },
    );
    assert_eq!(whole["rows"][0]["object"]["data"]["x"], "1");
    assert_eq!(whole["rows"][0]["object"]["kind"], "ConfigMap");
    let bare = object(
        &rt,
        &objects[1],
        TableOptions {
            include: IncludeObject::None,
            ..options
        }
        .without_headers(),
    );
    assert_eq!(bare["rows"][0]["object"], Value::Null);
    assert_eq!(bare["columnDefinitions"], json!([]));
    assert_eq!(bare["metadata"]["resourceVersion"], "6");
}

#[test]
fn custom_resources_use_their_printer_columns() {
    let registry = Registry::with_built_ins();
    let mut rt = (*registry
        .get("", "v1", "configmaps")
        .expect("a type to copy"))
    .clone();
    rt.custom = true;
    let column = |name: &str, ty: &str, path: &str| PrinterColumn {
        name: name.to_owned(),
        ty: ty.to_owned(),
        format: String::new(),
        description: format!("the {name}"),
        priority: 0,
        path: JsonPath::parse(path).expect("path"),
    };
    rt.printer_columns = vec![
        column("Replicas", "integer", ".spec.replicas"),
        column(
            "Ready",
            "string",
            r#".status.conditions[?(@.type=="Ready")].status"#,
        ),
        column("Ratio", "number", ".spec.ratio"),
        column("Paused", "boolean", ".spec.paused"),
        column("Age", "date", ".metadata.creationTimestamp"),
        column("Missing", "string", ".spec.nothing"),
        column("Config", "string", ".spec.config"),
    ];
    let foo = json!({
        "metadata": {"name": "foo", "creationTimestamp": "2000-01-01T00:00:00Z"},
        "spec": {"replicas": 2.0, "ratio": 1, "paused": false, "config": {"a": 1}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    });
    let options = TableOptions::new(MetaVersion::V1, None, None).expect("valid");
    let table = object(&rt, &foo, options);
    let cells = table["rows"][0]["cells"].as_array().expect("cells").clone();
    assert_eq!(
        &cells[..4],
        [json!("foo"), json!(2), json!("True"), json!(1.0)]
    );
    assert_eq!(cells[4], json!(false));
    assert!(
        cells[5].as_str().is_some_and(|age| age.ends_with('y')),
        "{}",
        cells[5]
    );
    assert_eq!(cells[6], Value::Null);
    assert_eq!(cells[7], json!(r#"{"a":1}"#));
    assert_eq!(table["columnDefinitions"][1]["description"], "the Replicas");
    assert_eq!(table["columnDefinitions"].as_array().map(Vec::len), Some(8));
}
