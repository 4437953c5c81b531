//! The resource seam: what a kind's root type gets beyond its fields.
//!
//! Today this is an `impl k8s_openapi::Resource` (+ `ListableResource` and `Metadata`,
//! which give `kube::Resource` through kube's blanket impl) and a `Serialize` impl that
//! writes `apiVersion` and `kind` first (the derived `Deserialize` accepts and ignores
//! them). When kubegen's `Resource` derive lands, [`resource_impls`] is the one function
//! to change: it will emit the derive attributes instead.

use proc_macro2::TokenStream;
use quote::quote;

use super::Error;
use super::types::{Context, ident};
use crate::model::{Scope, StructDef, TypeDef};

/// The impls of the root type `ty` of `kind`, wrapped in `const _: () = { ... };`.
pub(crate) fn resource_impls(
    ctx: &Context<'_>,
    ty: &TypeDef,
    s: &StructDef,
    kind: &str,
) -> Result<TokenStream, Error> {
    let k8s = &ctx.paths.k8s_openapi;
    let serde = &ctx.paths.serde;
    let meta = ctx
        .version
        .kinds
        .get(kind)
        .ok_or_else(|| Error::MissingKind {
            kind: kind.to_owned(),
            version: ctx.version.name.clone(),
        })?;
    let name = ident(&ty.name);
    let group = &ctx.group.name;
    let version = &ctx.version.name;
    let api_version = if group.is_empty() {
        version.clone()
    } else {
        format!("{group}/{version}")
    };
    let plural = &meta.names.plural;
    let list_kind = &meta.names.list_kind;
    let scope = match meta.scope {
        Scope::Namespaced => quote! { #k8s::NamespaceResourceScope },
        Scope::Cluster => quote! { #k8s::ClusterResourceScope },
    };

    let entries = s.fields.iter().map(|field| {
        let wire = &field.wire_name;
        let rust = ident(&field.rust_name);
        if field.required {
            quote! { map.serialize_entry(#wire, &self.#rust)?; }
        } else {
            quote! {
                if let Some(value) = &self.#rust {
                    map.serialize_entry(#wire, value)?;
                }
            }
        }
    });
    let additional = s.additional.as_ref().map(|extra| {
        let rust = ident(&extra.rust_name);
        quote! {
            for (key, value) in &self.#rust {
                if key != "apiVersion" && key != "kind" {
                    map.serialize_entry(key, value)?;
                }
            }
        }
    });

    Ok(quote! {
        const _: () = {
            impl #k8s::Resource for #name {
                const API_VERSION: &'static str = #api_version;
                const GROUP: &'static str = #group;
                const KIND: &'static str = #kind;
                const VERSION: &'static str = #version;
                const URL_PATH_SEGMENT: &'static str = #plural;
                type Scope = #scope;
            }

            impl #k8s::ListableResource for #name {
                const LIST_KIND: &'static str = #list_kind;
            }

            impl #k8s::Metadata for #name {
                type Ty = #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;

                fn metadata(&self) -> &Self::Ty {
                    &self.metadata
                }

                fn metadata_mut(&mut self) -> &mut Self::Ty {
                    &mut self.metadata
                }
            }

            impl #serde::Serialize for #name {
                fn serialize<S>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error>
                where
                    S: #serde::Serializer,
                {
                    use #serde::ser::SerializeMap as _;
                    let mut map = serializer.serialize_map(None)?;
                    map.serialize_entry("apiVersion", <Self as #k8s::Resource>::API_VERSION)?;
                    map.serialize_entry("kind", <Self as #k8s::Resource>::KIND)?;
                    #(#entries)*
                    #additional
                    map.end()
                }
            }
        };
    })
}
