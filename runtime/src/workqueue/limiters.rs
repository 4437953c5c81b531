//! Rate limiters: how long a key waits before it is retried.
//!
//! The semantics are client-go's `default_rate_limiters.go`, with Rust types.

use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::clock::{Clock, TokioClock};

/// Decides how long a key waits before it is retried, and counts its retries.
pub trait RateLimiter<T>: Send + Sync {
    /// How long `key` should wait now. Each call counts as one more failure of `key`
    /// for limiters that track keys, and reserves capacity for limiters that don't.
    fn when(&self, key: &T) -> Duration;

    /// Stops tracking `key`: its next failure starts from the first delay again. Call it
    /// when the key was processed successfully (or is given up on).
    fn forget(&self, key: &T);

    /// How many failures of `key` are being tracked.
    fn num_requeues(&self, key: &T) -> u32;
}

impl<T, R: RateLimiter<T> + ?Sized> RateLimiter<T> for Box<R> {
    fn when(&self, key: &T) -> Duration {
        (**self).when(key)
    }
    fn forget(&self, key: &T) {
        (**self).forget(key)
    }
    fn num_requeues(&self, key: &T) -> u32 {
        (**self).num_requeues(key)
    }
}

impl<T, R: RateLimiter<T> + ?Sized> RateLimiter<T> for Arc<R> {
    fn when(&self, key: &T) -> Duration {
        (**self).when(key)
    }
    fn forget(&self, key: &T) {
        (**self).forget(key)
    }
    fn num_requeues(&self, key: &T) -> u32 {
        (**self).num_requeues(key)
    }
}

/// client-go's `DefaultControllerRateLimiter`: the larger of a per-key exponential
/// backoff from 5 ms to 1000 s and an overall token bucket of 10 retries per second
/// with a burst of 100.
///
/// ```
/// use kubegen_runtime::workqueue::{RateLimiter, default_controller_rate_limiter};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let limiter = default_controller_rate_limiter::<&str>();
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(10));
/// assert_eq!(limiter.num_requeues(&"a"), 2);
/// limiter.forget(&"a");
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// # }
/// ```
pub fn default_controller_rate_limiter<T>() -> MaxOfRateLimiter<T>
where
    T: Hash + Eq + Clone + Send + Sync + 'static,
{
    MaxOfRateLimiter::new(vec![
        Box::new(ItemExponentialFailureRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(BucketRateLimiter::new(10.0, 100)),
    ])
}

fn lock<S>(mutex: &Mutex<S>) -> MutexGuard<'_, S> {
    // Every critical section below is a few arithmetic steps that cannot panic halfway.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Per-key exponential backoff: `base * 2^failures`, capped at `max`.
///
/// ```
/// use kubegen_runtime::workqueue::{ItemExponentialFailureRateLimiter, RateLimiter};
/// use std::time::Duration;
///
/// let limiter = ItemExponentialFailureRateLimiter::new(
///     Duration::from_millis(100),
///     Duration::from_millis(350),
/// );
/// let delays: Vec<_> = (0..4).map(|_| limiter.when(&"a").as_millis()).collect();
/// assert_eq!(delays, [100, 200, 350, 350]);
/// ```
pub struct ItemExponentialFailureRateLimiter<T> {
    failures: Mutex<HashMap<T, u32>>,
    base: Duration,
    max: Duration,
}

impl<T> Debug for ItemExponentialFailureRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemExponentialFailureRateLimiter")
            .field("base", &self.base)
            .field("max", &self.max)
            .field("tracked", &lock(&self.failures).len())
            .finish()
    }
}

impl<T: Hash + Eq> ItemExponentialFailureRateLimiter<T> {
    /// Starts at `base` and doubles on every failure of a key, up to `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            failures: Mutex::new(HashMap::new()),
            base,
            max,
        }
    }
}

/// `base * 2^exponent`, or `None` if it does not fit in `u128` nanoseconds.
fn exponential(base: Duration, exponent: u32) -> Option<u128> {
    if base.is_zero() {
        return Some(0);
    }
    let factor = 1u128.checked_shl(exponent)?;
    base.as_nanos().checked_mul(factor)
}

/// `nanos` as a `Duration`; `nanos` must not exceed `Duration::MAX` (it is at most
/// another `Duration`'s nanoseconds here).
fn duration_from_nanos(nanos: u128) -> Duration {
    const NANOS_PER_SEC: u128 = 1_000_000_000;
    let secs = u64::try_from(nanos / NANOS_PER_SEC).unwrap_or(u64::MAX);
    // The remainder is below one billion, so it fits in u32.
    let subsec = (nanos % NANOS_PER_SEC) as u32;
    Duration::new(secs, subsec)
}

impl<T: Hash + Eq + Clone + Send + Sync> RateLimiter<T> for ItemExponentialFailureRateLimiter<T> {
    fn when(&self, key: &T) -> Duration {
        let exponent = {
            let mut failures = lock(&self.failures);
            let count = failures.entry(key.clone()).or_insert(0);
            let exponent = *count;
            *count = count.saturating_add(1);
            exponent
        };
        match exponential(self.base, exponent) {
            Some(nanos) if nanos < self.max.as_nanos() => duration_from_nanos(nanos),
            _ => self.max,
        }
    }

    fn forget(&self, key: &T) {
        lock(&self.failures).remove(key);
    }

    fn num_requeues(&self, key: &T) -> u32 {
        lock(&self.failures).get(key).copied().unwrap_or(0)
    }
}

/// Per-key two-speed retry: `fast` for the first `max_fast_attempts` failures of a key,
/// `slow` after that.
///
/// ```
/// use kubegen_runtime::workqueue::{ItemFastSlowRateLimiter, RateLimiter};
/// use std::time::Duration;
///
/// let limiter = ItemFastSlowRateLimiter::new(Duration::from_secs(1), Duration::from_secs(60), 2);
/// let delays: Vec<_> = (0..3).map(|_| limiter.when(&"a").as_secs()).collect();
/// assert_eq!(delays, [1, 1, 60]);
/// ```
pub struct ItemFastSlowRateLimiter<T> {
    failures: Mutex<HashMap<T, u32>>,
    fast: Duration,
    slow: Duration,
    max_fast_attempts: u32,
}

impl<T> Debug for ItemFastSlowRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemFastSlowRateLimiter")
            .field("fast", &self.fast)
            .field("slow", &self.slow)
            .field("max_fast_attempts", &self.max_fast_attempts)
            .field("tracked", &lock(&self.failures).len())
            .finish()
    }
}

impl<T: Hash + Eq> ItemFastSlowRateLimiter<T> {
    /// Waits `fast` for the first `max_fast_attempts` failures of a key, then `slow`.
    pub fn new(fast: Duration, slow: Duration, max_fast_attempts: u32) -> Self {
        Self {
            failures: Mutex::new(HashMap::new()),
            fast,
            slow,
            max_fast_attempts,
        }
    }
}

impl<T: Hash + Eq + Clone + Send + Sync> RateLimiter<T> for ItemFastSlowRateLimiter<T> {
    fn when(&self, key: &T) -> Duration {
        let mut failures = lock(&self.failures);
        let count = failures.entry(key.clone()).or_insert(0);
        *count = count.saturating_add(1);
        if *count <= self.max_fast_attempts {
            self.fast
        } else {
            self.slow
        }
    }

    fn forget(&self, key: &T) {
        lock(&self.failures).remove(key);
    }

    fn num_requeues(&self, key: &T) -> u32 {
        lock(&self.failures).get(key).copied().unwrap_or(0)
    }
}

/// An overall token bucket, shared by every key: `qps` tokens per second, at most
/// `burst` saved up.
///
/// Like `golang.org/x/time/rate`'s `Reserve`, every [`when`](RateLimiter::when) takes a
/// token, borrowing from the future when the bucket is empty, and returns how long until
/// that token exists. It tracks no key: [`forget`](RateLimiter::forget) does nothing and
/// [`num_requeues`](RateLimiter::num_requeues) is always 0.
///
/// A `qps` that is zero, negative or NaN never refills (a retry beyond the burst waits
/// "forever", clamped by the queue to about 30 years); an infinite `qps` never limits;
/// a `burst` of 0 behaves as 1.
///
/// ```
/// use kubegen_runtime::workqueue::{BucketRateLimiter, RateLimiter};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let bucket = BucketRateLimiter::new(10.0, 2);
/// assert_eq!(bucket.when(&"a"), Duration::ZERO); // burst
/// assert_eq!(bucket.when(&"b"), Duration::ZERO); // burst
/// assert_eq!(bucket.when(&"c"), Duration::from_millis(100)); // reserved ahead
/// assert_eq!(bucket.when(&"d"), Duration::from_millis(200));
/// # }
/// ```
pub struct BucketRateLimiter {
    qps: f64,
    burst: f64,
    clock: Arc<dyn Clock>,
    bucket: Mutex<Option<Bucket>>,
}

/// Tokens available at `at`; negative when tokens were reserved ahead.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Debug for BucketRateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BucketRateLimiter")
            .field("qps", &self.qps)
            .field("burst", &self.burst)
            .field("bucket", &*lock(&self.bucket))
            .finish()
    }
}

impl BucketRateLimiter {
    /// `qps` tokens per second, at most `burst` saved up; starts full. Reads Tokio's
    /// clock; see [`clock`](BucketRateLimiter::clock).
    pub fn new(qps: f64, burst: u32) -> Self {
        Self {
            qps,
            burst: f64::from(burst.max(1)),
            clock: Arc::new(TokioClock),
            bucket: Mutex::new(None),
        }
    }

    /// Reads time from `clock` instead of Tokio's.
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Takes one token at `now`; returns the delay until it exists.
    fn reserve(&self, now: Instant) -> Duration {
        if self.qps == f64::INFINITY {
            return Duration::ZERO;
        }
        let refills = self.qps > 0.0; // false for NaN too
        let mut bucket = lock(&self.bucket);
        let current = bucket.get_or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        // Refill for the time since the last reservation (never backwards).
        let elapsed = now.saturating_duration_since(current.at).as_secs_f64();
        let refilled = if refills {
            current.tokens + elapsed * self.qps
        } else {
            current.tokens
        };
        let tokens = refilled.min(self.burst) - 1.0;
        *current = Bucket {
            tokens,
            at: now.max(current.at),
        };
        if tokens >= 0.0 {
            Duration::ZERO
        } else if refills {
            Duration::try_from_secs_f64(-tokens / self.qps).unwrap_or(Duration::MAX)
        } else {
            Duration::MAX
        }
    }
}

impl<T> RateLimiter<T> for BucketRateLimiter {
    fn when(&self, _: &T) -> Duration {
        self.reserve(self.clock.now())
    }

    fn forget(&self, _: &T) {}

    fn num_requeues(&self, _: &T) -> u32 {
        0
    }
}

/// The worst case of several limiters: [`when`](RateLimiter::when) asks every one (so
/// each records the failure) and returns the longest delay;
/// [`num_requeues`](RateLimiter::num_requeues) is the largest count;
/// [`forget`](RateLimiter::forget) forgets in all.
///
/// With a token bucket inside, the burst can appear exceeded when some keys were
/// separately delayed longer by another limiter, as in client-go.
pub struct MaxOfRateLimiter<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> Debug for MaxOfRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MaxOfRateLimiter")
            .field("limiters", &self.limiters.len())
            .finish()
    }
}

impl<T> MaxOfRateLimiter<T> {
    /// The worst case of `limiters`; with no limiter, every delay is zero.
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOfRateLimiter<T> {
    fn when(&self, key: &T) -> Duration {
        self.limiters
            .iter()
            .map(|limiter| limiter.when(key))
            .fold(Duration::ZERO, Duration::max)
    }

    fn forget(&self, key: &T) {
        for limiter in &self.limiters {
            limiter.forget(key);
        }
    }

    fn num_requeues(&self, key: &T) -> u32 {
        self.limiters
            .iter()
            .map(|limiter| limiter.num_requeues(key))
            .max()
            .unwrap_or(0)
    }
}
