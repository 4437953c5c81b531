//! `application/vnd.kubernetes.protobuf` for built-in kinds: request bodies (what
//! kubectl's typed clients send for `kubectl create configmap|deployment|namespace|...`)
//! and responses where content negotiation chose protobuf. A body is the
//! `k8s\0` magic and a `runtime.Unknown` whose `raw` bytes are the object's message; it
//! is decoded with the generated field table ([`crate::builtin::message`]) into the JSON
//! object the same request in JSON would have produced, and [`encode`] writes the
//! reverse. Custom resources have no protobuf form (415, as on a real server).
//!
//! Why a generated field table and not the `k8s-pb` crate at run time: k8s-pb (kube-rs'
//! prost types of the Kubernetes API, maintained alongside kube) has the field numbers
//! but no JSON mapping, so decoding through it would need a hand-written conversion per
//! message into the JSON this server stores, and it would bring prost into every build
//! of the testkit. `kubegen-testkit-tables` instead reads the field numbers from k8s-pb's
//! sources once and commits them next to the other facts of the API it generates, so
//! the testkit needs no protobuf crate at all; k8s-pb and prost are dev-dependencies
//! that encode the tests' bodies independently of this decoder.
//!
//! Go's protobuf encoding writes value fields even when empty, where its JSON encoding
//! omits them (`omitempty`), and the field tables cannot tell a Go pointer from a value.
//! So empty strings and `false` are dropped unless the OpenAPI definition requires the
//! field, zero times are absent, and a zero number is dropped unless the field's
//! description shows it is a pointer (it says so, says what zero means, or names a
//! non-zero default): `replicas: 0` survives, `minReadySeconds: 0` does not. An explicit
//! `false` on a pointer field (`automountServiceAccountToken: false`) is lost.

use serde_json::{Map, Value, json};

use crate::builtin::{self, Message, Wire};
use crate::store::meta;

/// The media type.
pub(crate) const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Error {
    /// The body does not start with `k8s\0`.
    #[error(
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
    )]
    Magic,
    /// The wire data is cut short or malformed.
    #[error("malformed protobuf data: {0}")]
    Malformed(&'static str),
    /// The envelope names a kind this server has no protobuf message for.
    #[error("no protobuf message is known for {0}")]
    UnknownKind(String),
    /// A string field is not UTF-8.
    #[error("a protobuf string field is not UTF-8")]
    Utf8,
    /// A stored value does not fit its protobuf field.
    #[error("cannot encode as protobuf: {0}")]
    Unencodable(String),
}

type Result<T, E = Error> = std::result::Result<T, E>;

/// A protobuf wire reader.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self
                .bytes
                .split_first()
                .ok_or(Error::Malformed("truncated varint"))?;
            self.bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Error::Malformed("varint longer than 10 bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < n {
            return Err(Error::Malformed("truncated field"));
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }

    fn delimited(&mut self) -> Result<&'a [u8]> {
        let len = usize::try_from(self.varint()?).map_err(|_| Error::Malformed("length"))?;
        self.take(len)
    }

    /// The next field: its number and raw value.
    fn field(&mut self) -> Result<Option<(u32, Raw<'a>)>> {
        if self.bytes.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let tag = u32::try_from(key >> 3).map_err(|_| Error::Malformed("field number"))?;
        let raw = match key & 7 {
            0 => Raw::Varint(self.varint()?),
            1 => Raw::Fixed64(self.take(8)?),
            2 => Raw::Bytes(self.delimited()?),
            5 => {
                self.take(4)?;
                Raw::Fixed32
            }
            _ => return Err(Error::Malformed("unsupported wire type")),
        };
        Ok(Some((tag, raw)))
    }
}

/// One field's value as read off the wire.
#[derive(Debug, Clone, Copy)]
enum Raw<'a> {
    Varint(u64),
    Fixed64(&'a [u8]),
    /// A 32-bit value (no field of the served kinds has one; skipped).
    Fixed32,
    Bytes(&'a [u8]),
}

fn fields(bytes: &[u8]) -> Result<Vec<(u32, Raw<'_>)>> {
    let mut reader = Reader { bytes };
    let mut out = Vec::new();
    while let Some(field) = reader.field()? {
        out.push(field);
    }
    Ok(out)
}

fn text(bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| Error::Utf8)
}

/// The scalar values of one field occurrence (packed repeated fields hold several).
fn scalars(wire: Wire, raw: Raw<'_>) -> Result<Vec<Value>> {
    let varint = |v: u64| match wire {
        Wire::Bool => json!(v != 0),
        // Negative int32s are sign-extended to 64 bits on the wire.
        Wire::Int32 => json!(v as i64 as i32),
        _ => json!(v as i64),
    };
    Ok(match (wire, raw) {
        (Wire::String, Raw::Bytes(b)) => vec![json!(text(b)?)],
        (Wire::Bytes, Raw::Bytes(b)) => vec![json!(meta::base64(b))],
        (Wire::Bool | Wire::Int32 | Wire::Int64, Raw::Varint(v)) => vec![varint(v)],
        (Wire::Bool | Wire::Int32 | Wire::Int64, Raw::Bytes(packed)) => {
            let mut reader = Reader { bytes: packed };
            let mut values = Vec::new();
            while !reader.bytes.is_empty() {
                values.push(varint(reader.varint()?));
            }
            values
        }
        (Wire::Double, Raw::Fixed64(b)) => {
            let bits = u64::from_le_bytes(b.try_into().map_err(|_| Error::Malformed("double"))?);
            vec![json!(f64::from_bits(bits))]
        }
        _ => {
            return Err(Error::Malformed(
                "field encoded with an unexpected wire type",
            ));
        }
    })
}

fn map_entry(bytes: &[u8], value_wire: Wire) -> Result<(String, Value)> {
    let mut key = String::new();
    let mut value = match value_wire {
        Wire::Message(_) => json!({}),
        _ => json!(""),
    };
    for (tag, raw) in fields(bytes)? {
        match (tag, raw) {
            (1, Raw::Bytes(b)) => key = text(b)?,
            (2, raw) => {
                value = match value_wire {
                    Wire::Message(name) => match raw {
                        Raw::Bytes(b) => message(b, name)?,
                        _ => return Err(Error::Malformed("map value")),
                    },
                    wire => scalars(wire, raw)?
                        .into_iter()
                        .next()
                        .unwrap_or(Value::Null),
                }
            }
            _ => {}
        }
    }
    Ok((key, value))
}

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// RFC 3339 as Go's `metav1.Time` (seconds) or `MicroTime` (microseconds) writes it.
fn timestamp(fields: &Map<String, Value>, micro: bool) -> Value {
    let seconds = fields.get("seconds").and_then(Value::as_i64).unwrap_or(0);
    let nanos = fields.get("nanos").and_then(Value::as_i64).unwrap_or(0);
    if seconds == 0 && nanos == 0 {
        return Value::Null;
    }
    let text = meta::format_rfc3339(u64::try_from(seconds).unwrap_or(0));
    if micro {
        json!(format!(
            "{}.{:06}Z",
            text.trim_end_matches('Z'),
            nanos / 1000
        ))
    } else {
        json!(text)
    }
}

/// Raw JSON carried as bytes (RawExtension, FieldsV1, apiextensions JSON).
fn embedded_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or(Value::Null)
}

/// The JSON form of messages the OpenAPI document states as scalars or unions.
fn special(name: &str, fields: &Map<String, Value>, raw: Option<&[u8]>) -> Option<Value> {
    let short = name.rsplit('.').next().unwrap_or_default();
    let field = |key: &str| fields.get(key).cloned().unwrap_or(Value::Null);
    let value = match (name.strip_prefix(META), short) {
        (Some("Time"), _) => timestamp(fields, false),
        (Some("MicroTime"), _) => timestamp(fields, true),
        (Some("FieldsV1"), _) => raw.map_or(Value::Null, embedded_json),
        (_, "Quantity") => field("string"),
        (_, "IntOrString") => match fields.get("type").and_then(Value::as_i64) {
            Some(1) => field("strVal"),
            _ => json!(fields.get("intVal").and_then(Value::as_i64).unwrap_or(0)),
        },
        (_, "RawExtension" | "JSON") => raw.map_or(Value::Null, embedded_json),
        (_, "JSONSchemaPropsOrArray") => match fields.get("schema") {
            Some(schema) => schema.clone(),
            None => field("jSONSchemas"),
        },
        (_, "JSONSchemaPropsOrBool") => match fields.get("schema") {
            Some(schema) => schema.clone(),
            None => json!(
                fields
                    .get("allows")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            ),
        },
        (_, "JSONSchemaPropsOrStringArray") => match fields.get("schema") {
            Some(schema) => schema.clone(),
            None => field("property"),
        },
        _ => return None,
    };
    Some(value)
}

/// Whether a field's description shows a Go pointer, whose zero Go's JSON keeps: it says
/// it is a pointer, says what zero means, or names a non-zero default.
fn keeps_zero(description: &str) -> bool {
    let nonzero_default = description
        .split("Defaults to ")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit() && c != '0'));
    description.contains("pointer") || description.contains("zero") || nonzero_default
}

/// Drops what Go's JSON encoding omits and its protobuf encoding writes: empty strings,
/// `false`, null (zero times) and the zero of a non-pointer number, unless the
/// definition requires the field.
fn drop_empty(name: &str, fields: &mut Map<String, Value>) {
    let required: Vec<&str> = builtin::definitions()
        .get(name)
        .and_then(|d| d.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    fields.retain(|key, value| {
        let empty = match value {
            Value::Null | Value::Bool(false) => true,
            Value::String(text) => text.is_empty(),
            Value::Number(number) => {
                number.as_f64() == Some(0.0) && !keeps_zero(builtin::description(name, key))
            }
            _ => false,
        };
        !empty || required.contains(&key.as_str())
    });
}

/// A message's fields as JSON, and the last bytes field read (its raw bytes).
type DecodedFields<'a> = (Map<String, Value>, Option<&'a [u8]>);

fn decode_fields<'a>(bytes: &'a [u8], message: &Message) -> Result<DecodedFields<'a>> {
    let mut out = Map::new();
    let mut raw_bytes = None;
    for (tag, raw) in fields(bytes)? {
        let Some(field) = message.field(tag) else {
            continue;
        };
        if let (Wire::Bytes, Raw::Bytes(b)) = (field.wire, raw) {
            raw_bytes = Some(b);
        }
        let values = match field.wire {
            // A Go-embedded struct: its fields are the parent's in JSON.
            Wire::Message(name) if field.json.is_empty() => {
                let Raw::Bytes(b) = raw else {
                    return Err(Error::Malformed("message field"));
                };
                if let Value::Object(inlined) = self::message(b, name)? {
                    out.extend(inlined);
                }
                continue;
            }
            Wire::Message(name) => match raw {
                Raw::Bytes(b) if builtin::message(name).is_some() => vec![self::message(b, name)?],
                // A type newer than the field table: skipped.
                Raw::Bytes(_) => continue,
                _ => return Err(Error::Malformed("message field")),
            },
            Wire::StringMap | Wire::BytesMap | Wire::MessageMap(_) => {
                let value_wire = match field.wire {
                    Wire::StringMap => Wire::String,
                    Wire::BytesMap => Wire::Bytes,
                    Wire::MessageMap(name) => Wire::Message(name),
                    _ => Wire::String,
                };
                let Raw::Bytes(b) = raw else {
                    return Err(Error::Malformed("map entry"));
                };
                let (key, value) = map_entry(b, value_wire)?;
                let map = out.entry(field.json).or_insert_with(|| json!({}));
                if let Value::Object(map) = map {
                    map.insert(key, value);
                }
                continue;
            }
            wire => scalars(wire, raw)?,
        };
        if field.repeated {
            let list = out.entry(field.json).or_insert_with(|| json!([]));
            if let Value::Array(list) = list {
                list.extend(values);
            }
        } else if let Some(value) = values.into_iter().last() {
            out.insert(field.json.to_owned(), value);
        }
    }
    Ok((out, raw_bytes))
}

/// Decodes one message of the definition `name` into its JSON form.
fn message(bytes: &[u8], name: &str) -> Result<Value> {
    let Some(message) = builtin::message(name) else {
        return Err(Error::UnknownKind(name.to_owned()));
    };
    let (mut fields, raw) = decode_fields(bytes, message)?;
    if let Some(value) = special(name, &fields, raw) {
        return Ok(value);
    }
    drop_empty(name, &mut fields);
    Ok(Value::Object(fields))
}

/// The `apiVersion`, `kind` and raw message of a `k8s\0`-enveloped body.
fn envelope(body: &[u8]) -> Result<(String, String, &[u8])> {
    let unknown = body.strip_prefix(MAGIC).ok_or(Error::Magic)?;
    let mut api_version = String::new();
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    for (tag, value) in fields(unknown)? {
        match (tag, value) {
            (1, Raw::Bytes(type_meta)) => {
                for (tag, value) in fields(type_meta)? {
                    match (tag, value) {
                        (1, Raw::Bytes(b)) => api_version = text(b)?,
                        (2, Raw::Bytes(b)) => kind = text(b)?,
                        _ => {}
                    }
                }
            }
            (2, Raw::Bytes(b)) => raw = b,
            _ => {}
        }
    }
    Ok((api_version, kind, raw))
}

/// Decodes a `k8s\0`-enveloped body into the object, with `apiVersion` and `kind` from
/// the envelope's type meta.
pub(crate) fn decode(body: &[u8]) -> Result<Value> {
    let (api_version, kind, raw) = envelope(body)?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
    let definition = builtin::definition(group, version, &kind)
        .ok_or_else(|| Error::UnknownKind(format!("{api_version} {kind}")))?;
    let mut object = message(raw, definition)?;
    if let Value::Object(map) = &mut object {
        map.insert("apiVersion".to_owned(), json!(api_version));
        map.insert("kind".to_owned(), json!(kind));
    }
    Ok(object)
}

/// The string fields of a message, by field number, as JSON members.
fn strings(bytes: &[u8], names: &[(u32, &str)]) -> Result<Map<String, Value>> {
    let mut object = Map::new();
    for (tag, value) in fields(bytes)? {
        if let (Some((_, name)), Raw::Bytes(b)) = (names.iter().find(|(t, _)| *t == tag), value) {
            object.insert((*name).to_owned(), json!(text(b)?));
        }
    }
    Ok(object)
}

/// Decodes an `authorization.k8s.io/v1` SelfSubjectAccessReview (kubectl `auth can-i`
/// sends protobuf), which is no stored kind: its spec's resource or non-resource
/// attributes (the field and label selectors of the attributes are not read).
pub(crate) fn decode_self_subject_access_review(body: &[u8]) -> Result<Value> {
    let (api_version, kind, raw) = envelope(body)?;
    if kind != "SelfSubjectAccessReview" {
        return Err(Error::UnknownKind(format!("{api_version} {kind}")));
    }
    const RESOURCE: &[(u32, &str)] = &[
        (1, "namespace"),
        (2, "verb"),
        (3, "group"),
        (4, "version"),
        (5, "resource"),
        (6, "subresource"),
        (7, "name"),
    ];
    const NON_RESOURCE: &[(u32, &str)] = &[(1, "path"), (2, "verb")];
    let mut spec = Map::new();
    for (tag, value) in fields(raw)? {
        if let (2, Raw::Bytes(spec_bytes)) = (tag, value) {
            for (tag, value) in fields(spec_bytes)? {
                match (tag, value) {
                    (1, Raw::Bytes(b)) => {
                        spec.insert(
                            "resourceAttributes".to_owned(),
                            Value::Object(strings(b, RESOURCE)?),
                        );
                    }
                    (2, Raw::Bytes(b)) => {
                        spec.insert(
                            "nonResourceAttributes".to_owned(),
                            Value::Object(strings(b, NON_RESOURCE)?),
                        );
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(json!({"apiVersion": api_version, "kind": kind, "metadata": {}, "spec": spec}))
}

mod encode;

pub(crate) use encode::encode;

#[cfg(test)]
mod tests;
