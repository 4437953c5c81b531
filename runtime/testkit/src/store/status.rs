//! `metav1.Status` errors: what the server answers when a request fails.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One entry of `details.causes` in a `metav1.Status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cause {
    /// Machine-readable reason, e.g. `FieldValueRequired`.
    pub(crate) reason: &'static str,
    /// Human-readable message, e.g. `Required value`.
    pub(crate) message: String,
    /// Field path, e.g. `spec.replicas`.
    pub(crate) field: String,
}

impl Cause {
    pub(crate) fn new(
        reason: &'static str,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            reason,
            message: message.into(),
            field: field.into(),
        }
    }

    pub(crate) fn required(field: impl Into<String>) -> Self {
        Self::new("FieldValueRequired", field, "Required value")
    }

    pub(crate) fn invalid(
        field: impl Into<String>,
        value: &Value,
        detail: impl AsRef<str>,
    ) -> Self {
        Self::new(
            "FieldValueInvalid",
            field,
            format!(
                "Invalid value: {}: {}",
                render_value(value),
                detail.as_ref()
            ),
        )
    }

    fn to_json(&self) -> Value {
        json!({"reason": self.reason, "message": self.message, "field": self.field})
    }
}

/// Renders a value the way apimachinery's field errors quote it.
pub(crate) fn render_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Object(_) => "\"object\"".to_owned(),
        Value::Array(_) => "\"array\"".to_owned(),
        other => other.to_string(),
    }
}

/// A failed request, answered as a `metav1.Status` with the matching HTTP code.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code} {reason}: {message}")]
pub(crate) struct ApiError {
    /// HTTP status code (also `code` in the body).
    pub(crate) code: u16,
    /// `reason` in the body, e.g. `NotFound`.
    pub(crate) reason: &'static str,
    /// `message` in the body.
    pub(crate) message: String,
    /// `details` in the body (name, group, kind, causes).
    pub(crate) details: Option<Value>,
    /// `Retry-After` header and `details.retryAfterSeconds`.
    pub(crate) retry_after: Option<u64>,
}

/// What an error is about: the resource (plural), its group and the object name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subject<'a> {
    pub(crate) group: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) name: &'a str,
}

impl Subject<'_> {
    fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.to_owned()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    fn details(&self) -> Value {
        let mut details = json!({"name": self.name, "kind": self.resource});
        if !self.group.is_empty() {
            details["group"] = json!(self.group);
        }
        details
    }
}

impl ApiError {
    pub(crate) fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
            retry_after: None,
        }
    }

    fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// 404 NotFound for an object.
    pub(crate) fn not_found(subject: Subject<'_>) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} {:?} not found", subject.qualified(), subject.name),
        )
        .with_details(subject.details())
    }

    /// 404 NotFound for a path the server does not serve.
    pub(crate) fn no_route() -> Self {
        Self::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    /// 409 AlreadyExists.
    pub(crate) fn already_exists(subject: Subject<'_>) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} {:?} already exists", subject.qualified(), subject.name),
        )
        .with_details(subject.details())
    }

    /// 409 Conflict with a reason such as a stale resourceVersion.
    pub(crate) fn conflict(subject: Subject<'_>, why: impl AsRef<str>) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} {:?}: {}",
                subject.qualified(),
                subject.name,
                why.as_ref()
            ),
        )
        .with_details(subject.details())
    }

    /// 409 Conflict for an update carrying a stale resourceVersion.
    pub(crate) fn stale(subject: Subject<'_>) -> Self {
        Self::conflict(
            subject,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 Invalid listing every offending field.
    pub(crate) fn invalid(group: &str, kind: &str, name: &str, causes: Vec<Cause>) -> Self {
        let qualified = if group.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}.{group}")
        };
        let listed: Vec<String> = causes
            .iter()
            .map(|c| {
                if c.field.is_empty() {
                    c.message.clone()
                } else {
                    format!("{}: {}", c.field, c.message)
                }
            })
            .collect();
        let joined = if listed.len() == 1 {
            listed[0].clone()
        } else {
            format!("[{}]", listed.join(", "))
        };
        let mut details = json!({
            "name": name,
            "kind": kind,
            "causes": causes.iter().map(Cause::to_json).collect::<Vec<_>>(),
        });
        if !group.is_empty() {
            details["group"] = json!(group);
        }
        Self::new(
            422,
            "Invalid",
            format!("{qualified} {name:?} is invalid: {joined}"),
        )
        .with_details(details)
    }

    /// 400 BadRequest.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 403 Forbidden.
    pub(crate) fn forbidden(subject: Subject<'_>, why: impl AsRef<str>) -> Self {
        Self::new(
            403,
            "Forbidden",
            format!(
                "{} {:?} is forbidden: {}",
                subject.qualified(),
                subject.name,
                why.as_ref()
            ),
        )
        .with_details(subject.details())
    }

    /// 403 Forbidden for a request the authorizer denied, as apimachinery's
    /// `NewForbidden` builds it: `<resource>[.<group>] ["<name>"] is forbidden: <why>`,
    /// or `forbidden: <why>` for a path that is no resource (then `details` is empty).
    pub(crate) fn forbidden_request(group: &str, resource: &str, name: &str, why: &str) -> Self {
        let qualified = if group.is_empty() {
            resource.to_owned()
        } else {
            format!("{resource}.{group}")
        };
        let message = match (resource.is_empty(), name.is_empty()) {
            (true, _) => format!("forbidden: {why}"),
            (false, true) => format!("{qualified} is forbidden: {why}"),
            (false, false) => format!("{qualified} {name:?} is forbidden: {why}"),
        };
        let mut details = serde_json::Map::new();
        for (field, value) in [("name", name), ("group", group), ("kind", resource)] {
            if !value.is_empty() {
                details.insert(field.to_owned(), json!(value));
            }
        }
        Self::new(403, "Forbidden", message).with_details(Value::Object(details))
    }

    /// 401 Unauthorized: a bearer token the server does not know.
    pub(crate) fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// 405 MethodNotAllowed.
    pub(crate) fn method_not_allowed() -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
        .with_details(json!({}))
    }

    /// 410 Gone with reason Expired (a resourceVersion older than the kept history).
    pub(crate) fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// 415 UnsupportedMediaType.
    pub(crate) fn unsupported_media_type(content_type: &str) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json, application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml; got {content_type:?}"
            ),
        )
    }

    /// 415 UnsupportedMediaType for a PATCH body type; strategic merge patch is listed
    /// only where it is accepted (built-in kinds).
    pub(crate) fn unsupported_patch_type(content_type: &str, strategic: bool) -> Self {
        let strategic = if strategic {
            ", application/strategic-merge-patch+json"
        } else {
            ""
        };
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml{strategic}; got {content_type:?}"
            ),
        )
    }

    /// 406 NotAcceptable: the Accept header names nothing the server can send.
    pub(crate) fn not_acceptable(message: impl Into<String>) -> Self {
        Self::new(406, "NotAcceptable", message)
    }

    /// 413 RequestEntityTooLarge for a body over the server's limit.
    pub(crate) fn request_entity_too_large(limit: usize) -> Self {
        Self::new(
            413,
            "RequestEntityTooLarge",
            format!("Request entity too large: limit is {limit}"),
        )
    }

    /// 504 Timeout for a resourceVersion newer than the server's.
    pub(crate) fn too_large_resource_version(requested: u64, current: u64) -> Self {
        Self::new(504, "Timeout", format!("Too large resource version: {requested}, current: {current}"))
            .with_details(json!({
                "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                "retryAfterSeconds": 1,
            }))
    }

    /// 500 InternalError.
    pub(crate) fn internal(message: impl AsRef<str>) -> Self {
        Self::new(
            500,
            "InternalError",
            format!("Internal error occurred: {}", message.as_ref()),
        )
    }

    /// An error with the reason a real server gives for `code` (used by fault injection).
    pub(crate) fn injected(code: u16, retry_after: Option<u64>) -> Self {
        let (reason, message) = match code {
            400 => ("BadRequest", "injected fault: bad request"),
            401 => ("Unauthorized", "injected fault: unauthorized"),
            403 => ("Forbidden", "injected fault: forbidden"),
            404 => ("NotFound", "injected fault: not found"),
            405 => ("MethodNotAllowed", "injected fault: method not allowed"),
            409 => ("Conflict", "injected fault: conflict"),
            410 => ("Expired", "injected fault: resource version expired"),
            415 => (
                "UnsupportedMediaType",
                "injected fault: unsupported media type",
            ),
            422 => ("Invalid", "injected fault: invalid"),
            429 => (
                "TooManyRequests",
                "injected fault: too many requests, please try again later",
            ),
            503 => ("ServiceUnavailable", "injected fault: service unavailable"),
            504 => ("Timeout", "injected fault: timeout"),
            _ => ("InternalError", "injected fault: internal error"),
        };
        let mut error = Self::new(code, reason, message);
        if let Some(seconds) = retry_after {
            error.retry_after = Some(seconds);
            error.details = Some(json!({"retryAfterSeconds": seconds}));
        }
        error
    }

    /// The `metav1.Status` body.
    pub(crate) fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty()
            && let Some(map) = status.as_object_mut()
        {
            // `reason` is omitted when unknown, as Go's `omitempty` does.
            map.remove("reason");
        }
        if let Some(details) = &self.details {
            status["details"] = details.clone();
        }
        status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (code, axum::Json(self.to_status())).into_response();
        if let Some(seconds) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// Result of a request handler.
pub(crate) type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_names_the_group_qualified_resource() {
        let subject = Subject {
            group: "apps",
            resource: "deployments",
            name: "web",
        };
        let status = ApiError::not_found(subject).to_status();
        assert_eq!(status["message"], "deployments.apps \"web\" not found");
        assert_eq!(status["details"]["group"], "apps");
        assert_eq!(status["code"], 404);
    }

    #[test]
    fn invalid_with_several_causes_brackets_them() {
        let error = ApiError::invalid(
            "example.com",
            "Foo",
            "x",
            vec![Cause::required("spec.a"), Cause::required("spec.b")],
        );
        assert_eq!(
            error.message,
            "Foo.example.com \"x\" is invalid: [spec.a: Required value, spec.b: Required value]"
        );
        assert_eq!(error.to_status()["details"]["causes"][1]["field"], "spec.b");
    }
}
