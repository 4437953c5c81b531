//! What a kind's root type gets beyond its fields: the resource impls.
//!
//! Both the types emitter (for root types generated from CRDs) and `#[derive(Resource)]`
//! (for root types written by hand) emit through [`impls`], so the two kinds of root type
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
use quote::{format_ident, quote};

use super::deepcopy::any_ident;
use super::types::{Context, ident};
use super::{Error, Paths};
use crate::model::{Kind, Scope, StructDef, TypeDef};

/// A root type: a struct with `metadata`, usually `spec` and `status`.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceDef {
    /// The Rust type name.
    pub type_name: String,
    /// API group (`samplecontroller.k8s.io`; `""` for core).
    pub group: String,
    /// API version (`v1alpha1`).
    pub version: String,
    /// The kind: names, scope, subresources, printer columns, selectable fields.
    pub kind: Kind,
    /// The struct's fields, `metadata` included, in declaration order.
    pub fields: Vec<RootField>,
    /// A flattened map of extra properties (generated types only), by Rust field name.
    pub additional: Option<String>,
    /// The type's documentation (the CRD schema's description).
    pub docs: Option<String>,
}

impl ResourceDef {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// A field of a root type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootField {
    /// Rust field name (`r#type` for raw identifiers).
    pub rust_name: String,
    /// JSON property name.
    pub wire_name: String,
    /// Whether the field is an `Option` (skipped when `None`, `None` when absent).
    pub optional: bool,
}

/// Which impls to emit beyond the resource traits and `Serialize`.
#[derive(Clone, Debug, Default)]
pub struct Emit {
    /// Emit `Deserialize` (the derive) instead of relying on a derived one.
    pub deserialize: bool,
    /// Emit `crd()`/`try_crd()` using this path to the `kubegen` facade.
    pub crd: Option<TokenStream>,
}

/// Crate paths for code emitted inside a crate that depends on the `kubegen` facade:
/// `#facade::__private::{k8s_openapi, serde, serde_json}`.
pub fn facade_options(facade: &TokenStream) -> super::Options {
    let path = |krate: &str| format!("{facade}::__private::{krate}").replace(' ', "");
    super::Options {
        k8s_openapi: path("k8s_openapi"),
        serde: path("serde"),
        serde_json: path("serde_json"),
    }
}

/// The impls of a root type, wrapped in `const _: () = { ... };` (plus an inherent
/// `impl` with `crd()` when asked for).
pub fn impls(
    def: &ResourceDef,
    options: &super::Options,
    emit: &Emit,
) -> Result<TokenStream, Error> {
    let paths = Paths::new(options)?;
    let traits = resource_traits(def, &paths);
    let serialize = serialize_impl(def, &paths);
    let deserialize = emit.deserialize.then(|| deserialize_impl(def, &paths));
    let crd = emit.crd.as_ref().map(|facade| crd_fn(def, facade));
    Ok(quote! {
        const _: () = {
            #traits
            #serialize
            #deserialize
        };
        #crd
    })
}

/// The seam the types emitter calls for a generated root type.
pub(crate) fn resource_impls(
    ctx: &Context<'_>,
    ty: &TypeDef,
    s: &StructDef,
    kind: &str,
) -> Result<TokenStream, Error> {
    let meta = ctx
        .version
        .kinds
        .get(kind)
        .ok_or_else(|| Error::MissingKind {
            kind: kind.to_owned(),
            version: ctx.version.name.clone(),
        })?;
    let def = ResourceDef {
        type_name: ty.name.clone(),
        group: ctx.group.name.clone(),
        version: ctx.version.name.clone(),
        kind: meta.clone(),
        fields: s
            .fields
            .iter()
            .map(|f| RootField {
                rust_name: f.rust_name.clone(),
                wire_name: f.wire_name.clone(),
                optional: !f.required,
            })
            .collect(),
        additional: s.additional.as_ref().map(|a| a.rust_name.clone()),
        docs: None,
    };
    let paths = ctx.paths;
    let traits = resource_traits(&def, paths);
    let serialize = serialize_impl(&def, paths);
    Ok(quote! {
        const _: () = {
            #traits
            #serialize
        };
    })
}

fn resource_traits(def: &ResourceDef, paths: &Paths) -> TokenStream {
    let k8s = &paths.k8s_openapi;
    let name = any_ident(&def.type_name);
    let group = &def.group;
    let version = &def.version;
    let kind = &def.kind.name;
    let api_version = def.api_version();
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

fn serialize_impl(def: &ResourceDef, paths: &Paths) -> TokenStream {
    let k8s = &paths.k8s_openapi;
    let serde = &paths.serde;
    let name = any_ident(&def.type_name);
    let entries = def.fields.iter().map(|field| {
        let wire = &field.wire_name;
        let rust = any_ident(&field.rust_name);
        if field.optional {
            quote! {
                if let ::core::option::Option::Some(value) = &self.#rust {
                    map.serialize_entry(#wire, value)?;
                }
            }
        } else {
            quote! { map.serialize_entry(#wire, &self.#rust)?; }
        }
    });
    let additional = def.additional.as_ref().map(|extra| {
        let rust = ident(extra);
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

fn deserialize_impl(def: &ResourceDef, paths: &Paths) -> TokenStream {
    let serde = &paths.serde;
    let name = any_ident(&def.type_name);
    let expecting = format!("a {} {} object", def.api_version(), def.kind.name);
    let variants: Vec<_> = (0..def.fields.len())
        .map(|i| format_ident!("Field{i}"))
        .collect();
    let locals: Vec<_> = (0..def.fields.len())
        .map(|i| format_ident!("field_{i}"))
        .collect();
    let wires: Vec<&str> = def.fields.iter().map(|f| f.wire_name.as_str()).collect();
    let rust: Vec<_> = def.fields.iter().map(|f| any_ident(&f.rust_name)).collect();
    let finish = def.fields.iter().zip(&locals).map(|(field, local)| {
        let wire = &field.wire_name;
        // Optional fields flatten `Option<Option<T>>`; a missing `metadata` defaults.
        if field.optional || field.wire_name == "metadata" {
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

fn crd_fn(def: &ResourceDef, facade: &TokenStream) -> TokenStream {
    let crd = quote! { #facade::crd };
    let name = any_ident(&def.type_name);
    let kind = &def.kind;
    let (group, version, kind_name) = (&def.group, &def.version, &kind.name);
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
    let description = match &def.docs {
        Some(d) => quote! { ::core::option::Option::Some(#d) },
        None => quote! { ::core::option::Option::None },
    };
    let fields = def
        .fields
        .iter()
        .filter(|f| f.wire_name != "metadata")
        .map(|f| {
            let wire = &f.wire_name;
            let rust = any_ident(&f.rust_name);
            if f.optional {
                quote! { .optional(#wire, |object: &Self| &object.#rust) }
            } else {
                quote! { .required(#wire, |object: &Self| &object.#rust) }
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

/// Impls that keep a type with invalid `#[resource]` attributes from cascading into more
/// errors: every trait and `crd()` exist, with bodies that are never run (the crate does
/// not compile: the real errors are emitted beside).
pub fn fallback(type_name: &str, facade: &TokenStream) -> TokenStream {
    let k8s = quote! { #facade::__private::k8s_openapi };
    let serde = quote! { #facade::__private::serde };
    let name = any_ident(type_name);
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
