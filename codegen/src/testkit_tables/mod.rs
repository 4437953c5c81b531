//! Facts of the Kubernetes API that the testkit API server needs about the built-in kinds
//! it serves, extracted from Kubernetes' OpenAPI v2 document (`swagger.json`) into a
//! committed, generated module: patch strategies and merge keys for strategic merge
//! patch, and the OpenAPI definitions of the served kinds (for `/openapi/v2`,
//! `/openapi/v3`, `kubectl explain` and the descriptions of Table columns).
//!
//! Self-contained: it reads the document with `serde_json` only and shares nothing with
//! the front-ends but [`GeneratedFile`] and the `DO NOT EDIT` header. The binary
//! `kubegen-testkit-tables` writes the module; `hack/update-codegen.sh` runs it.
//!
//! ```
//! use kubegen_codegen::__internal::testkit_tables;
//! use serde_json::json;
//!
//! let swagger = json!({"definitions": {
//!     "io.k8s.api.core.v1.ConfigMap": {
//!         "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
//!         "properties": {"metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}
//!     },
//!     "io.k8s.api.core.v1.ConfigMapList": {
//!         "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMapList"}]
//!     },
//!     "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
//!         "properties": {"finalizers": {"type": "array", "items": {"type": "string"},
//!                        "x-kubernetes-patch-strategy": "merge"}}
//!     }
//! }});
//! let kinds = [testkit_tables::ServedKind { group: "", version: "v1", kind: "ConfigMap" }];
//! let files = testkit_tables::generate(&swagger, &kinds, None)?;
//! let module = &files.iter().find(|f| f.path == "mod.rs").unwrap().contents;
//! assert!(module.contains("\"finalizers\""));
//! # Ok::<(), testkit_tables::Error>(())
//! ```

mod protobuf;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use crate::emit::{GeneratedFile, HEADER};

/// Why the tables could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The document has no `definitions` object (it is not an OpenAPI v2 document).
    #[error(
        "the OpenAPI document has no `definitions` object (an OpenAPI v2 swagger.json is needed)"
    )]
    NoDefinitions,
    /// A served kind has no definition carrying its `x-kubernetes-group-version-kind`.
    #[error("no definition in the OpenAPI document is the kind {0}")]
    MissingKind(String),
    /// A `$ref` names a definition the document does not have.
    #[error("definition {from} refers to {to}, which the OpenAPI document does not define")]
    DanglingRef {
        /// The definition holding the reference.
        from: String,
        /// The missing definition.
        to: String,
    },
    /// An `x-kubernetes-patch-strategy` value is not one Kubernetes defines.
    #[error("{definition}.{field}: unknown x-kubernetes-patch-strategy {value:?}")]
    BadStrategy {
        /// The definition.
        definition: String,
        /// The property.
        field: String,
        /// The value found.
        value: String,
    },
    /// The generated Rust did not parse (a bug in this module).
    #[error("generated Rust does not parse: {0}")]
    Syntax(String),
    /// The k8s-pb sources could not be read or understood.
    #[error("k8s-pb sources: {0}")]
    Protobuf(String),
    /// Serializing a definition failed.
    #[error("failed to serialize definition {name}: {reason}")]
    Json {
        /// The definition.
        name: String,
        /// Why.
        reason: String,
    },
}

/// A built-in kind the testkit serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedKind {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
}

const fn kind(group: &'static str, version: &'static str, kind: &'static str) -> ServedKind {
    ServedKind {
        group,
        version,
        kind,
    }
}

/// The built-in kinds the testkit serves (its `store/registry.rs` table; a testkit test checks
/// that the two agree). Their lists (`{Kind}List`) are included with them.
pub const SERVED: &[ServedKind] = &[
    kind("", "v1", "ConfigMap"),
    kind("", "v1", "Endpoints"),
    kind("", "v1", "Event"),
    kind("", "v1", "Namespace"),
    kind("", "v1", "Pod"),
    kind("", "v1", "Secret"),
    kind("", "v1", "Service"),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
    ),
    kind(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
    ),
    kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
    kind("apps", "v1", "Deployment"),
    kind("apps", "v1", "ReplicaSet"),
    kind("coordination.k8s.io", "v1", "Lease"),
    kind("discovery.k8s.io", "v1", "EndpointSlice"),
    kind("events.k8s.io", "v1", "Event"),
    kind("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    kind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    kind("rbac.authorization.k8s.io", "v1", "Role"),
    kind("rbac.authorization.k8s.io", "v1", "RoleBinding"),
];

/// A patch strategy as `x-kubernetes-patch-strategy` states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    Merge,
    Replace,
    RetainKeys,
    MergeRetainKeys,
}

impl Strategy {
    fn parse(value: &str) -> Option<Self> {
        let mut parts: Vec<&str> = value.split(',').map(str::trim).collect();
        parts.sort_unstable();
        match parts.as_slice() {
            ["merge"] => Some(Self::Merge),
            ["replace"] => Some(Self::Replace),
            ["retainKeys"] => Some(Self::RetainKeys),
            ["merge", "retainKeys"] => Some(Self::MergeRetainKeys),
            _ => None,
        }
    }

    fn tokens(self) -> TokenStream {
        match self {
            Self::Merge => quote!(Strategy::Merge),
            Self::Replace => quote!(Strategy::Replace),
            Self::RetainKeys => quote!(Strategy::RetainKeys),
            Self::MergeRetainKeys => quote!(Strategy::MergeRetainKeys),
        }
    }
}

/// One property as strategic merge patch sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    name: String,
    /// The definition of the value (of each item for arrays, each value for maps).
    ty: Option<String>,
    strategy: Option<Strategy>,
    merge_key: Option<String>,
}

fn ref_name(value: &Value) -> Option<&str> {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/definitions/"))
}

/// The definition a property's values are of: itself, its items or its map values.
fn value_type(property: &Value) -> Option<&str> {
    ref_name(property)
        .or_else(|| property.get("items").and_then(ref_name))
        .or_else(|| property.get("additionalProperties").and_then(ref_name))
        .or_else(|| {
            // `allOf: [{$ref}]` wraps a reference that carries its own description.
            property
                .get("allOf")
                .and_then(Value::as_array)
                .and_then(|all| all.iter().find_map(ref_name))
        })
}

/// Every `$ref` target inside a definition (property names such as JSONSchemaProps'
/// `$ref` property are not references: their values are objects).
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = target.strip_prefix("#/definitions/") {
                            out.push(name);
                        }
                    }
                    _ => refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

fn fields(definitions: &Map<String, Value>, name: &str) -> Result<Vec<Field>, Error> {
    let properties = definitions
        .get(name)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object);
    let mut fields = Vec::new();
    for (field, property) in properties.into_iter().flatten() {
        let strategy = match property
            .get("x-kubernetes-patch-strategy")
            .and_then(Value::as_str)
        {
            Some(value) => Some(Strategy::parse(value).ok_or_else(|| Error::BadStrategy {
                definition: name.to_owned(),
                field: field.clone(),
                value: value.to_owned(),
            })?),
            None => None,
        };
        fields.push(Field {
            name: field.clone(),
            ty: value_type(property).map(str::to_owned),
            strategy,
            merge_key: property
                .get("x-kubernetes-patch-merge-key")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }
    Ok(fields)
}

/// The served kinds with their definitions, and every definition they reach.
#[derive(Debug)]
struct Closure {
    roots: Vec<(ServedKind, String)>,
    names: BTreeSet<String>,
}

/// The served kinds' definitions and every definition they reach, by name.
fn closure(definitions: &Map<String, Value>, kinds: &[ServedKind]) -> Result<Closure, Error> {
    let mut by_gvk: BTreeMap<(String, String, String), &str> = BTreeMap::new();
    for (name, definition) in definitions {
        let gvks = definition
            .get("x-kubernetes-group-version-kind")
            .and_then(Value::as_array);
        for gvk in gvks.into_iter().flatten() {
            let part = |key: &str| gvk.get(key).and_then(Value::as_str).unwrap_or_default();
            by_gvk.insert(
                (
                    part("group").to_owned(),
                    part("version").to_owned(),
                    part("kind").to_owned(),
                ),
                name,
            );
        }
    }
    let find = |group: &str, version: &str, kind: &str| {
        by_gvk
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
            .map(|name| (*name).to_owned())
            .ok_or_else(|| {
                let api_version = if group.is_empty() {
                    version.to_owned()
                } else {
                    format!("{group}/{version}")
                };
                Error::MissingKind(format!("{api_version} {kind}"))
            })
    };
    let mut roots = Vec::new();
    let mut pending = Vec::new();
    for served in kinds {
        let root = find(served.group, served.version, served.kind)?;
        let list = find(
            served.group,
            served.version,
            &format!("{}List", served.kind),
        )?;
        pending.push(root.clone());
        pending.push(list);
        roots.push((*served, root));
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let definition = definitions.get(&name).ok_or_else(|| Error::DanglingRef {
            from: "(a served kind)".to_owned(),
            to: name.clone(),
        })?;
        let mut targets = Vec::new();
        refs(definition, &mut targets);
        for target in targets {
            if !definitions.contains_key(target) {
                return Err(Error::DanglingRef {
                    from: name.clone(),
                    to: target.to_owned(),
                });
            }
            if !seen.contains(target) {
                pending.push(target.to_owned());
            }
        }
    }
    Ok(Closure { roots, names: seen })
}

/// Keeps, per definition, only the fields strategic merge patch must know about: those
/// with a strategy or merge key, and those leading to a definition that has such fields.
fn relevant(all: &BTreeMap<String, Vec<Field>>) -> BTreeMap<String, Vec<Field>> {
    let mut keep: BTreeSet<&str> = all
        .iter()
        .filter(|(_, fields)| {
            fields
                .iter()
                .any(|f| f.strategy.is_some() || f.merge_key.is_some())
        })
        .map(|(name, _)| name.as_str())
        .collect();
    loop {
        let before = keep.len();
        for (name, fields) in all {
            if fields
                .iter()
                .any(|f| f.ty.as_deref().is_some_and(|t| keep.contains(t)))
            {
                keep.insert(name);
            }
        }
        if keep.len() == before {
            break;
        }
    }
    all.iter()
        .filter(|(name, _)| keep.contains(name.as_str()))
        .map(|(name, fields)| {
            let fields = fields
                .iter()
                .filter(|f| {
                    f.strategy.is_some()
                        || f.merge_key.is_some()
                        || f.ty.as_deref().is_some_and(|t| keep.contains(t))
                })
                .map(|f| Field {
                    ty: f.ty.clone().filter(|t| keep.contains(t.as_str())),
                    ..f.clone()
                })
                .collect();
            (name.clone(), fields)
        })
        .collect()
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

fn wire_tokens(wire: &protobuf::Wire) -> TokenStream {
    use protobuf::Wire;
    match wire {
        Wire::String => quote!(Wire::String),
        Wire::Bytes => quote!(Wire::Bytes),
        Wire::Bool => quote!(Wire::Bool),
        Wire::Int32 => quote!(Wire::Int32),
        Wire::Int64 => quote!(Wire::Int64),
        Wire::Double => quote!(Wire::Double),
        Wire::Message(name) => quote!(Wire::Message(#name)),
        Wire::StringMap => quote!(Wire::StringMap),
        Wire::BytesMap => quote!(Wire::BytesMap),
        Wire::MessageMap(name) => quote!(Wire::MessageMap(#name)),
    }
}

fn messages_tokens(messages: &BTreeMap<String, Vec<protobuf::ProtoField>>) -> TokenStream {
    let messages = messages.iter().map(|(name, fields)| {
        let fields = fields.iter().map(|f| {
            let (tag, json, repeated) = (f.tag, &f.json, f.repeated);
            let wire = wire_tokens(&f.wire);
            quote!(ProtoField { tag: #tag, json: #json, wire: #wire, repeated: #repeated })
        });
        quote!(Message { name: #name, fields: &[#(#fields),*] })
    });
    quote!(&[#(#messages),*])
}

fn module(
    roots: &[(ServedKind, String)],
    types: &BTreeMap<String, Vec<Field>>,
    messages: &BTreeMap<String, Vec<protobuf::ProtoField>>,
) -> TokenStream {
    let messages = messages_tokens(messages);
    let kinds = roots.iter().map(|(served, name)| {
        let (group, version, kind) = (served.group, served.version, served.kind);
        quote!((#group, #version, #kind, #name))
    });
    let types = types.iter().map(|(name, fields)| {
        let fields = fields.iter().map(|f| {
            let field = &f.name;
            let ty = option_str(f.ty.as_deref());
            let strategy = match f.strategy {
                Some(s) => {
                    let s = s.tokens();
                    quote!(Some(#s))
                }
                None => quote!(None),
            };
            let merge_key = option_str(f.merge_key.as_deref());
            quote!(Field { name: #field, ty: #ty, strategy: #strategy, merge_key: #merge_key })
        });
        quote!(TypeFields { name: #name, fields: &[#(#fields),*] })
    });
    quote! {
        use super::{Field, Message, ProtoField, Strategy, TypeFields, Wire};

        /// `(group, version, kind, definition)` of every served built-in kind.
        pub(crate) static KINDS: &[(&str, &str, &str, &str)] = &[#(#kinds),*];

        /// The definitions strategic merge patch must know, sorted by name: their fields
        /// with a patch strategy or merge key, and those leading to such definitions.
        pub(crate) static TYPES: &[TypeFields] = &[#(#types),*];

        /// The OpenAPI v2 definitions of the served kinds and of everything they refer to.
        pub(crate) const DEFINITIONS: &str = include_str!("definitions.json");

        /// The protobuf messages of those definitions (from k8s-pb), sorted by name, with
        /// each field's number, JSON name and encoding.
        pub(crate) static MESSAGES: &[Message] = #messages;
    }
}

/// One definition per line, sorted by name: diffs stay readable.
fn definitions_json(
    definitions: &Map<String, Value>,
    names: &BTreeSet<String>,
) -> Result<String, Error> {
    let mut lines = Vec::with_capacity(names.len());
    for name in names {
        let json = |value: &Value| {
            serde_json::to_string(value).map_err(|e| Error::Json {
                name: name.clone(),
                reason: e.to_string(),
            })
        };
        let key = json(&Value::String(name.clone()))?;
        let body = json(&definitions[name])?;
        lines.push(format!("{key}: {body}"));
    }
    Ok(format!("{{\n{}\n}}\n", lines.join(",\n")))
}

/// The part of an OpenAPI v2 document that [`generate`] reads for `kinds`: its `swagger`
/// version and the definitions of the kinds, of their lists and of everything they reach,
/// whole (they are copied into `definitions.json`). [`generate`] makes the same files of it
/// as of the whole document; `kubegen kubernetes-inputs` commits it.
pub fn pruned(swagger: &Value, kinds: &[ServedKind]) -> Result<Value, Error> {
    let definitions = swagger
        .get("definitions")
        .and_then(Value::as_object)
        .ok_or(Error::NoDefinitions)?;
    let Closure { names, .. } = closure(definitions, kinds)?;
    let kept: Map<String, Value> = names
        .iter()
        .filter_map(|name| Some((name.clone(), definitions.get(name)?.clone())))
        .collect();
    let mut out = Map::new();
    if let Some(version) = swagger.get("swagger") {
        out.insert("swagger".to_owned(), version.clone());
    }
    out.insert("definitions".to_owned(), Value::Object(kept));
    Ok(Value::Object(out))
}

/// Generates the testkit's built-in tables from an OpenAPI v2 document and the k8s-pb
/// crate's sources (its `src` directory; without it the protobuf table is empty):
/// `mod.rs` (served kinds, patch strategies, protobuf messages) and `definitions.json`.
pub fn generate(
    swagger: &Value,
    kinds: &[ServedKind],
    k8s_pb_src: Option<&Path>,
) -> Result<Vec<GeneratedFile>, Error> {
    let definitions = swagger
        .get("definitions")
        .and_then(Value::as_object)
        .ok_or(Error::NoDefinitions)?;
    let Closure { roots, names } = closure(definitions, kinds)?;
    let mut all = BTreeMap::new();
    for name in &names {
        all.insert(name.clone(), fields(definitions, name)?);
    }
    let types = relevant(&all);
    let messages = match k8s_pb_src {
        Some(src) => protobuf::messages(src, definitions, &names)?,
        None => BTreeMap::new(),
    };
    let tokens = module(&roots, &types, &messages);
    let parsed: syn::File = syn::parse2(tokens).map_err(|e| Error::Syntax(e.to_string()))?;
    let doc = "//! Facts about the built-in kinds the testkit serves, extracted from Kubernetes' \
OpenAPI v2 document\n//! by `kubegen-testkit-tables` (run by `hack/update-codegen.sh`).\n\n";
    Ok(vec![
        GeneratedFile {
            path: "mod.rs".to_owned(),
            contents: format!("{HEADER}{doc}{}", prettyplease::unparse(&parsed)),
        },
        GeneratedFile {
            path: "definitions.json".to_owned(),
            contents: definitions_json(definitions, &names)?,
        },
    ])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn swagger() -> Value {
        json!({"definitions": {
            "pod": {
                "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Pod"}],
                "properties": {
                    "metadata": {"$ref": "#/definitions/meta"},
                    "spec": {"$ref": "#/definitions/spec"},
                    "status": {"$ref": "#/definitions/status"}
                }
            },
            "podList": {
                "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "PodList"}],
                "properties": {"items": {"type": "array", "items": {"$ref": "#/definitions/pod"}}}
            },
            "meta": {"properties": {
                "name": {"type": "string"},
                "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"}
            }},
            "spec": {"properties": {
                "containers": {"type": "array", "items": {"$ref": "#/definitions/container"},
                               "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"},
                "volumes": {"type": "array", "items": {"$ref": "#/definitions/volume"},
                            "x-kubernetes-patch-strategy": "retainKeys,merge", "x-kubernetes-patch-merge-key": "name"},
                "nodeName": {"type": "string"}
            }},
            "container": {"properties": {
                "name": {"type": "string"},
                "env": {"type": "array", "items": {"$ref": "#/definitions/env"},
                        "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}
            }},
            "env": {"properties": {"name": {"type": "string"}}},
            "volume": {"properties": {"name": {"type": "string"}, "schema": {"$ref": {"type": "string"}}}},
            "status": {"properties": {"phase": {"type": "string"}}},
            "unused": {"properties": {"x": {"type": "array", "x-kubernetes-patch-strategy": "merge"}}}
        }})
    }

    const POD: &[ServedKind] = &[kind("", "v1", "Pod")];

    #[test]
    fn only_reachable_definitions_are_kept() {
        let swagger = swagger();
        let definitions = swagger["definitions"].as_object().unwrap();
        let Closure { roots, names } = closure(definitions, POD).unwrap();
        assert_eq!(roots, [(POD[0], "pod".to_owned())]);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "container",
                "env",
                "meta",
                "pod",
                "podList",
                "spec",
                "status",
                "volume"
            ],
            "a property named $ref (JSONSchemaProps) is not a reference"
        );
    }

    #[test]
    fn strategies_and_the_paths_to_them_are_kept() {
        let files = generate(&swagger(), POD, None).unwrap();
        let module = &files[0].contents;
        assert!(module.starts_with(HEADER));
        for expected in [
            r#"name: "containers""#,
            r#"merge_key: Some("name")"#,
            "Strategy::MergeRetainKeys",
            r#"name: "spec""#,
            r#"ty: Some("spec")"#,
            r#"name: "finalizers""#,
        ] {
            assert!(module.contains(expected), "{expected} missing in\n{module}");
        }
        for absent in [r#""nodeName""#, r#""status""#, r#""unused""#] {
            assert!(!module.contains(absent), "{absent} present in\n{module}");
        }
        let json: Value = serde_json::from_str(&files[1].contents).unwrap();
        assert_eq!(
            json.as_object().unwrap().len(),
            8,
            "the reachable definitions"
        );
        assert_eq!(json["spec"], swagger()["definitions"]["spec"]);
    }

    #[test]
    fn the_pruned_document_generates_the_same_tables() {
        let pruned = pruned(&swagger(), POD).unwrap();
        let names: Vec<&String> = pruned["definitions"].as_object().unwrap().keys().collect();
        assert_eq!(names.len(), 8, "the reachable definitions: {names:?}");
        assert!(pruned["definitions"].get("unused").is_none());
        assert_eq!(
            generate(&pruned, POD, None).unwrap(),
            generate(&swagger(), POD, None).unwrap()
        );
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(
            generate(&swagger(), POD, None).unwrap(),
            generate(&swagger(), POD, None).unwrap()
        );
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let missing = generate(&swagger(), &[kind("apps", "v1", "Deployment")], None).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "no definition in the OpenAPI document is the kind apps/v1 Deployment"
        );
        let mut bad = swagger();
        bad["definitions"]["meta"]["properties"]["finalizers"]["x-kubernetes-patch-strategy"] =
            json!("append");
        assert!(matches!(
            generate(&bad, POD, None),
            Err(Error::BadStrategy { .. })
        ));
        let mut dangling = swagger();
        dangling["definitions"]["status"]["properties"]["x"] =
            json!({"$ref": "#/definitions/gone"});
        assert!(matches!(
            generate(&dangling, POD, None),
            Err(Error::DanglingRef { .. })
        ));
        assert!(matches!(
            generate(&json!({}), POD, None),
            Err(Error::NoDefinitions)
        ));
    }
}
