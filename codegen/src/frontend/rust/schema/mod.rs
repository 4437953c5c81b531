//! The types a `#[derive(Resource)]` struct's fields use, read from the same sources into
//! model types, for `kubegen crd` (the Rust front-end's [`Options::schemas`]).
//!
//! `Foo::crd()` builds its schema at run time from each field type's `JsonSchema` impl;
//! here the same schema is read from the types' source, as schemars derives it: serde's
//! names, required fields (neither `Option` nor `#[serde(default)]`), doc comments as
//! descriptions, `#[schemars(length, range, regex, schema_with, extend)]` (`extend` on a
//! struct applies to every field of that type; `extend("default" = ...)` and
//! `extend("nullable" = ...)` are the field's default and nullability; an optional
//! `Option<T>` is nullable, a `#[schemars(required)]` one is not), `#[serde(flatten)]` maps
//! (unknown fields kept). Only what can be read without compiling is accepted; anything else is an error at its `file:line:column`
//! (a test in every crate of this repository checks the manifests against `crd()`).
//!
//! Types are found by name: in the same file first, then in any file of the directory.
//!
//! [`Options::schemas`]: super::Options::schemas

mod attrs;
mod values;

use values::{container_validation, default_value};

use std::collections::BTreeMap;

use syn::{Fields, Item, Type};

use super::location;
use super::types::{option_inner, type_args};
use crate::frontend::schema::validation;
use crate::frontend::{Error, Result};
use crate::model::{
    Additional, EnumDef, EnumVariant, Field, RootType, StructDef, TypeDef, TypeDefKind, TypeRef,
    Validation,
};

/// A declaration in the sources.
#[derive(Clone, Copy)]
enum Decl<'a> {
    Struct(&'a syn::ItemStruct),
    Enum(&'a syn::ItemEnum),
}

#[derive(Clone, Copy)]
struct Entry<'a, T> {
    file: &'a str,
    item: T,
}

/// Every struct, enum and function of the sources, by name.
#[derive(Default)]
pub(super) struct Index<'a> {
    types: BTreeMap<String, Vec<Entry<'a, Decl<'a>>>>,
    functions: BTreeMap<String, Vec<Entry<'a, &'a syn::ItemFn>>>,
}

impl<'a> Index<'a> {
    /// Adds the items of one file (inline modules included).
    pub(super) fn add(&mut self, file: &'a str, items: &'a [Item]) {
        for item in items {
            match item {
                Item::Struct(s) => self
                    .types
                    .entry(s.ident.to_string())
                    .or_default()
                    .push(Entry {
                        file,
                        item: Decl::Struct(s),
                    }),
                Item::Enum(e) => self
                    .types
                    .entry(e.ident.to_string())
                    .or_default()
                    .push(Entry {
                        file,
                        item: Decl::Enum(e),
                    }),
                Item::Fn(f) => self
                    .functions
                    .entry(f.sig.ident.to_string())
                    .or_default()
                    .push(Entry { file, item: f }),
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.add(file, items);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The one entry named `name` seen from `file`: the file's own, else the only one.
fn pick<'a, T: Copy>(entries: Option<&Vec<Entry<'a, T>>>, file: &str) -> Option<Entry<'a, T>> {
    let entries = entries?;
    let local: Vec<&Entry<'a, T>> = entries.iter().filter(|e| e.file == file).collect();
    match (local.as_slice(), entries.as_slice()) {
        ([one], _) => Some(**one),
        ([], [one]) => Some(*one),
        _ => None,
    }
}

pub(super) fn error(file: &str, span: proc_macro2::Span, message: impl Into<String>) -> Error {
    Error::Input {
        at: location(file, span),
        message: message.into(),
    }
}

fn syn_error(file: &str, e: &syn::Error) -> Error {
    error(file, e.span(), e.to_string())
}

/// Resolves the field types of the hand-written root of `kind` (declared by `input` in
/// `file`) into [`HandWritten::types`](crate::model::HandWritten::types).
pub(super) fn resolve(
    index: &Index<'_>,
    file: &str,
    input: &syn::DeriveInput,
    root: &mut RootType,
) -> Result<()> {
    let RootType::HandWritten(hand) = root else {
        return Ok(());
    };
    let syn::Data::Struct(data) = &input.data else {
        return Ok(());
    };
    let TypeDefKind::Struct(def) = &mut hand.def.kind else {
        return Ok(());
    };
    let mut resolver = Resolver {
        index,
        types: BTreeMap::new(),
        order: Vec::new(),
        stack: Vec::new(),
        containers: BTreeMap::new(),
        defaults: BTreeMap::new(),
    };
    for (field, syn_field) in def.fields.iter_mut().zip(&data.fields) {
        if field.wire_name == "metadata" {
            continue;
        }
        let ty = option_inner(&syn_field.ty).unwrap_or(&syn_field.ty);
        field.ty = resolver.type_ref(ty, file)?;
        field.validation = resolver.type_validation(&field.ty, file, syn_field)?;
        field.default = resolver.type_default(&field.ty);
    }
    hand.types = resolver
        .order
        .iter()
        .filter_map(|name| resolver.types.remove(name))
        .map(|(_, def)| def)
        .collect();
    Ok(())
}

struct Resolver<'i, 'a> {
    index: &'i Index<'a>,
    /// Types read so far by name, with the file they come from.
    types: BTreeMap<String, (String, TypeDef)>,
    /// Names in the order they were first met.
    order: Vec<String>,
    /// The types being read, to refuse recursion (a CRD schema is inlined).
    stack: Vec<String>,
    /// The validations of structs' own `#[schemars(extend(...))]`, by type name.
    containers: BTreeMap<String, Validation>,
    /// The defaults of structs' own `#[schemars(extend("default" = ...))]`, by type name.
    defaults: BTreeMap<String, serde_json::Value>,
}

impl Resolver<'_, '_> {
    fn type_ref(&mut self, ty: &Type, file: &str) -> Result<TypeRef> {
        let unsupported = |what: &str| {
            error(
                file,
                syn::spanned::Spanned::span(ty),
                format!(
                    "`kubegen crd` cannot read the schema of {what}; give the field \
                     `#[schemars(schema_with = \"f\")]` where `fn f(_: &mut SchemaGenerator) -> \
                     Schema {{ json_schema!({{...}}) }}`"
                ),
            )
        };
        let Type::Path(path) = ty else {
            return Err(unsupported("this type"));
        };
        let Some(last) = path.path.segments.last() else {
            return Err(unsupported("this type"));
        };
        let args = type_args(last);
        let name = last.ident.to_string();
        let ty = match (name.as_str(), args.as_slice()) {
            ("String", []) => TypeRef::String,
            ("bool", []) => TypeRef::Bool,
            ("i32", []) => TypeRef::I32,
            ("i64", []) => TypeRef::I64,
            ("Value", []) => TypeRef::Json,
            (
                "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "isize" | "f32" | "f64",
                [],
            ) => {
                return Err(error(
                    file,
                    syn::spanned::Spanned::span(ty),
                    format!(
                        "`kubegen crd` reads i32, i64 and String scalars; `{name}` is not one \
                         (Kubernetes API conventions use int32/int64, and Quantity or strings \
                         for fractions)"
                    ),
                ));
            }
            ("Vec", [inner]) => TypeRef::vec(self.type_ref(inner, file)?),
            ("Option", [inner]) => TypeRef::option(self.type_ref(inner, file)?),
            ("Box", [inner]) => self.type_ref(inner, file)?,
            ("BTreeMap" | "HashMap", [key, value]) => {
                let key_ok = matches!(key, Type::Path(p) if p.path.is_ident("String"));
                if !key_ok {
                    return Err(unsupported("a map whose keys are not `String`"));
                }
                TypeRef::map(self.type_ref(value, file)?)
            }
            (_, []) => {
                let decl = pick(self.index.types.get(&name), file).ok_or_else(|| {
                    unsupported(&format!("`{name}` (not defined once in the sources)"))
                })?;
                self.named(&name, decl)?;
                TypeRef::Named(name)
            }
            _ => return Err(unsupported(&format!("`{name}<...>`"))),
        };
        Ok(ty)
    }

    fn named(&mut self, name: &str, decl: Entry<'_, Decl<'_>>) -> Result<()> {
        if let Some((file, _)) = self.types.get(name) {
            if file != decl.file {
                let span = match decl.item {
                    Decl::Struct(s) => s.ident.span(),
                    Decl::Enum(e) => e.ident.span(),
                };
                return Err(error(
                    decl.file,
                    span,
                    format!(
                        "`kubegen crd` found two types named `{name}` in one kind (also in {file})"
                    ),
                ));
            }
            return Ok(());
        }
        if self.stack.iter().any(|n| n == name) {
            let span = match decl.item {
                Decl::Struct(s) => s.ident.span(),
                Decl::Enum(e) => e.ident.span(),
            };
            return Err(error(
                decl.file,
                span,
                format!(
                    "`{name}` contains itself: a CRD schema is inlined, so recursive types need \
                     `#[schemars(schema_with = ...)]` with `x-kubernetes-preserve-unknown-fields`"
                ),
            ));
        }
        self.stack.push(name.to_owned());
        let def = match decl.item {
            Decl::Struct(s) => self.strukt(decl.file, s)?,
            Decl::Enum(e) => enumeration(decl.file, e)?,
        };
        self.stack.pop();
        self.order.push(name.to_owned());
        self.types
            .insert(name.to_owned(), (decl.file.to_owned(), def));
        Ok(())
    }

    fn strukt(&mut self, file: &str, item: &syn::ItemStruct) -> Result<TypeDef> {
        let container = attrs::container(&item.attrs).map_err(|e| syn_error(file, &e))?;
        if container.default {
            return Err(error(
                file,
                item.ident.span(),
                "`kubegen crd` cannot evaluate a struct's `#[serde(default)]` (schemars writes \
                 each field's value in `Self::default()` as its schema default): put \
                 `#[serde(default)]` on the fields instead",
            ));
        }
        let Fields::Named(named) = &item.fields else {
            return Err(error(
                file,
                item.ident.span(),
                "`kubegen crd` reads structs with named fields (a newtype's schema is its inner type's: use that type)",
            ));
        };
        let own = container_validation(file, item, &container.extend)?;
        if !own.is_empty() {
            self.containers.insert(item.ident.to_string(), own);
        }
        if let Some((_, default)) = container.extend.iter().find(|(key, _)| key == "default") {
            self.defaults
                .insert(item.ident.to_string(), default.clone());
        }
        let mut fields = Vec::new();
        let mut additional = None;
        for f in &named.named {
            let Some(ident) = &f.ident else { continue };
            let member = attrs::member(&f.attrs).map_err(|e| syn_error(file, &e))?;
            if member.skip {
                continue;
            }
            if member.flatten {
                additional = Some(self.flattened(file, f)?);
                continue;
            }
            let rust_name = ident.to_string();
            let plain = rust_name.trim_start_matches("r#");
            let wire_name = member
                .rename
                .clone()
                .unwrap_or_else(|| match container.rename_all {
                    Some(rule) => rule.field(plain),
                    None => plain.to_owned(),
                });
            let inner = option_inner(&f.ty);
            let written_schema = match &member.schema_with {
                Some(path) => Some(self.written(file, path)?),
                None => None,
            };
            let ty = match (&written_schema, inner) {
                (Some(_), _) => TypeRef::Json,
                (None, Some(inner)) => self.type_ref(inner, file)?,
                (None, None) => self.type_ref(&f.ty, file)?,
            };
            let mut validation = self.type_validation(&ty, file, f)?;
            self.validation(file, f, &member, &ty, &mut validation)?;
            let written_default = member
                .extend
                .iter()
                .find(|(key, _)| key == "default")
                .map(|(_, value)| value.clone());
            let default = match written_default.or_else(|| self.type_default(&ty)) {
                Some(value) => Some(value),
                None => default_value(file, f, &member, &ty)?,
            };
            // schemars writes an optional `Option<T>` as nullable (not a required one, nor
            // `Option<Value>`); `extend("nullable" = ...)` says it outright.
            let written_nullable = member
                .extend
                .iter()
                .find(|(key, _)| key == "nullable")
                .map(|(_, value)| value.as_bool() == Some(true));
            let nullable = written_nullable.unwrap_or(
                inner.is_some()
                    && !member.required
                    && written_schema.is_none()
                    && ty != TypeRef::Json,
            );
            fields.push(Field {
                wire_name,
                rust_name,
                ty,
                // `schema_with` replaces the whole schema, `Option` included; schemars gives
                // `Option<Value>` no `nullable` (any JSON already allows null).
                required: member.required
                    || (member.default.is_none() && (inner.is_none() || written_schema.is_some())),
                nullable,
                default,
                docs: attrs::docs(&f.attrs),
                validation,
                written_schema,
            });
        }
        Ok(TypeDef {
            name: item.ident.to_string(),
            module: String::new(),
            docs: attrs::docs(&item.attrs),
            kind: TypeDefKind::Struct(StructDef {
                fields,
                additional,
                root: None,
            }),
        })
    }

    /// A `#[serde(flatten)]` field: a map with `String` keys holding the properties the
    /// struct does not declare.
    fn flattened(&mut self, file: &str, field: &syn::Field) -> Result<Additional> {
        let ty = self.type_ref(&field.ty, file)?;
        let TypeRef::Map(value) = ty else {
            return Err(error(
                file,
                field_span(field),
                "`kubegen crd` reads `#[serde(flatten)]` on maps with `String` keys (the \
                 struct keeps unknown fields), not on other types",
            ));
        };
        Ok(Additional {
            rust_name: field
                .ident
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            value: *value,
        })
    }

    /// The default a field of type `ty` gets from its struct's own
    /// `#[schemars(extend("default" = ...))]`.
    fn type_default(&self, ty: &TypeRef) -> Option<serde_json::Value> {
        match ty {
            TypeRef::Named(name) => self.defaults.get(name).cloned(),
            _ => None,
        }
    }

    /// The validations a field of type `ty` gets from its struct's own
    /// `#[schemars(extend(...))]`; an error when that struct is inside a list or map,
    /// where the model keeps no validations.
    fn type_validation(&self, ty: &TypeRef, file: &str, field: &syn::Field) -> Result<Validation> {
        if let TypeRef::Named(name) = ty {
            return Ok(self.containers.get(name).cloned().unwrap_or_default());
        }
        let mut nested = None;
        ty.visit_named(&mut |name| {
            if self.containers.contains_key(name) || self.defaults.contains_key(name) {
                nested.get_or_insert_with(|| name.to_owned());
            }
        });
        match nested {
            Some(name) => Err(error(
                file,
                field_span(field),
                format!(
                    "`kubegen crd` reads `#[schemars(extend(...))]` on `{name}` where a field \
                     is of that type, not inside a list or map: put it on the field"
                ),
            )),
            None => Ok(Validation::default()),
        }
    }

    /// The validations of a field, by its (resolved) type as schemars applies them.
    fn validation(
        &self,
        file: &str,
        field: &syn::Field,
        member: &attrs::MemberAttrs,
        ty: &TypeRef,
        into: &mut Validation,
    ) -> Result<()> {
        let (min, max) = member.length;
        match ty {
            TypeRef::String => (into.min_length, into.max_length) = (min, max),
            TypeRef::Vec(_) => (into.min_items, into.max_items) = (min, max),
            _ => {}
        }
        if matches!(ty, TypeRef::I32 | TypeRef::I64 | TypeRef::F64) {
            (into.minimum, into.maximum) = member.range.clone();
        }
        if matches!(ty, TypeRef::String) {
            into.pattern = member.pattern.clone();
        }
        let own = |key: &&(String, serde_json::Value)| key.0 != "default" && key.0 != "nullable";
        for (key, value) in member.extend.iter().filter(own) {
            let known = validation::read_one(key, value, into)
                .map_err(|e| error(file, field_span(field), e))?;
            if !known {
                return Err(error(
                    file,
                    field_span(field),
                    format!(
                        "`kubegen crd` reads validation keys and `x-kubernetes-*` extensions in \
                         `extend`, not `{key}` (it knows default, nullable, {})",
                        validation::KEYS.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The schema a `schema_with` function returns, when it is a `json_schema!` literal.
    fn written(&self, file: &str, path: &syn::LitStr) -> Result<serde_json::Value> {
        let parsed: syn::Path = path.parse().map_err(|e| syn_error(file, &e))?;
        let name = parsed
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let function = pick(self.index.functions.get(&name), file).ok_or_else(|| {
            error(
                file,
                path.span(),
                format!("`kubegen crd` cannot find the function `{name}` in the sources"),
            )
        })?;
        let literal = function
            .item
            .block
            .stmts
            .last()
            .and_then(|stmt| match stmt {
                syn::Stmt::Expr(syn::Expr::Macro(m), None) => Some(&m.mac),
                syn::Stmt::Macro(m) => Some(&m.mac),
                _ => None,
            });
        let Some(mac) = literal.filter(|m| {
            m.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "json_schema")
        }) else {
            return Err(error(
                function.file,
                function.item.sig.ident.span(),
                "`kubegen crd` reads `schema_with` functions that end in a `json_schema!({...})` literal",
            ));
        };
        attrs::json_text(&mac.tokens.to_string(), &mac.tokens)
            .map_err(|e| syn_error(function.file, &e))
    }
}

pub(super) fn field_span(field: &syn::Field) -> proc_macro2::Span {
    field
        .ident
        .as_ref()
        .map_or_else(|| syn::spanned::Spanned::span(&field.ty), |i| i.span())
}

/// The JSON of a `json!` literal's tokens.
pub(super) fn json_literal(tokens: &proc_macro2::TokenStream) -> syn::Result<serde_json::Value> {
    attrs::json_text(&tokens.to_string(), tokens)
}

/// A unit-only enum as a string enum, its values in the order schemars lists them.
fn enumeration(file: &str, item: &syn::ItemEnum) -> Result<TypeDef> {
    let container = attrs::container(&item.attrs).map_err(|e| syn_error(file, &e))?;
    let mut variants = Vec::new();
    for v in &item.variants {
        if !matches!(v.fields, Fields::Unit) {
            return Err(error(
                file,
                v.ident.span(),
                "`kubegen crd` reads enums of unit variants (string enums); this variant has fields",
            ));
        }
        let member = attrs::member(&v.attrs).map_err(|e| syn_error(file, &e))?;
        if member.skip {
            continue;
        }
        let rust_name = v.ident.to_string();
        let wire = member
            .rename
            .clone()
            .unwrap_or_else(|| match container.rename_all {
                Some(rule) => rule.variant(&rust_name),
                None => rust_name.clone(),
            });
        // schemars lists variants without docs in one `enum` before the documented ones.
        let documented = attrs::docs(&v.attrs).is_some();
        variants.push((documented, EnumVariant { wire, rust_name }));
    }
    variants.sort_by_key(|(documented, _)| *documented);
    let variants = variants.into_iter().map(|(_, v)| v).collect();
    Ok(TypeDef {
        name: item.ident.to_string(),
        module: String::new(),
        docs: attrs::docs(&item.attrs),
        kind: TypeDefKind::Enum(EnumDef { variants }),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
