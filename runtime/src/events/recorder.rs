//! [`EventRecorder`]: the handle controllers publish events through.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::jiff::Timestamp;
use kube::Resource;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::event::Event;
use super::writer::{Message, Observation, Writer, WriterConfig};
use crate::backoff::Backoff;

/// How an [`EventRecorder`] reports and buffers.
#[derive(Clone, Debug)]
pub struct EventRecorderConfig {
    /// `reportingController`, e.g. `samplecontroller.k8s.io/foo-controller`.
    pub reporting_controller: String,
    /// `reportingInstance`: which replica of the controller (default: `$HOSTNAME`, else
    /// the controller's name).
    pub reporting_instance: String,
    /// How many events may wait to be written; beyond it events are dropped (default 1000).
    pub queue_capacity: usize,
    /// How long after its last repeat a series stays open (client-go: 6 minutes).
    pub series_window: Duration,
    /// How many open series are remembered (default 4096).
    pub max_series: usize,
    /// How writes that failed transiently (5xx, 429, transport) are retried: `steps`
    /// attempts at most (default [`DEFAULT_WRITE_RETRY`]: 3 attempts, 100 ms then 200 ms
    /// apart).
    pub retry: Backoff,
}

/// The recorder's default retry of event writes: 3 attempts, waiting 100 ms, doubled
/// each time, without jitter.
pub const DEFAULT_WRITE_RETRY: Backoff = Backoff {
    duration: Duration::from_millis(100),
    factor: 2.0,
    jitter: 0.0,
    steps: 3,
    cap: None,
    reset_after: None,
};

impl EventRecorderConfig {
    /// Defaults for a controller named `reporting_controller`.
    pub fn new(reporting_controller: impl Into<String>) -> Self {
        let reporting_controller = reporting_controller.into();
        let reporting_instance = std::env::var("HOSTNAME")
            .ok()
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| reporting_controller.clone());
        Self {
            reporting_controller,
            reporting_instance,
            queue_capacity: 1000,
            series_window: Duration::from_secs(6 * 60),
            max_series: 4096,
            retry: DEFAULT_WRITE_RETRY,
        }
    }

    /// Sets `reportingInstance`.
    #[must_use]
    pub fn reporting_instance(mut self, instance: impl Into<String>) -> Self {
        self.reporting_instance = instance.into();
        self
    }

    /// Sets the queue capacity (at least 1).
    #[must_use]
    pub fn queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity.max(1);
        self
    }

    /// Sets how long a series stays open after its last repeat.
    #[must_use]
    pub fn series_window(mut self, window: Duration) -> Self {
        self.series_window = window;
        self
    }

    /// Sets how many open series are remembered.
    #[must_use]
    pub fn max_series(mut self, max: usize) -> Self {
        self.max_series = max;
        self
    }

    /// Sets how failed writes are retried.
    #[must_use]
    pub fn retry(mut self, retry: Backoff) -> Self {
        self.retry = retry;
        self
    }
}

struct Shared {
    reporting_controller: String,
    dropped: AtomicU64,
    task: Mutex<Option<JoinHandle<()>>>,
}

/// Records events.k8s.io/v1 Events about objects, as client-go's `events.EventRecorder`.
///
/// [`publish`](EventRecorder::publish) never blocks and never fails the caller: the event
/// goes into a bounded queue that a background task writes to the server (a full queue
/// drops the event with a warning log, counted by [`dropped`](EventRecorder::dropped)).
/// Repeats of an event (same object, related object, type, reason, action and note) within
/// the series window do not create new Events: the first one's `series.count` and
/// `series.lastObservedTime` are patched instead, as client-go's events broadcaster does.
/// References carry no resourceVersion, so repeats across updates of an object fold too.
///
/// Clones share the queue and the task.
///
/// ```no_run
/// # async fn demo(client: kube::Client, pod: k8s_openapi::api::core::v1::Pod) {
/// use kubegen_runtime::events::{Event, EventRecorder, EventRecorderConfig};
///
/// let recorder = EventRecorder::new(client, EventRecorderConfig::new("example.com/pod-controller"));
/// recorder.publish(&pod, Event::normal("Synced", "Reconcile", "pod is up to date"));
/// recorder.shutdown().await; // writes what is queued, then stops
/// # }
/// ```
#[derive(Clone)]
pub struct EventRecorder {
    queue: mpsc::Sender<Message>,
    shared: Arc<Shared>,
}

impl fmt::Debug for EventRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventRecorder")
            .field("reporting_controller", &self.shared.reporting_controller)
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

impl EventRecorder {
    /// A recorder writing through `client`; spawns its writer on the current tokio runtime.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub fn new(client: kube::Client, config: EventRecorderConfig) -> Self {
        let (queue, receiver) = mpsc::channel(config.queue_capacity.max(1));
        let writer = Writer::new(
            client,
            WriterConfig {
                reporting_controller: config.reporting_controller.clone(),
                reporting_instance: config.reporting_instance,
                series_window: config.series_window,
                max_series: config.max_series,
                retry: config.retry,
            },
        );
        let task = tokio::spawn(writer.run(receiver));
        Self {
            queue,
            shared: Arc::new(Shared {
                reporting_controller: config.reporting_controller,
                dropped: AtomicU64::new(0),
                task: Mutex::new(Some(task)),
            }),
        }
    }

    /// Records `event` about `regarding` (any resource with a static type: k8s-openapi
    /// types, derived custom resources).
    pub fn publish<K>(&self, regarding: &K, event: Event)
    where
        K: Resource,
        K::DynamicType: Default,
    {
        self.publish_ref(regarding.object_ref(&K::DynamicType::default()), event);
    }

    /// Records `event` about the object `regarding` points to.
    pub fn publish_ref(&self, regarding: ObjectReference, event: Event) {
        let message = Message::Record(Box::new(Observation {
            regarding,
            event,
            at: Instant::now(),
            time: Timestamp::now(),
        }));
        if let Err(error) = self.queue.try_send(message) {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            let (why, message) = match error {
                mpsc::error::TrySendError::Full(m) => ("the event queue is full", m),
                mpsc::error::TrySendError::Closed(m) => ("the recorder is shut down", m),
            };
            if let Message::Record(observation) = message {
                tracing::warn!(
                    controller = %self.shared.reporting_controller,
                    reason = observation.event.reason(),
                    name = observation.regarding.name.as_deref().unwrap_or_default(),
                    "dropped an event: {why}"
                );
            }
        }
    }

    /// How many events were dropped because the queue was full or the recorder shut down.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every event published before this call has been written (or given
    /// up on after its retries). Returns at once after [`shutdown`](Self::shutdown).
    pub async fn flush(&self) {
        let (done, written) = oneshot::channel();
        if self.queue.send(Message::Flush(done)).await.is_ok() {
            let _ = written.await;
        }
    }

    /// Writes what is queued, then stops the writer; later events are dropped. Waits for
    /// the writer once, whichever clone calls it first; other calls return at once.
    pub async fn shutdown(&self) {
        self.flush().await;
        let task = self
            .shared
            .task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
    }
}
