//! Model types -> structural OpenAPI v3 schema nodes: what the CRD emitter writes into a
//! manifest, and what the annotated emitter compares with what the Rust front-end reads
//! back from its attributes. The nodes themselves (the root's first properties, the
//! primitive types, int-or-string, unknown fields kept, maps, enums, CEL rules, a nullable
//! enum's `null`) are the CRD-schema core's ([`kubegen_crd_schema::shapes`]), which the
//! facade's `crd()` writes with too; this module maps the model onto them.
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

use kubegen_crd_schema::shapes;
use serde_json::{Map, Value};

use crate::model::{Field, HandWritten, Resource, RootType, TypeDef, TypeDefKind, TypeRef};
use crate::wellknown::Table;

pub(crate) use kubegen_crd_schema::make_nullable;

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
    let mut fields = Vec::new();
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
        fields.push((field.wire_name.clone(), schema));
        if field.required {
            required.push(field.wire_name.clone());
        }
    }
    let mut root = shapes::root(resource.root.docs.as_deref(), fields);
    shapes::set_required(&mut root, required);
    if resource.fields.additional.is_some() {
        shapes::keep_unknown_fields(&mut root);
    }
    validation::write(&resource.kind.validation, &mut root);
    // The structural rules `crd()` applies to schemars' output, applied here too: the
    // model's nodes are structural already, schemas written by hand (`schema_with`) may not
    // be.
    let mut root = Value::Object(root);
    kubegen_crd_schema::make_structural(&mut root, "").map_err(|e| e.to_string())?;
    Ok(root)
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
            TypeRef::String => shapes::string(),
            TypeRef::Bool => shapes::boolean(),
            TypeRef::I32 => shapes::int32(),
            TypeRef::I64 => shapes::int64(),
            TypeRef::F64 => shapes::number(),
            TypeRef::Bytes => shapes::bytes(),
            TypeRef::DateTime => shapes::date_time(),
            TypeRef::Quantity | TypeRef::IntOrString => shapes::int_or_string(),
            TypeRef::Json => shapes::preserve_unknown(),
            TypeRef::Vec(item) => shapes::array(self.type_schema(item)?),
            // A map of any JSON keeps unknown fields, as `crd()` writes `BTreeMap<String, Value>`.
            TypeRef::Map(value) => shapes::map(self.type_schema(value)?),
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
        let mut schema = match &def.kind {
            TypeDefKind::Struct(s) => {
                let mut properties = Map::new();
                let mut required = Vec::new();
                for field in &s.fields {
                    properties.insert(field.wire_name.clone(), self.field(field)?);
                    if field.required {
                        required.push(field.wire_name.clone());
                    }
                }
                let mut schema = shapes::object(properties);
                shapes::set_required(&mut schema, required);
                if s.additional.is_some() {
                    shapes::keep_unknown_fields(&mut schema);
                }
                schema
            }
            TypeDefKind::Enum(e) => {
                let values = e.variants.iter().map(|v| v.wire.clone());
                object_of(shapes::string_enum(values))
            }
            TypeDefKind::Union(_) => object_of(shapes::preserve_unknown()),
        };
        if let Some(docs) = &def.docs {
            schema.insert("description".into(), docs.clone().into());
        }
        self.stack.pop();
        Ok(Value::Object(schema))
    }
}

/// The map of a shape (every shape is an object node).
fn object_of(shape: Value) -> Map<String, Value> {
    match shape {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
