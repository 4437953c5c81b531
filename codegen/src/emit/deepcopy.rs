//! Deep copy: a `Clone` impl whose `clone_from` copies field by field.
//!
//! Go's `DeepCopyInto` writes into an existing value; Rust's derived `Clone::clone_from`
//! falls back to `*self = source.clone()`, dropping every buffer the destination owned.
//! The impl emitted here recurses instead (`self.a.clone_from(&source.a)`), so `String`s,
//! `Vec`s and maps reuse their allocations. For enums, the same variant on both sides
//! copies field by field; different variants fall back to `*self = source.clone()`.
//!
//! The input is a [`TypeShape`] from the model: the shape of a type (its field and variant
//! names, its generics as written), read by the Rust front-end for `#[derive(DeepCopy)]`.
//! Field types are not needed: each field's own `Clone` impl does the work. Types generated
//! from schemas derive `Clone` instead (it compiles faster, and their `clone_from` then
//! reuses no buffers); a user who wants the field-wise copy writes the type by hand with
//! `#[derive(DeepCopy)]`.
//!
//! ```
//! use kubegen_codegen::__internal::emit::deepcopy::clone_impl;
//! use kubegen_codegen::__internal::model::{ShapeBody, ShapeFields, TypeShape};
//!
//! let shape = TypeShape {
//!     name: "Foo".into(),
//!     body: ShapeBody::Struct(ShapeFields::Named(vec!["name".into(), "tags".into()])),
//!     ..TypeShape::default()
//! };
//! let code = clone_impl(&shape)?.to_string();
//! assert!(code.contains("clone_from (& mut self . name , & source . name)"));
//! # Ok::<(), kubegen_codegen::__internal::emit::Error>(())
//! ```

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::common::{Error, ident};
use crate::model::{ParamKind, ShapeBody, ShapeFields, ShapeVariant, TypeShape};

/// Parses one piece of the shape's generics.
fn parse<T: syn::parse::Parse>(shape: &TypeShape, text: &str) -> Result<T, Error> {
    syn::parse_str(text).map_err(|_| Error::BadGenerics {
        ty: shape.name.clone(),
        text: text.to_owned(),
    })
}

/// `impl Clone for #name` with `clone` and a field-wise `clone_from`. Type parameters get
/// a `Clone` bound, as `#[derive(Clone)]` adds.
pub fn clone_impl(shape: &TypeShape) -> Result<TokenStream, Error> {
    let name = ident(&shape.name);
    let params = &shape.generics.params;
    let declarations = params
        .iter()
        .map(|p| parse::<syn::GenericParam>(shape, &p.declaration))
        .collect::<Result<Vec<_>, _>>()?;
    let arguments = params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Lifetime => parse::<syn::Lifetime>(shape, &p.name).map(|l| quote! { #l }),
            ParamKind::Type | ParamKind::Const => {
                let name = ident(&p.name);
                Ok(quote! { #name })
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (impl_params, type_args) = if params.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        (
            quote! { <#(#declarations),*> },
            quote! { <#(#arguments),*> },
        )
    };
    let mut predicates = shape
        .generics
        .where_predicates
        .iter()
        .map(|p| parse::<syn::WherePredicate>(shape, p).map(|p| quote! { #p }))
        .collect::<Result<Vec<_>, _>>()?;
    predicates.extend(
        params
            .iter()
            .filter(|p| p.kind == ParamKind::Type)
            .map(|p| {
                let p = ident(&p.name);
                quote! { #p: ::core::clone::Clone }
            }),
    );
    let where_clause = (!predicates.is_empty()).then(|| quote! { where #(#predicates),* });
    let (clone, clone_from) = match &shape.body {
        ShapeBody::Struct(fields) => struct_bodies(fields),
        ShapeBody::Enum(variants) => enum_bodies(variants),
    };
    Ok(quote! {
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
    })
}

fn struct_bodies(fields: &ShapeFields) -> (TokenStream, TokenStream) {
    match fields {
        ShapeFields::Named(names) => {
            let names: Vec<Ident> = names.iter().map(|n| ident(n)).collect();
            (
                quote! { Self { #(#names: ::core::clone::Clone::clone(&self.#names),)* } },
                quote! { #(::core::clone::Clone::clone_from(&mut self.#names, &source.#names);)* },
            )
        }
        ShapeFields::Unnamed(count) => {
            let indices: Vec<syn::Index> = (0..*count).map(syn::Index::from).collect();
            (
                quote! { Self(#(::core::clone::Clone::clone(&self.#indices),)*) },
                quote! { #(::core::clone::Clone::clone_from(&mut self.#indices, &source.#indices);)* },
            )
        }
        ShapeFields::Unit => (quote! { Self }, TokenStream::new()),
    }
}

/// Bindings for one side of a variant pattern: `{ a: dst_0, b: dst_1 }` or `(dst_0, dst_1)`.
fn pattern(fields: &ShapeFields, prefix: &str) -> (TokenStream, Vec<Ident>) {
    match fields {
        ShapeFields::Named(names) => {
            let bindings: Vec<Ident> = (0..names.len())
                .map(|i| format_ident!("{prefix}_{i}"))
                .collect();
            let names = names.iter().map(|n| ident(n));
            (quote! { { #(#names: #bindings),* } }, bindings)
        }
        ShapeFields::Unnamed(count) => {
            let bindings: Vec<Ident> = (0..*count).map(|i| format_ident!("{prefix}_{i}")).collect();
            (quote! { ( #(#bindings),* ) }, bindings)
        }
        ShapeFields::Unit => (TokenStream::new(), Vec::new()),
    }
}

fn enum_bodies(variants: &[ShapeVariant]) -> (TokenStream, TokenStream) {
    if variants.is_empty() {
        return (quote! { match *self {} }, quote! { match *self {} });
    }
    let clone_arms = variants.iter().map(|ShapeVariant { name, fields }| {
        let variant = ident(name);
        let (pat, bindings) = pattern(fields, "field");
        let built = match fields {
            ShapeFields::Named(names) => {
                let names = names.iter().map(|n| ident(n));
                quote! { { #(#names: ::core::clone::Clone::clone(#bindings)),* } }
            }
            ShapeFields::Unnamed(_) => {
                quote! { ( #(::core::clone::Clone::clone(#bindings)),* ) }
            }
            ShapeFields::Unit => TokenStream::new(),
        };
        quote! { Self::#variant #pat => Self::#variant #built, }
    });
    let from_arms = variants.iter().map(|ShapeVariant { name, fields }| {
        let variant = ident(name);
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

    use crate::model::{GenericParam, Generics};

    fn formatted(shape: &TypeShape) -> String {
        let file: syn::File = syn::parse2(clone_impl(shape).unwrap()).expect("valid Rust");
        prettyplease::unparse(&file)
    }

    #[test]
    fn struct_copies_field_by_field() {
        let code = formatted(&TypeShape {
            name: "Foo".into(),
            generics: Generics::default(),
            body: ShapeBody::Struct(ShapeFields::Named(vec!["name".into(), "r#type".into()])),
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
        let tuple = formatted(&TypeShape {
            name: "Pair".into(),
            generics: Generics::default(),
            body: ShapeBody::Struct(ShapeFields::Unnamed(2)),
        });
        assert!(tuple.contains(
            "Self(::core::clone::Clone::clone(&self.0), ::core::clone::Clone::clone(&self.1))"
        ));
        assert!(tuple.contains("clone_from(&mut self.1, &source.1)"));
        let unit = formatted(&TypeShape {
            name: "Unit".into(),
            ..TypeShape::default()
        });
        assert!(unit.contains("fn clone(&self) -> Self {\n        Self\n    }"));
    }

    #[test]
    fn enums_fall_back_only_across_variants() {
        let code = formatted(&TypeShape {
            name: "Source".into(),
            generics: Generics::default(),
            body: ShapeBody::Enum(vec![
                variant("Git", ShapeFields::Named(vec!["url".into()])),
                variant("Image", ShapeFields::Unnamed(1)),
                variant("None", ShapeFields::Unit),
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
        let code = formatted(&TypeShape {
            name: "Wrapper".into(),
            generics: Generics {
                params: vec![
                    param(ParamKind::Lifetime, "'a", "'a"),
                    param(ParamKind::Type, "T", "T: Send"),
                    param(ParamKind::Type, "U", "U"),
                    param(ParamKind::Const, "N", "const N: usize"),
                ],
                where_predicates: vec!["U: Sync".into()],
            },
            body: ShapeBody::Struct(ShapeFields::Unnamed(2)),
        });
        assert!(
            code.contains(
                "impl<'a, T: Send, U, const N: usize> ::core::clone::Clone for Wrapper<'a, T, U, N>"
            ),
            "{code}"
        );
        assert!(
            code.contains("U: Sync,\n    T: ::core::clone::Clone,\n    U: ::core::clone::Clone,")
        );
    }

    #[test]
    fn empty_enum_matches_nothing() {
        let code = formatted(&TypeShape {
            name: "Never".into(),
            generics: Generics::default(),
            body: ShapeBody::Enum(Vec::new()),
        });
        assert!(code.contains("match *self {}"));
    }

    fn variant(name: &str, fields: ShapeFields) -> ShapeVariant {
        ShapeVariant {
            name: name.into(),
            fields,
        }
    }

    fn param(kind: ParamKind, name: &str, declaration: &str) -> GenericParam {
        GenericParam {
            kind,
            name: name.into(),
            declaration: declaration.into(),
        }
    }

    #[test]
    fn unparsable_generics_are_an_error_not_a_panic() {
        let shape = TypeShape {
            name: "Bad".into(),
            generics: Generics {
                params: vec![param(ParamKind::Type, "T", "T: +")],
                where_predicates: Vec::new(),
            },
            body: ShapeBody::Struct(ShapeFields::Unit),
        };
        assert!(matches!(clone_impl(&shape), Err(Error::BadGenerics { .. })));
    }
}
