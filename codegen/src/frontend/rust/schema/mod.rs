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
//! (unknown fields kept), `#[serde(default)]` and `#[serde(default = "f")]` with a literal
//! body ([`values`]). Only what can be read without compiling is accepted; anything else is
//! an error at its `file:line:column` (a test in every crate of this repository checks the
//! manifests against `crd()`).
//!
//! Types are found by name: the numbers besides `i32` and `i64` and the k8s-openapi types
//! of the well-known table by the path a name resolves to in its module ([`known`], with a
//! warning for the numbers API conventions advise against), the others in the same file
//! first, then in any file of the directory.
//!
//! Apply configurations read the same types for their serde names only
//! ([`Purpose::Apply`], the front-end's [`Options::apply_types`]): there, a type that cannot
//! be read exactly is no error but kept whole, named by its path from the crate root.
//! Conversions ([`Purpose::Conversion`], [`Options::conversions`]) read them so too, but
//! each nested field with its Rust type as declared (`Option` and `Box` included), since
//! the generated code builds the structs field by field.
//!
//! [`Options::schemas`]: super::Options::schemas
//! [`Options::apply_types`]: super::Options::apply_types
//! [`Options::conversions`]: super::Options::conversions

mod attrs;
mod known;
mod scope;
mod values;

use values::{container_validation, default_value};

use std::collections::BTreeMap;

use syn::{Fields, Item, Type};

use super::location;
use super::types::{option_inner, type_args};
use crate::frontend::schema::validation;
use crate::frontend::{Error, Result, Warning};
use crate::model::{
    Additional, EnumDef, EnumVariant, ExternalType, Field, RootType, StructDef, TypeDef,
    TypeDefKind, TypeRef, Validation,
};
use scope::Scope;

/// What the types a root uses are read for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// CRD schemas (`kubegen crd`): everything schemars would write, exactly; anything that
    /// cannot be read is an error.
    Schema,
    /// Apply configurations: serde's names (`rename`, `rename_all`, `skip`) and field types.
    /// A type that cannot be read (an attribute kubegen does not follow, such as `flatten`
    /// or `with`; a generic, recursive or data-carrying type; a type the sources do not
    /// define) is kept whole, as [`TypeRef::External`] with its path from the crate root;
    /// a field type that is not even a plain path keeps its whole struct.
    Apply,
    /// Conversions: as [`Purpose::Apply`], and a nested struct's fields are read as Rust
    /// declares them, since generated conversions build the structs: each field with its
    /// whole type (`Option<T>` as [`TypeRef::Option`], `Box<T>` as [`TypeRef::Boxed`]) and
    /// marked required (so the model's Rust type of the field is that type), serde's
    /// skipped fields kept; a `HashMap` (conversions build `BTreeMap`s) keeps its struct
    /// whole. The apply emitter reads such fields as [`Purpose::Apply`] gives them (it
    /// unwraps `Option`s), so one model serves both.
    Conversion,
}

impl Purpose {
    /// Whether a type that cannot be read is kept whole rather than an error.
    fn keeps_whole(self) -> bool {
        self != Purpose::Schema
    }
}

/// A declaration in the sources.
#[derive(Clone, Copy)]
enum Decl<'a> {
    Struct(&'a syn::ItemStruct),
    Enum(&'a syn::ItemEnum),
}

#[derive(Clone, Copy)]
struct Entry<'a, T> {
    file: &'a str,
    /// The module declaring it (index into [`Index::scopes`]).
    scope: usize,
    item: T,
}

/// Every struct, enum and function of the sources, by name, and the modules declaring them.
#[derive(Default)]
pub(super) struct Index<'a> {
    types: BTreeMap<String, Vec<Entry<'a, Decl<'a>>>>,
    functions: BTreeMap<String, Vec<Entry<'a, &'a syn::ItemFn>>>,
    scopes: Vec<Scope>,
}

impl<'a> Index<'a> {
    /// Adds the items of one file, the module `module` (its inline modules included).
    pub(super) fn add(&mut self, file: &'a str, module: String, items: &'a [Item]) {
        let scope = self.scopes.len();
        self.scopes.push(Scope::new(module.clone(), items));
        for item in items {
            match item {
                Item::Struct(s) => self
                    .types
                    .entry(s.ident.to_string())
                    .or_default()
                    .push(Entry {
                        file,
                        scope,
                        item: Decl::Struct(s),
                    }),
                Item::Enum(e) => self
                    .types
                    .entry(e.ident.to_string())
                    .or_default()
                    .push(Entry {
                        file,
                        scope,
                        item: Decl::Enum(e),
                    }),
                Item::Fn(f) => self
                    .functions
                    .entry(f.sig.ident.to_string())
                    .or_default()
                    .push(Entry {
                        file,
                        scope,
                        item: f,
                    }),
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.add(file, format!("{module}::{}", m.ident), items);
                    }
                }
                _ => {}
            }
        }
    }

    /// The module whose path is `path`, if the sources have it.
    fn scope_of(&self, path: &str) -> Option<usize> {
        self.scopes.iter().position(|s| s.path == path)
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
/// `file`, in the module `module`) into [`HandWritten::types`](crate::model::HandWritten::types),
/// for `purpose`, with the warnings of reading them.
pub(super) fn resolve(
    index: &Index<'_>,
    (file, module): (&str, &str),
    input: &syn::DeriveInput,
    root: &mut RootType,
    purpose: Purpose,
) -> Result<Vec<Warning>> {
    let RootType::HandWritten(hand) = root else {
        return Ok(Vec::new());
    };
    let syn::Data::Struct(data) = &input.data else {
        return Ok(Vec::new());
    };
    let TypeDefKind::Struct(def) = &mut hand.def.kind else {
        return Ok(Vec::new());
    };
    let mut resolver = Resolver {
        index,
        purpose,
        types: BTreeMap::new(),
        stack: Vec::new(),
        containers: BTreeMap::new(),
        defaults: BTreeMap::new(),
        scopes: index.scope_of(module).into_iter().collect(),
        warnings: Vec::new(),
    };
    for (field, syn_field) in def.fields.iter_mut().zip(&data.fields) {
        if field.wire_name == "metadata" {
            continue;
        }
        let ty = option_inner(&syn_field.ty).unwrap_or(&syn_field.ty);
        match resolver.type_ref(ty, file) {
            Ok(ty) => field.ty = ty,
            // The root keeps the field's type as written.
            Err(_) if purpose.keeps_whole() => continue,
            Err(e) => return Err(e),
        }
        if purpose == Purpose::Schema {
            field.validation = resolver.type_validation(&field.ty, file, syn_field)?;
            field.default = resolver.type_default(&field.ty);
        }
    }
    // Depth first from the root, each type before the ones it uses; a type read before
    // a type using it failed (and was kept whole) is left out.
    let mut order: Vec<String> = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    for field in def.fields.iter().rev() {
        field.ty.visit_named(&mut |name| pending.push(name));
    }
    while let Some(name) = pending.pop() {
        if order.iter().any(|n| n == name) {
            continue;
        }
        let Some((_, ty)) = resolver.types.get(name) else {
            continue;
        };
        order.push(name.to_owned());
        if let TypeDefKind::Struct(s) = &ty.kind {
            let mut uses = Vec::new();
            for field in &s.fields {
                field.ty.visit_named(&mut |name| uses.push(name));
            }
            pending.extend(uses.into_iter().rev());
        }
    }
    hand.types = order
        .iter()
        .filter_map(|name| resolver.types.remove(name))
        .map(|(_, def)| def)
        .collect();
    Ok(resolver.warnings)
}

struct Resolver<'i, 'a> {
    index: &'i Index<'a>,
    purpose: Purpose,
    /// Types read so far by name, with the file they come from.
    types: BTreeMap<String, (String, TypeDef)>,
    /// The types being read, to refuse recursion (a CRD schema is inlined).
    stack: Vec<String>,
    /// The validations of structs' own `#[schemars(extend(...))]`, by type name.
    containers: BTreeMap<String, Validation>,
    /// The defaults of structs' own `#[schemars(extend("default" = ...))]`, by type name.
    defaults: BTreeMap<String, serde_json::Value>,
    /// The modules of the types being read (the last is where field types are written).
    scopes: Vec<usize>,
    /// Fields read exactly that API conventions advise against.
    warnings: Vec<Warning>,
}

impl Resolver<'_, '_> {
    fn type_ref(&mut self, ty: &Type, file: &str) -> Result<TypeRef> {
        match self.read(ty, file) {
            Err(e) if self.purpose.keeps_whole() => match self.whole(ty, file) {
                Some(path) => Ok(TypeRef::External(ExternalType::new(path, false))),
                None => Err(e),
            },
            read => read,
        }
    }

    /// The path from the crate root of a type kept whole, when it is a plain path.
    fn whole(&self, ty: &Type, file: &str) -> Option<String> {
        let Type::Path(path) = ty else {
            return None;
        };
        if path.qself.is_some() || path.path.segments.iter().any(|s| !s.arguments.is_empty()) {
            return None;
        }
        let defined = match path.path.segments.iter().collect::<Vec<_>>().as_slice() {
            [name] => pick(self.index.types.get(&name.ident.to_string()), file)
                .map(|entry| self.index.scopes[entry.scope].path.as_str()),
            _ => None,
        };
        self.resolve_here(path, defined)
    }

    /// `path`, written in the current module, as a path from the crate root (`use`
    /// imports and module aliases followed); `defined`: the module defining a local type
    /// of that single-segment name, if any.
    fn resolve_here(&self, path: &syn::TypePath, defined: Option<&str>) -> Option<String> {
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let scope = &self.index.scopes[*self.scopes.last()?];
        let is_module = |module: &str| self.index.scope_of(module).is_some();
        Some(scope.resolve(
            &segments,
            path.path.leading_colon.is_some(),
            defined,
            &is_module,
        ))
    }

    /// Whether the type `name` declared by `decl` is the one a bare `name` means in the
    /// current module (not shadowed by a `use` of another type of that name).
    fn in_scope(&self, name: &str, decl: &Entry<'_, Decl<'_>>) -> bool {
        let Some(scope) = self.scopes.last().map(|s| &self.index.scopes[*s]) else {
            return true;
        };
        let declared = &self.index.scopes[decl.scope].path;
        scope.resolve(&[name.to_owned()], false, Some(declared), &|_| false)
            == format!("{declared}::{name}")
    }

    fn read(&mut self, ty: &Type, file: &str) -> Result<TypeRef> {
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
        // Numbers besides i32 and i64, and k8s-openapi types: the well-known schemas.
        if self.purpose == Purpose::Schema
            && args.is_empty()
            && let Some(known) = self.well_known(path, file)
        {
            return Ok(TypeRef::External(known));
        }
        let name = last.ident.to_string();
        let ty = match (name.as_str(), args.as_slice()) {
            ("String", []) => TypeRef::String,
            ("bool", []) => TypeRef::Bool,
            ("i32", []) => TypeRef::I32,
            ("i64", []) => TypeRef::I64,
            ("Value", []) => TypeRef::Json,
            ("Vec", [inner]) => TypeRef::vec(self.type_ref(inner, file)?),
            ("Option", [inner]) => TypeRef::option(self.type_ref(inner, file)?),
            ("Box", [inner]) if self.purpose == Purpose::Conversion => {
                TypeRef::Boxed(Box::new(self.type_ref(inner, file)?))
            }
            ("Box", [inner]) => self.type_ref(inner, file)?,
            ("HashMap", _) if self.purpose == Purpose::Conversion => {
                return Err(unsupported("a `HashMap` in a conversion (use `BTreeMap`)"));
            }
            ("BTreeMap" | "HashMap", [key, value]) => {
                let key_ok = matches!(key, Type::Path(p) if p.path.is_ident("String"));
                if !key_ok {
                    return Err(unsupported("a map whose keys are not `String`"));
                }
                TypeRef::map(self.type_ref(value, file)?)
            }
            (_, []) => {
                let decl = pick(self.index.types.get(&name), file)
                    .filter(|decl| self.purpose == Purpose::Schema || self.in_scope(&name, decl))
                    .ok_or_else(|| self.unknown(&name, ty, file))?;
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
        self.scopes.push(decl.scope);
        let index = self.index;
        let module = &index.scopes[decl.scope].path;
        let def = match decl.item {
            Decl::Struct(s) => self.strukt(decl.file, s),
            Decl::Enum(e) => enumeration(decl.file, e),
        };
        self.scopes.pop();
        self.stack.pop();
        let mut def = def?;
        def.module = module.clone();
        self.types
            .insert(name.to_owned(), (decl.file.to_owned(), def));
        Ok(())
    }

    fn strukt(&mut self, file: &str, item: &syn::ItemStruct) -> Result<TypeDef> {
        let container = attrs::container(&item.attrs).map_err(|e| syn_error(file, &e))?;
        let schema = self.purpose == Purpose::Schema;
        if container.default && schema {
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
            // An apply configuration sends what serde serializes; a conversion builds the
            // struct, every field of it.
            let conversion = self.purpose == Purpose::Conversion;
            if !conversion && (member.skip || (member.skip_serializing && !schema)) {
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
                Some(path) if schema => Some(self.written(file, path)?),
                _ => None,
            };
            let ty = match (&written_schema, inner) {
                (Some(_), _) => TypeRef::Json,
                (None, _) if conversion => self.type_ref(&f.ty, file)?,
                (None, Some(inner)) => self.type_ref(inner, file)?,
                (None, None) => self.type_ref(&f.ty, file)?,
            };
            let mut validation = Validation::default();
            let mut default = None;
            if schema {
                validation = self.type_validation(&ty, file, f)?;
                self.validation(file, f, &member, &ty, &mut validation)?;
                let written_default = member
                    .extend
                    .iter()
                    .find(|(key, _)| key == "default")
                    .map(|(_, value)| value.clone());
                default = match written_default.or_else(|| self.type_default(&ty)) {
                    Some(value) => Some(value),
                    // A `schema_with` field's type is not read.
                    None => {
                        let read = written_schema.is_none().then_some(&ty);
                        default_value(self.index, file, f, &member, read)?
                    }
                };
            }
            // schemars writes an optional `Option<T>` as nullable (not a required one, nor one
            // whose schema has no `type` to add `null` to: `Option<Value>`,
            // `Option<Quantity>`); `extend("nullable" = ...)` says it outright.
            let written_nullable = member
                .extend
                .iter()
                .find(|(key, _)| key == "nullable")
                .map(|(_, value)| value.as_bool() == Some(true));
            let nullable = written_nullable.unwrap_or(
                inner.is_some()
                    && !member.required
                    && written_schema.is_none()
                    && self.json_type(&ty).is_some(),
            );
            fields.push(Field {
                wire_name,
                rust_name,
                ty,
                // `schema_with` replaces the whole schema, `Option` included; schemars gives
                // `Option<Value>` no `nullable` (any JSON already allows null).
                // A conversion's field is its whole Rust type (see `Purpose::Conversion`).
                required: conversion
                    || member.required
                    || (member.default.is_none() && (inner.is_none() || written_schema.is_some())),
                nullable: nullable && !conversion,
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
        // schemars applies each to a schema of the matching `type` only.
        let (min, max) = member.length;
        match self.json_type(ty) {
            Some("string") => {
                (into.min_length, into.max_length) = (min, max);
                into.pattern = member.pattern.clone();
            }
            Some("array") => (into.min_items, into.max_items) = (min, max),
            Some("integer" | "number") => (into.minimum, into.maximum) = member.range.clone(),
            _ => {}
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

    /// The `type` of the schema of `ty`, when it has one.
    fn json_type(&self, ty: &TypeRef) -> Option<&'static str> {
        match ty {
            TypeRef::String | TypeRef::Bytes | TypeRef::DateTime => Some("string"),
            TypeRef::Bool => Some("boolean"),
            TypeRef::I32 | TypeRef::I64 => Some("integer"),
            TypeRef::F64 => Some("number"),
            TypeRef::Vec(_) => Some("array"),
            TypeRef::Map(_) => Some("object"),
            TypeRef::Named(name) => match &self.types.get(name)?.1.kind {
                TypeDefKind::Struct(_) => Some("object"),
                TypeDefKind::Enum(_) => Some("string"),
                TypeDefKind::Union(_) => None,
            },
            TypeRef::External(external) => {
                let schema = crate::wellknown::Table::committed().schema(&external.path)?;
                ["string", "boolean", "integer", "number", "array", "object"]
                    .into_iter()
                    .find(|t| schema.get("type").and_then(serde_json::Value::as_str) == Some(t))
            }
            TypeRef::Quantity
            | TypeRef::IntOrString
            | TypeRef::Json
            | TypeRef::Option(_)
            | TypeRef::Boxed(_) => None,
        }
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
