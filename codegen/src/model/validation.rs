//! What a field's schema says beyond its type: validations and Kubernetes' schema
//! extensions (`x-kubernetes-*`).
//!
//! Front-ends fill what their input says (a CRD's schema, `#[schemars(...)]` attributes);
//! the types emitter puts it into docs and the CRD emitter writes it back into schemas.

use serde_json::{Number, Value};

/// Validations and extensions of one schema node.
///
/// ```
/// use kubegen_codegen::__internal::model::{ListType, Validation};
///
/// let v = Validation { min_length: Some(1), list_type: Some(ListType::Set), ..Validation::default() };
/// assert!(!v.is_empty());
/// assert!(Validation::default().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Validation {
    /// `minimum`.
    pub minimum: Option<Number>,
    /// `maximum`.
    pub maximum: Option<Number>,
    /// `exclusiveMinimum: true`.
    pub exclusive_minimum: bool,
    /// `exclusiveMaximum: true`.
    pub exclusive_maximum: bool,
    /// `multipleOf`.
    pub multiple_of: Option<Number>,
    /// `minLength`.
    pub min_length: Option<u64>,
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `pattern` (an ECMA 262 regular expression).
    pub pattern: Option<String>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `enum` values of a node that is not a string enum type (numbers, mixed values).
    pub enum_values: Vec<Value>,
    /// `x-kubernetes-validations`: CEL rules.
    pub rules: Vec<ValidationRule>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys` (of a `map` list).
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// `x-kubernetes-embedded-resource: true`: the value is a whole object (apiVersion,
    /// kind, metadata).
    pub embedded_resource: bool,
}

impl Validation {
    /// Whether nothing is said.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// The count bounds by their schema keyword (`minLength` ... `maxProperties`), in
    /// the order schemas and docs list them.
    pub fn count_bounds(&self) -> [(&'static str, Option<u64>); 6] {
        [
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("minItems", self.min_items),
            ("maxItems", self.max_items),
            ("minProperties", self.min_properties),
            ("maxProperties", self.max_properties),
        ]
    }
}

/// One CEL rule of `x-kubernetes-validations`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidationRule {
    /// The CEL expression (`self.minReplicas <= self.replicas`).
    pub rule: String,
    /// The message shown when the rule fails.
    pub message: Option<String>,
    /// A CEL expression computing the message.
    pub message_expression: Option<String>,
    /// The reason reported (`FieldValueInvalid`, `FieldValueForbidden`...).
    pub reason: Option<String>,
    /// The path of the field the failure is reported on (`.spec.replicas`).
    pub field_path: Option<String>,
    /// Whether the rule also runs on creation, with `oldSelf` unset (`optionalOldSelf`).
    pub optional_old_self: Option<bool>,
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListType {
    /// `atomic`: the list is replaced as a whole by server-side apply.
    Atomic,
    /// `set`: scalar items, unique.
    Set,
    /// `map`: object items keyed by `x-kubernetes-list-map-keys`.
    Map,
}

impl ListType {
    /// The extension's value.
    pub fn as_str(self) -> &'static str {
        match self {
            ListType::Atomic => "atomic",
            ListType::Set => "set",
            ListType::Map => "map",
        }
    }

    /// Parses the extension's value.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "atomic" => Some(ListType::Atomic),
            "set" => Some(ListType::Set),
            "map" => Some(ListType::Map),
            _ => None,
        }
    }
}

/// `x-kubernetes-map-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MapType {
    /// `atomic`: the map is replaced as a whole by server-side apply.
    Atomic,
    /// `granular`: each key is owned separately.
    Granular,
}

impl MapType {
    /// The extension's value.
    pub fn as_str(self) -> &'static str {
        match self {
            MapType::Atomic => "atomic",
            MapType::Granular => "granular",
        }
    }

    /// Parses the extension's value.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "atomic" => Some(MapType::Atomic),
            "granular" => Some(MapType::Granular),
            _ => None,
        }
    }
}
