//! The names an operator's `main.rs` and controller use most, in one import:
//!
//! ```
//! use kubegen::prelude::*;
//! ```
//!
//! - the derives [`Resource`] and [`DeepCopy`];
//! - the reconcile loop: [`Controller`], [`ControllerConfig`], [`Reconciler`],
//!   [`Action`], and the event handlers that fill its queue, [`EnqueueObject`],
//!   [`EnqueueOwner`], [`EnqueueByIndex`], [`EnqueueMapped`];
//! - [`ObjectKey`], what the queue holds, and [`SharedInformerFactory`], where informers
//!   come from;
//! - [`finalize`] and its [`FinalizerEvent`] (`finalizer::Event`, renamed beside the
//!   event recorder's events);
//! - [`ErrorChain`], to print an error with its causes;
//! - around the controller ([`operator`](crate::operator)): [`Cluster`],
//!   [`install_crds`], [`Manager`], [`RunningController`], [`shutdown_signal`],
//!   [`run_main`], the flags
//!   [`ClusterArgs`], [`RunArgs`], [`LeaderElectArgs`] (`clap::Args` with the `cli`
//!   feature), and with `cli` `init_logging`.
//!
//! Everything else is a path away: `kubegen::runtime::...` (clients, listers, events,
//! leader election, the work queue), `kubegen::operator::...`, and your generated
//! clientset, listers and informers.
//!
//! ```
//! use kubegen::prelude::*;
//!
//! struct Foos;
//!
//! impl Reconciler for Foos {
//!     type Error = std::convert::Infallible;
//!     async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
//!         let _ = key;
//!         Ok(Action::Done)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let controller = Controller::new(ControllerConfig::default().name("foos"));
//! controller.queue().add(ObjectKey::namespaced("default", "web"));
//! # let _ = (shutdown_signal, Foos);
//! # }
//! ```

pub use kubegen_derive::{DeepCopy, Resource};
pub use kubegen_runtime::controller::{
    Action, Controller, ControllerConfig, EnqueueByIndex, EnqueueMapped, EnqueueObject,
    EnqueueOwner, ErrorChain, Reconciler,
};
pub use kubegen_runtime::factory::SharedInformerFactory;
pub use kubegen_runtime::finalizer::{Event as FinalizerEvent, finalize};
pub use kubegen_runtime::key::ObjectKey;

#[cfg(feature = "cli")]
pub use crate::operator::init_logging;
pub use crate::operator::{
    Cluster, ClusterArgs, LeaderElectArgs, Manager, RunArgs, RunningController, install_crds,
    run_main, shutdown_signal,
};
