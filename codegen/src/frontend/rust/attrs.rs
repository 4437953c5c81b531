//! `#[resource(...)]` attributes, parsed into typed fields.
//!
//! Every problem is recorded with its span and parsing goes on, so a user sees all their
//! mistakes at once; unknown keys get "did you mean" help.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, LitInt, LitStr};

use super::errors::Errors;
use crate::frontend::suggest;
use std::collections::BTreeSet;

use crate::model::{ClientVerb, ClientVerbs, PrinterColumn, Scale, Scope, ValidationRule};
use crate::naming::kubernetes;

/// Keys of the container attribute, for "did you mean".
const KEYS: &[&str] = &[
    "group",
    "version",
    "kind",
    "plural",
    "singular",
    "namespaced",
    "cluster",
    "status",
    "storage",
    "scale",
    "shortname",
    "category",
    "printcolumn",
    "selectable",
    "validation",
    "crate",
    "readonly",
    "verbs",
    "no_status_verbs",
];
/// Verb names of `verbs(...)`, for "did you mean".
const VERB_NAMES: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];
const SCALE_KEYS: &[&str] = &[
    "spec_replicas_path",
    "status_replicas_path",
    "label_selector_path",
];
const COLUMN_KEYS: &[&str] = &["name", "type", "json_path", "description", "priority"];
const COLUMN_TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
const FIELD_KEYS: &[&str] = &["rename"];
const RULE_KEYS: &[&str] = &[
    "rule",
    "message",
    "message_expression",
    "reason",
    "field_path",
    "optional_old_self",
];
const RULE_REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// A value with the span it was written at.
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// The container attribute, typed.
#[derive(Default)]
pub(crate) struct ResourceAttrs {
    pub(crate) group: Option<Spanned<String>>,
    pub(crate) version: Option<Spanned<String>>,
    pub(crate) kind: Option<Spanned<String>>,
    pub(crate) plural: Option<Spanned<String>>,
    pub(crate) singular: Option<Spanned<String>>,
    pub(crate) scope: Option<Spanned<Scope>>,
    pub(crate) status: Option<Span>,
    /// `storage`: the storage version of a kind with several versions.
    pub(crate) storage: Option<Span>,
    pub(crate) scale: Option<Scale>,
    pub(crate) short_names: Vec<String>,
    pub(crate) categories: Vec<String>,
    pub(crate) printer_columns: Vec<PrinterColumn>,
    pub(crate) selectable: Vec<String>,
    /// `validation(rule = "...", ...)`: CEL rules on the whole object.
    pub(crate) rules: Vec<ValidationRule>,
    /// `readonly`: a client with get, list and watch only.
    pub(crate) readonly: Option<Span>,
    /// `verbs(get, list, ...)`: a client with these verbs only.
    pub(crate) verbs: Option<BTreeSet<ClientVerb>>,
    /// `no_status_verbs`: a client without the status verbs though the kind has status.
    pub(crate) no_status_verbs: Option<Span>,
    /// The path of the `kubegen` facade (`crate = "::my_reexport::kubegen"`).
    pub(crate) krate: Option<syn::Path>,
    /// Whether any `#[resource]` attribute was present.
    pub(crate) present: bool,
}

/// Parses every `#[resource(...)]` among `attrs`.
pub(crate) fn resource_attrs(attrs: &[Attribute], errors: &mut Errors) -> ResourceAttrs {
    let mut out = ResourceAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("resource")) {
        out.present = true;
        let result = attr.parse_nested_meta(|meta| {
            container_key(&meta, &mut out, errors);
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    check_client_verbs(&out, errors);
    out
}

impl ResourceAttrs {
    /// The verbs of the kind's generated client: every verb unless `readonly` or
    /// `verbs(...)` says otherwise.
    pub(crate) fn client_verbs(&self) -> ClientVerbs {
        let mut verbs = match (&self.verbs, self.readonly) {
            (Some(verbs), _) => ClientVerbs {
                verbs: verbs.clone(),
                no_status: false,
            },
            (None, Some(_)) => ClientVerbs::read_only(),
            (None, None) => ClientVerbs::default(),
        };
        verbs.no_status = self.no_status_verbs.is_some();
        verbs
    }
}

/// Contradictions between the verb keys and the rest of the attribute.
fn check_client_verbs(out: &ResourceAttrs, errors: &mut Errors) {
    if let (Some(span), Some(_)) = (out.readonly, &out.verbs) {
        errors.push(syn::Error::new(
            span,
            "`readonly` is `verbs(get, list, watch)`: write one or the other",
        ));
    }
    if let (Some(span), None) = (out.no_status_verbs, out.status) {
        errors.push(syn::Error::new(
            span,
            "`no_status_verbs` needs `status`: a kind without status has no status verbs",
        ));
    }
}

/// A key that takes no value (`status`, `readonly`): its span.
fn flag(meta: &ParseNestedMeta<'_>, name: &str, errors: &mut Errors) -> Span {
    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        errors.spanned(
            &meta.path,
            format!("`{name}` takes no value: write `{name}`"),
        );
        skip_value(meta);
    }
    meta.path.span()
}

/// `verbs(get, list, ...)`: at least one known verb, each once.
fn verbs(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> Option<BTreeSet<ClientVerb>> {
    if empty_parens(meta.input) {
        errors.spanned(&meta.path, "`verbs(...)` needs at least one verb");
        let _ = meta.input.parse::<proc_macro2::Group>();
        return None;
    }
    let mut verbs = BTreeSet::new();
    let parsed = meta.parse_nested_meta(|inner| {
        match ClientVerb::from_name(&key_name(&inner)) {
            Some(verb) if inner.input.is_empty() || inner.input.peek(syn::Token![,]) => {
                if !verbs.insert(verb) {
                    errors.spanned(&inner.path, format!("duplicate verb `{}`", verb.name()));
                }
            }
            Some(verb) => {
                errors.spanned(
                    &inner.path,
                    format!("verb `{}` takes no value", verb.name()),
                );
                skip_value(&inner);
            }
            None => unknown(&inner, VERB_NAMES, "verb", errors),
        }
        Ok(())
    });
    if let Err(e) = parsed {
        errors.spanned(
            &meta.path,
            format!("expected `verbs({})`: {e}", ClientVerb::names()),
        );
        return None;
    }
    if verbs.is_empty() {
        errors.spanned(&meta.path, "`verbs(...)` needs at least one verb");
        return None;
    }
    Some(verbs)
}

/// Whether `input` starts with `()`.
fn empty_parens(input: syn::parse::ParseStream<'_>) -> bool {
    let fork = input.fork();
    let inside = || -> syn::Result<bool> {
        let content;
        syn::parenthesized!(content in fork);
        Ok(content.is_empty())
    };
    inside().unwrap_or(false)
}

fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| quote::ToTokens::to_token_stream(&meta.path).to_string())
}

/// Records an unknown key with a suggestion and skips its value.
fn unknown(meta: &ParseNestedMeta<'_>, known: &[&str], what: &str, errors: &mut Errors) {
    let name = key_name(meta);
    let help = suggest::help(&name, known);
    errors.spanned(&meta.path, format!("unknown {what} `{name}`{help}"));
    skip_value(meta);
}

/// Consumes `= value` or `(...)` after a key, whatever it holds.
fn skip_value(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|inner| {
            skip_value(&inner);
            Ok(())
        });
    }
}

fn string(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> Option<Spanned<String>> {
    let name = key_name(meta);
    let parsed = meta.value().and_then(|v| v.parse::<LitStr>());
    match parsed {
        Ok(lit) => Some(Spanned {
            value: lit.value(),
            span: lit.span(),
        }),
        Err(_) => {
            errors.spanned(&meta.path, format!("expected `{name} = \"...\"`"));
            skip_value(meta);
            None
        }
    }
}

fn set_once(
    slot: &mut Option<Spanned<String>>,
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    check: fn(&str) -> Option<String>,
) {
    let Some(value) = string(meta, errors) else {
        return;
    };
    if slot.is_some() {
        errors.spanned(&meta.path, format!("duplicate `{}`", key_name(meta)));
        return;
    }
    if let Some(problem) = check(&value.value) {
        errors.push(syn::Error::new(value.span, problem));
    }
    *slot = Some(value);
}

fn container_key(meta: &ParseNestedMeta<'_>, out: &mut ResourceAttrs, errors: &mut Errors) {
    let name = key_name(meta);
    match name.as_str() {
        "group" => set_once(&mut out.group, meta, errors, check_group),
        "version" => set_once(&mut out.version, meta, errors, check_version),
        "kind" => set_once(&mut out.kind, meta, errors, check_kind),
        "plural" => set_once(&mut out.plural, meta, errors, |v| {
            invalid("plural", v, kubernetes::check_resource_name)
        }),
        "singular" => set_once(&mut out.singular, meta, errors, |v| {
            invalid("singular", v, kubernetes::check_resource_name)
        }),
        "namespaced" | "cluster" => {
            let scope = if name == "namespaced" {
                Scope::Namespaced
            } else {
                Scope::Cluster
            };
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                errors.spanned(&meta.path, format!("`{name}` takes no value"));
                skip_value(meta);
            }
            if let Some(previous) = &out.scope {
                let message = if previous.value == scope {
                    format!("duplicate `{name}`")
                } else {
                    "a resource is either `namespaced` or `cluster`, not both".to_owned()
                };
                errors.spanned(&meta.path, message);
            } else {
                out.scope = Some(Spanned {
                    value: scope,
                    span: meta.path.span(),
                });
            }
        }
        "status" => out.status = Some(flag(meta, "status", errors)),
        "storage" => out.storage = Some(flag(meta, "storage", errors)),
        "readonly" => out.readonly = Some(flag(meta, "readonly", errors)),
        "no_status_verbs" => out.no_status_verbs = Some(flag(meta, "no_status_verbs", errors)),
        "verbs" => {
            if out.verbs.is_some() {
                errors.spanned(&meta.path, "duplicate `verbs`");
            }
            out.verbs = verbs(meta, errors);
        }
        "scale" => out.scale = scale(meta, errors),
        "shortname" | "category" | "selectable" => {
            let check: fn(&str) -> Option<String> = match name.as_str() {
                "selectable" => check_json_path,
                "shortname" => |v| invalid("short name", v, kubernetes::check_resource_name),
                _ => |v| invalid("category", v, kubernetes::check_resource_name),
            };
            let mut slot = None;
            set_once(&mut slot, meta, errors, check);
            if let Some(value) = slot {
                let list = match name.as_str() {
                    "shortname" => &mut out.short_names,
                    "category" => &mut out.categories,
                    _ => &mut out.selectable,
                };
                list.push(value.value);
            }
        }
        "printcolumn" => {
            if let Some(column) = printcolumn(meta, errors) {
                out.printer_columns.push(column);
            }
        }
        "validation" => {
            if let Some(rule) = validation_rule(meta, errors) {
                out.rules.push(rule);
            }
        }
        "crate" => {
            let parsed = meta
                .value()
                .and_then(|v| v.parse::<LitStr>())
                .and_then(|lit| lit.parse::<syn::Path>());
            match parsed {
                Ok(path) => out.krate = Some(path),
                Err(_) => {
                    errors.spanned(&meta.path, "expected `crate = \"path::to::kubegen\"`");
                    skip_value(meta);
                }
            }
        }
        _ => unknown(meta, KEYS, "resource attribute", errors),
    }
}

fn scale(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> Option<Scale> {
    let (mut spec, mut status, mut selector) = (None, None, None);
    let result = meta.parse_nested_meta(|inner| {
        match key_name(&inner).as_str() {
            "spec_replicas_path" => set_once(&mut spec, &inner, errors, check_json_path),
            "status_replicas_path" => set_once(&mut status, &inner, errors, check_json_path),
            "label_selector_path" => set_once(&mut selector, &inner, errors, check_json_path),
            _ => unknown(&inner, SCALE_KEYS, "scale attribute", errors),
        }
        Ok(())
    });
    if let Err(e) = result {
        errors.spanned(
            &meta.path,
            format!("expected `scale(spec_replicas_path = \"...\", status_replicas_path = \"...\")`: {e}"),
        );
        return None;
    }
    let mut missing = Vec::new();
    if spec.is_none() {
        missing.push("spec_replicas_path");
    }
    if status.is_none() {
        missing.push("status_replicas_path");
    }
    if !missing.is_empty() {
        errors.spanned(&meta.path, format!("`scale` needs {}", quoted(&missing)));
        return None;
    }
    Some(Scale {
        spec_replicas_path: spec?.value,
        status_replicas_path: status?.value,
        label_selector_path: selector.map(|s| s.value),
    })
}

fn printcolumn(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> Option<PrinterColumn> {
    let (mut name, mut ty, mut path, mut description) = (None, None, None, None);
    let mut priority = 0;
    let result = meta.parse_nested_meta(|inner| {
        match key_name(&inner).as_str() {
            "name" => set_once(&mut name, &inner, errors, |_| None),
            "type" => set_once(&mut ty, &inner, errors, check_column_type),
            "json_path" => set_once(&mut path, &inner, errors, check_json_path),
            "description" => set_once(&mut description, &inner, errors, |_| None),
            "priority" => match inner.value().and_then(|v| v.parse::<LitInt>()) {
                Ok(lit) => match lit.base10_parse::<i32>() {
                    Ok(value) => priority = value,
                    Err(e) => errors.push(e),
                },
                Err(_) => {
                    errors.spanned(&inner.path, "expected `priority = <integer>`");
                    skip_value(&inner);
                }
            },
            _ => unknown(&inner, COLUMN_KEYS, "printcolumn attribute", errors),
        }
        Ok(())
    });
    if let Err(e) = result {
        errors.spanned(
            &meta.path,
            format!(
                "expected `printcolumn(name = \"...\", type = \"...\", json_path = \"...\")`: {e}"
            ),
        );
        return None;
    }
    let mut missing = Vec::new();
    for (key, value) in [("name", &name), ("type", &ty), ("json_path", &path)] {
        if value.is_none() {
            missing.push(key);
        }
    }
    if !missing.is_empty() {
        errors.spanned(
            &meta.path,
            format!("`printcolumn` needs {}", quoted(&missing)),
        );
        return None;
    }
    Some(PrinterColumn {
        name: name?.value,
        type_: ty?.value,
        json_path: path?.value,
        description: description.map(|d| d.value),
        priority,
    })
}

/// `validation(rule = "...", message = "...", message_expression = "...", reason = "...",
/// field_path = "...", optional_old_self = true)`: one `x-kubernetes-validations` rule.
fn validation_rule(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> Option<ValidationRule> {
    let (mut rule, mut message, mut expression, mut reason, mut path) =
        (None, None, None, None, None);
    let mut optional_old_self = None;
    let result = meta.parse_nested_meta(|inner| {
        match key_name(&inner).as_str() {
            "rule" => set_once(&mut rule, &inner, errors, |_| None),
            "message" => set_once(&mut message, &inner, errors, |_| None),
            "message_expression" => set_once(&mut expression, &inner, errors, |_| None),
            "reason" => set_once(&mut reason, &inner, errors, |v| {
                (!RULE_REASONS.contains(&v)).then(|| {
                    format!(
                        "invalid reason \"{v}\": expected one of {}",
                        RULE_REASONS.join(", ")
                    )
                })
            }),
            "field_path" => set_once(&mut path, &inner, errors, check_json_path),
            "optional_old_self" => match inner.value().and_then(|v| v.parse::<syn::LitBool>()) {
                Ok(lit) => optional_old_self = Some(lit.value),
                Err(_) => {
                    errors.spanned(
                        &inner.path,
                        "expected `optional_old_self = true` or `false`",
                    );
                    skip_value(&inner);
                }
            },
            _ => unknown(&inner, RULE_KEYS, "validation attribute", errors),
        }
        Ok(())
    });
    if let Err(e) = result {
        errors.spanned(
            &meta.path,
            format!("expected `validation(rule = \"...\", message = \"...\")`: {e}"),
        );
        return None;
    }
    let Some(rule) = rule else {
        errors.spanned(
            &meta.path,
            "`validation` needs `rule = \"<CEL expression>\"`",
        );
        return None;
    };
    let value = |v: Option<Spanned<String>>| v.map(|s| s.value);
    Some(ValidationRule {
        rule: rule.value,
        message: value(message),
        message_expression: value(expression),
        reason: value(reason),
        field_path: value(path),
        optional_old_self,
    })
}

/// The wire name of a root struct field from its `#[resource(rename = "...")]`, if any.
pub(crate) fn field_rename(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    let mut rename = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("resource")) {
        let result = attr.parse_nested_meta(|meta| {
            match key_name(&meta).as_str() {
                "rename" => set_once(&mut rename, &meta, errors, |_| None),
                _ => unknown(&meta, FIELD_KEYS, "field attribute", errors),
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    rename.map(|r| r.value)
}

fn quoted(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// `invalid <what> "<value>": <expected>` when `rule` rejects `value`.
fn invalid(what: &str, value: &str, rule: fn(&str) -> Result<(), &'static str>) -> Option<String> {
    rule(value)
        .err()
        .map(|expected| format!("invalid {what} {value:?}: {expected}"))
}

fn check_group(group: &str) -> Option<String> {
    invalid("group", group, kubernetes::check_crd_group)
}

fn check_version(version: &str) -> Option<String> {
    invalid("version", version, kubernetes::check_version)
}

fn check_kind(kind: &str) -> Option<String> {
    invalid("kind", kind, kubernetes::check_kind)
}

fn check_json_path(path: &str) -> Option<String> {
    (!path.starts_with('.') || path.len() < 2)
        .then(|| format!("invalid JSON path `{path}`: expected a path like `.spec.replicas`"))
}

fn check_column_type(ty: &str) -> Option<String> {
    (!COLUMN_TYPES.contains(&ty)).then(|| {
        format!(
            "invalid column type `{ty}`: expected one of {}",
            COLUMN_TYPES.join(", ")
        )
    })
}
