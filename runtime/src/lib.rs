//! kubegen-runtime: the parts of client-go that controllers are built from, with Rust types.
//!
//! - [`workqueue`]: a deduplicating work queue with client-go's dirty/processing rules,
//!   a delaying queue and a rate-limiting queue with composable limiters.
//! - [`metrics`]: small metrics traits shared by every runtime component, with a
//!   Prometheus implementation behind the `prometheus` feature.

pub mod metrics;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod workqueue;
