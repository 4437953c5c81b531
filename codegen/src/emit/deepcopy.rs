//! Deep copy: a `Clone` impl whose `clone_from` copies field by field.
//!
//! Go's `DeepCopyInto` writes into an existing value; Rust's derived `Clone::clone_from`
//! falls back to `*self = source.clone()`, dropping every buffer the destination owned.
//! The impl emitted here recurses instead (`self.a.clone_from(&source.a)`), so `String`s,
//! `Vec`s and maps reuse their allocations. For enums, the same variant on both sides
//! copies field by field; different variants fall back to `*self = source.clone()`.
//!
//! The input is a [`CopyDef`]: the shape of a type (its field and variant names), built by
//! the Rust front-end for `#[derive(DeepCopy)]` and by the types emitter for generated
//! types. Field types are not needed: each field's own `Clone` impl does the work.
//!
//! ```
//! use kubegen_codegen::emit::deepcopy::{CopyBody, CopyDef, CopyFields, Generics, clone_impl};
//!
//! let def = CopyDef {
//!     name: "Foo".into(),
//!     generics: Generics::default(),
//!     body: CopyBody::Struct(CopyFields::Named(vec!["name".into(), "tags".into()])),
//! };
//! let code = clone_impl(&def).to_string();
//! assert!(code.contains("clone_from (& mut self . name , & source . name)"));
//! ```

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::{StructDef, TypeDef, UnionDef};

/// The shape of a type to deep-copy.
#[derive(Clone, Debug, Default)]
pub struct CopyDef {
    /// The type name (`Foo`, or `r#type` for raw identifiers).
    pub name: String,
    /// Its generic parameters.
    pub generics: Generics,
    /// Its fields or variants.
    pub body: CopyBody,
}

/// Generic parameters, already split for an `impl` (as `syn::Generics::split_for_impl`
/// gives them), plus the names of the type parameters that get a `Clone` bound.
#[derive(Clone, Debug, Default)]
pub struct Generics {
    /// `<'a, T: Bound, const N: usize>` for `impl<...>` (empty when not generic).
    pub impl_params: TokenStream,
    /// `<'a, T, N>` for the self type (empty when not generic).
    pub type_args: TokenStream,
    /// The predicates of the type's own `where` clause.
    pub where_predicates: Vec<TokenStream>,
    /// Type parameter names; each gets `T: Clone`, as `#[derive(Clone)]` does.
    pub type_params: Vec<String>,
}

/// A struct's fields or an enum's variants.
#[derive(Clone, Debug)]
pub enum CopyBody {
    /// A struct.
    Struct(CopyFields),
    /// An enum: variant names with their fields, in declaration order.
    Enum(Vec<(String, CopyFields)>),
}

impl Default for CopyBody {
    fn default() -> Self {
        CopyBody::Struct(CopyFields::Unit)
    }
}

/// The fields of a struct or variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CopyFields {
    /// `{ a, b }`: field names.
    Named(Vec<String>),
    /// `(A, B)`: the number of fields.
    Unnamed(usize),
    /// No fields.
    Unit,
}

/// The deep-copying `Clone` of a generated struct (wrapped in `const _`).
pub(crate) fn generated_struct(ty: &TypeDef, s: &StructDef) -> TokenStream {
    let mut names: Vec<String> = s.fields.iter().map(|f| f.rust_name.clone()).collect();
    names.extend(s.additional.iter().map(|a| a.rust_name.clone()));
    let def = CopyDef {
        name: ty.name.clone(),
        generics: Generics::default(),
        body: CopyBody::Struct(CopyFields::Named(names)),
    };
    let clone = clone_impl(&def);
    quote! { const _: () = { #clone }; }
}

/// The deep-copying `Clone` of a generated untagged union (wrapped in `const _`).
pub(crate) fn generated_union(ty: &TypeDef, u: &UnionDef) -> TokenStream {
    let def = CopyDef {
        name: ty.name.clone(),
        generics: Generics::default(),
        body: CopyBody::Enum(
            u.variants
                .iter()
                .map(|v| (v.rust_name.clone(), CopyFields::Unnamed(1)))
                .collect(),
        ),
    };
    let clone = clone_impl(&def);
    quote! { const _: () = { #clone }; }
}

/// An identifier from a name that may be raw (`r#type`).
pub(crate) fn any_ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// `impl Clone for #name` with `clone` and a field-wise `clone_from`.
pub fn clone_impl(def: &CopyDef) -> TokenStream {
    let name = any_ident(&def.name);
    let Generics {
        impl_params,
        type_args,
        where_predicates,
        type_params,
    } = &def.generics;
    let bounds = type_params.iter().map(|p| {
        let p = any_ident(p);
        quote! { #p: ::core::clone::Clone }
    });
    let predicates: Vec<TokenStream> = where_predicates.iter().cloned().chain(bounds).collect();
    let where_clause = (!predicates.is_empty()).then(|| quote! { where #(#predicates),* });
    let (clone, clone_from) = match &def.body {
        CopyBody::Struct(fields) => struct_bodies(fields),
        CopyBody::Enum(variants) => enum_bodies(variants),
    };
    quote! {
        #[automatically_derived]
        impl #impl_params ::core::clone::Clone for #name #type_args #where_clause {
            #[inline]
            fn clone(&self) -> Self {
                #clone
            }

            #[inline]
            fn clone_from(&mut self, source: &Self) {
                #clone_from
            }
        }
    }
}

fn struct_bodies(fields: &CopyFields) -> (TokenStream, TokenStream) {
    match fields {
        CopyFields::Named(names) => {
            let names: Vec<Ident> = names.iter().map(|n| any_ident(n)).collect();
            (
                quote! { Self { #(#names: ::core::clone::Clone::clone(&self.#names),)* } },
                quote! { #(::core::clone::Clone::clone_from(&mut self.#names, &source.#names);)* },
            )
        }
        CopyFields::Unnamed(count) => {
            let indices: Vec<syn::Index> = (0..*count).map(syn::Index::from).collect();
            (
                quote! { Self(#(::core::clone::Clone::clone(&self.#indices),)*) },
                quote! { #(::core::clone::Clone::clone_from(&mut self.#indices, &source.#indices);)* },
            )
        }
        CopyFields::Unit => (quote! { Self }, TokenStream::new()),
    }
}

/// Bindings for one side of a variant pattern: `{ a: dst_0, b: dst_1 }` or `(dst_0, dst_1)`.
fn pattern(fields: &CopyFields, prefix: &str) -> (TokenStream, Vec<Ident>) {
    match fields {
        CopyFields::Named(names) => {
            let bindings: Vec<Ident> = (0..names.len())
                .map(|i| format_ident!("{prefix}_{i}"))
                .collect();
            let names = names.iter().map(|n| any_ident(n));
            (quote! { { #(#names: #bindings),* } }, bindings)
        }
        CopyFields::Unnamed(count) => {
            let bindings: Vec<Ident> = (0..*count).map(|i| format_ident!("{prefix}_{i}")).collect();
            (quote! { ( #(#bindings),* ) }, bindings)
        }
        CopyFields::Unit => (TokenStream::new(), Vec::new()),
    }
}

fn enum_bodies(variants: &[(String, CopyFields)]) -> (TokenStream, TokenStream) {
    if variants.is_empty() {
        return (quote! { match *self {} }, quote! { match *self {} });
    }
    let clone_arms = variants.iter().map(|(variant, fields)| {
        let variant = any_ident(variant);
        let (pat, bindings) = pattern(fields, "field");
        let built = match fields {
            CopyFields::Named(names) => {
                let names = names.iter().map(|n| any_ident(n));
                quote! { { #(#names: ::core::clone::Clone::clone(#bindings)),* } }
            }
            CopyFields::Unnamed(_) => {
                quote! { ( #(::core::clone::Clone::clone(#bindings)),* ) }
            }
            CopyFields::Unit => TokenStream::new(),
        };
        quote! { Self::#variant #pat => Self::#variant #built, }
    });
    let from_arms = variants.iter().map(|(variant, fields)| {
        let variant = any_ident(variant);
        let (dst_pat, dst) = pattern(fields, "dst");
        let (src_pat, src) = pattern(fields, "src");
        quote! {
            (Self::#variant #dst_pat, Self::#variant #src_pat) => {
                #(::core::clone::Clone::clone_from(#dst, #src);)*
            }
        }
    });
    (
        quote! { match self { #(#clone_arms)* } },
        quote! {
            #[allow(unreachable_patterns)]
            match (self, source) {
                #(#from_arms)*
                (destination, source) => *destination = ::core::clone::Clone::clone(source),
            }
        },
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn formatted(def: &CopyDef) -> String {
        let file: syn::File = syn::parse2(clone_impl(def)).expect("valid Rust");
        prettyplease::unparse(&file)
    }

    #[test]
    fn struct_copies_field_by_field() {
        let code = formatted(&CopyDef {
            name: "Foo".into(),
            generics: Generics::default(),
            body: CopyBody::Struct(CopyFields::Named(vec!["name".into(), "r#type".into()])),
        });
        assert!(code.contains("::core::clone::Clone::clone_from(&mut self.name, &source.name);"));
        assert!(
            code.contains("::core::clone::Clone::clone_from(&mut self.r#type, &source.r#type);")
        );
        assert!(
            !code.contains("*self ="),
            "structs never fall back:\n{code}"
        );
    }

    #[test]
    fn tuple_and_unit_structs() {
        let tuple = formatted(&CopyDef {
            name: "Pair".into(),
            generics: Generics::default(),
            body: CopyBody::Struct(CopyFields::Unnamed(2)),
        });
        assert!(tuple.contains(
            "Self(::core::clone::Clone::clone(&self.0), ::core::clone::Clone::clone(&self.1))"
        ));
        assert!(tuple.contains("clone_from(&mut self.1, &source.1)"));
        let unit = formatted(&CopyDef {
            name: "Unit".into(),
            ..CopyDef::default()
        });
        assert!(unit.contains("fn clone(&self) -> Self {\n        Self\n    }"));
    }

    #[test]
    fn enums_fall_back_only_across_variants() {
        let code = formatted(&CopyDef {
            name: "Source".into(),
            generics: Generics::default(),
            body: CopyBody::Enum(vec![
                ("Git".into(), CopyFields::Named(vec!["url".into()])),
                ("Image".into(), CopyFields::Unnamed(1)),
                ("None".into(), CopyFields::Unit),
            ]),
        });
        assert!(code.contains("(Self::Git { url: dst_0 }, Self::Git { url: src_0 }) => {"));
        assert!(code.contains("(Self::Image(dst_0), Self::Image(src_0)) => {"));
        assert!(code.contains(
            "(destination, source) => *destination = ::core::clone::Clone::clone(source)"
        ));
    }

    #[test]
    fn type_parameters_get_clone_bounds() {
        let code = formatted(&CopyDef {
            name: "Wrapper".into(),
            generics: Generics {
                impl_params: quote! { <T: Send, U> },
                type_args: quote! { <T, U> },
                where_predicates: vec![quote! { U: Sync }],
                type_params: vec!["T".into(), "U".into()],
            },
            body: CopyBody::Struct(CopyFields::Unnamed(2)),
        });
        assert!(code.contains("impl<T: Send, U> ::core::clone::Clone for Wrapper<T, U>"));
        assert!(
            code.contains("U: Sync,\n    T: ::core::clone::Clone,\n    U: ::core::clone::Clone,")
        );
    }

    #[test]
    fn empty_enum_matches_nothing() {
        let code = formatted(&CopyDef {
            name: "Never".into(),
            generics: Generics::default(),
            body: CopyBody::Enum(Vec::new()),
        });
        assert!(code.contains("match *self {}"));
    }
}
