//! CustomResourceDefinitions: turning a CRD into served resource types (at once, with
//! the status a real server's controllers would set) and removing them again.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::store::jsonpath::JsonPath;
use crate::store::meta;
use crate::store::registry::{
    Conversion, Generation, PrinterColumn, ResourceType, ScalePaths, SelectorSource, StorageKey,
};
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::storage::Cluster;
use crate::verbs::conversion;

const GROUP: &str = "apiextensions.k8s.io";

/// Whether `rt` is the CustomResourceDefinition type itself.
pub(crate) fn is_crd(rt: &ResourceType) -> bool {
    rt.group == GROUP && rt.plural == "customresourcedefinitions"
}

fn string_at<'a>(value: &'a Value, path: &str) -> Option<&'a str> {
    meta::get_path(value, path)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn strings_at(value: &Value, path: &str) -> Vec<String> {
    meta::get_path(value, path)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn condition(kind: &str, reason: &str, message: &str, old: Option<&Value>) -> Value {
    let previous = old
        .and_then(|o| o.pointer("/status/conditions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| {
            c.get("type").and_then(Value::as_str) == Some(kind)
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
        .and_then(|c| c.get("lastTransitionTime").cloned());
    json!({
        "type": kind,
        "status": "True",
        "reason": reason,
        "message": message,
        "lastTransitionTime": previous.unwrap_or_else(|| json!(meta::now_rfc3339())),
    })
}

/// The resource types a CRD serves (possibly none, when no version is served).
#[derive(Debug, Clone)]
pub(crate) struct Served {
    group: String,
    plural: String,
    types: Vec<ResourceType>,
}

/// Validates a CRD, fills its status (NamesAccepted, Established, acceptedNames,
/// storedVersions) and returns the resource types of its served versions.
pub(crate) fn prepare(crd: &mut Value, old: Option<&Value>) -> ApiResult<Served> {
    let name = meta::meta_str(crd, "name").unwrap_or_default().to_owned();
    let mut causes = Vec::new();
    let group = string_at(crd, "spec.group").unwrap_or_default().to_owned();
    let plural = string_at(crd, "spec.names.plural")
        .unwrap_or_default()
        .to_owned();
    let kind = string_at(crd, "spec.names.kind")
        .unwrap_or_default()
        .to_owned();
    for (field, value) in [
        ("spec.group", &group),
        ("spec.names.plural", &plural),
        ("spec.names.kind", &kind),
    ] {
        if value.is_empty() {
            causes.push(Cause::required(field));
        }
    }
    if !group.is_empty() && !plural.is_empty() && name != format!("{plural}.{group}") {
        causes.push(Cause::invalid(
            "metadata.name",
            &json!(name),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    let scope = string_at(crd, "spec.scope").unwrap_or_default().to_owned();
    if !matches!(scope.as_str(), "Namespaced" | "Cluster") {
        causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.scope",
            format!("Unsupported value: {scope:?}: supported values: \"Cluster\", \"Namespaced\""),
        ));
    }
    let versions: Vec<Value> = meta::get_path(crd, "spec.versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if versions.is_empty() {
        causes.push(Cause::required("spec.versions"));
    }
    let storage: Vec<&str> = versions
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    if !versions.is_empty() && storage.len() != 1 {
        causes.push(Cause::invalid(
            "spec.versions",
            &json!(storage),
            "must have exactly one version marked as storage version",
        ));
    }
    for (i, version) in versions.iter().enumerate() {
        if let Err(errors) = printer_columns(version, i) {
            causes.extend(errors);
        }
        if string_at(version, "name").is_none() {
            causes.push(Cause::required(format!("spec.versions[{i}].name")));
        }
        if meta::get_path(version, "schema.openAPIV3Schema").is_none_or(|s| !s.is_object()) {
            causes.push(Cause::new(
                "FieldValueRequired",
                format!("spec.versions[{i}].schema.openAPIV3Schema"),
                "Required value: schemas are required",
            ));
        }
    }
    let served_names: Vec<&str> = versions
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    let conversion = match conversion::strategy(crd, storage.first().copied(), &served_names) {
        Ok(conversion) => conversion,
        Err(errors) => {
            causes.extend(errors);
            Conversion::None
        }
    };
    if !causes.is_empty() {
        return Err(ApiError::invalid(
            GROUP,
            "CustomResourceDefinition",
            &name,
            causes,
        ));
    }

    let singular = string_at(crd, "spec.names.singular")
        .map(str::to_owned)
        .unwrap_or_else(|| kind.to_lowercase());
    let list_kind = string_at(crd, "spec.names.listKind")
        .map(str::to_owned)
        .unwrap_or_else(|| format!("{kind}List"));
    let short_names = strings_at(crd, "spec.names.shortNames");
    let categories = strings_at(crd, "spec.names.categories");
    let mut accepted =
        json!({"plural": plural, "singular": singular, "kind": kind, "listKind": list_kind});
    if !short_names.is_empty() {
        accepted["shortNames"] = json!(short_names);
    }
    if !categories.is_empty() {
        accepted["categories"] = json!(categories);
    }
    let mut stored_versions: Vec<String> = old
        .map(|o| strings_at(o, "status.storedVersions"))
        .unwrap_or_default();
    for version in &storage {
        if !stored_versions.iter().any(|v| v == version) {
            stored_versions.push((*version).to_owned());
        }
    }
    crd["status"] = json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found", old),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted", old),
        ],
        "acceptedNames": accepted,
        "storedVersions": stored_versions,
    });

    let served = versions
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true));
    let types = served
        .map(|version| {
            let scale = meta::get_path(version, "subresources.scale")
                .filter(|s| s.is_object())
                .map(|s| ScalePaths {
                    spec_replicas: string_at(s, "specReplicasPath")
                        .unwrap_or(".spec.replicas")
                        .trim_start_matches('.')
                        .to_owned(),
                    status_replicas: string_at(s, "statusReplicasPath")
                        .unwrap_or(".status.replicas")
                        .trim_start_matches('.')
                        .to_owned(),
                    selector: string_at(s, "labelSelectorPath")
                        .map(|p| SelectorSource::StringAt(p.trim_start_matches('.').to_owned())),
                });
            ResourceType {
                group: group.clone(),
                version: string_at(version, "name").unwrap_or_default().to_owned(),
                kind: kind.clone(),
                list_kind: list_kind.clone(),
                plural: plural.clone(),
                singular: singular.clone(),
                namespaced: scope == "Namespaced",
                short_names: short_names.clone(),
                categories: categories.clone(),
                status: meta::get_path(version, "subresources.status")
                    .is_some_and(Value::is_object),
                scale,
                selectable_fields: meta::get_path(version, "selectableFields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f.get("jsonPath").and_then(Value::as_str))
                    .map(|p| p.trim_start_matches('.').to_owned())
                    .collect(),
                schema: meta::get_path(version, "schema.openAPIV3Schema").cloned(),
                custom: true,
                generation: Generation::AllButMetadata,
                printer_columns: printer_columns(version, 0).unwrap_or_default(),
                conversion: conversion.clone(),
            }
        })
        .collect();
    Ok(Served {
        group,
        plural,
        types,
    })
}

/// A version's `additionalPrinterColumns`; without any, the one `Age` column a real
/// server shows. Errors name `spec.versions[i].additionalPrinterColumns[j]` fields.
fn printer_columns(version: &Value, i: usize) -> Result<Vec<PrinterColumn>, Vec<Cause>> {
    let Some(columns) = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
    else {
        return Ok(vec![PrinterColumn {
            name: "Age".to_owned(),
            ty: "date".to_owned(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            path: JsonPath::parse(".metadata.creationTimestamp").map_err(|_| Vec::new())?,
        }]);
    };
    let mut parsed = Vec::new();
    let mut causes = Vec::new();
    for (j, column) in columns.iter().enumerate() {
        let field = |name: &str| format!("spec.versions[{i}].additionalPrinterColumns[{j}].{name}");
        let name = string_at(column, "name").unwrap_or_default();
        if name.is_empty() {
            causes.push(Cause::required(field("name")));
        }
        let ty = string_at(column, "type").unwrap_or_default();
        if !matches!(ty, "integer" | "number" | "string" | "boolean" | "date") {
            causes.push(Cause::new(
                "FieldValueNotSupported",
                field("type"),
                format!("Unsupported value: {ty:?}: supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""),
            ));
        }
        let raw_path = string_at(column, "jsonPath").unwrap_or_default();
        match JsonPath::parse(raw_path) {
            Ok(path) if !raw_path.is_empty() => parsed.push(PrinterColumn {
                name: name.to_owned(),
                ty: ty.to_owned(),
                format: string_at(column, "format").unwrap_or_default().to_owned(),
                description: string_at(column, "description")
                    .unwrap_or_default()
                    .to_owned(),
                priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
                path,
            }),
            Ok(_) => causes.push(Cause::required(field("jsonPath"))),
            Err(e) => causes.push(Cause::invalid(
                field("jsonPath"),
                &json!(raw_path),
                e.to_string(),
            )),
        }
    }
    if causes.is_empty() {
        Ok(parsed)
    } else {
        Err(causes)
    }
}

/// Serves the given types (replacing every version a previous CRD write registered).
pub(crate) fn register(cluster: &mut Cluster, served: Served) {
    if cluster.dry_run() {
        return;
    }
    cluster
        .registry
        .remove_custom(&served.group, &served.plural);
    for rt in served.types {
        cluster.registry.insert(rt);
    }
}

/// Stops serving a deleted CRD's resources and deletes their objects (watchers see
/// DELETED events, then their streams end).
pub(crate) fn unregister(cluster: &mut Cluster, crd: &Arc<Value>) {
    if cluster.dry_run() {
        return;
    }
    let group = string_at(crd, "spec.group").unwrap_or_default().to_owned();
    let plural = string_at(crd, "spec.names.plural")
        .unwrap_or_default()
        .to_owned();
    let storage = StorageKey {
        group: group.clone(),
        plural: plural.clone(),
    };
    let objects: Vec<Arc<Value>> = cluster.current(&storage).values().cloned().collect();
    for object in objects {
        let last = (*object).clone();
        cluster.delete(&storage, last, object);
    }
    cluster.registry.remove_custom(&group, &plural);
    cluster.drop_store(&storage);
}
