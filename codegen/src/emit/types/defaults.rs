//! `with_defaults()` / `apply_defaults()` on generated structs: the API server's structural
//! defaulting (apiextensions-apiserver's `schema/defaulting`) as typed Rust, opt in.
//! Deserializing and serializing stay exact round trips; nothing calls these by itself.
//!
//! The rules, for an object that exists:
//!
//! - a property with a `default` that is absent, or `null` where the property is not
//!   `nullable`, takes the default (an explicit `null` of a nullable property stays);
//! - then every property, list item and map value that is an object gets its own defaults,
//!   the just-set defaults included (a default's nested defaults apply to it);
//! - an absent object gets nothing: defaults never create a parent.
//!
//! Required fields are always present in Rust, so only the defaults inside them apply. The
//! API server's defaults of list items and map values replace `null` entries, which a
//! `Vec<T>` or `BTreeMap<String, T>` of a non-nullable `T` cannot hold, and the model keeps
//! none. Only structs that have a default somewhere below them get the methods.
//!
//! Each default is a typed literal built from the model ([`DefaultValue`]), checked against
//! the field's type by the CRD front-end (an input error at the default's
//! `file:line:column`). Values with no literal (dates, bytes, k8s-openapi types other than
//! `{}`: see [`DefaultValue::Deserialized`]) are deserialized from a `serde_json::Value`
//! literal when they apply, and leave the field unset if their type rejects them; nothing
//! panics. Defaults of OpenAPI documents that are no value of their type (openapi-gen's
//! `{}` for Go zero values of structs with required fields) are not applied.

use std::collections::BTreeSet;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use super::Context;
use crate::emit::common::ident;
use crate::model::{
    DefaultValue, Field, Presence, StructDef, TypeDef, TypeDefKind, TypeRef, Version, field_default,
};

/// The `impl` with `with_defaults` and `apply_defaults` of `ty`, or nothing when no default
/// applies anywhere below it.
pub(super) fn struct_impl(ctx: &Context<'_>, ty: &TypeDef, s: &StructDef) -> TokenStream {
    if !ctx.with_defaults.contains(&ty.name) {
        return TokenStream::new();
    }
    let mut body = TokenStream::new();
    for field in &s.fields {
        body.extend(fill(ctx, field));
        let name = ident(&field.rust_name);
        let ty = match Presence::of(field) {
            Presence::Always => field.ty.clone(),
            Presence::NullableRequired | Presence::Optional | Presence::OptionalJson => {
                TypeRef::option(field.ty.clone())
            }
            Presence::OptionalNullable => TypeRef::option(TypeRef::option(field.ty.clone())),
        };
        body.extend(visit(ctx, quote! { self.#name }, &ty, 0));
    }
    if let Some(additional) = &s.additional {
        let name = ident(&additional.rust_name);
        let map = TypeRef::map(additional.value.clone());
        body.extend(visit(ctx, quote! { self.#name }, &map, 0));
    }
    let name = ident(&ty.name);
    quote! {
        const _: () = {
            impl #name {
                /// This value with the schema's defaults ([`apply_defaults`](Self::apply_defaults)).
                #[must_use]
                pub fn with_defaults(mut self) -> Self {
                    self.apply_defaults();
                    self
                }
                /// Applies the schema's defaults as the API server does: to absent fields
                /// (and non-nullable `null`s), then to the objects below. Set fields stay.
                pub fn apply_defaults(&mut self) {
                    #body
                }
            }
        };
    }
}

/// `if <absent> { field = default; }` for a field whose default applies.
fn fill(ctx: &Context<'_>, field: &Field) -> Option<TokenStream> {
    let value = applicable(ctx, field)?;
    let name = ident(&field.rust_name);
    let json = &ctx.paths.serde_json;
    let value = match (literal(ctx, &value), &field.default) {
        (Some(literal), _) => literal,
        // No literal: deserialized from the JSON, which the CRD front-end checked as far as
        // the model knows the type (a k8s-openapi type's own rules are unknown to it); a
        // value its type rejects leaves the field unset rather than panic.
        (None, Some(default)) => {
            let default = json_literal(ctx, default);
            let some = (Presence::of(field) == Presence::OptionalNullable)
                .then(|| quote! { .map(::core::option::Option::Some) });
            quote! { #json::from_value(#default).ok() #some }
        }
        (None, None) => return None,
    };
    let absent = if Presence::of(field) == Presence::OptionalJson && !field.nullable {
        quote! {
            ::core::matches!(
                self.#name,
                ::core::option::Option::None | ::core::option::Option::Some(#json::Value::Null)
            )
        }
    } else {
        quote! { self.#name.is_none() }
    };
    Some(quote! {
        if #absent {
            self.#name = #value;
        }
    })
}

/// The typed default a field takes, if it has one that fits its type.
fn applicable(ctx: &Context<'_>, field: &Field) -> Option<DefaultValue> {
    let value = field.default.as_ref()?;
    let lookup = |name: &str| ctx.version.types.iter().find(|t| t.name == name);
    field_default(field, value, &lookup).ok().flatten()
}

/// The structs of `version` that get the methods: those with a default that applies, and
/// those with one of them below (computed to a fixed point, since structs nest).
pub(super) fn with_defaults(version: &Version) -> BTreeSet<String> {
    let lookup = |name: &str| version.types.iter().find(|t| t.name == name);
    let structs: Vec<(&str, &StructDef)> = version
        .types
        .iter()
        .filter_map(|t| match &t.kind {
            TypeDefKind::Struct(s) => Some((t.name.as_str(), s)),
            _ => None,
        })
        .collect();
    let mut set: BTreeSet<String> = structs
        .iter()
        .filter(|(_, s)| {
            s.fields.iter().any(|f| {
                f.default
                    .as_ref()
                    .is_some_and(|d| matches!(field_default(f, d, &lookup), Ok(Some(_))))
            })
        })
        .map(|(name, _)| (*name).to_owned())
        .collect();
    loop {
        let before = set.len();
        for (name, s) in &structs {
            if set.contains(*name) {
                continue;
            }
            let mut below = false;
            let types = s.fields.iter().map(|f| &f.ty);
            for ty in types.chain(s.additional.as_ref().map(|a| &a.value)) {
                ty.visit_named(&mut |n| below |= set.contains(n));
            }
            if below {
                set.insert((*name).to_owned());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// The statements that apply defaults below `place` (a `ty`), if any apply there.
fn visit(ctx: &Context<'_>, place: TokenStream, ty: &TypeRef, depth: usize) -> Option<TokenStream> {
    let value = format_ident!("value{depth}");
    let inner = |ty: &TypeRef| visit(ctx, quote! { #value }, ty, depth + 1);
    match ty {
        TypeRef::Named(name) if ctx.with_defaults.contains(name) => {
            Some(quote! { #place.apply_defaults(); })
        }
        TypeRef::Boxed(ty) => visit(ctx, place, ty, depth),
        TypeRef::Option(ty) => {
            // `Option<Option<T>>` (a nullable optional field) is unwrapped in one `if let`,
            // not one nested in another (clippy's `collapsible_if`).
            let (mut ty, mut unwrap) = (ty.as_ref(), quote! { #place.as_mut() });
            while let TypeRef::Option(next) = ty {
                ty = next;
                unwrap = quote! { #unwrap.and_then(::core::option::Option::as_mut) };
            }
            inner(ty).map(|body| {
                quote! {
                    if let ::core::option::Option::Some(#value) = #unwrap {
                        #body
                    }
                }
            })
        }
        TypeRef::Vec(ty) => {
            inner(ty).map(|body| quote! { for #value in #place.iter_mut() { #body } })
        }
        TypeRef::Map(ty) => {
            inner(ty).map(|body| quote! { for #value in #place.values_mut() { #body } })
        }
        _ => None,
    }
}

/// A named type of the version as the current module spells it.
fn named(ctx: &Context<'_>, name: &str) -> TokenStream {
    let same_module = ctx.type_modules.get(name).is_none_or(|m| *m == ctx.module);
    let name = ident(name);
    if same_module {
        quote! { #name }
    } else {
        quote! { super::#name }
    }
}

/// A default as a typed Rust expression, or `None` if a part of it has no literal.
fn literal(ctx: &Context<'_>, value: &DefaultValue) -> Option<TokenStream> {
    let k8s = &ctx.paths.k8s_openapi;
    let json = &ctx.paths.serde_json;
    let string = |s: &str| quote! { ::std::string::String::from(#s) };
    let entries = |entries: &[(String, DefaultValue)]| {
        entries
            .iter()
            .map(|(k, v)| {
                let v = literal(ctx, v)?;
                Some(quote! { (::std::string::String::from(#k), #v) })
            })
            .collect::<Option<Vec<_>>>()
    };
    Some(match value {
        DefaultValue::String(s) => string(s),
        DefaultValue::Bool(b) => quote! { #b },
        DefaultValue::Int(n) => signed(*n, false),
        DefaultValue::Number(n) => {
            let n = signed(*n, true);
            quote! { #json::Number::from(#n) }
        }
        // A JSON number is finite, so `from_f64` gives the `Some` this stands for.
        DefaultValue::SomeFraction(f) => {
            let f = float(*f);
            quote! { #json::Number::from_f64(#f) }
        }
        DefaultValue::Quantity(s) => {
            let s = string(s);
            quote! { #k8s::apimachinery::pkg::api::resource::Quantity(#s) }
        }
        DefaultValue::IntOrStringInt(n) => {
            let n = signed(i64::from(*n), false);
            quote! { #k8s::apimachinery::pkg::util::intstr::IntOrString::Int(#n) }
        }
        DefaultValue::IntOrStringString(s) => {
            let s = string(s);
            quote! { #k8s::apimachinery::pkg::util::intstr::IntOrString::String(#s) }
        }
        DefaultValue::Json(v) => json_literal(ctx, v),
        DefaultValue::List(items) => {
            let items = items
                .iter()
                .map(|v| literal(ctx, v))
                .collect::<Option<Vec<_>>>()?;
            quote! { ::std::vec::Vec::from([#(#items),*]) }
        }
        DefaultValue::Map(map) => {
            let map = entries(map)?;
            quote! { ::std::collections::BTreeMap::from([#(#map),*]) }
        }
        DefaultValue::None => quote! { ::core::option::Option::None },
        DefaultValue::Some(inner) => {
            let inner = literal(ctx, inner)?;
            quote! { ::core::option::Option::Some(#inner) }
        }
        DefaultValue::Boxed(inner) => {
            let inner = literal(ctx, inner)?;
            quote! { ::std::boxed::Box::new(#inner) }
        }
        DefaultValue::Struct {
            name,
            fields,
            additional,
        } => {
            let path = named(ctx, name);
            let fields = fields
                .iter()
                .map(|(field, v)| {
                    let field = ident(field);
                    let v = literal(ctx, v)?;
                    Some(quote! { #field: #v, })
                })
                .collect::<Option<Vec<_>>>()?;
            let additional = match additional {
                Some((field, map)) => {
                    let field = ident(field);
                    let map = entries(map)?;
                    quote! { #field: ::std::collections::BTreeMap::from([#(#map),*]), }
                }
                None => TokenStream::new(),
            };
            quote! { #path { #(#fields)* #additional } }
        }
        DefaultValue::Variant { ty, variant } => {
            let path = named(ctx, ty);
            let variant = ident(variant);
            quote! { #path::#variant }
        }
        DefaultValue::ExternalDefault => quote! { ::core::default::Default::default() },
        DefaultValue::Deserialized(_) => return None,
    })
}

/// An integer literal, unsuffixed (for a typed place) or `i64`; negative ones as `-n` (a
/// literal token is never negative).
fn signed(n: i64, suffixed: bool) -> TokenStream {
    if n == i64::MIN {
        return quote! { ::core::primitive::i64::MIN };
    }
    let abs = n.abs();
    let abs = if suffixed {
        Literal::i64_suffixed(abs)
    } else {
        Literal::i64_unsuffixed(abs)
    };
    if n < 0 {
        quote! { -#abs }
    } else {
        quote! { #abs }
    }
}

/// An `f64` literal; negative ones as `-n`.
fn float(f: f64) -> TokenStream {
    let abs = Literal::f64_suffixed(f.abs());
    if f.is_sign_negative() {
        quote! { -#abs }
    } else {
        quote! { #abs }
    }
}

/// A JSON value as a `serde_json::Value` expression.
fn json_literal(ctx: &Context<'_>, value: &Value) -> TokenStream {
    let json = &ctx.paths.serde_json;
    match value {
        Value::Null => quote! { #json::Value::Null },
        Value::Bool(b) => quote! { #json::Value::Bool(#b) },
        Value::Number(n) => {
            let n = match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => signed(i, true),
                (None, Some(u)) => {
                    let u = Literal::u64_suffixed(u);
                    quote! { #u }
                }
                (None, None) => float(n.as_f64().unwrap_or_default()),
            };
            quote! { #json::Value::from(#n) }
        }
        Value::String(s) => quote! { #json::Value::String(::std::string::String::from(#s)) },
        Value::Array(items) => {
            let items = items.iter().map(|v| json_literal(ctx, v));
            quote! { #json::Value::Array(::std::vec::Vec::from([#(#items),*])) }
        }
        Value::Object(map) => {
            let entries = map.iter().map(|(k, v)| {
                let v = json_literal(ctx, v);
                quote! { (::std::string::String::from(#k), #v) }
            });
            quote! {
                #json::Value::Object(::core::iter::FromIterator::from_iter([#(#entries),*]))
            }
        }
    }
}
