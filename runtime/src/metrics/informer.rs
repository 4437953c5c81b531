//! Metrics of reflectors and informers: lists, watches, events, relists, the last
//! resourceVersion seen and the store size.
//!
//! Every method has a no-op default, so an implementation overrides only what it
//! records. Reflectors are labelled by name (`ConfigMap/default`, ...), given once to
//! [`InformerMetricsProvider::reflector`].

use std::sync::Arc;

use super::NoopMetrics;
use std::time::Duration;

/// The kind of a watch event, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WatchEventKind {
    /// `ADDED`.
    Added,
    /// `MODIFIED`.
    Modified,
    /// `DELETED`.
    Deleted,
    /// `BOOKMARK`.
    Bookmark,
    /// `ERROR`.
    Error,
}

/// What one reflector reports.
pub trait ReflectorMetrics: Send + Sync {
    /// A (possibly paginated) list finished with `items` objects after `duration`.
    fn list_completed(&self, items: usize, duration: Duration) {
        let _ = (items, duration);
    }
    /// A list failed.
    fn list_failed(&self) {}
    /// A watch request was opened.
    fn watch_started(&self) {}
    /// A watch ended (closed by the server, timed out or failed).
    fn watch_ended(&self) {}
    /// A watch event arrived.
    fn watch_event(&self, kind: WatchEventKind) {
        let _ = kind;
    }
    /// A relist happened after the initial one (410 Gone or an unrecoverable watch).
    fn relist(&self) {}
    /// The newest resourceVersion the reflector has seen.
    fn last_resource_version(&self, resource_version: &str) {
        let _ = resource_version;
    }
    /// The store now holds `objects` objects.
    fn store_size(&self, objects: usize) {
        let _ = objects;
    }
    /// The reflector is backing off for `delay` after an error.
    fn backoff(&self, delay: Duration) {
        let _ = delay;
    }
}

/// Creates the metrics of each reflector.
pub trait InformerMetricsProvider: Send + Sync {
    /// Metrics for the reflector called `name`.
    fn reflector(&self, name: &str) -> Arc<dyn ReflectorMetrics>;
}

// The runtime's one no-op provider serves this family too.
impl ReflectorMetrics for NoopMetrics {}

impl InformerMetricsProvider for NoopMetrics {
    fn reflector(&self, _name: &str) -> Arc<dyn ReflectorMetrics> {
        Arc::new(NoopMetrics)
    }
}
