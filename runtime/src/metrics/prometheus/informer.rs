//! Reflector and informer metrics in Prometheus, labelled by reflector name.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::metrics::informer::{InformerMetricsProvider, ReflectorMetrics, WatchEventKind};

/// The `name` label of every series: the reflector's name (`ConfigMap/default`, ...).
type Labels = [(&'static str, String); 1];

/// The labels of the watch event counter: reflector name and event type.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    name: String,
    r#type: &'static str,
}

type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

/// List durations: 1 ms to about 65 s, by factors of 2.
fn list_duration_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// Reflector metrics registered in a Prometheus registry:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `reflector_lists_total` | counter | `name` |
/// | `reflector_list_failures_total` | counter | `name` |
/// | `reflector_list_duration_seconds` | histogram | `name` |
/// | `reflector_list_items` | gauge (items in the last list) | `name` |
/// | `reflector_watches_total` | counter | `name` |
/// | `reflector_open_watches` | gauge | `name` |
/// | `reflector_watch_events_total` | counter | `name`, `type` |
/// | `reflector_relists_total` | counter | `name` |
/// | `reflector_last_resource_version` | gauge (only numeric versions) | `name` |
/// | `reflector_store_objects` | gauge | `name` |
/// | `reflector_backoffs_total` | counter | `name` |
///
/// Register once and give it to a [`SharedInformerFactory`](crate::factory::SharedInformerFactory)
/// (or a reflector's config); every reflector then reports under its own name.
///
/// ```
/// use kubegen_runtime::metrics::informer::{InformerMetricsProvider, WatchEventKind};
/// use kubegen_runtime::metrics::prometheus::PrometheusInformerMetrics;
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = PrometheusInformerMetrics::register(&mut registry);
/// let reflector = metrics.reflector("ConfigMap/default");
/// reflector.watch_event(WatchEventKind::Added);
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// assert!(text.contains(r#"reflector_watch_events_total{name="ConfigMap/default",type="ADDED"} 1"#));
/// ```
#[derive(Clone, Debug)]
pub struct PrometheusInformerMetrics {
    families: Arc<Families>,
}

#[derive(Debug)]
struct Families {
    lists: Family<Labels, Counter>,
    list_failures: Family<Labels, Counter>,
    list_duration: HistogramFamily,
    list_items: Family<Labels, Gauge>,
    watches: Family<Labels, Counter>,
    open_watches: Family<Labels, Gauge>,
    watch_events: Family<EventLabels, Counter>,
    relists: Family<Labels, Counter>,
    last_resource_version: Family<Labels, Gauge>,
    store_objects: Family<Labels, Gauge>,
    backoffs: Family<Labels, Counter>,
}

impl PrometheusInformerMetrics {
    /// Registers the reflector metric families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let families = Families {
            lists: Family::default(),
            list_failures: Family::default(),
            list_duration: Family::new_with_constructor(list_duration_histogram),
            list_items: Family::default(),
            watches: Family::default(),
            open_watches: Family::default(),
            watch_events: Family::default(),
            relists: Family::default(),
            last_resource_version: Family::default(),
            store_objects: Family::default(),
            backoffs: Family::default(),
        };
        registry.register(
            "reflector_lists",
            "Lists that completed",
            families.lists.clone(),
        );
        registry.register(
            "reflector_list_failures",
            "Lists that failed",
            families.list_failures.clone(),
        );
        registry.register(
            "reflector_list_duration_seconds",
            "How long a complete (possibly paginated) list took",
            families.list_duration.clone(),
        );
        registry.register(
            "reflector_list_items",
            "Objects in the last complete list",
            families.list_items.clone(),
        );
        registry.register(
            "reflector_watches",
            "Watch requests opened",
            families.watches.clone(),
        );
        registry.register(
            "reflector_open_watches",
            "Watches open now",
            families.open_watches.clone(),
        );
        registry.register(
            "reflector_watch_events",
            "Watch events received, by type",
            families.watch_events.clone(),
        );
        registry.register(
            "reflector_relists",
            "Lists after the initial one (410 Gone or an unrecoverable watch)",
            families.relists.clone(),
        );
        registry.register(
            "reflector_last_resource_version",
            "The newest resourceVersion seen, where the server's versions are numbers",
            families.last_resource_version.clone(),
        );
        registry.register(
            "reflector_store_objects",
            "Objects in the reflector's store",
            families.store_objects.clone(),
        );
        registry.register(
            "reflector_backoffs",
            "Times the reflector backed off after an error",
            families.backoffs.clone(),
        );
        Self {
            families: Arc::new(families),
        }
    }
}

impl InformerMetricsProvider for PrometheusInformerMetrics {
    fn reflector(&self, name: &str) -> Arc<dyn ReflectorMetrics> {
        Arc::new(PrometheusReflectorMetrics {
            families: Arc::clone(&self.families),
            labels: [("name", name.to_owned())],
        })
    }
}

/// One reflector's handle into the shared families.
struct PrometheusReflectorMetrics {
    families: Arc<Families>,
    labels: Labels,
}

fn event_type(kind: WatchEventKind) -> &'static str {
    match kind {
        WatchEventKind::Added => "ADDED",
        WatchEventKind::Modified => "MODIFIED",
        WatchEventKind::Deleted => "DELETED",
        WatchEventKind::Bookmark => "BOOKMARK",
        WatchEventKind::Error => "ERROR",
    }
}

/// A count as a gauge value, saturating where it does not fit.
fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

impl ReflectorMetrics for PrometheusReflectorMetrics {
    fn list_completed(&self, items: usize, duration: Duration) {
        let f = &self.families;
        f.lists.get_or_create(&self.labels).inc();
        f.list_duration
            .get_or_create(&self.labels)
            .observe(duration.as_secs_f64());
        f.list_items
            .get_or_create(&self.labels)
            .set(gauge_value(items));
    }

    fn list_failed(&self) {
        self.families
            .list_failures
            .get_or_create(&self.labels)
            .inc();
    }

    fn watch_started(&self) {
        let f = &self.families;
        f.watches.get_or_create(&self.labels).inc();
        f.open_watches.get_or_create(&self.labels).inc();
    }

    fn watch_ended(&self) {
        self.families.open_watches.get_or_create(&self.labels).dec();
    }

    fn watch_event(&self, kind: WatchEventKind) {
        let labels = EventLabels {
            name: self.labels[0].1.clone(),
            r#type: event_type(kind),
        };
        self.families.watch_events.get_or_create(&labels).inc();
    }

    fn relist(&self) {
        self.families.relists.get_or_create(&self.labels).inc();
    }

    fn last_resource_version(&self, resource_version: &str) {
        // resourceVersions are opaque strings; real servers use etcd revisions, which are
        // numbers. Anything else is not a meaningful gauge value and is left out.
        if let Ok(version) = resource_version.parse::<i64>() {
            self.families
                .last_resource_version
                .get_or_create(&self.labels)
                .set(version);
        }
    }

    fn store_size(&self, objects: usize) {
        self.families
            .store_objects
            .get_or_create(&self.labels)
            .set(gauge_value(objects));
    }

    fn backoff(&self, _delay: Duration) {
        self.families.backoffs.get_or_create(&self.labels).inc();
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
    fn every_family_reports_under_the_reflector_name() {
        let mut registry = Registry::default();
        let provider = PrometheusInformerMetrics::register(&mut registry);
        let pods = provider.reflector("Pod/default");
        let nodes = provider.reflector("Node");

        pods.list_completed(3, Duration::from_millis(5));
        pods.list_failed();
        pods.watch_started();
        pods.watch_started();
        pods.watch_ended();
        pods.watch_event(WatchEventKind::Added);
        pods.watch_event(WatchEventKind::Added);
        pods.watch_event(WatchEventKind::Bookmark);
        pods.relist();
        pods.last_resource_version("42");
        pods.last_resource_version("not-a-number");
        pods.store_size(7);
        pods.backoff(Duration::from_secs(1));
        nodes.store_size(2);

        let text = encode(&registry);
        for line in [
            r#"reflector_lists_total{name="Pod/default"} 1"#,
            r#"reflector_list_failures_total{name="Pod/default"} 1"#,
            r#"reflector_list_duration_seconds_count{name="Pod/default"} 1"#,
            r#"reflector_list_items{name="Pod/default"} 3"#,
            r#"reflector_watches_total{name="Pod/default"} 2"#,
            r#"reflector_open_watches{name="Pod/default"} 1"#,
            r#"reflector_watch_events_total{name="Pod/default",type="ADDED"} 2"#,
            r#"reflector_watch_events_total{name="Pod/default",type="BOOKMARK"} 1"#,
            r#"reflector_relists_total{name="Pod/default"} 1"#,
            r#"reflector_last_resource_version{name="Pod/default"} 42"#,
            r#"reflector_store_objects{name="Pod/default"} 7"#,
            r#"reflector_backoffs_total{name="Pod/default"} 1"#,
            r#"reflector_store_objects{name="Node"} 2"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        assert!(!text.contains(r#"reflector_lists_total{name="Node"}"#));
    }
}
