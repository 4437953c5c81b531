//! Structs, string enums and unions for one module of a version.

use std::collections::HashSet;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use super::Context;
use crate::emit::common::{
    Error, NamedType, Paths, allow_type_complexity, ident, rust_type, type_path,
};
use crate::emit::docs::{doc_attrs, validation_docs};
use crate::emit::resource;
use crate::emit::serde_macro;
use crate::model::{EnumDef, Field, Resource, StructDef, TypeDef, TypeDefKind, TypeRef, UnionDef};

/// Items for every type of `ctx.module`, in the version's order.
pub(super) fn module_items(ctx: &Context<'_>) -> Result<TokenStream, Error> {
    let mut items = TokenStream::new();
    let mut structs = false;
    // The version's structs, whose fields `__kubegen_serde!` reads `boxed`.
    let struct_names: HashSet<&str> = ctx
        .version
        .types
        .iter()
        .filter(|t| matches!(t.kind, TypeDefKind::Struct(_)))
        .map(|t| t.name.as_str())
        .collect();
    for ty in ctx.version.types.iter().filter(|t| t.module == ctx.module) {
        items.extend(match &ty.kind {
            TypeDefKind::Struct(s) => {
                structs = true;
                struct_item(ctx, ty, s, &struct_names)?
            }
            TypeDefKind::Enum(e) => enum_item(ctx, ty, e),
            TypeDefKind::Union(u) => union_item(ctx, ty, u)?,
        });
    }
    if !structs {
        return Ok(items);
    }
    // Streams are moved, not interpolated: `quote!` copies what it interpolates.
    let mut module = serde_macro::module_import();
    module.extend(items);
    Ok(module)
}

fn serde_crate_attr(paths: &Paths) -> TokenStream {
    if paths.serde_is_default() {
        TokenStream::new()
    } else {
        let path = paths.serde.to_string().replace(' ', "");
        quote! { #[serde(crate = #path)] }
    }
}

fn struct_item(
    ctx: &Context<'_>,
    ty: &TypeDef,
    s: &StructDef,
    struct_names: &HashSet<&str>,
) -> Result<TokenStream, Error> {
    let name = ident(&ty.name);
    let mut docs = ty.docs.clone().unwrap_or_default();
    // A root type lists what the API server checks on the whole object.
    let kind = s.root.as_ref().and_then(|r| ctx.version.kinds.get(&r.kind));
    if let Some(rules) = kind.and_then(|k| validation_docs(&k.validation)) {
        if !docs.is_empty() {
            docs.push_str("\n\n");
        }
        docs.push_str(&rules);
    }
    let docs = doc_attrs(&docs);
    let root = s.root.is_some();
    let fields = s
        .fields
        .iter()
        .map(|f| field_tokens(ctx, f, root))
        .collect::<Result<Vec<_>, _>>()?;
    let additional = match &s.additional {
        Some(extra) => {
            let field = ident(&extra.rust_name);
            let value = type_tokens(ctx, &extra.value)?;
            Some(quote! {
                /// Properties not declared by the schema, kept as they are.
                pub #field: ::std::collections::BTreeMap<String, #value>,
            })
        }
        None => None,
    };
    let default = ctx
        .defaultable
        .contains(&ty.name)
        .then(|| quote! { Default, });
    let impls = match &s.root {
        Some(root) => {
            let kind = ctx
                .version
                .kinds
                .get(&root.kind)
                .ok_or_else(|| Error::MissingKind {
                    kind: root.kind.clone(),
                    version: ctx.version.name.clone(),
                })?;
            let resource = Resource {
                group: ctx.group,
                version: ctx.version,
                kind,
                root: ty,
                fields: s,
            };
            let impls = resource::root_impls(&resource, ctx.paths);
            quote! { const _: () = { #impls }; }
        }
        None => TokenStream::new(),
    };
    let serde = serde_macro::type_invocation(&ty.name, s, |named| struct_names.contains(named));
    // Generated types derive `Clone`: the derive is what rustc compiles fastest, and a
    // field-wise `clone_from` is for hand-written types that ask for `#[derive(DeepCopy)]`.
    let defaults = super::defaults::struct_impl(ctx, ty, s);
    let mut body = TokenStream::new();
    body.extend(fields);
    body.extend(additional);
    let mut item = docs;
    item.extend(quote! {
        #[derive(Clone, Debug, #default PartialEq)]
        pub struct #name
    });
    item.extend([TokenTree::Group(proc_macro2::Group::new(
        Delimiter::Brace,
        body,
    ))]);
    item.extend([serde, impls, defaults]);
    Ok(item)
}

fn field_tokens(ctx: &Context<'_>, field: &Field, root: bool) -> Result<TokenStream, Error> {
    let name = ident(&field.rust_name);
    let ty = serde_macro::field_type(field, root, type_tokens(ctx, &field.ty)?);
    let mut docs = field.docs.clone().unwrap_or_default();
    if let Some(default) = &field.default {
        if !docs.is_empty() {
            docs.push_str("\n\n");
        }
        docs.push_str(&format!("Defaults to `{default}` (set by the API server)."));
    }
    if let Some(validation) = validation_docs(&field.validation) {
        if !docs.is_empty() {
            docs.push_str("\n\n");
        }
        docs.push_str(&validation);
    }
    let mut tokens = doc_attrs(&docs);
    tokens.extend(allow_type_complexity(&serde_macro::field_ref(field, root)));
    tokens.extend(quote! { pub #name: });
    tokens.extend(ty);
    tokens.extend(quote! { , });
    Ok(tokens)
}

fn enum_item(ctx: &Context<'_>, ty: &TypeDef, e: &EnumDef) -> TokenStream {
    let name = ident(&ty.name);
    let docs = doc_attrs(ty.docs.as_deref().unwrap_or_default());
    let variants = e.variants.iter().map(|v| {
        let variant = ident(&v.rust_name);
        let doc = format!(" `{}`", v.wire.replace('`', "'"));
        quote! {
            #[doc = #doc]
            #variant,
        }
    });
    // serde's derive handles an enum without variants, which the macro does not.
    let (derive_serde, serde_crate, serde_impls) = if e.variants.is_empty() {
        let serde = &ctx.paths.serde;
        let derive = quote! { , #serde::Serialize, #serde::Deserialize };
        (Some(derive), serde_crate_attr(ctx.paths), None)
    } else {
        let pairs = e
            .variants
            .iter()
            .map(|v| (v.rust_name.as_str(), v.wire.as_str()));
        let impls = serde_macro::enum_invocation(&ty.name, pairs);
        (None, TokenStream::new(), Some(impls))
    };
    quote! {
        #docs
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord #derive_serde)]
        #serde_crate
        pub enum #name {
            #(#variants)*
        }
        #serde_impls
    }
}

fn union_item(ctx: &Context<'_>, ty: &TypeDef, u: &UnionDef) -> Result<TokenStream, Error> {
    let serde = &ctx.paths.serde;
    let name = ident(&ty.name);
    let docs = doc_attrs(ty.docs.as_deref().unwrap_or_default());
    let serde_crate = serde_crate_attr(ctx.paths);
    let variants = u
        .variants
        .iter()
        .map(|v| {
            let variant = ident(&v.rust_name);
            let inner = type_tokens(ctx, &v.ty)?;
            let doc = format!(" A `{}` value.", v.ty);
            Ok(quote! {
                #[doc = #doc]
                #variant(#inner),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(quote! {
        #docs
        #[derive(Clone, Debug, PartialEq, #serde::Serialize, #serde::Deserialize)]
        #[serde(untagged)]
        #serde_crate
        pub enum #name {
            #(#variants)*
        }
    })
}

/// The Rust type for a reference: a named type is a sibling in this module or in
/// another version module (`super::`).
fn type_tokens(ctx: &Context<'_>, ty: &TypeRef) -> Result<TokenStream, Error> {
    rust_type(ctx.paths, ty, &|named| match named {
        NamedType::Model(name) => {
            let same_module = ctx.type_modules.get(name).is_none_or(|m| *m == ctx.module);
            let name = ident(name);
            Ok(if same_module {
                quote! { #name }
            } else {
                quote! { super::#name }
            })
        }
        NamedType::External(external) => type_path(&external.path, &ctx.paths.k8s_openapi),
    })
}
