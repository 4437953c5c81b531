//! Event handlers that turn informer notifications into keys of a controller's queue:
//! the object itself, its controller owner, objects found through an index, or any
//! mapping (controller-runtime's `handler` package).
//!
//! Every helper:
//! - enqueues on add, update and delete; an update maps the old *and* the new object
//!   (an object that stopped matching must still be looked at), and the queue
//!   deduplicates;
//! - handles deletions whose final state is unknown (client-go's
//!   `DeletedFinalStateUnknown` tombstones, found on relist) like any other deletion,
//!   from the last state the cache knew;
//! - can [skip resyncs](EnqueueObject::skip_resyncs): periodic re-deliveries of an
//!   unchanged object (same `resourceVersion`).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::Resource;
use kube::api::ObjectMeta;

use crate::informer::{DeletedObject, EventHandler};
use crate::key::ObjectKey;
use crate::store::{IndexHandle, Store};
use crate::workqueue::{PRIORITY_LOW, PRIORITY_NORMAL, Priority, RateLimitingQueue};

/// Whether an update is a resync: the same object delivered again.
fn is_resync(old: &ObjectMeta, new: &ObjectMeta) -> bool {
    old.resource_version.is_some() && old.resource_version == new.resource_version
}

/// The priority of an add: low for the informer's initial list, so that after a restart
/// live changes are handed out before the cluster's every object (controller-runtime's
/// priority queue).
fn add_priority(in_initial_list: bool) -> Priority {
    if in_initial_list {
        PRIORITY_LOW
    } else {
        PRIORITY_NORMAL
    }
}

/// The priority of an update: low for a resync (nothing changed).
fn update_priority(old: &ObjectMeta, new: &ObjectMeta) -> Priority {
    if is_resync(old, new) {
        PRIORITY_LOW
    } else {
        PRIORITY_NORMAL
    }
}

/// What every helper shares: the queue, and whether resyncs are skipped.
#[derive(Clone)]
struct Target {
    queue: RateLimitingQueue<ObjectKey>,
    skip_resyncs: bool,
}

impl Target {
    fn new(queue: &RateLimitingQueue<ObjectKey>) -> Self {
        Self {
            queue: queue.clone(),
            skip_resyncs: false,
        }
    }

    fn skips(&self, old: &ObjectMeta, new: &ObjectMeta) -> bool {
        self.skip_resyncs && is_resync(old, new)
    }

    fn add_all(&self, keys: impl IntoIterator<Item = ObjectKey>, priority: Priority) {
        for key in keys {
            self.queue.add_with_priority(key, priority);
        }
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Target")
            .field("queue", &self.queue)
            .field("skip_resyncs", &self.skip_resyncs)
            .finish()
    }
}

/// Enqueues the key of the object itself (controller-runtime's
/// `EnqueueRequestForObject`): the handler of the kind a controller reconciles.
///
/// ```no_run
/// # fn demo(controller: &kubegen_runtime::controller::Controller,
/// #         foos: &kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::ConfigMap>) {
/// use kubegen_runtime::controller::EnqueueObject;
///
/// controller.watches(foos, EnqueueObject::new(controller.queue()));
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct EnqueueObject {
    target: Target,
}

impl EnqueueObject {
    /// Enqueues into `queue`.
    pub fn new(queue: &RateLimitingQueue<ObjectKey>) -> Self {
        Self {
            target: Target::new(queue),
        }
    }

    /// Ignores resyncs (updates where the object did not change).
    #[must_use]
    pub fn skip_resyncs(mut self) -> Self {
        self.target.skip_resyncs = true;
        self
    }
}

impl<K: Resource + Send + Sync + 'static> EventHandler<K> for EnqueueObject {
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        let key = ObjectKey::of(object.as_ref());
        self.target
            .queue
            .add_with_priority(key, add_priority(in_initial_list));
    }

    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if !self.target.skips(old.meta(), new.meta()) {
            let priority = update_priority(old.meta(), new.meta());
            let key = ObjectKey::of(new.as_ref());
            self.target.queue.add_with_priority(key, priority);
        }
    }

    fn on_delete(&mut self, object: DeletedObject<K>) {
        self.target
            .queue
            .add(ObjectKey::of(object.object().as_ref()));
    }
}

/// How the key of a resource scope is formed: with the namespace of the dependent
/// (namespaced owners live in their dependents' namespace) or without one.
///
/// Implemented for k8s-openapi's [`NamespaceResourceScope`] and
/// [`ClusterResourceScope`], the scopes of built-in, derived and generated kinds.
pub trait KeyScope {
    /// Whether objects of this scope live in a namespace.
    const NAMESPACED: bool;
}

impl KeyScope for NamespaceResourceScope {
    const NAMESPACED: bool = true;
}

impl KeyScope for ClusterResourceScope {
    const NAMESPACED: bool = false;
}

/// Enqueues the key of the object's controller owner of kind `O` (client-go
/// sample-controller's `handleObject`, controller-runtime's `EnqueueRequestForOwner` with
/// `OnlyControllerOwner`): the handler of the kinds a controller creates.
///
/// The owner is the owner reference with `controller: true`; it counts when its kind
/// and its API group (any version) are `O`'s. Objects without such an owner are
/// ignored. The owner's existence is not checked: the reconciler finds out.
///
/// ```no_run
/// # fn demo(controller: &kubegen_runtime::controller::Controller,
/// #         deployments: &kubegen_runtime::informer::SharedInformer<k8s_openapi::api::apps::v1::Deployment>) {
/// use k8s_openapi::api::apps::v1::ReplicaSet;
/// use kubegen_runtime::controller::EnqueueOwner;
///
/// // Deployments controlled by a ReplicaSet (for the sake of the example) enqueue it.
/// controller.watches(deployments, EnqueueOwner::<ReplicaSet>::new(controller.queue()));
/// # }
/// ```
pub struct EnqueueOwner<O> {
    target: Target,
    group: String,
    kind: String,
    owner: PhantomData<fn() -> O>,
}

impl<O> Clone for EnqueueOwner<O> {
    fn clone(&self) -> Self {
        Self {
            target: self.target.clone(),
            group: self.group.clone(),
            kind: self.kind.clone(),
            owner: PhantomData,
        }
    }
}

impl<O> fmt::Debug for EnqueueOwner<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnqueueOwner")
            .field("group", &self.group)
            .field("kind", &self.kind)
            .field("target", &self.target)
            .finish()
    }
}

impl<O> EnqueueOwner<O>
where
    O: Resource<DynamicType = ()>,
    O::Scope: KeyScope,
{
    /// Enqueues owners of kind `O` into `queue`.
    pub fn new(queue: &RateLimitingQueue<ObjectKey>) -> Self {
        Self {
            target: Target::new(queue),
            group: O::group(&()).into_owned(),
            kind: O::kind(&()).into_owned(),
            owner: PhantomData,
        }
    }

    /// Ignores resyncs (updates where the object did not change).
    #[must_use]
    pub fn skip_resyncs(mut self) -> Self {
        self.target.skip_resyncs = true;
        self
    }

    /// The key of the controller owner of an object with metadata `meta`, if it is an `O`.
    pub fn owner_key(&self, meta: &ObjectMeta) -> Option<ObjectKey> {
        let owner = meta
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))?;
        if owner.kind != self.kind || group_of(&owner.api_version) != self.group {
            return None;
        }
        if O::Scope::NAMESPACED {
            // A namespaced owner lives in its dependent's namespace; a cluster-scoped
            // dependent cannot have one.
            let namespace = meta.namespace.as_deref().filter(|ns| !ns.is_empty())?;
            Some(ObjectKey::namespaced(namespace, owner.name.clone()))
        } else {
            Some(ObjectKey::cluster(owner.name.clone()))
        }
    }
}

/// The group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> the core group `""`).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

impl<O, K> EventHandler<K> for EnqueueOwner<O>
where
    O: Resource<DynamicType = ()> + 'static,
    O::Scope: KeyScope,
    K: Resource + Send + Sync + 'static,
{
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        let priority = add_priority(in_initial_list);
        self.target.add_all(self.owner_key(object.meta()), priority);
    }

    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if self.target.skips(old.meta(), new.meta()) {
            return;
        }
        let priority = update_priority(old.meta(), new.meta());
        // The owner may have changed: both hear about it.
        self.target.add_all(self.owner_key(old.meta()), priority);
        self.target.add_all(self.owner_key(new.meta()), priority);
    }

    fn on_delete(&mut self, object: DeletedObject<K>) {
        let key = self.owner_key(object.object().meta());
        self.target.add_all(key, PRIORITY_NORMAL);
    }
}

/// The index values an object of kind `K` is looked up under.
type ValuesFn<K> = Box<dyn FnMut(&K) -> Vec<String> + Send>;

/// Enqueues the objects of another cache that an index relates to the object (the
/// fan-out of secret-sync: a Secret enqueues every namespace that copies it).
///
/// `values` says under which index values to look, `index` (registered on `store`'s
/// informer with [`add_index`](crate::informer::SharedInformer::add_index)) finds the
/// keys. The lookup happens when the event is handled: events handled before the
/// indexed cache has synced find nothing. Have the controller also enqueue the indexed
/// objects themselves (with [`EnqueueObject`] on their informer): their initial list
/// covers that window.
///
/// ```no_run
/// # fn demo(controller: &kubegen_runtime::controller::Controller,
/// #         secrets: &kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::Secret>,
/// #         namespaces: &kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::Namespace>) {
/// use k8s_openapi::api::core::v1::{Namespace, Secret};
/// use kubegen_runtime::controller::EnqueueByIndex;
///
/// // Namespaces by the namespace they copy Secrets from (a label, here).
/// let by_source = namespaces.add_index("source", |ns: &Namespace| {
///     ns.metadata.labels.iter().flatten()
///         .filter(|(k, _)| *k == "copy-from")
///         .map(|(_, v)| v.clone())
///         .collect()
/// });
/// controller.watches(
///     secrets,
///     EnqueueByIndex::new(controller.queue(), namespaces.store(), by_source, |s: &Secret| {
///         s.metadata.namespace.clone().into_iter().collect()
///     }),
/// );
/// # }
/// ```
pub struct EnqueueByIndex<K, T> {
    target: Target,
    store: Store<T>,
    index: IndexHandle<T>,
    values: ValuesFn<K>,
}

impl<K, T> fmt::Debug for EnqueueByIndex<K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnqueueByIndex")
            .field("index", &self.index)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl<K, T> EnqueueByIndex<K, T> {
    /// Enqueues into `queue` the keys `index` of `store` holds under the values
    /// `values` gives for each object.
    pub fn new(
        queue: &RateLimitingQueue<ObjectKey>,
        store: Store<T>,
        index: IndexHandle<T>,
        values: impl FnMut(&K) -> Vec<String> + Send + 'static,
    ) -> Self {
        Self {
            target: Target::new(queue),
            store,
            index,
            values: Box::new(values),
        }
    }

    /// Ignores resyncs (updates where the object did not change).
    #[must_use]
    pub fn skip_resyncs(mut self) -> Self {
        self.target.skip_resyncs = true;
        self
    }

    fn enqueue(&mut self, object: &K, priority: Priority) {
        for value in (self.values)(object) {
            self.target
                .add_all(self.store.index_keys(&self.index, &value), priority);
        }
    }
}

impl<K, T> EventHandler<K> for EnqueueByIndex<K, T>
where
    K: Resource + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        self.enqueue(&object, add_priority(in_initial_list));
    }

    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if self.target.skips(old.meta(), new.meta()) {
            return;
        }
        let priority = update_priority(old.meta(), new.meta());
        self.enqueue(&old, priority);
        self.enqueue(&new, priority);
    }

    fn on_delete(&mut self, object: DeletedObject<K>) {
        self.enqueue(object.object(), PRIORITY_NORMAL);
    }
}

/// The keys an object of kind `K` maps to.
type MapFn<K> = Box<dyn FnMut(&K) -> Vec<ObjectKey> + Send>;

/// Enqueues the keys a function maps the object to (controller-runtime's
/// `EnqueueRequestsFromMapFunc`): for relations no owner reference or index expresses,
/// like "the Icecreams whose selector matches this Pod".
///
/// ```no_run
/// # fn demo(controller: &kubegen_runtime::controller::Controller,
/// #         pods: &kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::Pod>) {
/// use k8s_openapi::api::core::v1::Pod;
/// use kubegen_runtime::controller::EnqueueMapped;
/// use kubegen_runtime::key::ObjectKey;
///
/// // Every pod enqueues the ConfigMap named after its `app` label.
/// controller.watches(pods, EnqueueMapped::new(controller.queue(), |pod: &Pod| {
///     let app = pod.metadata.labels.as_ref().and_then(|l| l.get("app"));
///     app.map(|app| ObjectKey::new(pod.metadata.namespace.as_deref(), app.clone()))
///         .into_iter()
///         .collect()
/// }));
/// # }
/// ```
pub struct EnqueueMapped<K> {
    target: Target,
    map: MapFn<K>,
}

impl<K> fmt::Debug for EnqueueMapped<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnqueueMapped")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl<K> EnqueueMapped<K> {
    /// Enqueues into `queue` the keys `map` gives for each object.
    pub fn new(
        queue: &RateLimitingQueue<ObjectKey>,
        map: impl FnMut(&K) -> Vec<ObjectKey> + Send + 'static,
    ) -> Self {
        Self {
            target: Target::new(queue),
            map: Box::new(map),
        }
    }

    /// Ignores resyncs (updates where the object did not change).
    #[must_use]
    pub fn skip_resyncs(mut self) -> Self {
        self.target.skip_resyncs = true;
        self
    }

    fn enqueue(&mut self, object: &K, priority: Priority) {
        let keys = (self.map)(object);
        self.target.add_all(keys, priority);
    }
}

impl<K> EventHandler<K> for EnqueueMapped<K>
where
    K: Resource + Send + Sync + 'static,
{
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        self.enqueue(&object, add_priority(in_initial_list));
    }

    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if self.target.skips(old.meta(), new.meta()) {
            return;
        }
        let priority = update_priority(old.meta(), new.meta());
        self.enqueue(&old, priority);
        self.enqueue(&new, priority);
    }

    fn on_delete(&mut self, object: DeletedObject<K>) {
        self.enqueue(object.object(), PRIORITY_NORMAL);
    }
}

#[cfg(test)]
#[path = "handlers_tests.rs"]
mod tests;
