//! The path items of one served type: the operations the server answers, with the
//! extensions clients read (`x-kubernetes-action`, `x-kubernetes-group-version-kind`) and
//! the query parameters each verb takes (kubectl checks for `fieldValidation` on PATCH
//! before it asks the server to validate).

use serde_json::{Map, Value, json};

use super::schemas;
use crate::store::registry::ResourceType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Returns {
    Kind,
    List,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    None,
    Object,
    Patch,
}

/// One operation of a path.
struct Operation {
    method: &'static str,
    action: &'static str,
    /// The verb opening the operationId (`read`, `replace`, `listNamespaced`...).
    id_verb: &'static str,
    params: &'static [&'static str],
    body: Body,
    returns: Returns,
    created: bool,
}

const LIST_PARAMS: &[&str] = &[
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
];
const WRITE_PARAMS: &[&str] = &["dryRun", "fieldManager", "fieldValidation"];
const PATCH_PARAMS: &[&str] = &["dryRun", "fieldManager", "fieldValidation", "force"];
const DELETE_PARAMS: &[&str] = &["dryRun", "gracePeriodSeconds", "propagationPolicy"];
const DELETE_COLLECTION_PARAMS: &[&str] = &[
    "dryRun",
    "fieldSelector",
    "labelSelector",
    "propagationPolicy",
];

const fn op(
    method: &'static str,
    action: &'static str,
    id_verb: &'static str,
    params: &'static [&'static str],
    body: Body,
    returns: Returns,
) -> Operation {
    Operation {
        method,
        action,
        id_verb,
        params,
        body,
        returns,
        created: false,
    }
}

const COLLECTION: &[Operation] = &[
    op(
        "get",
        "list",
        "list",
        LIST_PARAMS,
        Body::None,
        Returns::List,
    ),
    Operation {
        created: true,
        ..op(
            "post",
            "post",
            "create",
            WRITE_PARAMS,
            Body::Object,
            Returns::Kind,
        )
    },
    op(
        "delete",
        "deletecollection",
        "deleteCollection",
        DELETE_COLLECTION_PARAMS,
        Body::None,
        Returns::List,
    ),
];

const ITEM: &[Operation] = &[
    op("get", "get", "read", &[], Body::None, Returns::Kind),
    op(
        "put",
        "put",
        "replace",
        WRITE_PARAMS,
        Body::Object,
        Returns::Kind,
    ),
    op(
        "patch",
        "patch",
        "patch",
        PATCH_PARAMS,
        Body::Patch,
        Returns::Kind,
    ),
    op(
        "delete",
        "delete",
        "delete",
        DELETE_PARAMS,
        Body::None,
        Returns::Kind,
    ),
];

const ALL_NAMESPACES: &[Operation] = &[op(
    "get",
    "list",
    "list",
    LIST_PARAMS,
    Body::None,
    Returns::List,
)];

fn description(param: &str) -> &'static str {
    match param {
        "fieldValidation" => {
            "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict"
        }
        "fieldManager" => {
            "fieldManager is a name associated with the actor or entity that is making these changes."
        }
        "dryRun" => {
            "When present, indicates that modifications should not be persisted. Valid values are: - All"
        }
        "force" => "Force is going to \"force\" Apply requests.",
        _ => "",
    }
}

fn param_type(param: &str) -> &'static str {
    match param {
        "allowWatchBookmarks" | "force" | "sendInitialEvents" | "watch" => "boolean",
        "limit" | "timeoutSeconds" | "gracePeriodSeconds" => "integer",
        _ => "string",
    }
}

/// `Core`, `Apps`, `Coordination`, `ComExample`...: how operationIds name a group.
fn group_id(group: &str) -> String {
    let parts: Vec<&str> = match group.strip_suffix(".k8s.io") {
        _ if group.is_empty() => vec!["core"],
        Some(head) => head.split('.').take(1).collect(),
        None => group.split('.').rev().collect(),
    };
    parts.iter().map(|p| upper_first(p)).collect()
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn prefix(rt: &ResourceType) -> String {
    if rt.group.is_empty() {
        format!("/api/{}", rt.version)
    } else {
        format!("/apis/{}/{}", rt.group, rt.version)
    }
}

fn gvk(rt: &ResourceType) -> Value {
    json!({"group": rt.group, "version": rt.version, "kind": rt.kind})
}

fn patch_types(rt: &ResourceType) -> Vec<&'static str> {
    let mut types = vec![
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
    ];
    if !rt.custom {
        types.push("application/strategic-merge-patch+json");
    }
    types
}

fn operation_id(rt: &ResourceType, op: &Operation, namespaced: bool, all: bool) -> String {
    let scope = if namespaced { "Namespaced" } else { "" };
    let tail = if all { "ForAllNamespaces" } else { "" };
    format!(
        "{}{}{}{scope}{}{tail}",
        op.id_verb,
        group_id(&rt.group),
        upper_first(&rt.version),
        rt.kind
    )
}

/// The path items of `rt`, for the given document form.
fn path_items(rt: &ResourceType, v3: bool) -> Map<String, Value> {
    let refs = if v3 {
        "#/components/schemas/"
    } else {
        "#/definitions/"
    };
    let kind_ref = json!({"$ref": format!("{refs}{}", schemas::name(rt, false))});
    let list_ref = json!({"$ref": format!("{refs}{}", schemas::name(rt, true))});
    let path_param = |name: &str| {
        let mut param = json!({"name": name, "in": "path", "required": true, "uniqueItems": true});
        if v3 {
            param["schema"] = json!({"type": "string"});
        } else {
            param["type"] = json!("string");
        }
        param
    };
    let operation = |op: &Operation, all: bool| -> Value {
        let returns = match op.returns {
            Returns::Kind => kind_ref.clone(),
            Returns::List => list_ref.clone(),
        };
        let mut parameters: Vec<Value> = op
            .params
            .iter()
            .map(|name| {
                let mut param = json!({"name": name, "in": "query", "uniqueItems": true, "description": description(name)});
                if v3 {
                    param["schema"] = json!({"type": param_type(name)});
                } else {
                    param["type"] = json!(param_type(name));
                }
                param
            })
            .collect();
        let code = if op.created { "201" } else { "200" };
        let mut operation = json!({
            "operationId": operation_id(rt, op, rt.namespaced && !all, all),
            "x-kubernetes-action": op.action,
            "x-kubernetes-group-version-kind": gvk(rt),
        });
        if v3 {
            operation["responses"] = json!({code: {"description": "OK", "content": {"application/json": {"schema": returns}}}});
            match op.body {
                Body::None => {}
                Body::Object => {
                    operation["requestBody"] =
                        json!({"required": true, "content": {"*/*": {"schema": kind_ref.clone()}}});
                }
                Body::Patch => {
                    let content: Map<String, Value> = patch_types(rt)
                        .into_iter()
                        .map(|ty| (ty.to_owned(), json!({"schema": {"type": "object"}})))
                        .collect();
                    operation["requestBody"] = json!({"required": true, "content": content});
                }
            }
        } else {
            operation["responses"] = json!({code: {"description": "OK", "schema": returns}});
            operation["produces"] = json!(["application/json", "application/yaml"]);
            match op.body {
                Body::None => {}
                Body::Object => {
                    parameters.insert(0, json!({"name": "body", "in": "body", "required": true, "schema": kind_ref.clone()}));
                    operation["consumes"] = json!(["*/*"]);
                }
                Body::Patch => {
                    parameters.insert(0, json!({"name": "body", "in": "body", "required": true, "schema": {"type": "object"}}));
                    operation["consumes"] = json!(patch_types(rt));
                }
            }
        }
        operation["parameters"] = Value::Array(parameters);
        operation
    };
    let item = |ops: &[Operation], params: Vec<Value>, all: bool| -> Value {
        let mut item = Map::new();
        for op in ops {
            item.insert(op.method.to_owned(), operation(op, all));
        }
        item.insert("parameters".to_owned(), Value::Array(params));
        Value::Object(item)
    };
    let prefix = prefix(rt);
    let mut paths = Map::new();
    if rt.namespaced {
        let collection = format!("{prefix}/namespaces/{{namespace}}/{}", rt.plural);
        paths.insert(
            collection.clone(),
            item(COLLECTION, vec![path_param("namespace")], false),
        );
        paths.insert(
            format!("{collection}/{{name}}"),
            item(
                ITEM,
                vec![path_param("name"), path_param("namespace")],
                false,
            ),
        );
        paths.insert(
            format!("{prefix}/{}", rt.plural),
            item(ALL_NAMESPACES, Vec::new(), true),
        );
    } else {
        let collection = format!("{prefix}/{}", rt.plural);
        paths.insert(collection.clone(), item(COLLECTION, Vec::new(), false));
        paths.insert(
            format!("{collection}/{{name}}"),
            item(ITEM, vec![path_param("name")], false),
        );
    }
    paths
}

/// The OpenAPI v3 path items of `rt`.
pub(super) fn v3(rt: &ResourceType) -> Map<String, Value> {
    path_items(rt, true)
}

/// The Swagger 2.0 path items of `rt`.
pub(super) fn v2(rt: &ResourceType) -> Map<String, Value> {
    path_items(rt, false)
}
