//! kubegen: typed Kubernetes clients, listers and informers generated for your types, and
//! the client-go grade runtime they plug into.
//!
//! This facade re-exports the runtime crate ([`runtime`]) and the derives ([`derive`]).
//! Generated code and controllers depend on `kubegen` alone.

pub use kubegen_derive as derive;
pub use kubegen_runtime as runtime;
pub use kubegen_runtime::workqueue;
