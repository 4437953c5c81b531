//! A synthetic CRD as large as the corpus's largest where it costs stack, and deeper: in
//! the properties reachable through objects alone, which a kind's struct holds inline
//! (arrays and maps put theirs on the heap). The corpus's largest such schema has 596
//! (argo-cd's Application), its deepest nests objects 9 levels deep. This one nests objects
//! `DEPTH` levels deep with `PER_LEVEL` properties inline in each. Not ten times larger:
//! at 12 levels of 144 properties (1,728) the generated types alone overflow a 2 MiB stack
//! decoding the full object in a debug build (`serde_json::from_value` into a boxed kind:
//! each level's decoding frame is far larger than the level's struct, and levels nest),
//! and at 80 levels the generated crate does not compile (rustc's default
//! `recursion_limit` of 128 no longer reaches the layout of the root's `Result<Kind, _>`).
//! Its full object sets every property.

use serde_json::{Map, Value, json};

/// Object levels below `spec`.
pub const DEPTH: usize = 12;
/// Scalars directly in each level.
const SCALARS: usize = 10;
/// Inline objects in each level, each with `SCALARS` scalars.
const OBJECTS: usize = 3;
/// Properties inline at each level: the scalars, the objects and theirs, `items`, `next`.
pub const PER_LEVEL: usize = SCALARS + OBJECTS * (1 + SCALARS) + 2;

/// A scalar schema and a value for it, by position.
fn scalar(i: usize) -> (Value, Value) {
    match i % 4 {
        0 => (json!({"type": "string"}), json!(format!("text-{i}"))),
        1 => (json!({"type": "integer", "format": "int64"}), json!(i)),
        2 => (json!({"type": "boolean"}), json!(i.is_multiple_of(3))),
        _ => (json!({"type": "number"}), json!(i as f64 + 0.5)),
    }
}

/// An object of `SCALARS` scalars: its schema and a value with every one set.
fn flat_object() -> (Value, Value) {
    let (mut properties, mut value) = (Map::new(), Map::new());
    for i in 0..SCALARS {
        let (schema, example) = scalar(i);
        properties.insert(format!("f{i}"), schema);
        value.insert(format!("f{i}"), example);
    }
    (
        json!({"type": "object", "properties": properties}),
        Value::Object(value),
    )
}

/// Level `level` of the nesting: its schema and a value with every property set.
fn level(level: usize) -> (Value, Value) {
    let (mut properties, mut value) = (Map::new(), Map::new());
    for i in 0..SCALARS {
        let (schema, example) = scalar(i + level);
        properties.insert(format!("s{i}"), schema);
        value.insert(format!("s{i}"), example);
    }
    for i in 0..OBJECTS {
        let (schema, example) = flat_object();
        properties.insert(format!("o{i}"), schema);
        value.insert(format!("o{i}"), example);
    }
    let (item, example) = flat_object();
    properties.insert("items".into(), json!({"type": "array", "items": item}));
    value.insert("items".into(), json!([example]));
    if level + 1 < DEPTH {
        let (schema, example) = self::level(level + 1);
        properties.insert("next".into(), schema);
        value.insert("next".into(), example);
    }
    (
        json!({"type": "object", "properties": properties}),
        Value::Object(value),
    )
}

/// The CRD (as JSON, which is YAML) and a full object of its kind.
pub fn crd_and_object() -> (String, String) {
    let (spec, example) = level(0);
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "deeps.stack.example.com"},
        "spec": {
            "group": "stack.example.com",
            "names": {"kind": "Deep", "plural": "deeps", "singular": "deep", "listKind": "DeepList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": spec,
                    },
                }},
            }],
        },
    });
    let object = json!({
        "apiVersion": "stack.example.com/v1",
        "kind": "Deep",
        "metadata": {"name": "deep", "namespace": "default"},
        "spec": example,
    });
    (
        serde_json::to_string_pretty(&crd).expect("JSON"),
        serde_json::to_string_pretty(&object).expect("JSON"),
    )
}
