//! Validations and `x-kubernetes-*` extensions of a schema node, read from its JSON into
//! the model's [`Validation`]; shared by every front-end that meets them (CRD schemas,
//! the Rust front-end's `#[schemars(extend(...))]`); `emit::crd` writes it back.

use serde_json::Value;

use crate::model::{ListType, MapType, Validation, ValidationRule};

/// The keys [`read`] understands.
pub(crate) const KEYS: &[&str] = &[
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
    "x-kubernetes-embedded-resource",
];

/// Reads one key; `Ok(false)` when it is not a validation key.
pub(crate) fn read_one(key: &str, value: &Value, into: &mut Validation) -> Result<bool, String> {
    let wrong = |expected: &str| format!("`{key}` must be {expected}");
    let number = || match value {
        Value::Number(n) => Ok(n.clone()),
        _ => Err(wrong("a number")),
    };
    let count = || {
        value
            .as_u64()
            .ok_or_else(|| wrong("a non-negative integer"))
    };
    let flag = || value.as_bool().ok_or_else(|| wrong("a boolean"));
    match key {
        "minimum" => into.minimum = Some(number()?),
        "maximum" => into.maximum = Some(number()?),
        "exclusiveMinimum" => into.exclusive_minimum = flag()?,
        "exclusiveMaximum" => into.exclusive_maximum = flag()?,
        "multipleOf" => into.multiple_of = Some(number()?),
        "minLength" => into.min_length = Some(count()?),
        "maxLength" => into.max_length = Some(count()?),
        "pattern" => {
            into.pattern = Some(value.as_str().ok_or_else(|| wrong("a string"))?.to_owned())
        }
        "minItems" => into.min_items = Some(count()?),
        "maxItems" => into.max_items = Some(count()?),
        "uniqueItems" => into.unique_items = flag()?,
        "minProperties" => into.min_properties = Some(count()?),
        "maxProperties" => into.max_properties = Some(count()?),
        "x-kubernetes-validations" => {
            let rules = value.as_array().ok_or_else(|| wrong("a list of rules"))?;
            into.rules = rules.iter().map(rule).collect::<Result<_, _>>()?;
        }
        "x-kubernetes-list-type" => {
            let text = value.as_str().unwrap_or_default();
            into.list_type =
                Some(ListType::parse(text).ok_or_else(|| wrong("`atomic`, `set` or `map`"))?);
        }
        "x-kubernetes-list-map-keys" => {
            let keys = value.as_array().ok_or_else(|| wrong("a list of strings"))?;
            into.list_map_keys = keys
                .iter()
                .map(|k| {
                    k.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| wrong("a list of strings"))
                })
                .collect::<Result<_, _>>()?;
        }
        "x-kubernetes-map-type" => {
            let text = value.as_str().unwrap_or_default();
            into.map_type =
                Some(MapType::parse(text).ok_or_else(|| wrong("`atomic` or `granular`"))?);
        }
        "x-kubernetes-embedded-resource" => into.embedded_resource = flag()?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn rule(value: &Value) -> Result<ValidationRule, String> {
    let Some(map) = value.as_object() else {
        return Err("each of `x-kubernetes-validations` must be an object with `rule`".into());
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` of a validation rule must be a string")),
        }
    };
    for key in map.keys() {
        if !matches!(
            key.as_str(),
            "rule" | "message" | "messageExpression" | "reason" | "fieldPath" | "optionalOldSelf"
        ) {
            return Err(format!("unknown key `{key}` in a validation rule"));
        }
    }
    Ok(ValidationRule {
        rule: text("rule")?.ok_or("a validation rule needs `rule`")?,
        message: text("message")?,
        message_expression: text("messageExpression")?,
        reason: text("reason")?,
        field_path: text("fieldPath")?,
        optional_old_self: match map.get("optionalOldSelf") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                return Err("`optionalOldSelf` of a validation rule must be a boolean".into());
            }
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_every_key() {
        let schema = json!({
            "minimum": 1, "maximum": 10.5, "exclusiveMinimum": true, "multipleOf": 2,
            "minLength": 1, "maxLength": 63, "pattern": "^[a-z]+$", "minItems": 1,
            "maxItems": 3, "uniqueItems": true, "minProperties": 1, "maxProperties": 9,
            "x-kubernetes-validations": [
                { "rule": "self.a <= self.b", "message": "a > b", "reason": "FieldValueInvalid",
                  "fieldPath": ".a", "messageExpression": "'no'", "optionalOldSelf": true }
            ],
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "x-kubernetes-map-type": "granular", "x-kubernetes-embedded-resource": true
        });
        let mut validation = Validation::default();
        for (key, value) in schema.as_object().unwrap() {
            assert!(read_one(key, value, &mut validation).unwrap(), "{key}");
        }
        assert_eq!(validation.maximum, serde_json::Number::from_f64(10.5));
        assert_eq!(
            (validation.min_length, validation.max_properties),
            (Some(1), Some(9))
        );
        assert_eq!(validation.list_type, Some(ListType::Map));
        assert_eq!(validation.map_type, Some(MapType::Granular));
        assert_eq!(validation.rules[0].optional_old_self, Some(true));
        assert_eq!(validation.rules[0].field_path.as_deref(), Some(".a"));
        assert!(validation.exclusive_minimum && !validation.exclusive_maximum);
        assert!(validation.unique_items && validation.embedded_resource);
        // The CRD emitter writes it back: tests/crd_manifests.rs checks the round trip.
    }

    #[test]
    fn wrong_shapes_name_the_key() {
        let mut v = Validation::default();
        let error = read_one("x-kubernetes-list-type", &json!("list"), &mut v).unwrap_err();
        assert_eq!(
            error,
            "`x-kubernetes-list-type` must be `atomic`, `set` or `map`"
        );
        let error = read_one(
            "x-kubernetes-validations",
            &json!([{ "message": "m" }]),
            &mut v,
        )
        .unwrap_err();
        assert_eq!(error, "a validation rule needs `rule`");
        assert!(!read_one("description", &json!("d"), &mut v).unwrap());
    }
}
