use std::time::Duration;

use tokio::time::Instant;

use super::{poll_once, settle};
use crate::workqueue::DelayingQueue;

fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

#[tokio::test(start_paused = true)]
async fn add_after_releases_the_key_at_its_time() {
    let queue = DelayingQueue::new();
    let start = Instant::now();
    queue.add_after("a", secs(7));
    assert_eq!(queue.len(), 0);
    assert_eq!(queue.waiting_len(), 1);
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), secs(7));
    assert_eq!(queue.waiting_len(), 0);
}

#[tokio::test(start_paused = true)]
async fn zero_delay_adds_now() {
    let queue = DelayingQueue::new();
    queue.add_after("a", Duration::ZERO);
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.waiting_len(), 0);
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
}

#[tokio::test(start_paused = true)]
async fn keys_are_released_in_time_order() {
    let queue = DelayingQueue::new();
    let start = Instant::now();
    queue.add_after("c", secs(3));
    queue.add_after("a", secs(1));
    queue.add_after("b", secs(2));
    for (key, at) in [("a", 1), ("b", 2), ("c", 3)] {
        assert_eq!(queue.get().await, Some(key));
        assert_eq!(start.elapsed(), secs(at));
        queue.done(&key);
    }
}

#[tokio::test(start_paused = true)]
async fn equal_times_keep_insertion_order() {
    let queue = DelayingQueue::new();
    for key in [5, 3, 9, 1] {
        queue.add_after(key, secs(1));
    }
    tokio::time::sleep(secs(1)).await;
    settle().await;
    let order: Vec<_> = (0..4).map(|_| poll_once(queue.get()).flatten()).collect();
    assert_eq!(order, [Some(5), Some(3), Some(9), Some(1)]);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_key_keeps_the_earlier_time() {
    let queue = DelayingQueue::new();
    let start = Instant::now();
    queue.add_after("a", secs(10));
    queue.add_after("a", secs(20)); // later: ignored
    assert_eq!(queue.waiting_len(), 1);
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), secs(10));
    queue.done(&"a");

    let start = Instant::now();
    queue.add_after("a", secs(10));
    queue.add_after("a", secs(4)); // earlier: moves it
    assert_eq!(queue.waiting_len(), 1);
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), secs(4));
    queue.done(&"a");
    tokio::time::sleep(secs(60)).await;
    assert_eq!(poll_once(queue.get()), None, "the moved entry fires once");
}

#[tokio::test(start_paused = true)]
async fn an_earlier_key_wakes_the_timer() {
    let queue = DelayingQueue::new();
    let start = Instant::now();
    queue.add_after("late", secs(100));
    settle().await; // the timer is now sleeping until +100 s
    queue.add_after("early", secs(1));
    assert_eq!(queue.get().await, Some("early"));
    assert_eq!(start.elapsed(), secs(1));
    assert_eq!(queue.get().await, Some("late"));
    assert_eq!(start.elapsed(), secs(100));
}

#[tokio::test(start_paused = true)]
async fn a_released_key_follows_the_queue_rules() {
    let queue = DelayingQueue::new();
    queue.add("a");
    let a = queue.get().await.unwrap();
    queue.add_after("a", secs(1));
    tokio::time::sleep(secs(2)).await;
    settle().await;
    assert_eq!(queue.waiting_len(), 0);
    assert_eq!(
        queue.len(),
        0,
        "released while processing: dirty, not queued"
    );
    queue.done(&a);
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
}

#[tokio::test(start_paused = true)]
async fn add_supersedes_a_waiting_entry() {
    let queue = DelayingQueue::new();
    queue.add_after("a", secs(5));
    queue.add("a");
    assert_eq!((queue.len(), queue.waiting_len()), (1, 0));
    let a = queue.get().await.unwrap();
    queue.done(&a);
    tokio::time::sleep(secs(60)).await;
    settle().await;
    assert_eq!(
        poll_once(queue.get()),
        None,
        "processed once, not again at +5 s"
    );
}

#[tokio::test(start_paused = true)]
async fn add_while_processing_supersedes_a_waiting_entry() {
    let queue = DelayingQueue::new();
    queue.add("a");
    let a = queue.get().await.unwrap();
    queue.add_after("a", secs(5)); // e.g. the failed reconcile asks for a retry
    queue.add("a"); // and an event arrives meanwhile
    assert_eq!(queue.waiting_len(), 0);
    queue.done(&a);
    assert_eq!(queue.get().await, Some("a"));
    queue.done(&a);
    tokio::time::sleep(secs(60)).await;
    settle().await;
    assert_eq!(poll_once(queue.get()), None);
}

#[tokio::test(start_paused = true)]
async fn add_after_a_key_that_is_queued_processes_it_again_later() {
    let queue = DelayingQueue::new();
    let start = Instant::now();
    queue.add("a");
    queue.add_after("a", secs(3)); // a requeue-after while the key is still queued
    assert_eq!((queue.len(), queue.waiting_len()), (1, 1));
    assert_eq!(queue.get().await, Some("a"));
    queue.done(&"a");
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(start.elapsed(), secs(3));
}

#[tokio::test(start_paused = true)]
async fn shut_down_stops_the_timer_task() {
    let queue = DelayingQueue::new();
    queue.add_after("a", secs(10));
    queue.add_after("b", secs(20));
    settle().await;
    assert!(!queue.timer_finished());
    queue.shut_down();
    settle().await;
    assert!(queue.timer_finished());
    assert_eq!(queue.waiting_len(), 0);
    queue.add_after("c", secs(1));
    queue.add_after("d", Duration::ZERO);
    assert_eq!(queue.waiting_len(), 0);
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn shut_down_with_drain_stops_the_timer_and_drains() {
    let queue = DelayingQueue::new();
    queue.add("a");
    queue.add_after("b", secs(10));
    let a = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    settle().await;
    assert!(queue.timer_finished());
    assert_eq!(queue.waiting_len(), 0);
    assert!(!drain.is_finished());
    queue.done(&a);
    drain.await.unwrap();
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn a_huge_delay_does_not_overflow() {
    let queue = DelayingQueue::new();
    queue.add_after("never", Duration::MAX);
    queue.add_after("soon", secs(1));
    assert_eq!(queue.get().await, Some("soon"));
    assert_eq!(queue.waiting_len(), 1);
}

#[tokio::test(start_paused = true)]
async fn dropping_every_handle_ends_the_timer_task() {
    use super::metrics::Recorder;
    use crate::workqueue::QueueConfig;

    let recorder = Recorder::default();
    let queue = DelayingQueue::with_config(
        QueueConfig::default()
            .name("foos")
            .metrics(recorder.clone()),
    );
    let clone = queue.clone();
    queue.add_after("a", secs(3600));
    settle().await;
    drop(queue);
    settle().await;
    assert!(
        recorder.unfinished().is_some(),
        "a clone still holds the queue"
    );
    drop(clone);
    settle().await;
    // The timer task owned the last reference to the queue state; the probe sees it gone.
    assert_eq!(recorder.unfinished(), None);
}
