//! The cache: `Arc<K>` by [`ObjectKey`], with a built-in namespace index and user indexes.
//!
//! One [`StoreWriter`] applies changes (the reflector owns it); any number of [`Store`]
//! readers (cheap clones) read concurrently. This is client-go's `cache.Indexer` with
//! the writer separated from the readers by type.
//!
//! Locking: a `std::sync::RwLock` around the maps. Readers hold the read lock only for
//! a lookup or a filtered copy of `Arc`s; writes hold the write lock for one map
//! update; a relist builds the whole new state outside the lock and swaps it in. An
//! `arc-swap` of immutable maps would make each watch event copy the whole cache (or
//! need persistent maps), which costs more than a short uncontended lock.
//!
//! Objects are stored per namespace (`namespace -> name -> object`), so listing one
//! namespace costs the size of that namespace, not of the cache; a namespace's objects are
//! a set keyed by the names they carry (`by_name.rs`), not a map holding each name twice.

mod by_name;
mod index;
mod writer;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use index::{IndexFn, IndexHandle};
pub use writer::{ReplaceDiff, StoreWriter};

use by_name::Objects;
use index::Index;

use crate::key::ObjectKey;

static NEXT_STORE_ID: AtomicU64 = AtomicU64::new(1);

/// What the lock protects.
pub(crate) struct State<K> {
    /// namespace ("" for cluster scope) -> objects by name.
    pub(crate) namespaces: HashMap<String, Objects<K>>,
    pub(crate) len: usize,
    pub(crate) indexes: Vec<Index<K>>,
}

impl<K: kube::Resource> State<K> {
    fn get(&self, key: &ObjectKey) -> Option<&Arc<K>> {
        self.get_in(key.namespace(), key.name())
    }

    fn get_in(&self, namespace: Option<&str>, name: &str) -> Option<&Arc<K>> {
        let objects = self.namespaces.get(namespace.unwrap_or(""))?;
        objects.get(name).map(|entry| &entry.0)
    }
}

pub(crate) struct Shared<K> {
    id: u64,
    state: RwLock<State<K>>,
}

impl<K> Shared<K> {
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, State<K>> {
        // A panic while holding the lock cannot leave the maps half-updated in a way
        // readers could observe as unsafe; keep serving the last state.
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, State<K>> {
        self.state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A read handle to a cache. Clones share the same cache.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::api::ObjectMeta;
/// use kubegen_runtime::key::ObjectKey;
/// use kubegen_runtime::store::Store;
///
/// let mut builder = Store::<ConfigMap>::builder();
/// let by_app = builder.index("app", |cm: &ConfigMap| {
///     cm.metadata.labels.as_ref().and_then(|l| l.get("app").cloned()).into_iter().collect()
/// });
/// let (store, mut writer) = builder.build();
/// let mut cm = ConfigMap::default();
/// cm.metadata = ObjectMeta {
///     name: Some("a".into()),
///     namespace: Some("ns".into()),
///     labels: Some([("app".to_string(), "web".to_string())].into()),
///     ..Default::default()
/// };
/// writer.insert(Arc::new(cm));
/// assert!(store.get(&ObjectKey::namespaced("ns", "a")).is_some());
/// assert_eq!(store.by_index(&by_app, "web").len(), 1);
/// assert_eq!(store.list_namespace(Some("ns")).len(), 1);
/// ```
pub struct Store<K> {
    shared: Arc<Shared<K>>,
}

impl<K> Clone for Store<K> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<K> std::fmt::Debug for Store<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("len", &self.len()).finish()
    }
}

impl<K: kube::Resource + Send + Sync + 'static> Store<K> {
    /// A store without user indexes, and its writer.
    pub fn new() -> (Store<K>, StoreWriter<K>) {
        Self::builder().build()
    }

    /// A builder to register user indexes before the store exists.
    pub fn builder() -> StoreBuilder<K> {
        StoreBuilder {
            id: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            indexes: Vec::new(),
        }
    }

    /// Registers an index on a store that may already hold objects: the index is filled
    /// from the current contents before this returns (client-go refuses `AddIndexers`
    /// after start; this does not need to).
    pub fn add_index<F>(&self, name: &str, func: F) -> IndexHandle<K>
    where
        F: Fn(&K) -> Vec<String> + Send + Sync + 'static,
    {
        let name: Arc<str> = Arc::from(name);
        let mut index = Index::new(name.clone(), Arc::new(func));
        let mut state = self.shared.write();
        for (ns, objects) in &state.namespaces {
            for entry in objects {
                index.insert(&ObjectKey::new(Some(ns), entry.name()), &entry.0);
            }
        }
        state.indexes.push(index);
        IndexHandle::new(self.shared.id, state.indexes.len() - 1, name)
    }
}

impl<K> Store<K> {
    /// The object with this key.
    pub fn get(&self, key: &ObjectKey) -> Option<Arc<K>>
    where
        K: kube::Resource,
    {
        self.shared.read().get(key).cloned()
    }

    /// The object with this namespace (`None` for cluster scope) and name.
    pub fn get_in(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>>
    where
        K: kube::Resource,
    {
        self.shared.read().get_in(namespace, name).cloned()
    }

    /// Every cached object, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.filter(|_| true)
    }

    /// The objects of one namespace (`None`: cluster-scoped objects). Costs the size of
    /// the namespace.
    pub fn list_namespace(&self, namespace: Option<&str>) -> Vec<Arc<K>> {
        self.filter_namespace(namespace, |_| true)
    }

    /// The cached objects for which `keep` is true, copied out under one read lock.
    pub fn filter(&self, mut keep: impl FnMut(&K) -> bool) -> Vec<Arc<K>> {
        let state = self.shared.read();
        let mut out = Vec::new();
        for objects in state.namespaces.values() {
            out.extend(objects.iter().map(|e| &e.0).filter(|o| keep(o)).cloned());
        }
        out
    }

    /// The objects of one namespace for which `keep` is true.
    pub fn filter_namespace(
        &self,
        namespace: Option<&str>,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Vec<Arc<K>> {
        let state = self.shared.read();
        state
            .namespaces
            .get(namespace.unwrap_or(""))
            .map(|objects| {
                let objects = objects.iter().map(|e| &e.0);
                objects.filter(|o| keep(o)).cloned().collect()
            })
            .unwrap_or_default()
    }

    /// Every key in the cache.
    pub fn keys(&self) -> Vec<ObjectKey>
    where
        K: kube::Resource,
    {
        let state = self.shared.read();
        state
            .namespaces
            .iter()
            .flat_map(|(ns, objects)| {
                objects
                    .iter()
                    .map(move |entry| ObjectKey::new(Some(ns), entry.name()))
            })
            .collect()
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.shared.read().len
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The objects indexed under `value` by the index behind `handle`.
    ///
    /// A handle belongs to the store that issued it; a handle of another store finds
    /// nothing (and fails a debug assertion).
    pub fn by_index(&self, handle: &IndexHandle<K>, value: &str) -> Vec<Arc<K>>
    where
        K: kube::Resource,
    {
        let state = self.shared.read();
        let Some(index) = self.index_of(&state, handle) else {
            return Vec::new();
        };
        index
            .entries
            .get(value)
            .map(|keys| {
                keys.iter()
                    .filter_map(|key| state.get(key).cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The keys indexed under `value` (client-go's `IndexKeys`).
    pub fn index_keys(&self, handle: &IndexHandle<K>, value: &str) -> Vec<ObjectKey> {
        let state = self.shared.read();
        let Some(index) = self.index_of(&state, handle) else {
            return Vec::new();
        };
        index
            .entries
            .get(value)
            .map(|keys| keys.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Every value present in an index (client-go's `ListIndexFuncValues`).
    pub fn index_values(&self, handle: &IndexHandle<K>) -> Vec<String> {
        let state = self.shared.read();
        let Some(index) = self.index_of(&state, handle) else {
            return Vec::new();
        };
        index.entries.keys().cloned().collect()
    }

    fn index_of<'s>(&self, state: &'s State<K>, handle: &IndexHandle<K>) -> Option<&'s Index<K>> {
        debug_assert_eq!(
            handle.store_id,
            self.shared.id,
            "index handle {:?} used with a store that did not issue it",
            handle.name()
        );
        if handle.store_id != self.shared.id {
            return None;
        }
        state.indexes.get(handle.slot)
    }
}

/// Registers user indexes, then builds the store and its writer.
pub struct StoreBuilder<K> {
    id: u64,
    indexes: Vec<Index<K>>,
}

impl<K: kube::Resource + Send + Sync + 'static> StoreBuilder<K> {
    /// Registers an index and returns the handle to query it with.
    pub fn index<F>(&mut self, name: &str, func: F) -> IndexHandle<K>
    where
        F: Fn(&K) -> Vec<String> + Send + Sync + 'static,
    {
        let name: Arc<str> = Arc::from(name);
        self.indexes.push(Index::new(name.clone(), Arc::new(func)));
        IndexHandle::new(self.id, self.indexes.len() - 1, name)
    }

    /// The store (readers) and its single writer.
    pub fn build(self) -> (Store<K>, StoreWriter<K>) {
        let shared = Arc::new(Shared {
            id: self.id,
            state: RwLock::new(State {
                namespaces: HashMap::new(),
                len: 0,
                indexes: self.indexes,
            }),
        });
        (
            Store {
                shared: shared.clone(),
            },
            StoreWriter::new(shared),
        )
    }
}

#[cfg(test)]
mod tests;
