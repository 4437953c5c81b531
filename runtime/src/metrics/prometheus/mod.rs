//! Prometheus implementations of the metrics traits, on the [`prometheus_client`] crate
//! (feature `prometheus`).
//!
//! One type per component family, each registering its metrics into a
//! [`Registry`](prometheus_client::registry::Registry) under client-go's metric names:
//!
//! - [`PrometheusWorkqueueMetrics`] for the [work queues](crate::workqueue).
//! - [`PrometheusInformerMetrics`] for reflectors and informers.
//! - [`PrometheusLeaderElectionMetrics`] for [leader electors](crate::leaderelection).
//! - [`PrometheusControllerMetrics`] for [controllers](crate::controller), under
//!   controller-runtime's names.
//! - `PrometheusWebhookMetrics` for the webhook server (feature `webhook`), under
//!   controller-runtime's names.

mod controller;
mod informer;
mod leaderelection;
#[cfg(feature = "webhook")]
mod webhook;
mod workqueue;

pub use controller::PrometheusControllerMetrics;
pub use informer::PrometheusInformerMetrics;
pub use leaderelection::PrometheusLeaderElectionMetrics;
#[cfg(feature = "webhook")]
pub use webhook::PrometheusWebhookMetrics;
pub use workqueue::PrometheusWorkqueueMetrics;
