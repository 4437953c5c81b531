use std::time::Duration;

use tokio::time::Instant;

use super::{poll_once, settle};
use crate::workqueue::{ItemExponentialFailureRateLimiter, RateLimitingQueue};

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[tokio::test(start_paused = true)]
async fn retries_back_off_per_key_until_forgotten() {
    let queue = RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(ms(10), ms(1000)));
    queue.add("a");
    let mut waits = Vec::new();
    for _ in 0..4 {
        let start = Instant::now();
        let key = queue.get().await.unwrap();
        waits.push(start.elapsed());
        queue.add_rate_limited(key);
        queue.done(&key);
    }
    assert_eq!(waits, [ms(0), ms(10), ms(20), ms(40)]);
    assert_eq!(queue.num_requeues(&"a"), 4);

    let key = queue.get().await.unwrap();
    queue.forget(&key);
    queue.done(&key);
    assert_eq!(queue.num_requeues(&"a"), 0);
    queue.add_rate_limited("a");
    let start = Instant::now();
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), ms(10), "back to the first delay");
}

#[tokio::test(start_paused = true)]
async fn keys_back_off_independently() {
    let queue = RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(ms(10), ms(1000)));
    queue.add_rate_limited("a");
    queue.add_rate_limited("a"); // second failure, but the first entry is earlier
    queue.add_rate_limited("b");
    assert_eq!(queue.num_requeues(&"a"), 2);
    assert_eq!(queue.num_requeues(&"b"), 1);
    assert_eq!(queue.waiting_len(), 2);
    let start = Instant::now();
    let first = queue.get().await.unwrap();
    let second = queue.get().await.unwrap();
    assert_eq!(start.elapsed(), ms(10));
    assert_eq!((first, second), ("a", "b"));
}

#[tokio::test(start_paused = true)]
async fn forget_does_not_remove_a_waiting_retry() {
    let queue = RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(ms(10), ms(1000)));
    queue.add_rate_limited("a");
    queue.forget(&"a");
    assert_eq!(queue.waiting_len(), 1);
    assert_eq!(queue.get().await, Some("a"));
}

#[tokio::test(start_paused = true)]
async fn add_supersedes_a_pending_retry_and_keeps_the_backoff() {
    let queue = RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(ms(10), ms(1000)));
    queue.add_rate_limited("a");
    queue.add_rate_limited("a");
    queue.add("a");
    assert_eq!((queue.len(), queue.waiting_len()), (1, 0));
    assert_eq!(queue.num_requeues(&"a"), 2);
    let key = queue.get().await.unwrap();
    queue.add_rate_limited(key); // fails again: third step of the backoff
    queue.done(&key);
    let start = Instant::now();
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), ms(40));
    queue.done(&key);
    tokio::time::sleep(Duration::from_secs(10)).await;
    settle().await;
    assert_eq!(poll_once(queue.get()), None, "no stale retry fires");
}

#[tokio::test(start_paused = true)]
async fn add_rate_limited_after_shut_down_counts_nothing() {
    let queue = RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(ms(10), ms(1000)));
    queue.shut_down();
    queue.add_rate_limited("a");
    assert_eq!(queue.num_requeues(&"a"), 0);
    assert_eq!(queue.waiting_len(), 0);
    assert_eq!(queue.get().await, None);
}
