//! The clientset: one accessor per group-version, one client per kind.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{Clients, Select, nest, version_path};
use crate::emit::common::Error;
use crate::emit::generated::{GeneratedFile, file};
use crate::model::{ClientVerb, ClientVerbs, Scope};
use crate::naming;

/// The clientset file.
pub(super) fn clientset(clients: &Clients<'_>) -> Result<GeneratedFile, Error> {
    let facade = &clients.facade;
    let kube = quote! { #facade::__private::kube };
    let accessors = clients.versions().map(|(group, version)| {
        let name = clients.version_name(group, version);
        let path = version_path(group, version);
        let doc = format!(
            " The client of `{}`.",
            naming::api_version(&group.name, &version.name)
        );
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(&self) -> #path::Client {
                #path::Client::new(self.client.clone())
            }
        }
    });
    let modules = nest(
        clients,
        Select::All,
        |group, version| {
            let mut kinds = TokenStream::new();
            let mut aliases = TokenStream::new();
            for kind in version.kinds.values() {
                let ty = clients.type_path(group, version, kind);
                let client = clients.kind_ident(group, version, kind, "Client");
                let method = clients.accessor(group, version, kind);
                let status = kind.subresources.status && !kind.client_verbs.no_status;
                let subresources = match (status, &kind.subresources.scale) {
                    (false, None) => quote! { None },
                    (true, None) => quote! { Status },
                    (false, Some(_)) => quote! { Scale },
                    (true, Some(_)) => quote! { StatusAndScale },
                };
                let verbs = verb_set(&kind.client_verbs, facade);
                let plural = &kind.names.plural;
                kinds.extend(match kind.scope {
                    Scope::Namespaced => {
                        let doc = format!(" `{plural}` in `namespace` (`\"\"`: all namespaces).");
                        quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #method(&self, namespace: &str) -> #client {
                                #facade::gentype::namespaced(self.client.clone(), namespace)
                            }
                        }
                    }
                    Scope::Cluster => {
                        let doc = format!(" `{plural}` (cluster-scoped).");
                        quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #method(&self) -> #client {
                                #facade::gentype::cluster(self.client.clone())
                            }
                        }
                    }
                });
                let doc = format!(" The typed client of `{plural}`.");
                aliases.extend(quote! {
                    #[doc = #doc]
                    pub type #client = #facade::gentype::ResourceClient<#ty, #facade::gentype::subresources::#subresources #verbs>;
                });
            }
            let doc = format!(
                " Clients of `{}` kinds.",
                naming::api_version(&group.name, &version.name)
            );
            Ok(quote! {
                #[doc = #doc]
                #[derive(Clone)]
                pub struct Client {
                    client: #kube::Client,
                }

                impl Client {
                    /// A client over `client`.
                    #[inline]
                    pub fn new(client: #kube::Client) -> Self {
                        Self { client }
                    }

                    #kinds
                }

                #aliases
            })
        },
        |_| TokenStream::new(),
    )?;
    let tokens = quote! {
        //! Typed clients, one accessor per group-version.

        /// Typed clients of every group-version, like client-go's `Clientset`.
        #[derive(Clone)]
        pub struct Clientset {
            client: #kube::Client,
        }

        impl Clientset {
            /// A clientset over `client`.
            #[inline]
            pub fn new(client: #kube::Client) -> Self {
                Self { client }
            }

            #(#accessors)*
        }

        #modules
    };
    file("clientset.rs", tokens)
}

/// The verb-set argument of a kind's `ResourceClient` (after a comma), or nothing for
/// every verb (the alias's default).
fn verb_set(verbs: &ClientVerbs, facade: &TokenStream) -> TokenStream {
    if verbs.is_all() {
        TokenStream::new()
    } else if verbs.is_read_only() {
        quote! { , #facade::gentype::verbs::ReadOnly }
    } else {
        let slots = ClientVerb::ALL.map(|verb| {
            if verbs.verbs.contains(&verb) {
                quote! { #facade::gentype::verbs::Yes }
            } else {
                quote! { #facade::gentype::verbs::No }
            }
        });
        quote! { , #facade::gentype::verbs::Verbs<#(#slots),*> }
    }
}
