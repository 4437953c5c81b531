//! Per-kind listers: `FooLister`, a name for the runtime's `Lister<Foo>`
//! (`lister.namespace(ns).get(name)`, `lister.list(&selector)`, `lister.get(name)` for
//! cluster-scoped kinds), for the kinds that are listed and watched.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{Clients, Select, nest};
use crate::emit::common::Error;
use crate::emit::generated::{GeneratedFile, file};

/// The listers file.
pub(super) fn listers(clients: &Clients<'_>) -> Result<GeneratedFile, Error> {
    let facade = &clients.facade;
    let lister = quote! { #facade::runtime::lister };
    let modules = nest(
        clients,
        Select::Informable,
        |group, version| {
            let mut items = TokenStream::new();
            for kind in Select::Informable.kinds(version) {
                let ty = clients.type_path(group, version, kind);
                let name = clients.kind_ident(group, version, kind, "Lister");
                let doc = format!(" Reads `{}` from an informer's cache.", kind.names.plural);
                items.extend(quote! {
                    #[doc = #doc]
                    pub type #name = #lister::Lister<#ty>;
                });
            }
            Ok(items)
        },
        |_| TokenStream::new(),
    )?;
    let tokens = quote! {
        //! Listers: typed, read-only views of informer caches.
        #modules
    };
    file("listers.rs", tokens)
}
