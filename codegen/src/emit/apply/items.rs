//! The apply configuration structs of one module of a version, with their setters and,
//! for roots, `new`, `extract` and the `ApplyConfiguration` impl.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::common::{Error, NamedType, Paths, ident, rust_type, type_path};
use crate::emit::docs::doc_attrs;
use crate::emit::serde_macro::{self, MacroField, Mode};
use crate::model::{
    ExternalType, Field, Group, Kind, Model, RootType, Scope, StructDef, TypeDef, TypeDefKind,
    TypeRef, Version,
};
use crate::naming::{self, UniqueNames};

/// A struct that gets an apply configuration.
pub(super) struct Mirror<'a> {
    /// The struct's definition.
    pub(super) def: &'a TypeDef,
    /// Its fields.
    pub(super) fields: &'a StructDef,
    /// The module (file) its apply configuration is emitted into.
    pub(super) module: &'a str,
    /// The kind, when the struct is a kind's root.
    pub(super) kind: Option<&'a Kind>,
    /// Its place among the module's other nested structs.
    pub(super) order: usize,
}

/// Where an apply configuration emitter emits.
pub(super) struct Context<'a> {
    pub(super) group: &'a Group,
    pub(super) version: &'a Version,
    /// The `kubegen` facade.
    pub(super) facade: &'a TokenStream,
    /// serde, serde_json and k8s-openapi through the facade.
    pub(super) paths: &'a Paths,
    /// Where generated types are mounted.
    pub(super) types_module: &'a str,
    /// Every mirrored struct of the version, by type name.
    pub(super) mirrors: &'a BTreeMap<&'a str, Mirror<'a>>,
    /// The whole model, for the apply configurations of other versions' described types.
    pub(super) model: &'a Model,
    /// Every type the version's hand-written roots use, by name (each one's `module` is
    /// where it lives).
    pub(super) hand_written: &'a BTreeMap<&'a str, &'a TypeDef>,
}

/// The apply configuration of the type `name`.
fn apply_name(name: &str) -> String {
    format!("{name}Apply")
}

/// Root fields `new` and the derive handle themselves.
const ROOT_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Every apply configuration of `module`, in the version's type order.
pub(super) fn module_items(ctx: &Context<'_>, module: &str) -> Result<TokenStream, Error> {
    let mut items = TokenStream::new();
    let mut mirrors: Vec<&Mirror<'_>> = ctx
        .mirrors
        .values()
        .filter(|m| m.module == module)
        .collect();
    // Roots first (by name), then the version's order.
    mirrors.sort_by_key(|m| (m.kind.is_none(), m.order, m.def.name.as_str()));
    let import = (!mirrors.is_empty()).then(serde_macro::module_import);
    for mirror in mirrors {
        items.extend(struct_item(ctx, mirror)?);
    }
    Ok(quote! { #import #items })
}

fn struct_item(ctx: &Context<'_>, mirror: &Mirror<'_>) -> Result<TokenStream, Error> {
    let name = format_ident!("{}", apply_name(&mirror.def.name));
    let root = mirror.kind.map(|kind| (kind, root_type(ctx, mirror, kind)));
    let fields: Vec<&Field> = mirror
        .fields
        .fields
        .iter()
        .filter(|f| root.is_none() || !ROOT_FIELDS.contains(&f.wire_name.as_str()))
        .collect();
    let mut setter_names = UniqueNames::snake();
    let mut field_items = Vec::new();
    let mut setters = Vec::new();
    if root.is_some() {
        let k8s = &ctx.paths.k8s_openapi;
        let meta = quote! { #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta };
        field_items.push(quote! {
            /// `apiVersion`, set by `new`.
            pub api_version: Option<String>,
            /// `kind`, set by `new`.
            pub kind: Option<String>,
            /// Object metadata: `name` and `namespace` (set by `new`), and whatever labels,
            /// annotations, owner references or finalizers this manager owns (set with the
            /// setters of the runtime's `ApplyMetadata`: `with_labels`, ...).
            pub metadata: Option<#meta>,
        });
        setter_names.reserve("with_metadata");
        setters.push(quote! {
            /// Sets `metadata` (replacing what `new` set).
            #[inline]
            pub fn with_metadata(mut self, value: #meta) -> Self {
                self.metadata = Some(value);
                self
            }
        });
    }
    for field in &fields {
        let rust = ident(&field.rust_name);
        let wire = &field.wire_name;
        let ty = field_type(ctx, mirror, unwrap_option(&field.ty))?;
        let docs = doc_attrs(&field_docs(field));
        field_items.push(quote! {
            #docs
            pub #rust: Option<#ty>,
        });
        let setter = format_ident!(
            "{}",
            setter_names.claim(format!("with_{}", setter_base(&field.rust_name)))
        );
        let doc = format!(" Sets `{wire}`.");
        setters.push(match unwrap_option(&field.ty) {
            TypeRef::Vec(inner) => {
                let item = field_type(ctx, mirror, inner)?;
                let doc = format!(" Appends `values` to `{wire}` (an empty iterator sets it empty).");
                quote! {
                    #[doc = #doc]
                    #[inline]
                    pub fn #setter(mut self, values: impl IntoIterator<Item = #item>) -> Self {
                        self.#rust.get_or_insert_with(Vec::new).extend(values);
                        self
                    }
                }
            }
            TypeRef::Map(inner) => {
                let value = field_type(ctx, mirror, inner)?;
                let doc = format!(" Inserts `entries` into `{wire}` (an empty iterator sets it empty).");
                quote! {
                    #[doc = #doc]
                    #[inline]
                    pub fn #setter(mut self, entries: impl IntoIterator<Item = (String, #value)>) -> Self {
                        self.#rust.get_or_insert_with(::std::collections::BTreeMap::new).extend(entries);
                        self
                    }
                }
            }
            _ => quote! {
                #[doc = #doc]
                #[inline]
                pub fn #setter(mut self, value: impl Into<#ty>) -> Self {
                    self.#rust = Some(value.into());
                    self
                }
            },
        });
    }
    let additional = match &mirror.fields.additional {
        Some(extra) => {
            let field = ident(&extra.rust_name);
            let value = field_type(ctx, mirror, &extra.value)?;
            Some(quote! {
                /// Properties not declared by the schema.
                pub #field: ::std::collections::BTreeMap<String, #value>,
            })
        }
        None => None,
    };
    // Every field is optional: absent reads as `None`, and `None` is not sent.
    let root_fields = ROOT_FIELDS.iter().zip(["api_version", "kind", "metadata"]);
    let macro_fields: Vec<MacroField<'_>> = root_fields
        .filter(|_| root.is_some())
        .map(|(wire, rust)| (rust, *wire))
        .chain(
            fields
                .iter()
                .map(|f| (f.rust_name.as_str(), f.wire_name.as_str())),
        )
        .map(|(rust, wire)| MacroField {
            rust,
            wire,
            mode: Mode::Optional,
            boxed: false,
        })
        .collect();
    let extra = mirror.fields.additional.as_ref();
    let serde = serde_macro::invocation(
        &apply_name(&mirror.def.name),
        &macro_fields,
        extra.map(|e| e.rust_name.as_str()),
        true,
    );
    let type_doc = match root.as_ref() {
        Some((kind, _)) => format!(
            "Apply configuration of `{}` (`{}`) for server-side apply: every field is optional and only what is set is sent, so a field manager owns exactly what it sets.",
            kind.name,
            naming::api_version(&ctx.group.name, &ctx.version.name)
        ),
        None => format!(
            "Apply configuration of `{}`: every field is optional and only what is set is sent.",
            mirror.def.name
        ),
    };
    let mut docs = type_doc;
    if let Some(extra) = mirror.def.docs.as_deref().filter(|d| !d.trim().is_empty()) {
        docs.push_str("\n\n");
        docs.push_str(extra);
    }
    let docs = doc_attrs(&docs);
    let root_items = match &root {
        Some((kind, resource)) => root_items(ctx, &name, kind, resource),
        // A nested struct with object metadata (`PodTemplateSpec`) gets the metadata
        // setters too.
        None => match fields.iter().find(|f| is_object_meta(f)) {
            Some(field) => {
                let metadata = metadata_impl(ctx, &name, &ident(&field.rust_name));
                quote! { const _: () = { #metadata }; }
            }
            None => TokenStream::new(),
        },
    };
    Ok(quote! {
        #docs
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct #name {
            #(#field_items)*
            #additional
        }
        #serde

        impl #name {
            #(#setters)*
        }

        #root_items
    })
}

/// `new`, `extract` (+ `extract_status`) and the runtime's `ApplyConfiguration` impl.
fn root_items(
    ctx: &Context<'_>,
    name: &proc_macro2::Ident,
    kind: &Kind,
    resource: &TokenStream,
) -> TokenStream {
    let facade = ctx.facade;
    let k8s = &ctx.paths.k8s_openapi;
    let api_version = naming::api_version(&ctx.group.name, &ctx.version.name);
    let kind_name = &kind.name;
    let (params, namespace, new_doc) = match kind.scope {
        Scope::Namespaced => (
            quote! { name: impl Into<String>, namespace: impl Into<String> },
            quote! { Some(namespace.into()) },
            format!(
                " A `{kind_name}` named `name` in `namespace`, with `apiVersion` and `kind` set and nothing else."
            ),
        ),
        Scope::Cluster => (
            quote! { name: impl Into<String> },
            quote! { None },
            format!(
                " The cluster-scoped `{kind_name}` named `name`, with `apiVersion` and `kind` set and nothing else."
            ),
        ),
    };
    let apply = quote! { #facade::runtime::apply };
    let metadata = metadata_impl(ctx, name, &ident("metadata"));
    let status = kind.subresources.status.then(|| {
        quote! {
            /// The status fields `field_manager` owns in `object` (its `Apply` entry of
            /// `metadata.managedFields` for the status subresource), to change and apply
            /// again with `apply_status`.
            #[inline]
            pub fn extract_status(object: &#resource, field_manager: &str) -> Result<Self, #apply::ExtractError> {
                #apply::extract(object, field_manager, "status")
            }
        }
    });
    quote! {
        impl #name {
            #[doc = #new_doc]
            #[inline]
            pub fn new(#params) -> Self {
                Self {
                    api_version: Some(#api_version.to_owned()),
                    kind: Some(#kind_name.to_owned()),
                    metadata: Some(#k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                        name: Some(name.into()),
                        namespace: #namespace,
                        ..Default::default()
                    }),
                    ..Default::default()
                }
            }

            /// The fields `field_manager` owns in `object` (its `Apply` entry of
            /// `metadata.managedFields`), with `apiVersion`, `kind`, name and namespace:
            /// client-go's `Extract<Kind>`. Fails when the manager never applied this object.
            #[inline]
            pub fn extract(object: &#resource, field_manager: &str) -> Result<Self, #apply::ExtractError> {
                #apply::extract(object, field_manager, "")
            }

            #status
        }

        const _: () = {
            impl #apply::ApplyConfiguration<#resource> for #name {
                #[inline]
                fn object_name(&self) -> &str {
                    self.metadata.as_ref().and_then(|m| m.name.as_deref()).unwrap_or_default()
                }
            }
            #metadata
        };
    }
}

/// The runtime's `ApplyMetadata` impl (the object metadata setters: `with_labels`,
/// `with_owner_references`, ...) of `name`, whose object metadata is its field `field`:
/// one method, the setters being the trait's default methods, so each kind costs a few
/// lines instead of a dozen setters.
fn metadata_impl(
    ctx: &Context<'_>,
    name: &proc_macro2::Ident,
    field: &proc_macro2::Ident,
) -> TokenStream {
    let facade = ctx.facade;
    let k8s = &ctx.paths.k8s_openapi;
    quote! {
        impl #facade::runtime::apply::ApplyMetadata for #name {
            #[inline]
            fn metadata_mut(&mut self) -> &mut Option<#k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta> {
                &mut self.#field
            }
        }
    }
}

/// Whether `field` is object metadata: `metadata`, a metav1 `ObjectMeta`.
fn is_object_meta(field: &Field) -> bool {
    field.wire_name == "metadata"
        && matches!(
            unwrap_option(&field.ty),
            TypeRef::External(external) if external.path == ExternalType::object_meta().path
        )
}

/// The Rust type of a kind's root (what its clients serve).
fn root_type(ctx: &Context<'_>, mirror: &Mirror<'_>, kind: &Kind) -> TokenStream {
    let k8s = &ctx.paths.k8s_openapi;
    let text = match &kind.root {
        RootType::HandWritten(hand) => hand.path.clone(),
        RootType::External(external) => external.path.clone(),
        RootType::Generated(_) => generated_path(ctx, &mirror.def.name),
    };
    // Validated model paths and options; a bad option fails in `generate_apply` first.
    type_path(&text, k8s).unwrap_or_else(|_| {
        let name = ident(&mirror.def.name);
        quote! { #name }
    })
}

/// `<types_module>::<group>::<version>::<name>`, or `<external module>::<name>` where the
/// version's types are another crate's.
fn generated_path(ctx: &Context<'_>, name: &str) -> String {
    match &ctx.version.external_module {
        Some(module) => format!("{module}::{name}"),
        None => format!(
            "{}::{}::{}::{name}",
            ctx.types_module, ctx.group.module, ctx.version.module
        ),
    }
}

/// The apply configuration of another crate's type that a version of the model describes
/// (`k8s_openapi::api::core::v1::PodSpec` -> `core::v1::PodSpecApply`), as a path from a
/// file of this tree (`<group>/<version>/<module>.rs`).
fn described_apply(ctx: &Context<'_>, path: &str) -> Option<TokenStream> {
    let (module, name) = path.rsplit_once("::")?;
    let (group, version) = ctx.model.versions().find(|(_, v)| {
        v.external_module.as_deref() == Some(module)
            && v.type_named(name)
                .is_some_and(|t| matches!(t.kind, TypeDefKind::Struct(_)))
    })?;
    let group = ident(&group.module);
    let version = ident(&version.module);
    let apply = format_ident!("{}", apply_name(name));
    Some(quote! { super::super::super::#group::#version::#apply })
}

fn field_docs(field: &Field) -> String {
    let mut docs = field
        .docs
        .clone()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("`{}`.", field.wire_name));
    if let Some(default) = &field.default {
        if !docs.is_empty() {
            docs.push_str("\n\n");
        }
        docs.push_str(&format!("Defaults to `{default}` (set by the API server)."));
    }
    docs
}

/// A field's name without keyword escaping (`r#type`, `type_` -> `type`).
fn setter_base(rust_name: &str) -> &str {
    match rust_name.trim_start_matches("r#").trim_end_matches('_') {
        "" => rust_name,
        base => base,
    }
}

/// A field's type without the `Option`s its own optionality wraps it in (the apply
/// configuration's `Option` stands for them).
fn unwrap_option(ty: &TypeRef) -> &TypeRef {
    match ty {
        TypeRef::Option(inner) => unwrap_option(inner),
        other => other,
    }
}

/// The apply configuration type of a field (without the field's own `Option`): a struct
/// the model defines is mirrored (`FooSpecApply`), enums and unions are the generated
/// types, and types the model only names are used as they are.
fn field_type(ctx: &Context<'_>, mirror: &Mirror<'_>, ty: &TypeRef) -> Result<TokenStream, Error> {
    let k8s = &ctx.paths.k8s_openapi;
    rust_type(ctx.paths, ty, &|named| match named {
        NamedType::Model(name) => match ctx.mirrors.get(name) {
            Some(target) => {
                let apply = format_ident!("{}", apply_name(name));
                Ok(if target.module == mirror.module {
                    quote! { #apply }
                } else {
                    quote! { super::#apply }
                })
            }
            // Enums and unions: the user's type, or the generated one.
            None => match ctx.hand_written.get(name) {
                Some(def) => type_path(&format!("{}::{name}", def.module), k8s),
                None => type_path(&generated_path(ctx, name), k8s),
            },
        },
        NamedType::External(external) => match described_apply(ctx, &external.path) {
            Some(apply) => Ok(apply),
            None => type_path(&external_path(mirror, &external.path), k8s),
        },
    })
}

/// The path of a type the model only names. A hand-written kind's field types are as
/// written in its file: a bare name or a `self::`/`super::` path is resolved against the
/// module of the kind's struct (where it is in scope); other paths are taken as they are.
fn external_path(mirror: &Mirror<'_>, written: &str) -> String {
    let Some(Kind {
        root: RootType::HandWritten(hand),
        ..
    }) = mirror.kind
    else {
        return written.to_owned();
    };
    let mut module: Vec<&str> = hand.path.split("::").collect();
    module.pop();
    let mut segments: Vec<&str> = written.split("::").collect();
    let relative = segments.len() == 1 || matches!(segments[0], "self" | "super");
    if !relative || module.is_empty() {
        return written.to_owned();
    }
    while let Some(first) = segments.first().copied() {
        match first {
            "self" => {
                segments.remove(0);
            }
            "super" if module.len() > 1 => {
                segments.remove(0);
                module.pop();
            }
            _ => break,
        }
    }
    module.extend(segments);
    module.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClientVerbs, HandWritten, KindNames, Origin, Subresources, TypeDefKind};

    fn hand_written(path: &str) -> (TypeDef, Kind) {
        let def = TypeDef {
            name: "Foo".into(),
            module: "foo".into(),
            docs: None,
            kind: TypeDefKind::Struct(StructDef::default()),
        };
        let kind = Kind {
            name: "Foo".into(),
            names: KindNames::default(),
            scope: Scope::Namespaced,
            served: true,
            storage: true,
            deprecated: None,
            client_verbs: ClientVerbs::default(),
            subresources: Subresources::default(),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            validation: Default::default(),
            root: RootType::HandWritten(HandWritten {
                path: path.into(),
                def: def.clone(),
                types: Vec::new(),
            }),
            module: "foo".into(),
            origin: Origin::default(),
        };
        (def, kind)
    }

    #[test]
    fn hand_written_field_types_resolve_next_to_their_struct() {
        let (def, kind) = hand_written("crate::apis::example::v1::Foo");
        let fields = StructDef::default();
        let mirror = Mirror {
            def: &def,
            fields: &fields,
            module: "foo",
            kind: Some(&kind),
            order: 0,
        };
        for (written, expected) in [
            ("FooSpec", "crate::apis::example::v1::FooSpec"),
            ("self::FooSpec", "crate::apis::example::v1::FooSpec"),
            (
                "super::common::Shared",
                "crate::apis::example::common::Shared",
            ),
            ("crate::other::Thing", "crate::other::Thing"),
            (
                "k8s_openapi::api::core::v1::PodSpec",
                "k8s_openapi::api::core::v1::PodSpec",
            ),
        ] {
            assert_eq!(external_path(&mirror, written), expected, "{written}");
        }
    }

    #[test]
    fn setters_drop_keyword_escapes() {
        assert_eq!(setter_base("type_"), "type");
        assert_eq!(setter_base("r#match"), "match");
        assert_eq!(setter_base("replicas"), "replicas");
    }
}
