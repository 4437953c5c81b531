//! The schemas of one served type, by definition name, in OpenAPI v2 form (`$ref`s to
//! `#/definitions/...`), converted for v3 on the way out.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::builtin;
use crate::store::registry::ResourceType;

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
const V2_PREFIX: &str = "#/definitions/";
const V3_PREFIX: &str = "#/components/schemas/";

/// Every `$ref` target under `value` (a property *named* `$ref`, as in JSONSchemaProps,
/// holds an object and is not a reference).
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(target)) => {
                        out.extend(target.strip_prefix(V2_PREFIX));
                    }
                    _ => refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

/// Adds the built-in definitions `roots` and everything they refer to.
fn add_builtin_closure(roots: &[&str], out: &mut BTreeMap<String, Value>) {
    let definitions = builtin::definitions();
    let mut pending: Vec<String> = roots.iter().map(|r| (*r).to_owned()).collect();
    while let Some(name) = pending.pop() {
        if out.contains_key(&name) {
            continue;
        }
        let Some(definition) = definitions.get(&name) else {
            continue;
        };
        let mut targets = Vec::new();
        refs(definition, &mut targets);
        pending.extend(targets.into_iter().map(str::to_owned));
        out.insert(name, definition.clone());
    }
}

/// `example.com` -> `com.example`, as OpenAPI names custom resources.
fn reversed(group: &str) -> String {
    group.split('.').rev().collect::<Vec<_>>().join(".")
}

/// The definition name of a type's kind (and, with `List`, of its list).
pub(super) fn name(rt: &ResourceType, list: bool) -> String {
    let kind = if list { &rt.list_kind } else { &rt.kind };
    if rt.custom {
        return format!("{}.{}.{kind}", reversed(&rt.group), rt.version);
    }
    match builtin::definition(&rt.group, &rt.version, &rt.kind) {
        Some(definition) if list => format!("{definition}List"),
        Some(definition) => definition.to_owned(),
        None => format!("{}.{}.{kind}", reversed(&rt.group), rt.version),
    }
}

fn gvk(rt: &ResourceType, kind: &str) -> Value {
    json!([{"group": rt.group, "version": rt.version, "kind": kind}])
}

fn type_meta(properties: &mut Map<String, Value>) {
    properties.insert(
        "apiVersion".to_owned(),
        json!({"type": "string", "description": builtin::description(OBJECT_META_OWNER, "apiVersion")}),
    );
    properties.insert(
        "kind".to_owned(),
        json!({"type": "string", "description": builtin::description(OBJECT_META_OWNER, "kind")}),
    );
}

/// A built-in kind whose `apiVersion` and `kind` descriptions every kind shares.
const OBJECT_META_OWNER: &str = "io.k8s.api.core.v1.ConfigMap";

fn custom(rt: &ResourceType, out: &mut BTreeMap<String, Value>) {
    let mut schema = match &rt.schema {
        Some(Value::Object(schema)) => schema.clone(),
        _ => Map::new(),
    };
    schema.insert("type".to_owned(), json!("object"));
    let properties = schema.entry("properties").or_insert_with(|| json!({}));
    if let Value::Object(properties) = properties {
        type_meta(properties);
        properties.insert(
            "metadata".to_owned(),
            json!({"$ref": format!("{V2_PREFIX}{OBJECT_META}"), "description": builtin::description(OBJECT_META_OWNER, "metadata")}),
        );
    }
    schema.insert(
        "x-kubernetes-group-version-kind".to_owned(),
        gvk(rt, &rt.kind),
    );
    let item = name(rt, false);
    let mut list_properties = Map::new();
    type_meta(&mut list_properties);
    list_properties.insert(
        "items".to_owned(),
        json!({"type": "array", "items": {"$ref": format!("{V2_PREFIX}{item}")}, "description": format!("List of {}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", rt.plural)}),
    );
    list_properties.insert(
        "metadata".to_owned(),
        json!({"$ref": format!("{V2_PREFIX}{LIST_META}")}),
    );
    let list = json!({
        "description": format!("{} is a list of {}", rt.list_kind, rt.kind),
        "type": "object",
        "required": ["items"],
        "properties": list_properties,
        "x-kubernetes-group-version-kind": gvk(rt, &rt.list_kind),
    });
    out.insert(item, Value::Object(schema));
    out.insert(name(rt, true), list);
    add_builtin_closure(&[OBJECT_META, LIST_META], out);
}

/// Which document a schema goes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    V2,
    V3,
}

/// The definitions one served type needs: its kind, its list and what they reference,
/// with `$ref`s in the document's form.
pub(super) fn for_type(rt: &ResourceType, form: Form) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if rt.custom {
        custom(rt, &mut out);
        if form == Form::V2
            && let Some(schema) = out.get_mut(&name(rt, false))
        {
            strip_v3_only(schema);
        }
    } else {
        add_builtin_closure(&[&name(rt, false), &name(rt, true)], &mut out);
    }
    if form == Form::V3 {
        for schema in out.values_mut() {
            rewrite_refs(schema, V2_PREFIX, V3_PREFIX);
        }
    }
    out
}

fn rewrite_refs(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match child {
                    Value::String(target) if key == "$ref" => {
                        if let Some(rest) = target.strip_prefix(from) {
                            *target = format!("{to}{rest}");
                        }
                    }
                    _ => rewrite_refs(child, from, to),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rewrite_refs(item, from, to)),
        _ => {}
    }
}

/// Removes what Swagger 2.0 schemas cannot say from a CRD schema, as a real server's
/// v2 conversion does; walks schema positions only (a property may be named `not`).
fn strip_v3_only(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    for key in ["nullable", "oneOf", "anyOf", "not"] {
        map.remove(key);
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(strip_v3_only);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            strip_v3_only(child);
        }
    }
    if let Some(Value::Array(all)) = map.get_mut("allOf") {
        all.iter_mut().for_each(strip_v3_only);
    }
}
