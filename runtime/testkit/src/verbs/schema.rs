//! Structural-schema handling for custom resources: defaulting, pruning of unknown
//! fields and validation (types, required, enum, nullable, bounds), as the real
//! apiextensions server does it.

use serde_json::{Map, Value};

use crate::store::status::{Cause, render_value};

/// Defaults, prunes and validates `object` against a CRD version's `openAPIV3Schema`.
/// Returns every validation failure; `apiVersion`, `kind` and `metadata` at the root
/// are never pruned.
pub(crate) fn apply(schema: &Value, object: &mut Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let Some(root) = object.as_object_mut() else {
        causes.push(Cause::invalid("", object, "must be of type object"));
        return causes;
    };
    walk_object(schema, root, "", true, &mut causes);
    causes
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

fn flag(schema: &Value, name: &str) -> bool {
    schema.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match (expected, value) {
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        (expected, value) => expected == type_name(value),
    }
}

/// Keys of the object node that a structural schema keeps at `root` or embedded resources.
fn always_kept(key: &str, root_or_embedded: bool) -> bool {
    root_or_embedded && matches!(key, "apiVersion" | "kind" | "metadata")
}

fn walk_object(
    schema: &Value,
    object: &mut Map<String, Value>,
    path: &str,
    root: bool,
    causes: &mut Vec<Cause>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    let preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    let embedded = root || flag(schema, "x-kubernetes-embedded-resource");

    // Nulls for non-nullable properties are dropped before defaulting, then defaults fill
    // gaps; a non-nullable null map value takes the values' default or is dropped
    // (apiextensions' PruneNonNullableNullsWithoutDefaults, then Default).
    if let Some(properties) = properties {
        for (name, property) in properties {
            if object.get(name).is_some_and(Value::is_null) && !flag(property, "nullable") {
                object.remove(name);
            }
            if !object.contains_key(name)
                && let Some(default) = property.get("default")
            {
                object.insert(name.clone(), default.clone());
            }
        }
    }
    if let Some(additional) = additional.filter(|a| !flag(a, "nullable")) {
        object.retain(|key, value| {
            let declared = properties.is_some_and(|p| p.contains_key(key));
            if declared || always_kept(key, embedded) || !value.is_null() {
                return true;
            }
            match additional.get("default") {
                Some(default) => {
                    *value = default.clone();
                    true
                }
                None => false,
            }
        });
    }

    let keys: Vec<String> = object.keys().cloned().collect();
    for key in keys {
        if always_kept(&key, embedded) {
            // apiVersion, kind and metadata of (embedded) resources are ObjectMeta's
            // business, not the schema's: never pruned, never schema-validated.
            continue;
        }
        let child_path = join(path, &key);
        let child_schema = properties.and_then(|p| p.get(&key)).or(additional);
        match child_schema {
            Some(child_schema) => {
                if let Some(value) = object.get_mut(&key) {
                    walk(child_schema, value, &child_path, causes);
                }
            }
            None if preserve => {}
            None => {
                object.remove(&key);
            }
        }
    }

    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = required.as_str()
            && !object.contains_key(name)
        {
            causes.push(Cause::required(join(path, name)));
        }
    }
    if embedded && !root {
        for name in ["apiVersion", "kind"] {
            if !object.contains_key(name) && !preserve {
                causes.push(Cause::required(join(path, name)));
            }
        }
    }
    check_count(
        schema,
        object.len(),
        "minProperties",
        "maxProperties",
        "properties",
        path,
        causes,
    );
}

fn check_count(
    schema: &Value,
    len: usize,
    min: &str,
    max: &str,
    what: &str,
    path: &str,
    causes: &mut Vec<Cause>,
) {
    if let Some(min) = schema.get(min).and_then(Value::as_u64)
        && (len as u64) < min
    {
        causes.push(Cause::new(
            "FieldValueInvalid",
            path,
            format!("Invalid value: {len}: {path} in body should have at least {min} {what}"),
        ));
    }
    if let Some(max) = schema.get(max).and_then(Value::as_u64)
        && (len as u64) > max
    {
        causes.push(Cause::new(
            "FieldValueTooMany",
            path,
            format!("Too many: {len}: must have at most {max} {what}"),
        ));
    }
}

fn walk(schema: &Value, value: &mut Value, path: &str, causes: &mut Vec<Cause>) {
    if value.is_null() {
        if !flag(schema, "nullable") {
            let expected = schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("object");
            causes.push(Cause::new(
                "FieldValueTypeInvalid",
                path,
                format!(
                    "Invalid value: \"null\": {path} in body must be of type {expected}: \"null\""
                ),
            ));
        }
        return;
    }
    if flag(schema, "x-kubernetes-int-or-string") {
        if !matches!(value, Value::String(_)) && !type_matches("integer", value) {
            causes.push(Cause::new(
                "FieldValueTypeInvalid",
                path,
                format!(
                    "Invalid value: {}: {path} in body must be of type integer,string: {:?}",
                    render_value(value),
                    type_name(value)
                ),
            ));
        }
        return;
    }
    if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !type_matches(expected, value)
    {
        causes.push(Cause::new(
            "FieldValueTypeInvalid",
            path,
            format!(
                "Invalid value: {}: {path} in body must be of type {expected}: {:?}",
                render_value(value),
                type_name(value)
            ),
        ));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let listed: Vec<String> = allowed.iter().map(render_value).collect();
        causes.push(Cause::new(
            "FieldValueNotSupported",
            path,
            format!(
                "Unsupported value: {}: supported values: {}",
                render_value(value),
                listed.join(", ")
            ),
        ));
    }
    match value {
        Value::Object(object) => walk_object(schema, object, path, false, causes),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                // A non-nullable null item takes the items' default (and fails validation
                // without one).
                let default = item_schema
                    .get("default")
                    .filter(|_| !flag(item_schema, "nullable"));
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(default) = default.filter(|_| item.is_null()) {
                        *item = default.clone();
                    }
                    walk(item_schema, item, &format!("{path}[{i}]"), causes);
                }
            }
            check_count(
                schema,
                items.len(),
                "minItems",
                "maxItems",
                "items",
                path,
                causes,
            );
        }
        Value::String(s) => {
            let len = s.chars().count();
            check_count(
                schema,
                len,
                "minLength",
                "maxLength",
                "characters",
                path,
                causes,
            );
        }
        Value::Number(n) => {
            let Some(n) = n.as_f64() else { return };
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
                let exclusive = flag(schema, "exclusiveMinimum");
                if n < min || (exclusive && n == min) {
                    causes.push(Cause::invalid(
                        path,
                        value,
                        format!("{path} in body should be greater than or equal to {min}"),
                    ));
                }
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
                let exclusive = flag(schema, "exclusiveMaximum");
                if n > max || (exclusive && n == max) {
                    causes.push(Cause::invalid(
                        path,
                        value,
                        format!("{path} in body should be less than or equal to {max}"),
                    ));
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["size"],
                    "properties": {
                        "size": {"type": "integer", "minimum": 1},
                        "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
                        "port": {"x-kubernetes-int-or-string": true},
                        "note": {"type": "string", "nullable": true},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {}},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    }
                },
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
            }
        })
    }

    #[test]
    fn unknown_fields_are_pruned_unless_preserved() {
        let mut object = json!({
            "apiVersion": "x/v1", "kind": "Foo", "metadata": {"name": "a"},
            "junk": 1,
            "spec": {"size": 2, "bogus": true, "extra": {"anything": [1]},
                     "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}
        });
        assert!(apply(&schema(), &mut object).is_empty());
        assert!(object.get("junk").is_none());
        assert!(object["spec"].get("bogus").is_none());
        assert_eq!(object["spec"]["extra"]["anything"], json!([1]));
        assert_eq!(object["spec"]["template"]["metadata"]["name"], "p");
        assert!(object["spec"]["template"].get("spec").is_none());
        assert_eq!(object["spec"]["color"], "red", "defaulted");
        assert_eq!(object["metadata"]["name"], "a");
    }

    #[test]
    fn root_metadata_is_kept_even_when_the_schema_declares_it() {
        let schema = json!({"type": "object", "properties": {"metadata": {"type": "object"}}});
        let mut object = json!({"metadata": {"name": "a", "labels": {"x": "y"}}});
        assert!(apply(&schema, &mut object).is_empty());
        assert_eq!(object["metadata"]["labels"]["x"], "y");
    }

    #[test]
    fn every_violation_is_reported_with_its_path() {
        let mut object = json!({
            "spec": {"color": "green", "port": true, "tags": ["a", 1], "note": null, "size": 0},
            "status": {"ready": "yes"}
        });
        let causes = apply(&schema(), &mut object);
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.color",
                "spec.port",
                "spec.size",
                "spec.tags[1]",
                "status.ready"
            ]
        );
        assert_eq!(causes[0].reason, "FieldValueNotSupported");
        assert!(
            causes[4].message.contains("must be of type boolean"),
            "{}",
            causes[4].message
        );
        let mut missing = json!({"spec": {}});
        let causes = apply(&schema(), &mut missing);
        assert_eq!(causes, vec![Cause::required("spec.size")]);
    }

    #[test]
    fn defaults_fill_absent_and_non_nullable_null_values_recursively() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "note": {"type": "string", "nullable": true, "default": "n"},
                        "template": {
                            "type": "object",
                            "default": {"image": "nginx"},
                            "properties": {
                                "image": {"type": "string"},
                                "pullPolicy": {"type": "string", "default": "IfNotPresent"}
                            }
                        },
                        "ports": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "default": {"name": "default"},
                                "properties": {
                                    "name": {"type": "string"},
                                    "protocol": {"type": "string", "default": "TCP"}
                                }
                            }
                        },
                        "limits": {
                            "type": "object",
                            "additionalProperties": {
                                "type": "object",
                                "properties": {"max": {"type": "integer", "default": 10}}
                            }
                        },
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
                    }
                }
            }
        });
        let mut object = json!({"spec": {
            "note": null,
            "ports": [{"name": "a"}, null],
            "limits": {"cpu": {}, "memory": {"max": 2}, "gone": null},
            "labels": {"a": "b", "gone": null}
        }});
        assert_eq!(apply(&schema, &mut object), Vec::new());
        assert_eq!(
            object,
            json!({"spec": {
                "note": null,
                "template": {"image": "nginx", "pullPolicy": "IfNotPresent"},
                "ports": [{"name": "a", "protocol": "TCP"}, {"name": "default", "protocol": "TCP"}],
                "limits": {"cpu": {"max": 10}, "memory": {"max": 2}},
                "labels": {"a": "b"}
            }})
        );
        let mut absent = json!({"spec": {"note": "kept"}});
        assert_eq!(apply(&schema, &mut absent), Vec::new());
        assert_eq!(absent["spec"]["note"], "kept");
        assert!(
            absent["spec"].get("ports").is_none(),
            "no parent is created"
        );
    }

    #[test]
    fn int_or_string_accepts_both() {
        for port in [json!(80), json!("http")] {
            let mut object = json!({"spec": {"size": 1, "port": port}});
            assert!(apply(&schema(), &mut object).is_empty());
        }
    }
}
