//! Pruned copies of OpenAPI documents: of each document, only what
//! [`load_external_fields`](super::load_external_fields) reads for a model's built-in kinds,
//! so that the copies build the same fields as the whole documents (`kubegen
//! kubernetes-inputs`, which commits them, and `hack/verify-codegen.sh`, which checks
//! that).
//!
//! Of each document it keeps:
//!
//! - `openapi` (or `swagger`), which says how to read it;
//! - the collection and item paths of the kinds that get fields from it, each reduced to
//!   the `x-kubernetes-group-version-kind` of its first operation (the one the resources
//!   of a document are read from);
//! - the definitions those kinds reach through `$ref`s (their own included), each schema
//!   node reduced to the keys [`Schema`] reads, at every depth (properties, items,
//!   `additionalProperties`, `allOf` / `oneOf` / `anyOf`); values that are not schemas
//!   (`enum`, `default`, `x-kubernetes-validations`...) are kept whole. Definitions no field is
//!   built from in this document (those of packages that get no fields, `ObjectMeta`'s,
//!   `LabelSelector`'s...; another document's copy of a core/v1 one) lose their
//!   `description`s too: they are read for their shape only (the references to follow,
//!   whether k8s-openapi's type has a `Default`).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::external::{Read, definitions_read};
use super::resources::is_resource_path;
use crate::frontend::schema::{self, GroupVersionKind, Schema};
use crate::frontend::{Result, Source};
use crate::model::Model;

/// The methods of a path item, in the order [`PathItem::kinds`](super::document::PathItem)
/// reads them.
const METHODS: [&str; 5] = ["get", "put", "post", "patch", "delete"];

/// The pruned copy of each of `sources` (in the order given) for the built-in kinds of
/// `model` whose types are another crate's (see the [module docs](self)). Errors are the
/// front-end's, at `file:line:column`.
pub(crate) fn prune_for_external_fields(model: &Model, sources: &[Source]) -> Result<Vec<Value>> {
    let read = definitions_read(model, sources)?;
    sources
        .iter()
        .zip(&read)
        .map(|(source, read)| Ok(prune(&value(source)?, read)))
        .collect()
}

/// The document as JSON values (it parsed as a document already, so this succeeds but for
/// a YAML value JSON cannot hold).
fn value(source: &Source) -> Result<Value> {
    if source.text.trim_start().starts_with('{')
        && let Ok(value) = serde_json::from_str(&source.text)
    {
        return Ok(value);
    }
    serde_saphyr::from_str_with_options(&source.text, schema::yaml_options())
        .map_err(|e| schema::parse_error(&source.name, 0, &e))
}

fn prune(document: &Value, read: &Read) -> Value {
    let mut out = Map::new();
    for key in ["openapi", "swagger"] {
        if let Some(version) = document.get(key) {
            out.insert(key.to_owned(), version.clone());
        }
    }
    out.insert(
        "paths".to_owned(),
        Value::Object(paths(document, &read.kinds)),
    );
    let keep = |schemas: &Value| -> Value {
        let kept = schemas
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(name, _)| read.definitions.contains(name.as_str()))
            .map(|(name, schema)| {
                let documented = read.built.contains(name.as_str());
                (name.clone(), prune_schema(schema, documented))
            })
            .collect();
        Value::Object(kept)
    };
    if let Some(schemas) = document.pointer("/components/schemas") {
        let components = Map::from_iter([("schemas".to_owned(), keep(schemas))]);
        out.insert("components".to_owned(), Value::Object(components));
    }
    if let Some(schemas) = document.get("definitions") {
        out.insert("definitions".to_owned(), keep(schemas));
    }
    Value::Object(out)
}

/// The resource paths whose first operation's kind is one of `kinds`, reduced to it.
fn paths(document: &Value, kinds: &BTreeSet<GroupVersionKind>) -> Map<String, Value> {
    let mut out = Map::new();
    for (path, item) in document
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !is_resource_path(path) {
            continue;
        }
        let first = METHODS.iter().find_map(|method| {
            let gvk = item.get(*method)?.get("x-kubernetes-group-version-kind")?;
            Some((*method, gvk))
        });
        let Some((method, gvk)) = first else {
            continue;
        };
        let named = serde_json::from_value::<GroupVersionKind>(gvk.clone())
            .is_ok_and(|gvk| kinds.contains(&gvk));
        if named {
            let operation =
                Map::from_iter([("x-kubernetes-group-version-kind".to_owned(), gvk.clone())]);
            let item = Map::from_iter([(method.to_owned(), Value::Object(operation))]);
            out.insert(path.clone(), Value::Object(item));
        }
    }
    out
}

/// A schema node with only the keys [`Schema`] reads, its nested schemas pruned alike;
/// without `description`s unless `documented`.
fn prune_schema(schema: &Value, documented: bool) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let keys = Schema::keys();
    let mut out = Map::new();
    for (key, value) in map {
        if !keys.contains(&key.as_str()) || (!documented && key == "description") {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => Value::Object(
                properties
                    .iter()
                    .map(|(name, property)| (name.clone(), prune_schema(property, documented)))
                    .collect(),
            ),
            ("items" | "additionalProperties", _) => prune_schema(value, documented),
            ("allOf" | "oneOf" | "anyOf", Value::Array(branches)) => Value::Array(
                branches
                    .iter()
                    .map(|branch| prune_schema(branch, documented))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}
