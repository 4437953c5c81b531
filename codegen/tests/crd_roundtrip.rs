//! The corpus round trip: for every CRD of the shared corpus (`$KUBEGEN_CORPUS/crds` or
//! `../shared/corpus/crds`; skipped with a message where absent) and every served
//! version,
//!
//! ```text
//! CRD YAML -> CRD front-end -> model -> annotated Rust (emit::annotated, in memory)
//!          -> Rust front-end (syn, with schemas) -> model -> CRD emitter -> CRD YAML
//! ```
//!
//! gives back the original `openAPIV3Schema` up to the normalisations below, which
//! [`normalise`] applies to both sides before they are compared. Anything else that
//! differs fails the test, with the paths that differ.
//!
//! # Normalisations (what may change, and why)
//!
//! 1-4 come from writing the schema as Rust (`fixture_crds_round_trip_through_annotated_rust`
//! checks that nothing else changes in that step); 5-11 happen when the CRD front-end
//! builds the model, so the types `kubegen generate --crd` writes have them too. Of these,
//! 4, 6, 7 (the `enum` survives only as prose), 8, 9 and 10 (`not`) lose constraints the
//! API server would enforce.
//!
//! 1. Key order and the order of `required` are not compared (JSON objects; `required`
//!    follows the order of the properties).
//! 2. The root's `apiVersion`, `kind` and `metadata` are `{type: string}`,
//!    `{type: string}` and `{type: object}`, and not `required`: the API server owns
//!    their schemas.
//! 3. Descriptions are trimmed (a doc comment holds no leading or trailing blank lines).
//! 4. An optional property of a nested object may become `nullable: true` (and a
//!    nullable enum lists `null`): `Option<T>` is how Rust says "may be absent", and
//!    schemars writes it as nullable. (The API server then keeps an explicit `null`
//!    instead of pruning it.) Root properties (`spec`, `status`) keep their `nullable`.
//! 5. `type: integer` without `format: int32` is `format: int64` (`i64`).
//! 6. String formats other than `byte` and `date-time` are dropped, and `type: number`
//!    loses its format (`double`, `float`): the model's `String` and numbers carry none.
//! 7. An `enum` of a node that is not a string (integers, mixed values) becomes prose in
//!    the description ("One of `1`, `2`.").
//! 8. An object shaped exactly like a k8s-openapi `Condition`, `LabelSelector` or
//!    `ObjectReference` becomes that type, whose schema is the one `crd()` writes for it
//!    (kubegen's well-known table): its properties' descriptions and validations are
//!    k8s-openapi's (descriptions, no validations), and a property of that type the CRD
//!    does not describe is described by the type, as schemars describes an undocumented
//!    field. Neither is compared.
//! 9. A list's items and a map's values keep their type, but not their own descriptions
//!    or validations (the model keeps validations on properties only): those of the
//!    items/values node are not compared.
//! 10. `allOf`/`anyOf`/`oneOf` branches that only constrain a node (controller-gen's
//!     use) and `not` are dropped; a property only such a branch declares becomes an optional
//!     property of the node. `x-kubernetes-preserve-unknown-fields` beside `properties`
//!     stays; an object with no `properties` whose values may be anything (no
//!     `additionalProperties`, `true`, or one that keeps unknown fields) keeps unknown
//!     fields (`BTreeMap<String, Value>`, written as `crd()` writes it).
//! 11. A node that keeps unknown fields and declares no properties is any JSON
//!     (`serde_json::Value`): its `type: object` is dropped.
//!
//! Facts of the root object that `#[derive(Resource)]` cannot say are refused with an error
//! naming the kind (see [`REFUSED`]): a root that keeps unknown fields, and validations or
//! a default on a root field whose type is not a struct.
//!
//! Only schemas are compared here (CEL rules of the root object included). The rest of the
//! kind (names, scope, subresources, printer columns, selectable fields) is written as
//! `#[resource(...)]` attributes, as the goldens of `tests/golden_annotated.rs` show; what a
//! `#[derive(Resource)]` kind cannot say (several versions in one CRD: each version becomes
//! its own served and stored struct; `served: false`; deprecation; a `listKind` other than
//! `<Kind>List`; a printer column's `format`) is not carried.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // A panic is the report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubegen_codegen::__internal::emit;
use kubegen_codegen::__internal::frontend::{Source, crd, rust};
use kubegen_codegen::__internal::model::Model;
use serde_json::{Map, Value, json};

/// The corpus CRDs (not the `*.example.yaml` objects), or `None` when there is no corpus.
fn corpus() -> Option<Vec<(String, String)>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let dir = root.join("crds");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with(".example.yaml")
        })
        .collect();
    files.sort();
    Some(
        files
            .into_iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect(),
    )
}

/// The original schemas of the served versions of every CRD in `text`, by
/// (`plural.group`, version).
fn original_schemas(text: &str) -> BTreeMap<(String, String), Value> {
    let mut out = BTreeMap::new();
    for doc in serde_saphyr::from_multiple::<Value>(text).unwrap() {
        if doc["kind"] != "CustomResourceDefinition" {
            continue;
        }
        let name = doc["metadata"]["name"].as_str().unwrap().to_owned();
        for version in doc["spec"]["versions"].as_array().unwrap() {
            if version["served"] == false {
                continue;
            }
            let schema = version["schema"]["openAPIV3Schema"].clone();
            out.insert(
                (name.clone(), version["name"].as_str().unwrap().to_owned()),
                schema,
            );
        }
    }
    out
}

/// The schemas the CRD emitter writes for the kinds of `model`, by (`plural.group`,
/// version).
fn emitted(model: &Model) -> Result<BTreeMap<(String, String), Value>, String> {
    let mut out = BTreeMap::new();
    for resource in model.resources() {
        let crd = emit::crd::definition(&resource).map_err(|e| format!("CRD emitter: {e}"))?;
        let version = crd["spec"]["versions"][0].clone();
        out.insert(
            (
                crd["metadata"]["name"].as_str().unwrap().to_owned(),
                version["name"].as_str().unwrap().to_owned(),
            ),
            version["schema"]["openAPIV3Schema"].clone(),
        );
    }
    Ok(out)
}

/// The schemas of the model the CRD front-end builds (as the CRD emitter writes them) and
/// after the round trip through annotated Rust, by (`plural.group`, version), or why the
/// round trip failed.
#[allow(clippy::type_complexity)]
fn round_trip(
    name: &str,
    text: &str,
) -> Result<
    (
        BTreeMap<(String, String), Value>,
        BTreeMap<(String, String), Value>,
    ),
    String,
> {
    let mut model = Model::default();
    crd::load(
        &mut model,
        &[Source::new(name, text)],
        &crd::Options::default(),
    )
    .map_err(|e| format!("CRD front-end: {e}"))?;
    let files = emit::annotated::generate(&model).map_err(|e| format!("annotated: {e}"))?;
    let sources: Vec<Source> = files
        .iter()
        .map(|f| Source::new(&f.path, &f.contents))
        .collect();
    let mut back = Model::default();
    rust::load(&mut back, &sources, &rust::Options::default().schemas(true))
        .map_err(|e| format!("Rust front-end: {e}"))?;
    Ok((emitted(&model)?, emitted(&back)?))
}

/// Applies the normalisations of the module docs to a schema (either side).
fn normalise(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert("apiVersion".into(), json!({ "type": "string" }));
        props.insert("kind".into(), json!({ "type": "string" }));
        props.insert("metadata".into(), json!({ "type": "object" }));
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| !matches!(r.as_str(), Some("apiVersion" | "kind" | "metadata")));
        if required.is_empty() {
            schema.as_object_mut().unwrap().remove("required");
        }
    }
    node(&mut schema, Place::Root);
    schema
}

/// Where a node is, for the rules that depend on it.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Root,
    RootProperty,
    Optional,
    Required,
    Item,
}

fn node(schema: &mut Value, place: Place) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    // 10: constraining branches.
    for junction in ["allOf", "anyOf", "oneOf", "not"] {
        map.remove(junction);
    }
    // 3.
    if let Some(Value::String(d)) = map.get_mut("description") {
        *d = d.trim().to_owned();
    }
    // 5, 6.
    let format = map.get("format").and_then(Value::as_str);
    match map.get("type").and_then(Value::as_str) {
        Some("integer") if format != Some("int32") => {
            map.insert("format".into(), "int64".into());
        }
        Some("number") => {
            map.remove("format");
        }
        Some("string") if !matches!(format, Some("byte" | "date-time")) => {
            map.remove("format");
        }
        _ => {}
    }
    // 7.
    if map.get("type").and_then(Value::as_str) != Some("string")
        && let Some(Value::Array(values)) = map.remove("enum")
    {
        let listed: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
        let values = format!("One of {}.", listed.join(", "));
        let text = match map.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d}\n\n{values}"),
            None => values,
        };
        map.insert("description".into(), text.into());
    }
    // 4.
    if place == Place::Optional {
        map.remove("nullable");
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
    // 9.
    if place == Place::Item {
        for key in VALIDATION_KEYS {
            map.remove(*key);
        }
        if !map.contains_key("properties") || is_well_known(map) {
            map.remove("description");
        }
    }
    // 8.
    if is_well_known(map) {
        strip_docs_and_validations(map);
        if map
            .get("description")
            .is_some_and(|d| type_descriptions().contains(d))
        {
            map.remove("description");
        }
    }
    // 10: an object of nothing is a map of anything.
    let object = map.get("type").and_then(Value::as_str) == Some("object");
    let any_values = match map.get("additionalProperties") {
        None | Some(Value::Bool(true)) => true,
        Some(values) => *values == json!({ "x-kubernetes-preserve-unknown-fields": true }),
    };
    if object && !map.contains_key("properties") && any_values {
        map.remove("additionalProperties");
        map.insert(
            "x-kubernetes-preserve-unknown-fields".into(),
            Value::Bool(true),
        );
    }
    // 11.
    if map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        && !map.contains_key("properties")
    {
        map.remove("type");
    }
    // 1.
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        required.dedup();
    }
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            let child = if place == Place::Root {
                Place::RootProperty
            } else if required.contains(name) {
                Place::Required
            } else {
                Place::Optional
            };
            node(prop, child);
        }
    }
    if let Some(items) = map.get_mut("items") {
        node(items, Place::Item);
    }
    if let Some(values @ Value::Object(_)) = map.get_mut("additionalProperties") {
        node(values, Place::Item);
    }
}

const VALIDATION_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "enum",
    "default",
];

/// The descriptions k8s-openapi gives its types (the well-known table's).
fn type_descriptions() -> Vec<Value> {
    let table = kubegen_codegen::__internal::wellknown::Table::committed();
    table
        .paths()
        .filter_map(|path| table.schema(path)?.get("description").cloned())
        .collect()
}

/// The property names (and required ones) of the shapes the CRD front-end takes for
/// k8s-openapi types.
fn is_well_known(map: &Map<String, Value>) -> bool {
    let Some(Value::Object(props)) = map.get("properties") else {
        return false;
    };
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    required.sort_unstable();
    let condition = [
        "lastTransitionTime",
        "message",
        "observedGeneration",
        "reason",
        "status",
        "type",
    ];
    (names == condition
        && required == ["lastTransitionTime", "message", "reason", "status", "type"])
        || (names == ["matchExpressions", "matchLabels"] && required.is_empty())
        || (names
            == [
                "apiVersion",
                "fieldPath",
                "kind",
                "name",
                "namespace",
                "resourceVersion",
                "uid",
            ]
            && required.is_empty())
}

fn strip_docs_and_validations(map: &mut Map<String, Value>) {
    for (_, value) in map.iter_mut() {
        match value {
            Value::Object(inner) => {
                inner.remove("description");
                for key in VALIDATION_KEYS {
                    inner.remove(*key);
                }
                strip_docs_and_validations(inner);
            }
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(inner) = item {
                        strip_docs_and_validations(inner);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The paths where `a` and `b` differ (at most `limit`).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>, limit: usize) {
    if out.len() >= limit {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let here = format!("{path}/{key}");
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => differences(p, q, &here, out, limit),
                    (Some(p), None) => out.push(format!("{here}: lost {}", short(p))),
                    (None, Some(q)) => out.push(format!("{here}: added {}", short(q))),
                    (None, None) => {}
                }
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {} became {}", short(a), short(b))),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 100 {
        format!("{}...", text.chars().take(100).collect::<String>())
    } else {
        text
    }
}

/// The CRDs `--style derive` refuses, with the reason (an error naming the kind; nothing
/// is written): facts of the root object that `#[derive(Resource)]` cannot say.
const REFUSED: &[(&str, &str)] = &[
    // The root object keeps unknown fields.
    ("versions.yaml", "the root object keeps unknown fields"),
    // `spec` is any JSON with `x-kubernetes-map-type: atomic`: `crd()` takes a root
    // field's schema from its type, and `serde_json::Value` has no place for the extension.
    (
        "argo-workflows_workflows.argoproj.io.yaml",
        "root field `spec` has validations or a default",
    ),
];

/// What the schemas after the round trip are compared with.
#[derive(Clone, Copy)]
enum Against {
    /// The CRD's own `openAPIV3Schema`s.
    Yaml,
    /// The schemas the CRD emitter writes for the model the CRD front-end builds: checks
    /// the annotated Rust step alone.
    Model,
}

/// Runs the round trip over `(file name, text)` CRDs; prints one line per CRD version and
/// returns the failures.
fn check_all(crds: &[(String, String)], against: Against) -> Vec<String> {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (file, text) in crds {
        let (model, back) = match round_trip(file, text) {
            Ok(schemas) => schemas,
            Err(e) => {
                if let Some((_, why)) = REFUSED.iter().find(|(f, why)| f == file && e.contains(why))
                {
                    println!("{file}: refused as expected ({why})");
                } else {
                    println!("{file}: FAILED: {e}");
                    failures.push(format!("{file}: {e}"));
                }
                continue;
            }
        };
        let original = match against {
            Against::Yaml => original_schemas(text),
            Against::Model => model,
        };
        for ((name, version), schema) in &original {
            let Some(got) = back.get(&(name.clone(), version.clone())) else {
                failures.push(format!("{file}: {name} {version} did not come back"));
                continue;
            };
            let mut diffs = Vec::new();
            differences(&normalise(schema), &normalise(got), "", &mut diffs, 20);
            checked += 1;
            if diffs.is_empty() {
                println!("{file}: {name} {version}: same schema");
            } else {
                println!("{file}: {name} {version}: {} differences", diffs.len());
                for d in &diffs {
                    println!("    {d}");
                }
                failures.push(format!("{file}: {name} {version}: {}", diffs.join("; ")));
            }
        }
    }
    println!("{checked} versions checked, {} failing", failures.len());
    failures
}

#[test]
fn corpus_crds_round_trip_through_annotated_rust() {
    let Some(corpus) = corpus() else {
        println!("SKIPPED: no CRD corpus (set KUBEGEN_CORPUS or add ../shared/corpus/crds)");
        return;
    };
    let failures = check_all(&corpus, Against::Yaml);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fixtures exercise the CRD front-end's own normalisations (unions, `quantity`,
/// embedded resources, maps beside properties...), which the corpus test documents; here
/// the annotated Rust step alone is checked: model -> Rust -> model loses nothing the CRD
/// emitter writes, up to normalisations 1-4.
#[test]
fn fixture_crds_round_trip_through_annotated_rust() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut crds = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            crds.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    crds.sort();
    let failures = check_all(&crds, Against::Model);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
