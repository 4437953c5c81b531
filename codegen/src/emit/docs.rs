//! Schema descriptions -> `#[doc]` attributes that rustdoc renders as written.
//!
//! Descriptions are Markdown-ish prose written for Go. Without care they turn into broken
//! intra-doc links (`[a-z]`), HTML tags (`<name>`), bare-URL warnings, and -- worst --
//! indented or fenced blocks that rustdoc compiles as doctests. So:
//!
//! - text containing indented lines or code fences is wrapped whole in a `text` fence
//!   (four backticks, so inner fences cannot close it);
//! - otherwise `[`, `]`, `<`, `>` are escaped and URLs are wrapped in `<...>`.

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc = "..."]` attributes for `text` (none for empty text).
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    let attrs = lines.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote! { #[doc = #line] }
    });
    quote! { #(#attrs)* }
}

/// The doc lines for `text`, escaped (see the module docs).
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.trim().lines().map(str::trim_end).collect();
    if lines.iter().all(|l| l.is_empty()) {
        return Vec::new();
    }
    let verbatim = lines
        .iter()
        .any(|l| l.starts_with("    ") || l.starts_with('\t') || l.trim_start().starts_with("```"));
    if verbatim {
        let mut out = vec!["````text".to_owned()];
        out.extend(lines.iter().map(|l| l.replace('\t', "    ")));
        out.push("````".to_owned());
        return out;
    }
    lines.iter().map(|l| escape_line(l)).collect()
}

fn escape_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    if !line.contains("http") {
        escape_text(line, &mut out);
        return out;
    }
    for (i, word) in line.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match word.find("http://").or_else(|| word.find("https://")) {
            Some(start) => {
                let (before, rest) = word.split_at(start);
                let end = rest
                    .trim_end_matches(['.', ',', ';', ':', ')', '\'', '"', '`', ']', '>'])
                    .len();
                let (url, after) = rest.split_at(end);
                escape_text(before, &mut out);
                if url.contains(['<', '>', '`']) {
                    escape_text(url, &mut out);
                } else {
                    out.push('<');
                    out.push_str(url);
                    out.push('>');
                }
                escape_text(after, &mut out);
            }
            None => escape_text(word, &mut out),
        }
    }
    out
}

fn escape_text(text: &str, out: &mut String) {
    if !text.contains(['[', ']', '<', '>']) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        if matches!(c, '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn escapes_links_html_and_urls() {
        assert_eq!(
            doc_lines("Must match [a-z]+ and <name>; see https://k8s.io/docs."),
            vec!["Must match \\[a-z\\]+ and \\<name\\>; see <https://k8s.io/docs>."]
        );
        assert_eq!(doc_lines("(https://x.io/a)"), vec!["(<https://x.io/a>)"]);
    }

    #[test]
    fn fences_indented_and_fenced_text() {
        let lines = doc_lines("Example:\n    foo: bar\n```\nx\n```");
        assert_eq!(lines.first().map(String::as_str), Some("````text"));
        assert_eq!(lines.last().map(String::as_str), Some("````"));
        assert!(lines.contains(&"    foo: bar".to_owned()));
    }

    #[test]
    fn empty_text_has_no_docs() {
        assert!(doc_lines("  \n ").is_empty());
        assert!(doc_attrs("").is_empty());
    }
}
