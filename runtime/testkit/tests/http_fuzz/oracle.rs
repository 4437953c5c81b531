//! The properties every single answer must have.

use serde_json::Value;

use super::kinds::KINDS;
use super::request::{FuzzRequest, Shape};
use super::wire::Response;

/// Request bodies above this get 413 (the server's limit).
const MAX_BODY: usize = 3 * 1024 * 1024;

const STANDARD: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];

/// Whether the method is one the server serves on this shape of path.
fn method_fits(request: &FuzzRequest) -> bool {
    let method = request.method.as_str();
    match &request.shape {
        Shape::Discovery => method == "GET",
        Shape::Collection => matches!(method, "GET" | "POST" | "DELETE"),
        Shape::Object => matches!(method, "GET" | "PUT" | "PATCH" | "DELETE"),
        Shape::Subresource(_) => matches!(method, "GET" | "PUT" | "PATCH"),
        Shape::Unknown => STANDARD.contains(&method),
    }
}

/// Whether the request's Content-Type is one the server decodes for its method.
fn content_type_served(request: &FuzzRequest) -> bool {
    let custom = request.kind.is_some_and(|k| KINDS[k].custom);
    let media = request.content_type();
    match request.method.as_str() {
        "PATCH" => {
            matches!(
                media.as_deref(),
                Some(
                    "application/merge-patch+json"
                        | "application/json-patch+json"
                        | "application/apply-patch+yaml"
                )
            ) || (!custom && media.as_deref() == Some("application/strategic-merge-patch+json"))
        }
        "POST" | "PUT" => match media.as_deref() {
            None | Some("application/json" | "application/yaml" | "" | "*/*") => true,
            Some("application/vnd.kubernetes.protobuf") => !custom,
            Some(_) => false,
        },
        _ => true,
    }
}

/// The Accept header, when it asks for anything but plain JSON.
fn special_accept(request: &FuzzRequest) -> bool {
    request
        .header("accept")
        .is_some_and(|a| !matches!(a, b"application/json" | b"*/*" | b"application/json, */*"))
}

/// Checks one answer; the error says which property broke.
pub fn check(request: &FuzzRequest, response: &Response) -> Result<(), String> {
    let code = response.status;
    let head = request.method == "HEAD";
    if (200..300).contains(&code) {
        return check_success(request, response);
    }
    if !head {
        check_status_body(response)?;
    }
    let plausible = match code {
        400 | 422 => true,
        404 => true,
        405 => !method_fits(request),
        403 | 409 => matches!(request.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE"),
        406 => special_accept(request),
        410 => request.has_query("resourceVersion") || request.has_query("continue"),
        // ResourceVersionTooLarge: a real server waits, then answers 504 Timeout.
        504 => request.has_query("resourceVersion"),
        413 => request.body.len() > MAX_BODY,
        415 => !content_type_served(request),
        // As on a real server: a create with a resourceVersion fails in storage, and
        // strategic merge errors apimachinery does not classify are internal errors.
        500 => {
            response
                .text()
                .contains("resourceVersion should not be set on objects to be created")
                || request.content_type().as_deref()
                    == Some("application/strategic-merge-patch+json")
        }
        _ => false,
    };
    if !plausible {
        return Err(format!("{code} is not a plausible answer to this request"));
    }
    if request.shape == Shape::Unknown && code != 404 && code != 413 {
        return Err(format!("a path naming nothing got {code}, not 404"));
    }
    if request.kind.is_some() && !method_fits(request) && !matches!(code, 404 | 405 | 413) {
        return Err(format!(
            "a method the path does not serve got {code}, not 405"
        ));
    }
    Ok(())
}

fn check_status_body(response: &Response) -> Result<(), String> {
    let code = response.status;
    let content_type = response.header("content-type").unwrap_or_default();
    if !content_type.starts_with("application/json") {
        return Err(format!("error answered as {content_type:?}, not JSON"));
    }
    let status = response.json()?;
    let expect = |field: &str, wanted: Value| -> Result<(), String> {
        if status.get(field) == Some(&wanted) {
            Ok(())
        } else {
            Err(format!(
                "Status field {field} is {:?}, not {wanted}",
                status.get(field)
            ))
        }
    };
    expect("kind", Value::from("Status"))?;
    expect("apiVersion", Value::from("v1"))?;
    expect("status", Value::from("Failure"))?;
    expect("code", Value::from(code))?;
    if status["message"].as_str().is_none_or(str::is_empty) {
        return Err("Status without a message".to_owned());
    }
    if !status["reason"].is_string() && code != 500 {
        return Err("Status without a reason".to_owned());
    }
    Ok(())
}

fn check_success(request: &FuzzRequest, response: &Response) -> Result<(), String> {
    let code = response.status;
    if request.shape == Shape::Unknown {
        return Err(format!("a path naming nothing got {code}"));
    }
    if !method_fits(request) {
        return Err(format!("{} on this path got {code}", request.method));
    }
    let created = code == 201 && matches!(request.method.as_str(), "POST" | "PATCH");
    if code != 200 && !created {
        return Err(format!(
            "{code} is not a plausible success for {}",
            request.method
        ));
    }
    if request.method == "HEAD"
        || request.target.starts_with("/healthz")
        || request.target.starts_with("/readyz")
    {
        return Ok(());
    }
    let content_type = response.header("content-type").unwrap_or_default();
    if content_type.starts_with("application/vnd.kubernetes.protobuf") {
        if !response.body.starts_with(b"k8s\0") {
            return Err("protobuf answer without the k8s envelope".to_owned());
        }
        return Ok(());
    }
    if !content_type.starts_with("application/json") {
        return Err(format!("success answered as {content_type:?}"));
    }
    if request.watch && request.method == "GET" && request.shape == Shape::Collection {
        return check_watch(response);
    }
    let body = response.json()?;
    if !body.is_object() {
        return Err("success body is not a JSON object".to_owned());
    }
    Ok(())
}

/// A watch streams events: every complete line is an event with a type and an object;
/// an ERROR event carries a Status.
fn check_watch(response: &Response) -> Result<(), String> {
    let text = std::str::from_utf8(&response.body)
        .map_err(|e| format!("watch stream is not UTF-8: {e}"))?;
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None if response.streaming => "",
        None => text,
    };
    for line in complete.lines().filter(|l| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line)
            .map_err(|e| format!("watch line is not JSON ({e}): {line}"))?;
        let kind = event["type"].as_str().unwrap_or_default();
        if !matches!(
            kind,
            "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"
        ) {
            return Err(format!("watch event of type {kind:?}: {line}"));
        }
        if !event["object"].is_object() {
            return Err(format!("watch event without an object: {line}"));
        }
        if kind == "ERROR" && event["object"]["kind"] != "Status" {
            return Err(format!("ERROR event without a Status: {line}"));
        }
    }
    Ok(())
}
