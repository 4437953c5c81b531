//! Built-in objects decoded against their OpenAPI definitions on every write, as a real
//! server decodes into its Go types: a value of the wrong type is an error, fields the
//! type does not have are dropped, `null` leaves a field unset, and times and byte strings
//! are written back in their canonical form.
//!
//! The definitions are the generated document the server already holds
//! ([`definitions`](super::definitions)); walking them, rather than decoding through the
//! k8s-openapi types, compiles no serde code per built-in type (that was about 40% of the
//! testkit's build, and the testkit is in every operator's first build through
//! `kubegen`'s `embedded` feature).

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use serde_json::{Map, Value};

/// Why an object does not decode into its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in version {version:?} cannot be handled as a {kind}: {reason}")]
pub(crate) struct TypeError {
    /// The kind.
    pub(crate) kind: String,
    /// The version.
    pub(crate) version: String,
    /// What the decoder said.
    pub(crate) reason: String,
}

/// `object` decoded against the definition of the built-in kind `group/version kind`
/// (unknown fields and nulls dropped, times and byte strings canonical); objects of other
/// kinds unchanged.
pub(crate) fn normalize(
    group: &str,
    version: &str,
    kind: &str,
    object: Value,
) -> Result<Value, TypeError> {
    let Some(definition) = super::definition(group, version, kind) else {
        return Ok(object);
    };
    let decoder = Decoder {
        definitions: super::definitions(),
    };
    let decoded = match object {
        Value::Object(_) => decoder.definition(definition, object, kind),
        other => mismatch(&other, kind, go_name(definition)),
    };
    decoded
        .map(|decoded| decoded.unwrap_or_else(|| Value::Object(Map::new())))
        .map_err(|reason| TypeError {
            kind: kind.to_owned(),
            version: version.to_owned(),
            reason,
        })
}

/// Definitions whose values are not described by their schema alone.
mod special {
    pub(super) const TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
    pub(super) const MICRO_TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
    pub(super) const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
    pub(super) const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    const APIEXTENSIONS: &str = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";
    pub(super) const SCHEMA: &str =
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";

    /// What a value of the apiextensions union definitions (no `type` in the document)
    /// may be besides a schema object, by definition name.
    pub(super) fn schema_union(name: &str) -> Option<&'static str> {
        match name.strip_prefix(APIEXTENSIONS)? {
            "JSONSchemaPropsOrArray" => Some("array"),
            "JSONSchemaPropsOrBool" => Some("boolean"),
            "JSONSchemaPropsOrStringArray" => Some("string array"),
            _ => None,
        }
    }
}

/// Walks values against the definitions. Each step returns the decoded value, or `None`
/// for a `null` (the field stays unset), or the reason in the words of Go's decoder
/// (`json: cannot unmarshal number into Go struct field ConfigMap.data of type string`).
struct Decoder {
    definitions: &'static Map<String, Value>,
}

type Step = Result<Option<Value>, String>;

impl Decoder {
    /// `value` as the definition `name`; `at` is the field path so far (`ConfigMap.data`).
    fn definition(&self, name: &str, value: Value, at: &str) -> Step {
        if value.is_null() {
            return Ok(None);
        }
        match name {
            special::TIME => return canonical::<Time>(value, at, "v1.Time"),
            special::MICRO_TIME => return canonical::<MicroTime>(value, at, "v1.MicroTime"),
            special::QUANTITY => return quantity(value, at),
            special::INT_OR_STRING => return int_or_string(value, at),
            _ => {}
        }
        if let Some(other) = special::schema_union(name) {
            return self.schema_union(other, value, at);
        }
        let Some(schema) = self.definitions.get(name) else {
            // The document holds every definition the served kinds refer to (checked by
            // a test); one it lacks keeps its value as sent.
            return Ok(Some(value));
        };
        self.schema(schema, value, at, go_name(name))
    }

    /// `value` as the inline `schema`; `go_type` names a struct in errors.
    fn schema(&self, schema: &Value, value: Value, at: &str, go_type: &str) -> Step {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.trim_start_matches("#/definitions/");
            return self.definition(name, value, at);
        }
        if value.is_null() {
            return Ok(None);
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => self.object(schema, value, at, go_type),
            Some("array") => self.array(schema, value, at),
            Some("string") => string(schema, value, at),
            Some("integer") => integer(schema, value, at),
            Some("number") => expect(value.is_number(), value, at, "float64"),
            Some("boolean") => expect(value.is_boolean(), value, at, "bool"),
            // `JSON` and other free-form values.
            _ => Ok(Some(value)),
        }
    }

    fn object(&self, schema: &Value, value: Value, at: &str, go_type: &str) -> Step {
        let properties = schema.get("properties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let Value::Object(fields) = value else {
            let expected = if properties.is_some() {
                go_type
            } else {
                "map[string]"
            };
            return mismatch(&value, at, expected);
        };
        let mut decoded = Map::new();
        match (properties, additional) {
            (Some(properties), _) => {
                for (key, field) in fields {
                    // Fields the type does not have are dropped.
                    let Some(property) = properties.get(&key) else {
                        continue;
                    };
                    let path = format!("{at}.{key}");
                    if let Some(field) = self.schema(property, field, &path, "struct")? {
                        decoded.insert(key, field);
                    }
                }
            }
            (None, Some(item)) => {
                for (key, field) in fields {
                    if let Some(field) = self.schema(item, field, at, "struct")? {
                        decoded.insert(key, field);
                    }
                }
            }
            // RawExtension, FieldsV1: any object, kept as sent.
            (None, None) => decoded = fields,
        }
        Ok(Some(Value::Object(decoded)))
    }

    fn array(&self, schema: &Value, value: Value, at: &str) -> Step {
        let Value::Array(items) = value else {
            let item = schema.get("items").map_or("", |item| {
                match item.get("$ref").and_then(Value::as_str) {
                    Some(reference) => go_name(reference.trim_start_matches("#/definitions/")),
                    None => item.get("type").and_then(Value::as_str).unwrap_or_default(),
                }
            });
            return mismatch(&value, at, &format!("[]{item}"));
        };
        let Some(item) = schema.get("items") else {
            return Ok(Some(Value::Array(items)));
        };
        let mut decoded = Vec::with_capacity(items.len());
        for value in items {
            if let Some(value) = self.schema(item, value, at, "struct")? {
                decoded.push(value);
            }
        }
        Ok(Some(Value::Array(decoded)))
    }

    /// `JSONSchemaPropsOrArray` / `OrBool` / `OrStringArray`: a schema object, or the
    /// `other` shape.
    fn schema_union(&self, other: &str, value: Value, at: &str) -> Step {
        match (other, value) {
            (_, value @ Value::Object(_)) => self.definition(special::SCHEMA, value, at),
            ("array", Value::Array(items)) => {
                let mut decoded = Vec::with_capacity(items.len());
                for item in items {
                    if let Some(item) = self.definition(special::SCHEMA, item, at)? {
                        decoded.push(item);
                    }
                }
                Ok(Some(Value::Array(decoded)))
            }
            ("boolean", value @ Value::Bool(_)) => Ok(Some(value)),
            ("string array", Value::Array(items)) => {
                if let Some(item) = items.iter().find(|item| !item.is_string()) {
                    return mismatch(item, at, "string");
                }
                Ok(Some(Value::Array(items)))
            }
            (other, value) => mismatch(&value, at, &format!("schema or {other}")),
        }
    }
}

fn string(schema: &Value, value: Value, at: &str) -> Step {
    if schema.get("format").and_then(Value::as_str) == Some("byte") {
        return canonical::<ByteString>(value, at, "[]byte");
    }
    expect(value.is_string(), value, at, "string")
}

fn integer(schema: &Value, value: Value, at: &str) -> Step {
    let int32 = schema.get("format").and_then(Value::as_str) == Some("int32");
    let fits = match value.as_i64() {
        Some(n) if int32 => i32::try_from(n).is_ok(),
        Some(_) => true,
        None => false,
    };
    expect(fits, value, at, if int32 { "int32" } else { "int64" })
}

/// A quantity is a string; a number is taken as the quantity it spells, as Go's
/// `resource.Quantity` reads one.
fn quantity(value: Value, at: &str) -> Step {
    match value {
        Value::String(_) => Ok(Some(value)),
        Value::Number(n) => Ok(Some(Value::String(n.to_string()))),
        value => mismatch(&value, at, "resource.Quantity"),
    }
}

fn int_or_string(value: Value, at: &str) -> Step {
    let fits = value.is_string() || value.as_i64().is_some_and(|n| i32::try_from(n).is_ok());
    expect(fits, value, at, "intstr.IntOrString")
}

/// `value` decoded into `T` and written back (the canonical form of a time or byte
/// string), or the decoder's reason.
fn canonical<T: serde::de::DeserializeOwned + serde::Serialize>(
    value: Value,
    at: &str,
    go_type: &str,
) -> Step {
    if !value.is_string() {
        return mismatch(&value, at, go_type);
    }
    let typed: T = serde_json::from_value(value).map_err(|e| format!("{at}: {go_type}: {e}"))?;
    serde_json::to_value(&typed)
        .map(Some)
        .map_err(|e| format!("{at}: {go_type}: {e}"))
}

fn expect(fits: bool, value: Value, at: &str, go_type: &str) -> Step {
    if fits {
        Ok(Some(value))
    } else {
        mismatch(&value, at, go_type)
    }
}

/// Go's words for a value of the wrong type at `at`.
fn mismatch(value: &Value, at: &str, go_type: &str) -> Step {
    let found = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    Err(format!(
        "json: cannot unmarshal {found} into Go struct field {at} of type {go_type}"
    ))
}

/// `v1.DeploymentSpec` for `io.k8s.api.apps.v1.DeploymentSpec`.
fn go_name(definition: &str) -> &str {
    let mut parts = definition.rsplitn(3, '.');
    let name = parts.next().unwrap_or(definition);
    let package = parts.next().unwrap_or_default();
    definition
        .len()
        .checked_sub(package.len() + name.len() + 1)
        .map_or(definition, |start| &definition[start..])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decode(group: &str, kind: &str, object: Value) -> Result<Value, String> {
        let version = "v1";
        normalize(group, version, kind, object).map_err(|e| e.to_string())
    }

    #[test]
    fn type_errors_are_reported_in_go_words_and_unknown_fields_dropped() {
        let error = decode(
            "",
            "ConfigMap",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": 1}}),
        )
        .expect_err("a number is not a string");
        assert_eq!(
            error,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot \
             unmarshal number into Go struct field ConfigMap.data of type string"
        );
        let normalized = decode(
            "apps",
            "Deployment",
            json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "creationTimestamp": "2025-01-02T03:04:05Z", "bogus": 1},
                "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {}, "replicas": 2, "typo": true}
            }),
        )
        .expect("decodes");
        assert_eq!(normalized["spec"]["replicas"], 2);
        assert_eq!(
            normalized["metadata"]["creationTimestamp"],
            "2025-01-02T03:04:05Z"
        );
        assert!(normalized["spec"].get("typo").is_none());
        assert!(normalized["metadata"].get("bogus").is_none());
        let custom = json!({"spec": {"anything": [1, "x"]}});
        assert_eq!(
            normalize("example.com", "v1", "Foo", custom.clone()),
            Ok(custom)
        );
    }

    #[test]
    fn nested_fields_are_checked_through_references_lists_and_maps() {
        let pod = |container: Value| json!({"metadata": {"name": "p"}, "spec": {"containers": [container]}});
        let error = decode(
            "",
            "Pod",
            pod(json!({"name": "c", "ports": [{"containerPort": "80"}]})),
        )
        .expect_err("a string is not an int32");
        assert!(
            error
                .ends_with("Go struct field Pod.spec.containers.ports.containerPort of type int32"),
            "{error}"
        );
        let error = decode(
            "",
            "Pod",
            pod(json!({"name": "c", "ports": [{"containerPort": 1i64 << 40}]})),
        )
        .expect_err("out of int32's range");
        assert!(error.contains("of type int32"), "{error}");
        let error = decode("", "Pod", pod(json!({"name": "c", "stdin": "yes"})))
            .expect_err("a string is not a bool");
        assert!(
            error.ends_with("Pod.spec.containers.stdin of type bool"),
            "{error}"
        );
        let error = decode("", "Pod", json!({"spec": {"containers": {"name": "c"}}}))
            .expect_err("an object is not a list");
        assert!(
            error.ends_with("Pod.spec.containers of type []v1.Container"),
            "{error}"
        );
        let error = decode("", "Pod", json!({"spec": "none"})).expect_err("not a struct");
        assert!(error.ends_with("Pod.spec of type v1.PodSpec"), "{error}");
        let decoded = decode(
            "",
            "Pod",
            pod(json!({"name": "c", "image": null, "resources": {"limits": {"cpu": 1, "memory": "1Gi"}},
                       "livenessProbe": {"httpGet": {"port": "http"}}, "colour": "red"})),
        )
        .expect("decodes");
        let container = &decoded["spec"]["containers"][0];
        assert!(
            container.get("image").is_none(),
            "null leaves a field unset"
        );
        assert!(container.get("colour").is_none());
        assert_eq!(
            container["resources"]["limits"],
            json!({"cpu": "1", "memory": "1Gi"}),
            "a number is the quantity it spells"
        );
        assert_eq!(container["livenessProbe"]["httpGet"]["port"], "http");
    }

    #[test]
    fn times_and_byte_strings_are_checked_and_canonical() {
        let decoded = decode(
            "",
            "Secret",
            json!({"metadata": {"name": "s", "creationTimestamp": "2025-01-02T04:04:05+01:00"},
                   "data": {"a": "aGk="}}),
        )
        .expect("decodes");
        assert_eq!(
            decoded["metadata"]["creationTimestamp"],
            "2025-01-02T03:04:05Z"
        );
        assert_eq!(decoded["data"]["a"], "aGk=");
        let error =
            decode("", "Secret", json!({"data": {"a": "not base64!"}})).expect_err("not base64");
        assert!(error.contains("Secret.data: []byte: "), "{error}");
        let error = decode(
            "",
            "Secret",
            json!({"metadata": {"creationTimestamp": "yesterday"}}),
        )
        .expect_err("not a time");
        assert!(
            error.contains("Secret.metadata.creationTimestamp: v1.Time: "),
            "{error}"
        );
    }

    #[test]
    fn free_form_values_are_kept_and_schema_unions_checked() {
        let decoded = decode(
            "",
            "Pod",
            json!({"metadata": {"name": "p", "managedFields": [
                {"manager": "m", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]}}),
        )
        .expect("decodes");
        assert_eq!(
            decoded["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:data": {"f:a": {}}})
        );
        let crd = |items: Value| {
            json!({"metadata": {"name": "foos.example.com"}, "spec": {"group": "example.com",
                "names": {"kind": "Foo", "plural": "foos"}, "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"list": {"type": "array", "items": items, "bogus": 1},
                                   "any": {"default": {"a": [1]}}}}}}]}})
        };
        let decoded = decode(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            crd(json!({"type": "string"})),
        )
        .expect("decodes");
        let schema = &decoded["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        assert_eq!(
            schema["properties"]["list"]["items"],
            json!({"type": "string"})
        );
        assert!(schema["properties"]["list"].get("bogus").is_none());
        assert_eq!(schema["properties"]["any"]["default"], json!({"a": [1]}));
        assert_eq!(schema["x-kubernetes-preserve-unknown-fields"], true);
        let error = decode(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            crd(json!("string")),
        )
        .expect_err("items is a schema or a list of schemas");
        assert!(error.ends_with("of type schema or array"), "{error}");
    }

    #[test]
    fn every_reference_of_the_served_kinds_has_a_definition() {
        let definitions = super::super::definitions();
        let mut missing = Vec::new();
        fn references(value: &Value, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(r)) = map.get("$ref") {
                        out.push(r.trim_start_matches("#/definitions/").to_owned());
                    }
                    map.values().for_each(|v| references(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| references(v, out)),
                _ => {}
            }
        }
        for definition in definitions.values() {
            let mut found = Vec::new();
            references(definition, &mut found);
            missing.extend(found.into_iter().filter(|r| !definitions.contains_key(r)));
        }
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn go_names_are_package_and_type() {
        assert_eq!(
            go_name("io.k8s.api.apps.v1.DeploymentSpec"),
            "v1.DeploymentSpec"
        );
        assert_eq!(go_name("Plain"), "Plain");
    }
}
