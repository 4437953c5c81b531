//! Kubernetes' own rules for API names, as the API server enforces them, so the generator
//! rejects what a cluster would reject (and nothing it would accept).
//!
//! The rules follow apiextensions-apiserver's CRD validation
//! (`validateCustomResourceDefinitionSpec`, `ValidateCustomResourceDefinitionNames`) and
//! apimachinery's `IsDNS1123Subdomain` / `IsDNS1035Label`:
//!
//! | name                              | rule                                                        |
//! |-----------------------------------|-------------------------------------------------------------|
//! | group                             | DNS-1123 subdomain (`""` is the core group); a CRD's also has a dot |
//! | version                           | DNS-1035 label                                              |
//! | kind, listKind                    | lowercased, a DNS-1035 label (so `a-b` is a valid kind); different from each other |
//! | plural, singular, shortNames, categories | DNS-1035 label                                     |
//!
//! Each check returns what was expected, for `file:line:column: invalid ...: expected ...`.
//!
//! ```
//! use kubegen_codegen::__internal::naming::kubernetes::{check_kind, check_version, check_crd_group};
//!
//! assert!(check_version("v1beta1").is_ok());
//! assert!(check_version("v1.2").is_err());
//! assert!(check_kind("CronTab").is_ok());
//! assert!(check_kind("Foo Bar").is_err());
//! assert!(check_kind("1Foo").is_err());
//! assert!(check_crd_group("example.com").is_ok());
//! assert!(check_crd_group("example").is_err());
//! ```

/// The longest DNS-1035 / DNS-1123 label.
const LABEL_MAX: usize = 63;
/// The longest DNS-1123 subdomain.
const SUBDOMAIN_MAX: usize = 253;

/// What a DNS-1123 subdomain group looks like.
pub const EXPECTED_GROUP: &str = "expected a DNS-1123 subdomain like `example.com`: at most 253 \
lowercase letters, digits, `-` and `.`, each dot-separated part starting and ending with a letter \
or digit";
/// What a CRD's group looks like beyond being a subdomain.
pub const EXPECTED_CRD_GROUP: &str = "expected a domain with at least one dot, like `example.com`";
/// What a version name looks like.
pub const EXPECTED_VERSION: &str = "expected a DNS-1035 label like `v1beta1`: at most 63 lowercase \
letters, digits and `-`, starting with a letter and ending with a letter or digit";
/// What a kind (or list kind) looks like.
pub const EXPECTED_KIND: &str = "expected a name like `CronTab`: at most 63 letters, digits and \
`-`, starting with a letter and ending with a letter or digit (lowercased, a DNS-1035 label)";
/// What a resource name (plural, singular, short name, category) looks like.
pub const EXPECTED_RESOURCE_NAME: &str = "expected a DNS-1035 label like `crontabs`: at most 63 \
lowercase letters, digits and `-`, starting with a letter and ending with a letter or digit";

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub fn is_dns1123_label(s: &str) -> bool {
    s.len() <= LABEL_MAX
        && s.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && label_tail(s)
}

/// Dot-separated DNS-1123 labels, at most 253 characters.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= SUBDOMAIN_MAX && s.split('.').all(is_dns1123_label)
}

/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub fn is_dns1035_label(s: &str) -> bool {
    s.len() <= LABEL_MAX && s.starts_with(|c: char| c.is_ascii_lowercase()) && label_tail(s)
}

/// Lowercase letters, digits and `-`, ending with a letter or digit.
fn label_tail(s: &str) -> bool {
    s.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// An API group: `""` (the core group) or a DNS-1123 subdomain.
pub fn check_group(group: &str) -> Result<(), &'static str> {
    if group.is_empty() || is_dns1123_subdomain(group) {
        Ok(())
    } else {
        Err(EXPECTED_GROUP)
    }
}

/// A CustomResourceDefinition's group: a DNS-1123 subdomain with at least one dot.
pub fn check_crd_group(group: &str) -> Result<(), &'static str> {
    if !is_dns1123_subdomain(group) {
        Err(EXPECTED_GROUP)
    } else if !group.contains('.') {
        Err(EXPECTED_CRD_GROUP)
    } else {
        Ok(())
    }
}

/// A version name: a DNS-1035 label.
pub fn check_version(version: &str) -> Result<(), &'static str> {
    if is_dns1035_label(version) {
        Ok(())
    } else {
        Err(EXPECTED_VERSION)
    }
}

/// A kind or list kind: non-empty, and a DNS-1035 label once lowercased (Kubernetes
/// lowercases with Unicode rules, as Rust's `to_lowercase` does).
pub fn check_kind(kind: &str) -> Result<(), &'static str> {
    if is_dns1035_label(&kind.to_lowercase()) {
        Ok(())
    } else {
        Err(EXPECTED_KIND)
    }
}

/// A plural, singular, short name or category: a DNS-1035 label.
pub fn check_resource_name(name: &str) -> Result<(), &'static str> {
    if is_dns1035_label(name) {
        Ok(())
    } else {
        Err(EXPECTED_RESOURCE_NAME)
    }
}

/// Kubernetes' version priority, from the CRD-schema core (`kubegen_crd_schema`), which
/// orders a CRD's versions with it.
pub use kubegen_crd_schema::compare_versions;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_dns1035_labels() {
        for ok in ["v1", "v1beta1", "v2alpha3", "fn", "self", "v1-2", "a"] {
            assert!(check_version(ok).is_ok(), "{ok}");
        }
        let long = format!("v{}", "1".repeat(63));
        for bad in [
            "v1.2", "v1 ", "V1", "1v", "v1-", "-v1", "", "v_1", "v1/2", "../x", &long,
        ] {
            assert!(check_version(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn kinds_may_have_mixed_case_and_dashes() {
        for ok in ["CronTab", "HTTPRoute", "a-b", "Self", "fn", "X"] {
            assert!(check_kind(ok).is_ok(), "{ok}");
        }
        for bad in [
            "Foo Bar", "1Foo", "Foo_Bar", "Foo-", "", "Foo.Bar", "Föö", "../Foo",
        ] {
            assert!(check_kind(bad).is_err(), "{bad:?}");
        }
        // U+212A KELVIN SIGN lowercases to `k`, so Kubernetes accepts it; so do we.
        assert!(check_kind("\u{212A}ind").is_ok());
    }

    #[test]
    fn groups_are_subdomains_and_crd_groups_have_a_dot() {
        assert!(check_group("").is_ok());
        assert!(check_group("apps").is_ok());
        assert!(check_group("rbac.authorization.k8s.io").is_ok());
        assert!(check_group("0day.io").is_ok());
        for bad in ["Apps", "a..b", ".a", "a.", "a_b.io", "a b.io", "../etc"] {
            assert!(check_group(bad).is_err(), "{bad:?}");
        }
        assert_eq!(check_crd_group("apps"), Err(EXPECTED_CRD_GROUP));
        assert_eq!(check_crd_group(""), Err(EXPECTED_GROUP));
        assert!(check_crd_group(&format!("{}.io", "a".repeat(250))).is_err());
    }

    #[test]
    fn resource_names_are_lowercase_labels() {
        assert!(check_resource_name("crontabs").is_ok());
        assert!(check_resource_name("cron-tabs").is_ok());
        for bad in ["CronTabs", "cron_tabs", "cron.tabs", "", "9tabs"] {
            assert!(check_resource_name(bad).is_err(), "{bad:?}");
        }
    }
}
