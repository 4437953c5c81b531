//! `#[derive(Resource)]`: resource traits, serde with apiVersion/kind, and the CRD.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::{DeepCopy, Resource};
use serde_json::json;

#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
struct FooSpec {
    /// The deployment to run.
    deployment_name: String,
    replicas: Option<i32>,
    mode: Mode,
    source: Option<Source>,
    extra: BTreeMap<String, serde_json::Value>,
    port: Option<IntOrStringLike>,
}

#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
enum Mode {
    /// Fast.
    #[default]
    Fast,
    /// Safe.
    Safe,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Source {
    Git { url: String },
    Image { reference: String },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum IntOrStringLike {
    Int(i32),
    Str(String),
}

#[derive(
    Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
struct FooStatus {
    available_replicas: i32,
    selector: Option<String>,
}

/// A Foo runs a deployment.
#[derive(Debug, PartialEq, DeepCopy, Resource)]
#[resource(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    status,
    shortname = "fo",
    category = "all",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.availableReplicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(
        name = "Deployment",
        type = "string",
        json_path = ".spec.deploymentName"
    ),
    printcolumn(
        name = "Age",
        type = "date",
        json_path = ".metadata.creationTimestamp",
        priority = 1
    ),
    selectable = ".spec.deploymentName"
)]
struct Foo {
    metadata: ObjectMeta,
    spec: FooSpec,
    status: Option<FooStatus>,
}

/// A cluster-scoped kind with a custom kind name, a renamed field and a client with a few
/// verbs (which shape only generated clients, not the CRD).
#[derive(Clone, Debug, PartialEq, Resource)]
#[resource(
    group = "example.com",
    version = "v1",
    kind = "Zone",
    plural = "zones",
    cluster,
    verbs(get, list, watch, patch)
)]
struct ZoneObject {
    metadata: ObjectMeta,
    spec: BTreeMap<String, String>,
    #[resource(rename = "port")]
    port_number: Option<IntOrString>,
}

fn foo() -> Foo {
    Foo {
        metadata: ObjectMeta {
            name: Some("a".into()),
            namespace: Some("ns".into()),
            ..ObjectMeta::default()
        },
        spec: FooSpec {
            deployment_name: "web".into(),
            replicas: Some(2),
            ..FooSpec::default()
        },
        status: None,
    }
}

#[test]
fn kube_resource_through_k8s_openapi_traits() {
    use kube::Resource as _;
    assert_eq!(Foo::kind(&()), "Foo");
    assert_eq!(Foo::group(&()), "samplecontroller.k8s.io");
    assert_eq!(Foo::api_version(&()), "samplecontroller.k8s.io/v1alpha1");
    assert_eq!(Foo::plural(&()), "foos");
    assert_eq!(<Foo as k8s_openapi::ListableResource>::LIST_KIND, "FooList");
    assert_eq!(
        Foo::url_path(&(), Some("ns")),
        "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos"
    );
    assert_eq!(ZoneObject::kind(&()), "Zone");
    assert_eq!(
        ZoneObject::url_path(&(), None),
        "/apis/example.com/v1/zones"
    );
    let object = foo();
    assert_eq!(object.meta().name.as_deref(), Some("a"));
}

#[test]
fn serializes_api_version_and_kind_and_skips_none() {
    let value = serde_json::to_value(foo()).unwrap();
    assert_eq!(
        value,
        json!({
            "apiVersion": "samplecontroller.k8s.io/v1alpha1",
            "kind": "Foo",
            "metadata": { "name": "a", "namespace": "ns" },
            "spec": { "deploymentName": "web", "replicas": 2, "mode": "Fast", "source": null, "extra": {}, "port": null },
        })
    );
    let text = serde_json::to_string(&foo()).unwrap();
    assert!(text.starts_with(r#"{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","#));
}

#[test]
fn deserializes_with_or_without_type_meta() {
    let mut object = foo();
    object.status = Some(FooStatus {
        available_replicas: 1,
        selector: None,
    });
    let value = serde_json::to_value(&object).unwrap();
    let back: Foo = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(back, object);

    // apiVersion/kind absent (list items), unknown fields ignored, null status is None,
    // missing metadata defaults.
    let back: Foo = serde_json::from_value(json!({
        "spec": { "deploymentName": "web", "mode": "Safe", "extra": {} },
        "status": null,
        "unknown": [1, 2, 3],
    }))
    .unwrap();
    assert_eq!(back.metadata, ObjectMeta::default());
    assert_eq!(back.spec.mode, Mode::Safe);
    assert_eq!(back.status, None);

    let missing = serde_json::from_value::<Foo>(json!({ "metadata": {} })).unwrap_err();
    assert_eq!(missing.to_string(), "missing field `spec`");
    let duplicate = serde_json::from_str::<Foo>(
        r#"{"spec": {"deploymentName": "a", "mode": "Fast", "extra": {}}, "spec": {}}"#,
    )
    .unwrap_err();
    assert!(
        duplicate.to_string().starts_with("duplicate field `spec`"),
        "{duplicate}"
    );
    let wrong = serde_json::from_value::<Foo>(json!([1])).unwrap_err();
    assert!(
        wrong
            .to_string()
            .contains("a samplecontroller.k8s.io/v1alpha1 Foo object"),
        "{wrong}"
    );

    let zone: ZoneObject =
        serde_json::from_value(json!({ "spec": { "a": "b" }, "port": "http" })).unwrap();
    assert_eq!(zone.port_number, Some(IntOrString::String("http".into())));
    assert_eq!(serde_json::to_value(&zone).unwrap()["port"], "http");
}

#[test]
fn crd_names_scope_and_subresources() {
    let crd = serde_json::to_value(Foo::crd()).unwrap();
    assert_eq!(crd["metadata"]["name"], "foos.samplecontroller.k8s.io");
    let spec = &crd["spec"];
    assert_eq!(spec["group"], "samplecontroller.k8s.io");
    assert_eq!(spec["scope"], "Namespaced");
    assert_eq!(
        spec["names"],
        json!({ "kind": "Foo", "listKind": "FooList", "plural": "foos", "singular": "foo", "shortNames": ["fo"], "categories": ["all"] })
    );
    let version = &spec["versions"][0];
    assert_eq!(version["name"], "v1alpha1");
    assert_eq!(version["served"], true);
    assert_eq!(version["storage"], true);
    assert_eq!(
        version["subresources"],
        json!({ "status": {}, "scale": { "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.availableReplicas", "labelSelectorPath": ".status.selector" } })
    );
    assert_eq!(
        version["additionalPrinterColumns"],
        json!([
            { "name": "Deployment", "type": "string", "jsonPath": ".spec.deploymentName" },
            { "name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp", "priority": 1 },
        ])
    );
    assert_eq!(
        version["selectableFields"],
        json!([{ "jsonPath": ".spec.deploymentName" }])
    );

    let zone = serde_json::to_value(ZoneObject::crd()).unwrap();
    assert_eq!(zone["spec"]["scope"], "Cluster");
    assert_eq!(zone["spec"]["names"]["kind"], "Zone");
    assert!(zone["spec"]["versions"][0].get("subresources").is_none());
    let keys: Vec<&String> = zone["spec"]["versions"][0]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        ["name", "schema", "served", "storage"],
        "client verbs are not in the CRD"
    );
}

/// Checks the structural rules the API server enforces on every node.
fn assert_structural(schema: &serde_json::Value, path: &str) {
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{path}: not an object"));
    assert!(!map.contains_key("$ref"), "{path}: $ref");
    assert!(
        map.contains_key("type")
            || map.contains_key("x-kubernetes-int-or-string")
            || map.contains_key("x-kubernetes-preserve-unknown-fields"),
        "{path}: no type in {schema}"
    );
    assert!(
        !map.get("type").is_some_and(|t| t.is_array()),
        "{path}: type array"
    );
    assert!(
        !(map.contains_key("properties") && map.contains_key("additionalProperties")),
        "{path}"
    );
    for junction in ["anyOf", "oneOf", "allOf"] {
        for branch in map
            .get(junction)
            .and_then(|b| b.as_array())
            .into_iter()
            .flatten()
        {
            for key in [
                "type",
                "description",
                "default",
                "nullable",
                "additionalProperties",
            ] {
                assert!(
                    branch.get(key).is_none(),
                    "{path}: `{key}` inside {junction}"
                );
            }
        }
    }
    for (name, property) in map
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
    {
        assert_structural(property, &format!("{path}.{name}"));
    }
    if let Some(items) = map.get("items") {
        assert_structural(items, &format!("{path}[*]"));
    }
    if let Some(additional) = map.get("additionalProperties").filter(|a| a.is_object()) {
        assert_structural(additional, &format!("{path}.*"));
    }
}

#[test]
fn crd_schema_is_structural() {
    let crd = serde_json::to_value(Foo::crd()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_structural(schema, "");
    assert_eq!(schema["description"], "A Foo runs a deployment.");
    assert_eq!(schema["required"], json!(["spec"]));
    assert_eq!(
        schema["properties"]["metadata"],
        json!({ "type": "object" })
    );
    let spec = &schema["properties"]["spec"];
    assert_eq!(
        spec["properties"]["deploymentName"]["description"],
        "The deployment to run."
    );
    assert_eq!(
        spec["properties"]["replicas"],
        json!({ "type": "integer", "format": "int32", "nullable": true })
    );
    assert_eq!(spec["properties"]["mode"]["enum"], json!(["Fast", "Safe"]));
    assert_eq!(spec["properties"]["mode"]["type"], "string");
    assert_eq!(
        spec["properties"]["extra"],
        json!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
    );
    assert_eq!(
        spec["properties"]["port"]["x-kubernetes-int-or-string"],
        true
    );
    let source = &spec["properties"]["source"];
    assert_eq!(source["type"], "object");
    assert_eq!(
        source["properties"]["type"]["enum"],
        json!(["git", "image"])
    );
    assert_eq!(
        source["oneOf"],
        json!([{ "required": ["type", "url"] }, { "required": ["type", "reference"] }])
    );
    let status = &schema["properties"]["status"];
    assert_eq!(status["properties"]["availableReplicas"]["type"], "integer");

    let zone = serde_json::to_value(ZoneObject::crd()).unwrap();
    let zone_schema = &zone["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_structural(zone_schema, "");
    assert_eq!(
        zone_schema["properties"]["port"]["x-kubernetes-int-or-string"],
        true
    );
}

#[test]
fn crd_prints_as_yaml() {
    let yaml = serde_saphyr::to_string(&Foo::crd()).unwrap();
    assert!(
        yaml.contains("name: foos.samplecontroller.k8s.io"),
        "{yaml}"
    );
    assert!(yaml.contains("openAPIV3Schema:"), "{yaml}");
}
