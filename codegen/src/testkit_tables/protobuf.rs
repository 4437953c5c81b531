//! Protobuf field numbers of the served kinds' messages, read from the `k8s-pb` crate's
//! sources (prost structs transcribed from Kubernetes' `generated.proto` files) and
//! matched with the OpenAPI definitions' JSON property names, so the testkit can decode
//! `application/vnd.kubernetes.protobuf` bodies into the JSON objects it stores.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use syn::{Attribute, Fields, GenericArgument, Item, PathArguments, Type};

use super::Error;

/// How one protobuf field is encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Wire {
    String,
    Bytes,
    Bool,
    Int32,
    Int64,
    Double,
    /// A message of this definition.
    Message(String),
    /// `map<string, string>`.
    StringMap,
    /// `map<string, bytes>`.
    BytesMap,
    /// `map<string, Message>`.
    MessageMap(String),
}

/// One field of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProtoField {
    pub(super) tag: u32,
    /// The JSON name (the OpenAPI property name; lowerCamelCase of the prost field for
    /// messages the OpenAPI document states as scalars, such as `Time`; empty for a
    /// Go-embedded struct, whose fields are inlined into the parent's JSON).
    pub(super) json: String,
    pub(super) wire: Wire,
    pub(super) repeated: bool,
}

/// A parsed prost field before name matching.
struct RawField {
    ident: String,
    tag: u32,
    wire: Wire,
    repeated: bool,
}

/// One prost message struct: its definition name and fields.
struct RawMessage {
    definition: String,
    fields: Vec<RawField>,
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Protobuf(format!("{}: {e}", path.display()))
}

/// The OpenAPI namespace of a k8s-pb module path (`api::core::v1` -> `io.k8s.api.core.v1`).
fn namespace(module: &[String]) -> String {
    let parts: Vec<String> = module.iter().map(|m| m.replace('_', "-")).collect();
    format!("io.k8s.{}", parts.join("."))
}

fn normalize(name: &str) -> String {
    name.trim_start_matches("r#")
        .replace('_', "")
        .to_ascii_lowercase()
}

fn lower_camel(ident: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in ident.trim_start_matches("r#").chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The innermost named type of `Option<Box<T>>`, `Vec<T>`, `BTreeMap<K, V>` (its value)...
fn inner(ty: &Type) -> Option<&syn::Path> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let wrapper = matches!(
        last.ident.to_string().as_str(),
        "Option" | "Vec" | "Box" | "BTreeMap"
    );
    if !wrapper {
        return Some(&path.path);
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let ty = args.args.iter().rev().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })?;
    inner(ty)
}

/// The module path and name a type path refers to from `module`.
fn resolve(module: &[String], path: &syn::Path) -> (Vec<String>, String) {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let mut base: Vec<String> = module.to_vec();
    let mut rest = segments.as_slice();
    while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
        base.pop();
        rest = tail;
    }
    let (name, modules) = rest
        .split_last()
        .map_or((String::new(), &[][..]), |(n, m)| (n.clone(), m));
    base.extend(modules.iter().cloned());
    (base, name)
}

/// `prost(...)` attribute contents: kind, repeated, tag.
fn prost_attribute(attrs: &[Attribute]) -> Option<(String, bool, u32)> {
    let attr = attrs.iter().find(|a| a.path().is_ident("prost"))?;
    let tokens = attr.meta.require_list().ok()?.tokens.to_string();
    let mut kind = String::new();
    let mut repeated = false;
    let mut tag = None;
    for part in tokens.split(',').map(str::trim) {
        if let Some(value) = part.strip_prefix("tag = ") {
            tag = value.trim_matches('"').parse().ok();
        } else if part == "repeated" {
            repeated = true;
        } else if kind.is_empty() {
            kind = part.to_owned();
        } else if kind.starts_with("btree_map") {
            // `btree_map = "string, message"` was split at its comma.
            kind.push(',');
            kind.push_str(part);
        }
    }
    Some((kind, repeated, tag?))
}

fn parse_file(
    module: &[String],
    text: &str,
    path: &Path,
    by_type: &BTreeMap<(String, String), String>,
) -> Result<Vec<RawMessage>, Error> {
    let file = syn::parse_file(text).map_err(|e| io_error(path, e))?;
    let mut messages = Vec::new();
    for item in file.items {
        let Item::Struct(item) = item else { continue };
        let Fields::Named(named) = &item.fields else {
            continue;
        };
        let key = (namespace(module), normalize(&item.ident.to_string()));
        let Some(definition) = by_type.get(&key) else {
            continue;
        };
        let mut fields = Vec::new();
        for field in &named.named {
            let Some((kind, repeated, tag)) = prost_attribute(&field.attrs) else {
                continue;
            };
            let ident = field
                .ident
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            let target = || {
                inner(&field.ty).map(|p| {
                    let (module, name) = resolve(module, p);
                    let key = (namespace(&module), normalize(&name));
                    by_type
                        .get(&key)
                        .cloned()
                        .unwrap_or(format!("{}.{name}", key.0))
                })
            };
            let compact = kind.replace(' ', "");
            let wire = match compact.as_str() {
                "string" => Wire::String,
                "bool" => Wire::Bool,
                "int32" => Wire::Int32,
                "int64" => Wire::Int64,
                "double" => Wire::Double,
                k if k.starts_with("bytes") => Wire::Bytes,
                "message" => Wire::Message(target().unwrap_or_default()),
                r#"btree_map="string,string""# => Wire::StringMap,
                r#"btree_map="string,bytes""# => Wire::BytesMap,
                r#"btree_map="string,message""# => Wire::MessageMap(target().unwrap_or_default()),
                other => {
                    return Err(Error::Protobuf(format!(
                        "{}: {}.{ident}: unsupported prost field kind {other}",
                        path.display(),
                        item.ident
                    )));
                }
            };
            fields.push(RawField {
                ident,
                tag,
                wire,
                repeated,
            });
        }
        messages.push(RawMessage {
            definition: definition.clone(),
            fields,
        });
    }
    Ok(messages)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| io_error(dir, e))?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The messages of every type in `by_type` found in the k8s-pb sources under `src`.
fn parse_sources(
    src: &Path,
    by_type: &BTreeMap<(String, String), String>,
) -> Result<BTreeMap<String, Vec<RawField>>, Error> {
    let mut files = Vec::new();
    rust_files(src, &mut files)?;
    files.sort();
    let mut found = BTreeMap::new();
    for path in files {
        let relative = path.strip_prefix(src).map_err(|e| io_error(&path, e))?;
        let mut module: Vec<String> = relative
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if module
            .last()
            .is_some_and(|f| f == "mod.rs" || f == "lib.rs")
        {
            module.pop();
        } else if let Some(file) = module.last_mut() {
            *file = file.trim_end_matches(".rs").to_owned();
        }
        let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
        for message in parse_file(&module, &text, &path, by_type)? {
            found.insert(message.definition.clone(), message.fields);
        }
    }
    Ok(found)
}

/// Reads the messages of `names` (definition names) from the k8s-pb sources under
/// `src` and names their fields as the definitions' JSON properties. Definitions k8s-pb
/// does not have (newer than it) are left out: the decoder skips fields of their types.
pub(super) fn messages(
    src: &Path,
    definitions: &Map<String, Value>,
    names: &BTreeSet<String>,
) -> Result<BTreeMap<String, Vec<ProtoField>>, Error> {
    // (namespace, normalized type name) -> definition name.
    let by_type: BTreeMap<(String, String), String> = names
        .iter()
        .filter_map(|name| {
            let (namespace, ty) = name.rsplit_once('.')?;
            Some(((namespace.to_owned(), normalize(ty)), name.clone()))
        })
        .collect();
    let mut found = parse_sources(src, &by_type)?;
    // Go structs embedded in their parent (`Probe` embeds `ProbeHandler`, `Volume` embeds
    // `VolumeSource`) are a field in protobuf and inlined in JSON: they have no OpenAPI
    // definition, and their fields are the parent's properties.
    let property_of = |definition: &str, ident: &str| {
        definitions
            .get(definition)
            .and_then(|d| d.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| p.keys().any(|k| normalize(k) == normalize(ident)))
    };
    let embedded: BTreeMap<String, String> = found
        .iter()
        .flat_map(|(parent, fields)| {
            fields.iter().filter_map(move |field| match &field.wire {
                Wire::Message(target)
                    if !names.contains(target) && !property_of(parent, &field.ident) =>
                {
                    Some((target.clone(), parent.clone()))
                }
                _ => None,
            })
        })
        .collect();
    if !embedded.is_empty() {
        let mut with_embedded = by_type.clone();
        for name in embedded.keys() {
            if let Some((namespace, ty)) = name.rsplit_once('.') {
                with_embedded.insert((namespace.to_owned(), normalize(ty)), name.clone());
            }
        }
        found = parse_sources(src, &with_embedded)?;
    }
    let mut out = BTreeMap::new();
    for (definition, fields) in found {
        let properties = definitions
            .get(embedded.get(&definition).unwrap_or(&definition))
            .and_then(|d| d.get("properties"))
            .and_then(Value::as_object);
        let mut named = Vec::new();
        for field in fields {
            let json = match properties {
                Some(properties) => {
                    let matches: Vec<&String> = properties
                        .keys()
                        .filter(|p| normalize(p) == normalize(&field.ident))
                        .collect();
                    match matches.as_slice() {
                        [one] => (*one).clone(),
                        // An embedded struct: its fields are inlined (the empty name).
                        [] if matches!(&field.wire, Wire::Message(t) if embedded.contains_key(t)) => {
                            String::new()
                        }
                        // A field the OpenAPI document does not have (removed or
                        // renamed upstream): it is skipped when decoding.
                        [] => continue,
                        _ => {
                            return Err(Error::Protobuf(format!(
                                "{definition}.{}: ambiguous JSON name",
                                field.ident
                            )));
                        }
                    }
                }
                None => lower_camel(&field.ident),
            };
            named.push(ProtoField {
                tag: field.tag,
                json,
                wire: field.wire,
                repeated: field.repeated,
            });
        }
        named.sort_by_key(|f| f.tag);
        out.insert(definition, named);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    const SOURCE: &str = r#"
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct ConfigMap {
            #[prost(message, optional, tag = "1")]
            pub metadata: ::core::option::Option<super::super::super::apimachinery::pkg::apis::meta::v1::ObjectMeta>,
            #[prost(btree_map = "string, string", tag = "2")]
            pub data: ::prost::alloc::collections::BTreeMap<::prost::alloc::string::String, ::prost::alloc::string::String>,
            #[prost(btree_map = "string, bytes", tag = "3")]
            pub binary_data: ::prost::alloc::collections::BTreeMap<::prost::alloc::string::String, ::prost::alloc::vec::Vec<u8>>,
            #[prost(bool, optional, tag = "4")]
            pub immutable: ::core::option::Option<bool>,
        }
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct PodIp {
            #[prost(string, optional, tag = "1")]
            pub ip: ::core::option::Option<::prost::alloc::string::String>,
        }
    "#;

    #[test]
    fn prost_structs_become_tagged_json_fields() {
        let definitions = json!({
            "io.k8s.api.core.v1.ConfigMap": {"properties": {"metadata": {}, "data": {}, "binaryData": {}, "immutable": {}}},
            "io.k8s.api.core.v1.PodIP": {"properties": {"ip": {}}},
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"properties": {"name": {}}}
        });
        let names: BTreeSet<String> = ["io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.PodIP"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let by_type: BTreeMap<(String, String), String> = names
            .iter()
            .chain(std::iter::once(
                &"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".to_owned(),
            ))
            .map(|n| {
                let (ns, ty) = n.rsplit_once('.').unwrap();
                ((ns.to_owned(), normalize(ty)), n.clone())
            })
            .collect();
        let module: Vec<String> = ["api", "core", "v1"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let parsed = parse_file(&module, SOURCE, Path::new("mod.rs"), &by_type).unwrap();
        assert_eq!(parsed.len(), 2, "PodIp is PodIP");
        let fields = &parsed[0].fields;
        assert_eq!(
            fields[0].wire,
            Wire::Message("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".to_owned())
        );
        assert_eq!((fields[1].tag, &fields[1].wire), (2, &Wire::StringMap));
        assert_eq!(fields[2].wire, Wire::BytesMap);
        assert_eq!(fields[3].wire, Wire::Bool);
        assert_eq!(lower_camel("int_val"), "intVal");
        assert_eq!(lower_camel("r#type"), "type");
        let _ = definitions;
    }
}
