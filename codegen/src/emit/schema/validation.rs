//! Writes the model's [`Validation`] into a schema node (the inverse of the front-ends'
//! reading).

use kubegen_crd_schema::shapes::{
    self, EMBEDDED_RESOURCE, LIST_MAP_KEYS, LIST_TYPE, MAP_TYPE, Rule,
};
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
    if let Some(list_type) = v.list_type {
        put(LIST_TYPE, list_type.as_str().into());
    }
    if !v.list_map_keys.is_empty() {
        put(LIST_MAP_KEYS, v.list_map_keys.clone().into());
    }
    if let Some(map_type) = v.map_type {
        put(MAP_TYPE, map_type.as_str().into());
    }
    if v.embedded_resource {
        put(EMBEDDED_RESOURCE, Value::Bool(true));
    }
    shapes::set_rules(
        schema,
        v.rules.iter().map(|r| Rule {
            rule: &r.rule,
            message: r.message.as_deref(),
            message_expression: r.message_expression.as_deref(),
            reason: r.reason.as_deref(),
            field_path: r.field_path.as_deref(),
            optional_old_self: r.optional_old_self,
        }),
    );
}
