//! kubegen-runtime: the parts of client-go that controllers are built from, with Rust types.
//!
//! - [`client`]: [`TypedClient`](client::TypedClient), a typed client over `kube::Api`
//!   with auto-pagination, optimistic concurrency and `retry_on_conflict`.
//! - [`store`], [`lister`], [`key`]: the cache, its read-only views and object keys;
//!   [`labels`]: the label selectors listers (and the testkit) filter with.
//! - [`reflector`], [`informer`], [`factory`]: list+watch into a cache, shared informers
//!   with event handlers, and a factory that shares them between controllers.
//! - [`workqueue`]: a deduplicating work queue with client-go's dirty/processing rules,
//!   a delaying queue and a rate-limiting queue with composable limiters.
//! - [`events`]: an [`EventRecorder`](events::EventRecorder) for events.k8s.io/v1 Events,
//!   with series and de-duplication of repeats.
//! - [`backoff`]: client-go's `wait.Backoff`, the one exponential backoff with jitter
//!   behind the reflector, `retry_on_conflict` and the event recorder.
//! - [`metrics`]: small metrics traits shared by every runtime component, with a
//!   Prometheus implementation behind the `prometheus` feature.

pub mod backoff;
pub mod client;
pub mod error;
pub mod events;
pub mod factory;
pub mod informer;
pub mod key;
pub mod labels;
pub mod lister;
pub mod metrics;
pub mod reflector;
pub mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod workqueue;
