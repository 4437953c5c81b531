//! Random instances valid for a structural schema: required properties present, optional
//! ones sometimes absent, `null` only where `nullable`, enum values from the enum, unknown
//! fields only where preserved, and scalars written the way their Rust types write them
//! back (whole-second UTC times, padded base64, numbers with a fraction), so that a
//! correct type gives back exactly the JSON it read.

use serde_json::{Map, Value, json};

use crate::rng::Rng;

/// Map keys and unknown field names.
const KEYS: &[&str] = &[
    "a",
    "b-c",
    "",
    "ü",
    "x.y/z",
    "key with spaces",
    "0",
    "extra",
];

/// String values.
const STRINGS: &[&str] = &[
    "",
    "x",
    "hello world",
    "ünïcödé",
    "\"quoted\"",
    "line\nbreak",
    "42",
];

/// A root object of kind `kind` in `api_version` for `schema`.
pub(crate) fn root(rng: &mut Rng, schema: &Value, api_version: &str, kind: &str) -> Value {
    let mut object = object(rng, schema, 6);
    let mut metadata = json!({"name": format!("n{}", rng.below(100))});
    if rng.chance(30) {
        metadata["labels"] = json!({"app": "x", "k8s.io/part": ""});
    }
    object.insert("apiVersion".into(), json!(api_version));
    object.insert("kind".into(), json!(kind));
    object.insert("metadata".into(), metadata);
    Value::Object(object)
}

/// A value for `schema`, at most `depth` levels of free-form JSON deep.
fn value(rng: &mut Rng, schema: &Value, depth: u32) -> Value {
    if schema["nullable"] == json!(true) && rng.chance(20) {
        return Value::Null;
    }
    if schema["x-kubernetes-int-or-string"] == json!(true) {
        return if rng.chance(50) {
            json!(rng.below(200_000) as i64 - 100_000)
        } else {
            json!(*rng.pick(STRINGS))
        };
    }
    match schema["type"].as_str() {
        Some("string") => string(rng, schema),
        Some("integer") => integer(rng, schema["format"].as_str()),
        Some("number") => {
            // A fraction, so the f64 writes back as the same JSON number.
            json!((rng.below(20_000) as f64 - 10_000.0) + 0.25 * (1 + rng.below(3)) as f64)
        }
        Some("boolean") => json!(rng.chance(50)),
        Some("array") => {
            let items = &schema["items"];
            Value::Array(
                (0..rng.below(4))
                    .map(|_| value(rng, items, depth))
                    .collect(),
            )
        }
        Some("object") => Value::Object(object(rng, schema, depth)),
        _ => free(rng, depth),
    }
}

fn string(rng: &mut Rng, schema: &Value) -> Value {
    if let Some(values) = schema["enum"].as_array() {
        return rng.pick(values).clone();
    }
    match schema["format"].as_str() {
        Some("date-time") => json!(format!(
            "20{:02}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            rng.below(60),
            1 + rng.below(12),
            1 + rng.below(28),
            rng.below(24),
            rng.below(60),
            rng.below(60)
        )),
        Some("byte") => {
            let bytes: Vec<u8> = (0..rng.below(8)).map(|_| rng.below(256) as u8).collect();
            json!(base64(&bytes))
        }
        _ => json!(*rng.pick(STRINGS)),
    }
}

fn integer(rng: &mut Rng, format: Option<&str>) -> Value {
    match (format, rng.below(4)) {
        (Some("int32"), 0) => json!(i32::MIN),
        (Some("int32"), 1) => json!(i32::MAX),
        (_, 0) => json!(i64::MIN),
        (_, 1) => json!(i64::MAX),
        _ => json!(rng.below(2000) as i64 - 1000),
    }
}

/// An object for `schema`: its properties (required ones always), then extra fields where
/// the schema keeps them (`additionalProperties`, preserve-unknown-fields).
fn object(rng: &mut Rng, schema: &Value, depth: u32) -> Map<String, Value> {
    let mut out = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema["properties"].as_object();
    let embedded = schema["x-kubernetes-embedded-resource"] == json!(true);
    if embedded {
        out.insert("apiVersion".into(), json!("v1"));
        out.insert("kind".into(), json!("ConfigMap"));
        out.insert("metadata".into(), json!({"name": "embedded"}));
    }
    for (name, property) in properties.into_iter().flatten() {
        if required.contains(&name.as_str()) || rng.chance(60) {
            out.insert(name.clone(), value(rng, property, depth));
        }
    }
    let extra = match &schema["additionalProperties"] {
        Value::Object(_) => Some(&schema["additionalProperties"]),
        _ if schema["x-kubernetes-preserve-unknown-fields"] == json!(true) => None,
        _ if properties.is_none() && !embedded => None,
        _ => return out,
    };
    for _ in 0..rng.below(3) {
        let key = *rng.pick(KEYS);
        let known = properties.is_some_and(|p| p.contains_key(key));
        if known || (embedded && matches!(key, "apiVersion" | "kind" | "metadata")) {
            continue;
        }
        let item = match extra {
            Some(values) => value(rng, values, depth),
            None => free(rng, depth.saturating_sub(1)),
        };
        out.insert(key.to_owned(), item);
    }
    out
}

/// Any JSON, at most `depth` levels deep.
fn free(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(1000) as i64 - 500),
        3 => json!(0.5 + rng.below(100) as f64),
        4 => json!(*rng.pick(STRINGS)),
        5 => Value::Array((0..rng.below(3)).map(|_| free(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.below(3))
                .map(|_| ((*rng.pick(KEYS)).to_owned(), free(rng, depth - 1)))
                .collect(),
        ),
    }
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
