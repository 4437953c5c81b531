//! A work queue that retries keys at the pace of a [`RateLimiter`].

use std::fmt::{self, Debug};
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

use super::config::QueueConfig;
use super::delaying::DelayingQueue;
use super::limiters::RateLimiter;
use super::ready::Priority;

/// A [`DelayingQueue`] whose retries are paced by a [`RateLimiter`]: the queue a
/// controller uses.
///
/// On failure a worker calls [`add_rate_limited`](RateLimitingQueue::add_rate_limited)
/// (the key comes back after the limiter's delay, longer with every failure); on success
/// it calls [`forget`](RateLimitingQueue::forget) (the next failure starts from the
/// first delay again); in both cases it then calls [`done`](RateLimitingQueue::done).
///
/// ```
/// use kubegen_runtime::workqueue::{RateLimitingQueue, default_controller_rate_limiter};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let queue = RateLimitingQueue::new(default_controller_rate_limiter());
/// queue.add("default/a");
/// let key = queue.get().await.unwrap();
/// // The reconcile failed: retry later.
/// queue.add_rate_limited(key);
/// queue.done(&key);
/// assert_eq!(queue.num_requeues(&key), 1);
/// assert_eq!(queue.waiting_len(), 1);
///
/// let start = tokio::time::Instant::now();
/// let key = queue.get().await.unwrap();
/// assert_eq!(start.elapsed(), Duration::from_millis(5)); // first backoff step
/// // The reconcile succeeded: stop tracking the key.
/// queue.forget(&key);
/// queue.done(&key);
/// assert_eq!(queue.num_requeues(&key), 0);
/// # }
/// ```
pub struct RateLimitingQueue<T> {
    queue: DelayingQueue<T>,
    limiter: Arc<dyn RateLimiter<T>>,
}

impl<T> Clone for RateLimitingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            limiter: Arc::clone(&self.limiter),
        }
    }
}

impl<T> Debug for RateLimitingQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimitingQueue")
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

impl<T> RateLimitingQueue<T>
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// An unnamed queue without metrics on Tokio's clock, retrying at the pace of
    /// `limiter` (usually [`default_controller_rate_limiter`](super::default_controller_rate_limiter)).
    ///
    /// # Panics
    /// Outside a Tokio runtime (it spawns the timer task).
    pub fn new(limiter: impl RateLimiter<T> + 'static) -> Self {
        Self::with_config(limiter, QueueConfig::default())
    }

    /// A queue named, measured and timed as `config` says, retrying at the pace of
    /// `limiter`.
    ///
    /// # Panics
    /// Outside a Tokio runtime (it spawns the timer task).
    pub fn with_config(limiter: impl RateLimiter<T> + 'static, config: QueueConfig) -> Self {
        Self {
            queue: DelayingQueue::with_config(config),
            limiter: Arc::new(limiter),
        }
    }

    /// Adds `key` after the delay the limiter chooses for it, which counts one more
    /// failure of `key`. Ignored after shutdown.
    pub fn add_rate_limited(&self, key: T) {
        if self.queue.is_shutting_down() {
            return;
        }
        let delay = self.limiter.when(&key);
        self.queue.add_after(key, delay);
    }

    /// Tells the limiter to stop tracking `key` (it succeeded or was given up on). The
    /// key stays in the queue if it is there: this only resets its backoff.
    pub fn forget(&self, key: &T) {
        self.limiter.forget(key);
    }

    /// How many failures of `key` the limiter is tracking.
    pub fn num_requeues(&self, key: &T) -> u32 {
        self.limiter.num_requeues(key)
    }

    /// Queues `key` now, superseding a pending retry of it; see [`DelayingQueue::add`].
    pub fn add(&self, key: T) {
        self.queue.add(key);
    }

    /// [`add`](RateLimitingQueue::add) at `priority`; see
    /// [`Queue::add_with_priority`](super::Queue::add_with_priority).
    pub fn add_with_priority(&self, key: T, priority: Priority) {
        self.queue.add_with_priority(key, priority);
    }

    /// Adds `key` after `delay`; see [`DelayingQueue::add_after`].
    pub fn add_after(&self, key: T, delay: Duration) {
        self.queue.add_after(key, delay);
    }

    /// Waits for the next key; see [`Queue::get`](super::Queue::get).
    pub async fn get(&self) -> Option<T> {
        self.queue.get().await
    }

    /// Marks `key` as processed; see [`Queue::done`](super::Queue::done).
    pub fn done(&self, key: &T) {
        self.queue.done(key);
    }

    /// The number of keys ready to be handed out; see [`Queue::len`](super::Queue::len).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no key is ready to be handed out (waiting keys are not counted).
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The number of keys waiting for their retry time.
    pub fn waiting_len(&self) -> usize {
        self.queue.waiting_len()
    }

    /// Shuts the queue down; see [`DelayingQueue::shut_down`].
    pub fn shut_down(&self) {
        self.queue.shut_down();
    }

    /// Shuts the queue down and waits for it to drain; see
    /// [`DelayingQueue::shut_down_with_drain`].
    pub async fn shut_down_with_drain(&self) {
        self.queue.shut_down_with_drain().await;
    }

    /// Whether the queue is shutting down; see
    /// [`Queue::is_shutting_down`](super::Queue::is_shutting_down).
    pub fn is_shutting_down(&self) -> bool {
        self.queue.is_shutting_down()
    }
}
