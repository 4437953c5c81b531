//! Work queue throughput: 10 000 adds over 1 000 keys, processed by 1, 2 and 8 workers,
//! next to the same work through kube-runtime's `scheduler` where it maps.
//!
//! - `queue_burst/N`: all adds first (deduplicated to 1 000 queued keys), then N worker
//!   tasks `get` + `done` until drained.
//! - `kube_scheduler_burst/N`: the same 10 000 requests (all due now) into
//!   `kube::runtime::scheduler`, which deduplicates them too; its 1 000 messages are
//!   consumed with `for_each_concurrent(N)`. The scheduler is one stream polled by one
//!   task, and it does not by itself stop two equal messages from running at once
//!   (kube's controller adds that with its private `Runner`), so N is concurrency within
//!   a task, not N worker tasks.
//! - `queue_concurrent/N`: the producer adds while N workers process, so keys are re-added
//!   while queued or being processed (client-go's dirty/processing path). The scheduler
//!   has no equivalent here: its stream ends when its input ends, and with input still
//!   open there is no way to know when the last message has been emitted.
//!
//! Work per key is nothing (`black_box`): the figures are the queue's own overhead.
//! Runtime: Tokio multi-thread, 2 worker threads.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::{StreamExt, stream};
use kube::runtime::scheduler::{ScheduleRequest, scheduler};
use kubegen_runtime::workqueue::Queue;
use tokio::runtime::Runtime;
use tokio::time::Instant;

const ADDS: usize = 10_000;
const KEYS: usize = 1_000;
const WORKERS: [usize; 3] = [1, 2, 8];

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}

/// Spawns `workers` tasks that process until the queue shuts down; returns how many keys
/// they processed in total.
fn spawn_workers(queue: &Queue<usize>, workers: usize) -> Vec<tokio::task::JoinHandle<usize>> {
    (0..workers)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move {
                let mut processed = 0;
                while let Some(key) = queue.get().await {
                    black_box(key);
                    processed += 1;
                    queue.done(&key);
                }
                processed
            })
        })
        .collect()
}

async fn join(handles: Vec<tokio::task::JoinHandle<usize>>) -> usize {
    let mut total = 0;
    for handle in handles {
        total += handle.await.expect("worker panicked");
    }
    total
}

async fn queue_burst(workers: usize) -> usize {
    let queue = Queue::new();
    for i in 0..ADDS {
        queue.add(i % KEYS);
    }
    let handles = spawn_workers(&queue, workers);
    queue.shut_down_with_drain().await;
    join(handles).await
}

async fn queue_concurrent(workers: usize) -> usize {
    let queue = Queue::new();
    let handles = spawn_workers(&queue, workers);
    for i in 0..ADDS {
        queue.add(i % KEYS);
        if i % 64 == 63 {
            tokio::task::yield_now().await;
        }
    }
    queue.shut_down_with_drain().await;
    join(handles).await
}

async fn kube_scheduler_burst(workers: usize) -> usize {
    let now = Instant::now();
    let requests = stream::iter((0..ADDS).map(move |i| ScheduleRequest {
        message: i % KEYS,
        run_at: now,
    }))
    // The scheduler ends when its input ends: keep it open, stop after every key.
    .chain(stream::pending());
    let processed = std::sync::atomic::AtomicUsize::new(0);
    scheduler(requests)
        .take(KEYS)
        .for_each_concurrent(workers, |key| {
            black_box(key);
            processed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async {}
        })
        .await;
    processed.into_inner()
}

fn bench(c: &mut Criterion) {
    let rt = runtime();
    // Sanity: the burst variants process each key exactly once.
    assert_eq!(rt.block_on(queue_burst(2)), KEYS);
    assert_eq!(rt.block_on(kube_scheduler_burst(2)), KEYS);
    for workers in WORKERS {
        let processed = rt.block_on(queue_concurrent(workers));
        println!("queue_concurrent/{workers}: {ADDS} adds -> {processed} processings (one run)");
    }

    let mut group = c.benchmark_group("workqueue");
    group.throughput(Throughput::Elements(ADDS as u64));
    for workers in WORKERS {
        group.bench_with_input(
            BenchmarkId::new("queue_burst", workers),
            &workers,
            |b, &w| b.iter(|| rt.block_on(queue_burst(w))),
        );
        group.bench_with_input(
            BenchmarkId::new("kube_scheduler_burst", workers),
            &workers,
            |b, &w| b.iter(|| rt.block_on(kube_scheduler_burst(w))),
        );
        group.bench_with_input(
            BenchmarkId::new("queue_concurrent", workers),
            &workers,
            |b, &w| b.iter(|| rt.block_on(queue_concurrent(w))),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
