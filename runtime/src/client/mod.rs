//! [`TypedClient`]: a typed client for one resource, over `kube::Api`, with client-go's
//! verbs, automatic pagination, optimistic concurrency and typed errors. Its successful
//! writes report the resource and resourceVersion they made to the task's observer, if
//! any ([`written`]): a controller's reconciles are observed so.

mod retry;
pub mod subresources;
pub mod verbs;
pub mod written;

use std::fmt::Debug;
use std::marker::PhantomData;

use futures::{Stream, StreamExt};
use k8s_openapi::api::autoscaling::v1::Scale;
use kube::api::{
    Api, DeleteParams, ListParams, ObjectList, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::core::Status;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::apply::ApplyConfiguration;

pub use retry::{DEFAULT_BACKOFF, DEFAULT_RETRY, retry_on_conflict, retry_on_error};

use crate::error::{Error, Operation, Result, Verb};
use written::{GroupResource, report_write};

/// The page size [`TypedClient::list`] uses when the caller sets no limit.
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// Builds a `kube::Api` for a resource scope, so code generic over resources of every
/// scope can ask for "this namespace or all": namespaced and dynamic scopes constrain to
/// the namespace, cluster scope ignores it.
pub trait ApiScope: kube::core::ResourceScope {
    /// An `Api` over `namespace` (or all namespaces / the cluster).
    fn api<K>(client: Client, namespace: Option<&str>, dyntype: &K::DynamicType) -> Api<K>
    where
        K: Resource<Scope = Self>;
}

/// An `Api` over `namespace`, or all namespaces: the namespaced and dynamic scopes'.
fn api_in<K>(client: Client, namespace: Option<&str>, dyntype: &K::DynamicType) -> Api<K>
where
    K: Resource,
    K::Scope: kube::core::NamespaceScope,
{
    let api = Api::all_with(client, dyntype);
    match namespace {
        Some(ns) => api.constrain(ns),
        None => api,
    }
}

impl ApiScope for kube::core::NamespaceResourceScope {
    fn api<K>(client: Client, namespace: Option<&str>, dyntype: &K::DynamicType) -> Api<K>
    where
        K: Resource<Scope = Self>,
    {
        api_in(client, namespace, dyntype)
    }
}

impl ApiScope for kube::core::DynamicResourceScope {
    fn api<K>(client: Client, namespace: Option<&str>, dyntype: &K::DynamicType) -> Api<K>
    where
        K: Resource<Scope = Self>,
    {
        api_in(client, namespace, dyntype)
    }
}

impl ApiScope for kube::core::ClusterResourceScope {
    fn api<K>(client: Client, _namespace: Option<&str>, dyntype: &K::DynamicType) -> Api<K>
    where
        K: Resource<Scope = Self>,
    {
        Api::all_with(client, dyntype)
    }
}

/// Parameters of a server-side apply as `field_manager`, forced or not.
fn apply_params(field_manager: &str, force: bool) -> PatchParams {
    let pp = PatchParams::apply(field_manager);
    if force { pp.force() } else { pp }
}

/// Which namespaces a [`TypedClient`] works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope<'a> {
    /// Every namespace (a namespaced kind can then only be listed and watched), or the
    /// cluster for a cluster-scoped kind.
    All,
    /// One namespace.
    Namespace(&'a str),
}

/// What a delete returned.
#[derive(Clone, Debug)]
pub enum Deleted<T> {
    /// The server returned the object: deletion is pending (finalizers, foreground
    /// propagation) or the resource answers deletes with the object.
    Object(T),
    /// The server returned a `Status`: the object is gone.
    Status(Box<Status>),
}

/// A typed client for one resource type, in one namespace or across all of them.
///
/// `S` (one of [`subresources`]) decides which subresource verbs exist and `V` (one of
/// [`verbs`]) which verbs exist at all: by default every one; generated clients name
/// what their kind serves (`TypedClient<Foo, Status, ReadOnly>` has `get`, `list` and
/// `watch` and nothing else; `TypedClient<Foo, Status>` has `update_status` and no
/// `get_scale`), through [`with_subresources`](Self::with_subresources) and
/// [`with_verbs`](Self::with_verbs).
///
/// ```no_run
/// # async fn demo(client: kube::Client) -> Result<(), kubegen_runtime::error::Error> {
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::client::{Scope, TypedClient};
///
/// let configmaps = TypedClient::<ConfigMap>::new(client, Scope::Namespace("default"), &());
/// match configmaps.get("settings").await {
///     Ok(cm) => println!("found {:?}", cm.metadata.name),
///     Err(e) if e.is_not_found() => println!("no settings yet"),
///     Err(e) => return Err(e),
/// }
/// # Ok(()) }
/// ```
pub struct TypedClient<K: Resource, S = subresources::StatusAndScale, V = verbs::AllVerbs> {
    api: Api<K>,
    plural: String,
    /// What its writes are reported as (see [`written`]).
    resource: GroupResource,
    namespace: Option<String>,
    subresources: PhantomData<fn() -> (S, V)>,
}

impl<K: Resource + Clone, S, V> Clone for TypedClient<K, S, V> {
    fn clone(&self) -> Self {
        Self {
            api: self.api.clone(),
            plural: self.plural.clone(),
            resource: self.resource.clone(),
            namespace: self.namespace.clone(),
            subresources: PhantomData,
        }
    }
}

impl<K: Resource, S, V> Debug for TypedClient<K, S, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedClient")
            .field("resource", &self.plural)
            .field("namespace", &self.namespace)
            .finish()
    }
}

impl<K> TypedClient<K>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    /// A client for `K` in `scope`. `dyntype` is `K`'s runtime type information: `&()`
    /// for generated and k8s-openapi types, an `ApiResource` for `DynamicObject`.
    ///
    /// An empty [`Scope::Namespace`] means all namespaces (`metav1.NamespaceAll`). For a
    /// kind known to be cluster-scoped at compile time the namespace is ignored, as
    /// client-go's generated informers do; a `DynamicObject` takes it as given.
    pub fn new(client: Client, scope: Scope<'_>, dyntype: &K::DynamicType) -> Self
    where
        K::Scope: ApiScope,
    {
        let namespace = match scope {
            Scope::All => None,
            Scope::Namespace(namespace) => Some(namespace),
        };
        let api = <K::Scope as ApiScope>::api::<K>(client, namespace, dyntype);
        let namespace = api.namespace().map(str::to_owned);
        Self {
            api,
            plural: K::plural(dyntype).into_owned(),
            resource: GroupResource::of::<K>(dyntype),
            namespace,
            subresources: PhantomData,
        }
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    /// The same client with the subresource verbs of `T` (one of [`subresources`]).
    pub fn with_subresources<T>(self) -> TypedClient<K, T, V> {
        TypedClient {
            api: self.api,
            plural: self.plural,
            resource: self.resource,
            namespace: self.namespace,
            subresources: PhantomData,
        }
    }

    /// The same client with the verbs of `T` (one of [`verbs`]).
    pub fn with_verbs<T>(self) -> TypedClient<K, S, T> {
        TypedClient {
            api: self.api,
            plural: self.plural,
            resource: self.resource,
            namespace: self.namespace,
            subresources: PhantomData,
        }
    }

    /// The `kube::Api` underneath, for calls this client does not wrap.
    pub fn api(&self) -> &Api<K> {
        &self.api
    }

    /// The namespace this client is scoped to.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    fn op(&self, verb: Verb, subresource: Option<&str>, name: Option<&str>) -> Box<Operation> {
        Box::new(Operation {
            verb,
            resource: self.plural.clone(),
            subresource: subresource.map(str::to_owned),
            namespace: self.namespace.clone(),
            name: name.map(str::to_owned),
        })
    }

    /// Reports a successful write's answer to the task's write observer ([`written`]).
    fn wrote<T: Resource>(&self, answer: T) -> T {
        let meta = answer.meta();
        report_write(
            &self.resource,
            meta.namespace.as_deref(),
            meta.resource_version.as_deref(),
        );
        answer
    }

    fn fail(&self, verb: Verb, name: Option<&str>) -> impl FnOnce(kube::Error) -> Error {
        self.fail_on(verb, None, name)
    }

    /// [`fail`](Self::fail) for a call on a subresource.
    fn fail_on(
        &self,
        verb: Verb,
        subresource: Option<&str>,
        name: Option<&str>,
    ) -> impl FnOnce(kube::Error) -> Error {
        let operation = self.op(verb, subresource, name);
        move |source| Error::Api { operation, source }
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanGet,
{
    /// Reads one object.
    pub async fn get(&self, name: &str) -> Result<K> {
        self.api
            .get(name)
            .await
            .map_err(self.fail(Verb::Get, Some(name)))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanList,
{
    /// Lists every matching object, following `continue` tokens page by page
    /// (`lp.limit`, default [`DEFAULT_PAGE_SIZE`]). The returned list carries the
    /// collection's resourceVersion, to start a watch from.
    pub async fn list(&self, lp: &ListParams) -> Result<ObjectList<K>> {
        let mut params = lp.clone();
        params.limit = Some(params.limit.unwrap_or(DEFAULT_PAGE_SIZE));
        let mut all = self.list_page(&params).await?;
        while let Some(token) = all.metadata.continue_.take().filter(|t| !t.is_empty()) {
            if params.continue_token.as_deref() == Some(token.as_str()) {
                return Err(Error::Pagination {
                    operation: self.op(Verb::List, None, None),
                });
            }
            params.continue_token = Some(token);
            let page = self.list_page(&params).await?;
            all.items.extend(page.items);
            all.metadata = page.metadata;
        }
        Ok(all)
    }

    /// Lists one page, as the server returns it (its `continue` token included).
    pub async fn list_page(&self, lp: &ListParams) -> Result<ObjectList<K>> {
        self.api.list(lp).await.map_err(self.fail(Verb::List, None))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanWatch,
{
    /// Watches from `resource_version` (`"0"`: any; `""`: most recent). Bookmarks are on
    /// unless `wp` disables them.
    pub async fn watch(
        &self,
        wp: &WatchParams,
        resource_version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<K>>> + use<K, S, V>> {
        let stream = self
            .api
            .watch(wp, resource_version)
            .await
            .map_err(self.fail(Verb::Watch, None))?;
        let operation = self.op(Verb::Watch, None, None);
        Ok(stream.map(move |event| {
            event.map_err(|source| Error::Api {
                operation: operation.clone(),
                source,
            })
        }))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanCreate,
{
    /// Creates an object.
    pub async fn create(&self, object: &K) -> Result<K> {
        self.create_with(&PostParams::default(), object).await
    }

    /// Creates an object with parameters (dry run, field manager).
    pub async fn create_with(&self, pp: &PostParams, object: &K) -> Result<K> {
        let name = object.meta().name.clone();
        self.api
            .create(pp, object)
            .await
            .map(|created| self.wrote(created))
            .map_err(self.fail(Verb::Create, name.as_deref()))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanUpdate,
{
    /// Replaces an object. Its `metadata.resourceVersion` is a precondition: a stale one
    /// fails with a conflict ([`Error::is_conflict`]).
    pub async fn update(&self, object: &K) -> Result<K> {
        let name = object.meta().name.clone().unwrap_or_default();
        self.api
            .replace(&name, &PostParams::default(), object)
            .await
            .map(|updated| self.wrote(updated))
            .map_err(self.fail(Verb::Update, Some(&name)))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanPatch,
{
    /// Patches an object: merge (`Patch::Merge`), strategic, JSON (`Patch::Json`) or
    /// server-side apply (`Patch::Apply` with [`PatchParams::apply`], `.force()`).
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.api
            .patch(name, pp, patch)
            .await
            .map(|patched| self.wrote(patched))
            .map_err(self.fail(Verb::Patch, Some(name)))
    }

    /// Server-side apply of `config` as `field_manager`; `force` takes ownership of
    /// conflicting fields. `config` is a generated apply configuration of `K` (`FooApply`:
    /// only the fields set are sent and owned) or a whole `K` (every field it serializes).
    pub async fn apply<A: ApplyConfiguration<K>>(
        &self,
        config: &A,
        field_manager: &str,
        force: bool,
    ) -> Result<K> {
        let name = config.object_name();
        self.patch(
            name,
            &apply_params(field_manager, force),
            &Patch::Apply(config),
        )
        .await
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanDelete,
{
    /// Deletes an object (preconditions and propagation policy in `dp`).
    pub async fn delete(&self, name: &str, dp: &DeleteParams) -> Result<Deleted<K>> {
        let response = self
            .api
            .delete(name, dp)
            .await
            .map_err(self.fail(Verb::Delete, Some(name)))?;
        // An object in the answer is still there (finalizers, foreground deletion) at
        // its new version; a Status means it is gone and carries no version to wait for.
        Ok(response.either(
            |object| Deleted::Object(self.wrote(object)),
            |status| Deleted::Status(Box::new(status)),
        ))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanDeleteCollection,
{
    /// Deletes every object matching `lp`.
    pub async fn delete_collection(
        &self,
        dp: &DeleteParams,
        lp: &ListParams,
    ) -> Result<Deleted<ObjectList<K>>> {
        let response = self
            .api
            .delete_collection(dp, lp)
            .await
            .map_err(self.fail(Verb::DeleteCollection, None))?;
        Ok(response.either(Deleted::Object, |status| Deleted::Status(Box::new(status))))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasStatus,
    V: verbs::CanUpdate,
{
    /// Replaces an object's status subresource, with the same optimistic concurrency.
    pub async fn update_status(&self, object: &K) -> Result<K> {
        let name = object.meta().name.clone().unwrap_or_default();
        self.api
            .replace_status(&name, &PostParams::default(), object)
            .await
            .map(|updated| self.wrote(updated))
            .map_err(self.fail_on(Verb::Update, Some("status"), Some(&name)))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasStatus,
    V: verbs::CanPatch,
{
    /// Server-side apply of `config` to the status subresource as `field_manager` (only
    /// `status` is written; see [`apply`](Self::apply)).
    pub async fn apply_status<A: ApplyConfiguration<K>>(
        &self,
        config: &A,
        field_manager: &str,
        force: bool,
    ) -> Result<K> {
        let name = config.object_name();
        let pp = apply_params(field_manager, force);
        self.patch_status(name, &pp, &Patch::Apply(config)).await
    }

    /// Patches an object's status subresource.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.api
            .patch_status(name, pp, patch)
            .await
            .map(|patched| self.wrote(patched))
            .map_err(self.fail_on(Verb::Patch, Some("status"), Some(name)))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasScale,
    V: verbs::CanGet,
{
    /// Reads the scale subresource.
    pub async fn get_scale(&self, name: &str) -> Result<Scale> {
        self.api
            .get_scale(name)
            .await
            .map_err(self.fail_on(Verb::Get, Some("scale"), Some(name)))
    }
}

impl<K, S, V> TypedClient<K, S, V>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    S: subresources::HasScale,
    V: verbs::CanUpdate,
{
    /// Replaces the scale subresource (optimistic concurrency on its resourceVersion).
    pub async fn update_scale(&self, name: &str, scale: &Scale) -> Result<Scale> {
        self.api
            .replace_scale(name, &PostParams::default(), scale)
            .await
            .inspect(|scale| {
                let meta = &scale.metadata;
                report_write(
                    &self.resource,
                    meta.namespace.as_deref(),
                    meta.resource_version.as_deref(),
                );
            })
            .map_err(self.fail_on(Verb::Update, Some("scale"), Some(name)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use k8s_openapi::api::core::v1::{ConfigMap, Node};
    use kube::core::{ApiResource, DynamicObject, GroupVersionKind};

    use super::*;

    /// A client that never connects: these tests only look at where requests would go.
    fn client() -> Client {
        Client::try_from(kube::Config::new("http://127.0.0.1:9".parse().unwrap())).unwrap()
    }

    fn target<K: Resource>(typed: &TypedClient<K>) -> (Option<&str>, &str) {
        (typed.namespace.as_deref(), typed.api.resource_url())
    }

    #[tokio::test]
    async fn one_constructor_places_every_kind_of_scope() {
        let cms = |scope| TypedClient::<ConfigMap>::new(client(), scope, &());
        assert_eq!(
            target(&cms(Scope::Namespace("web"))),
            (Some("web"), "/api/v1/namespaces/web/configmaps")
        );
        assert_eq!(target(&cms(Scope::All)), (None, "/api/v1/configmaps"));
        assert_eq!(
            target(&cms(Scope::Namespace(""))),
            (None, "/api/v1/configmaps"),
            "an empty namespace is metav1.NamespaceAll"
        );

        let nodes = TypedClient::<Node>::new(client(), Scope::Namespace("web"), &());
        assert_eq!(
            target(&nodes),
            (None, "/api/v1/nodes"),
            "cluster-scoped kinds ignore the namespace"
        );

        let widgets = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("example.com", "v1", "Widget"),
            "widgets",
        );
        let dynamic =
            TypedClient::<DynamicObject>::new(client(), Scope::Namespace("web"), &widgets);
        assert_eq!(
            target(&dynamic),
            (Some("web"), "/apis/example.com/v1/namespaces/web/widgets")
        );
        let failed = dynamic.op(Verb::Get, None, Some("w"));
        assert_eq!(failed.resource, "widgets");
    }
}
