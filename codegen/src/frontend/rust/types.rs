//! A `#[derive(Resource)]` struct's fields as model fields: wire names (camelCase or
//! `#[resource(rename = "...")]`), optionality, and an approximate [`TypeRef`] for each
//! type as written (kubegen reads the struct, it does not compile it).

use syn::{Data, DeriveInput, Fields, Type};

use super::errors::Errors;
use super::{attrs, field};
use crate::model::{ExternalType, Field, TypeRef};
use crate::naming;

/// The struct's fields, or `None` (with errors recorded) when it is not a struct with
/// named fields and an `ObjectMeta` `metadata` field.
pub(super) fn root_fields(input: &DeriveInput, errors: &mut Errors) -> Option<Vec<Field>> {
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
    for f in &named.named {
        let ident = f.ident.as_ref()?;
        let rust_name = ident.to_string();
        let rename = attrs::field_rename(&f.attrs, errors);
        let wire_name = rename.unwrap_or_else(|| naming::root_wire_name(&rust_name));
        let optional = option_inner(&f.ty).is_some();
        if wire_name == "metadata" && (optional || !is_object_meta(&f.ty)) {
            errors.spanned(
                &f.ty,
                "`metadata` must be `ObjectMeta` (k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)",
            );
        }
        if wire_name == "apiVersion" || wire_name == "kind" {
            errors.spanned(
                ident,
                format!("remove the `{wire_name}` field: the derive writes `apiVersion` and `kind` itself"),
            );
        }
        fields.push(field(rust_name, wire_name, &f.ty, optional));
    }
    if !fields.iter().any(|f| f.wire_name == "metadata") {
        errors.spanned(
            &input.ident,
            "a resource needs a `metadata: ObjectMeta` field",
        );
    }
    Some(fields)
}

/// `Some(T)` when `ty` is `Option<T>` (or `std::option::Option<T>`...).
pub(super) fn option_inner(ty: &Type) -> Option<&Type> {
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

/// The model's reference for a field type written in Rust. Types defined in the user's
/// crate (and any type kubegen has no variant for) are external, by the path as written.
pub(super) fn type_ref(ty: &Type) -> TypeRef {
    let Type::Path(path) = ty else {
        return TypeRef::External(ExternalType::new(
            quote::ToTokens::to_token_stream(ty).to_string(),
            false,
        ));
    };
    let Some(last) = path.path.segments.last() else {
        return TypeRef::Json;
    };
    let args = type_args(last);
    let name = last.ident.to_string();
    match (name.as_str(), args.as_slice()) {
        ("String", []) => TypeRef::String,
        ("bool", []) => TypeRef::Bool,
        ("i32", []) => TypeRef::I32,
        ("i64", []) => TypeRef::I64,
        ("f64", []) => TypeRef::F64,
        ("Value", []) => TypeRef::Json,
        ("ObjectMeta", []) => TypeRef::External(ExternalType::object_meta()),
        ("Vec", [inner]) => TypeRef::vec(type_ref(inner)),
        ("Option", [inner]) => TypeRef::option(type_ref(inner)),
        ("Box", [inner]) => TypeRef::Boxed(Box::new(type_ref(inner))),
        ("BTreeMap" | "HashMap", [_, value]) => TypeRef::map(type_ref(value)),
        _ => {
            let path = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            TypeRef::External(ExternalType::new(path, false))
        }
    }
}

/// The type arguments of a path segment (`K, V` of `BTreeMap<K, V>`), lifetimes and
/// constants left out.
pub(super) fn type_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
