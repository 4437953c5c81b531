//! serde's `rename_all` rules, for reading hand-written types the way serde (and schemars)
//! name their fields and variants on the wire.

/// A `rename_all` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`.
    Lower,
    /// `UPPERCASE`.
    Upper,
    /// `PascalCase`.
    Pascal,
    /// `camelCase`.
    Camel,
    /// `snake_case`.
    Snake,
    /// `SCREAMING_SNAKE_CASE`.
    ScreamingSnake,
    /// `kebab-case`.
    Kebab,
    /// `SCREAMING-KEBAB-CASE`.
    ScreamingKebab,
}

/// The spellings serde accepts, for errors.
pub const RENAME_RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

impl RenameRule {
    /// The rule spelled `name` (as in `#[serde(rename_all = "camelCase")]`).
    ///
    /// ```
    /// use kubegen_codegen::__internal::naming::RenameRule;
    /// let rule = RenameRule::parse("camelCase").unwrap();
    /// assert_eq!(rule.field("deployment_name"), "deploymentName");
    /// assert_eq!(rule.variant("DoesNotExist"), "doesNotExist");
    /// assert_eq!(RenameRule::parse("kebab-case").unwrap().variant("NotIn"), "not-in");
    /// assert!(RenameRule::parse("camelcase").is_none());
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        let rule = match name {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        };
        Some(rule)
    }

    /// A field name (`snake_case` in Rust, raw identifiers without `r#`) on the wire.
    pub fn field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let camel = super::serde_camel_case(field);
                let mut chars = camel.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                    None => camel,
                }
            }
            RenameRule::Camel => super::serde_camel_case(field),
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.replace('_', "-").to_ascii_uppercase(),
        }
    }

    /// A variant name (`PascalCase` in Rust) on the wire.
    pub fn variant(self, variant: &str) -> String {
        let snake = || {
            let mut out = String::with_capacity(variant.len() + 4);
            for (i, ch) in variant.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    out.push('_');
                }
                out.push(ch.to_ascii_lowercase());
            }
            out
        };
        match self {
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => snake(),
            RenameRule::ScreamingSnake => snake().to_ascii_uppercase(),
            RenameRule::Kebab => snake().replace('_', "-"),
            RenameRule::ScreamingKebab => snake().replace('_', "-").to_ascii_uppercase(),
        }
    }
}
