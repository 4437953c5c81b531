//! Work queue metrics in Prometheus, with client-go's names and buckets.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::metrics::workqueue::{
    UnfinishedWork, UnfinishedWorkProbe, WorkqueueMetrics, WorkqueueMetricsProvider,
};

/// The `name` label carried by every series: the queue's name.
type Labels = [(&'static str, String); 1];

type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

/// client-go's buckets for both duration histograms: 10 ns to 10 s, by factors of 10.
fn duration_histogram() -> Histogram {
    Histogram::new(exponential_buckets(10e-9, 10.0, 10))
}

const UNFINISHED_WORK: &str = "workqueue_unfinished_work_seconds";
const UNFINISHED_WORK_HELP: &str = "How many seconds of work has been done that is in progress \
     and hasn't been observed by work_duration. Large values indicate stuck threads. One can \
     deduce the number of stuck threads by observing the rate at which this increases.";
const LONGEST_RUNNING: &str = "workqueue_longest_running_processor_seconds";
const LONGEST_RUNNING_HELP: &str =
    "How many seconds has the longest running processor for workqueue been running.";

/// Work queue metrics registered in a Prometheus registry, labelled by queue name:
///
/// | metric | type |
/// |---|---|
/// | `workqueue_depth` | gauge |
/// | `workqueue_adds_total` | counter |
/// | `workqueue_queue_duration_seconds` | histogram |
/// | `workqueue_work_duration_seconds` | histogram |
/// | `workqueue_retries_total` | counter |
/// | `workqueue_unfinished_work_seconds` | gauge, computed at scrape time |
/// | `workqueue_longest_running_processor_seconds` | gauge, computed at scrape time |
///
/// Register once, then hand clones to every queue's [`QueueConfig`](crate::workqueue::QueueConfig).
/// Only named queues report; queues sharing a name share their series (the two
/// scrape-time gauges add up their unfinished work and take the longest processor).
///
/// ```
/// use kubegen_runtime::metrics::prometheus::PrometheusWorkqueueMetrics;
/// use kubegen_runtime::workqueue::{Queue, QueueConfig};
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = PrometheusWorkqueueMetrics::register(&mut registry);
/// let queue = Queue::with_config(QueueConfig::default().name("foos").metrics(metrics));
/// queue.add("default/a");
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// assert!(text.contains(r#"workqueue_adds_total{name="foos"} 1"#));
/// ```
#[derive(Clone, Debug)]
pub struct PrometheusWorkqueueMetrics {
    families: Arc<Families>,
}

#[derive(Debug)]
struct Families {
    depth: Family<Labels, Gauge>,
    adds: Family<Labels, Counter>,
    queue_duration: HistogramFamily,
    work_duration: HistogramFamily,
    retries: Family<Labels, Counter>,
    probes: Arc<Probes>,
}

/// The unfinished-work probes of every named queue, read at scrape time.
#[derive(Debug, Default)]
struct Probes {
    by_queue: Mutex<Vec<(String, UnfinishedWorkProbe)>>,
}

impl PrometheusWorkqueueMetrics {
    /// Registers the work queue metrics into `registry` (use
    /// [`Registry::sub_registry_with_prefix`] for a prefix).
    pub fn register(registry: &mut Registry) -> Self {
        let families = Families {
            depth: Family::default(),
            adds: Family::default(),
            queue_duration: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
            retries: Family::default(),
            probes: Arc::new(Probes::default()),
        };
        registry.register(
            "workqueue_depth",
            "Current depth of workqueue",
            families.depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            families.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            families.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            families.work_duration.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            families.retries.clone(),
        );
        registry.register_collector(Box::new(UnfinishedWorkCollector {
            probes: Arc::clone(&families.probes),
        }));
        Self {
            families: Arc::new(families),
        }
    }
}

impl WorkqueueMetricsProvider for PrometheusWorkqueueMetrics {
    fn queue_metrics(
        &self,
        queue_name: &str,
        unfinished: UnfinishedWorkProbe,
    ) -> Option<Arc<dyn WorkqueueMetrics>> {
        let labels: Labels = [("name", queue_name.to_owned())];
        let families = &self.families;
        families.probes.add(queue_name, unfinished);
        Some(Arc::new(QueueSeries {
            depth: families.depth.get_or_create_owned(&labels),
            adds: families.adds.get_or_create_owned(&labels),
            queue_duration: families.queue_duration.get_or_create_owned(&labels),
            work_duration: families.work_duration.get_or_create_owned(&labels),
            retries: families.retries.get_or_create_owned(&labels),
        }))
    }
}

/// The series of one queue.
#[derive(Debug)]
struct QueueSeries {
    depth: Gauge,
    adds: Counter,
    queue_duration: Histogram,
    work_duration: Histogram,
    retries: Counter,
}

impl WorkqueueMetrics for QueueSeries {
    fn add(&self) {
        self.adds.inc();
    }

    fn depth_inc(&self) {
        self.depth.inc();
    }

    fn depth_dec(&self) {
        self.depth.dec();
    }

    fn queue_latency(&self, waited: Duration) {
        self.queue_duration.observe(waited.as_secs_f64());
    }

    fn work_duration(&self, worked: Duration) {
        self.work_duration.observe(worked.as_secs_f64());
    }

    fn retry(&self) {
        self.retries.inc();
    }
}

impl Probes {
    fn add(&self, queue_name: &str, probe: UnfinishedWorkProbe) {
        let mut by_queue = self.by_queue.lock().unwrap_or_else(PoisonError::into_inner);
        // Drop the probes of queues that are gone, so they stop being reported.
        by_queue.retain(|(_, probe)| probe.read().is_some());
        by_queue.push((queue_name.to_owned(), probe));
    }

    /// The unfinished work of every live queue, merged by name.
    fn read(&self) -> BTreeMap<String, UnfinishedWork> {
        let probes = self
            .by_queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        // Read outside our lock: each read takes its queue's lock.
        let mut merged = BTreeMap::<String, UnfinishedWork>::new();
        for (name, probe) in probes {
            if let Some(work) = probe.read() {
                let entry = merged.entry(name).or_default();
                entry.total += work.total;
                entry.longest_running = entry.longest_running.max(work.longest_running);
            }
        }
        merged
    }
}

/// Picks one gauge's value out of a queue's unfinished work.
type GaugeValue = fn(&UnfinishedWork) -> Duration;

/// Computes the two work-in-progress gauges on every scrape.
#[derive(Debug)]
struct UnfinishedWorkCollector {
    probes: Arc<Probes>,
}

impl Collector for UnfinishedWorkCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let readings = self.probes.read();
        let gauges: [(&str, &str, GaugeValue); 2] = [
            (UNFINISHED_WORK, UNFINISHED_WORK_HELP, |work| work.total),
            (LONGEST_RUNNING, LONGEST_RUNNING_HELP, |work| {
                work.longest_running
            }),
        ];
        for (name, help, value) in gauges {
            let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
            for (queue, work) in &readings {
                let labels = [("name", queue.as_str())];
                metric
                    .encode_family(&labels)?
                    .encode_gauge(&value(work).as_secs_f64())?;
            }
        }
        Ok(())
    }
}
