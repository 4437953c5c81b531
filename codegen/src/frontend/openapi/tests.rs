//! Unit tests of the OpenAPI front-end with small inline documents.

use super::*;
use crate::model::{TypeDefKind, Version};

/// A v3 document serving `example.com/v1` `Widget` (namespaced) whose spec is `spec`
/// (a JSON schema), with `extra` more named schemas (JSON object members, may be empty).
fn v3(spec: &str, extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(",\n{extra}")
    };
    format!(
        r##"{{
"openapi": "3.0.0",
"paths": {{
  "/apis/example.com/v1/namespaces/{{namespace}}/widgets/{{name}}": {{
    "get": {{"x-kubernetes-group-version-kind": {{"group": "example.com", "version": "v1", "kind": "Widget"}}}}
  }}
}},
"components": {{"schemas": {{
"com.example.v1.Widget": {{
  "type": "object",
  "x-kubernetes-group-version-kind": [{{"group": "example.com", "version": "v1", "kind": "Widget"}}],
  "properties": {{
    "metadata": {{"allOf": [{{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}], "default": {{}}}},
    "spec": {spec}
  }}
}},
"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {{"type": "object", "properties": {{"name": {{"type": "string"}}}}}}{extra}
}}}}
}}"##
    )
}

fn load_one(text: &str, options: &Options) -> Result<Model> {
    let mut model = Model::default();
    load(&mut model, &[Source::new("in.json", text)], options)?;
    Ok(model)
}

fn v1(model: &Model) -> &Version {
    &model.groups["example.com"].versions["v1"]
}

fn input_error(result: Result<Model>) -> (u64, u64, String) {
    match result {
        Err(Error::Input { at, message }) => (at.line, at.column, message),
        other => panic!("expected an input error, got {other:?}"),
    }
}

fn field<'m>(version: &'m Version, ty: &str, wire: &str) -> &'m crate::model::Field {
    let Some(TypeDefKind::Struct(s)) = version.type_named(ty).map(|t| &t.kind) else {
        panic!("{ty} is a struct");
    };
    s.fields
        .iter()
        .find(|f| f.wire_name == wire)
        .unwrap_or_else(|| panic!("{ty}.{wire}"))
}

#[test]
fn all_of_wrapped_refs_keep_description_and_default() {
    let text = v3(
        r##"{"allOf": [{"$ref": "#/components/schemas/com.example.v1.WidgetSpec"}], "default": {}, "description": "Desired."}"##,
        r##""com.example.v1.WidgetSpec": {"type": "object", "description": "The spec.", "properties": {"size": {"type": "integer"}}}"##,
    );
    let model = load_one(&text, &Options::default()).unwrap();
    let spec = field(v1(&model), "Widget", "spec");
    assert_eq!(spec.ty, TypeRef::Named("WidgetSpec".to_owned()));
    assert_eq!(spec.docs.as_deref(), Some("Desired."));
    assert_eq!(spec.default, Some(serde_json::json!({})));
    assert_eq!(
        v1(&model).type_named("WidgetSpec").unwrap().docs.as_deref(),
        Some("The spec.")
    );
}

#[test]
fn other_packages_map_to_k8s_openapi_unless_generated() {
    let text = v3(
        r##"{"type": "object", "properties": {
            "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}]},
            "at": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"}}}"##,
        r##""io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "properties": {"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {"type": "string", "format": "date-time"}"##,
    );
    let model = load_one(&text, &Options::default()).unwrap();
    let template = field(v1(&model), "WidgetSpec", "template");
    assert_eq!(
        template.ty,
        TypeRef::External(ExternalType::new(
            "k8s_openapi::api::core::v1::PodTemplateSpec",
            true
        ))
    );
    assert!(v1(&model).type_named("PodTemplateSpec").is_none());

    let model = load_one(&text, &Options::default().generate_referenced(true)).unwrap();
    let template = field(v1(&model), "WidgetSpec", "template");
    assert_eq!(template.ty, TypeRef::Named("PodTemplateSpec".to_owned()));
    // ObjectMeta and MicroTime stay k8s-openapi's even then.
    let meta = field(v1(&model), "PodTemplateSpec", "metadata");
    assert_eq!(meta.ty, TypeRef::External(ExternalType::object_meta()));
    let at = field(v1(&model), "WidgetSpec", "at");
    assert!(matches!(&at.ty, TypeRef::External(e) if e.name() == "MicroTime"));
}

#[test]
fn missing_ref_targets_are_errors_at_the_reference() {
    let text = v3(
        r##"{"allOf": [{"$ref": "#/components/schemas/com.example.v1.Nope"}]}"##,
        "",
    );
    let (line, _, message) = input_error(load_one(&text, &Options::default()));
    let expected = text
        .lines()
        .position(|l| l.contains("com.example.v1.Nope"))
        .unwrap() as u64
        + 1;
    assert_eq!(line, expected);
    assert!(
        message
            .contains("expected `$ref` to a schema of the document, found `com.example.v1.Nope`"),
        "{message}"
    );
}

#[test]
fn refs_must_use_the_document_prefix() {
    let text = v3(r##"{"$ref": "#/definitions/com.example.v1.Spec"}"##, "");
    let (_, _, message) = input_error(load_one(&text, &Options::default()));
    assert!(
        message.contains("expected `$ref` to start with `#/components/schemas/`"),
        "{message}"
    );
}

#[test]
fn documents_must_say_which_openapi_they_are() {
    let (line, column, message) = input_error(load_one("{\"paths\": {}}", &Options::default()));
    assert_eq!((line, column), (1, 1));
    assert!(
        message.contains("expected an OpenAPI document"),
        "{message}"
    );
    let (line, _, message) = input_error(load_one(
        "{\n  \"swagger\": \"1.2\"\n}",
        &Options::default(),
    ));
    assert_eq!(line, 2);
    assert!(message.contains("found `1.2`"), "{message}");
    let (line, _, _) = input_error(load_one("openapi: 3.0.0\npaths: [\n", &Options::default()));
    assert!(line >= 2, "YAML syntax errors carry their line");
}

#[test]
fn served_kinds_need_a_schema() {
    let text = v3("{\"type\": \"string\"}", "").replace(
        "\"x-kubernetes-group-version-kind\": [{\"group\": \"example.com\", \"version\": \"v1\", \"kind\": \"Widget\"}],",
        "",
    );
    let (line, _, message) = input_error(load_one(&text, &Options::default()));
    assert_eq!(line, 4, "points at the path");
    assert!(
        message.contains("kind: \"Widget\"}, the kind path `/apis/example.com/v1/namespaces/{namespace}/widgets/{name}` serves"),
        "{message}"
    );
}

#[test]
fn selection_picks_groups_and_reports_what_is_served() {
    let text = v3("{\"type\": \"string\"}", "");
    let model = load_one(
        &text,
        &Options::default().group("example.com").version("v1"),
    )
    .unwrap();
    assert_eq!(model.kind_count(), 1);
    match load_one(&text, &Options::default().group("apps")) {
        Err(Error::NotServed { wanted, available }) => {
            assert_eq!(wanted, "apps/*");
            assert_eq!(available, "example.com/v1");
        }
        other => panic!("expected NotServed, got {other:?}"),
    }
    assert!(load_one(&text, &Options::default().group("core")).is_err());
}

#[test]
fn list_kinds_are_skipped_and_unused_definitions_get_their_own_module() {
    let text = v3(
        "{\"type\": \"string\"}",
        r##""com.example.v1.WidgetList": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/com.example.v1.Widget"}}}},
"com.example.v1.WidgetOptions": {"type": "object", "properties": {"dryRun": {"type": "boolean"}}},
"com.example.v1.Mode": {"type": "string", "enum": ["A", "B"]}"##,
    );
    let model = load_one(&text, &Options::default()).unwrap();
    let version = v1(&model);
    assert!(version.type_named("WidgetList").is_none());
    assert_eq!(
        version.type_named("WidgetOptions").unwrap().module,
        "widget_options"
    );
    assert_eq!(version.type_named("Mode").unwrap().module, "mode");
    assert_eq!(version.type_named("Widget").unwrap().module, "widget");
}

#[test]
fn recursive_definitions_are_boxed_and_recursive_aliases_rejected() {
    let text = v3(
        r##"{"$ref": "#/components/schemas/com.example.v1.Tree"}"##,
        r##""com.example.v1.Tree": {"type": "object", "properties": {"left": {"$ref": "#/components/schemas/com.example.v1.Tree"}}}"##,
    );
    let model = load_one(&text, &Options::default()).unwrap();
    let left = field(v1(&model), "Tree", "left");
    assert_eq!(
        left.ty,
        TypeRef::Boxed(Box::new(TypeRef::Named("Tree".to_owned())))
    );

    let text = v3(
        r##"{"$ref": "#/components/schemas/com.example.v1.Forest"}"##,
        r##""com.example.v1.Forest": {"type": "array", "items": {"$ref": "#/components/schemas/com.example.v1.Forest"}}"##,
    );
    let (_, _, message) = input_error(load_one(&text, &Options::default()));
    assert!(
        message.contains("to be an object, enum or union where it refers to itself"),
        "{message}"
    );
}

#[test]
fn list_semantics_are_documented() {
    let text = v3(
        r##"{"type": "object", "properties": {"ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"], "description": "Ports."}}}"##,
        "",
    );
    let model = load_one(&text, &Options::default()).unwrap();
    let ports = field(v1(&model), "WidgetSpec", "ports");
    assert_eq!(
        ports.docs.as_deref(),
        Some("Ports.\n\nList type `map`: entries are merged by key (`name`, `protocol`).")
    );
}

#[test]
fn the_same_kind_from_two_documents_is_an_error() {
    let text = v3("{\"type\": \"string\"}", "");
    let mut model = Model::default();
    let sources = [Source::new("a.json", &*text), Source::new("b.json", &*text)];
    let err = load(&mut model, &sources, &Options::default()).unwrap_err();
    assert!(err.to_string().starts_with("b.json:4:"), "{err}");
    assert!(
        err.to_string()
            .contains("kind `Widget` of example.com/v1 is defined twice"),
        "{err}"
    );
}

#[test]
fn k8s_openapi_default_follows_required_times() {
    let doc: BTreeMap<String, Spanned<Schema>> = serde_saphyr::from_str(
        r##"{
"a.Condition": {"type": "object", "required": ["t"], "properties": {"t": {"allOf": [{"$ref": "#/components/schemas/x.v1.Time"}]}}},
"a.Holder": {"type": "object", "required": ["c"], "properties": {"c": {"$ref": "#/components/schemas/a.Condition"}}},
"a.Plain": {"type": "object", "required": ["n"], "properties": {"n": {"type": "string"}}},
"a.String": {"type": "string"}
}"##,
    )
    .unwrap();
    let has = |name: &str| k8s_openapi_has_default(&doc[name].value, &doc, 0);
    assert!(!has("a.Condition"));
    assert!(!has("a.Holder"));
    assert!(has("a.Plain"));
    assert!(!has("a.String"));
}

#[test]
fn fast_and_located_parsing_build_the_same_model() {
    let text = include_str!("../../../tests/fixtures/openapi/v3_widgets.json");
    same_model_both_ways(&[Source::new("v3_widgets.json", text)]);
    // A real document too, where the corpus is present.
    let corpus = std::env::var_os("KUBEGEN_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
        });
    match std::fs::read_to_string(corpus.join("openapi/apis__apps__v1_openapi.json")) {
        Ok(text) => same_model_both_ways(&[Source::new("apps.json", text)]),
        Err(_) => println!("SKIPPED the corpus half: no OpenAPI corpus"),
    }
}

fn same_model_both_ways(sources: &[Source]) {
    let build = |parser| {
        let mut model = Model::default();
        load_with(&mut model, sources, &Options::default(), parser).unwrap();
        model
    };
    let fast = build(Parser::Fast);
    assert!(fast.kind_count() > 0);
    assert_eq!(fast, build(Parser::Located));
}

#[test]
fn errors_found_after_fast_parsing_still_name_the_line() {
    let good = v3("{\"type\": \"string\"}", "");
    let bad =
        v3(r##"{"$ref": "#/components/schemas/missing"}"##, "").replace("example.com", "other.com");
    let mut model = Model::default();
    load(
        &mut model,
        &[Source::new("good.json", &*good)],
        &Options::default(),
    )
    .unwrap();
    let before = model.clone();
    let err = load(
        &mut model,
        &[Source::new("bad.json", &*bad)],
        &Options::default(),
    )
    .unwrap_err();
    // Line 14 is the `spec` property holding the `$ref` (found by the located retry).
    assert!(err.to_string().starts_with("bad.json:14:13: "), "{err}");
    // What earlier loads built is kept.
    assert_eq!(model.groups["example.com"], before.groups["example.com"]);
}

#[test]
fn storage_versions_cannot_be_selected() {
    let text = v3("{\"type\": \"string\"}", "");
    let options = Options::default().versions(Versions::Storage);
    assert!(matches!(
        load_one(&text, &options),
        Err(Error::Selection { .. })
    ));
    let named = Options::default().versions("v1".parse().unwrap());
    assert!(load_one(&text, &named).is_ok());
}

#[test]
fn kinds_kubernetes_rejects_are_errors_at_their_path() {
    let text = v3("{\"type\": \"string\"}", "").replace("\"Widget\"", "\"Wid get\"");
    let err = load_one(&text, &Options::default())
        .unwrap_err()
        .to_string();
    // Line 4 holds the path that serves the kind.
    assert!(err.starts_with("in.json:4:"), "{err}");
    assert!(err.contains("invalid kind \"Wid get\""), "{err}");
}
