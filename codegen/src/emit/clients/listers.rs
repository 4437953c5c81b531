//! Per-kind listers: `FooLister` over the runtime's `Lister<K>`, with client-go's shape
//! (`lister.foos(ns).get(name)`, `lister.list(&selector)`; cluster-scoped kinds get
//! `get(name)` directly).

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{Clients, nest};
use crate::emit::common::{Error, GeneratedFile, file};
use crate::model::Scope;

/// The listers file.
pub(super) fn listers(clients: &Clients<'_>) -> Result<GeneratedFile, Error> {
    let facade = &clients.facade;
    let lister = quote! { #facade::runtime::lister };
    let modules = nest(
        clients,
        |group, version| {
            let mut items = TokenStream::new();
            for kind in version.kinds.values() {
                let ty = clients.type_path(group, version, kind);
                let name = clients.kind_ident(group, version, kind, "Lister");
                let plural = &kind.names.plural;
                let scoped = match kind.scope {
                    Scope::Namespaced => {
                        let method = clients.accessor(group, version, kind);
                        let doc = format!(" The cached `{plural}` of `namespace`.");
                        quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #method(&self, namespace: &str) -> #lister::NamespaceLister<#ty> {
                                self.0.namespace(namespace)
                            }
                        }
                    }
                    Scope::Cluster => {
                        let doc = format!(" The cached `{plural}` object called `name`.");
                        quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn get(&self, name: &str) -> ::core::option::Option<::std::sync::Arc<#ty>> {
                                self.0.get(name)
                            }
                        }
                    }
                };
                let doc = format!(" Reads `{plural}` from an informer's cache.");
                let list_doc =
                    format!(" Every cached object of `{plural}` that `selector` matches.");
                items.extend(quote! {
                    #[doc = #doc]
                    #[derive(Clone, Debug)]
                    pub struct #name(#lister::Lister<#ty>);

                    impl #name {
                        /// A lister over a cache.
                        #[inline]
                        pub fn new(lister: #lister::Lister<#ty>) -> Self {
                            Self(lister)
                        }

                        #[doc = #list_doc]
                        #[inline]
                        pub fn list(&self, selector: &#lister::Selector) -> ::std::vec::Vec<::std::sync::Arc<#ty>> {
                            self.0.list(selector)
                        }

                        #scoped

                        /// The generic lister (keys, indexes).
                        #[inline]
                        pub fn lister(&self) -> &#lister::Lister<#ty> {
                            &self.0
                        }
                    }
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
