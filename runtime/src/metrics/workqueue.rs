//! Metrics of the [work queues](crate::workqueue), modelled on client-go's
//! `workqueue.MetricsProvider`.
//!
//! A queue built with a name asks its [`WorkqueueMetricsProvider`] once for a
//! [`WorkqueueMetrics`] handle and reports every event through it:
//!
//! | event | handle call | client-go metric |
//! |---|---|---|
//! | a key becomes dirty (queued, or marked for re-processing) | [`add`](WorkqueueMetrics::add), [`depth_inc`](WorkqueueMetrics::depth_inc) | `workqueue_adds_total`, `workqueue_depth` |
//! | a worker takes a key | [`depth_dec`](WorkqueueMetrics::depth_dec), [`queue_latency`](WorkqueueMetrics::queue_latency) | `workqueue_depth`, `workqueue_queue_duration_seconds` |
//! | a worker marks it done | [`work_duration`](WorkqueueMetrics::work_duration) | `workqueue_work_duration_seconds` |
//! | `add_after` / `add_rate_limited` | [`retry`](WorkqueueMetrics::retry) | `workqueue_retries_total` |
//!
//! The two gauges about work in progress (`workqueue_unfinished_work_seconds` and
//! `workqueue_longest_running_processor_seconds`) are pulled rather than pushed: the
//! provider receives an [`UnfinishedWorkProbe`] and reads it whenever it wants a fresh
//! value, typically at scrape time, instead of client-go's 500 ms ticker.

use std::fmt::Debug;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::NoopMetrics;

/// Builds the metrics handle of each named work queue.
///
/// Unnamed queues never ask (as in client-go, a queue without a name emits no metrics).
pub trait WorkqueueMetricsProvider: Debug + Send + Sync + 'static {
    /// The handle the queue called `queue_name` reports through, or `None` to record
    /// nothing for it (the queue then skips reading the clock for metrics).
    ///
    /// `unfinished` reads the queue's work in progress on demand; keep it to publish the
    /// unfinished-work and longest-running-processor gauges.
    fn queue_metrics(
        &self,
        queue_name: &str,
        unfinished: UnfinishedWorkProbe,
    ) -> Option<Arc<dyn WorkqueueMetrics>>;
}

impl WorkqueueMetricsProvider for NoopMetrics {
    fn queue_metrics(&self, _: &str, _: UnfinishedWorkProbe) -> Option<Arc<dyn WorkqueueMetrics>> {
        None
    }
}

impl<P: WorkqueueMetricsProvider + ?Sized> WorkqueueMetricsProvider for Arc<P> {
    fn queue_metrics(
        &self,
        queue_name: &str,
        unfinished: UnfinishedWorkProbe,
    ) -> Option<Arc<dyn WorkqueueMetrics>> {
        (**self).queue_metrics(queue_name, unfinished)
    }
}

/// The events of one work queue. Every method has a default that does nothing, so an
/// implementation overrides only what it records.
///
/// Methods are called with the queue's lock held: keep them short and never call back
/// into the queue.
pub trait WorkqueueMetrics: Debug + Send + Sync {
    /// A key was added and was not already waiting (`workqueue_adds_total`).
    fn add(&self) {}

    /// The number of keys waiting to be processed went up by one (`workqueue_depth`).
    ///
    /// As in client-go, a key added while it is being processed counts as waiting
    /// until a worker takes it again.
    fn depth_inc(&self) {}

    /// The number of keys waiting to be processed went down by one (`workqueue_depth`).
    fn depth_dec(&self) {}

    /// A worker took a key that had waited `waited` since it was added
    /// (`workqueue_queue_duration_seconds`).
    fn queue_latency(&self, waited: Duration) {
        let _ = waited;
    }

    /// A worker marked a key done after holding it for `worked`
    /// (`workqueue_work_duration_seconds`).
    fn work_duration(&self, worked: Duration) {
        let _ = worked;
    }

    /// A key was scheduled for later with `add_after` or `add_rate_limited`
    /// (`workqueue_retries_total`).
    fn retry(&self) {}
}

/// The work in progress of a queue at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnfinishedWork {
    /// The sum, over every key being processed, of how long it has been processed
    /// (`workqueue_unfinished_work_seconds`).
    pub total: Duration,
    /// How long the key processed for the longest time has been processed
    /// (`workqueue_longest_running_processor_seconds`); zero when nothing is processed.
    pub longest_running: Duration,
}

/// Something that can report its work in progress; implemented by the queue.
pub(crate) trait UnfinishedWorkSource: Send + Sync {
    fn unfinished_work(&self) -> UnfinishedWork;
}

/// Reads one queue's [`UnfinishedWork`] on demand, without keeping the queue alive.
#[derive(Clone)]
pub struct UnfinishedWorkProbe {
    source: Weak<dyn UnfinishedWorkSource>,
}

impl UnfinishedWorkProbe {
    pub(crate) fn new(source: Weak<dyn UnfinishedWorkSource>) -> Self {
        Self { source }
    }

    /// The queue's work in progress now, or `None` once the queue has been dropped.
    pub fn read(&self) -> Option<UnfinishedWork> {
        self.source.upgrade().map(|source| source.unfinished_work())
    }
}

impl Debug for UnfinishedWorkProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnfinishedWorkProbe")
            .field("alive", &(self.source.strong_count() > 0))
            .finish()
    }
}
