//! Model types -> structural OpenAPI v3 schema nodes: what the CRD emitter writes into a
//! manifest, and what the annotated emitter compares with what the Rust front-end reads
//! back from its attributes.
//!
//! - the root object: `apiVersion` and `kind` strings, `metadata` as `type: object` (the
//!   API server owns its schema), then the root's fields (an optional root field is absent
//!   from `required`, not `nullable`), the root's docs and the kind's own validations;
//! - a field: its type's schema, with the field's docs as description (else the type's),
//!   `nullable` when the model says so (a nullable enum lists `null` among its values, as
//!   the API server needs to accept it), its default and validations; a schema written by
//!   hand replaces the type's;
//! - `String`, `bool`, `i32` (`int32`), `i64` (`int64`), numbers, bytes (`byte`),
//!   timestamps (`date-time`), `IntOrString` (`x-kubernetes-int-or-string`), JSON
//!   (`x-kubernetes-preserve-unknown-fields`), lists (`items`), maps
//!   (`additionalProperties`; a map of JSON values keeps unknown fields), structs (`properties`, `required` in field order; a
//!   flattened map of extra fields preserves unknown fields), string enums (`enum`).
//!
//! Named types are inlined (CRD schemas have no `$ref`), so a type that contains itself
//! is an error. External types (numbers besides `i32` and `i64`, and k8s-openapi types:
//! those the Rust front-end reads, and the shapes the CRD front-end recognises) get the
//! schema `crd()` writes for them, from the well-known table ([`crate::wellknown`]); an
//! external type the table does not have is an error. The root's `metadata` is
//! `type: object` (the API server owns its schema).

pub(crate) mod validation;

use serde_json::{Map, Value, json};

use crate::model::{Field, HandWritten, Resource, RootType, TypeDef, TypeDefKind, TypeRef};
use crate::wellknown::Table;

const PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";

/// The schema of `resource`'s root object, or why there is none.
pub(crate) fn root(resource: &Resource<'_>) -> Result<Value, String> {
    let types = match &resource.kind.root {
        RootType::HandWritten(HandWritten { types, .. }) => types.as_slice(),
        _ => resource.version.types.as_slice(),
    };
    let mut lookup = Lookup {
        types,
        stack: Vec::new(),
    };
    let mut properties = Map::new();
    properties.insert("apiVersion".into(), json!({ "type": "string" }));
    properties.insert("kind".into(), json!({ "type": "string" }));
    properties.insert("metadata".into(), json!({ "type": "object" }));
    let mut required = Vec::new();
    for field in &resource.fields.fields {
        if field.wire_name == "metadata" {
            continue;
        }
        let mut schema = lookup.field(field)?;
        if matches!(resource.kind.root, RootType::HandWritten(_)) {
            // `crd()` describes a root field by its type alone.
            if let Value::Object(map) = &mut schema {
                map.remove("nullable");
            }
        }
        properties.insert(field.wire_name.clone(), schema);
        if field.required {
            required.push(Value::String(field.wire_name.clone()));
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    if let Some(docs) = &resource.root.docs {
        root.insert("description".into(), docs.clone().into());
    }
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    if resource.fields.additional.is_some() {
        root.insert(PRESERVE.into(), Value::Bool(true));
    }
    validation::write(&resource.kind.validation, &mut root);
    Ok(Value::Object(root))
}

/// The schema of a value of type `ty`, whose named types are among `types` (a version's
/// types): what [`root`] writes for a field of that type before the field's own docs,
/// `nullable`, default and validations.
pub(crate) fn type_schema(types: &[TypeDef], ty: &TypeRef) -> Result<Value, String> {
    Lookup {
        types,
        stack: Vec::new(),
    }
    .type_schema(ty)
}

struct Lookup<'t> {
    /// The named types fields may use.
    types: &'t [TypeDef],
    /// Named types being inlined, to refuse a type that contains itself.
    stack: Vec<String>,
}

impl Lookup<'_> {
    fn named(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }

    fn field(&mut self, field: &Field) -> Result<Value, String> {
        let mut schema = match &field.written_schema {
            Some(written) => written.clone(),
            None => self.type_schema(&field.ty)?,
        };
        let Value::Object(map) = &mut schema else {
            return Err(format!(
                "the schema of field `{}` is not an object",
                field.wire_name
            ));
        };
        if let Some(docs) = &field.docs {
            map.insert("description".into(), docs.clone().into());
        }
        if field.nullable {
            make_nullable(map);
        }
        if let Some(default) = &field.default {
            map.insert("default".into(), default.clone());
        }
        validation::write(&field.validation, map);
        Ok(schema)
    }

    fn type_schema(&mut self, ty: &TypeRef) -> Result<Value, String> {
        let schema = match ty {
            TypeRef::String => json!({ "type": "string" }),
            TypeRef::Bool => json!({ "type": "boolean" }),
            TypeRef::I32 => json!({ "type": "integer", "format": "int32" }),
            TypeRef::I64 => json!({ "type": "integer", "format": "int64" }),
            TypeRef::F64 => json!({ "type": "number" }),
            TypeRef::Bytes => json!({ "type": "string", "format": "byte" }),
            TypeRef::DateTime => json!({ "type": "string", "format": "date-time" }),
            TypeRef::Quantity | TypeRef::IntOrString => {
                json!({ "x-kubernetes-int-or-string": true })
            }
            TypeRef::Json => json!({ "x-kubernetes-preserve-unknown-fields": true }),
            TypeRef::Vec(item) => json!({ "type": "array", "items": self.type_schema(item)? }),
            // A map of any JSON keeps unknown fields, as `crd()` writes `BTreeMap<String, Value>`.
            TypeRef::Map(value) if **value == TypeRef::Json => {
                json!({ "type": "object", PRESERVE: true })
            }
            TypeRef::Map(value) => {
                json!({ "type": "object", "additionalProperties": self.type_schema(value)? })
            }
            TypeRef::Option(inner) => {
                let mut schema = self.type_schema(inner)?;
                schema["nullable"] = Value::Bool(true);
                schema
            }
            TypeRef::Boxed(inner) => self.type_schema(inner)?,
            TypeRef::Named(name) => self.named_schema(name)?,
            TypeRef::External(external) => Table::committed()
                .schema(&external.path)
                .cloned()
                .ok_or_else(|| {
                    format!(
                        "no schema for `{}`: kubegen carries the schemas of model types and of \
                         the well-known types (numbers, k8s-openapi's) only",
                        external.path
                    )
                })?,
        };
        Ok(schema)
    }

    fn named_schema(&mut self, name: &str) -> Result<Value, String> {
        if self.stack.iter().any(|n| n == name) {
            return Err(format!(
                "`{name}` contains itself, and CRD schemas are inlined"
            ));
        }
        let Some(def) = self.named(name).cloned() else {
            return Err(format!("no type `{name}` in the model"));
        };
        self.stack.push(name.to_owned());
        let mut schema = Map::new();
        match &def.kind {
            TypeDefKind::Struct(s) => {
                schema.insert("type".into(), "object".into());
                let mut properties = Map::new();
                let mut required = Vec::new();
                for field in &s.fields {
                    properties.insert(field.wire_name.clone(), self.field(field)?);
                    if field.required {
                        required.push(Value::String(field.wire_name.clone()));
                    }
                }
                schema.insert("properties".into(), Value::Object(properties));
                if !required.is_empty() {
                    schema.insert("required".into(), Value::Array(required));
                }
                if s.additional.is_some() {
                    // Structural schemas allow no `additionalProperties` beside `properties`.
                    schema.insert(PRESERVE.into(), Value::Bool(true));
                }
            }
            TypeDefKind::Enum(e) => {
                schema.insert("type".into(), "string".into());
                let values = e.variants.iter().map(|v| Value::String(v.wire.clone()));
                schema.insert("enum".into(), Value::Array(values.collect()));
            }
            TypeDefKind::Union(_) => {
                schema.insert(PRESERVE.into(), Value::Bool(true));
            }
        }
        if let Some(docs) = &def.docs {
            schema.insert("description".into(), docs.clone().into());
        }
        self.stack.pop();
        Ok(Value::Object(schema))
    }
}

/// Makes a schema node accept `null`: `nullable: true`, and `null` among the values of an
/// enum (a nullable enum accepts null only when null is one of its values).
pub(crate) fn make_nullable(map: &mut Map<String, Value>) {
    map.insert("nullable".into(), Value::Bool(true));
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}
