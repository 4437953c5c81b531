use super::{poll_once, settle};
use crate::workqueue::Queue;

#[test]
fn add_deduplicates_waiting_keys() {
    let queue = Queue::new();
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assert_eq!(queue.len(), 2);
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    assert_eq!(poll_once(queue.get()), Some(Some("b")));
    assert_eq!(poll_once(queue.get()), None, "nothing else is queued");
}

#[test]
fn keys_come_out_in_first_add_order() {
    let queue = Queue::new();
    for key in [3, 1, 2, 1, 3] {
        queue.add(key);
    }
    let order: Vec<_> = (0..3).map(|_| poll_once(queue.get()).flatten()).collect();
    assert_eq!(order, [Some(3), Some(1), Some(2)]);
}

#[test]
fn a_key_added_while_processing_waits_for_done() {
    let queue = Queue::new();
    queue.add("a");
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.add("a");
    queue.add("a");
    assert_eq!(queue.len(), 0, "dirty while processing: not queued");
    assert_eq!(
        poll_once(queue.get()),
        None,
        "never handed to a second worker"
    );
    queue.done(&"a");
    assert_eq!(queue.len(), 1, "re-queued once on done");
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.done(&"a");
    assert_eq!(queue.len(), 0, "not dirty any more: not re-queued");
}

#[test]
fn a_requeued_key_goes_to_the_back() {
    let queue = Queue::new();
    queue.add("a");
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.add("a");
    queue.add("b");
    queue.done(&"a");
    assert_eq!(poll_once(queue.get()), Some(Some("b")));
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
}

#[test]
fn done_for_a_key_not_processing_changes_nothing() {
    let queue = Queue::new();
    queue.add("a");
    queue.done(&"a"); // queued, not processing: client-go would queue it twice
    queue.done(&"zzz");
    assert_eq!(queue.len(), 1);
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.done(&"a");
    queue.done(&"a");
    assert_eq!(poll_once(queue.get()), None);
}

#[test]
fn shut_down_ignores_adds_and_drains_what_is_queued() {
    let queue = Queue::new();
    queue.add(1);
    queue.add(2);
    assert!(!queue.is_shutting_down());
    queue.shut_down();
    assert!(queue.is_shutting_down());
    queue.add(3);
    assert_eq!(queue.len(), 2);
    assert_eq!(poll_once(queue.get()), Some(Some(1)));
    assert_eq!(poll_once(queue.get()), Some(Some(2)));
    assert_eq!(poll_once(queue.get()), Some(None));
    queue.shut_down(); // idempotent
    assert_eq!(poll_once(queue.get()), Some(None));
}

#[test]
fn done_after_shut_down_still_requeues_a_dirty_key() {
    let queue = Queue::new();
    queue.add("a");
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.add("a");
    queue.shut_down();
    queue.done(&"a");
    assert_eq!(
        poll_once(queue.get()),
        Some(Some("a")),
        "the change before shutdown"
    );
    queue.done(&"a");
    assert_eq!(poll_once(queue.get()), Some(None));
}

#[tokio::test(start_paused = true)]
async fn get_waits_for_an_add() {
    let queue = Queue::new();
    let worker = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    assert!(!worker.is_finished());
    queue.add("a");
    assert_eq!(worker.await.unwrap(), Some("a"));
}

#[tokio::test(start_paused = true)]
async fn each_add_wakes_a_different_waiting_worker() {
    let queue = Queue::new();
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move { queue.get().await })
        })
        .collect();
    settle().await;
    for key in ["a", "b", "c"] {
        queue.add(key);
    }
    let mut got = Vec::new();
    for worker in workers {
        got.push(worker.await.unwrap().unwrap());
    }
    got.sort_unstable();
    assert_eq!(got, ["a", "b", "c"]);
}

#[tokio::test(start_paused = true)]
async fn done_wakes_a_worker_for_the_requeued_key() {
    let queue = Queue::new();
    queue.add("a");
    let key = queue.get().await.unwrap();
    queue.add("a");
    let worker = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    assert!(!worker.is_finished());
    queue.done(&key);
    assert_eq!(worker.await.unwrap(), Some("a"));
}

#[tokio::test(start_paused = true)]
async fn shut_down_wakes_every_waiting_worker() {
    let queue: Queue<u32> = Queue::new();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move { queue.get().await })
        })
        .collect();
    settle().await;
    queue.shut_down();
    for worker in workers {
        assert_eq!(worker.await.unwrap(), None);
    }
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_get_loses_nothing() {
    let queue = Queue::new();
    // A get that starts waiting, then is dropped (e.g. lost a `select!`).
    let cancelled = tokio::spawn({
        let queue = queue.clone();
        async move {
            tokio::select! {
                _ = queue.get() => unreachable!("nothing was added"),
                () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            }
        }
    });
    let worker = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    cancelled.await.unwrap();
    queue.add("a");
    assert_eq!(worker.await.unwrap(), Some("a"));
    assert_eq!(queue.len(), 0);
}

#[tokio::test(start_paused = true)]
async fn shut_down_with_drain_waits_for_processing_keys() {
    let queue = Queue::new();
    queue.add("a");
    queue.add("b");
    let a = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    settle().await;
    assert!(queue.is_shutting_down());
    queue.add("c");
    assert_eq!(queue.len(), 1, "adds are ignored while draining");
    // "b" is still queued and "a" processing.
    queue.done(&a);
    settle().await;
    assert!(!drain.is_finished(), "b is still queued");
    let b = queue.get().await.unwrap();
    settle().await;
    assert!(!drain.is_finished(), "b is being processed");
    queue.done(&b);
    drain.await.unwrap();
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn shut_down_with_drain_returns_at_once_when_idle() {
    let queue: Queue<u8> = Queue::new();
    queue.shut_down_with_drain().await;
    assert!(queue.is_shutting_down());
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn shut_down_ends_a_pending_drain() {
    let queue = Queue::new();
    queue.add("a");
    let _stuck = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished());
    queue.shut_down();
    drain.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn workers_finish_the_queue_during_a_drain() {
    let queue = Queue::new();
    for key in 0..50 {
        queue.add(key);
    }
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                while let Some(key) = queue.get().await {
                    tokio::task::yield_now().await;
                    seen.push(key);
                    queue.done(&key);
                }
                seen
            })
        })
        .collect();
    queue.shut_down_with_drain().await;
    let mut seen = Vec::new();
    for worker in workers {
        seen.extend(worker.await.unwrap());
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..50).collect::<Vec<_>>());
}

#[tokio::test(start_paused = true)]
async fn a_get_cancelled_after_its_wakeup_passes_the_key_on() {
    let queue = Queue::new();
    let first = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    let second = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    queue.add("a"); // wakes `first`, the longest waiting...
    first.abort(); // ...which is cancelled before it runs
    assert!(first.await.unwrap_err().is_cancelled());
    assert_eq!(second.await.unwrap(), Some("a"));
}

#[test]
fn higher_priorities_are_handed_out_first_in_add_order_within_one() {
    use crate::workqueue::{PRIORITY_LOW, PRIORITY_NORMAL};
    let queue = Queue::new();
    for key in ["initial-1", "initial-2", "initial-3"] {
        queue.add_with_priority(key, PRIORITY_LOW);
    }
    queue.add("live-1");
    queue.add_with_priority("live-2", PRIORITY_NORMAL);
    // A waiting key added again at a higher priority moves up, once.
    queue.add("initial-2");
    queue.add_with_priority("live-1", PRIORITY_LOW); // never moves down
    assert_eq!(queue.len(), 5);
    let order: Vec<_> = (0..5).map(|_| poll_once(queue.get()).flatten()).collect();
    assert_eq!(
        order,
        [
            Some("live-1"),
            Some("live-2"),
            Some("initial-2"),
            Some("initial-1"),
            Some("initial-3")
        ]
    );
    assert_eq!(poll_once(queue.get()), None);
}

#[test]
fn a_key_dirty_while_processing_keeps_its_highest_priority_for_the_requeue() {
    use crate::workqueue::PRIORITY_LOW;
    let queue = Queue::new();
    queue.add_with_priority("a", PRIORITY_LOW);
    assert_eq!(poll_once(queue.get()), Some(Some("a")));
    queue.add_with_priority("a", PRIORITY_LOW);
    queue.add("a"); // raised while processing
    queue.add_with_priority("b", PRIORITY_LOW);
    queue.done(&"a");
    assert_eq!(poll_once(queue.get()), Some(Some("a")), "normal before low");
    assert_eq!(poll_once(queue.get()), Some(Some("b")));
}

#[test]
fn without_priorities_the_queue_is_first_in_first_out() {
    use crate::workqueue::{PRIORITY_LOW, QueueConfig};
    let queue = Queue::with_config(QueueConfig::default().priorities(false));
    queue.add_with_priority("initial", PRIORITY_LOW);
    queue.add("live");
    assert_eq!(poll_once(queue.get()), Some(Some("initial")));
    assert_eq!(poll_once(queue.get()), Some(Some("live")));
}
