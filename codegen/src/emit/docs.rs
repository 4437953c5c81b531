//! Schema descriptions -> `#[doc]` attributes that rustdoc renders as written.
//!
//! Descriptions are Markdown-ish prose written for Go. Without care they turn into broken
//! intra-doc links (`[a-z]`), HTML tags (`<name>`), bare-URL warnings, and -- worst --
//! indented or fenced blocks that rustdoc compiles as doctests. So:
//!
//! - text containing indented lines or code fences is wrapped whole in a `text` fence
//!   (four backticks, so inner fences cannot close it);
//! - otherwise `[`, `]`, `<`, `>` are escaped (outside `code spans`, where a backslash
//!   would show) and URLs are wrapped in `<...>`, and the lines that continue a list
//!   item's paragraph are indented to the item's text (Go writes them flush left or with
//!   any indent; Markdown reads them the same either way, clippy's `doc_lazy_continuation`
//!   and `doc_overindented_list_items` only one way, and generated code must pass clippy).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::Validation;

/// What a field's schema enforces beyond its type, as Markdown list items for its docs
/// (`None` when it enforces nothing): CEL rules with their messages, bounds, the pattern,
/// and list/map semantics for server-side apply.
pub(crate) fn validation_docs(v: &Validation) -> Option<String> {
    let mut items = Vec::new();
    for rule in &v.rules {
        let mut item = format!("- `{}`", rule.rule);
        if let Some(message) = &rule.message {
            item.push_str(&format!(": {message}"));
        } else if let Some(expression) = &rule.message_expression {
            item.push_str(&format!(": message `{expression}`"));
        }
        if let Some(path) = &rule.field_path {
            item.push_str(&format!(" (reported on `{path}`)"));
        }
        items.push(item);
    }
    let bound = |low: &Option<serde_json::Number>, exclusive: bool, word: &str| {
        low.as_ref().map(|n| {
            let strict = if exclusive { " (exclusive)" } else { "" };
            format!("- {word} `{n}`{strict}")
        })
    };
    items.extend(bound(&v.minimum, v.exclusive_minimum, "minimum"));
    items.extend(bound(&v.maximum, v.exclusive_maximum, "maximum"));
    if let Some(n) = &v.multiple_of {
        items.push(format!("- a multiple of `{n}`"));
    }
    for (key, count) in v.count_bounds() {
        if let Some(count) = count {
            items.push(format!("- `{key}`: {count}"));
        }
    }
    if v.unique_items {
        items.push("- items are unique".to_owned());
    }
    if let Some(pattern) = &v.pattern {
        items.push(format!("- matches `{pattern}`"));
    }
    if let Some(list_type) = v.list_type {
        let keys = if v.list_map_keys.is_empty() {
            String::new()
        } else {
            let keys: Vec<String> = v.list_map_keys.iter().map(|k| format!("`{k}`")).collect();
            format!(" keyed by {}", keys.join(", "))
        };
        items.push(format!(
            "- list type `{}`{keys} (server-side apply)",
            list_type.as_str()
        ));
    }
    if let Some(map_type) = v.map_type {
        items.push(format!(
            "- map type `{}` (server-side apply)",
            map_type.as_str()
        ));
    }
    if v.embedded_resource {
        items.push("- an embedded object with `apiVersion`, `kind` and `metadata`".to_owned());
    }
    (!items.is_empty()).then(|| format!("Validated by the API server:\n{}", items.join("\n")))
}

/// The `#[doc = ...]` attribute for `text` (none for empty text): one raw string holding
/// every line (a space before each non-empty one), which the printer writes as one `///`
/// comment a line. Text with a carriage return, which no raw string can hold, gets one
/// attribute a line instead.
///
/// Raw strings, because escaping every character (`Literal::string`) was the generator's
/// most expensive step after reading YAML; one for the whole text, because building and
/// printing an attribute a line cost more than the text itself.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    if lines.is_empty() {
        return TokenStream::new();
    }
    let mut joined = String::with_capacity(lines.iter().map(|l| l.len() + 2).sum());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            joined.push('\n');
        }
        if !line.is_empty() {
            joined.push(' ');
            joined.push_str(line);
        }
    }
    if let Some(literal) = raw_literal(&joined) {
        return quote! { #[doc = #literal] };
    }
    let mut attrs = TokenStream::new();
    for line in &lines {
        let line = doc_literal(line);
        attrs.extend(quote! { #[doc = #line] });
    }
    attrs
}

/// The string literal of one doc line (a space before non-empty text): raw where it can
/// be, escaped where it holds a carriage return.
fn doc_literal(line: &str) -> Literal {
    if line.is_empty() {
        return Literal::string("");
    }
    let text = format!(" {line}");
    raw_literal(&text).unwrap_or_else(|| Literal::string(&text))
}

/// `text` as a raw string literal (`r"..."`, with as many `#` as the text needs), unless it
/// holds a carriage return, which a raw string cannot.
fn raw_literal(text: &str) -> Option<Literal> {
    if text.contains('\r') {
        return None;
    }
    let hashes = text
        .match_indices('"')
        .map(|(at, _)| text[at + 1..].bytes().take_while(|b| *b == b'#').count() + 1)
        .max()
        .unwrap_or(0);
    let mut raw = String::with_capacity(text.len() + 3 + 2 * hashes);
    raw.push('r');
    raw.extend(std::iter::repeat_n('#', hashes));
    raw.push('"');
    raw.push_str(text);
    raw.push('"');
    raw.extend(std::iter::repeat_n('#', hashes));
    raw.parse::<Literal>().ok()
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
    let mut lines: Vec<String> = lines.iter().map(|l| escape_line(l)).collect();
    indent_list_continuations(&mut lines);
    lines
}

/// Indents every line that continues the paragraph of a list item to exactly where the
/// item's text starts, which changes nothing of how Markdown renders it (a paragraph's
/// continuation lines may have any indent). Lists end where a paragraph after a blank
/// line starts left of an item's text.
fn indent_list_continuations(lines: &mut [String]) {
    // Where the text of each open list item starts, innermost last.
    let mut items: Vec<usize> = Vec::new();
    let mut in_paragraph = false;
    for line in lines.iter_mut() {
        let text = line.trim_start_matches(' ');
        let indent = line.len() - text.len();
        if text.is_empty() {
            in_paragraph = false;
            continue;
        }
        if is_thematic_break(text) {
            items.clear();
            in_paragraph = false;
            continue;
        }
        // An ordered list starts a paragraph only from 1 (CommonMark); items of a list
        // already open may have any number.
        let marker = list_marker(text).filter(|(_, number)| {
            !in_paragraph || !items.is_empty() || number.is_none_or(|n| n == 1)
        });
        if let Some((width, _)) = marker {
            while items.last().is_some_and(|&open| open > indent) {
                items.pop();
            }
            items.push(indent + width);
            in_paragraph = true;
            continue;
        }
        if !in_paragraph {
            while items.last().is_some_and(|&open| open > indent) {
                items.pop();
            }
            in_paragraph = true;
            continue;
        }
        if let Some(&open) = items.last()
            && open != indent
        {
            *line = format!("{}{text}", " ".repeat(open));
        }
    }
}

/// The width of the list marker `text` starts with, up to its item's text (`- `, `12. `,
/// `*   `), and the number of an ordered one; `None` when `text` starts no list item.
fn list_marker(text: &str) -> Option<(usize, Option<u64>)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (marker, number) = match text.as_bytes().first()? {
        b'-' | b'*' | b'+' => (1, None),
        _ if (1..=9).contains(&digits)
            && matches!(text.as_bytes().get(digits), Some(b'.' | b')')) =>
        {
            (digits + 1, text[..digits].parse().ok())
        }
        _ => return None,
    };
    let after = &text[marker..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    // A marker needs a space and text after it; past four spaces the text is code, and
    // the item's text starts one space after the marker.
    match spaces {
        0 => None,
        _ if spaces == after.len() => None,
        1..=4 => Some((marker + spaces, number)),
        _ => Some((marker + 1, number)),
    }
}

/// Whether `text` is a thematic break (`---`, `* * *`), which ends every list.
fn is_thematic_break(text: &str) -> bool {
    let Some(first) = text.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    text.chars().all(|c| c == first || c == ' ') && text.matches(first).count() >= 3
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
    // Inside a `code span` nothing is a link or a tag, and a backslash would show.
    let balanced = text.matches('`').count().is_multiple_of(2);
    let mut code = false;
    for c in text.chars() {
        if c == '`' && balanced {
            code = !code;
        }
        if !code && matches!(c, '[' | ']' | '<' | '>') {
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
    fn doc_lines_are_raw_literals_with_enough_hashes() {
        let written = |line: &str| doc_literal(line).to_string();
        assert_eq!(written("plain"), r#"r" plain""#);
        assert_eq!(written(r#"say "hi""#), r##"r#" say "hi""#"##);
        assert_eq!(written(r##"a "# b"##), r###"r##" a "# b"##"###);
        assert_eq!(written(r"back\slash"), r#"r" back\slash""#);
        // A carriage return cannot be in a raw string: the line is escaped instead.
        assert_eq!(written("a\rb"), r#"" a\rb""#);
        assert_eq!(written(""), r#""""#);
        // Every form reads back as the line's text.
        for line in ["plain", r#"say "hi""#, r##"a "# b"##, "a\rb"] {
            let syn::Lit::Str(text) = syn::Lit::new(doc_literal(line)) else {
                panic!("{line:?} is not a string literal");
            };
            assert_eq!(text.value(), format!(" {line}"));
        }
    }

    #[test]
    fn escapes_links_html_and_urls() {
        assert_eq!(
            doc_lines("Must match [a-z]+ and <name>; see https://k8s.io/docs."),
            vec!["Must match \\[a-z\\]+ and \\<name\\>; see <https://k8s.io/docs>."]
        );
        assert_eq!(doc_lines("(https://x.io/a)"), vec!["(<https://x.io/a>)"]);
    }

    #[test]
    fn code_spans_are_not_escaped() {
        assert_eq!(
            doc_lines("matches `^[a-z]+$` or <x>"),
            vec!["matches `^[a-z]+$` or \\<x\\>"]
        );
        assert_eq!(doc_lines("odd ` [a]"), vec!["odd ` \\[a\\]"]);
    }

    #[test]
    fn fences_indented_and_fenced_text() {
        let lines = doc_lines("Example:\n    foo: bar\n```\nx\n```");
        assert_eq!(lines.first().map(String::as_str), Some("````text"));
        assert_eq!(lines.last().map(String::as_str), Some("````"));
        assert!(lines.contains(&"    foo: bar".to_owned()));
    }

    #[test]
    fn validations_are_listed() {
        use crate::model::{ListType, ValidationRule};
        let v = Validation {
            rules: vec![ValidationRule {
                rule: "self > 0".into(),
                message: Some("positive".into()),
                ..ValidationRule::default()
            }],
            max_length: Some(63),
            list_type: Some(ListType::Map),
            list_map_keys: vec!["name".into()],
            ..Validation::default()
        };
        assert_eq!(
            validation_docs(&v).unwrap(),
            "Validated by the API server:\n- `self > 0`: positive\n- `maxLength`: 63\n\
             - list type `map` keyed by `name` (server-side apply)"
        );
        assert_eq!(validation_docs(&Validation::default()), None);
    }

    #[test]
    fn a_text_is_one_raw_attribute_unless_it_holds_a_carriage_return() {
        let attrs = doc_attrs("First [a].\n\nSecond.").to_string();
        assert_eq!(attrs, "# [doc = r\" First \\[a\\].\n\n Second.\"]");
        // A carriage return: one attribute a line, the line with it escaped.
        let attrs = doc_attrs("a\rb\nc").to_string();
        assert_eq!(attrs, "# [doc = \" a\\rb\"] # [doc = r\" c\"]");
    }

    #[test]
    fn list_item_continuations_are_indented_to_the_item_text() {
        // Flush left (Go's habit), over-indented, and nested: each continuation line
        // moves to where its item's text starts; other lines stay.
        let text = "Keys:\n\
                    - `provider`: one of `aws` or\n   `generic`. Required.\n\
                    * While A, B\nis preserved.\n  - nested item\n   wrapped\n\
                    (Beta) still the nested item's paragraph.\n\n\
                    A paragraph after the list.\n\
                    10. not an item: ordered lists start a paragraph only from 1\n\
                    1. one\n2) two\ncontinued";
        assert_eq!(
            doc_lines(text),
            [
                "Keys:",
                "- `provider`: one of `aws` or",
                "  `generic`. Required.",
                "* While A, B",
                "  is preserved.",
                "  - nested item",
                "    wrapped",
                "    (Beta) still the nested item's paragraph.",
                "",
                "A paragraph after the list.",
                "10. not an item: ordered lists start a paragraph only from 1",
                "1. one",
                "2) two",
                "   continued",
            ]
        );
        // After a blank line, an indented paragraph stays in its item; one further
        // left ends the list; a thematic break ends it too.
        assert_eq!(
            doc_lines(
                "-   wide marker\nnext\n\n- narrow\n\n  in the item\nwrapped\n\nout\nof it\n\n- a\n---\nb"
            ),
            [
                "-   wide marker",
                "    next",
                "",
                "- narrow",
                "",
                "  in the item",
                "  wrapped",
                "",
                "out",
                "of it",
                "",
                "- a",
                "---",
                "b",
            ]
        );
        assert_eq!(list_marker("- x"), Some((2, None)));
        assert_eq!(list_marker("3) x"), Some((3, Some(3))));
        assert_eq!(list_marker("-      code"), Some((2, None)));
        assert_eq!(list_marker("-x"), None);
        assert_eq!(list_marker("-"), None);
        assert_eq!(list_marker("1234567890. x"), None);
    }

    #[test]
    fn empty_text_has_no_docs() {
        assert!(doc_lines("  \n ").is_empty());
        assert!(doc_attrs("").is_empty());
    }
}
