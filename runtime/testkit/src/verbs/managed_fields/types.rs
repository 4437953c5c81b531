//! The types server-side apply needs to know about a value, read from an OpenAPI schema:
//! which values are structs or maps merged key by key, which are atomic, and how the
//! items of a list are identified (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
//! `x-kubernetes-map-type`).
//!
//! Built-in kinds use the OpenAPI v2 definitions of [`crate::builtin`] (`$ref`s resolved
//! there), where a list without `x-kubernetes-list-type` but with the `merge` patch
//! strategy is a map keyed by its merge key (a set without one), as kube-openapi's
//! schema conversion makes it. Custom resources use their structural schema, with
//! `metadata` typed as ObjectMeta. A value without a schema is "deduced": objects are
//! merged key by key and lists are atomic.

use serde_json::{Map, Value, json};

use crate::builtin;

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// How the items of a list are identified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ListType {
    /// The list is one value, replaced and owned as a whole.
    Atomic,
    /// Scalar items identified by their value.
    Set,
    /// Object items identified by these key fields.
    Map(Vec<String>),
}

/// The shape of a value as server-side apply treats it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A string, number, boolean or other single value.
    Scalar,
    /// A struct or map; `atomic` ones are replaced and owned as a whole.
    Map {
        /// `x-kubernetes-map-type: atomic` (or `structType`).
        atomic: bool,
    },
    /// A list.
    List(ListType),
}

/// The type of one value: its schema (none: deduced from the value).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Type<'a> {
    schema: Option<&'a Value>,
    /// `$ref` targets (the built-in definitions).
    definitions: &'a Map<String, Value>,
    /// The root of an object, whose `metadata` is ObjectMeta.
    root: bool,
}

impl<'a> Type<'a> {
    /// The type of a whole object, from its OpenAPI schema (None for an untyped object).
    pub(crate) fn root(schema: Option<&'a Value>) -> Self {
        let definitions = builtin::definitions();
        Self {
            schema: schema.map(|s| resolve(s, definitions)),
            definitions,
            root: true,
        }
    }

    /// The type of a built-in kind's objects (untyped when the kind is unknown).
    pub(crate) fn built_in(group: &str, version: &str, kind: &str) -> Type<'static> {
        let definitions = builtin::definitions();
        let schema = builtin::definition(group, version, kind).and_then(|d| definitions.get(d));
        Type {
            schema,
            definitions,
            root: true,
        }
    }

    fn with(self, schema: Option<&'a Value>) -> Self {
        Self {
            schema: schema.map(|s| resolve(s, self.definitions)),
            definitions: self.definitions,
            root: false,
        }
    }

    /// Whether the schema declares `name` as a field of a struct (as opposed to a key
    /// of a map, or an unknown field).
    pub(crate) fn declares(&self, name: &str) -> bool {
        self.properties().is_some_and(|p| p.contains_key(name)) || (self.root && name == "metadata")
    }

    /// Go's zero value of this type as the API server's field manager sees it, as far
    /// as the schema tells: a struct holds its required fields (null, or the zero value
    /// of a struct) and its `metadata` and `spec` structs, which Kubernetes types never
    /// make pointers; anything else is null.
    pub(crate) fn zero(&self) -> Value {
        self.zero_at(0)
    }

    fn zero_at(&self, depth: usize) -> Value {
        const MAX_DEPTH: usize = 16;
        let Some(properties) = self.properties().filter(|_| depth < MAX_DEPTH) else {
            return if self.root {
                json!({"metadata": {}})
            } else {
                Value::Null
            };
        };
        let required: Vec<&str> = self
            .schema
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut zero = Map::new();
        for name in properties.keys() {
            let child = self.field(name);
            let structural = matches!(name.as_str(), "metadata" | "spec") && child.is_struct();
            if structural || required.contains(&name.as_str()) {
                let value = if child.is_struct() {
                    child.zero_at(depth + 1)
                } else {
                    Value::Null
                };
                zero.insert(name.clone(), value);
            }
        }
        Value::Object(zero)
    }

    /// Whether the schema makes this a struct (declared fields), not a map or list.
    pub(crate) fn is_struct(&self) -> bool {
        self.properties().is_some() || self.root
    }

    fn properties(&self) -> Option<&'a Map<String, Value>> {
        self.schema?.get("properties")?.as_object()
    }

    /// The type of the field or map value `name`.
    pub(crate) fn field(&self, name: &str) -> Self {
        if self.root && name == "metadata" {
            return self.with(self.definitions.get(OBJECT_META));
        }
        if let Some(property) = self.properties().and_then(|p| p.get(name)) {
            return self.with(Some(property));
        }
        let additional = self
            .schema
            .and_then(|s| s.get("additionalProperties"))
            .filter(|a| a.is_object());
        self.with(additional)
    }

    /// The type of the items of a list.
    pub(crate) fn items(&self) -> Self {
        self.with(self.schema.and_then(|s| s.get("items")))
    }

    /// The shape of `value` under this type: the schema's when it has one that fits the
    /// value, else deduced from the value.
    pub(crate) fn shape(&self, value: &Value) -> Shape {
        let deduced = match value {
            Value::Object(_) => Shape::Map { atomic: false },
            Value::Array(_) => Shape::List(ListType::Atomic),
            _ => Shape::Scalar,
        };
        let Some(schema) = self.schema else {
            return deduced;
        };
        match (value, schema_shape(schema)) {
            (Value::Object(_), Some(shape @ Shape::Map { .. }))
            | (Value::Array(_), Some(shape @ Shape::List(_))) => shape,
            _ => deduced,
        }
    }
}

/// Follows a `#/definitions/...` reference.
fn resolve<'a>(schema: &'a Value, definitions: &'a Map<String, Value>) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/definitions/"))
        .and_then(|name| definitions.get(name))
        .unwrap_or(schema)
}

fn extension<'a>(schema: &'a Value, name: &str) -> Option<&'a str> {
    schema.get(name).and_then(Value::as_str)
}

/// The shape a schema declares for objects and arrays (None: deduce from the value).
fn schema_shape(schema: &Value) -> Option<Shape> {
    let ty = schema.get("type").and_then(Value::as_str);
    if ty == Some("array") || schema.get("items").is_some() {
        return Some(Shape::List(list_type(schema)));
    }
    let granular = schema.get("properties").is_some()
        || schema
            .get("additionalProperties")
            .is_some_and(Value::is_object);
    if !granular {
        return None;
    }
    let atomic = matches!(
        extension(schema, "x-kubernetes-map-type"),
        Some("atomic" | "structType")
    );
    Some(Shape::Map { atomic })
}

fn list_type(schema: &Value) -> ListType {
    match extension(schema, "x-kubernetes-list-type") {
        Some("map") => {
            let keys = schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|keys| {
                    keys.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            ListType::Map(keys)
        }
        Some("set") => ListType::Set,
        Some(_) => ListType::Atomic,
        None => {
            let merges = extension(schema, "x-kubernetes-patch-strategy")
                .is_some_and(|s| s.split(',').any(|part| part == "merge"));
            match extension(schema, "x-kubernetes-patch-merge-key") {
                Some(key) if merges => ListType::Map(vec![key.to_owned()]),
                None if merges => ListType::Set,
                _ => ListType::Atomic,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn built_in_types_follow_the_openapi_extensions() {
        let deployment = Type::built_in("apps", "v1", "Deployment");
        let containers = deployment
            .field("spec")
            .field("template")
            .field("spec")
            .field("containers");
        assert_eq!(
            containers.shape(&json!([])),
            Shape::List(ListType::Map(vec!["name".to_owned()]))
        );
        let ports = containers.items().field("ports");
        assert_eq!(
            ports.shape(&json!([])),
            Shape::List(ListType::Map(vec![
                "containerPort".to_owned(),
                "protocol".to_owned()
            ]))
        );
        let args = containers.items().field("args");
        assert_eq!(args.shape(&json!([])), Shape::List(ListType::Atomic));
        let meta = deployment.field("metadata");
        assert!(deployment.declares("spec") && !deployment.declares("nope"));
        assert_eq!(
            meta.field("labels").shape(&json!({})),
            Shape::Map { atomic: false }
        );
        assert!(!meta.field("labels").declares("app"), "labels is a map");
        assert_eq!(
            meta.field("finalizers").shape(&json!([])),
            Shape::List(ListType::Set)
        );
        assert_eq!(
            deployment.zero(),
            json!({
                "metadata": {},
                "spec": {"selector": {}, "template": {"metadata": {}, "spec": {"containers": null}}},
            }),
            "required fields and metadata/spec structs, as Go's zero Deployment has them \
             (a nil pointer to a struct is an empty struct here: for ownership the two are \
             the same, neither is added when filled)"
        );
        let selector = deployment.field("spec").field("selector");
        assert_eq!(selector.shape(&json!({})), Shape::Map { atomic: true });
        assert_eq!(
            deployment.field("spec").field("replicas").shape(&json!(1)),
            Shape::Scalar
        );
    }

    #[test]
    fn custom_schemas_and_untyped_values() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["port"],
                          "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opaque": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }},
        }});
        let root = Type::root(Some(&schema));
        let spec = root.field("spec");
        assert_eq!(
            spec.field("ports").shape(&json!([])),
            Shape::List(ListType::Map(vec!["port".to_owned()]))
        );
        assert_eq!(
            spec.field("tags").shape(&json!([])),
            Shape::List(ListType::Atomic)
        );
        assert_eq!(
            spec.field("opaque").shape(&json!({"a": 1})),
            Shape::Map { atomic: false }
        );
        assert!(root.declares("metadata"));
        assert_eq!(
            root.field("metadata").field("finalizers").shape(&json!([])),
            Shape::List(ListType::Set),
            "metadata is ObjectMeta"
        );
        let untyped = Type::root(None);
        assert_eq!(
            untyped.field("x").shape(&json!([1])),
            Shape::List(ListType::Atomic)
        );
    }
}
