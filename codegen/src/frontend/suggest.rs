//! "Did you mean" help for names the front-ends do not know: a misspelt attribute key,
//! schema keyword or CRD field is matched against the names that are known.

/// The known name closest to `unknown`, if it is close enough to be a likely typo.
///
/// Case, `_` and `-` are ignored on both sides, so `x-kubernetes-list-typ` finds
/// `x-kubernetes-list-type` and `additionalproperties` finds `additionalProperties`; whole
/// words both names start with do not count towards closeness, so
/// `x-kubernetes-patch-strategy` is not close to `x-kubernetes-int-or-string`. Failing
/// a close one, the only known name that starts with `unknown` (of three characters or
/// more: `int` finds `integer`) is suggested.
///
/// ```
/// # use kubegen_codegen::__internal::frontend::did_you_mean;
/// assert_eq!(did_you_mean("namespace", &["namespaced", "cluster"]), Some("namespaced"));
/// assert_eq!(did_you_mean("short_name", &["shortname", "status"]), Some("shortname"));
/// assert_eq!(did_you_mean("propertes", &["properties", "items"]), Some("properties"));
/// assert_eq!(did_you_mean("zzz", &["group", "version"]), None);
/// ```
pub fn did_you_mean<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let close = known
        .iter()
        .filter_map(|k| {
            let (a, b) = without_shared_words(unknown, k);
            let (a, b) = (normalized(a), normalized(b));
            let d = distance(&a, &b);
            (d <= (a.len().max(b.len()) / 3).max(1)).then_some((d, *k))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k);
    let unknown = normalized(unknown);
    if close.is_some() || unknown.len() < 3 {
        return close;
    }
    let mut starting = known.iter().filter(|k| normalized(k).starts_with(&unknown));
    match (starting.next(), starting.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// `a` and `b` without the words (ending in `-` or `_`) they both start with.
fn without_shared_words<'a, 'b>(a: &'a str, b: &'b str) -> (&'a str, &'b str) {
    let mut cut = 0;
    for ((i, x), y) in a.char_indices().zip(b.chars()) {
        if !x.eq_ignore_ascii_case(&y) {
            break;
        }
        if matches!(x, '-' | '_') {
            cut = i + 1;
        }
    }
    (&a[cut..], &b[cut..])
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
    fn the_only_name_a_prefix_starts_is_suggested() {
        let types = ["integer", "number", "string", "boolean", "date"];
        assert_eq!(did_you_mean("int", &types), Some("integer"));
        assert_eq!(did_you_mean("bool", &types), Some("boolean"));
        let formats = ["int32", "int64", "float"];
        assert_eq!(did_you_mean("int", &formats), None, "two start with it");
        assert_eq!(did_you_mean("in", &["integer"]), None, "too short");
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
    fn shared_leading_words_do_not_make_names_close() {
        let known = ["x-kubernetes-int-or-string", "x-kubernetes-list-type"];
        assert_eq!(did_you_mean("x-kubernetes-patch-strategy", &known), None);
        assert_eq!(
            did_you_mean("x-kubernetes-list-typ", &known),
            Some("x-kubernetes-list-type")
        );
        assert_eq!(without_shared_words("a-b-c", "a-b-d"), ("c", "d"));
        assert_eq!(without_shared_words("ab-c", "ab_d"), ("ab-c", "ab_d"));
    }

    #[test]
    fn help_suggests_or_lists() {
        assert_eq!(help("gruop", &["group"]), "; did you mean `group`?");
        assert_eq!(help("zzz", &["a", "b"]), "; expected one of: a, b");
    }
}
