//! What a kind's root type gets beyond its fields: the resource impls.
//!
//! Both the types emitter (for root types generated from CRDs and OpenAPI documents) and
//! `#[derive(Resource)]` (for root types written by hand) emit from the same model data, a
//! [`Resource`] (group, version, kind and root struct), so the two kinds of root type
//! implement the same traits the same way:
//!
//! - `k8s_openapi::Resource` + `ListableResource` + `Metadata`. kube implements
//!   `kube::Resource` for every type with these (`DynamicType = ()`), exactly as it does for
//!   k8s-openapi's own types, so the runtime generics (`TypedClient<K>`, `Lister<K>`,
//!   `SharedInformer<K>`) and generated code treat derived, generated and built-in types
//!   alike, and `Api<K>` gets `LIST_KIND` for lists.
//! - `Serialize`, writing `apiVersion` and `kind` first, then the fields (optional ones
//!   only when set), so no `TypeMeta` field is needed.
//! - With [`Emit::deserialize`], `Deserialize` too (the derive; generated types derive it):
//!   `apiVersion` and `kind` are accepted and ignored, unknown fields are ignored, a missing
//!   `metadata` defaults, missing optional fields are `None`.
//! - With [`Emit::crd`], `fn crd()` / `fn try_crd()` building the CustomResourceDefinition
//!   through the facade's `kubegen::crd` helpers.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::common::{Error, Options, Paths, ident, path};
use crate::model::{Field, Resource, Scope};
use crate::naming;

/// Which impls to emit beyond the resource traits and `Serialize`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Emit {
    /// Emit `Deserialize` (the derive) instead of relying on a derived one.
    pub deserialize: bool,
    /// Emit `crd()`/`try_crd()` using this path to the `kubegen` facade (`::kubegen`).
    pub crd: Option<String>,
}

/// The impls of a root type, wrapped in `const _: () = { ... };` (plus an inherent
/// `impl` with `crd()` when asked for).
pub fn impls(
    resource: &Resource<'_>,
    options: &Options,
    emit: &Emit,
) -> Result<TokenStream, Error> {
    let paths = Paths::new(options)?;
    let impls = root_impls(resource, &paths);
    let deserialize = emit.deserialize.then(|| deserialize_impl(resource, &paths));
    let crd = match &emit.crd {
        Some(facade) => Some(crd_fn(resource, &path(facade)?)),
        None => None,
    };
    Ok(quote! {
        const _: () = {
            #impls
            #deserialize
        };
        #crd
    })
}

/// The resource traits and `Serialize` of a root type, unwrapped (the types emitter puts
/// them in its own `const _`).
pub(crate) fn root_impls(resource: &Resource<'_>, paths: &Paths) -> TokenStream {
    let traits = resource_traits(resource, paths);
    let serialize = serialize_impl(resource, paths);
    quote! {
        #traits
        #serialize
    }
}

/// Whether a root field is an `Option` (skipped when `None`, `None` when absent).
fn optional(field: &Field) -> bool {
    !field.required
}

fn resource_traits(def: &Resource<'_>, paths: &Paths) -> TokenStream {
    let k8s = &paths.k8s_openapi;
    let name = ident(&def.root.name);
    let group = &def.group.name;
    let version = &def.version.name;
    let kind = &def.kind.name;
    let api_version = naming::api_version(group, version);
    let plural = &def.kind.names.plural;
    let list_kind = &def.kind.names.list_kind;
    let scope = match def.kind.scope {
        Scope::Namespaced => quote! { #k8s::NamespaceResourceScope },
        Scope::Cluster => quote! { #k8s::ClusterResourceScope },
    };
    quote! {
        #[automatically_derived]
        impl #k8s::Resource for #name {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const KIND: &'static str = #kind;
            const VERSION: &'static str = #version;
            const URL_PATH_SEGMENT: &'static str = #plural;
            type Scope = #scope;
        }

        #[automatically_derived]
        impl #k8s::ListableResource for #name {
            const LIST_KIND: &'static str = #list_kind;
        }

        #[automatically_derived]
        impl #k8s::Metadata for #name {
            type Ty = #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            fn metadata(&self) -> &Self::Ty {
                &self.metadata
            }

            fn metadata_mut(&mut self) -> &mut Self::Ty {
                &mut self.metadata
            }
        }
    }
}

fn serialize_impl(def: &Resource<'_>, paths: &Paths) -> TokenStream {
    let k8s = &paths.k8s_openapi;
    let serde = &paths.serde;
    let name = ident(&def.root.name);
    let entries = def.fields.fields.iter().map(|field| {
        let wire = &field.wire_name;
        let rust = ident(&field.rust_name);
        if optional(field) {
            quote! {
                if let ::core::option::Option::Some(value) = &self.#rust {
                    map.serialize_entry(#wire, value)?;
                }
            }
        } else {
            quote! { map.serialize_entry(#wire, &self.#rust)?; }
        }
    });
    let additional = def.fields.additional.as_ref().map(|extra| {
        let rust = ident(&extra.rust_name);
        quote! {
            for (key, value) in &self.#rust {
                if key != "apiVersion" && key != "kind" {
                    map.serialize_entry(key, value)?;
                }
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #serde::Serialize for #name {
            fn serialize<S>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error>
            where
                S: #serde::Serializer,
            {
                use #serde::ser::SerializeMap as _;
                let mut map = serializer.serialize_map(::core::option::Option::None)?;
                map.serialize_entry("apiVersion", <Self as #k8s::Resource>::API_VERSION)?;
                map.serialize_entry("kind", <Self as #k8s::Resource>::KIND)?;
                #(#entries)*
                #additional
                map.end()
            }
        }
    }
}

fn deserialize_impl(def: &Resource<'_>, paths: &Paths) -> TokenStream {
    let serde = &paths.serde;
    let name = ident(&def.root.name);
    let api_version = naming::api_version(&def.group.name, &def.version.name);
    let expecting = format!("a {api_version} {} object", def.kind.name);
    let fields = &def.fields.fields;
    let variants: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("Field{i}"))
        .collect();
    let locals: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("field_{i}"))
        .collect();
    let wires: Vec<&str> = fields.iter().map(|f| f.wire_name.as_str()).collect();
    let rust: Vec<_> = fields.iter().map(|f| ident(&f.rust_name)).collect();
    let finish = fields.iter().zip(&locals).map(|(field, local)| {
        let wire = &field.wire_name;
        // Optional fields flatten `Option<Option<T>>`; a missing `metadata` defaults.
        if optional(field) || field.wire_name == "metadata" {
            quote! { #local.unwrap_or_default() }
        } else {
            quote! {
                match #local {
                    ::core::option::Option::Some(value) => value,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(
                            <A::Error as #serde::de::Error>::missing_field(#wire),
                        );
                    }
                }
            }
        }
    });
    // Optional fields deserialize as the whole `Option<T>` (so `null` is `None`); the local
    // is then `Option<Option<T>>`, flattened by `unwrap_or_default`.
    quote! {
        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #name {
            fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
            where
                D: #serde::Deserializer<'de>,
            {
                enum Field {
                    #(#variants,)*
                    Other,
                }

                struct FieldVisitor;

                impl<'de> #serde::de::Visitor<'de> for FieldVisitor {
                    type Value = Field;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str("a field name")
                    }

                    fn visit_str<E>(self, value: &str) -> ::core::result::Result<Field, E>
                    where
                        E: #serde::de::Error,
                    {
                        ::core::result::Result::Ok(match value {
                            #(#wires => Field::#variants,)*
                            _ => Field::Other,
                        })
                    }
                }

                impl<'de> #serde::Deserialize<'de> for Field {
                    fn deserialize<D>(deserializer: D) -> ::core::result::Result<Self, D::Error>
                    where
                        D: #serde::Deserializer<'de>,
                    {
                        deserializer.deserialize_identifier(FieldVisitor)
                    }
                }

                struct Visitor;

                impl<'de> #serde::de::Visitor<'de> for Visitor {
                    type Value = #name;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }

                    fn visit_map<A>(self, mut map: A) -> ::core::result::Result<#name, A::Error>
                    where
                        A: #serde::de::MapAccess<'de>,
                    {
                        #(let mut #locals = ::core::option::Option::None;)*
                        while let ::core::option::Option::Some(key) = map.next_key::<Field>()? {
                            match key {
                                #(
                                    Field::#variants => {
                                        if #locals.is_some() {
                                            return ::core::result::Result::Err(
                                                <A::Error as #serde::de::Error>::duplicate_field(#wires),
                                            );
                                        }
                                        #locals = ::core::option::Option::Some(map.next_value()?);
                                    }
                                )*
                                Field::Other => {
                                    map.next_value::<#serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        ::core::result::Result::Ok(#name {
                            #(#rust: #finish,)*
                        })
                    }
                }

                deserializer.deserialize_map(Visitor)
            }
        }
    }
}

fn crd_fn(def: &Resource<'_>, facade: &TokenStream) -> TokenStream {
    let crd = quote! { #facade::crd };
    let name = ident(&def.root.name);
    let kind = def.kind;
    let (group, version, kind_name) = (&def.group.name, &def.version.name, &kind.name);
    let (plural, singular, list_kind) = (
        &kind.names.plural,
        &kind.names.singular,
        &kind.names.list_kind,
    );
    let short_names = &kind.names.short_names;
    let categories = &kind.names.categories;
    let scope = match kind.scope {
        Scope::Namespaced => quote! { #crd::Scope::Namespaced },
        Scope::Cluster => quote! { #crd::Scope::Cluster },
    };
    let status = kind.subresources.status;
    let scale = match &kind.subresources.scale {
        Some(scale) => {
            let spec = &scale.spec_replicas_path;
            let status = &scale.status_replicas_path;
            let selector = match &scale.label_selector_path {
                Some(path) => quote! { ::core::option::Option::Some(#path) },
                None => quote! { ::core::option::Option::None },
            };
            quote! {
                ::core::option::Option::Some(#crd::ScalePaths {
                    spec_replicas: #spec,
                    status_replicas: #status,
                    label_selector: #selector,
                })
            }
        }
        None => quote! { ::core::option::Option::None },
    };
    let columns = kind.printer_columns.iter().map(|c| {
        let (column, ty, path, priority) = (&c.name, &c.type_, &c.json_path, c.priority);
        let description = match &c.description {
            Some(d) => quote! { ::core::option::Option::Some(#d) },
            None => quote! { ::core::option::Option::None },
        };
        quote! {
            #crd::PrinterColumn {
                name: #column,
                type_: #ty,
                json_path: #path,
                description: #description,
                priority: #priority,
            }
        }
    });
    let selectable = &kind.selectable_fields;
    let description = match &def.root.docs {
        Some(d) => quote! { ::core::option::Option::Some(#d) },
        None => quote! { ::core::option::Option::None },
    };
    let fields = def
        .fields
        .fields
        .iter()
        .filter(|f| f.wire_name != "metadata")
        .map(|f| {
            let wire = &f.wire_name;
            let rust = ident(&f.rust_name);
            if optional(f) {
                quote! { .optional(#wire, |object: &Self| &object.#rust) }
            } else {
                quote! { .required(#wire, |object: &Self| &object.#rust) }
            }
        });
    let optional = |value: &Option<String>| match value {
        Some(v) => quote! { ::core::option::Option::Some(#v) },
        None => quote! { ::core::option::Option::None },
    };
    let rules = kind.validation.rules.iter().map(|r| {
        let rule = &r.rule;
        let (message, expression, reason, path) = (
            optional(&r.message),
            optional(&r.message_expression),
            optional(&r.reason),
            optional(&r.field_path),
        );
        let old_self = match r.optional_old_self {
            Some(v) => quote! { ::core::option::Option::Some(#v) },
            None => quote! { ::core::option::Option::None },
        };
        quote! {
            .validation(#crd::ValidationRule {
                rule: #rule,
                message: #message,
                message_expression: #expression,
                reason: #reason,
                field_path: #path,
                optional_old_self: #old_self,
            })
        }
    });
    let doc = format!(
        " The CustomResourceDefinition of `{plural}.{group}` serving `{version}`, with a \
         structural OpenAPI v3 schema generated from this type's fields."
    );
    quote! {
        #[automatically_derived]
        impl #name {
            #[doc = #doc]
            ///
            /// # Panics
            ///
            /// When a field type's schema cannot be made structural; [`Self::try_crd`]
            /// returns that as an error instead.
            pub fn crd() -> #crd::CustomResourceDefinition {
                match Self::try_crd() {
                    ::core::result::Result::Ok(crd) => crd,
                    ::core::result::Result::Err(error) => ::core::panic!("{}", error),
                }
            }

            #[doc = #doc]
            pub fn try_crd() -> ::core::result::Result<#crd::CustomResourceDefinition, #crd::Error> {
                let schema = #crd::RootSchema::<Self>::new(#description)
                    #(#fields)*
                    #(#rules)*
                    .build()?;
                #crd::Definition {
                    group: #group,
                    version: #version,
                    kind: #kind_name,
                    plural: #plural,
                    singular: #singular,
                    list_kind: #list_kind,
                    short_names: &[#(#short_names),*],
                    categories: &[#(#categories),*],
                    scope: #scope,
                    status: #status,
                    scale: #scale,
                    printer_columns: &[#(#columns),*],
                    selectable_fields: &[#(#selectable),*],
                }
                .build(schema)
            }
        }
    }
}

/// A static assertion that the struct `name` implements `Clone`, for `#[derive(Resource)]`
/// (whose struct is the user's; generated root types derive `Clone`): generated clients,
/// listers and informers clone objects out of their caches, so without it a kind lacking
/// `Clone` compiles and then fails deep in generated code. Spanned on `name`, so the
/// error (the facade's `ResourceClone` message, asking for `#[derive(DeepCopy)]` or
/// `Clone`) points at the struct. `facade` falls back to `::kubegen` when it is not a path.
pub fn assert_clone(name: &proc_macro2::Ident, facade: &str) -> TokenStream {
    let facade = path(facade).unwrap_or_else(|_| quote! { ::kubegen });
    quote_spanned! {name.span()=>
        const _: () = #facade::__private::assert_clone::<#name>();
    }
}

/// Impls that keep a type with invalid `#[resource]` attributes from cascading into more
/// errors: every trait and `crd()` exist, with bodies that are never run (the crate does
/// not compile: the real errors are emitted beside). `facade` falls back to `::kubegen`
/// when it is not a path.
pub fn fallback(type_name: &str, facade: &str) -> TokenStream {
    let facade = path(facade).unwrap_or_else(|_| quote! { ::kubegen });
    let k8s = quote! { #facade::__private::k8s_openapi };
    let serde = quote! { #facade::__private::serde };
    let name = ident(type_name);
    quote! {
        const _: () = {
            impl #k8s::Resource for #name {
                const API_VERSION: &'static str = "";
                const GROUP: &'static str = "";
                const KIND: &'static str = "";
                const VERSION: &'static str = "";
                const URL_PATH_SEGMENT: &'static str = "";
                type Scope = #k8s::NamespaceResourceScope;
            }
            impl #k8s::ListableResource for #name {
                const LIST_KIND: &'static str = "";
            }
            impl #k8s::Metadata for #name {
                type Ty = #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;
                fn metadata(&self) -> &Self::Ty {
                    ::core::unreachable!()
                }
                fn metadata_mut(&mut self) -> &mut Self::Ty {
                    ::core::unreachable!()
                }
            }
            impl #serde::Serialize for #name {
                fn serialize<S>(&self, _: S) -> ::core::result::Result<S::Ok, S::Error>
                where
                    S: #serde::Serializer,
                {
                    ::core::unreachable!()
                }
            }
            impl<'de> #serde::Deserialize<'de> for #name {
                fn deserialize<D>(_: D) -> ::core::result::Result<Self, D::Error>
                where
                    D: #serde::Deserializer<'de>,
                {
                    ::core::unreachable!()
                }
            }
        };
        impl #name {
            /// Not available: the `#[resource]` attributes have errors.
            pub fn crd() -> #facade::crd::CustomResourceDefinition {
                ::core::unreachable!()
            }
            /// Not available: the `#[resource]` attributes have errors.
            pub fn try_crd() -> ::core::result::Result<#facade::crd::CustomResourceDefinition, #facade::crd::Error> {
                ::core::unreachable!()
            }
        }
    }
}
