//! All naming: casing, keyword escaping, sanitising, clash resolution, and Kubernetes' own
//! rules for API names.
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
//!   not depend on hash order);
//! - groups, versions and kinds get modules, accessors and client names (the `api` part:
//!   [`group_module`], [`version_module`], [`kind_accessor`], [`kind_type_base`]...), and
//!   docs spell them the way Kubernetes does ([`api_version`], [`describe_group`]);
//! - [`kubernetes`] holds the API server's rules for group, version, kind and resource
//!   names, which [`Model::validate`](crate::model::Model::validate) enforces;
//! - messages count things in English ([`counted`]: `1 file`, `2 files`);
//! - OpenAPI definition names map to k8s-openapi paths ([`k8s_openapi_path`]).
//!
//! ```
//! use kubegen_codegen::__internal::naming;
//!
//! assert_eq!(naming::field_name("type"), "type_");
//! assert_eq!(naming::field_name("x-forwarded-for"), "x_forwarded_for");
//! assert_eq!(naming::field_name("2xx"), "_2xx");
//! assert_eq!(naming::type_name(&["Certificate", "spec", "keystores", "jks"]), "CertificateSpecKeystoresJks");
//! assert_eq!(naming::variant_name("not-ready"), "NotReady");
//! assert_eq!(naming::variant_name("*"), "Star");
//! assert_eq!(naming::group_module("cert-manager.io"), "cert_manager_io");
//! assert_eq!(naming::version_module("fn"), "fn_");
//! ```

mod api;
mod conversion;
pub mod kubernetes;
mod openapi;
mod serde_case;

pub use api::{
    api_version, capitalized, counted, describe_group, group_module, group_short, kind_accessor,
    kind_module, kind_type_base, plural, version_module,
};
pub use conversion::{Direction, conversion_fn, conversion_trait};
pub use openapi::{definition_package, definition_short_name, k8s_openapi_path};
pub use serde_case::{RENAME_RULES, RenameRule};

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

/// Raw identifiers (`r#name`) cannot name these.
const NOT_RAW: &[&str] = &["crate", "self", "super", "Self", "_"];

/// Whether `s` can name a Rust item, field or module: a plain identifier that is not a
/// keyword, or a raw identifier (`r#type`, as hand-written structs may use).
///
/// ```
/// use kubegen_codegen::__internal::naming::is_identifier;
/// assert!(is_identifier("spec"));
/// assert!(is_identifier("r#type"));
/// assert!(!is_identifier("type"));
/// assert!(!is_identifier("9lives"));
/// assert!(!is_identifier("_"));
/// assert!(!is_identifier("r#self"));
/// ```
pub fn is_identifier(s: &str) -> bool {
    match s.strip_prefix("r#") {
        Some(raw) => is_word(raw) && !NOT_RAW.contains(&raw),
        None => is_word(s) && s != "_" && !KEYWORDS.contains(&s),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `s` is a path kubegen can name a type by: identifiers separated by `::`, with
/// an optional leading `::`, starting with `crate`, `self` or `super`s if relative.
///
/// ```
/// use kubegen_codegen::__internal::naming::is_type_path;
/// assert!(is_type_path("crate::apis::v1::Foo"));
/// assert!(is_type_path("::k8s_openapi::api::core::v1::Pod"));
/// assert!(is_type_path("super::super::Foo"));
/// assert!(is_type_path("Foo"));
/// assert!(!is_type_path("crate::apis::Foo Bar"));
/// assert!(!is_type_path("crate::"));
/// assert!(!is_type_path("a::crate::B"));
/// ```
pub fn is_type_path(s: &str) -> bool {
    let rest = s.strip_prefix("::").unwrap_or(s);
    let segments: Vec<&str> = rest.split("::").collect();
    let Some((last, init)) = segments.split_last() else {
        return false;
    };
    let leading = init
        .iter()
        .take_while(|seg| matches!(**seg, "crate" | "self" | "super"))
        .count();
    let relative_start_ok = init
        .iter()
        .take(leading)
        .enumerate()
        .all(|(i, seg)| *seg == "super" || i == 0);
    relative_start_ok
        && (leading == 0 || !s.starts_with("::"))
        && init[leading..].iter().all(|seg| is_identifier(seg))
        && is_identifier(last)
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
    type_name_cached(parts, &mut PartCache::default())
}

/// Each part of a type name as [`type_name`] spells it, for a builder that names many types
/// whose paths share parts (`spec`, `containers`, ...).
#[derive(Debug, Default)]
pub struct PartCache(std::collections::HashMap<String, String>);

/// [`type_name`], with each part's spelling looked up in, or added to, `cache`.
pub fn type_name_cached(parts: &[&str], cache: &mut PartCache) -> String {
    let mut name = String::new();
    for part in parts {
        match cache.0.get(*part) {
            Some(camel) => name.push_str(camel),
            None => {
                let camel = words(part).to_upper_camel_case();
                name.push_str(&camel);
                cache.0.insert((*part).to_owned(), camel);
            }
        }
    }
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

/// Hands out names unique within one scope, in claim order.
///
/// ```
/// use kubegen_codegen::__internal::naming::{field_name, UniqueNames};
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
            // `Self_` -> `Self2`, not `Self_2`: an underscore before a digit is not
            // UpperCamelCase (rustc's `non_camel_case_types` warns in users' crates).
            let stem = match base.trim_end_matches('_') {
                trimmed if self.separator.is_empty() && !trimmed.is_empty() => trimmed,
                _ => base.as_str(),
            };
            let separator = if stem.ends_with('_') {
                ""
            } else {
                self.separator
            };
            (2u32..)
                .map(|n| format!("{stem}{separator}{n}"))
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
/// use kubegen_codegen::__internal::naming::serde_camel_case;
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

/// The wire name of a root struct field named `rust_name` when
/// `#[resource(rename = "...")]` gives none, as the derive serializes it: lowerCamelCase,
/// a raw identifier's `r#` and leading underscores dropped, each other underscore starting
/// a word.
///
/// ```
/// use kubegen_codegen::__internal::naming::root_wire_name;
/// assert_eq!(root_wire_name("spec"), "spec");
/// assert_eq!(root_wire_name("extra_data_v2"), "extraDataV2");
/// assert_eq!(root_wire_name("_private"), "private");
/// assert_eq!(root_wire_name("r#type"), "type");
/// ```
pub fn root_wire_name(rust_name: &str) -> String {
    let snake = rust_name.trim_start_matches("r#");
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Names for `wires` (in the same order), unique within `names`.
///
/// Clashes are settled by preference, not by position: wire names that convert to
/// themselves (`type` -> `type_`, `Ready`) claim first, then lowerCamelCase ones
/// (`fooBar`), then other alphanumeric ones (`FooBar`), then the rest (`foo-bar`, `@type`); ties go in sorted order. So the
/// ordinary spelling keeps the ordinary name whatever else the schema contains.
///
/// ```
/// use kubegen_codegen::__internal::naming::{assign, field_name, UniqueNames};
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

        // Found by the random-schema property: enum values `Self` and `self` both make
        // `Self_`; the second must stay UpperCamelCase.
        let mut variants = UniqueNames::camel();
        assert_eq!(variants.claim(variant_name("Self")), "Self_");
        assert_eq!(variants.claim(variant_name("self")), "Self2");
    }
}
