//! A structural OpenAPI v3 schema node (`JSONSchemaProps`), the parts that shape types,
//! deserialized straight from YAML or JSON so that shape errors carry line and column.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_saphyr::Spanned;

/// A structural OpenAPI v3 schema node (`JSONSchemaProps`), the parts that shape types.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
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
    pub(crate) default: Option<serde_json::Value>,
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
                Schema::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| AdditionalProperties::Schema(Box::new(s)))
            }
        }

        deserializer.deserialize_any(BoolOrSchema)
    }
}

impl Schema {
    /// Whether the node says nothing about its type (no type, properties, items or maps).
    pub(crate) fn is_untyped(&self) -> bool {
        self.type_.is_none()
            && self.reference.is_none()
            && self.properties.is_none()
            && self.items.is_none()
            && self.additional_properties.is_none()
    }
}
