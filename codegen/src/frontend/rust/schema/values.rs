//! What attributes say about values beyond their types: the default schemars writes for a
//! `#[serde(default)]` field, and the validations of a struct's own
//! `#[schemars(extend(...))]`.

use super::attrs;
use super::{error, field_span};
use crate::frontend::Result;
use crate::frontend::rust::types::option_inner;
use crate::frontend::schema::validation;
use crate::model::{TypeRef, Validation};
use crate::wellknown::Table;

/// The validations of a struct's own `#[schemars(extend(...))]`.
pub(super) fn container_validation(
    file: &str,
    item: &syn::ItemStruct,
    extend: &[(String, serde_json::Value)],
) -> Result<Validation> {
    let mut out = Validation::default();
    for (key, value) in extend.iter().filter(|(key, _)| key != "default") {
        let known = validation::read_one(key, value, &mut out)
            .map_err(|e| error(file, item.ident.span(), e))?;
        if !known {
            return Err(error(
                file,
                item.ident.span(),
                format!(
                    "`kubegen crd` reads validation keys and `x-kubernetes-*` extensions in a \
                     struct's `extend`, not `{key}` (it knows {})",
                    validation::KEYS.join(", ")
                ),
            ));
        }
    }
    Ok(out)
}

/// The schema default of a `#[serde(default)]` field, as schemars writes it: the type's
/// `Default` value serialized, unless `skip_serializing_if` would skip it. Only the values
/// kubegen knows without compiling are read.
pub(super) fn default_value(
    file: &str,
    field: &syn::Field,
    member: &attrs::MemberAttrs,
    ty: &TypeRef,
) -> Result<Option<serde_json::Value>> {
    use serde_json::{Map, Value};
    let Some(default) = &member.default else {
        return Ok(None);
    };
    // `None` serializes as null, which the API server's schema does not keep.
    if member.skip_serializing || option_inner(&field.ty).is_some() {
        return Ok(None);
    }
    if let Some(path) = default {
        return Err(error(
            file,
            path.span(),
            "`kubegen crd` cannot call a default function (schemars writes its value as the \
             schema default); use `#[serde(default)]` or leave the field required",
        ));
    }
    let value = match ty {
        TypeRef::String => Value::String(String::new()),
        TypeRef::Bool => Value::Bool(false),
        TypeRef::I32 | TypeRef::I64 => Value::from(0),
        TypeRef::Vec(_) => Value::Array(Vec::new()),
        TypeRef::Map(_) => Value::Object(Map::new()),
        TypeRef::External(external) => match Table::committed().default(&external.path) {
            Some(value) => value.clone(),
            None => {
                return Err(error(
                    file,
                    field_span(field),
                    format!(
                        "`{}` has no `Default` value for `#[serde(default)]`",
                        external.path
                    ),
                ));
            }
        },
        _ => {
            return Err(error(
                file,
                field_span(field),
                "`kubegen crd` cannot compute this type's `Default` value (schemars writes it as \
                 the schema default); add `skip_serializing_if` or make the field an `Option`",
            ));
        }
    };
    let Some(predicate) = &member.skip_serializing_if else {
        return Ok(Some(value));
    };
    let skips_empty = predicate
        .value()
        .rsplit("::")
        .next()
        .is_some_and(|name| name == "is_empty" || name == "is_none");
    let empty = match &value {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if skips_empty && empty {
        return Ok(None);
    }
    Err(error(
        file,
        predicate.span(),
        "`kubegen crd` cannot evaluate this `skip_serializing_if` on the default value \
         (it reads `is_empty` and `is_none`)",
    ))
}
