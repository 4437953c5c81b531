//! Ordering resourceVersions, as KEP-5647 does.
//!
//! Kubernetes documents resourceVersions as opaque strings, to compare for equality only.
//! KEP-5504 ("comparable resource version") makes them comparable: the API server's are
//! decimal integers without leading zeros (etcd revisions), ordered as numbers, and
//! client-go's `CompareResourceVersion` orders them by length, then digit by digit, so
//! any number of digits works. Anything else (a storage that is not etcd, a proxy that
//! rewrites them) is not comparable, and KEP-5647's stale-controller guard then lets the
//! reconcile run: it fails open rather than waiting on an order it cannot know.

use std::cmp::Ordering;

/// Whether `rv` has the form of a comparable resourceVersion: ASCII digits, no leading
/// zero (but `"0"` itself).
fn comparable(rv: &str) -> bool {
    !rv.is_empty()
        && rv.bytes().all(|b| b.is_ascii_digit())
        && (rv.len() == 1 || !rv.starts_with('0'))
}

/// How resourceVersion `a` orders against `b`, as numbers; `None` when either is not a
/// decimal integer without leading zeros (then they cannot be ordered).
///
/// ```
/// use std::cmp::Ordering;
/// use kubegen_runtime::controller::compare_resource_versions;
///
/// assert_eq!(compare_resource_versions("99", "100"), Some(Ordering::Less));
/// assert_eq!(compare_resource_versions("100", "100"), Some(Ordering::Equal));
/// assert_eq!(compare_resource_versions("abc", "100"), None);
/// ```
pub fn compare_resource_versions(a: &str, b: &str) -> Option<Ordering> {
    if !comparable(a) || !comparable(b) {
        return None;
    }
    Some(a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_order_by_value_whatever_their_length() {
        assert_eq!(compare_resource_versions("9", "10"), Some(Ordering::Less));
        assert_eq!(
            compare_resource_versions("10", "9"),
            Some(Ordering::Greater)
        );
        assert_eq!(compare_resource_versions("0", "1"), Some(Ordering::Less));
        // Past u64: still ordered.
        let big = "123456789012345678901234567890";
        let bigger = "123456789012345678901234567891";
        assert_eq!(compare_resource_versions(big, bigger), Some(Ordering::Less));
        assert_eq!(compare_resource_versions(big, big), Some(Ordering::Equal));
    }

    #[test]
    fn anything_but_canonical_integers_is_not_comparable() {
        for odd in ["", "007", "-1", "1.5", "abc", " 1", "1a", "１"] {
            assert_eq!(compare_resource_versions(odd, "5"), None, "{odd:?}");
            assert_eq!(compare_resource_versions("5", odd), None, "{odd:?}");
        }
    }
}
