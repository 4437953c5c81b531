//! Splitting a source into YAML documents, telling which are CRDs before parsing them, and
//! what the others are when none is.

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::document;
use crate::frontend::{Error, Source};
use crate::model;

/// One document of a multi-document source.
#[derive(Debug, PartialEq)]
pub(crate) struct Document<'a> {
    /// The document text (without its `---` line).
    pub(crate) text: &'a str,
    /// Lines before the document in the source (add to document-relative line numbers).
    pub(crate) line_offset: u64,
}

/// A top-level value of a document (`kind`, `apiVersion`) and where it is written, the
/// line relative to the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    pub(crate) text: String,
    pub(crate) line: u64,
    pub(crate) column: u64,
}

/// What a document is, as far as its `kind` and `apiVersion` say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// Blank lines and comments only.
    Empty,
    /// A document with content; `kind` and `apiVersion` when it has them.
    Object {
        kind: Option<Value>,
        api_version: Option<Value>,
    },
    /// Not a mapping (a list, a scalar): no Kubernetes object.
    NotAnObject,
}

impl Document<'_> {
    /// What the document is. Its top-level `kind:` and `apiVersion:` lines say, without
    /// parsing it; a document with content but no such line (JSON, a flow mapping) is
    /// parsed for its top-level keys, `Err` when it is no YAML.
    pub(crate) fn head(&self) -> Result<Head, serde_saphyr::Error> {
        let (mut kind, mut api_version) = (None, None);
        let mut content = false;
        for (index, line) in self.text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "..." {
                continue;
            }
            content = true;
            let number = index as u64 + 1;
            if let Some(rest) = line.strip_prefix("kind:") {
                kind = Some(value(rest, "kind:".len(), number));
            } else if let Some(rest) = line.strip_prefix("apiVersion:") {
                api_version = Some(value(rest, "apiVersion:".len(), number));
            }
            if kind.is_some() && api_version.is_some() {
                break;
            }
        }
        if !content {
            return Ok(Head::Empty);
        }
        if kind.is_some() {
            return Ok(Head::Object { kind, api_version });
        }
        serde_saphyr::from_str_with_options::<Parsed>(
            self.text,
            crate::frontend::schema::yaml_options(),
        )
        .map(|parsed| parsed.0)
    }
}

/// The value after a `key:` at the start of line `line` (`rest` follows the key, which is
/// `key_len` long): unquoted, without a trailing comment.
fn value(rest: &str, key_len: usize, line: u64) -> Value {
    // A comment starts at a `#` after a blank. (Searched for by characters: a second
    // substring search in the crate made the optimizer stop inlining `split`'s search
    // for `---`, which runs over every input byte; +15 M instructions on the corpus.)
    let comment = rest
        .char_indices()
        .find(|&(i, c)| c == '#' && rest[..i].ends_with([' ', '\t']))
        .map_or(rest.len(), |(i, _)| i);
    let text = &rest[..comment];
    let start = text.len() - text.trim_start().len();
    let text = text.trim().trim_matches(|c| c == '"' || c == '\'');
    Value {
        text: text.to_owned(),
        line,
        column: (key_len + start + 1) as u64,
    }
}

/// A document's [`Head`], parsed: the top-level `kind` and `apiVersion` of a mapping.
struct Parsed(Head);

impl<'de> Deserialize<'de> for Parsed {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HeadVisitor;

        impl<'de> Visitor<'de> for HeadVisitor {
            type Value = Parsed;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a YAML document")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
                let (mut kind, mut api_version) = (None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Kind => kind = Some(map.next_value::<Text>()?.0),
                        Key::ApiVersion => api_version = Some(map.next_value::<Text>()?.0),
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Parsed(Head::Object {
                    kind: kind.flatten(),
                    api_version: api_version.flatten(),
                }))
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Parsed, E> {
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Parsed, E> {
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Parsed, E> {
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Parsed, E> {
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_str<E: de::Error>(self, _: &str) -> Result<Parsed, E> {
                Ok(Parsed(Head::NotAnObject))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Parsed, E> {
                Ok(Parsed(Head::Empty))
            }

            fn visit_none<E: de::Error>(self) -> Result<Parsed, E> {
                Ok(Parsed(Head::Empty))
            }
        }

        deserializer.deserialize_any(HeadVisitor)
    }
}

/// A top-level key of a document, as far as [`Parsed`] cares.
enum Key {
    Kind,
    ApiVersion,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match IgnoredOrString::deserialize(deserializer)?.0.as_deref() {
                Some("kind") => Key::Kind,
                Some("apiVersion") => Key::ApiVersion,
                _ => Key::Other,
            },
        )
    }
}

/// A string, or `None` for any other value.
struct IgnoredOrString(Option<String>);

impl<'de> Deserialize<'de> for IgnoredOrString {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Text(String),
            Other(IgnoredAny),
        }
        Ok(IgnoredOrString(match Either::deserialize(deserializer)? {
            Either::Text(text) => Some(text),
            Either::Other(_) => None,
        }))
    }
}

/// A top-level string value with where it is (`None` when it is no string).
struct Text(Option<Value>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<IgnoredOrString>::deserialize(deserializer)?;
        Ok(Text(spanned.value.0.map(|text| Value {
            text,
            line: spanned.referenced.line().max(1),
            column: spanned.referenced.column().max(1),
        })))
    }
}

/// What a document turned out to be.
pub(crate) enum Read {
    /// A CRD, parsed (boxed: it is most of a kilobyte, the other variants a few words).
    Crd(Box<document::Crd>),
    /// Something else, skipped.
    Other(Other),
}

/// A document that is not a CRD: what it is and where, for the error when no document of
/// the sources is a CRD.
pub(crate) enum Other {
    /// An object of another kind, at its `kind`.
    Kind(String, model::Location),
    /// No `kind` (or no mapping at all), at the document's start.
    NoKind(model::Location),
    /// Blank lines and comments only.
    Empty,
}

/// The error for sources none of whose documents is a CRD: each source with what it holds
/// instead, where.
pub(crate) fn no_crd(sources: &[Source], others: &[(&Source, Other)]) -> Error {
    let found = sources
        .iter()
        .map(|source| {
            let mut kinds: Vec<&str> = Vec::new();
            let (mut first_kind, mut no_kind) = (None, None);
            for (_, other) in others.iter().filter(|(s, _)| std::ptr::eq(*s, source)) {
                match other {
                    Other::Kind(kind, at) => {
                        first_kind.get_or_insert(at);
                        if !kinds.contains(&kind.as_str()) {
                            kinds.push(kind);
                        }
                    }
                    Other::NoKind(at) => {
                        no_kind.get_or_insert(at);
                    }
                    Other::Empty => {}
                }
            }
            let quoted: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
            match (first_kind, no_kind) {
                (Some(at), _) => (
                    at.clone(),
                    match quoted.split_last() {
                        Some((last, [])) => format!("kind {last}"),
                        Some((last, rest)) => format!("kinds {} and {last}", rest.join(", ")),
                        None => String::new(),
                    },
                ),
                (None, Some(at)) => (at.clone(), "a document without `kind`".to_owned()),
                (None, None) if source.text.trim().is_empty() => (
                    model::Location::new(&source.name, 1, 1),
                    "an empty file".to_owned(),
                ),
                (None, None) => (
                    model::Location::new(&source.name, 1, 1),
                    "only comments".to_owned(),
                ),
            }
        })
        .collect();
    Error::NoCrd { found }
}

/// Splits `text` at `---` document markers. JSON text (starting with `{`) is one document.
///
/// Searches for `---` rather than walking every line: markers are rare, and this runs
/// over every input byte on one thread before parsing spreads over all of them.
pub(crate) fn split(text: &str) -> Vec<Document<'_>> {
    if text.trim_start().starts_with('{') {
        return vec![Document {
            text,
            line_offset: 0,
        }];
    }
    let mut docs = Vec::new();
    // Where the current document starts, and its first line.
    let (mut start, mut start_line) = (0, 0u64);
    // Lines before `counted` (newlines are counted only up to each marker found).
    let (mut counted, mut lines) = (0, 0u64);
    let mut from = 0;
    while let Some(found) = text[from..].find("---") {
        let at = from + found;
        from = at + "---".len();
        if at > 0 && text.as_bytes()[at - 1] != b'\n' {
            continue;
        }
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let bare = text[at..line_end].trim_end_matches(['\n', '\r']);
        if !(bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t")) {
            continue;
        }
        lines += newlines(&text[counted..at]);
        counted = at;
        docs.push(Document {
            text: &text[start..at],
            line_offset: start_line,
        });
        start = line_end;
        start_line = lines + 1;
    }
    docs.push(Document {
        text: &text[start..],
        line_offset: start_line,
    });
    docs
}

/// How many lines `text` ends.
fn newlines(text: &str) -> u64 {
    text.bytes().filter(|&b| b == b'\n').count() as u64
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_markers_and_keeps_line_offsets() {
        let docs = split("a: 1\n---\nb: 2\nc: 3\n--- # x\nd: 4");
        let got: Vec<(&str, u64)> = docs.iter().map(|d| (d.text, d.line_offset)).collect();
        assert_eq!(got, vec![("a: 1\n", 0), ("b: 2\nc: 3\n", 2), ("d: 4", 5)]);
    }

    #[test]
    fn only_whole_marker_lines_split() {
        let text = "a: \"---\"\n----\nb: ---\n---x\n---\r\nc: 1\n---\t# t\n\n---";
        let docs = split(text);
        let got: Vec<(&str, u64)> = docs.iter().map(|d| (d.text, d.line_offset)).collect();
        assert_eq!(
            got,
            vec![
                ("a: \"---\"\n----\nb: ---\n---x\n", 0),
                ("c: 1\n", 5),
                ("\n", 7),
                ("", 9),
            ]
        );
        assert_eq!(
            split("---\na: 1\n")
                .iter()
                .map(|d| d.line_offset)
                .collect::<Vec<_>>(),
            [0, 1]
        );
    }

    #[test]
    fn json_is_one_document() {
        assert_eq!(split(" {\"a\": \"---\"}").len(), 1);
    }

    fn head(text: &str) -> Head {
        Document {
            text,
            line_offset: 0,
        }
        .head()
        .unwrap()
    }

    fn object(kind: Option<(&str, u64, u64)>, api_version: Option<(&str, u64, u64)>) -> Head {
        let value = |(text, line, column): (&str, u64, u64)| Value {
            text: text.to_owned(),
            line,
            column,
        };
        Head::Object {
            kind: kind.map(value),
            api_version: api_version.map(value),
        }
    }

    #[test]
    fn kind_and_api_version_lines_are_read_without_parsing() {
        assert_eq!(
            head("apiVersion: v1\nkind: Namespace\n"),
            object(Some(("Namespace", 2, 7)), Some(("v1", 1, 13)))
        );
        assert_eq!(
            head("# c\nkind:   \"CustomResourceDefinition\" # c\nspec: {}\n"),
            object(Some(("CustomResourceDefinition", 2, 9)), None)
        );
        // Indented keys are not top-level.
        assert_eq!(
            head("a:\n  kind: Foo\nkind: Bar\n"),
            object(Some(("Bar", 3, 7)), None)
        );
    }

    #[test]
    fn documents_without_kind_lines_are_parsed_for_their_keys() {
        assert_eq!(
            head("{\"apiVersion\": \"apps/v1\",\n \"kind\": \"Deployment\"}"),
            object(Some(("Deployment", 2, 10)), Some(("apps/v1", 1, 16)))
        );
        assert_eq!(head("a: 1\n"), object(None, None));
        assert_eq!(head("{kind: [1]}"), object(None, None));
        assert_eq!(head("- a\n- b\n"), Head::NotAnObject);
        assert_eq!(head("just text\n"), Head::NotAnObject);
        let broken = Document {
            text: "{a: [}",
            line_offset: 0,
        };
        assert!(broken.head().is_err());
    }

    #[test]
    fn comment_only_documents_are_empty() {
        assert_eq!(head("# only a comment\n\n"), Head::Empty);
        assert_eq!(head(""), Head::Empty);
        assert_eq!(head("...\n"), Head::Empty);
    }
}
