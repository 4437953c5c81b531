//! The single writer of a store.

use std::collections::HashMap;
use std::sync::Arc;

use kube::Resource;

use super::by_name::{ByName, Objects};
use super::{Shared, State, Store};
use crate::key::ObjectKey;

/// The one writer of a [`Store`]: applies watch events and relists. Not `Clone`, so a
/// cache has exactly one source of truth.
pub struct StoreWriter<K> {
    shared: Arc<Shared<K>>,
}

impl<K> std::fmt::Debug for StoreWriter<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreWriter").finish_non_exhaustive()
    }
}

/// What a [`StoreWriter::replace`] changed, object by object.
#[derive(Debug)]
pub struct ReplaceDiff<K> {
    /// Objects that were not cached before.
    pub added: Vec<Arc<K>>,
    /// Objects whose resourceVersion changed: `(old, new)`.
    pub updated: Vec<(Arc<K>, Arc<K>)>,
    /// Objects that were cached with the same resourceVersion: `(old, new)`.
    pub unchanged: Vec<(Arc<K>, Arc<K>)>,
    /// Objects that vanished, and objects replaced by another object of the same name
    /// (another uid: deleted and created again between the lists, which puts the new
    /// one in `added`): their last known state.
    pub deleted: Vec<Arc<K>>,
}

impl<K> Default for ReplaceDiff<K> {
    fn default() -> Self {
        Self {
            added: Vec::new(),
            updated: Vec::new(),
            unchanged: Vec::new(),
            deleted: Vec::new(),
        }
    }
}

impl<K: Resource> StoreWriter<K> {
    pub(crate) fn new(shared: Arc<Shared<K>>) -> Self {
        Self { shared }
    }

    /// A reader of the store this writer writes.
    pub fn store(&self) -> Store<K> {
        Store {
            shared: self.shared.clone(),
        }
    }

    /// Adds or replaces an object; returns the previous state.
    pub fn insert(&mut self, object: Arc<K>) -> Option<Arc<K>> {
        let key = ObjectKey::of(object.as_ref());
        let mut state = self.shared.write();
        let state = &mut *state;
        let previous = state
            .namespaces
            .entry(key.namespace().unwrap_or("").to_owned())
            .or_default()
            .replace(ByName(object.clone()))
            .map(|entry| entry.0);
        match &previous {
            Some(old) => {
                for index in &mut state.indexes {
                    index.remove(&key, old);
                }
            }
            None => state.len += 1,
        }
        for index in &mut state.indexes {
            index.insert(&key, &object);
        }
        previous
    }

    /// Removes an object by key; returns its last state.
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<K>> {
        let mut state = self.shared.write();
        let state = &mut *state;
        let ns = key.namespace().unwrap_or("");
        let objects = state.namespaces.get_mut(ns)?;
        let removed = objects.take(key.name())?.0;
        if objects.is_empty() {
            state.namespaces.remove(ns);
        }
        state.len -= 1;
        for index in &mut state.indexes {
            index.remove(key, &removed);
        }
        Some(removed)
    }

    /// Replaces the whole contents atomically (a relist): readers see either the old
    /// state or the new one. Returns what changed, including the objects that vanished.
    pub fn replace(&mut self, objects: impl IntoIterator<Item = Arc<K>>) -> ReplaceDiff<K> {
        let mut diff = ReplaceDiff::default();
        let mut namespaces: HashMap<String, Objects<K>> = HashMap::new();
        let mut len = 0;
        let mut indexes = {
            let state = self.shared.read();
            let mut indexes: Vec<_> = state.indexes.iter().map(|i| i.empty_like()).collect();
            for object in objects {
                let key = ObjectKey::of(object.as_ref());
                match state.get(&key) {
                    None => diff.added.push(object.clone()),
                    Some(old) if replaced(old.as_ref(), object.as_ref()) => {
                        diff.deleted.push(old.clone());
                        diff.added.push(object.clone());
                    }
                    Some(old) if old.meta().resource_version == object.meta().resource_version => {
                        diff.unchanged.push((old.clone(), object.clone()))
                    }
                    Some(old) => diff.updated.push((old.clone(), object.clone())),
                }
                for index in &mut indexes {
                    index.insert(&key, &object);
                }
                let previous = namespaces
                    .entry(key.namespace().unwrap_or("").to_owned())
                    .or_default()
                    .replace(ByName(object));
                if previous.is_none() {
                    len += 1;
                }
            }
            for (ns, old_objects) in &state.namespaces {
                let new_objects = namespaces.get(ns);
                for old in old_objects {
                    if new_objects.is_none_or(|objects| !objects.contains(old.name())) {
                        diff.deleted.push(old.0.clone());
                    }
                }
            }
            indexes
        };
        let mut state = self.shared.write();
        // Indexes registered through `Store::add_index` since the snapshot: fill them now.
        for late in state.indexes.iter().skip(indexes.len()) {
            let mut index = late.empty_like();
            for (ns, objects) in &namespaces {
                for entry in objects {
                    index.insert(&ObjectKey::new(Some(ns), entry.name()), &entry.0);
                }
            }
            indexes.push(index);
        }
        *state = State {
            namespaces,
            len,
            indexes,
        };
        diff
    }
}

/// Whether `new` is another object than `old` under the same name: both have uids, and
/// they differ.
fn replaced<K: Resource>(old: &K, new: &K) -> bool {
    match (&old.meta().uid, &new.meta().uid) {
        (Some(old), Some(new)) => old != new,
        _ => false,
    }
}

#[cfg(test)]
impl<K> StoreWriter<K> {
    pub(crate) fn index_entry_count(&self) -> usize {
        self.shared
            .read()
            .indexes
            .iter()
            .map(|i| i.entries.len())
            .sum()
    }
}
