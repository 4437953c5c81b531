//! Stored JSON objects to `k8s\0`-enveloped protobuf, for responses whose encoding
//! content negotiation decided is `application/vnd.kubernetes.protobuf`. The same
//! generated field table as the decoder drives it, so what it writes decodes back into
//! the object it came from.

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use serde_json::{Map, Value, json};

use super::{Error, MAGIC, Result};
use crate::builtin::{self, Wire};
use crate::store::meta;

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn key(out: &mut Vec<u8>, tag: u32, wire_type: u64) {
    varint(out, (u64::from(tag) << 3) | wire_type);
}

fn delimited(out: &mut Vec<u8>, tag: u32, bytes: &[u8]) {
    key(out, tag, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn mismatch(json: &str, value: &Value) -> Error {
    Error::Unencodable(format!("{json}: unexpected value {value}"))
}

/// The seconds and nanoseconds of an RFC 3339 `Time` or `MicroTime`.
fn timestamp(value: &Value, micro: bool) -> Option<Value> {
    let instant = if micro {
        serde_json::from_value::<MicroTime>(value.clone()).ok()?.0
    } else {
        serde_json::from_value::<Time>(value.clone()).ok()?.0
    };
    Some(json!({"seconds": instant.as_second(), "nanos": instant.subsec_nanosecond()}))
}

/// The message form of values the OpenAPI document states as scalars or unions (the
/// inverse of the decoder's `special`); `None` for ordinary messages.
fn message_form(name: &str, value: &Value) -> Option<Value> {
    let short = name.rsplit('.').next().unwrap_or_default();
    let raw = || json!({"raw": meta::base64(value.to_string().as_bytes())});
    let form = match (name.strip_prefix(super::META), short) {
        (Some("Time"), _) => timestamp(value, false)?,
        (Some("MicroTime"), _) => timestamp(value, true)?,
        (Some("FieldsV1"), _) | (_, "RawExtension" | "JSON") => raw(),
        (_, "Quantity") => json!({"string": value}),
        (_, "IntOrString") => match value {
            Value::String(text) => json!({"type": 1, "strVal": text}),
            number => json!({"type": 0, "intVal": number}),
        },
        (_, "JSONSchemaPropsOrArray") => match value {
            Value::Array(_) => json!({"jSONSchemas": value}),
            _ => json!({"schema": value}),
        },
        (_, "JSONSchemaPropsOrBool") => match value {
            Value::Bool(allows) => json!({"allows": allows}),
            _ => json!({"allows": true, "schema": value}),
        },
        (_, "JSONSchemaPropsOrStringArray") => match value {
            Value::Array(_) => json!({"property": value}),
            _ => json!({"schema": value}),
        },
        _ => return None,
    };
    Some(form)
}

/// One value of a field (one element of a repeated one).
fn value(out: &mut Vec<u8>, tag: u32, json: &str, wire: Wire, value: &Value) -> Result<()> {
    let integer = || value.as_i64().ok_or_else(|| mismatch(json, value));
    match wire {
        Wire::String => {
            let text = value.as_str().ok_or_else(|| mismatch(json, value))?;
            delimited(out, tag, text.as_bytes());
        }
        Wire::Bytes => {
            let bytes = serde_json::from_value::<ByteString>(value.clone())
                .map_err(|_| mismatch(json, value))?;
            delimited(out, tag, &bytes.0);
        }
        Wire::Bool => {
            key(out, tag, 0);
            varint(
                out,
                u64::from(value.as_bool().ok_or_else(|| mismatch(json, value))?),
            );
        }
        // Negative numbers are sign-extended to 64 bits, int32 included.
        Wire::Int32 | Wire::Int64 => {
            key(out, tag, 0);
            varint(out, integer()? as u64);
        }
        Wire::Double => {
            key(out, tag, 1);
            let number = value.as_f64().ok_or_else(|| mismatch(json, value))?;
            out.extend_from_slice(&number.to_bits().to_le_bytes());
        }
        Wire::Message(name) => delimited(out, tag, &message(value, name)?),
        Wire::StringMap | Wire::BytesMap | Wire::MessageMap(_) => {
            let value_wire = match wire {
                Wire::StringMap => Wire::String,
                Wire::BytesMap => Wire::Bytes,
                Wire::MessageMap(name) => Wire::Message(name),
                _ => return Err(mismatch(json, value)),
            };
            let map = value.as_object().ok_or_else(|| mismatch(json, value))?;
            for (map_key, map_value) in map {
                let mut entry = Vec::new();
                delimited(&mut entry, 1, map_key.as_bytes());
                self::value(&mut entry, 2, json, value_wire, map_value)?;
                delimited(out, tag, &entry);
            }
        }
    }
    Ok(())
}

fn fields(out: &mut Vec<u8>, object: &Map<String, Value>, name: &str) -> Result<()> {
    let message = builtin::message(name).ok_or_else(|| Error::UnknownKind(name.to_owned()))?;
    for field in message.fields {
        // A Go-embedded struct: its fields are the parent's in JSON.
        if let (Wire::Message(inner), "") = (field.wire, field.json) {
            let mut embedded = Vec::new();
            fields(&mut embedded, object, inner)?;
            delimited(out, field.tag, &embedded);
            continue;
        }
        let Some(field_value) = object.get(field.json).filter(|v| !v.is_null()) else {
            continue;
        };
        // A message type newer than the field table is left out, as the decoder skips it.
        if let Wire::Message(inner) | Wire::MessageMap(inner) = field.wire
            && builtin::message(inner).is_none()
        {
            continue;
        }
        match field_value {
            Value::Array(items) if field.repeated => {
                for item in items {
                    value(out, field.tag, field.json, field.wire, item)?;
                }
            }
            _ if field.repeated => return Err(mismatch(field.json, field_value)),
            single => value(out, field.tag, field.json, field.wire, single)?,
        }
    }
    Ok(())
}

/// One message of the definition `name` from its JSON form.
fn message(value: &Value, name: &str) -> Result<Vec<u8>> {
    let form = message_form(name, value);
    let object = form
        .as_ref()
        .unwrap_or(value)
        .as_object()
        .ok_or_else(|| mismatch(name, value))?;
    let mut out = Vec::new();
    fields(&mut out, object, name)?;
    Ok(out)
}

/// Encodes an object of a built-in kind into a `k8s\0`-enveloped
/// `runtime.Unknown`, with `apiVersion` and `kind` in the envelope's type meta.
pub(crate) fn encode(object: &Value) -> Result<Vec<u8>> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let definition = builtin::definition(group, version, kind)
        .ok_or_else(|| Error::UnknownKind(format!("{api_version} {kind}")))?;
    let raw = message(object, definition)?;
    let mut type_meta = Vec::new();
    delimited(&mut type_meta, 1, api_version.as_bytes());
    delimited(&mut type_meta, 2, kind.as_bytes());
    let mut out = MAGIC.to_vec();
    delimited(&mut out, 1, &type_meta);
    delimited(&mut out, 2, &raw);
    // contentEncoding and contentType, empty as Go writes them.
    delimited(&mut out, 3, b"");
    delimited(&mut out, 4, b"");
    Ok(out)
}
