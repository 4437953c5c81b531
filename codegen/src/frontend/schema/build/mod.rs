//! Turns structural schemas into model types.
//!
//! The rules, in order of precedence, for one schema node:
//!
//! 1. `allOf` branches are merged into the node; `oneOf`/`anyOf` branches are merged too
//!    when they only constrain (the way controller-gen and most CRDs use them); they become
//!    an untagged union only when the node has no type of its own and every branch does.
//! 2. `x-kubernetes-int-or-string` -> `IntOrString`.
//! 3. Objects: a k8s-openapi type when the schema is exactly one; otherwise a struct when
//!    there are properties (with a flattened map for `additionalProperties` or
//!    `x-kubernetes-preserve-unknown-fields` beside them, so nothing is dropped); a map for
//!    `additionalProperties`; `serde_json::Value` for preserve-unknown objects without
//!    properties; `BTreeMap<String, Value>` for bare objects.
//! 4. Arrays -> `Vec`; strings -> `String`, a string enum, `ByteString`, `Time` or
//!    `Quantity` by `enum`/`format`; integers -> `i32`/`i64`; numbers -> `f64`.
//! 5. Nodes with no type information -> `serde_json::Value`.
//!
//! The OpenAPI front-end uses this builder too ([`Dialect::OpenApi`]): there a `$ref` (also
//! wrapped in a one-branch `allOf`) resolves through [`Refs`] to a named type or to a
//! k8s-openapi type, objects are never matched to k8s-openapi types by shape (names are
//! authoritative), and list/map semantics (`x-kubernetes-list-type`...) go to the docs.

use std::borrow::Cow;

use serde_saphyr::Spanned;

use super::node::{AdditionalProperties, Schema};
use super::wellknown;
use crate::frontend::Error;
use crate::model::{
    Additional, EnumDef, EnumVariant, ExternalType, Field, RootInfo, StructDef, TypeDef,
    TypeDefKind, TypeRef, UnionDef, UnionVariant, Validation,
};
use crate::naming::{self, UniqueNames};

mod refs;

pub(crate) use refs::Refs;
use refs::with_list_semantics;

/// Builds the types of one kind into a version's type list.
pub(crate) struct TypeBuilder<'a> {
    /// Input file name, for error messages.
    pub(crate) file: &'a str,
    /// Line offset of the document inside the file.
    pub(crate) line_offset: u64,
    /// The Rust module the kind's types go to.
    pub(crate) module: String,
    /// Type names already taken in the version.
    pub(crate) names: &'a mut UniqueNames,
    /// Types built so far, in emission order.
    pub(crate) types: Vec<TypeDef>,
    /// Which kind of document the schemas come from.
    pub(crate) dialect: Dialect,
    /// How `$ref`s resolve (OpenAPI documents only).
    pub(crate) refs: Option<Refs<'a>>,
    /// The name the next named type takes instead of one derived from its path (a
    /// definition's own name).
    pub(crate) fixed_name: Option<String>,
    /// How each part of a type's path is spelled in its name, computed once.
    pub(crate) name_parts: naming::PartCache,
}

/// Which kind of document schemas come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// A CRD's `openAPIV3Schema`: self-contained; objects shaped exactly like a k8s-openapi
    /// type become that type.
    Crd,
    /// An OpenAPI document's definitions: `$ref`s between named schemas.
    OpenApi,
}

/// Where a schema node is, for errors: its source location.
#[derive(Clone, Copy)]
pub(crate) struct At {
    line: u64,
    column: u64,
}

impl TypeBuilder<'_> {
    /// Builds the root struct of `kind` from the version's `openAPIV3Schema` and returns
    /// its Rust name.
    pub(crate) fn root(&mut self, kind: &str, schema: &Spanned<Schema>) -> Result<String, Error> {
        let at = self.at(&schema.referenced);
        let node = merged(&schema.value);
        let name = self.claim(&[kind]);
        // Reserve the slot so the root is emitted first.
        let slot = self.types.len();
        self.types.push(placeholder(&name, &self.module));

        let mut fields = Vec::new();
        let mut field_names = UniqueNames::snake();
        field_names.reserve("metadata");
        fields.push(Field {
            wire_name: "metadata".to_owned(),
            rust_name: "metadata".to_owned(),
            ty: TypeRef::External(ExternalType::object_meta()),
            required: true,
            nullable: false,
            default: None,
            docs: Some(
                "Standard object's metadata. More info: \
https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
                    .to_owned(),
            ),
            validation: Default::default(),
            written_schema: None,
        });
        let props: Vec<(&String, &Spanned<Schema>)> = node
            .properties
            .iter()
            .flatten()
            .filter(|(wire, _)| !matches!(wire.as_str(), "apiVersion" | "kind" | "metadata"))
            .collect();
        let wires: Vec<&str> = props.iter().map(|(w, _)| w.as_str()).collect();
        let rust_names = naming::assign(&wires, naming::field_name, &mut field_names);
        for ((wire, prop), rust_name) in props.into_iter().zip(rust_names) {
            let path = [kind.to_owned(), wire.clone()];
            fields.push(self.field(&node, wire, prop, &path, rust_name)?);
        }
        let additional = self.additional(&node, &[kind.to_owned()], &mut field_names, at)?;
        self.types[slot] = TypeDef {
            name: name.clone(),
            module: self.module.clone(),
            docs: node.description.clone(),
            kind: TypeDefKind::Struct(StructDef {
                fields,
                additional,
                root: Some(RootInfo {
                    kind: kind.to_owned(),
                }),
            }),
        };
        Ok(name)
    }

    /// A name for the type at `path`: the fixed name if one is pending, otherwise one
    /// derived from the path.
    fn claim(&mut self, path: &[&str]) -> String {
        match self.fixed_name.take() {
            Some(name) => name,
            None => {
                let name = naming::type_name_cached(path, &mut self.name_parts);
                self.names.claim(name)
            }
        }
    }

    /// Where a location of the current document is.
    pub(crate) fn at(&self, location: &serde_saphyr::Location) -> At {
        At {
            line: location.line() + self.line_offset,
            column: location.column(),
        }
    }

    fn error(&self, at: At, message: impl Into<String>) -> Error {
        Error::input(self.file, at.line, at.column, message)
    }

    fn field(
        &mut self,
        parent: &Schema,
        wire: &str,
        prop: &Spanned<Schema>,
        path: &[String],
        rust_name: String,
    ) -> Result<Field, Error> {
        let at = self.at(&prop.referenced);
        let node = merged(&prop.value);
        let validation = match self.dialect {
            // OpenAPI documents' list semantics go to the docs (`with_list_semantics`).
            Dialect::OpenApi => Validation::default(),
            Dialect::Crd => node
                .validation()
                .map_err(|message| self.error(at, message))?,
        };
        let field = Field {
            wire_name: wire.to_owned(),
            rust_name,
            ty: self.type_ref(&node, path, at)?,
            required: parent.required.iter().any(|r| r == wire),
            nullable: node.nullable,
            default: node.default.as_ref().map(|d| d.value.clone()),
            docs: match self.dialect {
                Dialect::Crd => docs_with_values(&node),
                Dialect::OpenApi => with_list_semantics(docs_with_values(&node), &node),
            },
            validation,
            written_schema: None,
        };
        if let Some(default) = &node.default {
            self.check_default(&field, default)?;
        }
        Ok(field)
    }

    /// A CRD property's default must be a value of its type, as the API server requires;
    /// OpenAPI documents' defaults are informational (openapi-gen writes `{}` for Go's zero
    /// values) and generated types apply only those that fit.
    fn check_default(
        &self,
        field: &Field,
        default: &Spanned<serde_json::Value>,
    ) -> Result<(), Error> {
        if self.dialect != Dialect::Crd {
            return Ok(());
        }
        let lookup = |name: &str| self.types.iter().find(|t| t.name == name);
        crate::model::field_default(field, &default.value, &lookup)
            .map(drop)
            .map_err(|message| {
                self.error(
                    self.at(&default.referenced),
                    format!("invalid default of `{}`: {message}", field.wire_name),
                )
            })
    }

    /// The flattened catch-all map of a struct, when its schema allows extra properties.
    fn additional(
        &mut self,
        node: &Schema,
        path: &[String],
        field_names: &mut UniqueNames,
        at: At,
    ) -> Result<Option<Additional>, Error> {
        let value = match &node.additional_properties {
            Some(AdditionalProperties::Schema(value)) => {
                let value = merged(value);
                let ty = self.type_ref(&value, &extend(path, "value"), at)?;
                if value.nullable {
                    TypeRef::option(ty)
                } else {
                    ty
                }
            }
            Some(AdditionalProperties::Allowed(true)) => TypeRef::Json,
            _ if node.preserve_unknown_fields => TypeRef::Json,
            _ => return Ok(None),
        };
        Ok(Some(Additional {
            rust_name: field_names.claim("additional_properties".to_owned()),
            value,
        }))
    }

    /// The type of one (already merged) schema node at `path`.
    fn type_ref(&mut self, node: &Schema, path: &[String], at: At) -> Result<TypeRef, Error> {
        if node.int_or_string {
            return Ok(TypeRef::IntOrString);
        }
        if let Some(reference) = &node.reference {
            let name = match &self.refs {
                Some(refs) => reference.strip_prefix(refs.prefix).ok_or_else(|| {
                    self.error(
                        at,
                        format!(
                            "expected `$ref` to start with `{}`, found `{reference}`",
                            refs.prefix
                        ),
                    )
                })?,
                None => reference.as_str(),
            };
            return self.definition(name, at);
        }
        if let Some(union) = self.union(node, path, at)? {
            return Ok(union);
        }
        match node.type_.as_deref() {
            Some("object") => self.object(node, path, at),
            None if node.properties.is_some() || node.additional_properties.is_some() => {
                self.object(node, path, at)
            }
            Some("array") => {
                let Some(items) = &node.items else {
                    return Ok(TypeRef::vec(TypeRef::Json));
                };
                let item_at = self.at(&items.referenced);
                let item = merged(&items.value);
                let ty = self.type_ref(&item, path, item_at)?;
                Ok(TypeRef::vec(if item.nullable {
                    TypeRef::option(ty)
                } else {
                    ty
                }))
            }
            None if node.items.is_some() => {
                let mut array = node.clone();
                array.type_ = Some("array".to_owned());
                self.type_ref(&array, path, at)
            }
            Some("string") => self.string(node, path),
            Some("integer") => Ok(match node.format.as_deref() {
                Some("int32") => TypeRef::I32,
                _ => TypeRef::I64,
            }),
            Some("number") => Ok(TypeRef::F64),
            Some("boolean") => Ok(TypeRef::Bool),
            None => Ok(TypeRef::Json),
            Some(other) => Err(self.error(
                at,
                format!(
                    "expected `type` to be one of object, array, string, integer, number or \
boolean, found `{other}`"
                ),
            )),
        }
    }

    fn object(&mut self, node: &Schema, path: &[String], at: At) -> Result<TypeRef, Error> {
        if self.dialect == Dialect::Crd
            && let Some(external) = wellknown::external_for(node)
        {
            return Ok(TypeRef::External(external));
        }
        let embedded;
        let node =
            if node.embedded_resource && node.properties.as_ref().is_some_and(|p| !p.is_empty()) {
                embedded = with_embedded_fields(node);
                &embedded
            } else {
                node
            };
        let props = node.properties.as_ref().filter(|p| !p.is_empty());
        let Some(props) = props else {
            return Ok(match &node.additional_properties {
                Some(AdditionalProperties::Schema(value)) => {
                    let value = merged(value);
                    let ty = self.type_ref(&value, path, at)?;
                    TypeRef::map(if value.nullable {
                        TypeRef::option(ty)
                    } else {
                        ty
                    })
                }
                _ if node.preserve_unknown_fields => TypeRef::Json,
                _ => TypeRef::map(TypeRef::Json),
            });
        };
        let parts: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = self.claim(&parts);
        let slot = self.types.len();
        self.types.push(placeholder(&name, &self.module));
        let mut field_names = UniqueNames::snake();
        let wires: Vec<&str> = props.keys().map(String::as_str).collect();
        let rust_names = naming::assign(&wires, naming::field_name, &mut field_names);
        let mut fields = Vec::with_capacity(props.len());
        for ((wire, prop), rust_name) in props.iter().zip(rust_names) {
            fields.push(self.field(node, wire, prop, &extend(path, wire), rust_name)?);
        }
        let additional = self.additional(node, path, &mut field_names, at)?;
        self.types[slot] = TypeDef {
            name: name.clone(),
            module: self.module.clone(),
            docs: node.description.clone(),
            kind: TypeDefKind::Struct(StructDef {
                fields,
                additional,
                root: None,
            }),
        };
        Ok(TypeRef::Named(name))
    }

    fn string(&mut self, node: &Schema, path: &[String]) -> Result<TypeRef, Error> {
        let values: Option<Vec<&str>> = node.enum_.as_ref().and_then(|values| {
            values
                .iter()
                .filter(|v| !v.is_null())
                .map(serde_json::Value::as_str)
                .collect()
        });
        if let Some(values) = values.filter(|v| !v.is_empty()) {
            let parts: Vec<&str> = path.iter().map(String::as_str).collect();
            let name = self.claim(&parts);
            let mut unique: Vec<&str> = Vec::with_capacity(values.len());
            for value in values {
                if !unique.contains(&value) {
                    unique.push(value);
                }
            }
            let rust_names =
                naming::assign(&unique, naming::variant_name, &mut UniqueNames::camel());
            let variants: Vec<EnumVariant> = unique
                .iter()
                .zip(rust_names)
                .map(|(wire, rust_name)| EnumVariant {
                    wire: (*wire).to_owned(),
                    rust_name,
                })
                .collect();
            self.types.push(TypeDef {
                name: name.clone(),
                module: self.module.clone(),
                docs: node.description.clone(),
                kind: TypeDefKind::Enum(EnumDef { variants }),
            });
            return Ok(TypeRef::Named(name));
        }
        Ok(match node.format.as_deref() {
            Some("byte") => TypeRef::Bytes,
            Some("date-time") => TypeRef::DateTime,
            Some("quantity") => TypeRef::Quantity,
            _ => TypeRef::String,
        })
    }

    /// A real union: the node has no shape of its own and every `oneOf`/`anyOf` branch has
    /// a type. `integer | string` is `IntOrString`; anything else an untagged enum.
    fn union(&mut self, node: &Schema, path: &[String], at: At) -> Result<Option<TypeRef>, Error> {
        let branches = if node.one_of.is_empty() {
            &node.any_of
        } else {
            &node.one_of
        };
        if !node.is_untyped() || branches.len() < 2 || branches.iter().any(|b| b.type_.is_none()) {
            return Ok(None);
        }
        let mut types: Vec<&str> = branches.iter().filter_map(|b| b.type_.as_deref()).collect();
        types.sort_unstable();
        if types == ["integer", "string"] {
            return Ok(Some(TypeRef::IntOrString));
        }
        let parts: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = self.claim(&parts);
        let slot = self.types.len();
        self.types.push(placeholder(&name, &self.module));
        let mut variant_names = UniqueNames::camel();
        let mut variants = Vec::with_capacity(branches.len());
        for branch in branches {
            let branch = merged(branch);
            let label = branch.type_.clone().unwrap_or_default();
            let ty = self.type_ref(&branch, &extend(path, &label), at)?;
            variants.push(UnionVariant {
                rust_name: variant_names.claim(naming::variant_name(&label)),
                ty,
            });
        }
        self.types[slot] = TypeDef {
            name: name.clone(),
            module: self.module.clone(),
            docs: node.description.clone(),
            kind: TypeDefKind::Union(UnionDef { variants }),
        };
        Ok(Some(TypeRef::Named(name)))
    }
}

/// The description, plus the allowed values of a non-string `enum` (string enums become
/// Rust enums; other enums keep their base type and list the values here).
fn docs_with_values(node: &Schema) -> Option<String> {
    let values = node
        .enum_
        .as_ref()
        .filter(|_| node.type_.as_deref() != Some("string"))
        .map(|values| {
            let listed: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
            format!("One of {}.", listed.join(", "))
        });
    match (node.description.clone(), values) {
        (Some(d), Some(v)) => Some(format!("{d}\n\n{v}")),
        (d, v) => d.or(v),
    }
}

fn placeholder(name: &str, module: &str) -> TypeDef {
    TypeDef {
        name: name.to_owned(),
        module: module.to_owned(),
        docs: None,
        kind: TypeDefKind::Struct(StructDef::default()),
    }
}

fn extend(path: &[String], part: &str) -> Vec<String> {
    let mut out = path.to_vec();
    out.push(part.to_owned());
    out
}

/// The node with `allOf` branches folded in, and with the properties that constraining
/// `oneOf`/`anyOf` branches mention added as optional fields (unless the node is a real
/// union, see [`TypeBuilder::union`]).
fn merged(schema: &Schema) -> Cow<'_, Schema> {
    let is_union = schema.is_untyped()
        && [&schema.one_of, &schema.any_of]
            .iter()
            .any(|b| b.len() >= 2 && b.iter().all(|b| b.type_.is_some()));
    if schema.all_of.is_empty()
        && (is_union || (schema.one_of.is_empty() && schema.any_of.is_empty()))
    {
        return Cow::Borrowed(schema);
    }
    let mut out = schema.clone();
    for branch in &schema.all_of {
        let branch = merged(branch);
        absorb(&mut out, &branch, true);
    }
    if !is_union {
        for branch in schema.one_of.iter().chain(&schema.any_of) {
            let branch = merged(branch);
            absorb(&mut out, &branch, false);
        }
    }
    Cow::Owned(out)
}

/// Folds `branch` into `out`: missing facts are taken; properties the node lacks are
/// added (required only for `allOf`).
fn absorb(out: &mut Schema, branch: &Schema, all_of: bool) {
    if out.type_.is_none() && all_of {
        out.type_.clone_from(&branch.type_);
    }
    if out.reference.is_none() && all_of {
        out.reference.clone_from(&branch.reference);
    }
    if out.format.is_none() && all_of {
        out.format.clone_from(&branch.format);
    }
    if out.description.is_none() {
        out.description.clone_from(&branch.description);
    }
    if out.items.is_none() && all_of {
        out.items.clone_from(&branch.items);
    }
    if out.additional_properties.is_none() && all_of {
        out.additional_properties
            .clone_from(&branch.additional_properties);
    }
    out.int_or_string |= branch.int_or_string && all_of;
    out.preserve_unknown_fields |= branch.preserve_unknown_fields;
    out.nullable |= branch.nullable && all_of;
    if let Some(props) = &branch.properties {
        // A branch restating a known property only constrains it; new typed ones are kept.
        let known = out.properties.as_ref();
        let added: Vec<_> = props
            .iter()
            .filter(|(name, prop)| {
                !known.is_some_and(|k| k.contains_key(*name)) && !prop.value.is_untyped()
            })
            .map(|(name, prop)| (name.clone(), prop.clone()))
            .collect();
        if !added.is_empty() {
            out.properties
                .get_or_insert_with(Default::default)
                .extend(added);
            if out.type_.is_none() {
                out.type_ = Some("object".to_owned());
            }
        }
    }
    if all_of {
        for r in &branch.required {
            if !out.required.contains(r) {
                out.required.push(r.clone());
            }
        }
    }
}

/// An embedded resource (`x-kubernetes-embedded-resource`) always carries `apiVersion`,
/// `kind` and `metadata`, declared or not; undeclared ones are added so they survive.
fn with_embedded_fields(node: &Schema) -> Schema {
    let mut out = node.clone();
    let props = out.properties.get_or_insert_with(Default::default);
    for (name, type_) in [
        ("apiVersion", "string"),
        ("kind", "string"),
        ("metadata", "object"),
    ] {
        props.entry(name.to_owned()).or_insert_with(|| {
            Spanned::new(
                Schema {
                    type_: Some(type_.to_owned()),
                    ..Schema::default()
                },
                serde_saphyr::Location::UNKNOWN,
                serde_saphyr::Location::UNKNOWN,
            )
        });
    }
    out
}
