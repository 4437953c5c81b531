//! Random structural CRD schemas: objects, arrays, maps, string enums, int-or-string (both
//! spellings), nullable nodes, `x-kubernetes-preserve-unknown-fields` (alone and beside
//! properties), `x-kubernetes-embedded-resource`, formats, defaults; property names that
//! are odd, collide once converted to Rust, or are keywords; kinds and versions named like
//! Rust keywords and prelude types; now and then a deep chain of nested objects.

use serde_json::{Map, Value, json};

use crate::rng::Rng;

/// Property names: ordinary, colliding once converted (`fooBar`, `foo-bar`, `foo_bar`,
/// `FooBar`), keywords, prelude names, symbols, digits, non-ASCII, and the names generated
/// code uses itself.
const PROPERTY_NAMES: &[&str] = &[
    "name",
    "size",
    "replicas",
    "fooBar",
    "foo-bar",
    "foo_bar",
    "FooBar",
    "FOO_BAR",
    "type",
    "self",
    "Self",
    "fn",
    "mod",
    "crate",
    "super",
    "enum",
    "match",
    "async",
    "r#type",
    "$ref",
    "@type",
    "2xx",
    "x-kubernetes-thing",
    "metadata",
    "additional_properties",
    "additionalProperties",
    "",
    "-",
    "_",
    "__",
    "größe",
    "a.b",
    "a/b",
    "kind",
    "apiVersion",
    "spec",
    "status",
    "value",
    "Option",
    "Box",
    "String",
    "Vec",
    "default",
    "serialize",
    "deserializer",
    "items",
    "ref",
    "type_",
    "URLPath",
    "urlPath",
];

/// Enum values, odd ones included (empty, symbols, ones that collide as variants).
const ENUM_VALUES: &[&str] = &[
    "Ready",
    "ready",
    "READY",
    "not-ready",
    "NotReady",
    "",
    "*",
    "-",
    "1.0",
    "Self",
    "self",
    "a b",
    "ü",
    "<=",
    "None",
    "Some",
];

/// Kind names Kubernetes accepts that are awkward in Rust.
const KINDS: &[&str] = &[
    "Widget",
    "a-b",
    "Self",
    "Option",
    "Type",
    "Fn",
    "String",
    "Vec",
    "Box",
    "Result",
    "HTTPRoute",
    "X",
    "k",
    "Some",
    "None",
];

/// Version names Kubernetes accepts, keywords included.
const VERSIONS: &[&str] = &[
    "v1", "v1beta1", "v2alpha1", "fn", "type", "self", "v1-2", "mod",
];

/// One generated CRD.
pub(crate) struct Crd {
    /// The CRD as JSON text.
    pub(crate) text: String,
    /// `apiVersion` of each version, with the version's root schema.
    pub(crate) versions: Vec<(String, String, Value)>,
    /// The kind.
    pub(crate) kind: String,
}

/// How large schemas grow.
struct Budget {
    /// Nesting levels left.
    depth: u32,
}

/// The CRD of case `index`: its own group, so kinds and versions may repeat across cases.
pub(crate) fn crd(rng: &mut Rng, index: usize) -> Crd {
    let group = format!("c{index}.example.com");
    let kind = (*rng.pick(KINDS)).to_owned();
    let plural = format!("things{index}");
    let count = 1 + rng.below(2);
    let mut names: Vec<&str> = Vec::new();
    while names.len() < count {
        let version = *rng.pick(VERSIONS);
        if !names.contains(&version) {
            names.push(version);
        }
    }
    let storage = rng.below(count);
    // Every tenth case has a deep chain of objects for its spec.
    let deep = index % 10 == 9;
    let mut versions = Vec::new();
    let mut specs = Vec::new();
    for (i, version) in names.iter().enumerate() {
        let root = root_schema(rng, deep);
        specs.push(json!({
            "name": version,
            "served": true,
            "storage": i == storage,
            "schema": {"openAPIV3Schema": root},
        }));
        versions.push((format!("{group}/{version}"), (*version).to_owned(), root));
    }
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "listKind": format!("{kind}List")},
            "scope": if rng.chance(50) { "Namespaced" } else { "Cluster" },
            "versions": specs,
        },
    });
    let text = serde_json::to_string_pretty(&crd).unwrap_or_default();
    Crd {
        text,
        versions,
        kind,
    }
}

fn root_schema(rng: &mut Rng, deep: bool) -> Value {
    let budget = &mut Budget { depth: 4 };
    let mut properties = Map::new();
    properties.insert("apiVersion".into(), json!({"type": "string"}));
    properties.insert("kind".into(), json!({"type": "string"}));
    properties.insert("metadata".into(), json!({"type": "object"}));
    let spec = if deep {
        chain(rng, 24)
    } else {
        object(rng, budget)
    };
    properties.insert("spec".into(), spec);
    if rng.chance(50) {
        properties.insert("status".into(), object(rng, budget));
    }
    for _ in 0..rng.below(3) {
        let name = *rng.pick(PROPERTY_NAMES);
        if !properties.contains_key(name) {
            properties.insert(name.into(), node(rng, budget));
        }
    }
    let mut root = json!({"type": "object", "properties": properties});
    if rng.chance(30) {
        root["required"] = json!(["spec"]);
    }
    if rng.chance(10) {
        root["x-kubernetes-preserve-unknown-fields"] = json!(true);
    }
    root
}

/// `depth` objects, each holding the next under an odd name.
fn chain(rng: &mut Rng, depth: u32) -> Value {
    let mut inner = json!({"type": "string"});
    for _ in 0..depth {
        let name = *rng.pick(PROPERTY_NAMES);
        let mut properties = Map::new();
        properties.insert(name.into(), inner);
        properties.insert("n".into(), json!({"type": "integer"}));
        inner = json!({"type": "object", "properties": properties});
        if rng.chance(30) {
            inner["nullable"] = json!(true);
        }
    }
    inner
}

/// Any schema node.
fn node(rng: &mut Rng, budget: &mut Budget) -> Value {
    let leaf = budget.depth == 0;
    let choice = if leaf { rng.below(9) } else { rng.below(16) };
    let mut schema = match choice {
        0 => json!({"type": "string"}),
        1 => string_enum(rng),
        2 => json!({"type": "integer", "format": "int32"}),
        3 => json!({"type": "integer", "format": "int64"}),
        4 => json!({"type": "number"}),
        5 => json!({"type": "boolean"}),
        6 if rng.chance(50) => json!({"x-kubernetes-int-or-string": true}),
        6 => {
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})
        }
        7 => json!({"type": "string", "format": *rng.pick(&["date-time", "byte", "int32"])}),
        8 => json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        9 | 10 => object(rng, budget),
        11 => nested(
            rng,
            budget,
            |items| json!({"type": "array", "items": items}),
        ),
        12 => nested(
            rng,
            budget,
            |values| json!({"type": "object", "additionalProperties": values}),
        ),
        13 => embedded(rng, budget),
        14 => {
            let mut object = object(rng, budget);
            object["x-kubernetes-preserve-unknown-fields"] = json!(true);
            object
        }
        _ => json!({"type": "object"}),
    };
    if rng.chance(20) {
        schema["nullable"] = json!(true);
    }
    if rng.chance(10) {
        schema["description"] = json!("A field with */ and \"quotes\" in its docs.");
    }
    if let (Some(default), true) = (default_for(&schema), rng.chance(15)) {
        schema["default"] = default;
    }
    schema
}

/// A default value of the right type for scalar schemas.
fn default_for(schema: &Value) -> Option<Value> {
    match schema["type"].as_str()? {
        "integer" => Some(json!(3)),
        "boolean" => Some(json!(true)),
        "string" if schema.get("enum").is_none() && schema.get("format").is_none() => {
            Some(json!("dflt"))
        }
        _ => None,
    }
}

fn string_enum(rng: &mut Rng) -> Value {
    let mut values: Vec<&str> = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let value = *rng.pick(ENUM_VALUES);
        if !values.contains(&value) {
            values.push(value);
        }
    }
    json!({"type": "string", "enum": values})
}

/// A node holding one child one level down.
fn nested(rng: &mut Rng, budget: &mut Budget, wrap: impl FnOnce(Value) -> Value) -> Value {
    budget.depth -= 1;
    let child = node(rng, budget);
    budget.depth += 1;
    wrap(child)
}

/// An object with 1 to 6 properties, some required.
fn object(rng: &mut Rng, budget: &mut Budget) -> Value {
    let depth = budget.depth;
    budget.depth = depth.saturating_sub(1);
    let mut properties = Map::new();
    let mut required = Vec::new();
    for _ in 0..1 + rng.below(6) {
        let name = if rng.chance(80) {
            (*rng.pick(PROPERTY_NAMES)).to_owned()
        } else {
            format!("p{}", rng.below(1000))
        };
        if properties.contains_key(&name) {
            continue;
        }
        if rng.chance(30) {
            required.push(name.clone());
        }
        properties.insert(name, node(rng, budget));
    }
    budget.depth = depth;
    let mut object = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        object["required"] = json!(required);
    }
    object
}

/// An embedded resource: with properties of its own, or only preserve-unknown.
fn embedded(rng: &mut Rng, budget: &mut Budget) -> Value {
    if rng.chance(50) {
        json!({"type": "object", "x-kubernetes-embedded-resource": true,
               "x-kubernetes-preserve-unknown-fields": true})
    } else {
        let mut object = object(rng, budget);
        // The API server types these three itself.
        if let Some(properties) = object["properties"].as_object_mut() {
            for name in ["apiVersion", "kind", "metadata"] {
                properties.remove(name);
            }
        }
        object["x-kubernetes-embedded-resource"] = json!(true);
        object
    }
}
