//! User indexes: a function from an object to index values, and typed handles to query them.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::key::ObjectKey;

/// An index function, client-go's `IndexFunc`: the values an object is indexed under.
pub type IndexFn<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// A handle to one index of one store, returned when the index is registered.
///
/// Queries take the handle instead of an index name, so asking for an index that was never
/// registered cannot be written. A handle is cheap to clone and can be shared.
pub struct IndexHandle<K> {
    pub(crate) store_id: u64,
    pub(crate) slot: usize,
    name: Arc<str>,
    kind: PhantomData<fn() -> K>,
}

impl<K> IndexHandle<K> {
    pub(crate) fn new(store_id: u64, slot: usize, name: Arc<str>) -> Self {
        Self {
            store_id,
            slot,
            name,
            kind: PhantomData,
        }
    }

    /// The name the index was registered under (for logs and metrics).
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl<K> Clone for IndexHandle<K> {
    fn clone(&self) -> Self {
        Self::new(self.store_id, self.slot, self.name.clone())
    }
}

impl<K> fmt::Debug for IndexHandle<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IndexHandle")
            .field("name", &self.name)
            .finish()
    }
}

/// One registered index: its function and the keys under each value.
pub(crate) struct Index<K> {
    pub(crate) name: Arc<str>,
    pub(crate) func: IndexFn<K>,
    pub(crate) entries: HashMap<String, HashSet<ObjectKey>>,
}

impl<K> Index<K> {
    pub(crate) fn new(name: Arc<str>, func: IndexFn<K>) -> Self {
        Self {
            name,
            func,
            entries: HashMap::new(),
        }
    }

    pub(crate) fn insert(&mut self, key: &ObjectKey, object: &K) {
        for value in (self.func)(object) {
            self.entries.entry(value).or_default().insert(key.clone());
        }
    }

    pub(crate) fn remove(&mut self, key: &ObjectKey, object: &K) {
        for value in (self.func)(object) {
            if let Some(keys) = self.entries.get_mut(&value) {
                keys.remove(key);
                if keys.is_empty() {
                    self.entries.remove(&value);
                }
            }
        }
    }

    /// An empty index with the same function, for rebuilding on relist.
    pub(crate) fn empty_like(&self) -> Self {
        Self::new(self.name.clone(), self.func.clone())
    }
}
