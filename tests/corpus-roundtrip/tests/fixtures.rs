//! Values round-trip through the types generated for the codegen fixtures (the golden
//! files, compiled into this crate): explicit nulls, unknown fields, int-or-string, unions,
//! odd wire names, numbers, and the resource impls of root types.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen_corpus_roundtrip::golden;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Deserializes `value` into `K` (from JSON and from YAML text), checks both serialize back
/// to exactly `value`, and returns the typed object.
fn round_trip<K: DeserializeOwned + Serialize>(value: Value) -> K {
    let typed: K = serde_json::from_value(value.clone()).expect("deserializes from JSON");
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        value,
        "JSON round trip"
    );
    let yaml = serde_json::to_string_pretty(&value).unwrap();
    let from_yaml: K = serde_saphyr::from_str(&yaml).expect("deserializes from YAML");
    assert_eq!(
        serde_json::to_value(&from_yaml).unwrap(),
        value,
        "YAML round trip"
    );
    typed
}

#[test]
fn explicit_nulls_survive_and_absent_fields_stay_absent() {
    use golden::nullable::nullable_example_com::v1::Thing;
    let thing: Thing = round_trip(json!({
        "apiVersion": "nullable.example.com/v1",
        "kind": "Thing",
        "metadata": {"name": "a"},
        "spec": {
            "mustExist": null,
            "maybeString": null,
            "maybeCount": null,
            "maybeRatio": 1,
            "maybeObject": null,
            "items": ["a", null],
            "values": {"x": null, "y": 2},
            "plain": "p"
        }
    }));
    let spec = thing.spec.unwrap();
    assert_eq!(spec.maybe_string, Some(None));
    assert_eq!(spec.must_exist, None);
    assert_eq!(spec.items, Some(vec![Some("a".to_owned()), None]));

    let sparse: Thing = round_trip(json!({
        "apiVersion": "nullable.example.com/v1",
        "kind": "Thing",
        "metadata": {},
        "spec": {"mustExist": "here"}
    }));
    assert_eq!(sparse.spec.unwrap().maybe_string, None);
}

#[test]
fn unknown_fields_int_or_string_and_numbers_round_trip() {
    use golden::shapes::shapes_example_com::v1::Shape;
    let shape: Shape = round_trip(json!({
        "apiVersion": "shapes.example.com/v1",
        "kind": "Shape",
        "metadata": {"name": "s", "labels": {"a": "b"}},
        "spec": {
            "port": 80,
            "resources": {"cpu": "100m", "memory": 1},
            "config": {"anything": [1, "two", null, {"three": 3.5}]},
            "values": {"nested": {"deep": null}},
            "template": {"name": "t", "extra": {"kept": true}, "nullish": null},
            "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"creationTimestamp": null}},
            "embeddedTyped": {"apiVersion": "apps/v1", "kind": "Deployment",
                              "metadata": {"name": "d"}, "spec": {"replicas": 1}},
            "labels": {"x": "y"},
            "anything": {"k": [null]},
            "annotated": {"name": "n", "other": "o"},
            "bare": {"free": {"form": 1}},
            "list": [1, "a", null],
            "data": "aGVsbG8=",
            "size": "1Gi",
            "big": 9007199254740993i64,
            "small": -3,
            "ratio": 100,
            "mode": "fast",
            "level": 2
        },
        "status": {"whatever": {"the": "controller writes"}, "n": null}
    }));
    let spec = shape.spec.unwrap();
    assert_eq!(spec.port, Some(IntOrString::Int(80)));
    assert_eq!(
        spec.resources.unwrap()["cpu"],
        IntOrString::String("100m".to_owned())
    );
    assert_eq!(
        spec.template.unwrap().additional_properties["extra"],
        json!({"kept": true})
    );
    assert_eq!(spec.ratio.unwrap().as_f64(), Some(100.0));

    let fractional: Shape = round_trip(json!({
        "apiVersion": "shapes.example.com/v1",
        "kind": "Shape",
        "metadata": {},
        "spec": {"port": "http", "ratio": 0.25}
    }));
    assert_eq!(
        fractional.spec.unwrap().port,
        Some(IntOrString::String("http".to_owned()))
    );
}

#[test]
fn odd_wire_names_map_to_their_fields() {
    use golden::names::names_example_com::v1::{Widget, WidgetSpecPhase};
    let widget: Widget = round_trip(json!({
        "apiVersion": "names.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {
            "type": "t", "self": "s", "$ref": "r", "@type": "at", "2xx": 200,
            "foo-bar": "dash", "fooBar": "camel", "FooBar": "pascal", "größe": "gross",
            "ca.crt": "Y2E=", "a/b": true, "spec": {"spec": {"x": "inner"}},
            "phase": "not-ready", "option": {"value": "v"}
        }
    }));
    let spec = widget.spec.unwrap();
    assert_eq!(spec.type_, "t");
    assert_eq!(spec.type_2.as_deref(), Some("at"));
    assert_eq!(spec.foo_bar.as_deref(), Some("camel"));
    assert_eq!(spec.phase, Some(WidgetSpecPhase::NotReady));
    for (wire, variant) in [
        ("", WidgetSpecPhase::Empty),
        ("*", WidgetSpecPhase::Star),
        ("ready", WidgetSpecPhase::Ready2),
    ] {
        assert_eq!(serde_json::to_value(variant).unwrap(), json!(wire));
    }
}

#[test]
fn unions_and_merged_branches() {
    use golden::unions::unions_example_com::v1::{Route, RouteSpecTarget};
    let route: Route = round_trip(json!({
        "apiVersion": "unions.example.com/v1",
        "kind": "Route",
        "metadata": {},
        "spec": {
            "exact": "/",
            "address": {"type": "IPAddress", "value": "10.0.0.1"},
            "backend": {"service": "svc", "weight": 1},
            "merged": {"a": "x", "b": true},
            "target": ["a.example.com", "b.example.com"],
            "number": 7
        }
    }));
    let spec = route.spec.unwrap();
    assert!(matches!(spec.target, Some(RouteSpecTarget::Array(_))));
    let single: Route = round_trip(json!({
        "apiVersion": "unions.example.com/v1", "kind": "Route", "metadata": {},
        "spec": {"target": "a.example.com"}
    }));
    assert!(matches!(
        single.spec.unwrap().target,
        Some(RouteSpecTarget::String(_))
    ));
}

#[test]
fn root_types_are_resources() {
    use golden::versions::versions_example_com::{v1, v1alpha1};
    use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope, Resource};

    fn cluster_scoped<K: Resource<Scope = ClusterResourceScope>>() {}
    fn namespaced<K: Resource<Scope = NamespaceResourceScope>>() {}
    cluster_scoped::<v1::Database>();
    cluster_scoped::<v1alpha1::Database>();
    namespaced::<v1::Backup>();
    assert_eq!(v1::Database::API_VERSION, "versions.example.com/v1");
    assert_eq!(v1::Database::URL_PATH_SEGMENT, "databases");
    assert_eq!(
        <v1::Database as k8s_openapi::ListableResource>::LIST_KIND,
        "DatabaseList"
    );

    // A root that only preserves unknown fields still gets a type, and keeps everything.
    let backup: v1::Backup = round_trip(json!({
        "apiVersion": "versions.example.com/v1",
        "kind": "Backup",
        "metadata": {"name": "b", "namespace": "ns"},
        "spec": {"schedule": "@daily"},
        "status": {"last": null}
    }));
    assert_eq!(
        k8s_openapi::Metadata::metadata(&backup).name.as_deref(),
        Some("b")
    );

    let db: v1::Database = round_trip(json!({
        "apiVersion": "versions.example.com/v1",
        "kind": "Database",
        "metadata": {"name": "db"},
        "spec": {"replicas": 3}
    }));
    assert_eq!(db.spec.replicas, 3);
}

#[test]
fn well_known_shapes_use_k8s_openapi_types() {
    use golden::wellknown::wellknown_example_com::v1::Watcher;
    let watcher: Watcher = round_trip(json!({
        "apiVersion": "wellknown.example.com/v1",
        "kind": "Watcher",
        "metadata": {"name": "w"},
        "spec": {
            "selector": {"matchLabels": {"app": "x"},
                         "matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]},
            "ref": {"kind": "Pod", "name": "p"},
            "partialRef": {"kind": "Pod", "name": "p"}
        },
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "Ok", "message": "",
                            "lastTransitionTime": "2024-01-02T03:04:05Z", "observedGeneration": 2}],
            "looseConditions": [{"type": "Ready", "status": "True"}]
        }
    }));
    let status = watcher.status.unwrap();
    let conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> =
        status.conditions.unwrap();
    assert_eq!(conditions[0].observed_generation, Some(2));
    let selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector> =
        watcher.spec.unwrap().selector;
    assert!(selector.is_some());
}
