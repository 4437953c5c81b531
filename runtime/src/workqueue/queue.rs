//! The deduplicating work queue with client-go's dirty/processing rules, handing out
//! keys by priority, in order within a priority.

use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::clock::Clock;
use super::config::QueueConfig;
use super::ready::{PRIORITY_NORMAL, Priority, Ready};
use crate::metrics::workqueue::{
    UnfinishedWork, UnfinishedWorkProbe, UnfinishedWorkSource, WorkqueueMetrics,
};

/// A work queue of keys: each key is queued at most once and held by at most one
/// worker at a time.
///
/// These are client-go's rules (`k8s.io/client-go/util/workqueue`):
///
/// - [`add`](Queue::add) queues a key unless it is already waiting, so a burst of events
///   for one object becomes one reconcile.
/// - [`get`](Queue::get) hands out keys in the order they were first added and marks
///   them as being processed; with [`add_with_priority`](Queue::add_with_priority), keys
///   of a higher priority first (controller-runtime's priority queue: keys of an
///   informer's initial list and of unchanged resyncs go in at
///   [`PRIORITY_LOW`](super::PRIORITY_LOW), so a live change after a restart is not
///   handed out after every object of the cluster). Adding a waiting key at a higher
///   priority moves it up.
/// - A key added while it is being processed is marked dirty but not handed out:
///   [`done`](Queue::done) puts it back at the end of the queue, so no key is ever
///   held by two workers at once and no change is missed.
/// - After [`shut_down`](Queue::shut_down), adds are ignored and `get` keeps handing out
///   what is queued, then returns `None`.
///
/// `Queue` is a cheap handle: clone it into every worker and event handler.
///
/// ```
/// use kubegen_runtime::workqueue::Queue;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let queue = Queue::new();
/// queue.add("default/a");
/// queue.add("default/b");
/// queue.add("default/a"); // already waiting: deduplicated
/// assert_eq!(queue.len(), 2);
///
/// let key = queue.get().await.unwrap();
/// assert_eq!(key, "default/a");
/// queue.add("default/a"); // being processed: marked dirty, not handed out yet
/// assert_eq!(queue.get().await, Some("default/b"));
/// queue.done(&"default/a"); // re-queued because it was dirty
/// assert_eq!(queue.get().await, Some("default/a"));
/// # }
/// ```
pub struct Queue<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Wakes workers waiting in `get`.
    available: Notify,
    /// Wakes `shut_down_with_drain` when the queue may have drained, or on `shut_down`.
    drained: Notify,
    clock: Arc<dyn Clock>,
    metrics: Option<Arc<dyn WorkqueueMetrics>>,
    name: Option<String>,
    /// Whether priorities count ([`QueueConfig::priorities`]); if not, every key is
    /// added at [`PRIORITY_NORMAL`] and the queue is first in, first out.
    priorities: bool,
}

struct State<T> {
    /// Keys ready to be handed out, by priority. Every key here is dirty and not
    /// processing.
    queue: Ready<T>,
    /// Keys that need processing, with the time they were added (when measured) and
    /// the highest priority they were added at.
    dirty: HashMap<T, Dirty>,
    /// Keys held by a worker, with the time it took them (when measured).
    processing: HashMap<T, Option<Instant>>,
    shutting_down: bool,
    /// `shut_down_with_drain` is waiting; cleared by `shut_down`.
    drain: bool,
}

/// A key that needs processing.
#[derive(Clone, Copy)]
struct Dirty {
    added_at: Option<Instant>,
    priority: Priority,
}

impl<T> State<T> {
    fn is_drained(&self) -> bool {
        self.queue.is_empty() && self.processing.is_empty()
    }
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("Queue")
            .field("name", &self.shared.name)
            .field("queued", &state.queue.len())
            .field("processing", &state.processing.len())
            .field("shutting_down", &state.shutting_down)
            .finish()
    }
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // The lock is never held across user code that can panic halfway through an
        // update (metrics callbacks run after the state change), so a poisoned state is
        // still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now_if_measured(&self) -> Option<Instant> {
        self.metrics.as_ref().map(|_| self.clock.now())
    }
}

impl<T: Send> UnfinishedWorkSource for Shared<T> {
    fn unfinished_work(&self) -> UnfinishedWork {
        let now = self.clock.now();
        let state = self.lock();
        let mut work = UnfinishedWork::default();
        for started in state.processing.values().flatten() {
            let age = now.saturating_duration_since(*started);
            work.total = work.total.saturating_add(age);
            work.longest_running = work.longest_running.max(age);
        }
        work
    }
}

impl<T> Default for Queue<T>
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Queue<T>
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// An unnamed queue without metrics on Tokio's clock.
    pub fn new() -> Self {
        Self::with_config(QueueConfig::default())
    }

    /// A queue named, measured and timed as `config` says.
    pub fn with_config(config: QueueConfig) -> Self {
        let QueueConfig {
            name,
            metrics,
            clock,
            priorities,
        } = config;
        let shared = Arc::new_cyclic(|weak: &Weak<Shared<T>>| {
            let metrics = name.as_deref().and_then(|name| {
                let source: Weak<dyn UnfinishedWorkSource> = weak.clone();
                metrics.queue_metrics(name, UnfinishedWorkProbe::new(source))
            });
            Shared {
                state: Mutex::new(State {
                    queue: Ready::new(),
                    dirty: HashMap::new(),
                    processing: HashMap::new(),
                    shutting_down: false,
                    drain: false,
                }),
                available: Notify::new(),
                drained: Notify::new(),
                clock,
                metrics,
                name,
                priorities,
            }
        });
        Self { shared }
    }

    /// Marks `key` as needing processing, at [`PRIORITY_NORMAL`].
    ///
    /// - Already waiting: nothing happens (the waiting entry keeps its place).
    /// - Being processed: marked dirty; [`done`](Queue::done) re-queues it.
    /// - Otherwise: appended to the queue and one waiting worker is woken.
    /// - After [`shut_down`](Queue::shut_down): ignored, as in client-go.
    pub fn add(&self, key: T) {
        self.add_with_priority(key, PRIORITY_NORMAL);
    }

    /// Marks `key` as needing processing at `priority`: as [`add`](Queue::add), except
    /// that keys of higher priorities are handed out first, and a waiting key added at a
    /// higher priority than its own moves up (a dirty key being processed keeps the
    /// highest priority it was added at for when it is re-queued).
    pub fn add_with_priority(&self, key: T, priority: Priority) {
        let priority = if self.shared.priorities {
            priority
        } else {
            PRIORITY_NORMAL
        };
        let added_at = self.shared.now_if_measured();
        let mut state = self.shared.lock();
        if state.shutting_down {
            return;
        }
        let processing = state.processing.contains_key(&key);
        if let Some(dirty) = state.dirty.get_mut(&key) {
            if priority > dirty.priority {
                dirty.priority = priority;
                if !processing {
                    state.queue.push(key, priority);
                }
            }
            return;
        }
        if !processing {
            state.queue.push(key.clone(), priority);
        }
        state.dirty.insert(key, Dirty { added_at, priority });
        if let Some(metrics) = &self.shared.metrics {
            metrics.add();
            metrics.depth_inc();
        }
        drop(state);
        if !processing {
            self.shared.available.notify_one();
        }
    }

    /// Waits for the next key and marks it as being processed: call
    /// [`done`](Queue::done) with it when finished, whatever the outcome.
    ///
    /// Returns `None` once the queue is shut down and nothing is left queued: the
    /// worker should exit. Cancelling the returned future loses nothing.
    pub async fn get(&self) -> Option<T> {
        loop {
            // Registered before looking at the state, so an `add` or `shut_down` between
            // the look and the wait still wakes us.
            let notified = self.shared.available.notified();
            if let Some(taken) = self.try_take() {
                return taken;
            }
            notified.await;
        }
    }

    /// `Some(Some(key))` if a key was taken, `Some(None)` if shut down and empty, `None`
    /// if the caller has to wait.
    fn try_take(&self) -> Option<Option<T>> {
        let mut state = self.shared.lock();
        let Some(key) = state.queue.pop() else {
            return state.shutting_down.then_some(None);
        };
        let added_at = state.dirty.remove(&key).and_then(|dirty| dirty.added_at);
        let started_at = self.shared.now_if_measured();
        state.processing.insert(key.clone(), started_at);
        if let Some(metrics) = &self.shared.metrics {
            metrics.depth_dec();
            if let (Some(added), Some(started)) = (added_at, started_at) {
                metrics.queue_latency(started.saturating_duration_since(added));
            }
        }
        Some(Some(key))
    }

    /// Marks `key` as no longer being processed. If it was added meanwhile, it goes back
    /// to the end of the queue.
    ///
    /// Calling `done` for a key that is not being processed does nothing (client-go
    /// would queue it a second time).
    pub fn done(&self, key: &T) {
        let mut state = self.shared.lock();
        let Some(started_at) = state.processing.remove(key) else {
            tracing::debug!(queue = ?self.shared.name, "done called for a key that is not being processed");
            return;
        };
        if let (Some(metrics), Some(started)) = (&self.shared.metrics, started_at) {
            metrics.work_duration(self.shared.clock.now().saturating_duration_since(started));
        }
        let requeued = state.dirty.get(key).map(|dirty| dirty.priority);
        if let Some(priority) = requeued {
            state.queue.push(key.clone(), priority);
        }
        let requeued = requeued.is_some();
        let drained = state.drain && state.is_drained();
        drop(state);
        if requeued {
            self.shared.available.notify_one();
        }
        if drained {
            self.shared.drained.notify_waiters();
        }
    }

    /// The number of keys waiting to be handed out (not counting keys that are dirty
    /// while being processed). For information only: never wait for a particular value.
    pub fn len(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// Whether no key is waiting to be handed out.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops accepting keys and tells workers to exit: `get` hands out what is still
    /// queued, then returns `None`. Also releases a pending
    /// [`shut_down_with_drain`](Queue::shut_down_with_drain). Idempotent.
    pub fn shut_down(&self) {
        let mut state = self.shared.lock();
        state.shutting_down = true;
        state.drain = false;
        drop(state);
        self.shared.available.notify_waiters();
        self.shared.drained.notify_waiters();
    }

    /// Stops accepting keys, then waits until every queued key has been handed out and
    /// every key being processed is [`done`](Queue::done): the graceful stop of a
    /// controller.
    ///
    /// Workers must keep running (and call `done`) meanwhile, or this waits forever;
    /// [`shut_down`](Queue::shut_down) from another task ends the wait early.
    /// client-go waits only for the keys being processed; this also waits for queued
    /// keys, which is what its documentation promises ("drained").
    pub async fn shut_down_with_drain(&self) {
        {
            let mut state = self.shared.lock();
            state.shutting_down = true;
            state.drain = true;
        }
        self.shared.available.notify_waiters();
        loop {
            let notified = self.shared.drained.notified();
            {
                let state = self.shared.lock();
                if !state.drain || state.is_drained() {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Whether [`shut_down`](Queue::shut_down) or
    /// [`shut_down_with_drain`](Queue::shut_down_with_drain) was called.
    pub fn is_shutting_down(&self) -> bool {
        self.shared.lock().shutting_down
    }

    /// Reports an `add_after` to the metrics (client-go's retries counter).
    pub(crate) fn record_retry(&self) {
        if let Some(metrics) = &self.shared.metrics {
            metrics.retry();
        }
    }

    /// The clock of this queue.
    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.shared.clock
    }
}
