//! A structural OpenAPI v3 schema node (`JSONSchemaProps`), the parts that shape types,
//! deserialized straight from YAML or JSON so that shape errors carry line and column.
//! Keys it does not read are skipped, or refused where [`keywords::checking`] says (CRD
//! schemas).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

use super::keywords;

/// A structural OpenAPI v3 schema node (`JSONSchemaProps`), the parts that shape types.
///
/// The derived reader is `Schema::deserialize` (`remote = "Self"`); the `Deserialize`
/// impl below wraps it, checking keys when [`keywords::checking`] is on.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub(crate) struct Schema {
    #[serde(rename = "type")]
    pub(crate) type_: Option<String>,
    pub(crate) format: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) properties: Option<BTreeMap<String, Spanned<Schema>>>,
    #[serde(default)]
    pub(crate) required: Vec<String>,
    pub(crate) items: Option<Box<Spanned<Schema>>>,
    pub(crate) additional_properties: Option<AdditionalProperties>,
    #[serde(rename = "enum")]
    pub(crate) enum_: Option<Vec<serde_json::Value>>,
    /// `default`, with where it was written (a default that is no value of its type is an
    /// error there).
    pub(crate) default: Option<Spanned<serde_json::Value>>,
    #[serde(default)]
    pub(crate) nullable: bool,
    #[serde(default)]
    pub(crate) one_of: Vec<Schema>,
    #[serde(default)]
    pub(crate) any_of: Vec<Schema>,
    #[serde(default)]
    pub(crate) all_of: Vec<Schema>,
    #[serde(default, rename = "x-kubernetes-int-or-string")]
    pub(crate) int_or_string: bool,
    #[serde(default, rename = "x-kubernetes-preserve-unknown-fields")]
    pub(crate) preserve_unknown_fields: bool,
    #[serde(default, rename = "x-kubernetes-embedded-resource")]
    pub(crate) embedded_resource: bool,
    /// `$ref` (OpenAPI documents only; CRD schemas are self-contained).
    #[serde(rename = "$ref")]
    pub(crate) reference: Option<String>,
    /// `x-kubernetes-group-version-kind` of an OpenAPI definition.
    #[serde(default, rename = "x-kubernetes-group-version-kind")]
    pub(crate) group_version_kinds: Vec<GroupVersionKind>,
    /// `x-kubernetes-list-type` (`atomic`, `set`, `map`).
    #[serde(rename = "x-kubernetes-list-type")]
    pub(crate) list_type: Option<String>,
    /// `x-kubernetes-list-map-keys` of a `map` list.
    #[serde(default, rename = "x-kubernetes-list-map-keys")]
    pub(crate) list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type` (`atomic`, `granular`).
    #[serde(rename = "x-kubernetes-map-type")]
    pub(crate) map_type: Option<String>,
    /// `x-kubernetes-patch-strategy` (`merge`, `retainKeys`...) of an OpenAPI property:
    /// how a strategic merge patch treats the field.
    #[serde(rename = "x-kubernetes-patch-strategy")]
    pub(crate) patch_strategy: Option<String>,
    /// `x-kubernetes-patch-merge-key` of an OpenAPI list property merged by key.
    #[serde(rename = "x-kubernetes-patch-merge-key")]
    pub(crate) patch_merge_key: Option<String>,
    /// `x-kubernetes-validations` (CEL rules), as written.
    #[serde(default, rename = "x-kubernetes-validations")]
    pub(crate) rules: Option<serde_json::Value>,
    pub(crate) minimum: Option<serde_json::Number>,
    pub(crate) maximum: Option<serde_json::Number>,
    #[serde(default)]
    pub(crate) exclusive_minimum: bool,
    #[serde(default)]
    pub(crate) exclusive_maximum: bool,
    pub(crate) multiple_of: Option<serde_json::Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<String>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    #[serde(default)]
    pub(crate) unique_items: bool,
    pub(crate) min_properties: Option<u64>,
    pub(crate) max_properties: Option<u64>,
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `Schema::deserialize` is the derived reader (an inherent function).
        if keywords::is_checking() {
            Schema::deserialize(keywords::Checked(deserializer))
        } else {
            Schema::deserialize(deserializer)
        }
    }
}

/// One entry of `x-kubernetes-group-version-kind` (`group` is `""` for the core group).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct GroupVersionKind {
    #[serde(default)]
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) kind: String,
}

/// `additionalProperties`: a boolean or a schema for the values.
#[derive(Clone, Debug)]
pub(crate) enum AdditionalProperties {
    Allowed(bool),
    Schema(Box<Schema>),
}

impl<'de> Deserialize<'de> for AdditionalProperties {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BoolOrSchema;

        impl<'de> Visitor<'de> for BoolOrSchema {
            type Value = AdditionalProperties;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean or a schema")
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(AdditionalProperties::Allowed(v))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                // Through the `Deserialize` impl, which checks keys when asked to.
                <Schema as Deserialize>::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| AdditionalProperties::Schema(Box::new(s)))
            }
        }

        deserializer.deserialize_any(BoolOrSchema)
    }
}

impl Schema {
    /// The node's validations and `x-kubernetes-*` extensions, or the first one whose value
    /// has the wrong shape.
    pub(crate) fn validation(&self) -> Result<crate::model::Validation, String> {
        use serde_json::Value;
        let mut v = crate::model::Validation {
            minimum: self.minimum.clone(),
            maximum: self.maximum.clone(),
            exclusive_minimum: self.exclusive_minimum,
            exclusive_maximum: self.exclusive_maximum,
            multiple_of: self.multiple_of.clone(),
            min_length: self.min_length,
            max_length: self.max_length,
            pattern: self.pattern.clone(),
            min_items: self.min_items,
            max_items: self.max_items,
            unique_items: self.unique_items,
            min_properties: self.min_properties,
            max_properties: self.max_properties,
            embedded_resource: self.embedded_resource,
            ..Default::default()
        };
        let read = super::validation::read_one;
        if let Some(rules) = &self.rules {
            read("x-kubernetes-validations", rules, &mut v)?;
        }
        if let Some(list_type) = &self.list_type {
            read(
                "x-kubernetes-list-type",
                &Value::String(list_type.clone()),
                &mut v,
            )?;
        }
        if !self.list_map_keys.is_empty() {
            v.list_map_keys = self.list_map_keys.clone();
        }
        if let Some(map_type) = &self.map_type {
            read(
                "x-kubernetes-map-type",
                &Value::String(map_type.clone()),
                &mut v,
            )?;
        }
        Ok(v)
    }

    /// Whether the node says nothing about its type (no type, properties, items or maps).
    pub(crate) fn is_untyped(&self) -> bool {
        self.type_.is_none()
            && self.reference.is_none()
            && self.properties.is_none()
            && self.items.is_none()
            && self.additional_properties.is_none()
    }
}

impl Schema {
    /// The keys of a schema node that [`Schema`] reads, as its derived reader names them:
    /// what a pruned copy of an OpenAPI document must keep for code generation to read the
    /// same schemas (`kubegen kubernetes-inputs`). Taken from the reader itself, so the list
    /// cannot drift from the struct.
    pub(crate) fn keys() -> &'static [&'static str] {
        struct Keys(Option<&'static [&'static str]>);

        /// A deserializer that answers every request with an error, after recording the
        /// field names a struct reader passes to `deserialize_struct`.
        struct Capture<'k>(&'k mut Keys);

        impl<'de> Deserializer<'de> for Capture<'_> {
            type Error = de::value::Error;

            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(de::Error::custom("only the field names are read"))
            }

            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _name: &'static str,
                fields: &'static [&'static str],
                _visitor: V,
            ) -> Result<V::Value, Self::Error> {
                self.0.0 = Some(fields);
                Err(de::Error::custom("only the field names are read"))
            }

            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }

        let mut keys = Keys(None);
        // The derived reader (`remote = "Self"`) asks for a struct with its field names.
        let _ = Schema::deserialize(Capture(&mut keys));
        keys.0.unwrap_or_default()
    }
}

#[cfg(test)]
mod keys_tests {
    use super::Schema;

    #[test]
    fn keys_are_the_wire_names_the_reader_reads() {
        let keys = Schema::keys();
        for key in [
            "type",
            "description",
            "properties",
            "items",
            "additionalProperties",
            "allOf",
            "$ref",
            "x-kubernetes-group-version-kind",
            "x-kubernetes-patch-merge-key",
            "minProperties",
        ] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        assert!(!keys.contains(&"type_"), "Rust names are not wire names");
        assert!(
            !keys.contains(&"example"),
            "keys Schema skips are not listed"
        );
    }
}
