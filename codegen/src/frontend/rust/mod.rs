//! The Rust front-end: annotated Rust types, read with syn (nothing is compiled).
//!
//! Two callers share it, and both get model data:
//!
//! - the derives in `kubegen-derive`: [`deep_copy`] reads a `#[derive(DeepCopy)]` input
//!   into a [`TypeShape`], and [`resource`] reads a `#[derive(Resource)]` struct and its
//!   `#[resource(...)]` attributes into a validated [`Model`] holding that one kind, its
//!   root struct [written by hand](crate::model::RootType::HandWritten);
//! - `kubegen generate --rust <dir>`: [`load`] finds the `#[derive(Resource)]` structs of
//!   every `.rs` file and adds their kinds to a [`Model`], the same kinds the CRD front-end
//!   builds from the same CRDs, each with the path of its struct.
//!
//! ```
//! use kubegen_codegen::__internal::frontend::rust;
//!
//! let input: syn::DeriveInput = syn::parse_quote! {
//!     #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", status, shortname = "fo")]
//!     pub struct Foo {
//!         pub metadata: ObjectMeta,
//!         pub spec: FooSpec,
//!         pub status: Option<FooStatus>,
//!     }
//! };
//! let model = rust::resource(&input).unwrap();
//! let (_, _, kind) = model.kinds().next().unwrap();
//! assert_eq!(kind.names.plural, "foos");
//! assert_eq!(kind.names.list_kind, "FooList");
//! assert!(kind.subresources.status);
//! ```

mod attrs;
mod errors;
#[cfg(feature = "generator")]
mod files;
#[cfg(feature = "generator")]
mod schema;
mod types;

pub use super::suggest::did_you_mean;
#[cfg(feature = "generator")]
pub use files::{Options, load, read_dir};

use syn::{Data, DeriveInput, Fields, GenericParam as SynParam};

use crate::model::{
    Field, GenericParam, Generics, HandWritten, Kind, KindNames, Model, Origin, ParamKind,
    RootInfo, RootType, Scope, ShapeBody, ShapeFields, ShapeVariant, StructDef, Subresources,
    TypeDef, TypeDefKind, TypeShape, Validation,
};
use crate::naming;
use attrs::{ResourceAttrs, Spanned};
use errors::Errors;

/// The shape of a `#[derive(DeepCopy)]` input.
///
/// Unions are rejected (a union's active field is unknown, so it cannot be cloned field
/// by field).
pub fn deep_copy(input: &DeriveInput) -> syn::Result<TypeShape> {
    let body = match &input.data {
        Data::Struct(s) => ShapeBody::Struct(shape_fields(&s.fields)),
        Data::Enum(e) => ShapeBody::Enum(
            e.variants
                .iter()
                .map(|v| ShapeVariant {
                    name: v.ident.to_string(),
                    fields: shape_fields(&v.fields),
                })
                .collect(),
        ),
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "DeepCopy cannot be derived for unions: the active field is unknown; \
                 implement Clone by hand",
            ));
        }
    };
    Ok(TypeShape {
        name: input.ident.to_string(),
        generics: generics(&input.generics),
        body,
    })
}

fn shape_fields(fields: &Fields) -> ShapeFields {
    match fields {
        Fields::Named(named) => ShapeFields::Named(
            named
                .named
                .iter()
                .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                .collect(),
        ),
        Fields::Unnamed(unnamed) => ShapeFields::Unnamed(unnamed.unnamed.len()),
        Fields::Unit => ShapeFields::Unit,
    }
}

/// The JSON a `json!`/`json_schema!` literal (or an `extend` value) holds, read as the Rust
/// front-end reads it.
#[cfg(feature = "generator")]
pub fn json_literal(tokens: &proc_macro2::TokenStream) -> syn::Result<serde_json::Value> {
    schema::json_literal(tokens)
}

/// The source text of a syntax node (what the emitter parses back).
fn text(node: &impl quote::ToTokens) -> String {
    node.to_token_stream().to_string()
}

fn generics(generics: &syn::Generics) -> Generics {
    Generics {
        params: generics
            .params
            .iter()
            .map(|p| match p {
                SynParam::Lifetime(l) => GenericParam {
                    kind: ParamKind::Lifetime,
                    name: text(&l.lifetime),
                    declaration: text(l),
                },
                SynParam::Type(t) => GenericParam {
                    kind: ParamKind::Type,
                    name: t.ident.to_string(),
                    declaration: text(t),
                },
                SynParam::Const(c) => GenericParam {
                    kind: ParamKind::Const,
                    name: c.ident.to_string(),
                    declaration: text(c),
                },
            })
            .collect(),
        where_predicates: generics
            .where_clause
            .iter()
            .flat_map(|w| w.predicates.iter().map(text))
            .collect(),
    }
}

/// A validated model holding the one kind a `#[derive(Resource)]` struct declares, its
/// root struct [written by hand](RootType::HandWritten) (the path is the type's name).
///
/// Every problem (unknown or misspelled keys, names Kubernetes rejects, a missing
/// `metadata` field, `status` declared without a `status` field...) is reported, each with
/// its span, in one combined error.
pub fn resource(input: &DeriveInput) -> syn::Result<Model> {
    let derived = derive(input, None)?;
    let mut model = Model::default();
    derived.add_to(&mut model);
    model.validate().map_err(|error| {
        // Each problem its own compile error, at the struct's name.
        let mut errors = Errors::default();
        for each in error.errors() {
            errors.push(syn::Error::new(input.ident.span(), each));
        }
        errors
            .finish()
            .unwrap_or_else(|| syn::Error::new(input.ident.span(), &error))
    })?;
    Ok(model)
}

/// The path of the `kubegen` facade named by `#[resource(crate = "...")]`, if any
/// (`::kubegen`, `crate`).
pub fn facade_path(input: &DeriveInput) -> Option<String> {
    let path = attrs::resource_attrs(&input.attrs, &mut Errors::default()).krate?;
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    Some(format!("{lead}{}", segments.join("::")))
}

/// A kind read from a `#[derive(Resource)]` struct.
struct Derived {
    group: String,
    version: String,
    kind: Kind,
    /// `#[resource(storage)]`: this version is the kind's storage version (read when
    /// several versions are read from files: the derive sees one struct).
    #[cfg_attr(not(feature = "generator"), allow(dead_code))]
    storage_marked: bool,
}

impl Derived {
    fn add_to(self, model: &mut Model) {
        let version = model.version_mut(&self.group, &self.version);
        version.kinds.insert(self.kind.name.clone(), self.kind);
    }
}

/// Reads `input` into a kind; `file` names the source for [`Origin`]s (the derive has
/// none: its errors are spans).
fn derive(input: &DeriveInput, file: Option<&str>) -> syn::Result<Derived> {
    let mut errors = Errors::default();
    let attrs = attrs::resource_attrs(&input.attrs, &mut errors);
    let derived = build(input, &attrs, file, &mut errors);
    match errors.finish() {
        Some(error) => Err(error),
        None => derived.ok_or_else(|| syn::Error::new(input.ident.span(), "invalid resource")),
    }
}

fn build(
    input: &DeriveInput,
    attrs: &ResourceAttrs,
    file: Option<&str>,
    errors: &mut Errors,
) -> Option<Derived> {
    let name = &input.ident;
    if !attrs.present {
        errors.spanned(
            name,
            "#[derive(Resource)] needs #[resource(group = \"...\", version = \"...\")]",
        );
    } else {
        if attrs.group.is_none() {
            errors.spanned(name, "missing `group = \"...\"` in #[resource(...)]");
        }
        if attrs.version.is_none() {
            errors.spanned(name, "missing `version = \"...\"` in #[resource(...)]");
        }
    }
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            "Resource cannot be derived for generic structs: a kind has one concrete schema",
        );
    }
    let fields = types::root_fields(input, errors);
    let has_status = fields
        .iter()
        .flatten()
        .any(|field| field.wire_name == "status");
    if let (Some(span), false) = (attrs.status, has_status) {
        errors.push(syn::Error::new(
            span,
            "`status` declares the status subresource, but the struct has no `status` field",
        ));
    }
    let fields = fields?;
    let kind_name = attrs
        .kind
        .as_ref()
        .map_or_else(|| name.to_string(), |k| k.value.clone());
    let value = |v: &Option<Spanned<String>>| v.as_ref().map(|s| s.value.clone());
    let plural = value(&attrs.plural).unwrap_or_else(|| naming::plural(&kind_name));
    let def = TypeDef {
        name: name.to_string(),
        module: naming::kind_module(&kind_name),
        docs: docs(&input.attrs),
        kind: TypeDefKind::Struct(StructDef {
            fields,
            additional: None,
            root: Some(RootInfo {
                kind: kind_name.clone(),
            }),
        }),
    };
    let origin = origin(file, attrs, name);
    let kind = Kind {
        names: KindNames {
            singular: value(&attrs.singular).unwrap_or_else(|| kind_name.to_lowercase()),
            plural,
            short_names: attrs.short_names.clone(),
            categories: attrs.categories.clone(),
            list_kind: format!("{kind_name}List"),
        },
        scope: attrs.scope.as_ref().map_or(Scope::Namespaced, |s| s.value),
        served: true,
        storage: true,
        deprecated: None,
        client_verbs: attrs.client_verbs(),
        subresources: Subresources {
            status: attrs.status.is_some(),
            scale: attrs.scale.clone(),
        },
        printer_columns: attrs.printer_columns.clone(),
        selectable_fields: attrs.selectable.clone(),
        validation: Validation {
            rules: attrs.rules.clone(),
            ..Validation::default()
        },
        root: RootType::HandWritten(HandWritten {
            path: name.to_string(),
            def,
            types: Vec::new(),
        }),
        module: naming::kind_module(&kind_name),
        origin: origin.unwrap_or_default(),
        name: kind_name,
    };
    Some(Derived {
        group: value(&attrs.group)?,
        version: value(&attrs.version)?,
        kind,
        storage_marked: attrs.storage.is_some(),
    })
}

/// Where the kind's names were written, when `input` was read from `file`
/// (`generate --rust`, `crd`).
#[cfg(feature = "generator")]
fn origin(file: Option<&str>, attrs: &ResourceAttrs, name: &syn::Ident) -> Option<Origin> {
    file.map(|file| {
        let at = |span: proc_macro2::Span| Some(location(file, span));
        let spanned = |v: &Option<Spanned<String>>| v.as_ref().and_then(|s| at(s.span));
        Origin {
            group: spanned(&attrs.group),
            version: spanned(&attrs.version),
            kind: spanned(&attrs.kind).or_else(|| at(name.span())),
            plural: spanned(&attrs.plural),
            singular: spanned(&attrs.singular),
            ..Origin::default()
        }
    })
}

/// The derive reads no file (its errors are spans), and only the generator reads files:
/// without it there is no origin.
#[cfg(not(feature = "generator"))]
fn origin(file: Option<&str>, _: &ResourceAttrs, _: &syn::Ident) -> Option<Origin> {
    debug_assert!(file.is_none(), "only the generator reads files");
    None
}

/// Where `span` starts in `file` (1-based line and column).
#[cfg(feature = "generator")]
fn location(file: &str, span: proc_macro2::Span) -> crate::model::Location {
    let start = span.start();
    crate::model::Location::new(file, start.line as u64, start.column as u64 + 1)
}

/// The text of the `///` comments among `attrs`, trimmed, or `None`.
fn docs(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The model's field for a struct field read from Rust (used by [`types::root_fields`]).
fn field(rust_name: String, wire_name: String, ty: &syn::Type, optional: bool) -> Field {
    Field {
        wire_name,
        rust_name,
        ty: types::type_ref(types::option_inner(ty).unwrap_or(ty)),
        required: !optional,
        nullable: false,
        default: None,
        docs: None,
        validation: Default::default(),
        written_schema: None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
