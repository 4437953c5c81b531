//! What every emitter shares: options and crate paths, the error type, identifiers and
//! paths as tokens.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[cfg(feature = "generator")]
use crate::model::{ExternalType, TypeRef};

/// Why code could not be emitted. A validated model never causes these except through
/// options (a crate path that is not a path); they guard against a front-end bug.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The generated tokens do not parse as a Rust file, or (checked in debug builds) the
    /// printed file does not read back as those tokens.
    #[error("failed to format generated file {path}: {message}")]
    Format {
        /// The file being generated.
        path: String,
        /// The parser message.
        message: String,
    },
    /// A root struct names a kind the version does not have.
    #[error("failed to emit version {version}: root type of unknown kind `{kind}`")]
    MissingKind {
        /// The kind.
        kind: String,
        /// The version.
        version: String,
    },
    /// A crate path option, or a type path in the model, is not a Rust path.
    #[error("failed to parse path `{path}`: expected a Rust path like `::k8s_openapi`")]
    BadPath {
        /// The option value.
        path: String,
    },
    /// A kind's CustomResourceDefinition cannot be built from the model.
    #[error("failed to build the CustomResourceDefinition {name}: {reason}")]
    Manifest {
        /// `plural.group` (or the file name).
        name: String,
        /// What is missing or wrong.
        reason: String,
    },
    /// A kind cannot be written as annotated Rust (`--style derive`): its root object says
    /// what `#[derive(Resource)]` cannot.
    #[error("{at}failed to write {name} as annotated Rust: {reason}")]
    Annotated {
        /// Where the kind was written (`crds/foo.yaml:5:9: `), or nothing.
        at: String,
        /// The kind or type.
        name: String,
        /// What cannot be said.
        reason: String,
    },
    /// Two different types of one version (hand-written ones used by different kinds, or
    /// one of them and a generated one) share a name, so their apply configurations would.
    #[error(
        "failed to emit the apply configurations of {api_version}: two types are named `{name}` \
         ({first} and {second}); rename one"
    )]
    ApplyNameClash {
        /// The version (`group/version`).
        api_version: String,
        /// The shared name.
        name: String,
        /// Where the first one lives.
        first: String,
        /// Where the second one lives.
        second: String,
    },
    /// A generic parameter or `where` predicate of a derive input does not parse.
    #[error("failed to parse generics `{text}` of `{ty}`")]
    BadGenerics {
        /// The type.
        ty: String,
        /// The text.
        text: String,
    },
}

/// Crate paths generated code uses, overridable for crates that re-export them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Path of k8s-openapi (default `::k8s_openapi`).
    pub k8s_openapi: String,
    /// Path of serde (default `::serde`).
    pub serde: String,
    /// Path of serde_json (default `::serde_json`).
    pub serde_json: String,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            k8s_openapi: "::k8s_openapi".to_owned(),
            serde: "::serde".to_owned(),
            serde_json: "::serde_json".to_owned(),
        }
    }
}

impl Options {
    /// Paths for code emitted inside a crate that depends on the `kubegen` facade at
    /// `facade`: `<facade>::__private::{k8s_openapi, serde, serde_json}`.
    ///
    /// ```
    /// use kubegen_codegen::__internal::emit::Options;
    /// assert_eq!(Options::through_facade("::kubegen").serde, "::kubegen::__private::serde");
    /// ```
    pub fn through_facade(facade: &str) -> Self {
        let path = |krate: &str| format!("{facade}::__private::{krate}");
        Self {
            k8s_openapi: path("k8s_openapi"),
            serde: path("serde"),
            serde_json: path("serde_json"),
        }
    }
}

/// Parsed crate paths.
pub(crate) struct Paths {
    pub(crate) k8s_openapi: TokenStream,
    pub(crate) serde: TokenStream,
    #[cfg_attr(not(feature = "generator"), allow(dead_code))] // The generator's emitters read it.
    pub(crate) serde_json: TokenStream,
    #[cfg_attr(not(feature = "generator"), allow(dead_code))] // The generator's emitters read it.
    serde_is_default: bool,
}

impl Paths {
    pub(crate) fn new(options: &Options) -> Result<Self, Error> {
        Ok(Self {
            k8s_openapi: path(&options.k8s_openapi)?,
            serde: path(&options.serde)?,
            serde_json: path(&options.serde_json)?,
            serde_is_default: options.serde.replace(' ', "") == "::serde",
        })
    }

    /// Whether serde is `::serde` (no `#[serde(crate = ...)]` needed).
    #[cfg(feature = "generator")]
    pub(crate) fn serde_is_default(&self) -> bool {
        self.serde_is_default
    }
}

/// A Rust path as tokens.
pub(crate) fn path(text: &str) -> Result<TokenStream, Error> {
    syn::parse_str::<syn::Path>(text)
        .map(|p| quote! { #p })
        .map_err(|_| Error::BadPath {
            path: text.to_owned(),
        })
}

/// A path from the model (`k8s_openapi::api::core::v1::Pod`, `crate::apis::v1::Foo`):
/// `k8s_openapi` is replaced by the configured path; other crates get a leading `::`.
#[cfg(feature = "generator")]
pub(crate) fn type_path(text: &str, k8s_openapi: &TokenStream) -> Result<TokenStream, Error> {
    if !crate::naming::is_type_path(text) {
        return Err(Error::BadPath {
            path: text.to_owned(),
        });
    }
    let absolute = text.starts_with("::");
    let mut segments = text.trim_start_matches("::").split("::");
    let first = segments.next().unwrap_or_default();
    let rest: Vec<Ident> = segments.map(ident).collect();
    let root = match first {
        "k8s_openapi" if !absolute => k8s_openapi.clone(),
        "crate" | "self" | "super" => {
            let first = Ident::new(first, Span::call_site());
            quote! { #first }
        }
        _ if rest.is_empty() && !absolute => {
            let first = ident(first);
            quote! { #first }
        }
        _ => {
            let first = ident(first);
            quote! { ::#first }
        }
    };
    Ok(quote! { #root #(:: #rest)* })
}

/// An identifier the model validated (`r#type` for a raw one).
pub(crate) fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

#[cfg(feature = "generator")]
/// A type a [`TypeRef`] only names, which each emitter spells its own way.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NamedType<'a> {
    /// A type of the model (`TypeRef::Named`).
    Model(&'a str),
    /// A type outside the model (`TypeRef::External`).
    External(&'a ExternalType),
}

#[cfg(feature = "generator")]
/// The Rust type of `ty`. Scalars and wrappers are spelled the same by every emitter;
/// `named` spells the types the model only names.
pub(crate) fn rust_type(
    paths: &Paths,
    ty: &TypeRef,
    named: &dyn Fn(NamedType<'_>) -> Result<TokenStream, Error>,
) -> Result<TokenStream, Error> {
    let k8s = &paths.k8s_openapi;
    let json = &paths.serde_json;
    Ok(match ty {
        TypeRef::String => quote! { String },
        TypeRef::Bool => quote! { bool },
        TypeRef::I32 => quote! { i32 },
        TypeRef::I64 => quote! { i64 },
        // `serde_json::Number`, not `f64`: `100` must not come back as `100.0`.
        TypeRef::F64 => quote! { #json::Number },
        TypeRef::Bytes => quote! { #k8s::ByteString },
        TypeRef::DateTime => quote! { #k8s::apimachinery::pkg::apis::meta::v1::Time },
        TypeRef::Quantity => quote! { #k8s::apimachinery::pkg::api::resource::Quantity },
        TypeRef::IntOrString => quote! { #k8s::apimachinery::pkg::util::intstr::IntOrString },
        TypeRef::Json => quote! { #json::Value },
        TypeRef::Vec(inner) => {
            let inner = rust_type(paths, inner, named)?;
            quote! { Vec<#inner> }
        }
        TypeRef::Map(inner) => {
            let inner = rust_type(paths, inner, named)?;
            quote! { ::std::collections::BTreeMap<String, #inner> }
        }
        TypeRef::Option(inner) => {
            let inner = rust_type(paths, inner, named)?;
            quote! { Option<#inner> }
        }
        TypeRef::Boxed(inner) => {
            let inner = rust_type(paths, inner, named)?;
            quote! { Box<#inner> }
        }
        TypeRef::Named(name) => named(NamedType::Model(name))?,
        TypeRef::External(external) => named(NamedType::External(external))?,
    })
}

#[cfg(feature = "generator")]
/// Past this score a type is "very complex" to clippy's `type_complexity` (its default
/// `type-complexity-threshold`).
const TYPE_COMPLEXITY_THRESHOLD: u64 = 250;

#[cfg(feature = "generator")]
/// `#[allow(clippy::type_complexity)]` for a field of type `ty` (as [`rust_type`] spells
/// it) that clippy would call very complex, nothing otherwise: a field's type is its
/// schema's nesting (`Option<Option<Vec<Option<Vec<Option<i32>>>>>>`), which no `type`
/// alias would make clearer.
pub(crate) fn allow_type_complexity(ty: &TypeRef) -> TokenStream {
    if type_complexity(ty, 1) > TYPE_COMPLEXITY_THRESHOLD {
        quote! { #[allow(clippy::type_complexity, reason = "the type is the schema's nesting")] }
    } else {
        TokenStream::new()
    }
}

#[cfg(feature = "generator")]
/// Clippy's score of `ty` as [`rust_type`] spells it, at depth `nest`: each path is worth
/// ten times its depth, and its generic arguments sit one level deeper.
fn type_complexity(ty: &TypeRef, nest: u64) -> u64 {
    let own = 10 * nest;
    own + match ty {
        TypeRef::Vec(inner) | TypeRef::Option(inner) | TypeRef::Boxed(inner) => {
            type_complexity(inner, nest + 1)
        }
        // `BTreeMap<String, inner>`.
        TypeRef::Map(inner) => 10 * (nest + 1) + type_complexity(inner, nest + 1),
        _ => 0,
    }
}

#[cfg(all(test, feature = "generator"))]
mod tests {
    use super::*;

    #[test]
    fn type_complexity_scores_as_clippy_does() {
        let nested = |depth: usize| {
            (0..depth).fold(TypeRef::I32, |ty, i| {
                if i % 2 == 0 {
                    TypeRef::option(ty)
                } else {
                    TypeRef::Vec(Box::new(ty))
                }
            })
        };
        // Seven paths deep: 10 * (1 + 2 + ... + 7) = 280 (clippy warned on such a field).
        assert_eq!(type_complexity(&nested(6), 1), 280);
        assert!(!allow_type_complexity(&nested(6)).is_empty());
        // Six deep: 210, no warning, no attribute.
        assert_eq!(type_complexity(&nested(5), 1), 210);
        assert!(allow_type_complexity(&nested(5)).is_empty());
        // A map's key counts one level down.
        assert_eq!(
            type_complexity(&TypeRef::Map(Box::new(TypeRef::String)), 1),
            10 + 20 + 20
        );
    }
}
