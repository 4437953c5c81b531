//! [`ResourceClient`]: the typed client generated clientsets hand out.

use std::fmt::Debug;
use std::marker::PhantomData;

use futures::Stream;
use k8s_openapi::api::autoscaling::v1::Scale;
use kube::api::{
    DeleteParams, ListParams, ObjectList, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::{Client, Resource};
use kubegen_runtime::client::{ApiScope, Deleted, Scope, TypedClient};
use kubegen_runtime::error::Result;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Marker types naming the subresources a kind serves; they decide which verbs a
/// [`ResourceClient`] has.
pub mod subresources {
    /// No subresources.
    #[derive(Clone, Copy, Debug)]
    pub struct None;
    /// `/status`.
    #[derive(Clone, Copy, Debug)]
    pub struct Status;
    /// `/scale`.
    #[derive(Clone, Copy, Debug)]
    pub struct Scale;
    /// `/status` and `/scale`.
    #[derive(Clone, Copy, Debug)]
    pub struct StatusAndScale;

    /// Subresource sets that include `/status`.
    pub trait HasStatus {}
    impl HasStatus for Status {}
    impl HasStatus for StatusAndScale {}

    /// Subresource sets that include `/scale`.
    pub trait HasScale {}
    impl HasScale for Scale {}
    impl HasScale for StatusAndScale {}
}

/// A typed client for one kind whose verbs follow what the kind serves: `S` (one of
/// [`subresources`]) adds `update_status`/`patch_status` and `get_scale`/`update_scale`
/// only for kinds that declare those subresources. Everything delegates to
/// [`TypedClient`] (pagination, typed errors...).
pub struct ResourceClient<K: Resource, S = subresources::None> {
    typed: TypedClient<K>,
    subresources: PhantomData<fn() -> S>,
}

impl<K: Resource + Clone, S> Clone for ResourceClient<K, S> {
    fn clone(&self) -> Self {
        Self {
            typed: self.typed.clone(),
            subresources: PhantomData,
        }
    }
}

impl<K: Resource, S> Debug for ResourceClient<K, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.typed.fmt(f)
    }
}

impl<K, S> ResourceClient<K, S>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
    K::Scope: ApiScope,
{
    /// A client for `namespace`; `""` means all namespaces (list and watch only), as
    /// client-go's `metav1.NamespaceAll`.
    pub fn namespaced(client: Client, namespace: &str) -> Self {
        let namespace = (!namespace.is_empty()).then_some(namespace);
        Self::from(TypedClient::new(
            client,
            namespace.map_or(Scope::All, Scope::Namespace),
            &(),
        ))
    }

    /// A client for a cluster-scoped kind.
    pub fn cluster(client: Client) -> Self {
        Self::from(TypedClient::new(client, Scope::All, &()))
    }
}

impl<K: Resource, S> From<TypedClient<K>> for ResourceClient<K, S> {
    fn from(typed: TypedClient<K>) -> Self {
        Self {
            typed,
            subresources: PhantomData,
        }
    }
}

impl<K, S> ResourceClient<K, S>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    /// The runtime client underneath (every verb, whatever the kind serves).
    pub fn typed(&self) -> &TypedClient<K> {
        &self.typed
    }

    /// Gets `name`.
    pub async fn get(&self, name: &str) -> Result<K> {
        self.typed.get(name).await
    }

    /// Lists every page.
    pub async fn list(&self, lp: &ListParams) -> Result<ObjectList<K>> {
        self.typed.list(lp).await
    }

    /// Watches from `resource_version`.
    pub async fn watch(
        &self,
        wp: &WatchParams,
        resource_version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<K>>> + use<K, S>> {
        self.typed.watch(wp, resource_version).await
    }

    /// Creates `object`.
    pub async fn create(&self, object: &K) -> Result<K> {
        self.typed.create(object).await
    }

    /// Creates `object` with post parameters (dry run, field manager).
    pub async fn create_with(&self, pp: &PostParams, object: &K) -> Result<K> {
        self.typed.create_with(pp, object).await
    }

    /// Replaces `object` (a stale `resourceVersion` is a conflict).
    pub async fn update(&self, object: &K) -> Result<K> {
        self.typed.update(object).await
    }

    /// Patches `name`.
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.typed.patch(name, pp, patch).await
    }

    /// Server-side applies `object` as `field_manager`.
    pub async fn apply(&self, object: &K, field_manager: &str, force: bool) -> Result<K> {
        self.typed.apply(object, field_manager, force).await
    }

    /// Deletes `name`.
    pub async fn delete(&self, name: &str, dp: &DeleteParams) -> Result<Deleted<K>> {
        self.typed.delete(name, dp).await
    }

    /// Deletes every object `lp` selects.
    pub async fn delete_collection(
        &self,
        dp: &DeleteParams,
        lp: &ListParams,
    ) -> Result<Deleted<ObjectList<K>>> {
        self.typed.delete_collection(dp, lp).await
    }
}

impl<K, S> ResourceClient<K, S>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasStatus,
{
    /// Replaces the status of `object`.
    pub async fn update_status(&self, object: &K) -> Result<K> {
        self.typed.update_status(object).await
    }

    /// Patches the status of `name`.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.typed.patch_status(name, pp, patch).await
    }
}

impl<K, S> ResourceClient<K, S>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasScale,
{
    /// Gets the scale of `name`.
    pub async fn get_scale(&self, name: &str) -> Result<Scale> {
        self.typed.get_scale(name).await
    }

    /// Replaces the scale of `name`.
    pub async fn update_scale(&self, name: &str, scale: &Scale) -> Result<Scale> {
        self.typed.update_scale(name, scale).await
    }
}
