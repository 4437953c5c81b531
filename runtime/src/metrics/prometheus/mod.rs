//! Prometheus implementations of the metrics traits, on the [`prometheus_client`] crate
//! (feature `prometheus`).
//!
//! One type per component family, each registering its metrics into a
//! [`Registry`](prometheus_client::registry::Registry) under client-go's metric names:
//!
//! - [`PrometheusWorkqueueMetrics`] for the [work queues](crate::workqueue).
//! - [`PrometheusInformerMetrics`] for reflectors and informers.
//! - [`PrometheusLeaderElectionMetrics`] for [leader electors](crate::leaderelection).

mod informer;
mod leaderelection;
mod workqueue;

pub use informer::PrometheusInformerMetrics;
pub use leaderelection::PrometheusLeaderElectionMetrics;
pub use workqueue::PrometheusWorkqueueMetrics;
