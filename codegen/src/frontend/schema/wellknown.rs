//! Recognises object schemas that are exactly a k8s-openapi type, so generated code uses
//! the shared type instead of a look-alike.
//!
//! A match must be exact: the same property names, the same required set and compatible
//! property types. Anything looser could drop or change fields on a round trip (k8s-openapi
//! types ignore unknown fields and treat `null` as absent).

use std::collections::BTreeSet;

use super::node::Schema;
use crate::model::ExternalType;

/// The k8s-openapi type an object schema is, if it is one.
pub(crate) fn external_for(schema: &Schema) -> Option<ExternalType> {
    let props = schema.properties.as_ref()?;
    if schema.preserve_unknown_fields || schema.additional_properties.is_some() {
        return None;
    }
    let names: BTreeSet<&str> = props.keys().map(String::as_str).collect();
    let required: BTreeSet<&str> = schema.required.iter().map(String::as_str).collect();
    let prop = |name: &str| props.get(name).map(|s| &s.value);
    let is = |name: &str, ty: &str| prop(name).is_some_and(|s| is_plain(s, ty));

    if names
        == set(&[
            "lastTransitionTime",
            "message",
            "observedGeneration",
            "reason",
            "status",
            "type",
        ])
        && required == set(&["lastTransitionTime", "message", "reason", "status", "type"])
        && prop("lastTransitionTime").is_some_and(|s| s.format.as_deref() == Some("date-time"))
        && ["message", "reason", "status", "type"]
            .iter()
            .all(|n| prop(n).is_some_and(is_string))
        && is("observedGeneration", "integer")
    {
        return Some(ExternalType::condition());
    }

    if names == set(&["matchExpressions", "matchLabels"])
        && required.is_empty()
        && prop("matchLabels").is_some_and(is_string_map)
        && prop("matchExpressions").is_some_and(is_selector_requirements)
    {
        return Some(ExternalType::label_selector());
    }

    if names
        == set(&[
            "apiVersion",
            "fieldPath",
            "kind",
            "name",
            "namespace",
            "resourceVersion",
            "uid",
        ])
        && required.is_empty()
        && props.values().all(|s| is_string(&s.value))
    {
        return Some(ExternalType::object_reference());
    }
    None
}

fn set<'a>(names: &[&'a str]) -> BTreeSet<&'a str> {
    names.iter().copied().collect()
}

/// A scalar of `ty` with nothing that changes its Rust shape.
fn is_plain(schema: &Schema, ty: &str) -> bool {
    schema.type_.as_deref() == Some(ty)
        && !schema.nullable
        && !schema.int_or_string
        && !schema.preserve_unknown_fields
}

/// A string (possibly with an enum: k8s-openapi keeps it as `String`) with no format.
fn is_string(schema: &Schema) -> bool {
    is_plain(schema, "string") && schema.format.is_none()
}

fn is_string_map(schema: &Schema) -> bool {
    use super::node::AdditionalProperties;
    is_plain(schema, "object")
        && schema.properties.is_none()
        && matches!(&schema.additional_properties, Some(AdditionalProperties::Schema(v)) if is_string(v))
}

fn is_selector_requirements(schema: &Schema) -> bool {
    if !is_plain(schema, "array") {
        return false;
    }
    let Some(item) = schema.items.as_ref().map(|i| &i.value) else {
        return false;
    };
    let Some(props) = item.properties.as_ref() else {
        return false;
    };
    let names: BTreeSet<&str> = props.keys().map(String::as_str).collect();
    let required: BTreeSet<&str> = item.required.iter().map(String::as_str).collect();
    is_plain(item, "object")
        && !item.preserve_unknown_fields
        && item.additional_properties.is_none()
        && names == set(&["key", "operator", "values"])
        && required == set(&["key", "operator"])
        && is_string(&props["key"].value)
        && is_string(&props["operator"].value)
        && is_plain(&props["values"].value, "array")
        && props["values"]
            .value
            .items
            .as_ref()
            .is_some_and(|i| is_string(&i.value))
}
