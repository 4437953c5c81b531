//! All naming: casing, keyword escaping, sanitising and clash resolution.
//!
//! Every identifier kubegen emits comes from this module, so the rules live in one place:
//!
//! - fields are `snake_case`; Rust keywords get a trailing underscore (`type` -> `type_`, as
//!   k8s-openapi does), names starting with a digit get a leading underscore (`2xx` ->
//!   `_2xx`), characters that cannot appear in identifiers (`-`, `.`, `$`, `@`, `/`...) are
//!   word boundaries, and non-ASCII characters become `uXXXX` words;
//! - types and enum variants are `UpperCamelCase`; nested types are named from their path
//!   (`Certificate` + `spec` + `keystores` + `jks` -> `CertificateSpecKeystoresJks`);
//! - clashes after conversion are resolved by [`UniqueNames`], which appends `2`, `3`...
//!   in the order names are claimed (callers claim in sorted wire order, so the result does
//!   not depend on hash order).
//!
//! ```
//! use kubegen_codegen::naming;
//!
//! assert_eq!(naming::field_name("type"), "type_");
//! assert_eq!(naming::field_name("x-forwarded-for"), "x_forwarded_for");
//! assert_eq!(naming::field_name("2xx"), "_2xx");
//! assert_eq!(naming::type_name(&["Certificate", "spec", "keystores", "jks"]), "CertificateSpecKeystoresJks");
//! assert_eq!(naming::variant_name("not-ready"), "NotReady");
//! assert_eq!(naming::variant_name("*"), "Star");
//! assert_eq!(naming::group_module("cert-manager.io"), "cert_manager_io");
//! ```

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Rust keywords (strict and reserved, all editions) that cannot be plain identifiers.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names generated code refers to unqualified (prelude items and derive names); a
/// generated type with one of these names would shadow them, so it gets a suffix.
const RESERVED_TYPES: &[&str] = &[
    "Box",
    "Clone",
    "Debug",
    "Default",
    "Deserialize",
    "Err",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Self",
    "Serialize",
    "Some",
    "String",
    "Vec",
];

/// Whether `s` is a plain (non-raw) Rust identifier that is not a keyword.
///
/// ```
/// use kubegen_codegen::naming::is_identifier;
/// assert!(is_identifier("spec"));
/// assert!(!is_identifier("type"));
/// assert!(!is_identifier("9lives"));
/// assert!(!is_identifier("_"));
/// ```
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s != "_"
        && !KEYWORDS.contains(&s)
}

/// Replaces characters that cannot be part of an identifier by word boundaries, and
/// non-ASCII characters by `uXXXX` words, so casing functions see clean words.
fn words(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c.is_ascii() {
            out.push(' ');
        } else {
            out.push_str(&format!(" u{:04x} ", u32::from(c)));
        }
    }
    out
}

/// The Rust field name for a JSON property name (before clash resolution).
pub fn field_name(wire: &str) -> String {
    let snake = words(wire).to_snake_case();
    let name = if snake.is_empty() {
        "field".to_owned()
    } else if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{snake}")
    } else {
        snake
    };
    escape_keyword(name)
}

/// Appends `_` to keywords (`type` -> `type_`); other names are returned unchanged.
pub fn escape_keyword(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

/// An `UpperCamelCase` name made of `parts` (kind name, then property names along the path).
pub fn type_name(parts: &[&str]) -> String {
    let mut name: String = parts
        .iter()
        .map(|p| words(p).to_upper_camel_case())
        .collect();
    if name.is_empty() {
        name.push_str("Type");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    if RESERVED_TYPES.contains(&name.as_str()) {
        name.push_str("Type");
    }
    name
}

/// The variant name for a string enum value (before clash resolution).
///
/// Values without any letter or digit are spelled out (`""` -> `Empty`, `"*"` -> `Star`).
pub fn variant_name(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_owned();
    }
    if !value.chars().any(char::is_alphanumeric) {
        return value.chars().map(symbol_word).collect();
    }
    let name = words(value).to_upper_camel_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else if name == "Self" {
        "Self_".to_owned()
    } else {
        name
    }
}

fn symbol_word(c: char) -> String {
    let word = match c {
        '*' => "Star",
        '-' => "Minus",
        '+' => "Plus",
        '.' => "Dot",
        '/' => "Slash",
        '_' => "Underscore",
        '=' => "Equals",
        '!' => "Bang",
        '<' => "Less",
        '>' => "Greater",
        '@' => "At",
        '$' => "Dollar",
        '#' => "Hash",
        '%' => "Percent",
        '&' => "And",
        '|' => "Pipe",
        '~' => "Tilde",
        '?' => "Question",
        ':' => "Colon",
        ' ' => "Space",
        _ => return format!("U{:04x}", u32::from(c)),
    };
    word.to_owned()
}

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

/// The package of an OpenAPI definition name: everything before the last `.`
/// (`io.k8s.api.apps.v1.Deployment` -> `io.k8s.api.apps.v1`; `""` without a dot).
pub fn definition_package(definition: &str) -> &str {
    definition
        .rsplit_once('.')
        .map_or("", |(package, _)| package)
}

/// The short name of an OpenAPI definition name: after the last `.`
/// (`io.k8s.api.apps.v1.Deployment` -> `Deployment`).
pub fn definition_short_name(definition: &str) -> &str {
    definition
        .rsplit_once('.')
        .map_or(definition, |(_, short)| short)
}

/// The k8s-openapi type path (no leading `::`) for a Kubernetes OpenAPI definition name.
///
/// This is the one rule that maps the definitions of other packages to existing types:
/// k8s-openapi mirrors the Go package layout, so the path is the definition name without
/// its `io.k8s.` prefix, with `.` as `::` and `-` as `_`, under `k8s_openapi::`. Names
/// outside `io.k8s.` have no k8s-openapi type (`None`).
///
/// ```
/// use kubegen_codegen::naming::k8s_openapi_path;
///
/// assert_eq!(
///     k8s_openapi_path("io.k8s.api.core.v1.PodTemplateSpec").as_deref(),
///     Some("k8s_openapi::api::core::v1::PodTemplateSpec"),
/// );
/// assert_eq!(
///     k8s_openapi_path("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").as_deref(),
///     Some("k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta"),
/// );
/// assert_eq!(
///     k8s_openapi_path("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON").as_deref(),
///     Some("k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON"),
/// );
/// assert_eq!(k8s_openapi_path("com.example.v1.Widget"), None);
/// ```
pub fn k8s_openapi_path(definition: &str) -> Option<String> {
    let rest = definition.strip_prefix("io.k8s.")?;
    let mut path = String::from("k8s_openapi");
    for segment in rest.split('.') {
        if segment.is_empty() {
            return None;
        }
        path.push_str("::");
        path.push_str(&segment.replace('-', "_"));
    }
    Some(path)
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
/// use kubegen_codegen::naming::plural;
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
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        return lower + "es";
    }
    if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    lower + "s"
}

/// The accessor of a kind in generated clients, listers and informers: the plural of
/// the kind in `snake_case` (`NetworkPolicy` -> `network_policies`, `Endpoints` ->
/// `endpoints`), keywords escaped.
///
/// ```
/// use kubegen_codegen::naming::kind_accessor;
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
/// use kubegen_codegen::naming::group_short;
/// assert_eq!(group_short("samplecontroller.k8s.io"), "samplecontroller");
/// assert_eq!(group_short("cert-manager.io"), "cert_manager");
/// assert_eq!(group_short(""), "core");
/// ```
pub fn group_short(group: &str) -> String {
    group_module(group.split('.').next().unwrap_or(group))
}

/// Hands out names unique within one scope, in claim order.
///
/// ```
/// use kubegen_codegen::naming::{field_name, UniqueNames};
///
/// let mut fields = UniqueNames::snake();
/// assert_eq!(fields.claim(field_name("fooBar")), "foo_bar");
/// assert_eq!(fields.claim(field_name("foo-bar")), "foo_bar_2");
/// assert_eq!(fields.claim(field_name("type")), "type_");
/// assert_eq!(fields.claim(field_name("@type")), "type_2");
///
/// let mut types = UniqueNames::camel();
/// assert_eq!(types.claim("FooSpec".to_owned()), "FooSpec");
/// assert_eq!(types.claim("FooSpec".to_owned()), "FooSpec2");
/// ```
#[derive(Clone, Debug, Default)]
pub struct UniqueNames {
    used: BTreeSet<String>,
    separator: &'static str,
}

impl UniqueNames {
    /// A scope for `snake_case` names (suffixes `_2`, `_3`...).
    pub fn snake() -> Self {
        Self {
            used: BTreeSet::new(),
            separator: "_",
        }
    }

    /// A scope for `UpperCamelCase` names (suffixes `2`, `3`...).
    pub fn camel() -> Self {
        Self {
            used: BTreeSet::new(),
            separator: "",
        }
    }

    /// Marks `name` as taken without claiming it (names the emitter adds itself).
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_owned());
    }

    /// Returns `base` if free, otherwise `base` with the smallest free numeric suffix.
    pub fn claim(&mut self, base: String) -> String {
        let name = if self.used.contains(&base) {
            let separator = if base.ends_with('_') {
                ""
            } else {
                self.separator
            };
            (2u32..)
                .map(|n| format!("{base}{separator}{n}"))
                .find(|candidate| !self.used.contains(candidate))
                .unwrap_or_default()
        } else {
            base
        };
        self.used.insert(name.clone());
        name
    }
}

/// What `#[serde(rename_all = "camelCase")]` makes of a Rust field name (serde's exact
/// rule: `_` starts a new capitalised word, then the first letter is lowercased). The
/// emitter writes a per-field `rename` only where this differs from the wire name.
///
/// ```
/// use kubegen_codegen::naming::serde_camel_case;
/// assert_eq!(serde_camel_case("deployment_name"), "deploymentName");
/// assert_eq!(serde_camel_case("i_p_family"), "iPFamily");
/// assert_eq!(serde_camel_case("type_"), "type");
/// ```
pub fn serde_camel_case(field: &str) -> String {
    let mut pascal = String::with_capacity(field.len());
    let mut capitalize = true;
    for ch in field.chars() {
        if ch == '_' {
            capitalize = true;
        } else if capitalize {
            pascal.push(ch.to_ascii_uppercase());
            capitalize = false;
        } else {
            pascal.push(ch);
        }
    }
    match pascal.chars().next() {
        Some(first) => first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..],
        None => pascal,
    }
}

/// Names for `wires` (in the same order), unique within `names`.
///
/// Clashes are settled by preference, not by position: wire names that convert to
/// themselves (`type` -> `type_`, `Ready`) claim first, then lowerCamelCase ones
/// (`fooBar`), then other alphanumeric ones (`FooBar`), then the rest (`foo-bar`, `@type`); ties go in sorted order. So the
/// ordinary spelling keeps the ordinary name whatever else the schema contains.
///
/// ```
/// use kubegen_codegen::naming::{assign, field_name, UniqueNames};
///
/// let names = assign(&["@type", "foo-bar", "fooBar", "type"], field_name, &mut UniqueNames::snake());
/// assert_eq!(names, ["type_2", "foo_bar_2", "foo_bar", "type_"]);
/// ```
pub fn assign(wires: &[&str], convert: fn(&str) -> String, names: &mut UniqueNames) -> Vec<String> {
    let converted: Vec<String> = wires.iter().map(|w| convert(w)).collect();
    let preference = |i: usize| {
        let (wire, name) = (wires[i], &converted[i]);
        if name == wire || name.strip_suffix('_') == Some(wire) {
            0
        } else if wire.chars().all(|c| c.is_ascii_alphanumeric()) {
            // lowerCamelCase (the Kubernetes convention) before other spellings.
            if wire.starts_with(|c: char| c.is_ascii_lowercase()) {
                1
            } else {
                2
            }
        } else {
            3
        }
    };
    let mut order: Vec<usize> = (0..wires.len()).collect();
    order.sort_by(|&a, &b| (preference(a), wires[a]).cmp(&(preference(b), wires[b])));
    let mut out = vec![String::new(); wires.len()];
    for i in order {
        out[i] = names.claim(converted[i].clone());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fields_become_identifiers() {
        let cases = [
            ("apiVersion", "api_version"),
            ("type", "type_"),
            ("self", "self_"),
            ("$ref", "ref_"),
            ("@type", "type_"),
            ("x-kubernetes-foo", "x_kubernetes_foo"),
            ("ca.crt", "ca_crt"),
            ("a/b", "a_b"),
            ("2xx", "_2xx"),
            ("größe", "gr_u00f6_u00df_e"),
            ("", "field"),
            ("---", "field"),
            ("URLPath", "url_path"),
        ];
        for (wire, rust) in cases {
            assert_eq!(field_name(wire), rust, "field_name({wire:?})");
            assert!(is_identifier(rust), "{rust} is an identifier");
        }
    }

    #[test]
    fn variants_become_identifiers() {
        let cases = [
            ("Ready", "Ready"),
            ("not-ready", "NotReady"),
            ("", "Empty"),
            ("*", "Star"),
            ("-", "Minus"),
            ("1.0", "V10"),
            ("Self", "Self_"),
            ("ñ", "U00f1"),
            ("RSA", "Rsa"),
            ("<=", "LessEquals"),
        ];
        for (wire, rust) in cases {
            assert_eq!(variant_name(wire), rust, "variant_name({wire:?})");
            assert!(is_identifier(rust), "{rust} is an identifier");
        }
    }

    #[test]
    fn type_names_avoid_prelude_and_digits() {
        assert_eq!(type_name(&["Option"]), "OptionType");
        assert_eq!(type_name(&["Foo", "spec", "tls.crt"]), "FooSpecTlsCrt");
        assert_eq!(type_name(&["9"]), "T9");
        assert_eq!(type_name(&[]), "Type");
    }

    #[test]
    fn clashes_get_stable_suffixes() {
        let mut names = UniqueNames::snake();
        names.reserve("metadata");
        assert_eq!(names.claim("metadata".into()), "metadata_2");
        assert_eq!(names.claim("a".into()), "a");
        assert_eq!(names.claim("a".into()), "a_2");
        assert_eq!(names.claim("a".into()), "a_3");
        assert_eq!(names.claim("a_2".into()), "a_2_2");
        assert_eq!(names.claim("type_".into()), "type_");
        assert_eq!(names.claim("type_".into()), "type_2");
    }

    #[test]
    fn modules() {
        assert_eq!(group_module(""), "core");
        assert_eq!(
            group_module("source.toolkit.fluxcd.io"),
            "source_toolkit_fluxcd_io"
        );
        assert_eq!(group_module("0day.io"), "_0day_io");
        assert_eq!(version_module("v1beta2"), "v1beta2");
        assert_eq!(kind_module("HTTPRoute"), "http_route");
        assert_eq!(kind_module("Type"), "type_");
    }
}
