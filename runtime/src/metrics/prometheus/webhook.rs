//! Webhook server metrics in Prometheus, with controller-runtime's names, labels and
//! buckets.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::metrics::webhook::{WebhookMetrics, WebhookMetricsProvider};

/// The `webhook` label carried by every series but the panics.
type Labels = [(&'static str, String); 1];

/// The labels of `controller_runtime_webhook_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabels {
    webhook: String,
    code: String,
}

type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

/// Prometheus' default buckets (`prometheus.DefBuckets`), which controller-runtime uses
/// for `controller_runtime_webhook_latency_seconds`.
const LATENCY_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The status codes whose series exist (at zero) from the start, as in controller-runtime.
const INITIAL_CODES: [u16; 2] = [200, 500];

/// Webhook metrics registered in a Prometheus registry:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `controller_runtime_webhook_requests_total` | counter | `webhook` (the path), `code` (HTTP status) |
/// | `controller_runtime_webhook_latency_seconds` | histogram | `webhook` |
/// | `controller_runtime_webhook_requests_in_flight` | gauge | `webhook` |
/// | `controller_runtime_webhook_panics_total` | counter | none |
/// | `kubegen_webhook_denials_total` | counter | `webhook` |
///
/// The first four are controller-runtime's; the denials counter is kubegen's (a denial is
/// an HTTP `200`). Every series of a path exists from the moment the server starts
/// serving it, with the codes `200` and `500`. Register once and hand it to the
/// [`WebhookServerConfig`](crate::webhook::WebhookServerConfig).
///
/// ```
/// use std::time::Duration;
/// use kubegen_runtime::metrics::prometheus::PrometheusWebhookMetrics;
/// use kubegen_runtime::metrics::webhook::WebhookMetricsProvider;
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = PrometheusWebhookMetrics::register(&mut registry);
/// let validate = metrics.webhook_metrics("/validate-foo").unwrap();
/// validate.started();
/// validate.denied();
/// validate.finished(200, Duration::from_millis(2));
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// assert!(text.contains(r#"controller_runtime_webhook_requests_total{webhook="/validate-foo",code="200"} 1"#));
/// assert!(text.contains(r#"kubegen_webhook_denials_total{webhook="/validate-foo"} 1"#));
/// ```
#[derive(Clone, Debug)]
pub struct PrometheusWebhookMetrics {
    families: Arc<Families>,
}

#[derive(Debug)]
struct Families {
    requests: Family<CodeLabels, Counter>,
    latency: HistogramFamily,
    in_flight: Family<Labels, Gauge>,
    denials: Family<Labels, Counter>,
    panics: Counter,
}

impl PrometheusWebhookMetrics {
    /// Registers the webhook metric families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let families = Families {
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
            in_flight: Family::default(),
            denials: Family::default(),
            panics: Counter::default(),
        };
        // prometheus-client appends `_total` to counters.
        registry.register(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code",
            families.requests.clone(),
        );
        registry.register(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            families.latency.clone(),
        );
        registry.register(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served",
            families.in_flight.clone(),
        );
        registry.register(
            "controller_runtime_webhook_panics",
            "Total number of webhook panics",
            families.panics.clone(),
        );
        registry.register(
            "kubegen_webhook_denials",
            "Total number of admission requests denied and conversion reviews failed",
            families.denials.clone(),
        );
        Self {
            families: Arc::new(families),
        }
    }
}

impl WebhookMetricsProvider for PrometheusWebhookMetrics {
    fn webhook_metrics(&self, path: &str) -> Option<Arc<dyn WebhookMetrics>> {
        let labels: Labels = [("webhook", path.to_owned())];
        let f = &self.families;
        for code in INITIAL_CODES {
            f.requests.get_or_create_owned(&CodeLabels {
                webhook: path.to_owned(),
                code: code.to_string(),
            });
        }
        Some(Arc::new(WebhookSeries {
            webhook: path.to_owned(),
            families: Arc::clone(f),
            latency: f.latency.get_or_create_owned(&labels),
            in_flight: f.in_flight.get_or_create_owned(&labels),
            denials: f.denials.get_or_create_owned(&labels),
        }))
    }
}

/// The series of one webhook path.
#[derive(Debug)]
struct WebhookSeries {
    webhook: String,
    /// For the request counter, whose `code` label is only known per response.
    families: Arc<Families>,
    latency: Histogram,
    in_flight: Gauge,
    denials: Counter,
}

impl WebhookMetrics for WebhookSeries {
    fn started(&self) {
        self.in_flight.inc();
    }

    fn finished(&self, code: u16, latency: Duration) {
        self.in_flight.dec();
        self.latency.observe(latency.as_secs_f64());
        self.families
            .requests
            .get_or_create(&CodeLabels {
                webhook: self.webhook.clone(),
                code: code.to_string(),
            })
            .inc();
    }

    fn abandoned(&self) {
        self.in_flight.dec();
    }

    fn denied(&self) {
        self.denials.inc();
    }

    fn panicked(&self) {
        self.families.panics.inc();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn encode(registry: &Registry) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
        text
    }

    #[test]
    fn every_series_exists_at_zero_once_a_path_is_served() {
        let mut registry = Registry::default();
        let provider = PrometheusWebhookMetrics::register(&mut registry);
        let _path = provider.webhook_metrics("/convert").unwrap();
        let text = encode(&registry);
        for line in [
            r#"controller_runtime_webhook_requests_total{webhook="/convert",code="200"} 0"#,
            r#"controller_runtime_webhook_requests_total{webhook="/convert",code="500"} 0"#,
            r#"controller_runtime_webhook_latency_seconds_count{webhook="/convert"} 0"#,
            r#"controller_runtime_webhook_requests_in_flight{webhook="/convert"} 0"#,
            r#"kubegen_webhook_denials_total{webhook="/convert"} 0"#,
            "controller_runtime_webhook_panics_total 0",
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }

    #[test]
    fn each_event_lands_in_its_series() {
        let mut registry = Registry::default();
        let provider = PrometheusWebhookMetrics::register(&mut registry);
        let validate = provider.webhook_metrics("/validate").unwrap();
        let mutate = provider.webhook_metrics("/mutate").unwrap();

        validate.started();
        validate.denied();
        validate.finished(200, Duration::from_millis(3));
        validate.started();
        validate.finished(400, Duration::from_millis(1));
        validate.started();
        validate.started();
        validate.abandoned();
        mutate.started();
        mutate.panicked();
        mutate.finished(500, Duration::from_secs(20));

        let text = encode(&registry);
        for line in [
            r#"controller_runtime_webhook_requests_total{webhook="/validate",code="200"} 1"#,
            r#"controller_runtime_webhook_requests_total{webhook="/validate",code="400"} 1"#,
            r#"controller_runtime_webhook_requests_in_flight{webhook="/validate"} 1"#,
            r#"kubegen_webhook_denials_total{webhook="/validate"} 1"#,
            r#"controller_runtime_webhook_latency_seconds_bucket{le="0.005",webhook="/validate"} 2"#,
            r#"controller_runtime_webhook_requests_total{webhook="/mutate",code="500"} 1"#,
            r#"controller_runtime_webhook_requests_in_flight{webhook="/mutate"} 0"#,
            r#"controller_runtime_webhook_latency_seconds_bucket{le="10.0",webhook="/mutate"} 0"#,
            "controller_runtime_webhook_panics_total 1",
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }
}
