//! The Prometheus work queue metrics, encoded after real queue operations.
#![cfg(feature = "prometheus")]
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod prometheus_support;

use std::time::Duration;

use kubegen_runtime::metrics::prometheus::PrometheusWorkqueueMetrics;
use kubegen_runtime::workqueue::{
    ItemExponentialFailureRateLimiter, Queue, QueueConfig, RateLimitingQueue,
};
use prometheus_client::registry::Registry;
use prometheus_support::scrape;

fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

#[tokio::test(start_paused = true)]
async fn metrics_follow_the_queue() {
    let mut registry = Registry::default();
    let metrics = PrometheusWorkqueueMetrics::register(&mut registry);
    let queue = RateLimitingQueue::with_config(
        ItemExponentialFailureRateLimiter::new(secs(1), secs(60)),
        QueueConfig::default().name("foos").metrics(metrics.clone()),
    );
    let other = Queue::with_config(QueueConfig::default().name("bars").metrics(metrics));

    queue.add("a");
    queue.add("b");
    queue.add("a"); // deduplicated
    other.add(1);
    tokio::time::advance(secs(2)).await;
    let a = queue.get().await.unwrap(); // waited 2 s
    tokio::time::advance(secs(3)).await;
    queue.add_rate_limited(a); // retry in 1 s
    queue.done(&a); // worked 3 s
    let b = queue.get().await.unwrap(); // waited 5 s
    let a = queue.get().await.unwrap(); // released by the timer after 1 s, waited 0 s
    assert_eq!((a, b), ("a", "b"));
    tokio::time::advance(secs(4)).await;

    let samples = scrape(&registry);
    let value = |series: &str| {
        *samples
            .get(series)
            .unwrap_or_else(|| panic!("no {series} in {samples:#?}"))
    };
    assert_eq!(value(r#"workqueue_adds_total{name="foos"}"#), 3.0);
    assert_eq!(value(r#"workqueue_adds_total{name="bars"}"#), 1.0);
    assert_eq!(value(r#"workqueue_depth{name="foos"}"#), 0.0);
    assert_eq!(value(r#"workqueue_depth{name="bars"}"#), 1.0);
    assert_eq!(value(r#"workqueue_retries_total{name="foos"}"#), 1.0);
    assert_eq!(
        value(r#"workqueue_queue_duration_seconds_count{name="foos"}"#),
        3.0
    );
    assert_eq!(
        value(r#"workqueue_queue_duration_seconds_sum{name="foos"}"#),
        2.0 + 5.0 + 0.0
    );
    assert_eq!(
        value(r#"workqueue_queue_duration_seconds_bucket{le="1.0",name="foos"}"#),
        1.0,
        "only the timer-released key waited under a second"
    );
    assert_eq!(
        value(r#"workqueue_work_duration_seconds_count{name="foos"}"#),
        1.0
    );
    assert_eq!(
        value(r#"workqueue_work_duration_seconds_sum{name="foos"}"#),
        3.0
    );
    // Computed at scrape time: "b" processed for 1 + 4 s, "a" for 4 s.
    assert_eq!(
        value(r#"workqueue_unfinished_work_seconds{name="foos"}"#),
        9.0
    );
    assert_eq!(
        value(r#"workqueue_longest_running_processor_seconds{name="foos"}"#),
        5.0
    );
    assert_eq!(
        value(r#"workqueue_unfinished_work_seconds{name="bars"}"#),
        0.0
    );

    queue.done(&a);
    queue.done(&b);
    tokio::time::advance(secs(10)).await;
    let samples = scrape(&registry);
    assert_eq!(
        samples[r#"workqueue_unfinished_work_seconds{name="foos"}"#],
        0.0
    );
    assert_eq!(
        samples[r#"workqueue_longest_running_processor_seconds{name="foos"}"#],
        0.0
    );
    assert_eq!(
        samples[r#"workqueue_work_duration_seconds_sum{name="foos"}"#],
        3.0 + 4.0 + 5.0
    );

    drop(other);
    let samples = scrape(&registry);
    assert!(
        !samples.contains_key(r#"workqueue_unfinished_work_seconds{name="bars"}"#),
        "a dropped queue leaves the scrape-time gauges"
    );
}

#[tokio::test(start_paused = true)]
async fn queues_sharing_a_name_share_their_series() {
    let mut registry = Registry::default();
    let metrics = PrometheusWorkqueueMetrics::register(&mut registry);
    let config = QueueConfig::default().name("foos").metrics(metrics);
    let first = Queue::with_config(config.clone());
    let second = Queue::with_config(config);
    first.add("a");
    second.add("a");
    let a1 = first.get().await.unwrap();
    tokio::time::advance(secs(2)).await;
    let a2 = second.get().await.unwrap();
    tokio::time::advance(secs(1)).await;
    let samples = scrape(&registry);
    assert_eq!(samples[r#"workqueue_adds_total{name="foos"}"#], 2.0);
    assert_eq!(
        samples[r#"workqueue_unfinished_work_seconds{name="foos"}"#],
        4.0
    );
    assert_eq!(
        samples[r#"workqueue_longest_running_processor_seconds{name="foos"}"#],
        3.0
    );
    first.done(&a1);
    second.done(&a2);
}
