use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::metrics::workqueue::{
    UnfinishedWork, UnfinishedWorkProbe, WorkqueueMetrics, WorkqueueMetricsProvider,
};
use crate::workqueue::{ItemFastSlowRateLimiter, Queue, QueueConfig, RateLimitingQueue};

#[derive(Debug, Clone, PartialEq)]
enum Event {
    Add,
    DepthInc,
    DepthDec,
    Latency(Duration),
    Work(Duration),
    Retry,
}

/// Records every event of every queue it measures.
#[derive(Debug, Clone, Default)]
pub(super) struct Recorder {
    asked: Arc<Mutex<Vec<String>>>,
    events: Arc<Mutex<Vec<Event>>>,
    probe: Arc<Mutex<Option<UnfinishedWorkProbe>>>,
}

impl Recorder {
    fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    pub(super) fn unfinished(&self) -> Option<UnfinishedWork> {
        self.probe.lock().unwrap().as_ref().unwrap().read()
    }
}

#[derive(Debug)]
struct Series(Arc<Mutex<Vec<Event>>>);

impl WorkqueueMetrics for Series {
    fn add(&self) {
        self.0.lock().unwrap().push(Event::Add);
    }
    fn depth_inc(&self) {
        self.0.lock().unwrap().push(Event::DepthInc);
    }
    fn depth_dec(&self) {
        self.0.lock().unwrap().push(Event::DepthDec);
    }
    fn queue_latency(&self, waited: Duration) {
        self.0.lock().unwrap().push(Event::Latency(waited));
    }
    fn work_duration(&self, worked: Duration) {
        self.0.lock().unwrap().push(Event::Work(worked));
    }
    fn retry(&self) {
        self.0.lock().unwrap().push(Event::Retry);
    }
}

impl WorkqueueMetricsProvider for Recorder {
    fn queue_metrics(
        &self,
        queue_name: &str,
        unfinished: UnfinishedWorkProbe,
    ) -> Option<Arc<dyn WorkqueueMetrics>> {
        self.asked.lock().unwrap().push(queue_name.to_owned());
        *self.probe.lock().unwrap() = Some(unfinished);
        Some(Arc::new(Series(Arc::clone(&self.events))))
    }
}

fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

#[tokio::test(start_paused = true)]
async fn queue_events_carry_the_measured_times() {
    use Event::*;
    let recorder = Recorder::default();
    let queue = Queue::with_config(
        QueueConfig::default()
            .name("foos")
            .metrics(recorder.clone()),
    );
    assert_eq!(*recorder.asked.lock().unwrap(), ["foos"]);

    queue.add("a");
    queue.add("a"); // deduplicated: no event
    tokio::time::advance(secs(2)).await;
    let a = queue.get().await.unwrap();
    tokio::time::advance(secs(3)).await;
    queue.add("a"); // dirty while processing: counted as an add and as depth
    queue.done(&a);
    assert_eq!(
        recorder.take(),
        [
            Add,
            DepthInc,
            DepthDec,
            Latency(secs(2)),
            Add,
            DepthInc,
            Work(secs(3))
        ]
    );
    let a = queue.get().await.unwrap();
    assert_eq!(recorder.take(), [DepthDec, Latency(Duration::ZERO)]);
    queue.done(&a);
    assert_eq!(recorder.take(), [Work(Duration::ZERO)]);
    queue.done(&a); // not processing: no event
    assert_eq!(recorder.take(), []);
}

#[tokio::test(start_paused = true)]
async fn the_probe_reads_work_in_progress() {
    let recorder = Recorder::default();
    let queue = Queue::with_config(
        QueueConfig::default()
            .name("foos")
            .metrics(recorder.clone()),
    );
    assert_eq!(recorder.unfinished(), Some(UnfinishedWork::default()));
    queue.add("a");
    queue.add("b");
    let a = queue.get().await.unwrap();
    tokio::time::advance(secs(5)).await;
    let b = queue.get().await.unwrap();
    tokio::time::advance(secs(1)).await;
    assert_eq!(
        recorder.unfinished(),
        Some(UnfinishedWork {
            total: secs(6 + 1),
            longest_running: secs(6),
        })
    );
    queue.done(&a);
    assert_eq!(
        recorder.unfinished(),
        Some(UnfinishedWork {
            total: secs(1),
            longest_running: secs(1),
        })
    );
    queue.done(&b);
    assert_eq!(recorder.unfinished(), Some(UnfinishedWork::default()));
    drop(queue);
    assert_eq!(
        recorder.unfinished(),
        None,
        "the probe does not keep the queue alive"
    );
}

#[tokio::test(start_paused = true)]
async fn retries_count_every_add_after() {
    use Event::*;
    let recorder = Recorder::default();
    let queue = RateLimitingQueue::with_config(
        ItemFastSlowRateLimiter::new(secs(1), secs(10), 1),
        QueueConfig::default()
            .name("foos")
            .metrics(recorder.clone()),
    );
    queue.add_rate_limited("a");
    queue.add_after("b", Duration::ZERO);
    assert_eq!(recorder.take(), [Retry, Retry, Add, DepthInc]);
    assert_eq!(queue.get().await, Some("b"));
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(
        recorder.take(),
        [
            DepthDec,
            Latency(Duration::ZERO),
            Add,
            DepthInc,
            DepthDec,
            Latency(Duration::ZERO)
        ]
    );
    queue.shut_down();
    queue.add_after("c", secs(1));
    assert_eq!(recorder.take(), []);
}

#[tokio::test(start_paused = true)]
async fn unnamed_queues_report_nothing() {
    let recorder = Recorder::default();
    let queue = Queue::with_config(QueueConfig::default().metrics(recorder.clone()));
    queue.add(1);
    let key = queue.get().await.unwrap();
    queue.done(&key);
    assert!(recorder.asked.lock().unwrap().is_empty());
    assert!(recorder.take().is_empty());
}
