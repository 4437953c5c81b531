//! Random objects for a CRD version's structural schema, as proptest strategies: required
//! properties always, optional ones sometimes, values of their enums, whole-second UTC
//! times, padded base64, maps with a few keys. CEL rules, patterns and lengths are not
//! followed: the generated types do not check them.

#![allow(dead_code)] // Each test file uses part of it.

pub(crate) mod gadgets;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A CRD document from YAML text.
pub(crate) fn crd(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("the CRD is YAML")
}

/// The `openAPIV3Schema` of `version` in `crd`.
pub(crate) fn schema<'a>(crd: &'a Value, version: &str) -> &'a Value {
    crd["spec"]["versions"]
        .as_array()
        .and_then(|versions| versions.iter().find(|v| v["name"] == json!(version)))
        .map(|v| &v["schema"]["openAPIV3Schema"])
        .unwrap_or_else(|| panic!("the CRD has no version {version}"))
}

/// Objects of `kind` at `api_version` for `schema`, with a name and sometimes annotations.
pub(crate) fn object(schema: &Value, api_version: &str, kind: &str) -> BoxedStrategy<Value> {
    let api_version = api_version.to_owned();
    let kind = kind.to_owned();
    let annotations = proptest::option::of(prop::collection::btree_map(
        "[a-z]{1,4}(\\.io/[a-z]{1,4})?",
        "[ -~]{0,6}",
        1..3,
    ));
    (properties(schema, 0), "[a-z]{1,8}", annotations)
        .prop_map(move |(mut object, name, annotations)| {
            let mut metadata = json!({ "name": name });
            if let Some(annotations) = annotations {
                metadata["annotations"] = json!(annotations);
            }
            object.insert("apiVersion".into(), json!(api_version));
            object.insert("kind".into(), json!(kind));
            object.insert("metadata".into(), metadata);
            Value::Object(object)
        })
        .boxed()
}

/// Lists hold at most this many items, fewer deeper down, so objects stay small.
fn list_len(depth: usize) -> std::ops::Range<usize> {
    0..(3usize.saturating_sub(depth / 3)).max(1)
}

fn value(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let nullable = schema["nullable"] == json!(true);
    let strategy = non_null(schema, depth);
    if nullable {
        prop_oneof![4 => strategy, 1 => Just(Value::Null)].boxed()
    } else {
        strategy
    }
}

fn non_null(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        return prop_oneof![
            any::<i32>().prop_map(|n| json!(n)),
            "[a-z0-9%]{0,5}".prop_map(|s| json!(s)),
        ]
        .boxed();
    }
    if let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty()) {
        return prop::sample::select(values.clone()).boxed();
    }
    match schema["type"].as_str() {
        Some("string") => match schema["format"].as_str() {
            Some("date-time") => (0u32..60, 1u32..13, 1u32..29, 0u32..24, 0u32..60)
                .prop_map(|(y, mo, d, h, mi)| {
                    json!(format!("20{y:02}-{mo:02}-{d:02}T{h:02}:{mi:02}:07Z"))
                })
                .boxed(),
            Some("byte") => prop::collection::vec(any::<u8>(), 0..6)
                .prop_map(|bytes| json!(base64(&bytes)))
                .boxed(),
            _ => "[a-zA-Z0-9 ./:-]{0,10}".prop_map(|s| json!(s)).boxed(),
        },
        Some("integer") if schema["format"] == json!("int32") => {
            any::<i32>().prop_map(|n| json!(n)).boxed()
        }
        Some("integer") => any::<i64>().prop_map(|n| json!(n)).boxed(),
        Some("number") => (-1000i32..1000)
            .prop_map(|n| json!(f64::from(n) + 0.25))
            .boxed(),
        Some("boolean") => any::<bool>().prop_map(|b| json!(b)).boxed(),
        Some("array") => prop::collection::vec(value(&schema["items"], depth + 1), list_len(depth))
            .prop_map(Value::Array)
            .boxed(),
        Some("object") if schema["additionalProperties"].is_object() => {
            let values = value(&schema["additionalProperties"], depth + 1);
            prop::collection::btree_map("[a-z]{1,5}", values, list_len(depth))
                .prop_map(|map| Value::Object(map.into_iter().collect()))
                .boxed()
        }
        Some("object") if schema["properties"].is_object() => properties(schema, depth + 1)
            .prop_map(Value::Object)
            .boxed(),
        _ => free(),
    }
}

/// The properties of an object schema: required ones always, optional ones sometimes.
fn properties(schema: &Value, depth: usize) -> BoxedStrategy<Map<String, Value>> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") && depth == 0 {
            continue;
        }
        let key = name.clone();
        let strategy = value(property, depth).prop_map(move |v| (key.clone(), v));
        fields.push(if required.contains(&name.as_str()) {
            strategy.prop_map(Some).boxed()
        } else {
            proptest::option::weighted(0.7, strategy).boxed()
        });
    }
    fields
        .prop_map(|fields| fields.into_iter().flatten().collect())
        .boxed()
}

/// Any small JSON (schemaless or preserved fields).
fn free() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(|b| json!(b)),
        (-100i64..100).prop_map(|n| json!(n)),
        "[a-z]{0,4}".prop_map(|s| json!(s)),
        prop::collection::btree_map("[a-z]{1,3}", (-9i64..9).prop_map(|n| json!(n)), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
    ]
    .boxed()
}

/// Standard base64 with padding, as `ByteString` writes it.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
