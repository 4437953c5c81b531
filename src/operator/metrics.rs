//! An operator's Prometheus metrics, served over HTTP (feature `metrics`).

use std::future::Future;
use std::sync::Arc;

use kubegen_runtime::controller::ControllerConfig;
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::leaderelection::LeaderElectionConfig;
use kubegen_runtime::metrics::prometheus::{
    PrometheusControllerMetrics, PrometheusInformerMetrics, PrometheusLeaderElectionMetrics,
    PrometheusWorkqueueMetrics,
};
use kubegen_runtime::workqueue::QueueConfig;
use prometheus_client::registry::Registry;

/// The content type of the OpenMetrics text `prometheus_client` encodes.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// One registry holding the runtime's metrics under client-go's and controller-runtime's
/// names: controllers (`controller_runtime_reconcile_total`...), their work queues
/// (`workqueue_depth`...), informers and reflectors, and leader election
/// (`leader_election_master_status`). [`instrument`](Self::instrument) the controller,
/// the informer factory and the election with it, then [`serve`](Self::serve) it.
///
/// ```
/// use kubegen::operator::Metrics;
/// use kubegen::runtime::controller::ControllerConfig;
///
/// let metrics = Metrics::new();
/// let config = metrics.instrument(ControllerConfig::default().name("foos"));
/// assert!(metrics.encode().contains("# EOF"));
/// # let _ = config;
/// ```
#[derive(Clone, Debug)]
pub struct Metrics {
    registry: Arc<Registry>,
    controllers: PrometheusControllerMetrics,
    queues: PrometheusWorkqueueMetrics,
    informers: PrometheusInformerMetrics,
    leader_election: PrometheusLeaderElectionMetrics,
    #[cfg(feature = "webhook")]
    webhooks: kubegen_runtime::metrics::prometheus::PrometheusWebhookMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A registry with every family registered.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let controllers = PrometheusControllerMetrics::register(&mut registry);
        let queues = PrometheusWorkqueueMetrics::register(&mut registry);
        let informers = PrometheusInformerMetrics::register(&mut registry);
        let leader_election = PrometheusLeaderElectionMetrics::register(&mut registry);
        #[cfg(feature = "webhook")]
        let webhooks =
            kubegen_runtime::metrics::prometheus::PrometheusWebhookMetrics::register(&mut registry);
        Self {
            registry: Arc::new(registry),
            controllers,
            queues,
            informers,
            leader_election,
            #[cfg(feature = "webhook")]
            webhooks,
        }
    }

    /// `config` reporting its reconciles and its work queue here. It replaces the
    /// config's queue configuration with a default one reporting here: set a queue of
    /// your own with [`queue_config`](Self::queue_config) instead.
    pub fn instrument(&self, config: ControllerConfig) -> ControllerConfig {
        config
            .metrics(self.controllers.clone())
            .queue(self.queue_config(QueueConfig::default()))
    }

    /// `queue` reporting here.
    pub fn queue_config(&self, queue: QueueConfig) -> QueueConfig {
        queue.metrics(self.queues.clone())
    }

    /// `factory` with its informers and reflectors reporting here.
    pub fn instrument_informers(&self, factory: SharedInformerFactory) -> SharedInformerFactory {
        factory.metrics(Arc::new(self.informers.clone()))
    }

    /// `config` reporting whether this replica leads.
    pub fn instrument_election(&self, config: LeaderElectionConfig) -> LeaderElectionConfig {
        config.metrics(self.leader_election.clone())
    }

    /// `config` with the webhook server's requests reported here (feature `webhook`):
    /// controller-runtime's `controller_runtime_webhook_*` series by path.
    #[cfg(feature = "webhook")]
    pub fn instrument_webhooks(
        &self,
        config: kubegen_runtime::webhook::WebhookServerConfig,
    ) -> kubegen_runtime::webhook::WebhookServerConfig {
        config.metrics(self.webhooks.clone())
    }

    /// Every metric, in the OpenMetrics text format Prometheus scrapes.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!(%error, "failed to encode the metrics");
        }
        text
    }

    /// Serves `GET /metrics` (this registry) and `GET /healthz` (`ok` while the process
    /// runs) on `listener` until `shutdown` resolves, then finishes the requests in
    /// flight.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await
    }

    /// `GET /metrics` and `GET /healthz`, for a server that adds routes of its own (the
    /// [`Manager`](super::Manager)'s `/readyz`).
    pub(crate) fn router(self) -> axum::Router {
        use axum::http::header::CONTENT_TYPE;
        use axum::routing::get;
        let metrics = self;
        axum::Router::new()
            .route(
                "/metrics",
                get(move || {
                    let metrics = metrics.clone();
                    async move { ([(CONTENT_TYPE, OPENMETRICS)], metrics.encode()) }
                }),
            )
            .route("/healthz", get(|| async { "ok" }))
    }
}
