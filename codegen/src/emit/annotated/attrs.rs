//! The attributes that carry schema facts, as the Rust front-end reads them and schemars
//! applies them:
//!
//! | schema fact                                  | written as                                       |
//! |----------------------------------------------|--------------------------------------------------|
//! | description                                  | `///` doc comment, verbatim                       |
//! | property name                                | `#[serde(rename_all = "camelCase")]` or `rename`  |
//! | optional property                            | `Option<T>` with `#[serde(default, skip_serializing_if = "Option::is_none")]` |
//! | required and `nullable`                      | `Option<T>`, `#[schemars(required, extend("nullable" = true))]` |
//! | `minLength`/`maxLength`, `minItems`/`maxItems` | `#[schemars(length(min = .., max = ..))]`     |
//! | integer `minimum`/`maximum` (within `i32`)   | `#[schemars(range(min = .., max = ..))]`          |
//! | `pattern`                                    | `#[schemars(regex(pattern = ".."))]`              |
//! | `default`, every other validation, `x-kubernetes-*` | `#[schemars(extend("key" = json))]`        |
//! | validations of a root field (`spec`)         | `extend` on the field's struct                    |
//! | unknown fields beside properties             | `#[serde(flatten)] BTreeMap<String, V>`           |
//! | k8s-openapi types of the well-known table    | the type itself (`crd()` and the front-end agree on its schema) |
//! | types the front-end cannot read from source  | `#[schemars(schema_with = "f")]`, `f` returning a `json_schema!` literal |

use proc_macro2::{Delimiter, Group, Literal, Punct, Spacing, TokenStream, TokenTree};
use quote::quote;
use serde_json::{Map, Value};

use crate::emit::schema::{self, validation};
use crate::model::{
    Field, Group as ApiGroup, Kind, Scope, TypeDefKind, TypeRef, Validation, Version,
};
use crate::wellknown::Table;

/// `#[doc]` attributes holding `text` exactly, one per line (the front-end strips one
/// leading space per line and trims the whole).
pub(super) fn docs(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return TokenStream::new();
    };
    let lines = text.split('\n').map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote! { #[doc = #line] }
    });
    quote! { #(#lines)* }
}

/// Whether the Rust front-end reads the schema of `ty` from source (otherwise the field
/// needs `schema_with`).
pub fn is_native(version: &Version, ty: &TypeRef) -> bool {
    match ty {
        TypeRef::String | TypeRef::Bool | TypeRef::I32 | TypeRef::I64 | TypeRef::Json => true,
        TypeRef::Vec(inner) | TypeRef::Map(inner) | TypeRef::Option(inner) => {
            is_native(version, inner)
        }
        TypeRef::Named(name) => version
            .type_named(name)
            .is_some_and(|def| !matches!(def.kind, TypeDefKind::Union(_))),
        // The Rust front-end reads the well-known types' schemas from the table `crd()`'s
        // were computed into.
        TypeRef::External(external) => Table::committed().schema(&external.path).is_some(),
        TypeRef::F64
        | TypeRef::Bytes
        | TypeRef::DateTime
        | TypeRef::Quantity
        | TypeRef::IntOrString
        | TypeRef::Boxed(_) => false,
    }
}

/// How one field of a nested struct is written.
pub(super) struct FieldPlan<'f> {
    field: &'f Field,
    /// The Rust type is `Option<T>`.
    pub(super) optional: bool,
    /// The field's type schema (with `nullable`), when the front-end cannot read it.
    pub(super) written: Option<Value>,
}

impl<'f> FieldPlan<'f> {
    /// The plan of `field`, a field of one of `version`'s structs.
    pub(super) fn new(version: &Version, field: &'f Field) -> Result<Self, String> {
        let optional = !field.required || field.nullable;
        // `Option<Value>` has no `nullable` (any JSON allows null already).
        let native =
            is_native(version, &field.ty) && !(field.ty == TypeRef::Json && field.nullable);
        let written = if native {
            None
        } else {
            let mut written = schema::type_schema(&version.types, &field.ty)
                .map_err(|reason| format!("field `{}`: {reason}", field.wire_name))?;
            if field.nullable
                && let Value::Object(map) = &mut written
            {
                schema::make_nullable(map);
            }
            Some(written)
        };
        Ok(Self {
            field,
            optional,
            written,
        })
    }

    /// The serde and schemars attributes; `function` names the `schema_with` function.
    pub(super) fn attrs(&self, function: Option<&str>) -> TokenStream {
        let field = self.field;
        let serde = (self.optional && !field.required)
            .then(|| quote! { #[serde(default, skip_serializing_if = "Option::is_none")] });
        let required = (self.optional && field.required).then(|| quote! { #[schemars(required)] });
        let schema_with = function.map(|f| quote! { #[schemars(schema_with = #f)] });
        let mut keys = Map::new();
        validation::write(&field.validation, &mut keys);
        let idiomatic = if self.written.is_none() {
            idiomatic(&field.ty, &mut keys)
        } else {
            TokenStream::new()
        };
        if let Some(default) = &field.default {
            keys.insert("default".into(), default.clone());
        }
        if self.optional && field.required && field.nullable && self.written.is_none() {
            // schemars writes a required `Option<T>` without `nullable`.
            keys.insert("nullable".into(), Value::Bool(true));
        }
        let extend = extend_keys(&keys);
        quote! { #serde #required #schema_with #idiomatic #extend }
    }
}

/// schemars' own attributes for the validations they express exactly on `ty`, taken out
/// of `keys`.
fn idiomatic(ty: &TypeRef, keys: &mut Map<String, Value>) -> TokenStream {
    let mut out = TokenStream::new();
    let (min_key, max_key) = match ty {
        TypeRef::String => ("minLength", "maxLength"),
        TypeRef::Vec(_) => ("minItems", "maxItems"),
        _ => ("", ""),
    };
    if !min_key.is_empty() {
        let bounds = bounds(keys, min_key, max_key, |v| {
            v.as_u64().map(|n| {
                let literal = Literal::u64_unsuffixed(n);
                quote! { #literal }
            })
        });
        if !bounds.is_empty() {
            out.extend(quote! { #[schemars(length(#bounds))] });
        }
    }
    if matches!(ty, TypeRef::I32 | TypeRef::I64) {
        let bounds = bounds(keys, "minimum", "maximum", |v| {
            // schemars types the bounds as `i32` literals: larger ones go to `extend`.
            let n = v.as_i64().filter(|n| i32::try_from(*n).is_ok());
            n.map(|n| {
                let literal = Literal::u64_unsuffixed(n.unsigned_abs());
                if n < 0 {
                    quote! { -#literal }
                } else {
                    quote! { #literal }
                }
            })
        });
        if !bounds.is_empty() {
            out.extend(quote! { #[schemars(range(#bounds))] });
        }
    }
    if matches!(ty, TypeRef::String)
        && let Some(Value::String(pattern)) = keys.remove("pattern")
    {
        out.extend(quote! { #[schemars(regex(pattern = #pattern))] });
    }
    out
}

/// `min = a, max = b` for the keys whose values `literal` can spell, taken out of `keys`.
fn bounds(
    keys: &mut Map<String, Value>,
    min_key: &str,
    max_key: &str,
    literal: impl Fn(&Value) -> Option<TokenStream>,
) -> TokenStream {
    let mut parts = Vec::new();
    for (key, name) in [(min_key, quote! { min }), (max_key, quote! { max })] {
        if let Some(value) = keys.get(key).and_then(&literal) {
            keys.remove(key);
            parts.push(quote! { #name = #value });
        }
    }
    quote! { #(#parts),* }
}

/// `#[schemars(extend(...))]` of a struct: the validations and default it carries itself.
pub(super) fn extend(validation: &Validation, default: Option<&Value>) -> TokenStream {
    let mut keys = Map::new();
    validation::write(validation, &mut keys);
    if let Some(default) = default {
        keys.insert("default".into(), default.clone());
    }
    extend_keys(&keys)
}

/// `#[schemars(extend("key" = json, ...))]` (nothing for no keys).
fn extend_keys(keys: &Map<String, Value>) -> TokenStream {
    if keys.is_empty() {
        return TokenStream::new();
    }
    let pairs = keys.iter().map(|(key, value)| {
        let value = json_tokens(value);
        quote! { #key = #value }
    });
    quote! { #[schemars(extend(#(#pairs),*))] }
}

/// A JSON value as `json!`/`json_schema!` tokens (which the front-end reads back as JSON).
pub(super) fn json_tokens(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote! { null },
        Value::Bool(b) => quote! { #b },
        Value::Number(n) => number_tokens(n),
        Value::String(s) => {
            let literal = Literal::string(s);
            quote! { #literal }
        }
        Value::Array(items) => {
            let items = items.iter().map(json_tokens);
            let inner = quote! { #(#items),* };
            TokenStream::from(TokenTree::Group(Group::new(Delimiter::Bracket, inner)))
        }
        Value::Object(map) => {
            let mut inner = TokenStream::new();
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    inner.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
                }
                let key = Literal::string(key);
                inner.extend(quote! { #key: });
                inner.extend(json_tokens(value));
            }
            TokenStream::from(TokenTree::Group(Group::new(Delimiter::Brace, inner)))
        }
    }
}

/// A JSON number as a `json!` literal: integers beyond `i32` (the type an unsuffixed
/// literal gets) carry an `i64`/`u64` suffix.
fn number_tokens(n: &serde_json::Number) -> TokenStream {
    let small = n.as_i64().is_some_and(|i| i32::try_from(i).is_ok());
    let literal = match (n.as_i64(), n.as_u64()) {
        _ if small || n.is_f64() => None,
        // The magnitude, negated below: `i64::MIN` has no positive `i64`, and rustc reads
        // `-9223372036854775808i64` as the negated literal it is.
        (Some(i), _) => format!("{}i64", i.unsigned_abs()).parse::<Literal>().ok(),
        (None, Some(u)) => Some(Literal::u64_suffixed(u)),
        (None, None) => None,
    };
    match literal {
        Some(literal) if n.as_i64().is_some_and(|i| i < 0) => quote! { -#literal },
        Some(literal) => quote! { #literal },
        None => n.to_string().parse().unwrap_or_else(|_| quote! { null }),
    }
}

/// The `#[resource(...)]` attribute of `kind` in `group`/`version`.
pub(super) fn resource(
    group: &ApiGroup,
    version: &Version,
    kind: &Kind,
    root: &str,
) -> TokenStream {
    // Among several versions of the kind, the stored one says so (`kubegen crd --rust`
    // and the conversions read it back).
    let versions = group
        .versions
        .values()
        .filter(|v| v.kinds.contains_key(&kind.name))
        .count();
    let (group, version_name) = (&group.name, &version.name);
    let mut parts = vec![
        quote! { group = #group },
        quote! { version = #version_name },
    ];
    if kind.name != root {
        let name = &kind.name;
        parts.push(quote! { kind = #name });
    }
    let plural = &kind.names.plural;
    parts.push(quote! { plural = #plural });
    if kind.names.singular != kind.name.to_lowercase() {
        let singular = &kind.names.singular;
        parts.push(quote! { singular = #singular });
    }
    if kind.scope == Scope::Cluster {
        parts.push(quote! { cluster });
    }
    if kind.storage && versions > 1 {
        parts.push(quote! { storage });
    }
    if kind.subresources.status {
        parts.push(quote! { status });
    }
    if let Some(scale) = &kind.subresources.scale {
        let (spec, status) = (&scale.spec_replicas_path, &scale.status_replicas_path);
        let selector = scale
            .label_selector_path
            .as_ref()
            .map(|s| quote! { , label_selector_path = #s });
        parts.push(quote! {
            scale(spec_replicas_path = #spec, status_replicas_path = #status #selector)
        });
    }
    for name in &kind.names.short_names {
        parts.push(quote! { shortname = #name });
    }
    for name in &kind.names.categories {
        parts.push(quote! { category = #name });
    }
    for c in &kind.printer_columns {
        let (name, ty, path) = (&c.name, &c.type_, &c.json_path);
        let description = c
            .description
            .as_ref()
            .map(|d| quote! { , description = #d });
        let priority = (c.priority != 0).then(|| {
            let p = c.priority;
            quote! { , priority = #p }
        });
        parts.push(quote! {
            printcolumn(name = #name, type = #ty, json_path = #path #description #priority)
        });
    }
    for path in &kind.selectable_fields {
        parts.push(quote! { selectable = #path });
    }
    for r in &kind.validation.rules {
        let rule = &r.rule;
        let mut keys = vec![quote! { rule = #rule }];
        for (key, value) in [
            (quote! { message }, &r.message),
            (quote! { message_expression }, &r.message_expression),
            (quote! { reason }, &r.reason),
            (quote! { field_path }, &r.field_path),
        ] {
            if let Some(value) = value {
                keys.push(quote! { #key = #value });
            }
        }
        if let Some(old_self) = r.optional_old_self {
            keys.push(quote! { optional_old_self = #old_self });
        }
        parts.push(quote! { validation(#(#keys),*) });
    }
    quote! { #[resource(#(#parts),*)] }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_schemars_cannot_type_go_to_extend() {
        let mut keys = json!({ "minimum": 0, "maximum": 4294967295_u64, "pattern": "^a$" });
        let keys = keys.as_object_mut().unwrap();
        let tokens = idiomatic(&TypeRef::I64, keys).to_string();
        assert_eq!(tokens, "# [schemars (range (min = 0))]");
        assert_eq!(keys.get("maximum"), Some(&json!(4294967295_u64)));
        assert!(keys.contains_key("pattern"), "a pattern is a string's");
        let extend = extend_keys(keys).to_string();
        assert!(extend.contains("\"maximum\" = 4294967295"), "{extend}");
    }

    #[test]
    fn json_tokens_read_back_as_the_same_json() {
        let value = json!({
            "a": [1, -2, 2.5, null, true, 4294967295_u64, -4294967296_i64, u64::MAX],
            "b\"": { "c": "line\nbreak" }
        });
        let tokens = json_tokens(&value);
        let text = tokens.to_string();
        assert!(
            text.contains("4294967295i64") && text.contains("615u64"),
            "{text}"
        );
        let read = crate::frontend::rust::json_literal(&tokens).unwrap();
        assert_eq!(read, value);
    }
}
