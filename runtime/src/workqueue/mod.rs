//! A deduplicating, delaying and rate-limiting work queue with client-go's semantics.
//!
//! Three layers, each wrapping the one before (client-go's `util/workqueue`):
//!
//! - [`Queue`]: keys are queued at most once, handed out in order, never held by two
//!   workers at once; a key added while it is processed is processed again after
//!   [`done`](Queue::done).
//! - [`DelayingQueue`]: adds [`add_after`](DelayingQueue::add_after).
//! - [`RateLimitingQueue`]: adds [`add_rate_limited`](RateLimitingQueue::add_rate_limited),
//!   [`forget`](RateLimitingQueue::forget) and [`num_requeues`](RateLimitingQueue::num_requeues)
//!   over a [`RateLimiter`]: [`ItemExponentialFailureRateLimiter`], [`BucketRateLimiter`],
//!   [`ItemFastSlowRateLimiter`], [`MaxOfRateLimiter`], and
//!   [`default_controller_rate_limiter`] which combines the first two as client-go does.
//!
//! Every queue takes a [`QueueConfig`]: a name, a
//! [metrics provider](crate::metrics::workqueue::WorkqueueMetricsProvider) and a [`Clock`]
//! (Tokio's by default, so tests run on paused time).
//!
//! # The controller loop
//!
//! Event handlers add the key of every object that changed; workers take keys, read the
//! object from a lister and reconcile it. A failure retries the key with a growing
//! backoff; a success forgets its failures. Either way the worker calls `done`, which
//! releases the key (and re-queues it if it changed meanwhile).
//!
//! [`controller`](crate::controller) runs this loop for you (workers, requeue,
//! panic safety, drain, metrics); the example below spells it out.
//!
//! ```
//! use kubegen_runtime::workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::sync::Arc;
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let queue: RateLimitingQueue<String> = RateLimitingQueue::with_config(
//!     default_controller_rate_limiter(),
//!     QueueConfig::default().name("foos"),
//! );
//! let attempts = Arc::new(AtomicU32::new(0));
//! let (reconciled_tx, mut reconciled) = tokio::sync::mpsc::unbounded_channel();
//!
//! // Two workers.
//! let workers: Vec<_> = (0..2)
//!     .map(|_| {
//!         let queue = queue.clone();
//!         let attempts = Arc::clone(&attempts);
//!         let reconciled_tx = reconciled_tx.clone();
//!         tokio::spawn(async move {
//!             while let Some(key) = queue.get().await {
//!                 // Reconcile: here the first two attempts fail.
//!                 let ok = attempts.fetch_add(1, Ordering::SeqCst) >= 2;
//!                 if ok {
//!                     queue.forget(&key);
//!                     let _ = reconciled_tx.send(key.clone());
//!                 } else {
//!                     queue.add_rate_limited(key.clone());
//!                 }
//!                 queue.done(&key);
//!             }
//!         })
//!     })
//!     .collect();
//!
//! // An event handler.
//! queue.add("default/foo".to_string());
//!
//! // Wait until the key went through (paused time skips the 5 ms and 10 ms backoffs).
//! assert_eq!(reconciled.recv().await.as_deref(), Some("default/foo"));
//! queue.shut_down_with_drain().await;
//! for worker in workers {
//!     worker.await.unwrap();
//! }
//! assert_eq!(attempts.load(Ordering::SeqCst), 3);
//! assert_eq!(queue.num_requeues(&"default/foo".to_string()), 0);
//! # }
//! ```
//!
//! # `add` versus a pending retry
//!
//! When a key waits in the delaying heap (after
//! [`add_rate_limited`](RateLimitingQueue::add_rate_limited) or
//! [`add_after`](DelayingQueue::add_after)) and an event handler calls
//! [`add`](DelayingQueue::add) for it, client-go queues the key now *and* keeps the heap
//! entry, so the key is processed twice: once now, and once more when the stale retry
//! fires, even if the first processing succeeded (kubernetes issue 112325).
//!
//! Here an immediate `add` **supersedes** the pending entry: the key is queued now and
//! its heap entry is dropped, so it is processed once. That processing sees the latest
//! state and decides what comes next: on success the worker `forget`s the key and
//! nothing fires later; on failure it calls `add_rate_limited` again and the backoff
//! continues where it was (the limiter's failure count is untouched by `add`); a
//! reconciler that wants a periodic requeue schedules it again with `add_after`. A retry
//! is always a retry of the latest processing, never of one the key has moved past.
//!
//! ```
//! use kubegen_runtime::workqueue::{RateLimitingQueue, default_controller_rate_limiter};
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let queue = RateLimitingQueue::new(default_controller_rate_limiter());
//! queue.add_rate_limited("default/foo");
//! assert_eq!(queue.waiting_len(), 1);
//! queue.add("default/foo"); // an event arrived: process now, once
//! assert_eq!((queue.len(), queue.waiting_len()), (1, 0));
//! assert_eq!(queue.num_requeues(&"default/foo"), 1); // backoff state is kept
//! # }
//! ```

mod clock;
mod config;
mod delaying;
mod limiters;
mod queue;
mod rate_limiting;
mod ready;

pub use clock::{Clock, TokioClock};
pub use config::QueueConfig;
pub use delaying::DelayingQueue;
pub use limiters::{
    BucketRateLimiter, ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter,
    MaxOfRateLimiter, RateLimiter, default_controller_rate_limiter,
};
pub use queue::Queue;
pub use rate_limiting::RateLimitingQueue;
pub use ready::{PRIORITY_LOW, PRIORITY_NORMAL, Priority};

#[cfg(test)]
mod tests;
