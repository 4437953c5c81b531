//! kubegen: typed Kubernetes clients, listers and informers generated for your types, and
//! the client-go grade runtime they plug into.
//!
//! - [`prelude`]: the names an operator's `main.rs` and controller use most
//!   (`use kubegen::prelude::*;`).
//! - [`runtime`]: the runtime crate (typed client, store, listers, informers, workqueue,
//!   controller, finalizers, events, leader election, KEP-5866 shards).
//! - [`operator`]: what an operator binary needs around its controller: connect to a
//!   cluster, install CRDs, run the controller on a task, stop on SIGTERM or Ctrl-C
//!   ([`operator::shutdown_signal`]), the common flags, and a manager that runs
//!   controllers under one Lease or split across replicas by shard
//!   ([`operator::ShardConfig`]).
//! - [`Resource`] and [`DeepCopy`]: the derives (see [`derive`]).
//! - [`crd`]: the CustomResourceDefinition helpers behind `Foo::crd()`.
//! - [`gentype`]: the generics generated clientsets, listers and informers delegate to.
//! - [`kubernetes`]: the generated clientset, listers and informers of the built-in API
//!   groups over k8s-openapi's types (`kubernetes::clientset::Clientset`,
//!   `kubernetes::informers::InformerFactory`), as client-go's `kubernetes` package: every
//!   GA kind it lists and watches, and CustomResourceDefinition (57 kinds in 18 groups),
//!   and its create-only reviews (`authentication_v1()`: TokenReview, SelfSubjectReview;
//!   `authorization_v1()`: the access and rules reviews), clients without a lister or
//!   informer.
//!   A kind in two groups or versions has one module each (`core::v1::EventClient`,
//!   `events_k8s_io::v1::EventClient`; `autoscaling::v1` and `autoscaling::v2`).
//! - `applyconfigurations` (feature `apply`, off by default): the built-in kinds' apply
//!   configurations for server-side apply (`applyconfigurations::apps::v1::DeploymentApply`),
//!   generated from Kubernetes' OpenAPI documents, as client-go's `applyconfigurations`
//!   package.
//!
//! Both generated trees live under `src/generated/` (`kubernetes/`, `applyconfigurations/`),
//! beside the hand-written modules, and are mounted here at the paths above.
//!
//! Features:
//!
//! | feature | what it adds |
//! |---|---|
//! | `apply` | `applyconfigurations` (about 23,000 generated lines: off unless a crate applies built-in kinds through them) |
//! | `cli` | `clap::Args` on [`operator::ClusterArgs`], [`operator::RunArgs`] and [`operator::LeaderElectArgs`]; `operator::init_logging` (tracing-subscriber) |
//! | `metrics` | `operator::Metrics`: the runtime's Prometheus metrics in one registry, served at `/metrics` (with `/healthz`) |
//! | `webhook` | `webhook`: the runtime's HTTPS server for admission and conversion webhooks, with typed handlers and certificates reloaded from disk (`kubegen_runtime::webhook`) |
//! | `embedded` | [`operator::Cluster::connect`] falls back to an API server in the process when no cluster is configured (and `--embedded`); that server, the testkit's, as `kubegen::testkit` |
//!
//! Generated code and controllers depend on `kubegen` alone: the crates generated code
//! names are re-exported under `kubegen::__private`, so neither the derives' output nor
//! generated clients need their users to list `serde` or `k8s-openapi` with matching
//! versions (the final crate still picks k8s-openapi's Kubernetes version feature).
//!
//! ```
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use kubegen::{DeepCopy, Resource};
//!
//! #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! pub struct FooSpec {
//!     pub deployment_name: String,
//!     pub replicas: Option<i32>,
//! }
//!
//! /// A Foo runs a deployment.
//! #[derive(Debug, DeepCopy, Resource)]
//! #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", shortname = "fo")]
//! pub struct Foo {
//!     pub metadata: ObjectMeta,
//!     pub spec: FooSpec,
//! }
//!
//! let foo = Foo { metadata: ObjectMeta::default(), spec: FooSpec::default() };
//! let json = serde_json::to_value(&foo).unwrap();
//! assert_eq!(json["apiVersion"], "samplecontroller.k8s.io/v1alpha1");
//! assert_eq!(json["kind"], "Foo");
//! // `cargo run` can print the manifest with serde-saphyr:
//! // println!("{}", serde_saphyr::to_string(&Foo::crd())?);
//! assert_eq!(Foo::crd().metadata.name.as_deref(), Some("foos.samplecontroller.k8s.io"));
//! ```

// The generated trees live under `src/generated/` (hack/update-codegen.sh), mounted at
// their public paths.
#[cfg(feature = "apply")]
#[rustfmt::skip]
#[path = "generated/applyconfigurations/mod.rs"]
pub mod applyconfigurations;
pub mod crd;
pub mod gentype;
#[rustfmt::skip]
#[path = "generated/kubernetes/mod.rs"]
pub mod kubernetes;
pub mod operator;
pub mod prelude;

pub use kubegen_derive as derive;
pub use kubegen_derive::{DeepCopy, Resource};
pub use kubegen_runtime as runtime;
/// The HTTPS server for admission and conversion webhooks, with typed handlers (feature
/// `webhook`): the runtime's [`webhook`](kubegen_runtime::webhook) module.
#[cfg(feature = "webhook")]
pub use kubegen_runtime::webhook;
/// The in-process API server [`operator::Cluster`] falls back to (feature `embedded`):
/// the `kubegen-testkit` crate, with its fault injection for tests.
#[cfg(feature = "embedded")]
pub use kubegen_testkit as testkit;

/// Crates that generated code and the derives' output name through `::kubegen`.
/// Not a public API: paths here change without notice.
#[doc(hidden)]
pub mod __private {
    pub use k8s_openapi;
    pub use kube;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    /// The generator version whose code this library compiles (kubegen 0.1): the root
    /// module of every generated client and apply configuration tree names it
    /// (`const _KUBEGEN_VERSION_CHECK: () = ::kubegen::__private::VERSION_0_1;`), so code
    /// generated by a kubegen this library cannot compile fails with an error naming that
    /// version. A release that still compiles an older generator's code keeps its constant
    /// beside its own. (The facade's own generated trees name this version too, so a
    /// version bump without its constant does not compile.)
    pub const VERSION_0_1: () = ();

    /// Implemented by every `Clone` type. `#[derive(Resource)]` asserts it of its struct
    /// ([`assert_clone`]): generated clients, listers and informers clone objects out of
    /// their caches, and without this a kind lacking `Clone` fails deep in generated code.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` derives `Resource` but does not implement `Clone`",
        label = "add `#[derive(DeepCopy)]` (or `#[derive(Clone)]`) to `{Self}`",
        note = "generated clients, listers and informers clone objects of a kind out of their caches"
    )]
    pub trait ResourceClone {}

    impl<T: Clone> ResourceClone for T {}

    /// Compiles only when `T` implements `Clone`, with [`ResourceClone`]'s message
    /// otherwise; the derive calls it in a `const _`, spanned on the struct's name.
    pub const fn assert_clone<T: ResourceClone>() {}
}
