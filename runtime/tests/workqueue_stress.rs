//! Many producers and workers on a multi-threaded runtime: no key is ever held by two
//! workers at once, and the last processing of every key saw its last add.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use kubegen_runtime::workqueue::{DelayingQueue, Queue};

const KEYS: usize = 300;
const PRODUCERS: usize = 4;
const ADDS_PER_PRODUCER: usize = 2_500;
const WORKERS: usize = 8;

/// What the test knows about one key.
#[derive(Default)]
struct KeyRecord {
    /// A worker holds the key (between `get` and `done`).
    held: AtomicBool,
    /// Bumped by a producer before every add: the "object version" the add announces.
    version: AtomicU64,
    /// The highest version a worker observed when it started processing the key.
    processed: AtomicU64,
    processings: AtomicU64,
}

struct Record {
    keys: Vec<KeyRecord>,
    /// Times a worker got a key another worker was holding.
    overlaps: AtomicUsize,
}

impl Record {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            keys: (0..KEYS).map(|_| KeyRecord::default()).collect(),
            overlaps: AtomicUsize::new(0),
        })
    }

    /// A worker took `key`: marks it held, notes the version it sees, "works", releases it.
    async fn process(&self, key: usize) {
        let record = &self.keys[key];
        if record.held.swap(true, SeqCst) {
            self.overlaps.fetch_add(1, SeqCst);
        }
        let seen = record.version.load(SeqCst);
        record.processings.fetch_add(1, SeqCst);
        // "Work": give other workers and producers a chance to race with us.
        for _ in 0..(key % 3) {
            tokio::task::yield_now().await;
        }
        record.processed.fetch_max(seen, SeqCst);
        record.held.store(false, SeqCst);
    }

    fn check(&self, adds: usize) {
        assert_eq!(
            self.overlaps.load(SeqCst),
            0,
            "a key was held by two workers"
        );
        let mut processings = 0;
        for (key, record) in self.keys.iter().enumerate() {
            let version = record.version.load(SeqCst);
            assert_eq!(
                record.processed.load(SeqCst),
                version,
                "key {key}: its last add was never processed"
            );
            processings += record.processings.load(SeqCst);
        }
        let processings = usize::try_from(processings).unwrap();
        assert!(
            processings <= adds,
            "more processings ({processings}) than adds"
        );
        assert!(processings >= KEYS.min(adds));
        println!("{adds} adds over {KEYS} keys -> {processings} processings");
    }
}

/// A deterministic pseudo-random sequence of keys (xorshift), one per producer.
fn keys(seed: u64) -> impl Iterator<Item = usize> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    std::iter::repeat_with(move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % KEYS as u64) as usize
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn queue_under_concurrent_producers_and_workers() {
    let queue: Queue<usize> = Queue::new();
    let record = Record::new();

    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (queue, record) = (queue.clone(), Arc::clone(&record));
            tokio::spawn(async move {
                while let Some(key) = queue.get().await {
                    record.process(key).await;
                    queue.done(&key);
                }
            })
        })
        .collect();
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|producer| {
            let (queue, record) = (queue.clone(), Arc::clone(&record));
            tokio::spawn(async move {
                for (i, key) in keys(producer as u64 + 1)
                    .take(ADDS_PER_PRODUCER)
                    .enumerate()
                {
                    record.keys[key].version.fetch_add(1, SeqCst);
                    queue.add(key);
                    if i % 16 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();

    for producer in producers {
        producer.await.unwrap();
    }
    queue.shut_down_with_drain().await;
    for worker in workers {
        worker.await.unwrap();
    }
    assert!(queue.is_empty());
    record.check(PRODUCERS * ADDS_PER_PRODUCER);
}

/// The timer task racing with adds and workers, on paused time: delays are virtual, and
/// interleavings come from the workers' and producers' yields.
#[tokio::test(start_paused = true)]
async fn delaying_queue_under_concurrent_producers_and_workers() {
    let queue: DelayingQueue<usize> = DelayingQueue::new();
    let record = Record::new();

    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (queue, record) = (queue.clone(), Arc::clone(&record));
            tokio::spawn(async move {
                while let Some(key) = queue.get().await {
                    record.process(key).await;
                    queue.done(&key);
                }
            })
        })
        .collect();
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|producer| {
            let (queue, record) = (queue.clone(), Arc::clone(&record));
            tokio::spawn(async move {
                for (i, key) in keys(producer as u64 + 100)
                    .take(ADDS_PER_PRODUCER)
                    .enumerate()
                {
                    record.keys[key].version.fetch_add(1, SeqCst);
                    // Mix immediate adds with delays of up to 6 ms.
                    match i % 3 {
                        0 => queue.add(key),
                        _ => queue.add_after(key, Duration::from_millis((i % 7) as u64)),
                    }
                    if i % 16 == 0 {
                        tokio::task::yield_now().await;
                    }
                    if i % 128 == 0 {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }
            })
        })
        .collect();

    for producer in producers {
        producer.await.unwrap();
    }
    // Every delay is under 7 ms: after that the timer heap is empty.
    tokio::time::sleep(Duration::from_millis(7)).await;
    assert_eq!(queue.waiting_len(), 0);
    queue.shut_down_with_drain().await;
    for worker in workers {
        worker.await.unwrap();
    }
    record.check(PRODUCERS * ADDS_PER_PRODUCER);
}
