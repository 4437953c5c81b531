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
pub(crate) fn split(text: &str) -> Vec<Document<'_>> {
    if text.trim_start().starts_with('{') {
        return vec![Document {
            text,
            line_offset: 0,
        }];
    }
    let mut docs = Vec::new();
    let mut start = 0;
    let mut start_line = 0u64;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let is_marker = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        if is_marker {
            docs.push(Document {
                text: &text[start..offset],
                line_offset: start_line,
            });
            start = offset + line.len();
            start_line = index as u64 + 1;
        }
        offset += line.len();
    }
    docs.push(Document {
        text: &text[start..],
        line_offset: start_line,
    });
    docs
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
