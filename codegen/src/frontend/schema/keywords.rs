//! The keywords of a CRD schema, checked as it is read.
//!
//! A CRD's `openAPIV3Schema` is a `JSONSchemaProps` of `apiextensions.k8s.io/v1`, whose
//! fields are fixed: under strict field validation (kubectl's default since 1.27) the API
//! server rejects any other key, so a misspelt `propertes` is a mistake, not a map. Read
//! leniently, it silently turned a typed field into an untyped one.
//!
//! OpenAPI documents share [`Schema`](super::Schema) but are read leniently (they carry
//! keywords of their own, such as `x-kubernetes-group-version-kind`, and vendors'
//! extensions), so the check is a mode of the reading thread: [`checking`] turns it on
//! for what it runs, and `Schema`'s `Deserialize` then reads through [`Checked`], which
//! rejects an unknown key as serde's `unknown_field` while the key is being read. That is
//! where serde-saphyr places the error (the key's line and column), and the first unknown
//! key in the document is the one reported. A thread-local is the only way to tell a
//! derived `Deserialize` how to read nested schemas; it is set and restored around one
//! synchronous parse, on the thread that runs it.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// [`KEYWORDS`], and whether a key is one of them, from one list: a `match` on the key
/// (a binary search of the list cost about 9 M instructions more on the corpus).
macro_rules! keywords {
    ($($keyword:literal),* $(,)?) => {
        /// The fields of `JSONSchemaProps` (apiextensions.k8s.io/v1), sorted: what a CRD
        /// schema may say. Some of them a structural schema may not use (`$ref`,
        /// `definitions`...); those are known keys all the same, which the API server
        /// refuses for another reason.
        pub(crate) const KEYWORDS: &[&str] = &[$($keyword),*];

        /// Whether `key` is one of [`KEYWORDS`].
        fn is_keyword(key: &str) -> bool {
            matches!(key, $($keyword)|*)
        }
    };
}

keywords![
    "$ref",
    "$schema",
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "default",
    "definitions",
    "dependencies",
    "description",
    "enum",
    "example",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "externalDocs",
    "format",
    "id",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "nullable",
    "oneOf",
    "pattern",
    "patternProperties",
    "properties",
    "required",
    "title",
    "type",
    "uniqueItems",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
];

thread_local! {
    /// Whether schemas read on this thread have their keys checked.
    static CHECKING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the keys of every schema it deserializes checked against [`KEYWORDS`].
pub(crate) fn checking<R>(f: impl FnOnce() -> R) -> R {
    /// Puts the previous mode back, even when `f` panics.
    struct Restore(bool);

    impl Drop for Restore {
        fn drop(&mut self) {
            CHECKING.with(|c| c.set(self.0));
        }
    }

    let _restore = Restore(CHECKING.with(|c| c.replace(true)));
    f()
}

/// Whether schema keys are being checked on this thread.
pub(crate) fn is_checking() -> bool {
    CHECKING.with(Cell::get)
}

/// A deserializer whose maps yield only [`KEYWORDS`] as keys: any other key is an
/// `unknown_field` error, raised while the key is read.
pub(crate) struct Checked<D>(pub(crate) D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(CheckedVisitor(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_struct(name, fields, CheckedVisitor(visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The visitor of a [`Checked`] deserializer: hands the visitor it wraps a map whose keys
/// are checked. Values other than maps and sequences fall to `Visitor`'s defaults, the
/// same "invalid type" errors the wrapped (derived) visitor gives, as it has no others.
struct CheckedVisitor<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for CheckedVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(CheckedMap(map))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(seq)
    }
}

/// A map whose keys are read through [`Keyword`].
struct CheckedMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Keyword(seed))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.0.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// Reads a key, refuses it unless it is one of [`KEYWORDS`], then gives it to the seed of
/// the wrapped visitor (the derived field identifier). Borrowed keys stay borrowed.
struct Keyword<K>(K);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Keyword<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for Keyword<K> {
    type Value = K::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSONSchemaProps field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<K::Value, E> {
        check(key)?;
        self.0
            .deserialize(de::value::BorrowedStrDeserializer::new(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<K::Value, E> {
        check(key)?;
        self.0.deserialize(de::value::StrDeserializer::new(key))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<K::Value, E> {
        check(&key)?;
        self.0.deserialize(de::value::StringDeserializer::new(key))
    }
}

fn check<E: de::Error>(key: &str) -> Result<(), E> {
    if is_keyword(key) {
        Ok(())
    } else {
        Err(E::unknown_field(key, KEYWORDS))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::frontend::schema::Schema;

    #[test]
    fn keywords_are_sorted_and_each_is_one() {
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]), "{KEYWORDS:?}");
        assert!(KEYWORDS.iter().all(|k| is_keyword(k)));
        for other in ["", "Type", "propertes", "x-kubernetes", "typ", "types"] {
            assert!(!is_keyword(other), "{other}");
        }
    }

    /// A value of the right shape for `keyword` (as far as [`Schema`] reads it).
    ///
    /// [`Schema`]: crate::frontend::schema::Schema
    fn value_of(keyword: &str) -> &'static str {
        match keyword {
            "additionalItems"
            | "additionalProperties"
            | "exclusiveMaximum"
            | "exclusiveMinimum"
            | "nullable"
            | "uniqueItems" => "true",
            "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string"
            | "x-kubernetes-preserve-unknown-fields" => "true",
            "allOf"
            | "anyOf"
            | "oneOf"
            | "enum"
            | "required"
            | "x-kubernetes-list-map-keys"
            | "x-kubernetes-validations" => "[]",
            "definitions" | "dependencies" | "externalDocs" | "items" | "not"
            | "patternProperties" | "properties" => "{}",
            "maxItems" | "maxLength" | "maxProperties" | "maximum" | "minItems" | "minLength"
            | "minProperties" | "minimum" | "multipleOf" | "default" | "example" => "1",
            "x-kubernetes-list-type" | "x-kubernetes-map-type" => "atomic",
            "type" => "object",
            _ => "x",
        }
    }

    fn read(yaml: &str) -> Result<Schema, serde_saphyr::Error> {
        serde_saphyr::from_str(yaml)
    }

    #[test]
    fn every_keyword_is_read_when_checking() {
        let yaml: String = KEYWORDS
            .iter()
            .map(|k| format!("\"{k}\": {}\n", value_of(k)))
            .collect();
        let schema = checking(|| read(&yaml)).unwrap();
        assert_eq!(schema.type_.as_deref(), Some("object"));
    }

    #[test]
    fn unknown_keys_are_refused_at_any_depth_only_when_checking() {
        let yaml = "type: object\nproperties:\n  a:\n    items:\n      propertes: {}\n";
        let error = checking(|| read(yaml)).unwrap_err();
        let location = error.location().unwrap();
        assert_eq!((location.line(), location.column()), (5, 7), "{error}");
        assert!(error.to_string().contains("propertes"), "{error}");
        // OpenAPI documents' schemas are read leniently, keys of their own included.
        let lenient = read(yaml).unwrap();
        assert!(lenient.properties.unwrap().contains_key("a"));
        let openapi = "type: object\nx-kubernetes-group-version-kind: [{version: v1, kind: A}]\n";
        assert_eq!(read(openapi).unwrap().group_version_kinds.len(), 1);
        assert!(checking(|| read(openapi)).is_err());
    }

    #[test]
    fn the_mode_is_restored_after_a_panic() {
        assert!(!is_checking());
        let panicked = std::panic::catch_unwind(|| checking(|| panic!("inside")));
        assert!(panicked.is_err());
        assert!(!is_checking());
        assert!(checking(is_checking));
        assert!(checking(|| checking(|| true) && is_checking()));
    }
}
