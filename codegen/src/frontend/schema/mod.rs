//! The JSON-schema layer shared by the CRD and OpenAPI front-ends, owned by neither.
//!
//! - [`Schema`]: a structural OpenAPI v3 schema node (`JSONSchemaProps`), deserialized
//!   with source locations;
//! - [`TypeBuilder`]: schema nodes -> model types (structs, string enums, unions, well-known
//!   k8s-openapi types), named from their path, with `$ref`s resolved through [`Refs`] for
//!   OpenAPI documents ([`Dialect`] says which kind of document the schemas come from);
//! - [`parse_error`]: a parser error as a `file:line:column` input error.

mod build;
mod node;
mod wellknown;

pub(crate) use build::{Dialect, Refs, TypeBuilder};
pub(crate) use node::{GroupVersionKind, Schema};

use super::Error;

/// A serde-saphyr error as an input error of `file`, whose text starts `line_offset` lines
/// into the file; the message is the parser's without its location and snippet.
pub(crate) fn parse_error(file: &str, line_offset: u64, error: &serde_saphyr::Error) -> Error {
    let (line, column) = error
        .location()
        .map_or((1, 1), |l| (l.line().max(1), l.column().max(1)));
    let text = error.without_snippet().to_string();
    let text = text.lines().next().unwrap_or_default();
    let message = match text.find(" at line ") {
        Some(i) => &text[..i],
        None => text,
    };
    Error::input(file, line + line_offset, column, message)
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
