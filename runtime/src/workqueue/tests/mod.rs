//! Unit tests of the work queue contracts, on paused Tokio time.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod delaying;
mod limiters;
mod metrics;
mod queue;
mod rate_limiting;

use futures::FutureExt;
use std::future::Future;

/// The output of `future` if it is ready at its first poll.
fn poll_once<F: Future>(future: F) -> Option<F::Output> {
    future.now_or_never()
}

/// Lets every spawned task run until it waits on something (paused time does not move).
async fn settle() {
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
}
