//! Splitting a source into YAML documents, and skipping those that are not CRDs.

/// One document of a multi-document source.
#[derive(Debug, PartialEq)]
pub(crate) struct Document<'a> {
    /// The document text (without its `---` line).
    pub(crate) text: &'a str,
    /// Lines before the document in the source (add to document-relative line numbers).
    pub(crate) line_offset: u64,
}

impl Document<'_> {
    /// `false` when a top-level `kind:` line names something other than a CRD, or the
    /// document holds only comments; such documents are skipped without parsing.
    pub(crate) fn may_be_crd(&self) -> bool {
        let mut content = false;
        for line in self.text.lines() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "..." {
                continue;
            }
            content = true;
            if let Some(kind) = line.strip_prefix("kind:") {
                let kind = kind.split('#').next().unwrap_or_default().trim();
                let kind = kind.trim_matches(|c| c == '"' || c == '\'');
                return kind == "CustomResourceDefinition";
            }
        }
        content
    }
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

    #[test]
    fn skips_other_kinds_and_comment_only_documents() {
        let doc = |text| Document {
            text,
            line_offset: 0,
        };
        assert!(doc("kind: CustomResourceDefinition\n").may_be_crd());
        assert!(doc("kind: \"CustomResourceDefinition\" # c\n").may_be_crd());
        assert!(!doc("apiVersion: v1\nkind: Namespace\n").may_be_crd());
        assert!(!doc("# only a comment\n\n").may_be_crd());
        assert!(doc("{\"kind\": \"CustomResourceDefinition\"}").may_be_crd());
    }
}
