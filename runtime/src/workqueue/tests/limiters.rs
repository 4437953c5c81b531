use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::workqueue::{
    BucketRateLimiter, Clock, ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter,
    MaxOfRateLimiter, RateLimiter, default_controller_rate_limiter,
};

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[test]
fn exponential_doubles_per_key_and_caps() {
    let limiter = ItemExponentialFailureRateLimiter::new(ms(1), Duration::from_secs(1));
    let delays: Vec<_> = (0..12).map(|_| limiter.when(&"a")).collect();
    let expected: Vec<_> = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000]
        .into_iter()
        .map(ms)
        .collect();
    assert_eq!(delays, expected);
    assert_eq!(limiter.num_requeues(&"a"), 12);
    // Another key has its own count.
    assert_eq!(limiter.when(&"b"), ms(1));
    assert_eq!(limiter.num_requeues(&"b"), 1);
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), ms(1));
    assert_eq!(limiter.num_requeues(&"b"), 1);
}

#[test]
fn exponential_does_not_overflow_after_many_failures() {
    let max = Duration::from_secs(1000);
    let limiter = ItemExponentialFailureRateLimiter::new(ms(5), max);
    for _ in 0..300 {
        assert!(limiter.when(&"a") <= max);
    }
    assert_eq!(limiter.when(&"a"), max);
    assert_eq!(limiter.num_requeues(&"a"), 301);

    let huge = ItemExponentialFailureRateLimiter::new(Duration::MAX, Duration::MAX);
    assert_eq!(huge.when(&"a"), Duration::MAX);
    assert_eq!(huge.when(&"a"), Duration::MAX);
}

#[test]
fn exponential_with_zero_base_never_waits() {
    let limiter = ItemExponentialFailureRateLimiter::new(Duration::ZERO, ms(10));
    for _ in 0..200 {
        assert_eq!(limiter.when(&"a"), Duration::ZERO);
    }
}

#[test]
fn exponential_keeps_sub_millisecond_precision() {
    let limiter =
        ItemExponentialFailureRateLimiter::new(Duration::from_nanos(1_500), Duration::MAX);
    assert_eq!(limiter.when(&"a"), Duration::from_nanos(1_500));
    assert_eq!(limiter.when(&"a"), Duration::from_nanos(3_000));
}

#[test]
fn fast_slow_switches_after_the_fast_attempts() {
    let limiter = ItemFastSlowRateLimiter::new(ms(5), Duration::from_secs(10), 3);
    let delays: Vec<_> = (0..5).map(|_| limiter.when(&"a")).collect();
    assert_eq!(
        delays,
        [
            ms(5),
            ms(5),
            ms(5),
            Duration::from_secs(10),
            Duration::from_secs(10)
        ]
    );
    assert_eq!(limiter.num_requeues(&"a"), 5);
    assert_eq!(limiter.when(&"b"), ms(5));
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), ms(5));
}

#[tokio::test(start_paused = true)]
async fn bucket_spends_the_burst_then_reserves_ahead() {
    let bucket = BucketRateLimiter::new(10.0, 3);
    let delays: Vec<Duration> = (0..6).map(|_| bucket.when(&"a")).collect();
    assert_eq!(
        delays,
        [
            Duration::ZERO,
            Duration::ZERO,
            Duration::ZERO,
            ms(100),
            ms(200),
            ms(300)
        ]
    );
    assert_eq!(RateLimiter::<&str>::num_requeues(&bucket, &"a"), 0);
}

#[tokio::test(start_paused = true)]
async fn bucket_refills_with_time_up_to_the_burst() {
    let bucket = BucketRateLimiter::new(10.0, 2);
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), ms(100));
    // The reservation above is paid back after 100 ms; 150 ms more refill 1.5 tokens.
    tokio::time::advance(ms(250)).await;
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), ms(50));
    // A long pause refills only up to the burst.
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), ms(100));
}

#[tokio::test(start_paused = true)]
async fn bucket_edge_rates() {
    let unlimited = BucketRateLimiter::new(f64::INFINITY, 1);
    for _ in 0..100 {
        assert_eq!(unlimited.when(&()), Duration::ZERO);
    }
    let frozen = BucketRateLimiter::new(0.0, 2);
    assert_eq!(frozen.when(&()), Duration::ZERO);
    assert_eq!(frozen.when(&()), Duration::ZERO);
    assert_eq!(frozen.when(&()), Duration::MAX);
    let nan = BucketRateLimiter::new(f64::NAN, 1);
    assert_eq!(nan.when(&()), Duration::ZERO);
    assert_eq!(nan.when(&()), Duration::MAX);
    let no_burst = BucketRateLimiter::new(4.0, 0);
    assert_eq!(no_burst.when(&()), Duration::ZERO);
    assert_eq!(no_burst.when(&()), ms(250));
}

/// A clock that moves only when told to.
#[derive(Debug, Clone)]
struct ManualClock(Arc<Mutex<Instant>>);

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap()
    }
    fn sleep_until(&self, _: Instant) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(std::future::pending())
    }
}

#[test]
fn bucket_reads_an_injected_clock() {
    let time = Arc::new(Mutex::new(Instant::now()));
    let bucket = BucketRateLimiter::new(2.0, 1).clock(ManualClock(Arc::clone(&time)));
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), ms(500));
    *time.lock().unwrap() += Duration::from_secs(1);
    // The reservation is paid back at +500 ms; by +1 s one token is saved up.
    assert_eq!(bucket.when(&()), Duration::ZERO);
    assert_eq!(bucket.when(&()), ms(500));
    // A clock that goes backwards refills nothing (and does not panic).
    *time.lock().unwrap() -= Duration::from_secs(1);
    assert_eq!(bucket.when(&()), Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn max_of_takes_the_worst_and_forgets_everywhere() {
    let limiter: MaxOfRateLimiter<&str> = MaxOfRateLimiter::new(vec![
        Box::new(ItemFastSlowRateLimiter::new(
            ms(5),
            Duration::from_secs(3),
            2,
        )),
        Box::new(ItemExponentialFailureRateLimiter::new(
            ms(1),
            Duration::from_secs(1),
        )),
    ]);
    let delays: Vec<_> = (0..4).map(|_| limiter.when(&"a")).collect();
    assert_eq!(
        delays,
        [ms(5), ms(5), Duration::from_secs(3), Duration::from_secs(3)]
    );
    assert_eq!(limiter.num_requeues(&"a"), 4);
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), ms(5));

    let empty: MaxOfRateLimiter<&str> = MaxOfRateLimiter::new(Vec::new());
    assert_eq!(empty.when(&"a"), Duration::ZERO);
    assert_eq!(empty.num_requeues(&"a"), 0);
}

#[tokio::test(start_paused = true)]
async fn default_controller_limiter_has_client_go_values() {
    let limiter = default_controller_rate_limiter::<u32>();
    // Per key: 5 ms doubling.
    assert_eq!(limiter.when(&1), ms(5));
    assert_eq!(limiter.when(&1), ms(10));
    assert_eq!(limiter.when(&1), ms(20));
    // Capped at 1000 s: 5 ms * 2^18 = 1310.72 s.
    for _ in 3..18 {
        limiter.when(&1);
    }
    assert_eq!(limiter.when(&1), Duration::from_secs(1000));
    assert_eq!(limiter.num_requeues(&1), 19);
    limiter.forget(&1);
    assert_eq!(limiter.num_requeues(&1), 0);

    // Overall: 19 tokens of the burst of 100 are spent; 81 more keys go at their
    // first-failure delay, then the bucket reserves 100 ms apart.
    for key in 100..181 {
        assert_eq!(limiter.when(&key), ms(5));
    }
    assert_eq!(limiter.when(&181), ms(100));
    assert_eq!(limiter.when(&182), ms(200));
}
