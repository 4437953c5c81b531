//! `meta.k8s.io` Table responses (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`),
//! what `kubectl get` asks for: Kubernetes' printer columns for built-in kinds, and a
//! CRD version's `additionalPrinterColumns` (or its one `Age` column) for custom
//! resources. `includeObject` (`None`, `Metadata` by default, `Object`) and `noHeaders`
//! are honoured; a watch sends the column definitions with its first event only.

mod age;
mod printers;

use serde_json::{Map, Value, json};

use crate::http::metav1::{self, MetaVersion};
use crate::store::meta;
use crate::store::registry::{PrinterColumn, ResourceType};
use crate::store::status::{ApiError, ApiResult};

/// Where a column's description comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Description {
    /// Written here.
    Text(&'static str),
    /// A property's description in the generated OpenAPI definitions.
    Field(&'static str, &'static str),
}

/// A built-in printer's column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Column {
    pub(crate) name: &'static str,
    pub(crate) ty: &'static str,
    pub(crate) format: &'static str,
    /// 0: always shown; 1: `-o wide` only.
    pub(crate) priority: u8,
    pub(crate) description: Description,
}

/// What each row carries besides its cells (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IncludeObject {
    /// Nothing.
    None,
    /// `PartialObjectMetadata` (the default).
    Metadata,
    /// The whole object.
    Object,
}

/// A Table request's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TableOptions {
    /// The `meta.k8s.io` version the Accept header chose.
    pub(crate) version: MetaVersion,
    pub(crate) include: IncludeObject,
    /// Whether column definitions are sent (`noHeaders=true` turns them off; watches
    /// send them once).
    pub(crate) headers: bool,
}

impl TableOptions {
    /// The options of a Table in `version`, completed by the query parameters
    /// `includeObject` (`None`, `Metadata` by default, `Object`) and `noHeaders`.
    pub(crate) fn new(
        version: MetaVersion,
        include_object: Option<&str>,
        no_headers: Option<&str>,
    ) -> ApiResult<Self> {
        let include = match include_object.unwrap_or_default() {
            "" | "Metadata" => IncludeObject::Metadata,
            "None" => IncludeObject::None,
            "Object" => IncludeObject::Object,
            other => {
                return Err(ApiError::bad_request(format!(
                    "unrecognized includeObject value: {other:?}"
                )));
            }
        };
        Ok(Self {
            version,
            include,
            headers: !matches!(no_headers, Some("true" | "1")),
        })
    }

    /// The same options without column definitions (a watch's later events).
    pub(crate) fn without_headers(self) -> Self {
        Self {
            headers: false,
            ..self
        }
    }
}

fn definitions(rt: &ResourceType) -> Vec<Value> {
    let definition = |name: &str, ty: &str, format: &str, description: &str, priority: i64| json!({"name": name, "type": ty, "format": format, "description": description, "priority": priority});
    if rt.custom {
        let name = printers::describe(Description::Field(
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
            "name",
        ));
        let mut columns = vec![definition("Name", "string", "name", name, 0)];
        columns.extend(
            rt.printer_columns
                .iter()
                .map(|c| definition(&c.name, &c.ty, &c.format, &c.description, c.priority)),
        );
        return columns;
    }
    printers::builtin(&rt.group, &rt.kind)
        .0
        .iter()
        .map(|c| {
            definition(
                c.name,
                c.ty,
                c.format,
                printers::describe(c.description),
                i64::from(c.priority),
            )
        })
        .collect()
}

/// apiextensions' `cellForJSONValue`: a value as a cell of a column of type `ty`.
fn custom_cell(column: &PrinterColumn, object: &Value, now: i64) -> Value {
    let Some(value) = column.path.find(object).first().copied() else {
        return Value::Null;
    };
    match (column.ty.as_str(), value) {
        ("string", Value::String(text)) => json!(text),
        ("string", Value::Null) => Value::Null,
        ("string", other) => json!(other.to_string()),
        ("integer", Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .map_or(Value::Null, |i| json!(i)),
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        ("boolean", Value::Bool(b)) => json!(b),
        ("date", Value::String(text)) => match age::parse_rfc3339(text) {
            Some(then) => json!(age::human_duration(now - then)),
            None => json!("<invalid>"),
        },
        _ => Value::Null,
    }
}

fn cells(rt: &ResourceType, object: &Value, now: i64) -> Vec<Value> {
    if rt.custom {
        let name = object
            .pointer("/metadata/name")
            .cloned()
            .unwrap_or_else(|| json!(""));
        let mut cells = vec![name];
        cells.extend(
            rt.printer_columns
                .iter()
                .map(|c| custom_cell(c, object, now)),
        );
        return cells;
    }
    (printers::builtin(&rt.group, &rt.kind).1)(object, now)
}

fn row_object(rt: &ResourceType, object: &Value, options: TableOptions) -> Value {
    match options.include {
        IncludeObject::None => Value::Null,
        IncludeObject::Metadata => metav1::partial(object, options.version),
        IncludeObject::Object => {
            let mut full = object.clone();
            if let Some(map) = full.as_object_mut() {
                map.insert("apiVersion".to_owned(), json!(rt.api_version()));
                map.insert("kind".to_owned(), json!(rt.kind));
            }
            full
        }
    }
}

fn now() -> i64 {
    age::parse_rfc3339(&meta::now_rfc3339()).unwrap_or(0)
}

/// A Table of `objects` with the list (or object) metadata `metadata`.
pub(crate) fn render<'a>(
    rt: &ResourceType,
    objects: impl IntoIterator<Item = &'a Value>,
    metadata: Value,
    options: TableOptions,
) -> Value {
    let now = now();
    let rows: Vec<Value> = objects
        .into_iter()
        .map(|object| {
            json!({
                "cells": cells(rt, object, now),
                "object": row_object(rt, object, options),
            })
        })
        .collect();
    let mut table = Map::new();
    table.insert("kind".to_owned(), json!("Table"));
    table.insert(
        "apiVersion".to_owned(),
        json!(options.version.api_version()),
    );
    table.insert("metadata".to_owned(), metadata);
    let columns = if options.headers {
        definitions(rt)
    } else {
        Vec::new()
    };
    table.insert("columnDefinitions".to_owned(), Value::Array(columns));
    table.insert("rows".to_owned(), Value::Array(rows));
    Value::Object(table)
}

/// A Table of one object (GET, or one watch event).
pub(crate) fn object(rt: &ResourceType, object: &Value, options: TableOptions) -> Value {
    let rv = object
        .pointer("/metadata/resourceVersion")
        .cloned()
        .unwrap_or_else(|| json!(""));
    render(rt, [object], json!({"resourceVersion": rv}), options)
}

#[cfg(test)]
mod tests;
