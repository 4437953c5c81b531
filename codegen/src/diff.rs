//! A small unified-style line diff for `kubegen generate --verify`.

use std::fmt::Write as _;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many cells the middle part is shown as one replaced block instead of an LCS.
const MAX_LCS_CELLS: usize = 4_000_000;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// A unified-style diff from `old` to `new` with `---`/`+++` headers naming `path`;
/// empty when the texts are equal.
///
/// ```
/// let diff = kubegen_codegen::__internal::diff::unified("a.rs", "x\ny\n", "x\nz\n");
/// assert!(diff.contains("--- a.rs (on disk)"));
/// assert!(diff.contains("-y\n+z\n"));
/// assert!(kubegen_codegen::__internal::diff::unified("a.rs", "same\n", "same\n").is_empty());
/// ```
pub fn unified(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = diff_lines(&old_lines, &new_lines);
    let mut out = format!("--- {path} (on disk)\n+++ {path} (generated)\n");
    let changed: Vec<usize> = (0..ops.len())
        .filter(|&i| !matches!(ops[i], Op::Same(_)))
        .collect();
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(CONTEXT);
        let mut end = changed[i];
        while i < changed.len() && changed[i] <= end + 2 * CONTEXT {
            end = changed[i];
            i += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let (old_start, new_start) = positions(&ops[..start]);
        let (old_len, new_len) = positions(&ops[start..end]);
        let _ = writeln!(
            out,
            "@@ -{},{old_len} +{},{new_len} @@",
            old_start + 1,
            new_start + 1
        );
        for op in &ops[start..end] {
            let _ = match op {
                Op::Same(l) => writeln!(out, " {l}"),
                Op::Removed(l) => writeln!(out, "-{l}"),
                Op::Added(l) => writeln!(out, "+{l}"),
            };
        }
    }
    out
}

fn positions(ops: &[Op<'_>]) -> (usize, usize) {
    ops.iter().fold((0, 0), |(o, n), op| match op {
        Op::Same(_) => (o + 1, n + 1),
        Op::Removed(_) => (o + 1, n),
        Op::Added(_) => (o, n + 1),
    })
}

fn diff_lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Op<'a>> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut ops: Vec<Op<'a>> = old[..prefix].iter().map(|l| Op::Same(l)).collect();
    if a.len().saturating_mul(b.len()) > MAX_LCS_CELLS {
        ops.extend(a.iter().map(|l| Op::Removed(l)));
        ops.extend(b.iter().map(|l| Op::Added(l)));
    } else {
        ops.extend(lcs(a, b));
    }
    ops.extend(old[old.len() - suffix..].iter().map(|l| Op::Same(l)));
    ops
}

fn lcs<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    let width = b.len() + 1;
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            ops.push(Op::Same(a[i]));
            i += 1;
            j += 1;
        } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
            ops.push(Op::Removed(a[i]));
            i += 1;
        } else {
            ops.push(Op::Added(b[j]));
            j += 1;
        }
    }
    ops.extend(a[i..].iter().map(|l| Op::Removed(l)));
    ops.extend(b[j..].iter().map(|l| Op::Added(l)));
    ops
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hunks_have_context_and_positions() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n";
        let diff = unified("f", old, new);
        assert_eq!(
            diff,
            "--- f (on disk)\n+++ f (generated)\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n"
        );
    }

    #[test]
    fn additions_at_end() {
        let diff = unified("f", "a\n", "a\nb\n");
        assert!(diff.ends_with("@@ -1,1 +1,2 @@\n a\n+b\n"), "{diff}");
    }
}
