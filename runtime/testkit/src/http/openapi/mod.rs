//! OpenAPI documents: `/openapi/v2` (one Swagger 2.0 document) and `/openapi/v3` (an
//! index of group versions, each served as an OpenAPI 3.0 document at
//! `/openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`), for the built-in kinds
//! served and every registered CRD: what `kubectl explain`, kubectl's field validation
//! check (`fieldValidation` on PATCH operations) and `kubectl apply`'s patch computation
//! (patch strategies in the schemas) read.
//!
//! Built-in schemas are the generated definitions ([`super::builtin::definitions`]);
//! custom resources get their CRD version's `openAPIV3Schema` with `apiVersion`, `kind`
//! and `metadata` filled in, named as a real server names them (`com.example.v1.Foo`).

mod paths;
mod schemas;

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value, json};

use crate::store::registry::{Registry, ResourceType};
use crate::store::status::ApiError;
use schemas::Form;

/// A path under `/openapi`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Document {
    /// `/openapi/v2`.
    V2,
    /// `/openapi/v3`: the index.
    V3Index,
    /// `/openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`.
    V3 { group: String, version: String },
}

impl Document {
    /// The document a path names, if it is an OpenAPI path.
    pub(crate) fn parse(segments: &[&str]) -> Option<Self> {
        match segments {
            ["openapi", "v2"] => Some(Self::V2),
            ["openapi", "v3"] => Some(Self::V3Index),
            ["openapi", "v3", "api", version] => Some(Self::V3 {
                group: String::new(),
                version: (*version).to_owned(),
            }),
            ["openapi", "v3", "apis", group, version] => Some(Self::V3 {
                group: (*group).to_owned(),
                version: (*version).to_owned(),
            }),
            _ => None,
        }
    }
}

/// Whether an Accept header lets the server answer with JSON (client-go asks for the
/// protobuf form of `/openapi/v2` first, and this server only speaks JSON).
pub(crate) fn accepts_json(accept: &str) -> bool {
    accept.is_empty()
        || accept.split(',').any(|media| {
            let ty = media.split(';').next().unwrap_or_default().trim();
            matches!(ty, "application/json" | "*/*" | "application/*")
        })
}

/// The answer to a request for an OpenAPI document.
pub(crate) fn document(registry: &Registry, document: &Document) -> Result<Value, ApiError> {
    match document {
        Document::V2 => Ok(v2(registry)),
        Document::V3Index => Ok(v3_index(registry)),
        Document::V3 { group, version } => {
            let types = registry.in_group_version(group, version);
            if types.is_empty() {
                return Err(ApiError::no_route());
            }
            Ok(v3(&types))
        }
    }
}

/// Every served group version, core first.
fn group_versions(registry: &Registry) -> Vec<(String, String)> {
    let mut all = vec![(String::new(), "v1".to_owned())];
    for (group, versions) in registry.groups() {
        all.extend(versions.into_iter().map(|v| (group.clone(), v)));
    }
    all
}

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// A stable hash of what a group version serves: it changes when a CRD changes, so
/// clients caching documents by `serverRelativeURL` refetch.
fn fingerprint(types: &[std::sync::Arc<ResourceType>]) -> String {
    let mut hasher = DefaultHasher::new();
    for rt in types {
        (&rt.group, &rt.version, &rt.plural, &rt.kind, rt.namespaced).hash(&mut hasher);
        rt.schema.as_ref().map(Value::to_string).hash(&mut hasher);
    }
    format!("{:016X}", hasher.finish())
}

fn v3_index(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for (group, version) in group_versions(registry) {
        let types = registry.in_group_version(&group, &version);
        let path = gv_path(&group, &version);
        let url = format!("/openapi/v3/{path}?hash={}", fingerprint(&types));
        paths.insert(path, json!({"serverRelativeURL": url}));
    }
    json!({"paths": paths})
}

fn info() -> Value {
    json!({"title": "Kubernetes", "version": "v1.34.0+kubegen-testkit"})
}

fn v3(types: &[std::sync::Arc<ResourceType>]) -> Value {
    let mut schemas = BTreeMap::new();
    let mut paths = Map::new();
    for rt in types {
        schemas.extend(schemas::for_type(rt, Form::V3));
        paths.extend(paths::v3(rt));
    }
    let schemas: Map<String, Value> = schemas.into_iter().collect();
    json!({
        "openapi": "3.0.0",
        "info": info(),
        "paths": paths,
        "components": {"schemas": schemas},
    })
}

fn v2(registry: &Registry) -> Value {
    let mut definitions = BTreeMap::new();
    let mut paths = Map::new();
    for (group, version) in group_versions(registry) {
        for rt in registry.in_group_version(&group, &version) {
            definitions.extend(schemas::for_type(&rt, Form::V2));
            paths.extend(paths::v2(&rt));
        }
    }
    let definitions: Map<String, Value> = definitions.into_iter().collect();
    json!({
        "swagger": "2.0",
        "info": info(),
        "paths": paths,
        "definitions": definitions,
    })
}

#[cfg(test)]
mod tests;
