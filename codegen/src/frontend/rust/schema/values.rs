//! What attributes say about values beyond their types: the default schemars writes for a
//! `#[serde(default)]` or `#[serde(default = "path")]` field, and the validations of a
//! struct's own `#[schemars(extend(...))]`.

use serde_json::{Map, Value};

use super::{Index, attrs, error, field_span, pick};
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

/// The schema default of a `#[serde(default)]` or `#[serde(default = "path")]` field, as
/// schemars writes it: the type's `Default` value, or the function's, serialized, unless
/// `skip_serializing_if` would skip it. `ty` is the field's type as read (`None` when
/// `schema_with` replaces it). Only the values kubegen knows without compiling are read: the
/// `Default` of strings, bools, numbers, lists, maps and the well-known types, and default
/// functions whose body is a literal.
pub(super) fn default_value(
    index: &Index<'_>,
    file: &str,
    field: &syn::Field,
    member: &attrs::MemberAttrs,
    ty: Option<&TypeRef>,
) -> Result<Option<Value>> {
    let Some(default) = &member.default else {
        return Ok(None);
    };
    if member.skip_serializing {
        return Ok(None);
    }
    let predicate = member.skip_serializing_if.as_ref();
    let value = match default {
        Some(path) => function_value(index, file, path)?,
        // `None` serializes as null, which the API server's schema does not keep.
        None if option_inner(&field.ty).is_some() => return Ok(None),
        // `Vec::is_empty(&Vec::default())`, whatever the field's schema.
        None if predicate.is_some_and(skips_std_default) => return Ok(None),
        None => type_default(file, field, ty)?,
    };
    if value.is_null() {
        return Ok(None);
    }
    let Some(predicate) = predicate else {
        return Ok(Some(value));
    };
    let skipped = match predicate.value().rsplit("::").next() {
        Some("is_empty") => match &value {
            Value::String(s) => Some(s.is_empty()),
            Value::Array(a) => Some(a.is_empty()),
            Value::Object(o) => Some(o.is_empty()),
            _ => None,
        },
        // The value is not null, so not `None`.
        Some("is_none") => Some(false),
        _ => None,
    };
    match skipped {
        Some(true) => Ok(None),
        Some(false) => Ok(Some(value)),
        None => Err(error(
            file,
            predicate.span(),
            "`kubegen crd` cannot evaluate this `skip_serializing_if` on the default value \
             (it reads `is_empty` and `is_none`)",
        )),
    }
}

/// The owners of an `is_empty` (or `is_none`) whose `Default` value it holds for.
const EMPTY_BY_DEFAULT: &[&str] = &[
    "String", "str", "Vec", "VecDeque", "BTreeMap", "HashMap", "BTreeSet", "HashSet",
];

/// Whether `predicate` is a standard type's emptiness check (`Vec::is_empty`,
/// `Option::is_none`), which skips that type's `Default` value.
fn skips_std_default(predicate: &syn::LitStr) -> bool {
    let value = predicate.value();
    let segments: Vec<&str> = value.split("::").collect();
    match segments.as_slice() {
        [.., owner, "is_empty"] => EMPTY_BY_DEFAULT.contains(owner),
        [.., "Option", "is_none"] => true,
        _ => false,
    }
}

/// The `Default` value of the type `ty`, serialized.
fn type_default(file: &str, field: &syn::Field, ty: Option<&TypeRef>) -> Result<Value> {
    let value = match ty {
        Some(TypeRef::String) => Value::String(String::new()),
        Some(TypeRef::Bool) => Value::Bool(false),
        Some(TypeRef::I32 | TypeRef::I64) => Value::from(0),
        Some(TypeRef::Vec(_)) => Value::Array(Vec::new()),
        Some(TypeRef::Map(_)) => Value::Object(Map::new()),
        Some(TypeRef::External(external)) => match Table::committed().default(&external.path) {
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
    Ok(value)
}

/// What `#[serde(default = "path")]`'s function returns, serialized: the function must be
/// in the sources, and its body a literal.
fn function_value(index: &Index<'_>, file: &str, path: &syn::LitStr) -> Result<Value> {
    let parsed: syn::Path = path
        .parse()
        .map_err(|e| error(file, path.span(), e.to_string()))?;
    let name = parsed
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let function = pick(index.functions.get(&name), file).ok_or_else(|| {
        error(
            file,
            path.span(),
            format!(
                "`kubegen crd` cannot find the default function `{name}` in the sources (it \
                 reads the value of a function defined once in the directory it reads)"
            ),
        )
    })?;
    let item = function.item;
    let unsupported = |span: proc_macro2::Span| {
        error(
            function.file,
            span,
            "`kubegen crd` reads default functions whose body is a literal (a number, a \
             string, `true`/`false`, `String::from(\"...\")`, `\"...\".into()`, \
             `\"...\".to_string()`, `Some(...)` or `None` of one); for another, write the \
             value beside it as `#[schemars(extend(\"default\" = ...))]`",
        )
    };
    let body = match item.block.stmts.as_slice() {
        [syn::Stmt::Expr(expr, None)] => expr,
        _ => return Err(unsupported(item.block.brace_token.span.join())),
    };
    let float32 = returns(&item.sig.output, "f32");
    literal(body, float32).ok_or_else(|| unsupported(syn::spanned::Spanned::span(body)))
}

/// Whether the function returns `name` (or `Option<name>`).
fn returns(output: &syn::ReturnType, name: &str) -> bool {
    let syn::ReturnType::Type(_, ty) = output else {
        return false;
    };
    let ty = option_inner(ty).unwrap_or(ty);
    matches!(ty, syn::Type::Path(p) if p.path.is_ident(name))
}

/// The JSON a literal expression serializes to (`None` for anything else); `float32`: floats
/// are `f32`, which serde widens to `f64` as they are, not as written.
fn literal(expr: &syn::Expr, float32: bool) -> Option<Value> {
    use syn::{Expr, Lit};
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => Some(Value::String(s.value())),
            Lit::Bool(b) => Some(Value::Bool(b.value)),
            Lit::Int(int) if matches!(int.suffix(), "f32" | "f64") => {
                float_value(int.base10_digits(), float32 || int.suffix() == "f32")
            }
            Lit::Int(int) => int
                .base10_parse::<u64>()
                .ok()
                .map(Value::from)
                .or_else(|| int.base10_parse::<i64>().ok().map(Value::from)),
            Lit::Float(float) => float_value(float.base10_digits(), float32),
            _ => None,
        },
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => match &*unary.expr {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(int) => format!("-{}", int.base10_digits())
                    .parse::<i64>()
                    .ok()
                    .map(Value::from),
                Lit::Float(float) => float_value(&format!("-{}", float.base10_digits()), float32),
                _ => None,
            },
            _ => None,
        },
        Expr::Paren(inner) => literal(&inner.expr, float32),
        Expr::Group(inner) => literal(&inner.expr, float32),
        // `None`, and `String::new()`.
        Expr::Path(path) if path.path.is_ident("None") => Some(Value::Null),
        Expr::Call(call) => {
            let Expr::Path(function) = &*call.func else {
                return None;
            };
            let segments: Vec<String> = function
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let args: Vec<&Expr> = call.args.iter().collect();
            match (segments.as_slice(), args.as_slice()) {
                ([.., some], [inner]) if some == "Some" => literal(inner, float32),
                ([.., string, from], [inner]) if string == "String" && from == "from" => {
                    literal(inner, float32).filter(Value::is_string)
                }
                ([.., string, new], []) if string == "String" && new == "new" => {
                    Some(Value::String(String::new()))
                }
                _ => None,
            }
        }
        Expr::MethodCall(call)
            if call.args.is_empty()
                && ["into", "to_string", "to_owned"]
                    .contains(&call.method.to_string().as_str()) =>
        {
            literal(&call.receiver, float32).filter(Value::is_string)
        }
        _ => None,
    }
}

fn float_value(digits: &str, float32: bool) -> Option<Value> {
    let value = if float32 {
        f64::from(digits.parse::<f32>().ok()?)
    } else {
        digits.parse::<f64>().ok()?
    };
    serde_json::Number::from_f64(value).map(Value::Number)
}
