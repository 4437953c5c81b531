//! The parts of an OpenAPI v3 document or v2 (swagger) document that code generation
//! reads, deserialized straight from JSON or YAML so that shape errors carry line and
//! column.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::frontend::schema::{self, GroupVersionKind, Schema};
use crate::frontend::{Error, Source};

/// A whole document, v2 or v3.
#[derive(Debug, Deserialize)]
pub(crate) struct Document {
    /// `swagger: "2.0"` for v2.
    #[serde(default)]
    swagger: Option<Spanned<String>>,
    /// `openapi: "3.0.0"` for v3.
    #[serde(default)]
    openapi: Option<Spanned<String>>,
    /// v2 named schemas.
    #[serde(default)]
    definitions: Option<BTreeMap<String, Spanned<Schema>>>,
    /// v3 components.
    #[serde(default)]
    components: Option<Components>,
    /// Every path the API server serves.
    #[serde(default)]
    pub(crate) paths: BTreeMap<String, Spanned<PathItem>>,
}

/// v3 `components`.
#[derive(Debug, Deserialize)]
struct Components {
    #[serde(default)]
    schemas: BTreeMap<String, Spanned<Schema>>,
}

/// The operations of one path (only their Kubernetes extensions are read).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PathItem {
    #[serde(default)]
    get: Option<Operation>,
    #[serde(default)]
    put: Option<Operation>,
    #[serde(default)]
    post: Option<Operation>,
    #[serde(default)]
    patch: Option<Operation>,
    #[serde(default)]
    delete: Option<Operation>,
}

impl PathItem {
    /// The kinds the path's operations read or write, in method order.
    pub(crate) fn kinds(&self) -> impl Iterator<Item = &GroupVersionKind> {
        [&self.get, &self.put, &self.post, &self.patch, &self.delete]
            .into_iter()
            .flatten()
            .filter_map(|op| op.group_version_kind.as_ref())
    }
}

/// One operation.
#[derive(Debug, Default, Deserialize)]
struct Operation {
    #[serde(default, rename = "x-kubernetes-group-version-kind")]
    group_version_kind: Option<GroupVersionKind>,
}

/// A parsed document and where its named schemas are.
pub(crate) struct Parsed {
    /// The source name, for errors.
    pub(crate) file: String,
    /// Named schemas by definition name.
    pub(crate) definitions: BTreeMap<String, Spanned<Schema>>,
    /// The prefix every `$ref` starts with.
    pub(crate) prefix: &'static str,
    /// Paths.
    pub(crate) paths: BTreeMap<String, Spanned<PathItem>>,
}

/// How to parse a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parser {
    /// serde_json for JSON text (several times faster on multi-megabyte documents), without
    /// source locations; YAML text is parsed as with [`Parser::Located`].
    Fast,
    /// serde-saphyr, which records the line and column of every schema for errors.
    Located,
}

/// Parses one source as an OpenAPI v3 or v2 document.
pub(crate) fn parse(source: &Source, parser: Parser) -> Result<Parsed, Error> {
    let fast = parser == Parser::Fast && source.text.trim_start().starts_with('{');
    let doc = match fast {
        true => serde_json::from_str::<Document>(&source.text).ok(),
        false => None,
    };
    let doc = match doc {
        Some(doc) => doc,
        None => parse_located(source)?,
    };
    check(source, doc)
}

fn parse_located(source: &Source) -> Result<Document, Error> {
    let options = schema::yaml_options();
    serde_saphyr::from_str_with_options(&source.text, options)
        .map_err(|e| schema::parse_error(&source.name, 0, &e))
}

fn check(source: &Source, doc: Document) -> Result<Parsed, Error> {
    let input = |location: &serde_saphyr::Location, message: String| Error::Input {
        at: schema::location(&source.name, 0, location),
        message,
    };
    let (definitions, prefix) = match (&doc.openapi, &doc.swagger) {
        (Some(v), _) if v.value.starts_with("3.") => (
            doc.components.map(|c| c.schemas).unwrap_or_default(),
            "#/components/schemas/",
        ),
        (None, Some(v)) if v.value == "2.0" => {
            (doc.definitions.unwrap_or_default(), "#/definitions/")
        }
        (Some(v), _) | (None, Some(v)) => {
            return Err(input(
                &v.referenced,
                format!(
                    "expected `openapi: 3.x` or `swagger: \"2.0\"`, found `{}`",
                    v.value
                ),
            ));
        }
        (None, None) => {
            return Err(input(
                &serde_saphyr::Location::UNKNOWN,
                "expected an OpenAPI document (a top-level `openapi: 3.x` or `swagger: \"2.0\"`)"
                    .to_owned(),
            ));
        }
    };
    Ok(Parsed {
        file: source.name.clone(),
        definitions,
        prefix,
        paths: doc.paths,
    })
}
