//! Schema defaults as typed values: a field's `default` (JSON) read against the field's
//! Rust type, so that the API server's structural defaulting can be emitted as typed Rust
//! (`with_defaults()` on generated types) and a default that is no value of its type is
//! an input error where the schema says it, as the API server rejects such a CRD.
//!
//! A default must be a value of its schema as written: objects carry every required
//! property and no unknown one (CRDs' defaults must be pruned), `null` only where the
//! schema is `nullable`, enums one of their values. Defaults are typed literals, except
//! for the values kubegen cannot spell as one: `format: byte` and `format: date-time`
//! strings, fractional numbers where the Rust type has no `Option` to hold them, unions,
//! and k8s-openapi types other than `{}` (Gateway API defaults `status.conditions` to a
//! list of `Condition`s). Those are [`DefaultValue::Deserialized`]: checked as far as the
//! model knows their shape, and deserialized at run time.
//!
//! ```
//! use kubegen_codegen::__internal::model::{DefaultValue, TypeRef, default_value};
//! use serde_json::json;
//!
//! let none = |_: &str| None;
//! let ports = TypeRef::vec(TypeRef::I32);
//! assert_eq!(
//!     default_value(&ports, &json!([80]), &none),
//!     Ok(DefaultValue::List(vec![DefaultValue::Int(80)])),
//! );
//! assert!(default_value(&TypeRef::I32, &json!("80"), &none).is_err());
//! ```

use serde_json::Value;

use super::types::{Field, StructDef, TypeDef, TypeDefKind, TypeRef};

/// A default value, typed by the Rust type it is built as.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    /// A `String`.
    String(String),
    /// A `bool`.
    Bool(bool),
    /// An `i32` or `i64`.
    Int(i64),
    /// A whole `serde_json::Number` (`type: number`).
    Number(i64),
    /// A fractional `serde_json::Number` already in its `Option` (`Number::from_f64`),
    /// which stands for `Some(number)`: only where the Rust type has that `Option`.
    SomeFraction(f64),
    /// A `Quantity`.
    Quantity(String),
    /// `IntOrString::Int`.
    IntOrStringInt(i32),
    /// `IntOrString::String`.
    IntOrStringString(String),
    /// A `serde_json::Value`.
    Json(Value),
    /// A `Vec`.
    List(Vec<DefaultValue>),
    /// A `BTreeMap<String, _>`, in key order.
    Map(Vec<(String, DefaultValue)>),
    /// `None`.
    None,
    /// `Some(_)`.
    Some(Box<DefaultValue>),
    /// `Box::new(_)`.
    Boxed(Box<DefaultValue>),
    /// A struct of the version: every field by Rust name, in declaration order, and the
    /// flattened map of extra properties when the struct has one.
    Struct {
        /// The type's Rust name.
        name: String,
        /// `(rust_name, value)` of every field.
        fields: Vec<(String, DefaultValue)>,
        /// `(rust_name, entries)` of the flattened map.
        additional: Option<(String, Vec<(String, DefaultValue)>)>,
    },
    /// A variant of a string enum of the version.
    Variant {
        /// The enum's Rust name.
        ty: String,
        /// The variant's Rust name.
        variant: String,
    },
    /// `Default::default()` of a k8s-openapi type (the default `{}`).
    ExternalDefault,
    /// A value kubegen cannot spell as a literal (see the module docs), to deserialize.
    Deserialized(Value),
}

/// How a field's presence shows in its Rust type (the emitted types' rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Required and not nullable: `T`, always there.
    Always,
    /// Required and nullable: `Option<T>`, `None` is `null`.
    NullableRequired,
    /// Optional: `Option<T>`, `None` is absent (a `null` reads as absent too).
    Optional,
    /// Optional JSON: `Option<Value>`, `None` is absent and `Some(Value::Null)` is `null`.
    OptionalJson,
    /// Optional and nullable: `Option<Option<T>>`, `None` absent, `Some(None)` `null`.
    OptionalNullable,
}

impl Presence {
    /// The presence of `field` in its emitted struct.
    pub fn of(field: &Field) -> Self {
        match (field.required, field.nullable, &field.ty) {
            (true, false, _) => Presence::Always,
            (true, true, _) => Presence::NullableRequired,
            (false, _, TypeRef::Json) => Presence::OptionalJson,
            (false, true, _) => Presence::OptionalNullable,
            (false, false, _) => Presence::Optional,
        }
    }
}

/// The typed value of `value` as a `ty`, with `lookup` finding the version's named types;
/// the error says what was expected where (`spec.ports[0].port: expected an integer`).
pub fn default_value<'a>(
    ty: &TypeRef,
    value: &Value,
    lookup: &dyn Fn(&str) -> Option<&'a TypeDef>,
) -> Result<DefaultValue, String> {
    Reader { lookup }.value(ty, value, &mut Vec::new())
}

/// The typed value a field takes when its `default` applies (absent, or `null` where the
/// field is not nullable): what the emitted code assigns to the field. `None` when the
/// field's Rust type never lacks a value (required fields).
pub fn field_default<'a>(
    field: &Field,
    value: &Value,
    lookup: &dyn Fn(&str) -> Option<&'a TypeDef>,
) -> Result<Option<DefaultValue>, String> {
    let reader = Reader { lookup };
    if value.is_null() {
        return Ok(None);
    }
    let inner = reader.value(&field.ty, value, &mut Vec::new())?;
    Ok(match Presence::of(field) {
        Presence::Always | Presence::NullableRequired => None,
        Presence::Optional | Presence::OptionalJson => Some(some(inner)),
        Presence::OptionalNullable => Some(some(some(inner))),
    })
}

/// `Some(value)`; a fraction stands for its `Option` already.
fn some(value: DefaultValue) -> DefaultValue {
    match value {
        DefaultValue::SomeFraction(_) => value,
        value => DefaultValue::Some(Box::new(value)),
    }
}

struct Reader<'l, 'a> {
    lookup: &'l dyn Fn(&str) -> Option<&'a TypeDef>,
}

impl<'a> Reader<'_, 'a> {
    fn value(
        &self,
        ty: &TypeRef,
        value: &Value,
        path: &mut Vec<String>,
    ) -> Result<DefaultValue, String> {
        let wrong = |expected: &str, path: &[String]| {
            Err(format!("{}expected {expected}, found {value}", at(path)))
        };
        Ok(match ty {
            TypeRef::String => match value {
                Value::String(s) => DefaultValue::String(s.clone()),
                _ => return wrong("a string", path),
            },
            TypeRef::Bool => match value {
                Value::Bool(b) => DefaultValue::Bool(*b),
                _ => return wrong("a boolean", path),
            },
            TypeRef::I32 => match value.as_i64().filter(|n| i32::try_from(*n).is_ok()) {
                Some(n) => DefaultValue::Int(n),
                None => return wrong("a 32-bit integer", path),
            },
            TypeRef::I64 => match value.as_i64() {
                Some(n) => DefaultValue::Int(n),
                None => return wrong("a 64-bit integer", path),
            },
            TypeRef::F64 => match (value.as_i64(), value.as_u64(), value.as_f64()) {
                (Some(n), _, _) => DefaultValue::Number(n),
                (None, None, Some(f)) => DefaultValue::SomeFraction(f),
                _ => {
                    return wrong(
                        "a number within the 64-bit integer range or a fraction",
                        path,
                    );
                }
            },
            TypeRef::Quantity => match value {
                Value::String(s) => DefaultValue::Quantity(s.clone()),
                _ => return wrong("a quantity string", path),
            },
            TypeRef::IntOrString => match value {
                Value::String(s) => DefaultValue::IntOrStringString(s.clone()),
                _ => match value.as_i64().and_then(|n| i32::try_from(n).ok()) {
                    Some(n) => DefaultValue::IntOrStringInt(n),
                    None => return wrong("a 32-bit integer or a string", path),
                },
            },
            TypeRef::Bytes | TypeRef::DateTime => match value {
                Value::String(_) => DefaultValue::Deserialized(value.clone()),
                _ => return wrong("a string", path),
            },
            TypeRef::Json => DefaultValue::Json(value.clone()),
            TypeRef::Vec(item) => match value {
                Value::Array(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for (i, v) in items.iter().enumerate() {
                        path.push(format!("[{i}]"));
                        out.push(self.bare(item, v, path)?);
                        path.pop();
                    }
                    DefaultValue::List(out)
                }
                _ => return wrong("a list", path),
            },
            TypeRef::Map(item) => match value {
                Value::Object(entries) => DefaultValue::Map(self.entries(item, entries, path)?),
                _ => return wrong("an object", path),
            },
            TypeRef::Option(inner) => match value {
                Value::Null => DefaultValue::None,
                _ => some(self.value(inner, value, path)?),
            },
            TypeRef::Boxed(inner) => DefaultValue::Boxed(Box::new(self.value(inner, value, path)?)),
            TypeRef::Named(name) => self.named(name, value, path)?,
            TypeRef::External(external) => match value {
                Value::Object(o) if o.is_empty() && external.has_default => {
                    DefaultValue::ExternalDefault
                }
                Value::Object(_) => DefaultValue::Deserialized(value.clone()),
                _ => return wrong("an object", path),
            },
        })
    }

    /// A value where the Rust type has no `Option` of its own (list items, map values,
    /// required fields): fractional numbers cannot be built there without a fallible call.
    fn bare(
        &self,
        ty: &TypeRef,
        value: &Value,
        path: &mut Vec<String>,
    ) -> Result<DefaultValue, String> {
        if *ty == TypeRef::F64 && value.is_f64() {
            return Ok(DefaultValue::Deserialized(value.clone()));
        }
        self.value(ty, value, path)
    }

    fn entries(
        &self,
        ty: &TypeRef,
        entries: &serde_json::Map<String, Value>,
        path: &mut Vec<String>,
    ) -> Result<Vec<(String, DefaultValue)>, String> {
        let mut out = Vec::with_capacity(entries.len());
        for (key, v) in entries {
            path.push(key.clone());
            out.push((key.clone(), self.bare(ty, v, path)?));
            path.pop();
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn named(
        &self,
        name: &str,
        value: &Value,
        path: &mut Vec<String>,
    ) -> Result<DefaultValue, String> {
        let Some(def) = (self.lookup)(name) else {
            return Err(format!("{}kubegen cannot find the type `{name}`", at(path)));
        };
        match &def.kind {
            TypeDefKind::Struct(s) if s.root.is_none() => self.structure(name, s, value, path),
            TypeDefKind::Enum(e) => {
                let variant = value
                    .as_str()
                    .and_then(|wire| e.variants.iter().find(|v| v.wire == wire));
                match variant {
                    Some(v) => Ok(DefaultValue::Variant {
                        ty: name.to_owned(),
                        variant: v.rust_name.clone(),
                    }),
                    None => {
                        let values: Vec<&str> =
                            e.variants.iter().map(|v| v.wire.as_str()).collect();
                        Err(format!(
                            "{}expected one of {}, found {value}",
                            at(path),
                            values.join(", ")
                        ))
                    }
                }
            }
            _ => Ok(DefaultValue::Deserialized(value.clone())),
        }
    }

    fn structure(
        &self,
        name: &str,
        s: &StructDef,
        value: &Value,
        path: &mut Vec<String>,
    ) -> Result<DefaultValue, String> {
        let Value::Object(object) = value else {
            return Err(format!("{}expected an object, found {value}", at(path)));
        };
        let mut fields = Vec::with_capacity(s.fields.len());
        for field in &s.fields {
            path.push(field.wire_name.clone());
            let presence = Presence::of(field);
            let v = match (object.get(&field.wire_name), presence) {
                (None, Presence::Always | Presence::NullableRequired) => {
                    return Err(format!(
                        "{}expected a value (the field is required)",
                        at(path)
                    ));
                }
                (None, _) => DefaultValue::None,
                (Some(Value::Null), Presence::NullableRequired | Presence::OptionalNullable) => {
                    if presence == Presence::OptionalNullable {
                        some(DefaultValue::None)
                    } else {
                        DefaultValue::None
                    }
                }
                (Some(Value::Null), Presence::OptionalJson) if field.nullable => {
                    some(DefaultValue::Json(Value::Null))
                }
                (Some(Value::Null), _) => {
                    return Err(format!(
                        "{}expected a value, found null (the field is not nullable)",
                        at(path)
                    ));
                }
                (Some(v), Presence::Always) => self.bare(&field.ty, v, path)?,
                (
                    Some(v),
                    Presence::NullableRequired | Presence::Optional | Presence::OptionalJson,
                ) => some(self.value(&field.ty, v, path)?),
                (Some(v), Presence::OptionalNullable) => {
                    some(some(self.value(&field.ty, v, path)?))
                }
            };
            path.pop();
            fields.push((field.rust_name.clone(), v));
        }
        let extra: serde_json::Map<String, Value> = object
            .iter()
            .filter(|(k, _)| !s.fields.iter().any(|f| &f.wire_name == *k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let additional = match &s.additional {
            Some(additional) => Some((
                additional.rust_name.clone(),
                self.entries(&additional.value, &extra, path)?,
            )),
            None => {
                if let Some(key) = extra.keys().next() {
                    return Err(format!(
                        "{}expected only declared properties, found `{key}` (defaults must be pruned)",
                        at(path)
                    ));
                }
                None
            }
        };
        Ok(DefaultValue::Struct {
            name: name.to_owned(),
            fields,
            additional,
        })
    }
}

/// `path: ` for an error inside a default value, or nothing at its top.
fn at(path: &[String]) -> String {
    if path.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for part in path {
        if !part.starts_with('[') && !out.is_empty() {
            out.push('.');
        }
        out.push_str(part);
    }
    format!("{out}: ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{EnumDef, EnumVariant, ExternalType, Validation};

    fn field(wire: &str, ty: TypeRef, required: bool, nullable: bool) -> Field {
        Field {
            wire_name: wire.to_owned(),
            rust_name: wire.to_owned(),
            ty,
            required,
            nullable,
            default: None,
            docs: None,
            validation: Validation::default(),
            written_schema: None,
        }
    }

    fn types() -> Vec<TypeDef> {
        vec![
            TypeDef {
                name: "Port".to_owned(),
                module: "m".to_owned(),
                docs: None,
                kind: TypeDefKind::Struct(StructDef {
                    fields: vec![
                        field("name", TypeRef::String, true, false),
                        field("port", TypeRef::I32, false, false),
                        field("note", TypeRef::String, false, true),
                        field("extra", TypeRef::Json, false, false),
                    ],
                    additional: None,
                    root: None,
                }),
            },
            TypeDef {
                name: "Mode".to_owned(),
                module: "m".to_owned(),
                docs: None,
                kind: TypeDefKind::Enum(EnumDef {
                    variants: vec![EnumVariant {
                        wire: "fast-ish".to_owned(),
                        rust_name: "FastIsh".to_owned(),
                    }],
                }),
            },
        ]
    }

    fn read(ty: &TypeRef, value: Value) -> Result<DefaultValue, String> {
        let types = types();
        default_value(ty, &value, &|name| types.iter().find(|t| t.name == name))
    }

    #[test]
    fn structs_take_every_field_with_its_presence() {
        let port = TypeRef::Named("Port".to_owned());
        assert_eq!(
            read(&port, json!({"name": "http", "note": null})).unwrap(),
            DefaultValue::Struct {
                name: "Port".to_owned(),
                fields: vec![
                    ("name".to_owned(), DefaultValue::String("http".to_owned())),
                    ("port".to_owned(), DefaultValue::None),
                    ("note".to_owned(), some(DefaultValue::None)),
                    ("extra".to_owned(), DefaultValue::None),
                ],
                additional: None,
            }
        );
    }

    #[test]
    fn values_that_do_not_fit_are_errors_with_their_path() {
        let ports = TypeRef::vec(TypeRef::Named("Port".to_owned()));
        let cases = [
            (
                json!([{"port": 1}]),
                "[0].name: expected a value (the field is required)",
            ),
            (
                json!([{"name": "a", "port": "x"}]),
                "[0].port: expected a 32-bit integer, found \"x\"",
            ),
            (
                json!([{"name": "a", "port": null}]),
                "[0].port: expected a value, found null",
            ),
            (
                json!([{"name": "a", "bogus": 1}]),
                "[0]: expected only declared properties, found `bogus`",
            ),
            (json!({}), "expected a list, found {}"),
        ];
        for (value, expected) in cases {
            let error = read(&ports, value).unwrap_err();
            assert!(error.starts_with(expected), "{error}");
        }
        assert!(read(&TypeRef::I32, json!(1_i64 << 40)).is_err());
        assert!(
            read(&TypeRef::Named("Mode".to_owned()), json!("slow"))
                .unwrap_err()
                .contains("one of fast-ish")
        );
        assert!(read(&TypeRef::DateTime, json!(1)).is_err());
    }

    #[test]
    fn scalars_enums_and_wrappers() {
        assert_eq!(
            read(&TypeRef::Named("Mode".to_owned()), json!("fast-ish")).unwrap(),
            DefaultValue::Variant {
                ty: "Mode".to_owned(),
                variant: "FastIsh".to_owned()
            }
        );
        assert_eq!(
            read(&TypeRef::IntOrString, json!(8)).unwrap(),
            DefaultValue::IntOrStringInt(8)
        );
        assert_eq!(
            read(
                &TypeRef::map(TypeRef::option(TypeRef::Bool)),
                json!({"b": true, "a": null})
            )
            .unwrap(),
            DefaultValue::Map(vec![
                ("a".to_owned(), DefaultValue::None),
                ("b".to_owned(), some(DefaultValue::Bool(true))),
            ])
        );
        let meta = TypeRef::External(ExternalType::object_meta());
        assert_eq!(
            read(&meta, json!({})).unwrap(),
            DefaultValue::ExternalDefault
        );
        assert!(read(&meta, json!("x")).is_err());
    }

    #[test]
    fn values_without_a_literal_are_deserialized() {
        let time = json!("1970-01-01T00:00:00Z");
        assert_eq!(
            read(&TypeRef::DateTime, time.clone()).unwrap(),
            DefaultValue::Deserialized(time)
        );
        let fractions = read(&TypeRef::vec(TypeRef::F64), json!([1, 1.5])).unwrap();
        assert_eq!(
            fractions,
            DefaultValue::List(vec![
                DefaultValue::Number(1),
                DefaultValue::Deserialized(json!(1.5))
            ])
        );
        let conditions = TypeRef::vec(TypeRef::External(ExternalType::condition()));
        let condition = json!({"type": "Ready", "status": "Unknown"});
        assert_eq!(
            read(&conditions, json!([condition])).unwrap(),
            DefaultValue::List(vec![DefaultValue::Deserialized(condition)])
        );
        assert_eq!(
            read(&TypeRef::F64, json!(0.5)).unwrap(),
            DefaultValue::SomeFraction(0.5)
        );
    }

    #[test]
    fn a_field_default_fills_the_fields_option() {
        let types = types();
        let lookup = |name: &str| types.iter().find(|t| t.name == name);
        let optional = field("port", TypeRef::I32, false, false);
        assert_eq!(
            field_default(&optional, &json!(80), &lookup).unwrap(),
            Some(some(DefaultValue::Int(80)))
        );
        let nullable = field("note", TypeRef::String, false, true);
        assert_eq!(
            field_default(&nullable, &json!("n"), &lookup).unwrap(),
            Some(some(some(DefaultValue::String("n".to_owned()))))
        );
        let required = field("name", TypeRef::String, true, false);
        assert_eq!(
            field_default(&required, &json!("n"), &lookup).unwrap(),
            None
        );
        let error = field_default(&optional, &json!(true), &lookup).unwrap_err();
        assert_eq!(error, "expected a 32-bit integer, found true");
    }
}
