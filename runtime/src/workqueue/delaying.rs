//! A work queue that can add a key later.

use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Debug};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::clock::deadline_after;
use super::config::QueueConfig;
use super::queue::Queue;
use super::ready::{PRIORITY_NORMAL, Priority};

/// A [`Queue`] that can also add a key after a delay, to retry without hot-looping.
///
/// Keys waiting for their time sit in a timer heap; one timer task per queue sleeps
/// until the earliest one is due and moves it into the queue with [`Queue::add`]
/// semantics (deduplicated, dirty if being processed).
///
/// - [`add_after`](DelayingQueue::add_after) for a key that is already waiting keeps the
///   earlier of the two times.
/// - [`add`](DelayingQueue::add) queues the key now and drops its waiting entry, if any:
///   see the [module documentation](super#add-versus-a-pending-retry) for why.
/// - [`shut_down`](DelayingQueue::shut_down) forgets the waiting keys and ends the
///   timer task.
///
/// Must be created inside a Tokio runtime: the constructor spawns the timer task.
///
/// ```
/// use kubegen_runtime::workqueue::DelayingQueue;
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let queue = DelayingQueue::new();
/// queue.add_after("default/a", Duration::from_secs(10));
/// assert_eq!(queue.len(), 0);
/// assert_eq!(queue.waiting_len(), 1);
/// // Paused time jumps straight to the deadline.
/// assert_eq!(queue.get().await, Some("default/a"));
/// # }
/// ```
pub struct DelayingQueue<T> {
    queue: Queue<T>,
    delayed: Arc<Delayed<T>>,
}

struct Delayed<T> {
    waiting: Mutex<Waiting<T>>,
    /// Wakes the timer task: a new earliest entry, or shutdown.
    wake: Arc<Notify>,
    timer: OnceLock<AbortHandle>,
}

struct Waiting<T> {
    /// Waiting keys by (ready time, insertion sequence): FIFO among equal times.
    by_time: BTreeMap<(Instant, u64), T>,
    /// The slot of each waiting key in `by_time`.
    by_key: HashMap<T, (Instant, u64)>,
    next_seq: u64,
    stopped: bool,
}

impl<T> Delayed<T> {
    fn lock(&self) -> MutexGuard<'_, Waiting<T>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Drop for Delayed<T> {
    fn drop(&mut self) {
        // The last handle is gone: nobody can observe the waiting keys any more.
        if let Some(timer) = self.timer.get() {
            timer.abort();
        }
    }
}

impl<T: Hash + Eq> Waiting<T> {
    fn remove(&mut self, key: &T) {
        if let Some(slot) = self.by_key.remove(key) {
            self.by_time.remove(&slot);
        }
    }
}

impl<T> Clone for DelayingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            delayed: Arc::clone(&self.delayed),
        }
    }
}

impl<T> Debug for DelayingQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DelayingQueue")
            .field("queue", &self.queue)
            .field("waiting", &self.delayed.lock().by_key.len())
            .finish()
    }
}

impl<T> DelayingQueue<T>
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// An unnamed delaying queue without metrics on Tokio's clock.
    ///
    /// # Panics
    /// Outside a Tokio runtime (it spawns the timer task).
    #[allow(
        clippy::new_without_default,
        reason = "it spawns a task; `Default` should not hide that"
    )]
    pub fn new() -> Self {
        Self::with_config(QueueConfig::default())
    }

    /// A delaying queue named, measured and timed as `config` says.
    ///
    /// # Panics
    /// Outside a Tokio runtime (it spawns the timer task).
    pub fn with_config(config: QueueConfig) -> Self {
        let queue = Queue::with_config(config);
        let wake = Arc::new(Notify::new());
        let delayed = Arc::new(Delayed {
            waiting: Mutex::new(Waiting {
                by_time: BTreeMap::new(),
                by_key: HashMap::new(),
                next_seq: 0,
                stopped: false,
            }),
            wake: Arc::clone(&wake),
            timer: OnceLock::new(),
        });
        let task = tokio::spawn(run_timer(queue.clone(), Arc::downgrade(&delayed), wake));
        // Freshly created, so the cell is empty and `set` cannot fail.
        let _ = delayed.timer.set(task.abort_handle());
        Self { queue, delayed }
    }

    /// Queues `key` now, as [`Queue::add`] does, and drops its waiting entry if it has
    /// one: the processing this add causes decides what happens next (success forgets,
    /// failure retries again), so the key is processed once, not once now and once more
    /// when the stale retry fires (kubernetes issue 112325).
    pub fn add(&self, key: T) {
        self.add_with_priority(key, PRIORITY_NORMAL);
    }

    /// [`add`](DelayingQueue::add) at `priority`; see [`Queue::add_with_priority`].
    pub fn add_with_priority(&self, key: T, priority: Priority) {
        let mut waiting = self.delayed.lock();
        if waiting.stopped {
            return;
        }
        waiting.remove(&key);
        // Under the waiting lock, so the timer cannot release a stale entry meanwhile.
        self.queue.add_with_priority(key, priority);
    }

    /// Adds `key` once `delay` has passed; a zero delay adds it now (as
    /// [`add`](DelayingQueue::add)). A key already waiting keeps the earlier of its
    /// current time and the new one. Ignored after shutdown.
    ///
    /// `Duration` cannot be negative: a deadline already past maps to zero with
    /// [`Instant::saturating_duration_since`] (`deadline.saturating_duration_since(now)`).
    /// Delays beyond about 30 years are clamped there.
    pub fn add_after(&self, key: T, delay: Duration) {
        if self.delayed.lock().stopped {
            return;
        }
        self.queue.record_retry();
        if delay.is_zero() {
            self.add(key);
            return;
        }
        let ready_at = deadline_after(self.queue.clock().now(), delay);
        let mut waiting = self.delayed.lock();
        if waiting.stopped {
            return;
        }
        if let Some(&(current, _)) = waiting.by_key.get(&key) {
            if current <= ready_at {
                return;
            }
            waiting.remove(&key);
        }
        let seq = waiting.next_seq;
        waiting.next_seq += 1;
        waiting.by_time.insert((ready_at, seq), key.clone());
        waiting.by_key.insert(key, (ready_at, seq));
        let is_earliest = waiting
            .by_time
            .first_key_value()
            .is_some_and(|(&(_, first), _)| first == seq);
        drop(waiting);
        if is_earliest {
            self.delayed.wake.notify_one();
        }
    }

    /// Waits for the next key; see [`Queue::get`].
    pub async fn get(&self) -> Option<T> {
        self.queue.get().await
    }

    /// Marks `key` as processed; see [`Queue::done`].
    pub fn done(&self, key: &T) {
        self.queue.done(key);
    }

    /// The number of keys ready to be handed out; see [`Queue::len`].
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no key is ready to be handed out (waiting keys are not counted).
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The number of keys waiting for their time.
    pub fn waiting_len(&self) -> usize {
        self.delayed.lock().by_key.len()
    }

    /// Forgets the waiting keys, ends the timer task and shuts the queue down; see
    /// [`Queue::shut_down`].
    pub fn shut_down(&self) {
        self.stop_timer();
        self.queue.shut_down();
    }

    /// Forgets the waiting keys, ends the timer task, then drains the queue; see
    /// [`Queue::shut_down_with_drain`].
    pub async fn shut_down_with_drain(&self) {
        self.stop_timer();
        self.queue.shut_down_with_drain().await;
    }

    /// Whether the queue is shutting down; see [`Queue::is_shutting_down`].
    pub fn is_shutting_down(&self) -> bool {
        self.queue.is_shutting_down()
    }

    fn stop_timer(&self) {
        let mut waiting = self.delayed.lock();
        waiting.stopped = true;
        waiting.by_time.clear();
        waiting.by_key.clear();
        drop(waiting);
        self.delayed.wake.notify_one();
    }

    /// Whether the timer task has ended.
    #[cfg(test)]
    pub(crate) fn timer_finished(&self) -> bool {
        self.delayed
            .timer
            .get()
            .is_some_and(AbortHandle::is_finished)
    }
}

/// The timer task: releases due keys into the queue, then sleeps until the next one is
/// due or an earlier one arrives. Ends on shutdown or when the last handle is dropped.
async fn run_timer<T>(queue: Queue<T>, delayed: Weak<Delayed<T>>, wake: Arc<Notify>)
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    let clock = Arc::clone(queue.clock());
    loop {
        // Registered before reading the heap, so an earlier entry added meanwhile wakes us.
        let notified = wake.notified();
        let next = {
            let Some(delayed) = delayed.upgrade() else {
                return;
            };
            let mut waiting = delayed.lock();
            if waiting.stopped {
                return;
            }
            let now = clock.now();
            while let Some(entry) = waiting.by_time.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                let key = entry.remove();
                waiting.by_key.remove(&key);
                queue.add(key);
            }
            waiting.by_time.first_key_value().map(|(&(at, _), _)| at)
        };
        match next {
            Some(at) => {
                tokio::select! {
                    () = clock.sleep_until(at) => {}
                    () = notified => {}
                }
            }
            None => notified.await,
        }
    }
}
