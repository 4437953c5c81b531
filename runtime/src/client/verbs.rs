//! Marker types naming the verbs a kind serves: the `V` of
//! [`TypedClient<K, S, V>`](super::TypedClient), which offers each verb only to sets that
//! include it, so calling a verb the kind does not serve is a compile error rather than a
//! `405 Method Not Allowed` at run time (client-gen's `+genclient:readonly` and
//! `+genclient:onlyVerbs`).
//!
//! A set is a [`Verbs`] with one [`Yes`] or [`No`] per verb, in the order get, list,
//! watch, create, update, patch, delete, deletecollection. [`AllVerbs`] (the default) and
//! [`ReadOnly`] name the two common ones. Server-side apply (`apply`, `apply_status`) is a
//! patch; the status and scale verbs need both the subresource (see
//! [`subresources`](super::subresources)) and the verb (`update_status`: update,
//! `get_scale`: get, ...).
//!
//! ```compile_fail
//! # async fn demo(client: kubegen_runtime::client::TypedClient<
//! #     k8s_openapi::api::core::v1::ConfigMap,
//! #     kubegen_runtime::client::subresources::None,
//! #     kubegen_runtime::client::verbs::ReadOnly,
//! # >, cm: k8s_openapi::api::core::v1::ConfigMap) {
//! // A read-only client has no `create`.
//! let _ = client.create(&cm).await;
//! # }
//! ```
//!
//! ```compile_fail
//! # async fn demo(client: kubegen_runtime::client::TypedClient<
//! #     k8s_openapi::api::core::v1::ConfigMap,
//! #     kubegen_runtime::client::subresources::Status,
//! #     kubegen_runtime::client::verbs::ReadOnly,
//! # >) {
//! // Server-side apply is a patch: a read-only client cannot apply, not even to status.
//! let _ = client.apply_status(&k8s_openapi::api::core::v1::ConfigMap::default(), "me", false).await;
//! # }
//! ```
//!
//! ```compile_fail
//! # use kubegen_runtime::client::verbs::{No, Verbs, Yes};
//! # async fn demo(client: kubegen_runtime::client::TypedClient<
//! #     k8s_openapi::api::core::v1::ConfigMap,
//! #     kubegen_runtime::client::subresources::None,
//! #     Verbs<Yes, Yes, Yes, Yes, No, No, No, No>,
//! # >) {
//! // get, list, watch and create only: no delete.
//! let _ = client.delete("settings", &Default::default()).await;
//! # }
//! ```
//!
//! The same calls compile where the set has the verb:
//!
//! ```no_run
//! # use kubegen_runtime::client::verbs::{No, Verbs, Yes};
//! # async fn demo(client: kubegen_runtime::client::TypedClient<
//! #     k8s_openapi::api::core::v1::ConfigMap,
//! #     kubegen_runtime::client::subresources::None,
//! #     Verbs<Yes, Yes, Yes, Yes, No, No, Yes, No>,
//! # >, cm: k8s_openapi::api::core::v1::ConfigMap) {
//! let _ = client.get("settings").await;
//! let _ = client.create(&cm).await;
//! let _ = client.delete("settings", &Default::default()).await;
//! # }
//! ```

use std::marker::PhantomData;

/// The verb is in the set.
#[derive(Clone, Copy, Debug)]
pub struct Yes;
/// The verb is not in the set.
#[derive(Clone, Copy, Debug)]
pub struct No;

/// A verb set: one [`Yes`] or [`No`] per verb, in the order get, list, watch, create,
/// update, patch, delete, deletecollection. Only a type; never built.
#[derive(Clone, Copy, Debug)]
#[allow(clippy::type_complexity)]
pub struct Verbs<Get, List, Watch, Create, Update, Patch, Delete, DeleteCollection>(
    PhantomData<
        fn() -> (
            Get,
            List,
            Watch,
            Create,
            Update,
            Patch,
            Delete,
            DeleteCollection,
        ),
    >,
);

/// Every verb: the default of a [`TypedClient`](super::TypedClient).
pub type AllVerbs = Verbs<Yes, Yes, Yes, Yes, Yes, Yes, Yes, Yes>;
/// get, list and watch (client-gen's `+genclient:readonly`).
pub type ReadOnly = Verbs<Yes, Yes, Yes, No, No, No, No, No>;

/// Defines the marker trait of one verb, implemented by the sets with [`Yes`] in its slot.
macro_rules! verb {
    ($(#[$doc:meta])* $trait:ident: $($before:ident)*; $($after:ident)*) => {
        $(#[$doc])*
        pub trait $trait {}
        impl<$($before,)* $($after,)*> $trait for Verbs<$($before,)* Yes, $($after,)*> {}
    };
}

verb!(/// Verb sets with get.
    CanGet: ; L W C U P D X);
verb!(/// Verb sets with list.
    CanList: G; W C U P D X);
verb!(/// Verb sets with watch.
    CanWatch: G L; C U P D X);
verb!(/// Verb sets with create.
    CanCreate: G L W; U P D X);
verb!(/// Verb sets with update (and so `update_status`, `update_scale`).
    CanUpdate: G L W C; P D X);
verb!(/// Verb sets with patch (and so apply, `patch_status`, `apply_status`).
    CanPatch: G L W C U; D X);
verb!(/// Verb sets with delete.
    CanDelete: G L W C U P; X);
verb!(/// Verb sets with deletecollection.
    CanDeleteCollection: G L W C U P D;);
