//! Configuration shared by [`Queue`](super::Queue), [`DelayingQueue`](super::DelayingQueue)
//! and [`RateLimitingQueue`](super::RateLimitingQueue).

use std::sync::Arc;

use super::clock::{Clock, TokioClock};
use crate::metrics::NoopMetrics;
use crate::metrics::workqueue::WorkqueueMetricsProvider;

/// How a work queue is named, measured and timed, and whether it orders keys by
/// priority.
///
/// Start from [`QueueConfig::default`] (unnamed, no metrics, Tokio's clock, priorities
/// on) and change what you need:
///
/// ```
/// use kubegen_runtime::metrics::NoopMetrics;
/// use kubegen_runtime::workqueue::{QueueConfig, TokioClock};
///
/// let config = QueueConfig::default()
///     .name("foos")
///     .metrics(NoopMetrics)
///     .clock(TokioClock);
/// assert_eq!(config.queue_name(), Some("foos"));
/// ```
#[derive(Clone, Debug)]
pub struct QueueConfig {
    pub(crate) name: Option<String>,
    pub(crate) metrics: Arc<dyn WorkqueueMetricsProvider>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) priorities: bool,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            name: None,
            metrics: Arc::new(NoopMetrics),
            clock: Arc::new(TokioClock),
            priorities: true,
        }
    }
}

impl QueueConfig {
    /// Names the queue. Only named queues report metrics (as in client-go); the name
    /// is the `name` label of every metric.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Reports the queue's metrics to `provider` (default: [`NoopMetrics`]).
    pub fn metrics(mut self, provider: impl WorkqueueMetricsProvider) -> Self {
        self.metrics = Arc::new(provider);
        self
    }

    /// Reads time from `clock` (default: [`TokioClock`]).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Whether keys are handed out by priority (default: yes, as controller-runtime's
    /// default queue since v0.23). With `false`, every key is added at
    /// [`PRIORITY_NORMAL`](super::PRIORITY_NORMAL) and the queue is first in, first out,
    /// as client-go's.
    pub fn priorities(mut self, priorities: bool) -> Self {
        self.priorities = priorities;
        self
    }

    /// The queue's name, if it has one.
    pub fn queue_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}
