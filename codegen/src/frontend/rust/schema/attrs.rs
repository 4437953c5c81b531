//! The serde and schemars attributes of hand-written types that shape their JSON schema,
//! read the way schemars reads them (`kubegen crd` must build the schema `Foo::crd()`
//! builds at run time from the same attributes).
//!
//! Attributes kubegen cannot follow without compiling (`with`, `tag`...) are
//! errors naming the attribute, so a manifest is never silently different from `crd()`.

use serde_json::{Number, Value};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

use crate::frontend::suggest::did_you_mean;
use crate::naming::{RENAME_RULES, RenameRule};

/// The schema-shaping attributes of a struct or enum.
#[derive(Debug, Default)]
pub(super) struct ContainerAttrs {
    /// `rename_all`.
    pub(super) rename_all: Option<RenameRule>,
    /// `#[serde(default)]`: no field is required.
    pub(super) default: bool,
    /// `#[schemars(extend("key" = value))]` on a struct: schema keys of the type's own
    /// schema, wherever it is used.
    pub(super) extend: Vec<(String, Value)>,
}

/// The schema-shaping attributes of a field or variant.
#[derive(Default)]
pub(super) struct MemberAttrs {
    /// `rename`.
    pub(super) rename: Option<String>,
    /// `default` or `default = "path"`.
    pub(super) default: Option<Option<LitStr>>,
    /// `skip_serializing_if = "path"`: the predicate, as written.
    pub(super) skip_serializing_if: Option<LitStr>,
    /// `skip_serializing`.
    pub(super) skip_serializing: bool,
    /// `skip` or `skip_deserializing`: not part of the schema.
    pub(super) skip: bool,
    /// `#[schemars(required)]`.
    pub(super) required: bool,
    /// `length(min, max, equal)`.
    pub(super) length: (Option<u64>, Option<u64>),
    /// `range(min, max)`.
    pub(super) range: (Option<Number>, Option<Number>),
    /// `regex(pattern = "...")` or `pattern("...")`.
    pub(super) pattern: Option<String>,
    /// `schema_with = "path"`, with its span.
    pub(super) schema_with: Option<LitStr>,
    /// `extend("key" = value)`: schema keys added as they are.
    pub(super) extend: Vec<(String, Value)>,
    /// `#[serde(flatten)]`: the field's entries are the struct's other properties.
    pub(super) flatten: bool,
}

const CONTAINER_KEYS: &[&str] = &[
    "rename_all",
    "default",
    "deny_unknown_fields",
    "rename",
    "crate",
    "extend",
];
const MEMBER_KEYS: &[&str] = &[
    "rename",
    "default",
    "skip",
    "skip_deserializing",
    "skip_serializing",
    "skip_serializing_if",
    "alias",
    "required",
    "length",
    "range",
    "regex",
    "pattern",
    "schema_with",
    "extend",
    "flatten",
];

/// The attribute families read (`validate` is the validator crate's, which schemars reads).
fn family(attr: &Attribute) -> Option<&'static str> {
    ["serde", "schemars", "validate"]
        .into_iter()
        .find(|name| attr.path().is_ident(name))
}

fn unknown(meta: &ParseNestedMeta<'_>, known: &[&str], family: &str) -> syn::Error {
    let key = key(meta);
    let hint = did_you_mean(&key, known)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    meta.error(format!(
        "`kubegen crd` cannot follow `#[{family}({key})]` without compiling the crate{hint} \
         (it reads {})",
        known.join(", ")
    ))
}

fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Skips `= value` or `(...)` after a key whose value does not matter.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// Reads the container attributes.
pub(super) fn container(attrs: &[Attribute]) -> syn::Result<ContainerAttrs> {
    let mut out = ContainerAttrs::default();
    for attr in attrs {
        let Some(family) = family(attr) else { continue };
        attr.parse_nested_meta(|meta| {
            match key(&meta).as_str() {
                "rename_all" => {
                    if meta.input.peek(syn::token::Paren) {
                        return Err(meta.error(
                            "`kubegen crd` reads `rename_all = \"...\"`, not separate rules for \
                             serializing and deserializing",
                        ));
                    }
                    let lit: LitStr = meta.value()?.parse()?;
                    let rule = RenameRule::parse(&lit.value()).ok_or_else(|| {
                        syn::Error::new(
                            lit.span(),
                            format!(
                                "unknown rename_all rule; expected one of {}",
                                RENAME_RULES.join(", ")
                            ),
                        )
                    })?;
                    out.rename_all = Some(rule);
                }
                "default" => {
                    out.default = true;
                    skip_value(&meta)?;
                }
                "deny_unknown_fields" | "rename" | "crate" => skip_value(&meta)?,
                "extend" => extend(&meta, &mut out.extend)?,
                _ => return Err(unknown(&meta, CONTAINER_KEYS, family)),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Reads the attributes of a field or variant.
pub(super) fn member(attrs: &[Attribute]) -> syn::Result<MemberAttrs> {
    let mut out = MemberAttrs::default();
    for attr in attrs {
        let Some(family) = family(attr) else { continue };
        attr.parse_nested_meta(|meta| {
            match key(&meta).as_str() {
                "rename" => {
                    if meta.input.peek(syn::token::Paren) {
                        return Err(meta.error(
                            "`kubegen crd` reads `rename = \"...\"`, not separate names for \
                             serializing and deserializing",
                        ));
                    }
                    out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                }
                "default" => {
                    out.default = Some(if meta.input.peek(syn::Token![=]) {
                        Some(meta.value()?.parse()?)
                    } else {
                        None
                    });
                }
                "skip" | "skip_deserializing" => out.skip = true,
                "skip_serializing" => out.skip_serializing = true,
                "skip_serializing_if" => out.skip_serializing_if = Some(meta.value()?.parse()?),
                "alias" => skip_value(&meta)?,
                "required" => out.required = true,
                "length" => {
                    meta.parse_nested_meta(|inner| {
                        let value = integer(&inner.value()?.parse()?)?;
                        match key(&inner).as_str() {
                            "min" => out.length.0 = Some(value),
                            "max" => out.length.1 = Some(value),
                            "equal" => out.length = (Some(value), Some(value)),
                            _ => return Err(inner.error("expected `min`, `max` or `equal`")),
                        }
                        Ok(())
                    })?;
                }
                "range" => {
                    meta.parse_nested_meta(|inner| {
                        let value = number(&inner.value()?.parse()?)?;
                        match key(&inner).as_str() {
                            "min" => out.range.0 = Some(value),
                            "max" => out.range.1 = Some(value),
                            _ => return Err(inner.error("expected `min` or `max`")),
                        }
                        Ok(())
                    })?;
                }
                "regex" => {
                    meta.parse_nested_meta(|inner| {
                        if key(&inner) != "pattern" {
                            return Err(inner.error(
                                "`kubegen crd` reads `regex(pattern = \"...\")` (a literal, not a path)",
                            ));
                        }
                        out.pattern = Some(inner.value()?.parse::<LitStr>()?.value());
                        Ok(())
                    })?;
                }
                "pattern" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    out.pattern = Some(content.parse::<LitStr>()?.value());
                }
                "schema_with" => out.schema_with = Some(meta.value()?.parse()?),
                "extend" => extend(&meta, &mut out.extend)?,
                "flatten" => out.flatten = true,
                _ => return Err(unknown(&meta, MEMBER_KEYS, family)),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// `extend("key" = json, ...)`: the values are `serde_json::json!` syntax; kubegen reads
/// the ones that are JSON literals as written.
fn extend(meta: &ParseNestedMeta<'_>, out: &mut Vec<(String, Value)>) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    while !content.is_empty() {
        let key: LitStr = content.parse()?;
        content.parse::<syn::Token![=]>()?;
        // The value runs to the next top-level comma (`{...}` and `[...]` are one token tree).
        let mut value = proc_macro2::TokenStream::new();
        while !content.is_empty() && !content.peek(syn::Token![,]) {
            value.extend([content.parse::<proc_macro2::TokenTree>()?]);
        }
        out.push((key.value(), json_text(&value.to_string(), &value)?));
        if content.is_empty() {
            break;
        }
        content.parse::<syn::Token![,]>()?;
    }
    Ok(())
}

/// JSON written as Rust tokens (`json_schema!({...})`'s input), parsed.
pub(super) fn json_text(text: &str, at: &impl quote::ToTokens) -> syn::Result<Value> {
    serde_json::from_str(&as_json(text)).map_err(|e| {
        syn::Error::new_spanned(
            at,
            format!("`kubegen crd` reads this as JSON literally and cannot: {e}"),
        )
    })
}

/// The suffixes of Rust number literals.
const NUMBER_SUFFIXES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64",
];

/// Rust tokens of a `json!` literal as JSON text: outside strings, negative numbers lose
/// the space tokens print after `-`, numbers their type suffix, and trailing commas (which `json!` accepts and
/// formatters add) are dropped.
fn as_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '-' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            c if c.is_ascii_alphabetic() && out.ends_with(|p: char| p.is_ascii_digit()) => {
                // A typed number (`4294967295u64`): JSON has no suffixes.
                let mut word = String::from(c);
                while let Some(next) = chars.next_if(|n| n.is_ascii_alphanumeric()) {
                    word.push(next);
                }
                if !NUMBER_SUFFIXES.contains(&word.as_str()) {
                    out.push_str(&word);
                }
            }
            ',' => {
                let rest: String = chars
                    .clone()
                    .skip_while(|c| c.is_whitespace())
                    .take(1)
                    .collect();
                if rest != "]" && rest != "}" {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn integer(expr: &Expr) -> syn::Result<u64> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse(),
        _ => Err(syn::Error::new_spanned(
            expr,
            "`kubegen crd` reads integer literals here (it cannot evaluate paths or expressions)",
        )),
    }
}

fn number(expr: &Expr) -> syn::Result<Number> {
    let (negative, lit) = match expr {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, expr.as_ref()),
        other => (false, other),
    };
    let sign = if negative { "-" } else { "" };
    let parsed = match lit {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => format!("{sign}{}", int.base10_digits())
            .parse::<i64>()
            .ok()
            .map(Number::from),
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => format!("{sign}{}", float.base10_digits())
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64),
        _ => None,
    };
    parsed.ok_or_else(|| {
        syn::Error::new_spanned(
            expr,
            "`kubegen crd` reads number literals here (it cannot evaluate paths or expressions)",
        )
    })
}

/// The doc comment as schemars reads it: each line without its first space, joined with
/// newlines, trimmed (`None` when empty).
pub(super) fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => {
                    let value = s.value();
                    Some(value.strip_prefix(' ').map(str::to_owned).unwrap_or(value))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
