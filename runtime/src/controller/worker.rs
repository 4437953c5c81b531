//! A worker: takes a key, puts it back if the stale-cache guard says its caches are
//! behind its last writes, else reconciles it with panics caught and its writes
//! observed, tells the queue and the metrics how it went, and marks the key done.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

use super::Shared;
use super::chain::ErrorChain;
use super::freshness::{KeyWrites, Verdict};
use super::reconciler::{Action, Reconciler};
use crate::client::written::{WriteObserver, observe_writes};
use crate::key::ObjectKey;
use crate::metrics::controller::ReconcileResult;
use crate::workqueue::RateLimitingQueue;

/// How one reconcile ended.
#[derive(Debug)]
pub(super) enum Outcome<E> {
    /// The reconciler returned an action.
    Finished(Action),
    /// The reconciler returned an error.
    Failed(E),
    /// The reconciler panicked, with this message.
    Panicked(String),
    /// The reconcile outlived the controller's reconcile timeout and was dropped.
    TimedOut(Duration),
}

/// Runs until the queue is shut down and has nothing left to hand out.
pub(super) async fn run<R: Reconciler>(shared: Arc<Shared>, reconciler: Arc<R>) {
    while process_next(&shared, reconciler.as_ref()).await {}
}

/// Takes one key and processes it; false once the queue is shut down and empty.
async fn process_next<R: Reconciler>(shared: &Shared, reconciler: &R) -> bool {
    let Some(key) = shared.queue.get().await else {
        return false;
    };
    if !cache_caught_up(shared, &key) {
        shared.queue.done(&key);
        return true;
    }
    if let Some(metrics) = &shared.metrics {
        metrics.worker_busy();
    }
    let started = shared.clock.now();
    // The guard hears of the reconcile's writes, to hold the key back next time until
    // the caches have seen them.
    let observer = shared.guard.enabled().then(|| {
        Arc::new(KeyWrites {
            guard: Arc::clone(&shared.guard),
            key: key.clone(),
        }) as Arc<dyn WriteObserver>
    });
    // A panic unwinds out of this one reconcile only: the worker and the key's
    // bookkeeping survive it (client-go's HandleCrash, controller-runtime's RecoverPanic).
    let reconcile = AssertUnwindSafe(async {
        match observer {
            Some(observer) => observe_writes(observer, reconciler.reconcile(&key)).await,
            None => reconciler.reconcile(&key).await,
        }
    })
    .catch_unwind();
    let finished = match shared.reconcile_timeout {
        Some(timeout) => tokio::time::timeout(timeout, reconcile).await.ok(),
        None => Some(reconcile.await),
    };
    let outcome = match finished {
        Some(Ok(Ok(action))) => Outcome::Finished(action),
        Some(Ok(Err(error))) => Outcome::Failed(error),
        Some(Err(payload)) => Outcome::Panicked(panic_message(payload.as_ref())),
        None => Outcome::TimedOut(shared.reconcile_timeout.unwrap_or_default()),
    };
    let elapsed = shared.clock.now().saturating_duration_since(started);
    log(&shared.name, &key, &outcome);
    let result = settle(&shared.queue, &key, &outcome);
    if let Some(metrics) = &shared.metrics {
        match outcome {
            Outcome::Panicked(_) => metrics.panicked(),
            Outcome::TimedOut(_) => metrics.timed_out(),
            Outcome::Finished(_) | Outcome::Failed(_) => {}
        }
        metrics.reconciled(result, elapsed);
    }
    shared.queue.done(&key);
    if let Some(metrics) = &shared.metrics {
        metrics.worker_idle();
    }
    shared.processed.send_modify(|n| *n += 1);
    true
}

/// Asks the stale-cache guard about `key`: true to reconcile it now; false if it was put
/// back in the queue because a cache has not yet seen its last write (the caller then
/// marks it done).
fn cache_caught_up(shared: &Shared, key: &ObjectKey) -> bool {
    let controller = shared.name.as_str();
    match shared.guard.check(key) {
        Verdict::Fresh => true,
        Verdict::Behind { retry, resources } => {
            tracing::debug!(controller, %key, ?resources, ?retry, "cache behind the key's last write; reconciling later");
            shared.queue.add_after(key.clone(), retry);
            if let Some(metrics) = &shared.metrics {
                metrics.stale_sync_skipped();
            }
            false
        }
        Verdict::GaveUp { waited, resources } => {
            tracing::warn!(controller, %key, ?resources, ?waited, "cache still behind the key's last write at the stale-cache deadline; reconciling anyway");
            if let Some(metrics) = &shared.metrics {
                metrics.stale_sync_timed_out();
            }
            true
        }
    }
}

/// Tells the queue what comes next for `key` (controller-runtime's `reconcileHandler`):
/// success forgets, an error or a requeue goes through the rate limiter, a requeue
/// after a delay forgets the backoff and comes back after the delay. The caller calls
/// `done` afterwards, whatever the outcome.
pub(super) fn settle<E>(
    queue: &RateLimitingQueue<ObjectKey>,
    key: &ObjectKey,
    outcome: &Outcome<E>,
) -> ReconcileResult {
    match outcome {
        Outcome::Finished(Action::Done) => {
            queue.forget(key);
            ReconcileResult::Success
        }
        Outcome::Finished(Action::Requeue) => {
            queue.add_rate_limited(key.clone());
            ReconcileResult::Requeue
        }
        Outcome::Finished(Action::RequeueAfter(delay)) => {
            queue.forget(key);
            queue.add_after(key.clone(), *delay);
            ReconcileResult::RequeueAfter
        }
        Outcome::Failed(_) | Outcome::Panicked(_) | Outcome::TimedOut(_) => {
            queue.add_rate_limited(key.clone());
            ReconcileResult::Error
        }
    }
}

/// One line per reconcile that needs attention; routine outcomes at debug level.
fn log<E: std::error::Error + 'static>(controller: &str, key: &ObjectKey, outcome: &Outcome<E>) {
    match outcome {
        Outcome::Finished(Action::Done) => {
            tracing::debug!(controller, %key, "reconciled");
        }
        Outcome::Finished(Action::Requeue) => {
            tracing::debug!(controller, %key, "reconciled; requeuing with backoff");
        }
        Outcome::Finished(Action::RequeueAfter(delay)) => {
            tracing::debug!(controller, %key, after = ?delay, "reconciled; requeuing later");
        }
        Outcome::Failed(error) => {
            tracing::warn!(controller, %key, error = %ErrorChain(error), "reconcile failed; retrying with backoff");
        }
        Outcome::Panicked(message) => {
            tracing::error!(controller, %key, panic = %message, "reconcile panicked; retrying with backoff");
        }
        Outcome::TimedOut(timeout) => {
            tracing::warn!(controller, %key, ?timeout, "reconcile timed out and was dropped; retrying with backoff");
        }
    }
}

/// The message of a panic payload (`panic!` with a literal or a format string).
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn panic_messages_of_literals_and_formats() {
        let literal = std::panic::catch_unwind(|| panic!("boom")).unwrap_err();
        assert_eq!(panic_message(literal.as_ref()), "boom");
        let formatted = std::panic::catch_unwind(|| panic!("boom {}", 42)).unwrap_err();
        assert_eq!(panic_message(formatted.as_ref()), "boom 42");
        let other = std::panic::catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(panic_message(other.as_ref()), "a panic without a message");
    }
}
