//! What every webhook path shares: reading the body, the answers (a review, or a `400`
//! with a Kubernetes `Status`), panics caught, and the metrics around each request.

use std::fmt::Display;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use futures::FutureExt;
use futures::future::BoxFuture;
use kube::core::TypeMeta;
use serde::Serialize;

use crate::metrics::webhook::WebhookMetrics;

/// One webhook behind a path: a typed handler that turns a request body into an answer.
pub(super) trait Endpoint: Send + Sync + 'static {
    /// Answers the review in `body`.
    fn call(self: Arc<Self>, body: Bytes) -> BoxFuture<'static, Answer>;
}

/// A response, and whether it denied an admission request or failed a conversion.
pub(super) struct Answer {
    pub(super) response: Response,
    pub(super) denied: bool,
}

impl Answer {
    /// A `200` with `review` as JSON (a `500` if it cannot be encoded).
    pub(super) fn review(review: &impl Serialize, denied: bool) -> Self {
        let response = match serde_json::to_vec(review) {
            Ok(json) => ([(CONTENT_TYPE, "application/json")], json).into_response(),
            Err(error) => status(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("failed to encode the response: {error}"),
            ),
        };
        Self { response, denied }
    }

    /// A `500 Internal Server Error` saying `message`: the webhook's own failure.
    pub(super) fn internal_error(message: impl Display) -> Self {
        Self {
            response: status(StatusCode::INTERNAL_SERVER_ERROR, message),
            denied: false,
        }
    }

    /// A `400 Bad Request` saying `message`.
    pub(super) fn bad_request(message: impl Display) -> Self {
        Self {
            response: status(StatusCode::BAD_REQUEST, message),
            denied: false,
        }
    }
}

/// Why `types` is not the review a path expects (`api_version` `kind`), if it is not.
pub(super) fn check_review(types: &TypeMeta, api_version: &str, kind: &str) -> Option<String> {
    (types.api_version != api_version || types.kind != kind).then(|| {
        format!(
            "expected an {api_version} {kind}, got apiVersion {:?} kind {:?}",
            types.api_version, types.kind
        )
    })
}

/// Why `body`, which failed to decode as the review a path expects, is another review
/// altogether: `None` if it is JSON with the expected `apiVersion` and `kind` (then the
/// decode error says what is wrong) or no JSON object at all.
pub(super) fn wrong_review(body: &[u8], api_version: &str, kind: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Types {
        #[serde(default)]
        api_version: String,
        #[serde(default)]
        kind: String,
    }
    let types: Types = serde_json::from_slice(body).ok()?;
    check_review(
        &TypeMeta {
            api_version: types.api_version,
            kind: types.kind,
        },
        api_version,
        kind,
    )
}

/// A response with a Kubernetes `Status` body, which the API server's webhook client
/// reads its message from.
pub(super) fn status(code: StatusCode, message: impl Display) -> Response {
    let reason = match code {
        StatusCode::BAD_REQUEST => "BadRequest",
        StatusCode::PAYLOAD_TOO_LARGE => "RequestEntityTooLarge",
        _ => "InternalError",
    };
    let body = serde_json::json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message.to_string(),
        "reason": reason,
        "code": code.as_u16(),
    });
    (code, [(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// Serves one request to `endpoint`: reads at most `limit` bytes of body, calls the
/// handler (a panic becomes a `500`) and reports the request to `metrics`.
pub(super) async fn serve(
    endpoint: Arc<dyn Endpoint>,
    metrics: Option<Arc<dyn WebhookMetrics>>,
    limit: usize,
    body: Body,
) -> Response {
    let in_flight = InFlight::start(metrics);
    let answer = match axum::body::to_bytes(body, limit).await {
        Ok(body) => match AssertUnwindSafe(endpoint.call(body)).catch_unwind().await {
            Ok(answer) => answer,
            Err(panic) => {
                let what = panic_message(panic.as_ref());
                tracing::error!(panic = what, "a webhook handler panicked");
                if let Some(metrics) = &in_flight.metrics {
                    metrics.panicked();
                }
                Answer {
                    response: status(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the webhook handler panicked: {what}"),
                    ),
                    denied: false,
                }
            }
        },
        Err(error) => Answer {
            // axum reports a body over the limit as a length-limit error.
            response: match std::error::Error::source(&error)
                .is_some_and(|source| source.is::<http_body_util::LengthLimitError>())
            {
                true => status(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body is larger than {limit} bytes"),
                ),
                false => status(
                    StatusCode::BAD_REQUEST,
                    format!("failed to read the request body: {error}"),
                ),
            },
            denied: false,
        },
    };
    in_flight.finish(&answer);
    answer.response
}

/// The text of a panic payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string payload")
}

/// One request in flight: reported as abandoned if dropped before it finished (the
/// client closed the connection and hyper dropped the handler's future).
struct InFlight {
    metrics: Option<Arc<dyn WebhookMetrics>>,
    started: Instant,
    finished: bool,
}

impl InFlight {
    fn start(metrics: Option<Arc<dyn WebhookMetrics>>) -> Self {
        if let Some(metrics) = &metrics {
            metrics.started();
        }
        Self {
            metrics,
            started: Instant::now(),
            finished: false,
        }
    }

    fn finish(mut self, answer: &Answer) {
        self.finished = true;
        if let Some(metrics) = &self.metrics {
            if answer.denied {
                metrics.denied();
            }
            metrics.finished(answer.response.status().as_u16(), self.started.elapsed());
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if !self.finished
            && let Some(metrics) = &self.metrics
        {
            metrics.abandoned();
        }
    }
}
