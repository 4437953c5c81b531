//! Informers and the factory wrapper:
//! `factory.samplecontroller().v1alpha1().foos().informer()` / `.lister()`, over the
//! facade's `gentype::InformerFactory` (namespace, selectors and tweak hook included);
//! each kind's `FooInformer` is a name for `gentype::Informer<Foo>`. Only kinds that are
//! listed and watched get one; groups and versions without such a kind get no accessor.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{Clients, Select, nest};
use crate::emit::common::{Error, ident};
use crate::emit::generated::{GeneratedFile, file};
use crate::naming;

/// The informers file.
pub(super) fn informers(clients: &Clients<'_>) -> Result<GeneratedFile, Error> {
    let facade = &clients.facade;
    let factory = quote! { #facade::gentype::InformerFactory };
    let groups = clients.groups(Select::Informable).into_iter().map(|group| {
        let name = clients.group_name(group);
        let module = ident(&group.module);
        let doc = format!(" Informers of {}.", naming::describe_group(&group.name));
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(&self) -> #module::Group {
                #module::Group::new(self.factory.clone())
            }
        }
    });
    let modules = nest(
        clients,
        Select::Informable,
        |group, version| {
            let mut accessors = TokenStream::new();
            let mut items = TokenStream::new();
            for kind in Select::Informable.kinds(version) {
                let ty = clients.type_path(group, version, kind);
                let informer = clients.kind_ident(group, version, kind, "Informer");
                let method = clients.accessor(group, version, kind);
                let doc = format!(" The shared informer of `{}`.", kind.names.plural);
                accessors.extend(quote! {
                    #[doc = #doc]
                    #[inline]
                    pub fn #method(&self) -> #informer {
                        #informer::new(self.factory.clone())
                    }
                });
                items.extend(quote! {
                    #[doc = #doc]
                    pub type #informer = #facade::gentype::Informer<#ty>;
                });
            }
            let doc = format!(
                " Informers of `{}`.",
                naming::api_version(&group.name, &version.name)
            );
            Ok(quote! {
                #[doc = #doc]
                #[derive(Clone, Debug)]
                pub struct Version {
                    factory: #factory,
                }

                impl Version {
                    /// The informers of `factory`.
                    #[inline]
                    pub fn new(factory: #factory) -> Self {
                        Self { factory }
                    }

                    #accessors
                }

                #items
            })
        },
        |group| {
            let doc = format!(" Informers of {}.", naming::describe_group(&group.name));
            let versions = group
                .versions
                .values()
                .filter(|v| Select::Informable.any(v))
                .map(|v| {
                    let name = ident(&v.module);
                    let doc = format!(
                        " Informers of `{}`.",
                        naming::api_version(&group.name, &v.name)
                    );
                    quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #name(&self) -> #name::Version {
                            #name::Version::new(self.factory.clone())
                        }
                    }
                });
            quote! {
                #[doc = #doc]
                #[derive(Clone, Debug)]
                pub struct Group {
                    factory: #factory,
                }

                impl Group {
                    /// The informers of `factory`.
                    #[inline]
                    pub fn new(factory: #factory) -> Self {
                        Self { factory }
                    }

                    #(#versions)*
                }
            }
        },
    )?;
    let tokens = quote! {
        //! Shared informers, one accessor per group and version.

        /// Informers of every group, like client-go's generated `SharedInformerFactory`.
        #[derive(Clone, Debug)]
        pub struct InformerFactory {
            factory: #factory,
        }

        impl InformerFactory {
            /// Informers from `factory` (its namespace, selectors and tweak apply to all).
            #[inline]
            pub fn new(factory: #factory) -> Self {
                Self { factory }
            }

            /// The underlying factory: `start()`, `wait_for_cache_sync()`, `shutdown()`.
            #[inline]
            pub fn factory(&self) -> &#factory {
                &self.factory
            }

            #(#groups)*
        }

        #modules
    };
    file("informers.rs", tokens)
}
