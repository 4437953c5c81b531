//! Writes the model's [`Validation`] into a schema node (the inverse of the front-ends'
//! reading).

use serde_json::{Map, Value};

use crate::model::Validation;

/// Writes `validation` into a schema node (the inverse of [`read`]).
pub(crate) fn write(validation: &Validation, schema: &mut Map<String, Value>) {
    let v = validation;
    let mut put = |key: &str, value: Value| {
        schema.insert(key.to_owned(), value);
    };
    if let Some(n) = &v.minimum {
        put("minimum", Value::Number(n.clone()));
    }
    if let Some(n) = &v.maximum {
        put("maximum", Value::Number(n.clone()));
    }
    if v.exclusive_minimum {
        put("exclusiveMinimum", Value::Bool(true));
    }
    if v.exclusive_maximum {
        put("exclusiveMaximum", Value::Bool(true));
    }
    if let Some(n) = &v.multiple_of {
        put("multipleOf", Value::Number(n.clone()));
    }
    for (key, count) in v.count_bounds() {
        if let Some(count) = count {
            put(key, count.into());
        }
    }
    if let Some(pattern) = &v.pattern {
        put("pattern", pattern.clone().into());
    }
    if v.unique_items {
        put("uniqueItems", Value::Bool(true));
    }
    if !v.rules.is_empty() {
        let rules = v.rules.iter().map(|r| {
            let mut rule = Map::new();
            rule.insert("rule".into(), r.rule.clone().into());
            for (key, text) in [
                ("message", &r.message),
                ("messageExpression", &r.message_expression),
                ("reason", &r.reason),
                ("fieldPath", &r.field_path),
            ] {
                if let Some(text) = text {
                    rule.insert(key.into(), text.clone().into());
                }
            }
            if let Some(optional) = r.optional_old_self {
                rule.insert("optionalOldSelf".into(), optional.into());
            }
            Value::Object(rule)
        });
        put("x-kubernetes-validations", Value::Array(rules.collect()));
    }
    if let Some(list_type) = v.list_type {
        put("x-kubernetes-list-type", list_type.as_str().into());
    }
    if !v.list_map_keys.is_empty() {
        put("x-kubernetes-list-map-keys", v.list_map_keys.clone().into());
    }
    if let Some(map_type) = v.map_type {
        put("x-kubernetes-map-type", map_type.as_str().into());
    }
    if v.embedded_resource {
        put("x-kubernetes-embedded-resource", Value::Bool(true));
    }
}
