//! Error collection for the Rust front-end: every problem with its span, reported together.

use std::fmt::Display;

use quote::ToTokens;

/// Collects errors while parsing continues, so one mistake does not hide the next.
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records an error spanning `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Every error combined into one (`None` when there were none).
    pub(crate) fn finish(self) -> Option<syn::Error> {
        let mut errors = self.errors.into_iter();
        let mut first = errors.next()?;
        for error in errors {
            first.combine(error);
        }
        Some(first)
    }
}

/// The known name closest to `unknown`, if it is close enough to be a likely typo.
///
/// ```
/// # use kubegen_codegen::frontend::rust::did_you_mean;
/// assert_eq!(did_you_mean("namespace", &["namespaced", "cluster"]), Some("namespaced"));
/// assert_eq!(did_you_mean("short_name", &["shortname", "status"]), Some("shortname"));
/// assert_eq!(did_you_mean("zzz", &["group", "version"]), None);
/// ```
pub fn did_you_mean<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let normalized = unknown.to_ascii_lowercase().replace(['_', '-'], "");
    known
        .iter()
        .map(|k| (distance(&normalized, &k.replace('_', "")), *k))
        .filter(|(d, k)| *d <= (normalized.len().max(k.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edit distance counting insertions, deletions, substitutions and swaps of adjacent
/// characters (optimal string alignment), so `gruop` is one edit from `group`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
        assert_eq!(distance("gruop", "group"), 1);
    }

    #[test]
    fn suggestions() {
        let known = [
            "group",
            "version",
            "kind",
            "plural",
            "printcolumn",
            "category",
        ];
        assert_eq!(did_you_mean("gruop", &known), Some("group"));
        assert_eq!(did_you_mean("print_column", &known), Some("printcolumn"));
        assert_eq!(did_you_mean("categories", &known), Some("category"));
        assert_eq!(did_you_mean("Kind", &known), Some("kind"));
        assert_eq!(did_you_mean("scope", &known), None);
    }
}
