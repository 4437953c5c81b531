//! The rules kube-apiserver enforces on structural schemas, applied to a schema node.
//!
//! A CRD schema must be *structural*: every node has a `type` (or
//! `x-kubernetes-int-or-string` / `x-kubernetes-preserve-unknown-fields`), `nullable`
//! instead of type arrays, no `$ref`, no `additionalProperties` beside `properties`, and
//! `allOf`/`anyOf`/`oneOf` may only repeat what is declared outside them. schemars (with
//! the OpenAPI 3 settings and inlined subschemas) gets close, and kubegen-codegen's model
//! writes structural nodes already; [`make_structural`] does the rest (and leaves a
//! structural schema as it is):
//!
//! - `true`/`{}` (any JSON, e.g. `serde_json::Value`) becomes
//!   `x-kubernetes-preserve-unknown-fields: true`;
//! - `anyOf`/`oneOf` branches that only allow `null` become `nullable: true`; a single
//!   remaining branch (or a one-element `allOf`) is merged into its parent;
//! - unions of string constants (unit enums with docs) become one `enum`;
//! - `integer | string` becomes `x-kubernetes-int-or-string: true`;
//! - unions of objects (enums with struct variants, tagged or not) are hoisted: the parent
//!   is an object with every branch's properties (same-named string enums merged) and the
//!   branches keep only their `required` lists;
//! - any other union keeps unknown fields (`x-kubernetes-preserve-unknown-fields`), the
//!   most precise structural schema there is for it;
//! - `additionalProperties: false` is dropped, `true` (or beside `properties`, from
//!   `#[serde(flatten)]` maps) preserves unknown fields;
//! - `const` becomes a one-value `enum`; integer formats the server does not know
//!   (`uint32`...) are dropped (their `minimum` stays); `examples`, `$schema`, `$id`,
//!   `readOnly`, `writeOnly` and `deprecated` are dropped;
//! - a `$ref` (only left for recursive types) is an error naming the path.
//!
//! [`make_nullable`] is the rule for a node that accepts `null`.

use serde_json::{Map, Value, json};

use crate::Error;
use crate::shapes::{INT_OR_STRING, PRESERVE};
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "definitions",
    "$defs",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// Rewrites `schema` in place into a structural schema. `path` names the root in errors.
///
/// ```
/// use serde_json::json;
///
/// let mut schema = json!({
///     "type": "object",
///     "properties": {
///         "port": { "anyOf": [{ "type": "integer" }, { "type": "string" }] },
///         "extra": true,
///         "note": { "anyOf": [{ "type": "string" }, { "const": null, "nullable": true }] }
///     }
/// });
/// kubegen_crd_schema::make_structural(&mut schema, "spec")?;
/// assert_eq!(schema["properties"]["port"], json!({ "x-kubernetes-int-or-string": true }));
/// assert_eq!(schema["properties"]["extra"], json!({ "x-kubernetes-preserve-unknown-fields": true }));
/// assert_eq!(schema["properties"]["note"], json!({ "type": "string", "nullable": true }));
/// # Ok::<(), kubegen_crd_schema::Error>(())
/// ```
pub fn make_structural(schema: &mut Value, path: &str) -> Result<(), Error> {
    match schema {
        Value::Bool(true) => {
            *schema = json!({ PRESERVE: true });
            return Ok(());
        }
        Value::Bool(false) => {
            return Err(not_structural(path, "the schema allows no value at all"));
        }
        Value::Object(_) => {}
        _ => return Err(not_structural(path, "expected a schema object")),
    }
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if map.contains_key("$ref") {
        return Err(not_structural(
            path,
            "recursive types cannot be inlined; give the field a schema with \
             `x-kubernetes-preserve-unknown-fields` (#[schemars(schema_with = ...)])",
        ));
    }
    for key in DROPPED {
        map.remove(*key);
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value]));
    }
    children(map, path)?;
    junctions(map);
    additional_properties(map);
    if let Some(Value::String(format)) = map.get("format") {
        let integer = map.get("type").and_then(Value::as_str) == Some("integer");
        if integer && format != "int32" && format != "int64" {
            map.remove("format");
        }
    }
    if map.get("type").is_some_and(Value::is_array) {
        return Err(not_structural(path, "a schema has several types"));
    }
    let typed = [
        "type",
        INT_OR_STRING,
        PRESERVE,
        "allOf",
        "anyOf",
        "oneOf",
        "not",
    ]
    .iter()
    .any(|key| map.contains_key(*key));
    if !typed {
        map.insert(PRESERVE.into(), Value::Bool(true));
    }
    Ok(())
}

/// Makes a schema node accept `null`: `nullable: true`, and `null` among the values of an
/// enum (a nullable enum accepts null only when null is one of its values).
///
/// ```
/// use serde_json::{Map, json};
///
/// let mut node = Map::new();
/// node.insert("type".into(), "string".into());
/// node.insert("enum".into(), json!(["A", "B"]));
/// kubegen_crd_schema::make_nullable(&mut node);
/// assert_eq!(json!(node), json!({ "type": "string", "enum": ["A", "B", null], "nullable": true }));
/// ```
pub fn make_nullable(map: &mut Map<String, Value>) {
    map.insert("nullable".into(), Value::Bool(true));
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

fn not_structural(path: &str, reason: &str) -> Error {
    Error::NotStructural {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Recurses into every subschema.
fn children(map: &mut Map<String, Value>, path: &str) -> Result<(), Error> {
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            make_structural(property, &format!("{path}.{name}"))?;
        }
    }
    match map.get_mut("items") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                make_structural(item, &format!("{path}[{i}]"))?;
            }
        }
        Some(items) => make_structural(items, &format!("{path}[*]"))?,
        None => {}
    }
    if let Some(additional) = map.get_mut("additionalProperties")
        && additional.is_object()
    {
        make_structural(additional, &format!("{path}.*"))?;
    }
    for junction in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(junction) {
            for branch in branches.iter_mut() {
                make_structural(branch, path)?;
            }
        }
    }
    Ok(())
}

/// Whether a union branch only allows `null`.
fn is_null(branch: &Value) -> bool {
    branch.get("type").and_then(Value::as_str) == Some("null")
        || branch
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(Value::is_null))
}

fn merge_into(map: &mut Map<String, Value>, branch: Value) {
    if let Value::Object(branch) = branch {
        for (key, value) in branch {
            if key != PRESERVE || !map.contains_key("type") {
                map.entry(key).or_insert(value);
            }
        }
    }
    if map.contains_key("type") {
        map.remove(PRESERVE);
    }
}

fn junctions(map: &mut Map<String, Value>) {
    if let Some(Value::Array(all)) = map.get("allOf")
        && all.len() == 1
        && let Some(Value::Array(mut all)) = map.remove("allOf")
    {
        merge_into(map, all.remove(0));
    }
    for junction in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.remove(junction) else {
            continue;
        };
        let before = branches.len();
        let branches: Vec<Value> = branches.into_iter().filter(|b| !is_null(b)).collect();
        if branches.len() < before {
            map.insert("nullable".into(), Value::Bool(true));
        }
        union(map, junction, branches);
    }
}

fn type_of(branch: &Value) -> Option<&str> {
    branch.get("type").and_then(Value::as_str)
}

/// Replaces a union by the most precise structural schema for it.
fn union(map: &mut Map<String, Value>, junction: &str, mut branches: Vec<Value>) {
    match branches.len() {
        0 => return,
        1 => return merge_into(map, branches.remove(0)),
        _ => {}
    }
    let validation_only = branches.iter().all(|b| {
        b.as_object()
            .is_some_and(|b| b.keys().all(|k| k == "required"))
    });
    if validation_only {
        // Branches that only list required properties (a hoisted union) are structural.
        map.insert(junction.into(), Value::Array(branches));
        return;
    }
    let types: Vec<Option<&str>> = branches.iter().map(type_of).collect();
    if types.iter().all(|t| *t == Some("string"))
        && branches.iter().all(|b| b.get("enum").is_some())
    {
        let values: Vec<Value> = branches
            .iter()
            .filter_map(|b| b.get("enum").and_then(Value::as_array))
            .flatten()
            .cloned()
            .collect();
        map.insert("type".into(), "string".into());
        map.insert("enum".into(), Value::Array(values));
        return;
    }
    let mut sorted = types.clone();
    sorted.sort();
    if sorted == [Some("integer"), Some("string")] {
        map.remove("type");
        map.insert(INT_OR_STRING.into(), Value::Bool(true));
        return;
    }
    if types.iter().all(|t| *t == Some("object")) {
        hoist_objects(map, junction, branches);
        return;
    }
    map.remove("type");
    map.insert(PRESERVE.into(), Value::Bool(true));
}

/// Moves the properties of object branches up to the parent; branches keep `required`.
fn hoist_objects(map: &mut Map<String, Value>, junction: &str, branches: Vec<Value>) {
    let mut properties = match map.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut remaining = Vec::new();
    let mut preserve = false;
    for branch in branches {
        let Value::Object(mut branch) = branch else {
            continue;
        };
        preserve |= branch.get(PRESERVE) == Some(&Value::Bool(true));
        if let Some(Value::Object(props)) = branch.remove("properties") {
            for (name, schema) in props {
                merge_property(&mut properties, name, schema);
            }
        }
        let required = branch.remove("required").unwrap_or_else(|| json!([]));
        remaining.push(json!({ "required": required }));
    }
    map.insert("type".into(), "object".into());
    map.insert("properties".into(), Value::Object(properties));
    if preserve {
        map.insert(PRESERVE.into(), Value::Bool(true));
    }
    let any_required = remaining
        .iter()
        .any(|b| b["required"].as_array().is_some_and(|r| !r.is_empty()));
    if any_required {
        map.insert(junction.into(), Value::Array(remaining));
    }
}

fn merge_property(properties: &mut Map<String, Value>, name: String, schema: Value) {
    let Some(existing) = properties.get_mut(&name) else {
        properties.insert(name, schema);
        return;
    };
    let (Some(Value::Array(left)), Some(Value::Array(right))) =
        (existing.get("enum").cloned(), schema.get("enum"))
    else {
        return;
    };
    let mut values = left;
    for value in right {
        if !values.contains(value) {
            values.push(value.clone());
        }
    }
    existing["enum"] = Value::Array(values);
}

fn additional_properties(map: &mut Map<String, Value>) {
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            map.remove("additionalProperties");
        }
        Some(Value::Bool(true)) => {
            map.remove("additionalProperties");
            map.insert(PRESERVE.into(), Value::Bool(true));
        }
        Some(_) if map.contains_key("properties") => {
            map.remove("additionalProperties");
            map.insert(PRESERVE.into(), Value::Bool(true));
        }
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn structural(mut schema: Value) -> Value {
        make_structural(&mut schema, "spec").expect("structural");
        schema
    }

    #[test]
    fn string_constant_unions_become_one_enum() {
        let schema = json!({ "oneOf": [
            { "type": "string", "enum": ["A"], "description": "a" },
            { "type": "string", "const": "B" }
        ]});
        assert_eq!(
            structural(schema),
            json!({ "type": "string", "enum": ["A", "B"] })
        );
    }

    #[test]
    fn tagged_object_unions_are_hoisted() {
        let schema = json!({ "oneOf": [
            { "type": "object", "properties": { "type": { "type": "string", "const": "git" }, "url": { "type": "string" } }, "required": ["type", "url"] },
            { "type": "object", "properties": { "type": { "type": "string", "const": "image" }, "ref": { "type": "string" } }, "required": ["type", "ref"] }
        ]});
        assert_eq!(
            structural(schema),
            json!({
                "type": "object",
                "properties": {
                    "type": { "type": "string", "enum": ["git", "image"] },
                    "url": { "type": "string" },
                    "ref": { "type": "string" }
                },
                "oneOf": [{ "required": ["type", "url"] }, { "required": ["type", "ref"] }]
            })
        );
    }

    #[test]
    fn mixed_unions_preserve_unknown_fields() {
        let schema = json!({ "oneOf": [
            { "type": "string", "enum": ["Off"] },
            { "type": "object", "properties": { "On": { "type": "integer" } }, "required": ["On"] }
        ]});
        assert_eq!(
            structural(schema),
            json!({ "x-kubernetes-preserve-unknown-fields": true })
        );
    }

    #[test]
    fn nullable_objects_and_single_all_of_merge() {
        let schema = json!({
            "description": "outer",
            "anyOf": [{ "allOf": [{ "type": "object", "properties": { "a": { "type": "integer", "format": "uint32", "minimum": 0 } } }] },
                      { "type": "null" }]
        });
        assert_eq!(
            structural(schema),
            json!({
                "description": "outer",
                "nullable": true,
                "type": "object",
                "properties": { "a": { "type": "integer", "minimum": 0 } }
            })
        );
    }

    #[test]
    fn maps_and_flattened_maps() {
        let map = json!({ "type": "object", "additionalProperties": { "type": "string" } });
        assert_eq!(structural(map.clone()), map);
        let flattened = json!({ "type": "object", "properties": { "a": { "type": "string" } }, "additionalProperties": true });
        assert_eq!(
            structural(flattened),
            json!({ "type": "object", "properties": { "a": { "type": "string" } }, "x-kubernetes-preserve-unknown-fields": true })
        );
        let closed = json!({ "type": "object", "properties": {}, "additionalProperties": false });
        assert_eq!(
            structural(closed),
            json!({ "type": "object", "properties": {} })
        );
    }

    #[test]
    fn structural_schemas_stay_as_they_are() {
        let schema = json!({
            "type": "object",
            "properties": {
                "port": { "x-kubernetes-int-or-string": true },
                "labels": { "type": "object", "additionalProperties": { "type": "string" } },
                "mode": { "type": "string", "enum": ["A", null], "nullable": true },
                "extra": { "type": "object", "x-kubernetes-preserve-unknown-fields": true },
                "count": { "type": "integer", "format": "int32", "minimum": 0 }
            },
            "required": ["port"],
            "x-kubernetes-validations": [{ "rule": "self.port != 0" }]
        });
        assert_eq!(structural(schema.clone()), schema);
    }

    #[test]
    fn untyped_nodes_keep_unknown_fields_and_drop_what_the_server_refuses() {
        let schema =
            json!({ "description": "any", "examples": [1], "readOnly": true, "const": "x" });
        assert_eq!(
            structural(schema),
            json!({ "description": "any", "enum": ["x"], "x-kubernetes-preserve-unknown-fields": true })
        );
        assert_eq!(
            structural(json!(true)),
            json!({ "x-kubernetes-preserve-unknown-fields": true })
        );
    }

    #[test]
    fn nullable_enums_list_null_once() {
        let mut node = Map::new();
        node.insert("enum".into(), json!(["A", null]));
        make_nullable(&mut node);
        assert_eq!(
            Value::Object(node),
            json!({ "enum": ["A", null], "nullable": true })
        );
        let mut object = Map::new();
        make_nullable(&mut object);
        assert_eq!(Value::Object(object), json!({ "nullable": true }));
    }

    #[test]
    fn refs_and_false_are_errors_with_paths() {
        let mut schema = json!({ "type": "object", "properties": { "next": { "$ref": "#/components/schemas/Node" } } });
        let error = make_structural(&mut schema, "spec")
            .unwrap_err()
            .to_string();
        assert!(error.contains("spec.next"), "{error}");
        let mut never = json!({ "type": "array", "items": false });
        assert!(
            make_structural(&mut never, "spec")
                .unwrap_err()
                .to_string()
                .contains("spec[*]")
        );
    }
}
