//! The schema nodes both readers write the same way, and the keys of Kubernetes'
//! extensions to OpenAPI they use.
//!
//! The facade's `crd()` gets most nodes from schemars and makes them structural
//! ([`make_structural`](crate::make_structural)), kubegen-codegen writes them from its
//! model; what both build by hand is here: the root object's `apiVersion`, `kind` and
//! `metadata`, an object's `properties` and `required`, the primitive types, int-or-string,
//! unknown fields kept, maps, string enums and CEL rules ([`Rule`]).
//!
//! ```
//! use kubegen_crd_schema::shapes;
//! use serde_json::json;
//!
//! assert_eq!(shapes::map(shapes::preserve_unknown()), json!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true }));
//! assert_eq!(shapes::map(shapes::string()), json!({ "type": "object", "additionalProperties": { "type": "string" } }));
//! ```

use serde_json::{Map, Value, json};

/// The node accepts any JSON (or, beside `properties`, fields it does not declare).
pub const PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";
/// The node is an integer or a string (IntOrString, Quantity).
pub const INT_OR_STRING: &str = "x-kubernetes-int-or-string";
/// The node is a whole Kubernetes object (`apiVersion`, `kind`, `metadata`).
pub const EMBEDDED_RESOURCE: &str = "x-kubernetes-embedded-resource";
/// CEL rules on the node ([`Rule`]).
pub const VALIDATIONS: &str = "x-kubernetes-validations";
/// How a list merges: `atomic`, `set` or `map`.
pub const LIST_TYPE: &str = "x-kubernetes-list-type";
/// The keys of a `map` list.
pub const LIST_MAP_KEYS: &str = "x-kubernetes-list-map-keys";
/// How a map merges: `atomic` or `granular`.
pub const MAP_TYPE: &str = "x-kubernetes-map-type";

/// The properties every root object has before its own: `apiVersion` and `kind` strings,
/// and `metadata` as `type: object` (the API server owns its schema).
pub fn root_properties() -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert("apiVersion".into(), string());
    properties.insert("kind".into(), string());
    properties.insert("metadata".into(), json!({ "type": "object" }));
    properties
}

/// The root object of a kind: [`root_properties`] and then `fields`, the kind's docs as
/// description. `required` and CEL rules are added by the caller ([`set_required`],
/// [`set_rules`]).
pub fn root(
    description: Option<&str>,
    fields: impl IntoIterator<Item = (String, Value)>,
) -> Map<String, Value> {
    let mut properties = root_properties();
    properties.extend(fields);
    let mut root = object(properties);
    if let Some(description) = description {
        root.insert("description".into(), description.into());
    }
    root
}

/// An object node with these properties (`type: object`, `properties`).
pub fn object(properties: Map<String, Value>) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("type".into(), "object".into());
    object.insert("properties".into(), Value::Object(properties));
    object
}

/// Sets an object node's `required` list, in the order given; none leaves the node
/// without the key.
pub fn set_required(node: &mut Map<String, Value>, required: Vec<String>) {
    if !required.is_empty() {
        node.insert("required".into(), required.into());
    }
}

/// Sets a node's CEL rules (`x-kubernetes-validations`); none leaves the node without the
/// key.
pub fn set_rules<'a>(node: &mut Map<String, Value>, rules: impl IntoIterator<Item = Rule<'a>>) {
    let rules: Vec<Value> = rules.into_iter().map(|rule| rule.to_value()).collect();
    if !rules.is_empty() {
        node.insert(VALIDATIONS.into(), Value::Array(rules));
    }
}

/// Marks an object node as keeping the fields it does not declare: structural schemas allow
/// no `additionalProperties` beside `properties` (a flattened map of extra fields).
pub fn keep_unknown_fields(node: &mut Map<String, Value>) {
    node.insert(PRESERVE.into(), Value::Bool(true));
}

/// `type: string`.
pub fn string() -> Value {
    json!({ "type": "string" })
}

/// `type: boolean`.
pub fn boolean() -> Value {
    json!({ "type": "boolean" })
}

/// A 32-bit integer (`format: int32`).
pub fn int32() -> Value {
    json!({ "type": "integer", "format": "int32" })
}

/// A 64-bit integer (`format: int64`).
pub fn int64() -> Value {
    json!({ "type": "integer", "format": "int64" })
}

/// `type: number`.
pub fn number() -> Value {
    json!({ "type": "number" })
}

/// Base64 bytes (`format: byte`).
pub fn bytes() -> Value {
    json!({ "type": "string", "format": "byte" })
}

/// An RFC 3339 timestamp (`format: date-time`: `Time`, `MicroTime`).
pub fn date_time() -> Value {
    json!({ "type": "string", "format": "date-time" })
}

/// An integer or a string (`IntOrString`, and `Quantity` as kubegen-codegen's model reads
/// it).
pub fn int_or_string() -> Value {
    json!({ INT_OR_STRING: true })
}

/// Any JSON (`serde_json::Value`, `RawExtension`).
pub fn preserve_unknown() -> Value {
    json!({ PRESERVE: true })
}

/// A list of `items`.
pub fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// A map from strings to `values`; a map of any JSON is an object keeping unknown fields
/// (what [`make_structural`](crate::make_structural) makes of `additionalProperties: true`).
pub fn map(values: Value) -> Value {
    if values == preserve_unknown() {
        json!({ "type": "object", PRESERVE: true })
    } else {
        json!({ "type": "object", "additionalProperties": values })
    }
}

/// A string that is one of `values`.
pub fn string_enum(values: impl IntoIterator<Item = String>) -> Value {
    let values: Vec<Value> = values.into_iter().map(Value::String).collect();
    json!({ "type": "string", "enum": values })
}

/// A CEL rule of `x-kubernetes-validations`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rule<'a> {
    /// The CEL expression (`self.spec.min <= self.spec.max`).
    pub rule: &'a str,
    /// The message shown when the rule fails.
    pub message: Option<&'a str>,
    /// A CEL expression computing the message.
    pub message_expression: Option<&'a str>,
    /// The reason (`FieldValueInvalid`...).
    pub reason: Option<&'a str>,
    /// The JSON path of the field the failure is reported on (`.spec.max`).
    pub field_path: Option<&'a str>,
    /// Whether the rule runs on creation too, with `oldSelf` unset.
    pub optional_old_self: Option<bool>,
}

impl Rule<'_> {
    /// The rule as the schema writes it: `rule`, then only the keys that are set.
    pub fn to_value(&self) -> Value {
        let mut rule = Map::new();
        rule.insert("rule".into(), self.rule.into());
        for (key, text) in [
            ("message", self.message),
            ("messageExpression", self.message_expression),
            ("reason", self.reason),
            ("fieldPath", self.field_path),
        ] {
            if let Some(text) = text {
                rule.insert(key.into(), text.into());
            }
        }
        if let Some(optional) = self.optional_old_self {
            rule.insert("optionalOldSelf".into(), optional.into());
        }
        Value::Object(rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_start_with_api_version_kind_and_metadata() {
        let root = root(Some("A Foo."), [("spec".to_owned(), int32())]);
        assert_eq!(
            Value::Object(root),
            json!({
                "type": "object",
                "description": "A Foo.",
                "properties": {
                    "apiVersion": { "type": "string" },
                    "kind": { "type": "string" },
                    "metadata": { "type": "object" },
                    "spec": { "type": "integer", "format": "int32" }
                }
            })
        );
    }

    #[test]
    fn required_and_rules_are_written_only_when_there_are_some() {
        let mut node = object(Map::new());
        set_required(&mut node, Vec::new());
        set_rules(&mut node, []);
        assert_eq!(
            Value::Object(node.clone()),
            json!({ "type": "object", "properties": {} })
        );
        set_required(&mut node, vec!["b".into(), "a".into()]);
        set_rules(
            &mut node,
            [Rule {
                rule: "self.a < self.b",
                message: Some("a before b"),
                optional_old_self: Some(false),
                ..Rule::default()
            }],
        );
        assert_eq!(node["required"], json!(["b", "a"]));
        assert_eq!(
            node[VALIDATIONS],
            json!([{ "rule": "self.a < self.b", "message": "a before b", "optionalOldSelf": false }])
        );
    }

    #[test]
    fn rules_write_every_key_that_is_set() {
        let rule = Rule {
            rule: "r",
            message: None,
            message_expression: Some("'m'"),
            reason: Some("FieldValueInvalid"),
            field_path: Some(".spec.x"),
            optional_old_self: Some(true),
        };
        assert_eq!(
            rule.to_value(),
            json!({ "rule": "r", "messageExpression": "'m'", "reason": "FieldValueInvalid", "fieldPath": ".spec.x", "optionalOldSelf": true })
        );
    }

    #[test]
    fn primitive_shapes_are_structural_as_they_are() {
        for shape in [
            string(),
            boolean(),
            int32(),
            int64(),
            number(),
            bytes(),
            date_time(),
            int_or_string(),
            preserve_unknown(),
            array(string()),
            map(int64()),
            map(preserve_unknown()),
            string_enum(["A".to_owned(), "B".to_owned()]),
        ] {
            let mut structural = shape.clone();
            crate::make_structural(&mut structural, "x").expect("structural");
            assert_eq!(structural, shape);
        }
        let mut flattened = object(Map::new());
        keep_unknown_fields(&mut flattened);
        assert_eq!(flattened[PRESERVE], true);
    }
}
