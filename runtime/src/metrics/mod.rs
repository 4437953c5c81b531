//! Small metrics traits shared by every runtime component.
//!
//! Each component family has its own provider trait, asked once per component instance
//! (for example once per named work queue) for the handle that component reports
//! through:
//!
//! - [`workqueue::WorkqueueMetricsProvider`] for the [work queues](crate::workqueue).
//! - [`informer`] for reflectors and informers.
//! - [`leaderelection::LeaderElectionMetrics`] for [leader electors](crate::leaderelection).
//! - [`controller::ControllerMetricsProvider`] for [controllers](crate::controller), with
//!   controller-runtime's metric names.
//! - [`webhook::WebhookMetricsProvider`] for the [webhook server](crate::webhook)
//!   (feature `webhook`), with controller-runtime's names.
//!
//! [`NoopMetrics`] is the default provider of every family: it records nothing and costs
//! nothing (components skip their time bookkeeping when the provider declines).
//! With the `prometheus` feature, the [`prometheus`] module has ready implementations
//! that register into a [`prometheus_client`] registry.

pub mod controller;
pub mod informer;
pub mod leaderelection;
#[cfg(feature = "webhook")]
pub mod webhook;
pub mod workqueue;

#[cfg(feature = "prometheus")]
pub mod prometheus;

/// The metrics provider that records nothing: the default of every component.
///
/// ```
/// use kubegen_runtime::metrics::NoopMetrics;
/// use kubegen_runtime::workqueue::{Queue, QueueConfig};
///
/// let queue: Queue<String> = Queue::with_config(
///     QueueConfig::default().name("foos").metrics(NoopMetrics),
/// );
/// assert!(queue.is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopMetrics;
