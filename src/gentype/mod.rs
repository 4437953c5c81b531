//! The generics generated clientsets, listers and informers delegate to, as client-go's
//! generated code delegates to its `gentype` package since v1.31: generated code only
//! names things (`cs.samplecontroller_v1alpha1().foos(ns)`, `FooLister`,
//! `factory.samplecontroller().v1alpha1().foos()`).
//!
//! - [`ResourceClient`]: a [`TypedClient`](kubegen_runtime::client::TypedClient) whose
//!   status and scale verbs exist only for kinds that serve those subresources, and whose
//!   verbs are only those the kind offers ([`verbs`]), made by [`namespaced`] or
//!   [`cluster`].
//! - [`InformerFactory`]: a shared informer factory with namespace, selectors and a
//!   tweak hook applied to every informer it hands out; [`Informer`] is one kind's.
//! - Listers are the runtime's [`Lister`](kubegen_runtime::lister::Lister) itself.
//!
//! So a kind's generated surface is names (`pub type FooClient = ResourceClient<Foo,
//! Status>;`, `FooLister`, `FooInformer`) and one-line accessors.

mod client;
mod informers;

pub use client::{ResourceClient, cluster, namespaced, subresources, verbs};
pub use informers::{Informer, InformerFactory};
