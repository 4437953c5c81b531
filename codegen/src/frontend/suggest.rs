//! "Did you mean" help for names the front-ends do not know: a misspelt attribute key,
//! schema keyword or CRD field is matched against the names that are known.

/// The known name closest to `unknown`, if it is close enough to be a likely typo.
///
/// Case, `_` and `-` are ignored on both sides, so `x-kubernetes-list-typ` finds
/// `x-kubernetes-list-type` and `additionalproperties` finds `additionalProperties`.
///
/// ```
/// # use kubegen_codegen::frontend::did_you_mean;
/// assert_eq!(did_you_mean("namespace", &["namespaced", "cluster"]), Some("namespaced"));
/// assert_eq!(did_you_mean("short_name", &["shortname", "status"]), Some("shortname"));
/// assert_eq!(did_you_mean("propertes", &["properties", "items"]), Some("properties"));
/// assert_eq!(did_you_mean("zzz", &["group", "version"]), None);
/// ```
pub fn did_you_mean<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let unknown = normalized(unknown);
    known
        .iter()
        .map(|k| (distance(&unknown, &normalized(k)), *k))
        .filter(|(d, k)| *d <= (unknown.len().max(k.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// `name` lowercased, without `_` and `-`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Edit distance counting insertions, deletions, substitutions and swaps of adjacent
/// characters (optimal string alignment), so `gruop` is one edit from `group`.
pub(crate) fn distance(a: &str, b: &str) -> usize {
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

/// `; did you mean `x`?` for `unknown` among `known`, or `; expected one of: a, b, c`.
pub(crate) fn help(unknown: &str, known: &[&str]) -> String {
    match did_you_mean(unknown, known) {
        Some(suggestion) => format!("; did you mean `{suggestion}`?"),
        None => format!("; expected one of: {}", known.join(", ")),
    }
}

#[cfg(test)]
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

    #[test]
    fn case_and_separators_are_ignored_on_both_sides() {
        let known = [
            "additionalProperties",
            "x-kubernetes-list-type",
            "x-kubernetes-preserve-unknown-fields",
        ];
        assert_eq!(
            did_you_mean("additionalproperties", &known),
            Some("additionalProperties")
        );
        assert_eq!(
            did_you_mean("x-kubernetes-list-typ", &known),
            Some("x-kubernetes-list-type")
        );
        assert_eq!(
            did_you_mean("x-kubernetes-preserve-unknown-field", &known),
            Some("x-kubernetes-preserve-unknown-fields")
        );
    }

    #[test]
    fn help_suggests_or_lists() {
        assert_eq!(help("gruop", &["group"]), "; did you mean `group`?");
        assert_eq!(help("zzz", &["a", "b"]), "; expected one of: a, b");
    }
}
