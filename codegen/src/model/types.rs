//! The type model: named type definitions and references to types.

use std::fmt;

use super::validation::Validation;

/// A reference to a type, as a field or container element uses it.
///
/// Emitters turn each variant into one Rust type; nothing downstream parses type names
/// out of strings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TypeRef {
    /// `String`.
    String,
    /// `bool`.
    Bool,
    /// `i32` (`format: int32`).
    I32,
    /// `i64` (`type: integer` without format, or `format: int64`).
    I64,
    /// A JSON number (`type: number`). Emitted as `serde_json::Number`, which keeps the
    /// spelling (`100` stays `100`, not `100.0`) so a round trip changes nothing.
    F64,
    /// Base64 bytes (`format: byte`): `k8s_openapi::ByteString`.
    Bytes,
    /// An RFC 3339 timestamp (`format: date-time`): metav1 `Time`.
    DateTime,
    /// A resource quantity (`format: quantity`): `Quantity`.
    Quantity,
    /// `x-kubernetes-int-or-string`: `IntOrString`.
    IntOrString,
    /// Arbitrary JSON (`x-kubernetes-preserve-unknown-fields`, schemaless): `serde_json::Value`.
    Json,
    /// A list.
    Vec(Box<TypeRef>),
    /// A string-keyed map (`additionalProperties`): `BTreeMap<String, T>`.
    Map(Box<TypeRef>),
    /// A value that may be `null` (nullable list items and map values).
    Option(Box<TypeRef>),
    /// A heap indirection that breaks a recursive cycle.
    Boxed(Box<TypeRef>),
    /// A type defined in the same [`Version`](super::Version), by Rust name.
    Named(String),
    /// A type from another crate (k8s-openapi), by path.
    External(ExternalType),
}

impl TypeRef {
    /// `Vec<inner>`.
    pub fn vec(inner: TypeRef) -> Self {
        TypeRef::Vec(Box::new(inner))
    }

    /// `BTreeMap<String, inner>`.
    pub fn map(inner: TypeRef) -> Self {
        TypeRef::Map(Box::new(inner))
    }

    /// `Option<inner>`.
    pub fn option(inner: TypeRef) -> Self {
        TypeRef::Option(Box::new(inner))
    }

    /// Calls `f` on every named type this reference mentions.
    pub fn visit_named<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            TypeRef::Named(name) => f(name),
            TypeRef::Vec(inner)
            | TypeRef::Map(inner)
            | TypeRef::Option(inner)
            | TypeRef::Boxed(inner) => inner.visit_named(f),
            _ => {}
        }
    }

    /// The named types stored inline (without a `Vec`, map or `Box` between), which is what
    /// makes a recursive type infinitely sized.
    pub fn inline_named(&self) -> Option<&str> {
        match self {
            TypeRef::Named(name) => Some(name),
            TypeRef::Option(inner) => inner.inline_named(),
            _ => None,
        }
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeRef::String => f.write_str("String"),
            TypeRef::Bool => f.write_str("bool"),
            TypeRef::I32 => f.write_str("i32"),
            TypeRef::I64 => f.write_str("i64"),
            TypeRef::F64 => f.write_str("Number"),
            TypeRef::Bytes => f.write_str("ByteString"),
            TypeRef::DateTime => f.write_str("Time"),
            TypeRef::Quantity => f.write_str("Quantity"),
            TypeRef::IntOrString => f.write_str("IntOrString"),
            TypeRef::Json => f.write_str("Value"),
            TypeRef::Vec(inner) => write!(f, "Vec<{inner}>"),
            TypeRef::Map(inner) => write!(f, "BTreeMap<String, {inner}>"),
            TypeRef::Option(inner) => write!(f, "Option<{inner}>"),
            TypeRef::Boxed(inner) => write!(f, "Box<{inner}>"),
            TypeRef::Named(name) => f.write_str(name),
            TypeRef::External(ext) => f.write_str(ext.name()),
        }
    }
}

/// A type defined outside the generated code, named by its path from the crate root.
///
/// ```
/// use kubegen_codegen::__internal::model::ExternalType;
///
/// let meta = ExternalType::object_meta();
/// assert_eq!(meta.name(), "ObjectMeta");
/// assert!(meta.path.starts_with("k8s_openapi::"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExternalType {
    /// Path without the leading `::` (`k8s_openapi::api::core::v1::ObjectReference`).
    pub path: String,
    /// Whether the type implements `Default`.
    pub has_default: bool,
}

impl ExternalType {
    const META_V1: &'static str = "k8s_openapi::apimachinery::pkg::apis::meta::v1";

    /// A type from `path` (no leading `::`).
    pub fn new(path: impl Into<String>, has_default: bool) -> Self {
        Self {
            path: path.into(),
            has_default,
        }
    }

    /// The last path segment.
    pub fn name(&self) -> &str {
        self.path.rsplit("::").next().unwrap_or(&self.path)
    }

    /// metav1 `ObjectMeta`.
    pub fn object_meta() -> Self {
        Self::new(format!("{}::ObjectMeta", Self::META_V1), true)
    }

    /// metav1 `Condition`.
    pub fn condition() -> Self {
        Self::new(format!("{}::Condition", Self::META_V1), false)
    }

    /// metav1 `LabelSelector`.
    pub fn label_selector() -> Self {
        Self::new(format!("{}::LabelSelector", Self::META_V1), true)
    }

    /// core/v1 `ObjectReference`.
    pub fn object_reference() -> Self {
        Self::new("k8s_openapi::api::core::v1::ObjectReference", true)
    }
}

/// A named type definition.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    /// The Rust type name, unique within its [`Version`](super::Version).
    pub name: String,
    /// The Rust module (file) the type is emitted into.
    pub module: String,
    /// Documentation (the schema's description).
    pub docs: Option<String>,
    /// What the type is.
    pub kind: TypeDefKind,
}

/// The shape of a [`TypeDef`].
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDefKind {
    /// A struct with named fields.
    Struct(StructDef),
    /// An enum of string values.
    Enum(EnumDef),
    /// An untagged union of differently typed alternatives.
    Union(UnionDef),
}

/// A struct: an object schema with properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StructDef {
    /// Fields in wire-name order.
    pub fields: Vec<Field>,
    /// A flattened map catching properties not declared in `fields` (for schemas that
    /// preserve unknown fields or allow `additionalProperties` beside `properties`).
    pub additional: Option<Additional>,
    /// Whether this is the root type of a kind (gets `metadata: ObjectMeta` and the
    /// resource impls).
    pub root: Option<RootInfo>,
}

/// Extra properties of a struct, kept in a flattened map.
#[derive(Clone, Debug, PartialEq)]
pub struct Additional {
    /// The Rust field name of the map.
    pub rust_name: String,
    /// The type of each value.
    pub value: TypeRef,
}

/// Marks a struct as the root type of a kind.
#[derive(Clone, Debug, PartialEq)]
pub struct RootInfo {
    /// The kind name (key in [`Version::kinds`](super::Version::kinds)).
    pub kind: String,
}

/// A struct field.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The JSON property name.
    pub wire_name: String,
    /// The Rust field name (a valid, unique identifier; keywords end in `_`).
    pub rust_name: String,
    /// The field's type, without the `Option` that `required`/`nullable` imply.
    pub ty: TypeRef,
    /// Whether the schema lists the property in `required`.
    pub required: bool,
    /// Whether the schema says `nullable: true` (an explicit `null` is kept).
    pub nullable: bool,
    /// The schema's default value, if any.
    pub default: Option<serde_json::Value>,
    /// Documentation (the property's description).
    pub docs: Option<String>,
    /// Validations and `x-kubernetes-*` extensions of the property's schema.
    pub validation: Validation,
    /// The property's whole schema as written by hand, used as is instead of one built from
    /// `ty` (the Rust front-end's `#[schemars(schema_with = "f")]` where `f` returns a
    /// `json_schema!` literal).
    pub written_schema: Option<serde_json::Value>,
}

/// A string enum.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnumDef {
    /// Variants in schema order.
    pub variants: Vec<EnumVariant>,
}

/// One value of a string enum.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    /// The string on the wire.
    pub wire: String,
    /// The Rust variant name.
    pub rust_name: String,
}

/// An untagged union: the first alternative that deserializes wins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnionDef {
    /// Alternatives in the order they are tried.
    pub variants: Vec<UnionVariant>,
}

/// One alternative of a union.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionVariant {
    /// The Rust variant name.
    pub rust_name: String,
    /// The alternative's type.
    pub ty: TypeRef,
}
