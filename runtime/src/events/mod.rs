//! Kubernetes Events (events.k8s.io/v1) from controllers: client-go's `tools/events`.
//!
//! An [`EventRecorder`] tells users what a controller did to their objects
//! (`kubectl events --for foo/web`). Publishing is fire-and-forget: a bounded queue and a
//! background writer keep the controller from ever waiting on the API server, and repeats
//! of the same event are folded into one Event whose `series` counts them.
//!
//! ```no_run
//! # async fn demo(client: kube::Client, deployment: k8s_openapi::api::apps::v1::Deployment) {
//! use kubegen_runtime::events::{Event, EventRecorder, EventRecorderConfig};
//!
//! let recorder = EventRecorder::new(
//!     client,
//!     EventRecorderConfig::new("samplecontroller.k8s.io/foo-controller").reporting_instance("foo-controller-0"),
//! );
//! for _ in 0..3 {
//!     // One Event with series.count = 3, not three Events.
//!     recorder.publish(&deployment, Event::warning("ErrResourceExists", "Adopt", "not owned by any Foo"));
//! }
//! recorder.flush().await;
//! # }
//! ```

mod event;
mod recorder;
mod series;
mod writer;

pub use event::{Event, EventType, MAX_NOTE_BYTES};
pub use recorder::{DEFAULT_WRITE_RETRY, EventRecorder, EventRecorderConfig};
