//! The time source of the delaying queue, the rate limiters and the queue metrics.

use std::fmt::Debug;

use futures::future::BoxFuture;
use tokio::time::Instant;

/// A source of time: what "now" is and how to wait for a moment.
///
/// Everything in [`workqueue`](crate::workqueue) that reads time does it through a
/// `Clock`, so a test can control time. The default, [`TokioClock`], reads
/// [`tokio::time`], which already honours paused time
/// (`#[tokio::test(start_paused = true)]`, `tokio::time::pause`): tests of code built on
/// the work queue need nothing more than that. Implement the trait to drive the queue
/// from another time source.
pub trait Clock: Debug + Send + Sync + 'static {
    /// The current moment.
    fn now(&self) -> Instant;

    /// A future that completes once [`now`](Clock::now) has reached `deadline`.
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()>;
}

/// The [`Clock`] of the Tokio runtime: [`tokio::time::Instant::now`] and
/// [`tokio::time::sleep_until`].
///
/// ```
/// use kubegen_runtime::workqueue::{Clock, TokioClock};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let clock = TokioClock;
/// let start = clock.now();
/// clock.sleep_until(start + Duration::from_secs(60)).await; // paused time: instant
/// assert_eq!(clock.now() - start, Duration::from_secs(60));
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep_until(deadline))
    }
}

/// Far enough in the future to mean "never" while staying representable: delays are
/// clamped to this so that `now + delay` cannot overflow `Instant` (about 30 years, the
/// same horizon Tokio uses for its own "far future").
pub(crate) const FAR_FUTURE: std::time::Duration =
    std::time::Duration::from_secs(60 * 60 * 24 * 365 * 30);

/// `now + delay`, saturating at [`FAR_FUTURE`] for huge delays.
pub(crate) fn deadline_after(now: Instant, delay: std::time::Duration) -> Instant {
    now.checked_add(delay.min(FAR_FUTURE))
        .unwrap_or(now + FAR_FUTURE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn tokio_clock_follows_paused_time() {
        let clock = TokioClock;
        let start = clock.now();
        clock.sleep_until(start + Duration::from_millis(1500)).await;
        assert_eq!(clock.now() - start, Duration::from_millis(1500));
    }

    #[tokio::test(start_paused = true)]
    async fn deadline_after_saturates_instead_of_overflowing() {
        let now = Instant::now();
        assert_eq!(deadline_after(now, Duration::MAX), now + FAR_FUTURE);
        assert_eq!(
            deadline_after(now, Duration::from_secs(3)),
            now + Duration::from_secs(3)
        );
    }
}
