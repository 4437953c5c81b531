//! The JSON-schema layer shared by the CRD and OpenAPI front-ends, owned by neither.
//!
//! - [`Schema`]: a structural OpenAPI v3 schema node (`JSONSchemaProps`), deserialized
//!   with source locations;
//! - [`TypeBuilder`]: schema nodes -> model types (structs, string enums, unions, well-known
//!   k8s-openapi types), named from their path, with `$ref`s resolved through [`Refs`] for
//!   OpenAPI documents ([`Dialect`] says which kind of document the schemas come from);
//! - [`checking_keywords`]: reads CRD schemas strictly, an unknown keyword (`propertes`)
//!   being an error at its key, as it is to the API server;
//! - [`parse_error`]: a parser error as a `file:line:column` input error, with "did you mean"
//!   help for unknown keywords and fields;
//! - [`yaml_options`]: how YAML (and JSON read as YAML) is parsed: nesting is bounded, so
//!   that a schema too deep for the recursive readers is an input error, not a stack
//!   overflow.

mod build;
mod keywords;
mod node;
pub(crate) mod validation;
mod wellknown;

pub(crate) use build::{Dialect, Refs, TypeBuilder};
pub(crate) use keywords::checking as checking_keywords;
pub(crate) use node::{AdditionalProperties, GroupVersionKind, Schema};

use super::Error;

/// The deepest nesting of YAML collections read (about half as many schema levels, as each
/// level is a schema map inside a `properties` map). The deepest CRDs in use nest about 40.
pub(crate) const MAX_NESTING: usize = 256;

/// Parser options for CRD and OpenAPI documents: nesting at most [`MAX_NESTING`] deep;
/// no limit on the size of a document (real CRDs pass a million events); serde-saphyr's
/// default limits on aliases and anchors, so alias bombs are errors.
///
/// Front-ends that read with these run on [`crate::parallel`]'s large stacks, which hold
/// [`MAX_NESTING`] levels of every recursive pass even in debug builds.
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_NESTING,
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_documents: usize::MAX,
        },
    }
}

/// A serde-saphyr error as an input error of `file`, whose text starts `line_offset` lines
/// into the file; the message is the parser's without its location and snippet, except
/// for an unknown field or schema keyword, which gets "did you mean" help.
pub(crate) fn parse_error(file: &str, line_offset: u64, error: &serde_saphyr::Error) -> Error {
    let (line, column) = error
        .location()
        .map_or((1, 1), |l| (l.line().max(1), l.column().max(1)));
    if let Some((field, expected)) = unknown_field(error) {
        return Error::input(file, line + line_offset, column, unknown(field, expected));
    }
    let text = error.without_snippet().to_string();
    let text = text.lines().next().unwrap_or_default();
    let message = match text.find(" at line ") {
        Some(i) => &text[..i],
        None => text,
    };
    Error::input(file, line + line_offset, column, message)
}

/// The key and the expected keys of an unknown-field error, behind any wrapping.
fn unknown_field(mut error: &serde_saphyr::Error) -> Option<(&str, &[&'static str])> {
    loop {
        match error {
            serde_saphyr::Error::AliasError { error: inner, .. }
            | serde_saphyr::Error::WithSnippet { error: inner, .. } => error = inner,
            serde_saphyr::Error::SerdeUnknownField {
                field, expected, ..
            } => return Some((field, expected)),
            _ => return None,
        }
    }
}

/// The message for the unknown key `field` of a map whose keys are `expected`: a schema
/// keyword when `expected` are [`keywords::KEYWORDS`], a field of a struct otherwise.
fn unknown(field: &str, expected: &[&str]) -> String {
    let suggestion = super::did_you_mean(field, expected);
    if expected == keywords::KEYWORDS {
        return match suggestion {
            Some(known) => format!("unknown schema keyword `{field}`; did you mean `{known}`?"),
            None => format!(
                "unknown schema keyword `{field}`: JSONSchemaProps (apiextensions.k8s.io/v1) \
has no such field, and the API server rejects it"
            ),
        };
    }
    format!(
        "unknown field `{field}`{}",
        super::suggest::help(field, expected)
    )
}

/// `location` of a document starting `line_offset` lines into `file`, as a model location
/// (lines and columns at least 1).
pub(crate) fn location(
    file: &str,
    line_offset: u64,
    location: &serde_saphyr::Location,
) -> crate::model::Location {
    crate::model::Location::new(
        file,
        location.line().max(1) + line_offset,
        location.column().max(1),
    )
}
