//! Names of the API surface in Rust: modules for groups, versions and kinds, accessors,
//! the names generated clients give kinds, and how docs spell a group and version.

use super::{escape_keyword, field_name, type_name};

/// The Rust module for an API group: lowercase, non-alphanumerics as `_`, `core` for `""`.
pub fn group_module(group: &str) -> String {
    if group.is_empty() {
        return "core".to_owned();
    }
    module_from(group)
}

/// The Rust module for an API version (`v1beta2`).
pub fn version_module(version: &str) -> String {
    module_from(version)
}

/// The Rust module (file name) for a kind: `ClusterIssuer` -> `cluster_issuer`.
pub fn kind_module(kind: &str) -> String {
    field_name(kind)
}

fn module_from(raw: &str) -> String {
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    escape_keyword(name)
}

/// The resource (plural) name of a kind, the way Kubernetes' code generators spell it:
/// lowercased, then `es` after `s`, `x`, `z`, `ch` and `sh`, `ies` for a consonant + `y`,
/// else `s`.
///
/// ```
/// use kubegen_codegen::__internal::naming::plural;
/// assert_eq!(plural("Foo"), "foos");
/// assert_eq!(plural("Ingress"), "ingresses");
/// assert_eq!(plural("NetworkPolicy"), "networkpolicies");
/// assert_eq!(plural("Gateway"), "gateways");
/// assert_eq!(plural("Endpoints"), "endpoints");
/// ```
pub fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower == "endpoints" {
        return lower;
    }
    english_plural(lower)
}

/// `word` with the plural ending of [`plural`], its case kept.
fn english_plural(word: String) -> String {
    let lower = word.to_ascii_lowercase();
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        return word + "es";
    }
    if let Some(stem) = word.strip_suffix(['y', 'Y'])
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U'])
    {
        return format!("{stem}ies");
    }
    word + "s"
}

/// `count` and `noun`, the noun in the plural unless there is one: what messages say
/// (`1 file`, `2 files`, `0 directories`).
///
/// ```
/// use kubegen_codegen::__internal::naming::counted;
/// assert_eq!(counted(1, "file"), "1 file");
/// assert_eq!(counted(0, "file"), "0 files");
/// assert_eq!(counted(3, "CustomResourceDefinition"), "3 CustomResourceDefinitions");
/// assert_eq!(counted(2, "directory"), "2 directories");
/// ```
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {}", english_plural(noun.to_owned()))
    }
}

/// The accessor of a kind in generated clients, listers and informers: the plural of
/// the kind in `snake_case` (`NetworkPolicy` -> `network_policies`, `Endpoints` ->
/// `endpoints`), keywords escaped.
///
/// ```
/// use kubegen_codegen::__internal::naming::kind_accessor;
/// assert_eq!(kind_accessor("Foo"), "foos");
/// assert_eq!(kind_accessor("NetworkPolicy"), "network_policies");
/// assert_eq!(kind_accessor("Ingress"), "ingresses");
/// assert_eq!(kind_accessor("Endpoints"), "endpoints");
/// ```
pub fn kind_accessor(kind: &str) -> String {
    let snake = field_name(kind);
    let snake = snake.trim_end_matches('_');
    let (stem, last) = match snake.rsplit_once('_') {
        Some((stem, last)) => (format!("{stem}_"), last),
        None => (String::new(), snake),
    };
    escape_keyword(format!("{stem}{}", plural(last)))
}

/// The short name of an API group in generated accessors: its first DNS label
/// (`samplecontroller.k8s.io` -> `samplecontroller`, `""` -> `core`), as client-go names
/// `SamplecontrollerV1alpha1()`. Callers fall back to [`group_module`] when two groups
/// share a first label.
///
/// ```
/// use kubegen_codegen::__internal::naming::group_short;
/// assert_eq!(group_short("samplecontroller.k8s.io"), "samplecontroller");
/// assert_eq!(group_short("cert-manager.io"), "cert_manager");
/// assert_eq!(group_short(""), "core");
/// ```
pub fn group_short(group: &str) -> String {
    group_module(group.split('.').next().unwrap_or(group))
}

/// The base of the names generated clients give a kind (`FooClient`, `FooLister`,
/// `FooInformer`): the kind itself when it is an ASCII identifier (`CSIDriver` stays
/// `CSIDriver`, as client-go spells it), otherwise its [`type_name`] (`a-b` -> `AB`).
/// Callers make the result unique within a version.
///
/// ```
/// use kubegen_codegen::__internal::naming::kind_type_base;
/// assert_eq!(kind_type_base("CSIDriver"), "CSIDriver");
/// assert_eq!(kind_type_base("a-b"), "AB");
/// assert_eq!(kind_type_base("Self"), "Self");
/// ```
pub fn kind_type_base(kind: &str) -> String {
    let plain = kind.starts_with(|c: char| c.is_ascii_alphabetic())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if plain {
        kind.to_owned()
    } else {
        type_name(&[kind])
    }
}

/// The `apiVersion` of a group's version as Kubernetes spells it: `apps/v1`, and just
/// `v1` for the core group.
///
/// ```
/// use kubegen_codegen::__internal::naming::api_version;
/// assert_eq!(api_version("apps", "v1"), "apps/v1");
/// assert_eq!(api_version("", "v1"), "v1");
/// ```
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// How generated docs name an API group in the middle of a sentence: ``API group `apps` ``,
/// or `the core API group` for `""` (which has no name to quote).
///
/// ```
/// use kubegen_codegen::__internal::naming::describe_group;
/// assert_eq!(describe_group("apps"), "API group `apps`");
/// assert_eq!(describe_group(""), "the core API group");
/// ```
pub fn describe_group(group: &str) -> String {
    if group.is_empty() {
        "the core API group".to_owned()
    } else {
        format!("API group `{group}`")
    }
}

/// `text` with its first letter capitalised, for a description that starts a sentence.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_identifiers_even_for_keywords() {
        assert_eq!(group_module(""), "core");
        assert_eq!(
            group_module("source.toolkit.fluxcd.io"),
            "source_toolkit_fluxcd_io"
        );
        assert_eq!(group_module("0day.io"), "_0day_io");
        assert_eq!(version_module("v1beta2"), "v1beta2");
        assert_eq!(version_module("fn"), "fn_");
        assert_eq!(version_module("v1-alpha"), "v1_alpha");
        assert_eq!(kind_module("HTTPRoute"), "http_route");
        assert_eq!(kind_module("Type"), "type_");
    }

    #[test]
    fn accessors_and_client_names() {
        assert_eq!(kind_accessor("a-b"), "a_bs");
        assert_eq!(kind_accessor("Self"), "selfs");
        assert_eq!(kind_type_base("1x"), "T1x");
        assert_eq!(capitalized("the core API group"), "The core API group");
        assert_eq!(capitalized(""), "");
    }
}
