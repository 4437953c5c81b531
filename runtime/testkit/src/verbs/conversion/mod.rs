//! CRD conversion webhooks (`spec.conversion.strategy: Webhook`), the decisions: a
//! CRD's conversion settings checked and read when it is written, which objects a
//! conversion sends, the `apiextensions.k8s.io/v1` ConversionReview, and what the
//! webhook's answer means, checked as kube-apiserver's `webhookConverter` checks it (the
//! same uid, `result.status: Success`, one object per object sent, each at the desired
//! group version and of the same kind, name, namespace and uid; metadata but labels and
//! annotations restored from the object sent). Errors use kube-apiserver's words. The
//! call itself is made by the HTTP layer (`http/conversion.rs`).

use std::fmt;
use std::sync::Arc;

use k8s_openapi::ByteString;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::store::meta;
use crate::store::registry::{Conversion, ConversionWebhook};
use crate::store::status::{ApiError, Cause};
use crate::verbs::client_config;

/// The ConversionReview version sent (and the one a CRD must accept).
const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// Checks a CRD's `spec.conversion` and reads it. `storage` is the storage version,
/// `served` the served ones. Errors are the causes of a 422 Invalid.
pub(crate) fn strategy(
    crd: &Value,
    storage: Option<&str>,
    served: &[&str],
) -> Result<Conversion, Vec<Cause>> {
    let conversion = meta::get_path(crd, "spec.conversion");
    let text = |pointer: &str| {
        conversion
            .and_then(|c| c.pointer(pointer))
            .and_then(Value::as_str)
    };
    match text("/strategy").unwrap_or("None") {
        "None" => {
            if conversion.and_then(|c| c.get("webhook")).is_some() {
                return Err(vec![Cause::new(
                    "FieldValueForbidden",
                    "spec.conversion.webhook",
                    "Forbidden: should be empty if conversion strategy is None",
                )]);
            }
            Ok(Conversion::None)
        }
        "Webhook" => webhook(conversion.and_then(|c| c.get("webhook")), storage, served),
        other => Err(vec![Cause::new(
            "FieldValueNotSupported",
            "spec.conversion.strategy",
            format!("Unsupported value: {other:?}: supported values: \"None\", \"Webhook\""),
        )]),
    }
}

/// `spec.conversion.webhook` of a `Webhook` strategy.
fn webhook(
    webhook: Option<&Value>,
    storage: Option<&str>,
    served: &[&str],
) -> Result<Conversion, Vec<Cause>> {
    let required = |field: &str| {
        Cause::new(
            "FieldValueRequired",
            field.to_owned(),
            "Required value: required when strategy is set to Webhook",
        )
    };
    let Some(webhook) = webhook else {
        return Err(vec![required("spec.conversion.webhook")]);
    };
    let mut causes = Vec::new();
    let versions: Vec<&str> = webhook
        .get("conversionReviewVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !versions.contains(&"v1") {
        causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.conversion.webhook.conversionReviewVersions",
            format!(
                "Unsupported value: {versions:?}: the testkit sends {REVIEW_API_VERSION} ConversionReviews only: must include \"v1\""
            ),
        ));
    }
    let client = webhook.get("clientConfig").filter(|c| c.is_object());
    match client {
        None => causes.push(required("spec.conversion.webhook.clientConfig")),
        Some(config) => causes.extend(client_config::check(
            Some(config),
            "spec.conversion.webhook.clientConfig",
        )),
    }
    let ca_bundle = client
        .and_then(|c| c.get("caBundle"))
        .map(|b64| serde_json::from_value::<ByteString>(b64.clone()));
    let ca_bundle = match ca_bundle {
        Some(Ok(bytes)) => bytes.0,
        Some(Err(e)) => {
            causes.push(Cause::invalid(
                "spec.conversion.webhook.clientConfig.caBundle",
                &json!("<bytes>"),
                format!("not base64: {e}"),
            ));
            Vec::new()
        }
        None => Vec::new(),
    };
    if let Some(storage) = storage
        && !served.contains(&storage)
    {
        causes.push(Cause::invalid(
            "spec.versions",
            &json!(storage),
            "the testkit converts through a served storage version: the storage version must be served with strategy Webhook",
        ));
    }
    match (client.and_then(client_config::read), storage) {
        (Some(client), Some(storage)) if causes.is_empty() => {
            Ok(Conversion::Webhook(Arc::new(ConversionWebhook {
                client,
                ca_bundle,
                storage_version: storage.to_owned(),
            })))
        }
        _ => Err(causes),
    }
}

/// What a conversion is of, as kube-apiserver names it in errors: the group version
/// and kind of the object (or list) converted, `example.com/v1, Kind=Widget`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subject {
    /// `group/version` of the object converted.
    pub(crate) api_version: String,
    /// Its kind (the list kind for a list).
    pub(crate) kind: String,
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, Kind={}", self.api_version, self.kind)
    }
}

/// The indexes of the objects not yet at `desired` (`group/version`): the ones sent.
pub(crate) fn to_convert<'a>(
    objects: impl IntoIterator<Item = &'a Value>,
    desired: &str,
) -> Vec<usize> {
    objects
        .into_iter()
        .enumerate()
        .filter(|(_, object)| object.get("apiVersion").and_then(Value::as_str) != Some(desired))
        .map(|(i, _)| i)
        .collect()
}

/// A ConversionReview to send, serialized from the objects where they are (a list's
/// items are not copied).
#[derive(Serialize)]
struct Review<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    request: Request<'a>,
}

#[derive(Serialize)]
struct Request<'a> {
    uid: &'a str,
    #[serde(rename = "desiredAPIVersion")]
    desired_api_version: &'a str,
    objects: &'a [&'a Value],
}

/// The ConversionReview sent, as JSON: request `uid`, the desired `group/version`, the
/// objects.
pub(crate) fn review(uid: &str, desired: &str, objects: &[&Value]) -> Vec<u8> {
    let review = Review {
        api_version: REVIEW_API_VERSION,
        kind: "ConversionReview",
        request: Request {
            uid,
            desired_api_version: desired,
            objects,
        },
    };
    // JSON values and strings always serialize (every map key is a string).
    serde_json::to_vec(&review).unwrap_or_default()
}

/// The error a failed conversion answers with: 500 and the message kube-apiserver
/// gives (a plain error there, so a `Status` without a reason).
pub(crate) fn failed(message: String) -> ApiError {
    ApiError::new(500, "", message)
}

/// Reads the webhook's answer to a review of `sent` (the objects, in order) with `uid`:
/// the converted objects, or the message of the failure.
pub(crate) fn read_answer(
    bytes: &[u8],
    uid: &str,
    desired: &str,
    sent: &[&Value],
    subject: &Subject,
    list: bool,
) -> Result<Vec<Value>, String> {
    let converted = converted_objects(bytes, uid)
        .map_err(|why| format!("conversion webhook for {subject} failed: {why}"))?;
    if converted.len() != sent.len() {
        return Err(format!(
            "conversion webhook for {subject} returned {} objects, expected {}",
            converted.len(),
            sent.len()
        ));
    }
    let mut objects = Vec::with_capacity(converted.len());
    for (i, (original, converted)) in sent.iter().zip(converted).enumerate() {
        let object = if list {
            // kube-apiserver counts the object before checking it.
            let at = format!("at index {}", i + 1);
            check_object(original, converted, desired).map_err(|(step, why)| match step {
                Step::Shape => format!(
                    "conversion webhook for {subject} returned invalid converted object {at}: {why}"
                ),
                Step::Metadata => format!(
                    "conversion webhook for {subject} returned invalid metadata in object {at}: {why}"
                ),
            })?
        } else {
            check_object(original, converted, desired).map_err(|(step, why)| match step {
                Step::Shape => {
                    format!("conversion webhook for {subject} returned invalid object: {why}")
                }
                Step::Metadata => {
                    format!("conversion webhook for {subject} returned invalid metadata: {why}")
                }
            })?
        };
        objects.push(object);
    }
    Ok(objects)
}

/// `response.convertedObjects` of a successful answer with request `uid`.
fn converted_objects(bytes: &[u8], uid: &str) -> Result<Vec<Value>, String> {
    let mut review: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let api_version = review.get("apiVersion").and_then(Value::as_str);
    let kind = review.get("kind").and_then(Value::as_str);
    if api_version != Some(REVIEW_API_VERSION) || kind != Some("ConversionReview") {
        return Err(format!(
            "expected webhook response of {REVIEW_API_VERSION}, Kind=ConversionReview, got {}, Kind={}",
            api_version.unwrap_or_default(),
            kind.unwrap_or_default()
        ));
    }
    let Some(response) = review.get("response").filter(|r| r.is_object()) else {
        return Err("no response provided".to_owned());
    };
    let got = response
        .get("uid")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if got != uid {
        return Err(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    let result = response.get("result");
    let status = result
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if status != "Success" {
        let message = result
            .and_then(|r| r.get("message"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty());
        return Err(match message {
            Some(message) => message.to_owned(),
            None => format!("response.result.status was '{status}', not 'Success'"),
        });
    }
    let converted = review
        .pointer_mut("/response/convertedObjects")
        .map(Value::take);
    match converted {
        Some(Value::Array(objects)) => Ok(objects),
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(other) => Err(format!(
            "response.convertedObjects is a {}, not a list",
            type_name(&other)
        )),
    }
}

/// Which check an object failed: its identity or its labels and annotations.
enum Step {
    Shape,
    Metadata,
}

/// One converted object checked against the object sent: at `desired`, of the same
/// kind, name, namespace and uid; its metadata restored from the original but for its
/// labels and annotations, which must be valid.
fn check_object(
    original: &Value,
    mut converted: Value,
    desired: &str,
) -> Result<Value, (Step, String)> {
    let shape = |why: String| (Step::Shape, why);
    if !converted.is_object() {
        return Err(shape(
            "the converted object is not a JSON object".to_owned(),
        ));
    }
    let text = |object: &Value, key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let got = text(&converted, "apiVersion");
    if got != desired {
        return Err(shape(format!(
            "invalid groupVersion (expected {desired}, received {got})"
        )));
    }
    let (expected, got) = (text(original, "kind"), text(&converted, "kind"));
    if expected != got {
        return Err(shape(format!(
            "invalid kind (expected {expected}, received {got})"
        )));
    }
    for field in ["name", "namespace", "uid"] {
        let of = |object: &Value| meta::meta_str(object, field).unwrap_or_default().to_owned();
        let (expected, got) = (of(original), of(&converted));
        if expected != got {
            let name = match field {
                "uid" => "UID",
                other => other,
            };
            return Err(shape(format!(
                "must have the same {name}: {expected} != {got}"
            )));
        }
    }
    let metadata = restore_metadata(original, &converted).map_err(|why| (Step::Metadata, why))?;
    converted["metadata"] = metadata;
    Ok(converted)
}

/// The original's metadata with the converted object's labels and annotations.
fn restore_metadata(original: &Value, converted: &Value) -> Result<Value, String> {
    let Some(answered) = converted.get("metadata") else {
        return Err("missing metadata in converted object".to_owned());
    };
    let Some(answered) = answered.as_object() else {
        return Err(format!(
            "invalid metadata of type {} in converted object",
            type_name(answered)
        ));
    };
    let mut metadata = original
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for field in ["labels", "annotations"] {
        let value = match answered.get(field) {
            None | Some(Value::Null) => {
                metadata.remove(field);
                continue;
            }
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(format!(
                    "invalid metadata.{field} of type {} in converted object",
                    type_name(other)
                ));
            }
        };
        let before = metadata.get(field).and_then(Value::as_object);
        for (key, value) in value {
            if !value.is_string() {
                return Err(format!(
                    "metadata.{field}[{key}] must be a string, but is {} in converted object",
                    type_name(value)
                ));
            }
        }
        if before != Some(value) {
            check_map(field, value)?;
        }
        metadata.insert(field.to_owned(), Value::Object(value.clone()));
    }
    Ok(Value::Object(metadata))
}

/// Label or annotation validation of a map a webhook changed.
fn check_map(field: &str, map: &Map<String, Value>) -> Result<(), String> {
    let mut errors = Vec::new();
    let path = match field {
        "labels" => "metadata.labels",
        _ => "metadata.annotation",
    };
    for (key, value) in map {
        if let Some(why) = meta::qualified_name_error(key) {
            errors.push(format!("{path}: Invalid value: {key:?}: {why}"));
        }
        if field == "labels"
            && let Some(why) = value.as_str().and_then(meta::label_value_error)
        {
            errors.push(format!("{path}: Invalid value: {value}: {why}"));
        }
    }
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.remove(0)),
        _ => Err(format!("[{}]", errors.join(", "))),
    }
}

/// Go's name of a JSON value's decoded type, as the apiserver's messages print it.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests;
