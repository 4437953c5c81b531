//! Every Rust snippet in README.md is code that compiles: an excerpt of a file of this
//! repository that the build and the tests compile, named in a `<!-- excerpt: PATH -->`
//! line right above the snippet. Each line of the snippet (trimmed; blank lines and `//`
//! comments, which narrate, are skipped) must appear in that file in the same order, so a
//! renamed API or an invented name in a snippet fails here.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

use std::path::Path;

/// One ```rust block: the path its marker names (if any), its first line number, its lines.
struct Snippet {
    source: Option<String>,
    line: usize,
    lines: Vec<String>,
}

fn snippets(readme: &str) -> Vec<Snippet> {
    let mut snippets = Vec::new();
    let mut lines = readme.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((number, line)) = lines.next() {
        if line.trim_start().starts_with("```rust") {
            let source = previous
                .trim()
                .strip_prefix("<!-- excerpt: ")
                .and_then(|rest| rest.strip_suffix(" -->"))
                .map(str::to_owned);
            let mut body = Vec::new();
            for (_, line) in lines.by_ref() {
                if line.trim_start().starts_with("```") {
                    break;
                }
                body.push(line.to_owned());
            }
            snippets.push(Snippet {
                source,
                line: number + 1,
                lines: body,
            });
            previous = "";
            continue;
        }
        previous = line;
    }
    snippets
}

/// The lines that must appear in the source: trimmed, without blanks and comments.
fn code(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect()
}

#[test]
fn every_rust_snippet_is_an_excerpt_of_compiled_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let snippets = snippets(&readme);
    assert!(!snippets.is_empty(), "README.md has Rust snippets");
    for snippet in &snippets {
        let Some(source) = &snippet.source else {
            panic!(
                "README.md:{}: a Rust snippet without a `<!-- excerpt: PATH -->` line above it",
                snippet.line
            );
        };
        let text = std::fs::read_to_string(root.join(source))
            .unwrap_or_else(|e| panic!("README.md:{}: {source}: {e}", snippet.line));
        let mut file = text.lines().map(str::trim);
        for wanted in code(&snippet.lines) {
            assert!(
                file.any(|line| line == wanted),
                "README.md:{}: `{wanted}` is not in {source} (after the snippet's previous lines)",
                snippet.line
            );
        }
    }
}

#[test]
fn the_checker_finds_markers_and_refuses_what_is_not_there() {
    let readme = "<!-- excerpt: a.rs -->\n```rust\nlet a = 1; // x\n// narration\n\nlet b = 2;\n```\n```rust\nlet c;\n```\n";
    let found = snippets(readme);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].source.as_deref(), Some("a.rs"));
    assert_eq!(code(&found[0].lines), ["let a = 1; // x", "let b = 2;"]);
    assert_eq!(found[1].source, None);
}
