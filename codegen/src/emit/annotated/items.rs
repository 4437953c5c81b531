//! One kind's file: the `use` lines, the `#[derive(Resource)]` root, its nested types and
//! the `schema_with` functions of the fields that need one.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::attrs::{self, FieldPlan};
use crate::emit::common::{Error, Paths, ident, type_path};
use crate::emit::common::{NamedType, rust_type};
use crate::model::{
    EnumDef, Field, Group as ApiGroup, Kind, RootType, StructDef, TypeDef, TypeDefKind, TypeRef,
    UnionDef, Version,
};
use crate::naming::{self, RenameRule};

/// The file of `kind`: its root struct and `types` (the version's types in its module).
pub(super) fn kind_file(
    group: &ApiGroup,
    version: &Version,
    kind: &Kind,
    types: &[&TypeDef],
) -> Result<TokenStream, Error> {
    let RootType::Generated(root_name) = &kind.root else {
        return Err(unsupported(
            kind,
            "its root type is not generated from a schema",
        ));
    };
    let paths = paths()?;
    let mut items = Vec::new();
    let mut functions = Vec::new();
    let mut uses_schema_traits = false;
    for def in types {
        let (item, fns) = match &def.kind {
            TypeDefKind::Struct(s) if def.name == *root_name => {
                root(group, version, kind, def, s, &paths)?
            }
            TypeDefKind::Struct(s) => {
                uses_schema_traits = true;
                strukt(version, def, s, &paths)?
            }
            TypeDefKind::Enum(e) => {
                uses_schema_traits = true;
                (enumeration(def, e), Vec::new())
            }
            TypeDefKind::Union(u) => {
                uses_schema_traits = true;
                (union(def, u, &paths)?, Vec::new())
            }
        };
        items.push(item);
        functions.extend(fns);
    }
    let schema_traits = uses_schema_traits.then(|| {
        quote! {
            use schemars::JsonSchema;
            use serde::{Deserialize, Serialize};
        }
    });
    Ok(quote! {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        use kubegen::Resource;
        #schema_traits
        #(#items)*
        #(#functions)*
    })
}

fn unsupported(kind: &Kind, why: &str) -> Error {
    Error::Annotated {
        at: kind
            .origin
            .kind
            .as_ref()
            .map(|at| format!("{at}: "))
            .unwrap_or_default(),
        name: format!("kind {}", kind.name),
        reason: why.to_owned(),
    }
}

/// Crate paths as a user's crate spells them (its own dependencies).
fn paths() -> Result<Paths, Error> {
    Paths::new(&crate::emit::Options {
        k8s_openapi: "k8s_openapi".to_owned(),
        serde: "serde".to_owned(),
        serde_json: "serde_json".to_owned(),
    })
}

/// The Rust type of `ty` in the user's crate.
fn rust(ty: &TypeRef, paths: &Paths) -> Result<TokenStream, Error> {
    rust_type(paths, ty, &|named| match named {
        NamedType::Model(name) => {
            let name = ident(name);
            Ok(quote! { #name })
        }
        NamedType::External(external) => type_path(&external.path, &paths.k8s_openapi),
    })
}

fn root(
    group: &ApiGroup,
    version: &Version,
    kind: &Kind,
    def: &TypeDef,
    s: &StructDef,
    paths: &Paths,
) -> Result<(TokenStream, Vec<TokenStream>), Error> {
    if s.additional.is_some() {
        return Err(unsupported(
            kind,
            "the root object keeps unknown fields, which `#[derive(Resource)]` does not",
        ));
    }
    let name = ident(&def.name);
    let docs = attrs::docs(def.docs.as_deref());
    let resource = attrs::resource(group, version, kind, &def.name);
    let mut fields = Vec::new();
    for field in &s.fields {
        let rust_name = ident(&field.rust_name);
        let field_docs = attrs::docs(field.docs.as_deref());
        if field.wire_name == "metadata" {
            fields.push(quote! { #field_docs pub metadata: ObjectMeta, });
            continue;
        }
        if !attrs::is_native(version, &field.ty) {
            return Err(unsupported(
                kind,
                &format!(
                    "the schema of root field `{}` is not readable from source",
                    field.wire_name
                ),
            ));
        }
        let carried = !field.validation.is_empty() || field.default.is_some();
        if carried && !matches!(field.ty, TypeRef::Named(_)) {
            return Err(unsupported(
                kind,
                &format!(
                    "root field `{}` has validations or a default, which `crd()` reads from \
                     the field's struct only",
                    field.wire_name
                ),
            ));
        }
        let rename = (field.wire_name != naming::root_wire_name(&field.rust_name)).then(|| {
            let wire = &field.wire_name;
            quote! { #[resource(rename = #wire)] }
        });
        let ty = rust(&field.ty, paths)?;
        let ty = if field.required {
            ty
        } else {
            quote! { Option<#ty> }
        };
        fields.push(quote! { #field_docs #rename pub #rust_name: #ty, });
    }
    Ok((
        quote! {
            #docs
            #[derive(Clone, Debug, PartialEq, Resource)]
            #resource
            pub struct #name { #(#fields)* }
        },
        Vec::new(),
    ))
}

fn strukt(
    version: &Version,
    def: &TypeDef,
    s: &StructDef,
    paths: &Paths,
) -> Result<(TokenStream, Vec<TokenStream>), Error> {
    let name = ident(&def.name);
    let docs = attrs::docs(def.docs.as_deref());
    let camel = s
        .fields
        .iter()
        .all(|f| f.wire_name == RenameRule::Camel.field(f.rust_name.trim_start_matches("r#")));
    let rename_all = camel.then(|| quote! { #[serde(rename_all = "camelCase")] });
    let container_extend = match root_field_of(version, def) {
        Some(field) => attrs::extend(&field.validation, field.default.as_ref()),
        None => TokenStream::new(),
    };
    let mut fields = Vec::new();
    let mut functions = Vec::new();
    for field in &s.fields {
        let (tokens, function) = member(version, def, field, camel, paths)?;
        fields.push(tokens);
        functions.extend(function);
    }
    if let Some(additional) = &s.additional {
        let rust_name = ident(&additional.rust_name);
        let value = if attrs::is_native(version, &additional.value) {
            rust(&additional.value, paths)?
        } else {
            quote! { serde_json::Value }
        };
        fields.push(quote! {
            #[serde(flatten)]
            pub #rust_name: ::std::collections::BTreeMap<String, #value>,
        });
    }
    Ok((
        quote! {
            #docs
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
            #rename_all
            #container_extend
            pub struct #name { #(#fields)* }
        },
        functions,
    ))
}

/// The root field `def` is the type of, if any: the struct carries that field's
/// validations and default itself (`crd()` describes a root field by its type alone).
fn root_field_of<'v>(version: &'v Version, def: &TypeDef) -> Option<&'v Field> {
    version.kinds.values().find_map(|kind| {
        let (_, root) = version.root_of(kind)?;
        root.fields
            .iter()
            .find(|f| f.ty == TypeRef::Named(def.name.clone()))
    })
}

/// One field of a nested struct, and its `schema_with` function if it needs one.
fn member(
    version: &Version,
    def: &TypeDef,
    field: &Field,
    camel: bool,
    paths: &Paths,
) -> Result<(TokenStream, Option<TokenStream>), Error> {
    let plan = FieldPlan::new(version, field).map_err(|reason| Error::Annotated {
        at: String::new(),
        name: format!("type {}", def.name),
        reason,
    })?;
    let rust_name = ident(&field.rust_name);
    let docs = attrs::docs(field.docs.as_deref());
    let rename = (!camel).then(|| {
        let wire = &field.wire_name;
        quote! { #[serde(rename = #wire)] }
    });
    let ty = rust(&field.ty, paths)?;
    let ty = if plan.optional {
        quote! { Option<#ty> }
    } else {
        ty
    };
    let function = plan.written.as_ref().map(|_| {
        let plain = field
            .rust_name
            .trim_start_matches("r#")
            .trim_end_matches('_');
        format_ident!("{}_{plain}_schema", crate::naming::kind_module(&def.name))
    });
    let field_attrs = plan.attrs(function.as_ref().map(ToString::to_string).as_deref());
    let function = match (function, &plan.written) {
        (Some(name), Some(schema)) => {
            let literal = attrs::json_tokens(schema);
            Some(quote! {
                fn #name(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                    schemars::json_schema!(#literal)
                }
            })
        }
        _ => None,
    };
    Ok((
        quote! { #docs #rename #field_attrs pub #rust_name: #ty, },
        function,
    ))
}

fn enumeration(def: &TypeDef, e: &EnumDef) -> TokenStream {
    let name = ident(&def.name);
    let docs = attrs::docs(def.docs.as_deref());
    let variants = e.variants.iter().map(|v| {
        let rust_name = ident(&v.rust_name);
        let wire = &v.wire;
        quote! { #[serde(rename = #wire)] #rust_name, }
    });
    quote! {
        #docs
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub enum #name { #(#variants)* }
    }
}

fn union(def: &TypeDef, u: &UnionDef, paths: &Paths) -> Result<TokenStream, Error> {
    let name = ident(&def.name);
    let docs = attrs::docs(def.docs.as_deref());
    let mut variants = Vec::new();
    for v in &u.variants {
        let rust_name = ident(&v.rust_name);
        let ty = rust(&v.ty, paths)?;
        variants.push(quote! { #rust_name(#ty), });
    }
    Ok(quote! {
        #docs
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(untagged)]
        pub enum #name { #(#variants)* }
    })
}
