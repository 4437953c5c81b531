//! The Rust front-end's schema reading, on inline sources.

use crate::frontend::{Source, rust};
use crate::model::{HandWritten, Model, RootType, TypeDef, TypeDefKind, TypeRef};

const ROOT: &str = "#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\")]\npub struct Foo { pub metadata: ObjectMeta, pub spec: FooSpec }\n";

fn load(sources: &[(&str, &str)]) -> crate::frontend::Result<Model> {
    let sources: Vec<Source> = sources.iter().map(|(n, t)| Source::new(*n, *t)).collect();
    let mut model = Model::default();
    rust::load(
        &mut model,
        &sources,
        &rust::Options::default().schemas(true),
    )?;
    Ok(model)
}

fn hand(model: &Model) -> &HandWritten {
    let kind = &model.groups["example.com"].versions["v1"].kinds["Foo"];
    match &kind.root {
        RootType::HandWritten(hand) => hand,
        other => panic!("not hand-written: {other:?}"),
    }
}

fn named<'m>(hand: &'m HandWritten, name: &str) -> &'m TypeDef {
    hand.types.iter().find(|t| t.name == name).expect(name)
}

#[test]
fn fields_follow_serde_and_schemars() {
    let text = format!(
        "{ROOT}/// The spec.\n#[serde(rename_all = \"camelCase\")]\npub struct FooSpec {{\n\
         /// Replicas.\n#[schemars(range(min = -1, max = 10))]\npub max_replicas: i32,\n\
         #[serde(default)]\npub tags: Vec<String>,\n\
         #[serde(rename = \"x\")]\npub note: Option<String>,\n\
         #[serde(skip)]\npub cache: i64,\n}}\n"
    );
    let model = load(&[("v1.rs", &text)]).unwrap();
    let hand = hand(&model);
    let TypeDefKind::Struct(root) = &hand.def.kind else {
        panic!()
    };
    assert_eq!(root.fields[1].ty, TypeRef::Named("FooSpec".into()));
    let spec = named(hand, "FooSpec");
    assert_eq!(spec.docs.as_deref(), Some("The spec."));
    let TypeDefKind::Struct(spec) = &spec.kind else {
        panic!()
    };
    let wires: Vec<(&str, bool, bool)> = spec
        .fields
        .iter()
        .map(|f| (f.wire_name.as_str(), f.required, f.nullable))
        .collect();
    assert_eq!(
        wires,
        [
            ("maxReplicas", true, false),
            ("tags", false, false),
            ("x", false, true)
        ]
    );
    let replicas = &spec.fields[0];
    assert_eq!(replicas.docs.as_deref(), Some("Replicas."));
    assert_eq!(replicas.validation.minimum, Some((-1).into()));
    assert_eq!(replicas.validation.maximum, Some(10.into()));
    assert_eq!(spec.fields[1].default, Some(serde_json::json!([])));
}

#[test]
fn enum_values_in_schemars_order() {
    let text = format!(
        "{ROOT}#[serde(rename_all = \"kebab-case\")]\npub enum FooSpec {{ /// Documented.\nInService, Pending, #[serde(rename = \"X\")] Other }}\n"
    );
    let model = load(&[("v1.rs", &text)]).unwrap();
    let TypeDefKind::Enum(e) = &named(hand(&model), "FooSpec").kind else {
        panic!()
    };
    let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
    assert_eq!(wires, ["pending", "X", "in-service"]);
}

#[test]
fn types_are_found_in_the_same_file_first() {
    let spec_here = format!(
        "{ROOT}pub struct FooSpec {{ pub a: Shared }}\npub struct Shared {{ pub local: bool }}\n"
    );
    let elsewhere = "pub struct Shared { pub remote: bool }\npub struct Other { pub b: bool }\n";
    let model = load(&[("a.rs", &spec_here), ("b.rs", elsewhere)]).unwrap();
    let TypeDefKind::Struct(shared) = &named(hand(&model), "Shared").kind else {
        panic!()
    };
    assert_eq!(shared.fields[0].wire_name, "local");

    // Found in another file when the kind's file has none; ambiguous when two others do.
    let spec = format!("{ROOT}pub struct FooSpec {{ pub a: Other }}\n");
    let model = load(&[("a.rs", &spec), ("b.rs", elsewhere)]).unwrap();
    assert!(hand(&model).types.iter().any(|t| t.name == "Other"));
    let error = load(&[("a.rs", &spec), ("b.rs", elsewhere), ("c.rs", elsewhere)])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`Other` (not defined once in the sources"),
        "{error}"
    );
}

#[test]
fn generate_does_not_read_field_types() {
    // Without `schemas`, types the CLI cannot read are no error (clients need only roots).
    let text = format!("{ROOT}pub struct FooSpec {{ pub size: u32 }}\n");
    let mut model = Model::default();
    rust::load(
        &mut model,
        &[Source::new("v1.rs", text)],
        &rust::Options::default(),
    )
    .unwrap();
    assert!(hand(&model).types.is_empty());
}

#[test]
fn struct_extends_flattened_maps_and_written_defaults() {
    let text = format!(
        "{ROOT}#[schemars(extend(\"x-kubernetes-validations\" = [{{\"rule\": \"self.a > 0\",}}], \"default\" = {{\"a\": 1}}))]\n\
         pub struct FooSpec {{\n\
         #[schemars(extend(\"default\" = \"fast\", \"maxLength\" = 9))]\npub mode: Option<String>,\n\
         pub a: i32,\n\
         pub inner: Inner,\n\
         #[serde(flatten)]\npub rest: BTreeMap<String, Value>,\n}}\n\
         #[schemars(extend(\"minProperties\" = 1))]\npub struct Inner {{ pub b: String }}\n"
    );
    let model = load(&[("v1.rs", &text)]).unwrap();
    let hand = hand(&model);
    let TypeDefKind::Struct(root) = &hand.def.kind else {
        panic!()
    };
    // The root field takes its struct's own validations and default (trailing commas read).
    assert_eq!(root.fields[1].validation.rules[0].rule, "self.a > 0");
    assert_eq!(root.fields[1].default, Some(serde_json::json!({ "a": 1 })));
    let TypeDefKind::Struct(spec) = &named(hand, "FooSpec").kind else {
        panic!()
    };
    assert_eq!(spec.fields[0].default, Some(serde_json::json!("fast")));
    assert_eq!(spec.fields[0].validation.max_length, Some(9));
    assert_eq!(spec.fields[2].validation.min_properties, Some(1));
    let additional = spec.additional.as_ref().expect("flattened map");
    assert_eq!(
        (additional.rust_name.as_str(), &additional.value),
        ("rest", &TypeRef::Json)
    );
    assert_eq!(spec.fields.len(), 3);
}

#[test]
fn struct_extends_inside_lists_and_flattened_non_maps_are_errors() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{ pub items: Vec<Inner> }}\n\
         #[schemars(extend(\"minProperties\" = 1))]\npub struct Inner {{ pub b: String }}\n"
    );
    let error = load(&[("v1.rs", &text)]).unwrap_err().to_string();
    assert!(error.contains("not inside a list or map"), "{error}");
    let text = format!(
        "{ROOT}pub struct FooSpec {{ #[serde(flatten)] pub inner: Inner }}\npub struct Inner {{ pub b: String }}\n"
    );
    let error = load(&[("v1.rs", &text)]).unwrap_err().to_string();
    assert!(error.contains("`#[serde(flatten)]` on maps"), "{error}");
}

#[test]
fn apply_types_keep_what_they_cannot_read_whole() {
    // What `kubegen crd` refuses, apply configurations read leniently.
    let text = format!(
        "{ROOT}use k8s_openapi::apimachinery::pkg::api::resource::Quantity;\n\
         #[serde(default)]\npub struct FooSpec {{\n\
         pub size: u32,\n\
         #[schemars(schema_with = \"anything\")]\npub inner: Inner,\n\
         #[serde(skip_serializing)]\npub seen: bool,\n\
         pub limit: Quantity,\n\
         pub odd: Odd,\n\
         pub generic: Option<Generic>,\n}}\n\
         pub struct Inner {{ pub a: String }}\n\
         pub struct Odd {{ #[serde(flatten)] pub rest: Inner }}\n\
         pub struct Generic {{ pub items: std::collections::BTreeSet<String> }}\n"
    );
    assert!(load(&[("v1.rs", &text)]).is_err());
    let sources = [Source::new("g/v1.rs", text)];
    let mut model = Model::default();
    let options = rust::Options::default().apply_types(true);
    rust::load(&mut model, &sources, &options).unwrap();
    let hand = hand(&model);
    let names: Vec<&str> = hand.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["FooSpec", "Inner"]);
    assert!(hand.types.iter().all(|t| t.module == "crate::apis::g::v1"));
    let TypeDefKind::Struct(spec) = &named(hand, "FooSpec").kind else {
        panic!()
    };
    let whole = |path: &str| TypeRef::External(crate::model::ExternalType::new(path, false));
    let fields: Vec<(&str, &TypeRef)> = spec
        .fields
        .iter()
        .map(|f| (f.wire_name.as_str(), &f.ty))
        .collect();
    assert_eq!(
        fields,
        [
            ("size", &whole("u32")),
            ("inner", &TypeRef::Named("Inner".into())),
            (
                "limit",
                &whole("k8s_openapi::apimachinery::pkg::api::resource::Quantity")
            ),
            ("odd", &whole("crate::apis::g::v1::Odd")),
            ("generic", &whole("crate::apis::g::v1::Generic")),
        ]
    );
}

#[test]
fn conversions_read_each_field_with_its_declared_rust_type() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{\n\
         #[serde(default)]\npub name: String,\n\
         pub size: Option<i32>,\n\
         pub next: Option<Box<Inner>>,\n\
         #[serde(skip)]\npub cache: bool,\n\
         pub hashed: Hashed,\n}}\n\
         pub struct Inner {{ pub a: Vec<Option<String>> }}\n\
         pub struct Hashed {{ pub m: std::collections::HashMap<String, String> }}\n"
    );
    let sources = [Source::new("g/v1.rs", text)];
    let mut model = Model::default();
    let options = rust::Options::default().apply_types(true).conversions(true);
    rust::load(&mut model, &sources, &options).unwrap();
    let hand = hand(&model);
    let names: Vec<&str> = hand.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["FooSpec", "Inner"]);
    let fields = |name: &str| -> Vec<(String, TypeRef, bool, bool)> {
        let TypeDefKind::Struct(s) = &named(hand, name).kind else {
            panic!()
        };
        s.fields
            .iter()
            .map(|f| (f.rust_name.clone(), f.ty.clone(), f.required, f.nullable))
            .collect()
    };
    let inner = TypeRef::Named("Inner".into());
    assert_eq!(
        fields("FooSpec"),
        [
            ("name".into(), TypeRef::String, true, false),
            ("size".into(), TypeRef::option(TypeRef::I32), true, false),
            (
                "next".into(),
                TypeRef::option(TypeRef::Boxed(Box::new(inner))),
                true,
                false
            ),
            ("cache".into(), TypeRef::Bool, true, false),
            (
                "hashed".into(),
                TypeRef::External(crate::model::ExternalType::new(
                    "crate::apis::g::v1::Hashed",
                    false
                )),
                true,
                false
            ),
        ]
    );
    assert_eq!(
        fields("Inner"),
        [(
            "a".into(),
            TypeRef::vec(TypeRef::option(TypeRef::String)),
            true,
            false
        )]
    );
}

fn load_with_warnings(text: &str) -> crate::frontend::Result<(Model, Vec<String>)> {
    let mut model = Model::default();
    let warnings = rust::load(
        &mut model,
        &[Source::new("v1.rs", text)],
        &rust::Options::default().schemas(true),
    )?;
    Ok((model, warnings.iter().map(ToString::to_string).collect()))
}

fn spec_fields(hand: &HandWritten) -> Vec<(&str, &TypeRef)> {
    let TypeDefKind::Struct(spec) = &named(hand, "FooSpec").kind else {
        panic!()
    };
    spec.fields
        .iter()
        .map(|f| (f.wire_name.as_str(), &f.ty))
        .collect()
}

#[test]
fn numbers_and_k8s_openapi_types_are_well_known() {
    let text = format!(
        "{ROOT}use k8s_openapi::apimachinery::pkg::apis::meta::v1::{{Condition, Time as T}};\n\
         use k8s_openapi::api::core::v1 as corev1;\n\
         pub struct FooSpec {{\n\
         pub retention_days: u32,\n\
         pub ratio: Option<f64>,\n\
         pub conditions: Vec<Condition>,\n\
         pub last: Option<T>,\n\
         pub tolerations: Vec<corev1::Toleration>,\n\
         pub resources: k8s_openapi::api::core::v1::ResourceRequirements,\n\
         pub limit: kubegen::__private::k8s_openapi::apimachinery::pkg::api::resource::Quantity,\n\
         }}\n"
    );
    let (model, warnings) = load_with_warnings(&text).unwrap();
    let external = |path: &str, has_default: bool| {
        TypeRef::External(crate::model::ExternalType::new(path, has_default))
    };
    let meta = "k8s_openapi::apimachinery::pkg::apis::meta::v1";
    assert_eq!(
        spec_fields(hand(&model)),
        [
            ("retention_days", &external("u32", true)),
            ("ratio", &external("f64", true)),
            (
                "conditions",
                &TypeRef::vec(external(&format!("{meta}::Condition"), false))
            ),
            ("last", &external(&format!("{meta}::Time"), false)),
            (
                "tolerations",
                &TypeRef::vec(external("k8s_openapi::api::core::v1::Toleration", true))
            ),
            (
                "resources",
                &external("k8s_openapi::api::core::v1::ResourceRequirements", true)
            ),
            (
                "limit",
                &external(
                    "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
                    true
                )
            ),
        ]
    );
    // Each number API conventions advise against, at its place.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("v1.rs:7:21: warning: `u32`: Kubernetes API conventions advise against unsigned integers"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("v1.rs:8:19: warning: `f64`: Kubernetes API conventions advise against floating-point numbers"),
        "{warnings:?}"
    );
}

#[test]
fn sources_types_win_over_k8s_openapi_names_not_imported() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{ pub conditions: Vec<Condition> }}\n\
         pub struct Condition {{ pub kind: String }}\n"
    );
    let (model, _) = load_with_warnings(&text).unwrap();
    assert_eq!(
        spec_fields(hand(&model)),
        [(
            "conditions",
            &TypeRef::vec(TypeRef::Named("Condition".into()))
        )]
    );
    // Not in the sources, not imported: the error says what to import.
    let text = format!("{ROOT}pub struct FooSpec {{ pub tolerations: Vec<Toleration> }}\n");
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(
        error.contains("import it by its path: `use k8s_openapi::api::core::v1::Toleration;`"),
        "{error}"
    );
}

#[test]
fn validations_apply_by_the_schema_type() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{\n\
         #[schemars(range(min = 1, max = 90))]\npub retention_days: u32,\n\
         #[schemars(length(max = 40))]\npub at: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,\n\
         #[schemars(range(min = 1))]\npub ignored: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,\n\
         }}\n"
    );
    let (model, _) = load_with_warnings(&text).unwrap();
    let TypeDefKind::Struct(spec) = &named(hand(&model), "FooSpec").kind else {
        panic!()
    };
    assert_eq!(spec.fields[0].validation.minimum, Some(1.into()));
    assert_eq!(spec.fields[0].validation.maximum, Some(90.into()));
    assert_eq!(spec.fields[1].validation.max_length, Some(40));
    assert!(spec.fields[2].validation.is_empty());
}

#[test]
fn default_functions_with_literal_bodies() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{\n\
         #[serde(default = \"default_days\")]\npub days: u32,\n\
         #[serde(default = \"defaults::offset\")]\npub offset: i32,\n\
         #[serde(default = \"default_ratio\")]\npub ratio: f32,\n\
         #[serde(default = \"default_mode\")]\npub mode: String,\n\
         #[serde(default = \"default_owner\")]\npub owner: String,\n\
         #[serde(default = \"default_note\", skip_serializing_if = \"Option::is_none\")]\npub note: Option<String>,\n\
         #[serde(default = \"no_label\")]\npub label: Option<String>,\n\
         #[serde(default = \"yes\")]\npub enabled: bool,\n\
         #[serde(default = \"empty\", skip_serializing_if = \"String::is_empty\")]\npub empty: String,\n\
         }}\n\
         fn default_days() -> u32 {{ 7 }}\n\
         mod defaults {{ pub fn offset() -> i32 {{ -3 }} }}\n\
         fn default_ratio() -> f32 {{ 0.1 }}\n\
         fn default_mode() -> String {{ String::from(\"fast\") }}\n\
         fn default_owner() -> String {{ \"ops\".into() }}\n\
         fn default_note() -> Option<String> {{ Some(\"n\".to_string()) }}\n\
         fn no_label() -> Option<String> {{ None }}\n\
         fn yes() -> bool {{ true }}\n\
         fn empty() -> String {{ String::new() }}\n"
    );
    let (model, _) = load_with_warnings(&text).unwrap();
    let TypeDefKind::Struct(spec) = &named(hand(&model), "FooSpec").kind else {
        panic!()
    };
    let defaults: Vec<Option<serde_json::Value>> =
        spec.fields.iter().map(|f| f.default.clone()).collect();
    use serde_json::json;
    assert_eq!(
        defaults,
        [
            Some(json!(7)),
            Some(json!(-3)),
            // What serde writes for `0.1f32`.
            Some(json!(f64::from(0.1f32))),
            Some(json!("fast")),
            Some(json!("ops")),
            Some(json!("n")),
            None,
            Some(json!(true)),
            None,
        ]
    );
    // Optional with a default function: not required.
    assert!(spec.fields.iter().all(|f| !f.required));
}

#[test]
fn default_functions_kubegen_cannot_evaluate_are_located_errors() {
    let text =
        format!("{ROOT}pub struct FooSpec {{ #[serde(default = \"missing\")] pub a: i32 }}\n");
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(
        error.starts_with("v1.rs:4:40: `kubegen crd` cannot find the default function `missing`"),
        "{error}"
    );
    let text = format!(
        "{ROOT}pub struct FooSpec {{ #[serde(default = \"computed\")] pub a: i32 }}\n\
         fn computed() -> i32 {{ 60 * 60 }}\n"
    );
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "v1.rs:5:24: `kubegen crd` reads default functions whose body is a literal"
        ),
        "{error}"
    );
    let text = format!(
        "{ROOT}pub struct FooSpec {{ #[serde(default = \"two\")] pub a: i32 }}\n\
         fn two() -> i32 {{ let x = 2; x }}\n"
    );
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(error.starts_with("v1.rs:5:17: "), "{error}");
}

#[test]
fn type_defaults_of_well_known_types() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{\n\
         #[serde(default)]\npub days: u32,\n\
         #[serde(default)]\npub resources: k8s_openapi::api::core::v1::ResourceRequirements,\n\
         }}\n"
    );
    let (model, _) = load_with_warnings(&text).unwrap();
    let TypeDefKind::Struct(spec) = &named(hand(&model), "FooSpec").kind else {
        panic!()
    };
    assert_eq!(spec.fields[0].default, Some(serde_json::json!(0)));
    assert_eq!(spec.fields[1].default, Some(serde_json::json!({})));
    let text = format!(
        "{ROOT}pub struct FooSpec {{ #[serde(default)] pub c: k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition }}\n"
    );
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(error.contains("has no `Default` value"), "{error}");
}

/// Issue 23: `schema_with` and `#[serde(default, skip_serializing_if = "Vec::is_empty")]`
/// were refused with "add `skip_serializing_if`", which was there.
#[test]
fn schema_with_and_a_skipped_empty_default() {
    let text = format!(
        "{ROOT}pub struct FooSpec {{\n\
         #[serde(default, skip_serializing_if = \"Vec::is_empty\")]\n\
         #[schemars(schema_with = \"any_list\")]\n\
         pub items: Vec<Item>,\n\
         }}\n\
         fn any_list(_: &mut SchemaGenerator) -> Schema {{ json_schema!({{\"type\": \"array\", \"items\": {{\"x-kubernetes-preserve-unknown-fields\": true}}}}) }}\n"
    );
    let (model, _) = load_with_warnings(&text).unwrap();
    let TypeDefKind::Struct(spec) = &named(hand(&model), "FooSpec").kind else {
        panic!()
    };
    let items = &spec.fields[0];
    assert_eq!(items.default, None);
    assert!(!items.required);
    assert_eq!(
        items.written_schema,
        Some(
            serde_json::json!({"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}})
        )
    );
    // A predicate kubegen cannot evaluate on a type it does not know is still an error.
    let text = text.replace("Vec::is_empty", "Items::is_blank");
    let error = load_with_warnings(&text).unwrap_err().to_string();
    assert!(
        error.contains("cannot compute this type's `Default` value"),
        "{error}"
    );
}
