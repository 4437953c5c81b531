//! Metrics of the [webhook server](crate::webhook) (feature `webhook`), with
//! controller-runtime's names.
//!
//! The server asks its [`WebhookMetricsProvider`] once per registered path, when it
//! starts serving, for a [`WebhookMetrics`] handle and reports every request to that path
//! through it:
//!
//! | event | handle call | metric |
//! |---|---|---|
//! | a request to the path arrives | [`started`](WebhookMetrics::started) | `controller_runtime_webhook_requests_in_flight{webhook}` up by one |
//! | its response is ready | [`finished`](WebhookMetrics::finished) | `controller_runtime_webhook_requests_total{webhook,code}`, `controller_runtime_webhook_latency_seconds{webhook}`, in flight down by one |
//! | the client went away first | [`abandoned`](WebhookMetrics::abandoned) | in flight down by one |
//! | an admission request was denied, or a conversion failed | [`denied`](WebhookMetrics::denied) | `kubegen_webhook_denials_total{webhook}` |
//! | the handler panicked (answered with a 500) | [`panicked`](WebhookMetrics::panicked) | `controller_runtime_webhook_panics_total` |
//!
//! `code` is the HTTP status of the response: a denial is a `200` whose body says
//! `allowed: false`, hence the separate denial counter (controller-runtime has none).
//! The `webhook` label is the path (`/validate-foo`), as in controller-runtime.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use super::NoopMetrics;

/// Builds the metrics handle of each webhook path.
pub trait WebhookMetricsProvider: Debug + Send + Sync + 'static {
    /// The handle the webhook served at `path` reports through, or `None` to record
    /// nothing for it.
    fn webhook_metrics(&self, path: &str) -> Option<Arc<dyn WebhookMetrics>>;
}

impl WebhookMetricsProvider for NoopMetrics {
    fn webhook_metrics(&self, _: &str) -> Option<Arc<dyn WebhookMetrics>> {
        None
    }
}

impl<P: WebhookMetricsProvider + ?Sized> WebhookMetricsProvider for Arc<P> {
    fn webhook_metrics(&self, path: &str) -> Option<Arc<dyn WebhookMetrics>> {
        (**self).webhook_metrics(path)
    }
}

/// The events of one webhook path. Every method has a default that does nothing, so an
/// implementation overrides only what it records.
pub trait WebhookMetrics: Debug + Send + Sync {
    /// A request arrived (in flight up by one).
    fn started(&self) {}

    /// The response to a request is ready, with HTTP status `code`, `latency` after the
    /// request arrived (in flight down by one).
    fn finished(&self, code: u16, latency: Duration) {
        let _ = (code, latency);
    }

    /// The client closed the connection before the response was ready (in flight down
    /// by one; nothing counted).
    fn abandoned(&self) {}

    /// The request was an admission request the handler denied, or a conversion that
    /// failed.
    fn denied(&self) {}

    /// The handler panicked; the request is answered with a `500`.
    fn panicked(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noop_provider_declines() {
        assert!(NoopMetrics.webhook_metrics("/validate").is_none());
        assert!(Arc::new(NoopMetrics).webhook_metrics("/validate").is_none());
    }
}
