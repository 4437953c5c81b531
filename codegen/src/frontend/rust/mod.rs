//! The Rust front-end: annotated Rust types, read with syn (nothing is compiled).
//!
//! Two callers share it:
//!
//! - the derives in `kubegen-derive`: [`deep_copy`] turns a `#[derive(DeepCopy)]` input
//!   into a [`CopyDef`], and [`resource`] turns a
//!   `#[derive(Resource)]` struct and its `#[resource(...)]` attributes into a
//!   [`ResourceDef`] holding the model's [`Kind`];
//! - `kubegen generate --rust <dir>`: [`load`] finds the `#[derive(Resource)]` structs of
//!   every `.rs` file and adds their groups, versions and kinds to a [`Model`](crate::model::Model), the same
//!   model the CRD front-end builds for the same kinds.
//!
//! ```
//! use kubegen_codegen::frontend::rust;
//!
//! let input: syn::DeriveInput = syn::parse_quote! {
//!     #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", status, shortname = "fo")]
//!     pub struct Foo {
//!         pub metadata: ObjectMeta,
//!         pub spec: FooSpec,
//!         pub status: Option<FooStatus>,
//!     }
//! };
//! let def = rust::resource(&input).unwrap();
//! assert_eq!(def.kind.names.plural, "foos");
//! assert_eq!(def.kind.names.list_kind, "FooList");
//! assert!(def.kind.subresources.status);
//! ```

mod attrs;
mod errors;
mod files;

pub use errors::did_you_mean;
pub use files::{Error, RustApis, load, read_dir};

use syn::{Data, DeriveInput, Fields, GenericParam, Type};

use crate::emit::deepcopy::{CopyBody, CopyDef, CopyFields, Generics};
use crate::emit::resource::{ResourceDef, RootField};
use crate::model::{Kind, KindNames, Scope, Subresources};
use crate::naming;
use attrs::{ResourceAttrs, Spanned};
use errors::Errors;

/// The shape of a `#[derive(DeepCopy)]` input.
///
/// Unions are rejected (a union's active field is unknown, so it cannot be cloned field
/// by field).
pub fn deep_copy(input: &DeriveInput) -> syn::Result<CopyDef> {
    let body = match &input.data {
        Data::Struct(s) => CopyBody::Struct(copy_fields(&s.fields)),
        Data::Enum(e) => CopyBody::Enum(
            e.variants
                .iter()
                .map(|v| (v.ident.to_string(), copy_fields(&v.fields)))
                .collect(),
        ),
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "DeepCopy cannot be derived for unions: the active field is unknown; \
                 implement Clone by hand",
            ));
        }
    };
    Ok(CopyDef {
        name: input.ident.to_string(),
        generics: generics(&input.generics),
        body,
    })
}

fn copy_fields(fields: &Fields) -> CopyFields {
    match fields {
        Fields::Named(named) => CopyFields::Named(
            named
                .named
                .iter()
                .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                .collect(),
        ),
        Fields::Unnamed(unnamed) => CopyFields::Unnamed(unnamed.unnamed.len()),
        Fields::Unit => CopyFields::Unit,
    }
}

fn generics(generics: &syn::Generics) -> Generics {
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    Generics {
        impl_params: quote::quote! { #impl_generics },
        type_args: quote::quote! { #type_generics },
        where_predicates: where_clause
            .map(|w| w.predicates.iter().map(|p| quote::quote! { #p }).collect())
            .unwrap_or_default(),
        type_params: generics
            .params
            .iter()
            .filter_map(|p| match p {
                GenericParam::Type(t) => Some(t.ident.to_string()),
                _ => None,
            })
            .collect(),
    }
}

/// The root type described by a `#[derive(Resource)]` struct.
///
/// Every problem (unknown or misspelled keys, invalid names, a missing `metadata` field,
/// `status` declared without a `status` field...) is reported, each with its span, in one
/// combined error.
pub fn resource(input: &DeriveInput) -> syn::Result<ResourceDef> {
    let mut errors = Errors::default();
    let attrs = attrs::resource_attrs(&input.attrs, &mut errors);
    let def = build_resource(input, &attrs, &mut errors);
    match errors.finish() {
        Some(error) => Err(error),
        None => def.ok_or_else(|| syn::Error::new(input.ident.span(), "invalid resource")),
    }
}

/// The path of the `kubegen` facade named by `#[resource(crate = "...")]`, if any.
pub fn facade_path(input: &DeriveInput) -> Option<syn::Path> {
    attrs::resource_attrs(&input.attrs, &mut Errors::default()).krate
}

fn build_resource(
    input: &DeriveInput,
    attrs: &ResourceAttrs,
    errors: &mut Errors,
) -> Option<ResourceDef> {
    let name = &input.ident;
    if !attrs.present {
        errors.spanned(
            name,
            "#[derive(Resource)] needs #[resource(group = \"...\", version = \"...\")]",
        );
    } else {
        if attrs.group.is_none() {
            errors.spanned(name, "missing `group = \"...\"` in #[resource(...)]");
        }
        if attrs.version.is_none() {
            errors.spanned(name, "missing `version = \"...\"` in #[resource(...)]");
        }
    }
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            "Resource cannot be derived for generic structs: a kind has one concrete schema",
        );
    }
    let fields = root_fields(input, errors);
    let has_status = fields
        .iter()
        .flatten()
        .any(|(field, _)| field.wire_name == "status");
    if let (Some(span), false) = (attrs.status, has_status) {
        errors.push(syn::Error::new(
            span,
            "`status` declares the status subresource, but the struct has no `status` field",
        ));
    }
    let fields = fields?;
    let kind_name = attrs
        .kind
        .as_ref()
        .map_or_else(|| name.to_string(), |k| k.value.clone());
    let value = |v: &Option<Spanned<String>>| v.as_ref().map(|s| s.value.clone());
    let plural = value(&attrs.plural).unwrap_or_else(|| naming::plural(&kind_name));
    let kind = Kind {
        names: KindNames {
            singular: value(&attrs.singular).unwrap_or_else(|| kind_name.to_ascii_lowercase()),
            plural,
            short_names: attrs.short_names.clone(),
            categories: attrs.categories.clone(),
            list_kind: format!("{kind_name}List"),
        },
        scope: attrs.scope.as_ref().map_or(Scope::Namespaced, |s| s.value),
        served: true,
        storage: true,
        deprecated: None,
        subresources: Subresources {
            status: attrs.status.is_some(),
            scale: attrs.scale.clone(),
        },
        printer_columns: attrs.printer_columns.clone(),
        selectable_fields: attrs.selectable.clone(),
        root_type: name.to_string(),
        module: naming::kind_module(&kind_name),
        name: kind_name,
    };
    Some(ResourceDef {
        type_name: name.to_string(),
        group: value(&attrs.group)?,
        version: value(&attrs.version)?,
        kind,
        fields: fields.into_iter().map(|(field, _)| field).collect(),
        additional: None,
        docs: docs(&input.attrs),
    })
}

/// The struct's fields with their types, or `None` (with errors recorded) when it is not
/// a struct with named fields and an `ObjectMeta` `metadata` field.
pub(crate) fn root_fields<'a>(
    input: &'a DeriveInput,
    errors: &mut Errors,
) -> Option<Vec<(RootField, &'a Type)>> {
    let Data::Struct(data) = &input.data else {
        errors.spanned(
            &input.ident,
            "Resource can only be derived for structs with `metadata`, `spec` and optional `status` fields",
        );
        return None;
    };
    let Fields::Named(named) = &data.fields else {
        errors.spanned(
            &input.ident,
            "Resource needs named fields: `metadata: ObjectMeta`, `spec`, optional `status`",
        );
        return None;
    };
    let mut fields = Vec::new();
    for field in &named.named {
        let ident = field.ident.as_ref()?;
        let rust_name = ident.to_string();
        let plain = rust_name.trim_start_matches("r#");
        let rename = attrs::field_rename(&field.attrs, errors);
        let wire_name = rename.unwrap_or_else(|| lower_camel(plain));
        let optional = option_inner(&field.ty).is_some();
        if wire_name == "metadata" && (optional || !is_object_meta(&field.ty)) {
            errors.spanned(
                &field.ty,
                "`metadata` must be `ObjectMeta` (k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)",
            );
        }
        if wire_name == "apiVersion" || wire_name == "kind" {
            errors.spanned(
                ident,
                format!("remove the `{wire_name}` field: the derive writes `apiVersion` and `kind` itself"),
            );
        }
        fields.push((
            RootField {
                rust_name,
                wire_name,
                optional,
            },
            &field.ty,
        ));
    }
    if !fields.iter().any(|(f, _)| f.wire_name == "metadata") {
        errors.spanned(
            &input.ident,
            "a resource needs a `metadata: ObjectMeta` field",
        );
    }
    Some(fields)
}

/// `Some(T)` when `ty` is `Option<T>` (or `std::option::Option<T>`...).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

fn is_object_meta(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "ObjectMeta"))
}

fn lower_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The text of the `///` comments among `attrs`, trimmed, or `None`.
fn docs(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
