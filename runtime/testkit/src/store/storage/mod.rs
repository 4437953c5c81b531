//! Object storage: one global resourceVersion counter, the current objects of every
//! store, and a bounded history of events that watches and exact-version lists read.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::store::event::{Event, EventType};
use crate::store::registry::{Registry, StorageKey};
use crate::store::status::{ApiError, ApiResult};
use crate::store::watch::Watchers;

mod revision;

pub(crate) use revision::{KeyRef, Revision, Store};

/// `(namespace, name)`; the namespace is empty for cluster-scoped objects. Ordering by
/// this key is the list (and pagination) order.
pub(crate) type ObjectKey = (String, String);

/// Objects of one store, in list order.
pub(crate) type Objects = BTreeMap<ObjectKey, Arc<Value>>;

/// Everything the server knows, behind one lock so that every write, its event and its
/// delivery to watchers happen in resourceVersion order.
#[derive(Debug)]
pub(crate) struct Cluster {
    pub(crate) registry: Registry,
    pub(crate) watchers: Watchers,
    rv: u64,
    objects: HashMap<StorageKey, Store>,
    history: VecDeque<Arc<Event>>,
    window: usize,
    /// Events with a resourceVersion up to this one are gone.
    compacted: u64,
    /// While set, writes are computed but not stored (`dryRun=All`).
    dry_run: bool,
    /// Where writes of objects with ownerReferences are queued for the collection of
    /// dangling dependents (`None`: that collection is off).
    owned_writes: Option<OwnedWrites>,
}

/// An object with ownerReferences, as written: its store, key and uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnedWrite {
    pub(crate) storage: StorageKey,
    pub(crate) key: ObjectKey,
    pub(crate) uid: String,
}

/// The writes of objects with ownerReferences not yet looked at, and the signal that
/// wakes whoever looks at them.
#[derive(Debug)]
struct OwnedWrites {
    pending: Vec<OwnedWrite>,
    written: Arc<Notify>,
}

/// Whether `object` names at least one owner.
fn has_owners(object: &Value) -> bool {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|refs| !refs.is_empty())
}

/// The key of an object in its store.
pub(crate) fn object_key(object: &Value) -> ObjectKey {
    let meta = |field: &str| {
        object
            .pointer(&format!("/metadata/{field}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    (meta("namespace"), meta("name"))
}

/// The key of an object in its store, borrowed from the object.
fn key_ref(object: &Value) -> KeyRef<'_> {
    let meta = |field: &str| {
        object
            .get("metadata")
            .and_then(|m| m.get(field))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    (meta("namespace"), meta("name"))
}

/// Parses a resourceVersion as this server writes them.
pub(crate) fn parse_rv(rv: &str) -> ApiResult<u64> {
    rv.parse::<u64>().map_err(|_| {
        ApiError::bad_request(format!(
            "invalid resource version {rv:?}: must be a decimal integer"
        ))
    })
}

fn set_rv(object: &mut Value, rv: u64) {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = json!({});
    }
    object["metadata"]["resourceVersion"] = json!(rv.to_string());
}

impl Cluster {
    /// An empty cluster keeping at most `window` events of history.
    pub(crate) fn new(window: usize) -> Self {
        Self {
            registry: Registry::with_built_ins(),
            watchers: Watchers::default(),
            rv: 1,
            objects: HashMap::new(),
            history: VecDeque::new(),
            window: window.max(1),
            compacted: 1,
            dry_run: false,
            owned_writes: None,
        }
    }

    /// From now on, queues every stored object that has ownerReferences (created or
    /// updated) for [`take_owned_writes`](Self::take_owned_writes), and notifies the
    /// returned signal after each.
    pub(crate) fn queue_owned_writes(&mut self) -> Arc<Notify> {
        let written = Arc::new(Notify::new());
        self.owned_writes = Some(OwnedWrites {
            pending: Vec::new(),
            written: Arc::clone(&written),
        });
        written
    }

    /// The writes of objects with ownerReferences queued since the last call, oldest
    /// first.
    pub(crate) fn take_owned_writes(&mut self) -> Vec<OwnedWrite> {
        self.owned_writes
            .as_mut()
            .map(|queue| std::mem::take(&mut queue.pending))
            .unwrap_or_default()
    }

    /// The latest resourceVersion.
    pub(crate) fn current_rv(&self) -> u64 {
        self.rv
    }

    pub(crate) fn get(&self, key: &StorageKey, namespace: &str, name: &str) -> Option<Arc<Value>> {
        self.objects
            .get(key)?
            .objects
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
    }

    /// The current objects of a store.
    pub(crate) fn current(&self, key: &StorageKey) -> &Objects {
        static EMPTY: Objects = BTreeMap::new();
        self.objects.get(key).map_or(&EMPTY, |store| &store.objects)
    }

    /// A store as it was at `rv`: the current objects with the changes made after `rv`
    /// undone in an overlay, so reading a page costs the page plus the writes since, not
    /// the whole store; 410 Expired when history no longer reaches back that far.
    pub(crate) fn at(&self, key: &StorageKey, rv: u64) -> ApiResult<Revision<'_>> {
        static EMPTY: std::sync::LazyLock<Store> = std::sync::LazyLock::new(Store::default);
        if rv > self.rv {
            return Err(ApiError::too_large_resource_version(rv, self.rv));
        }
        let store = self.objects.get(key).unwrap_or(&*EMPTY);
        if rv == self.rv {
            return Ok(Revision::new(store, BTreeMap::new()));
        }
        if rv < self.compacted {
            return Err(ApiError::expired(format!(
                "The resourceVersion for the provided list is too old: {rv} (compacted at {})",
                self.compacted
            )));
        }
        let start = self.history.partition_point(|e| e.rv <= rv);
        let mut overlay = BTreeMap::new();
        // Newest first, so the state before the oldest change after `rv` is what stays.
        for event in self.history.range(start..).rev() {
            if event.storage != *key {
                continue;
            }
            let before = match event.kind {
                EventType::Added => None,
                EventType::Modified | EventType::Deleted => event.previous.as_ref(),
            };
            overlay.insert(key_ref(&event.object), before);
        }
        Ok(Revision::new(store, overlay))
    }

    /// History events of a store after `rv`; 410 Expired when they are no longer kept.
    pub(crate) fn events_after(&self, key: &StorageKey, rv: u64) -> ApiResult<Vec<Arc<Event>>> {
        if rv < self.compacted {
            return Err(ApiError::expired(format!(
                "too old resource version: {rv} ({})",
                self.compacted
            )));
        }
        let start = self.history.partition_point(|e| e.rv <= rv);
        Ok(self
            .history
            .iter()
            .skip(start)
            .filter(|e| e.storage == *key)
            .cloned()
            .collect())
    }

    /// Whether writes are only computed, not stored (`dryRun=All`).
    pub(crate) fn dry_run(&self) -> bool {
        self.dry_run
    }

    /// Turns dry-run mode on or off.
    pub(crate) fn set_dry_run(&mut self, dry_run: bool) {
        self.dry_run = dry_run;
    }

    fn commit(
        &mut self,
        storage: &StorageKey,
        kind: EventType,
        mut object: Value,
        previous: Option<Arc<Value>>,
    ) -> Arc<Value> {
        if self.dry_run {
            // The object as it would be stored; nothing changes and nobody is told.
            return Arc::new(object);
        }
        self.rv += 1;
        set_rv(&mut object, self.rv);
        let object = Arc::new(object);
        let key = object_key(&object);
        if let Some(queue) = &mut self.owned_writes
            && kind != EventType::Deleted
            && has_owners(&object)
        {
            let uid = object
                .pointer("/metadata/uid")
                .and_then(Value::as_str)
                .unwrap_or_default();
            queue.pending.push(OwnedWrite {
                storage: storage.clone(),
                key: key.clone(),
                uid: uid.to_owned(),
            });
            queue.written.notify_one();
        }
        let store = self.objects.entry(storage.clone()).or_default();
        if kind == EventType::Deleted {
            store.remove(&key);
        } else {
            store.insert(key, object.clone());
        }
        let event = Arc::new(Event {
            rv: self.rv,
            storage: storage.clone(),
            kind,
            object: object.clone(),
            previous,
        });
        self.history.push_back(event.clone());
        while self.history.len() > self.window {
            if let Some(dropped) = self.history.pop_front() {
                self.compacted = dropped.rv;
            }
        }
        self.watchers.dispatch(&event);
        object
    }

    /// Stores a new object; returns it with its resourceVersion.
    pub(crate) fn create(&mut self, storage: &StorageKey, object: Value) -> Arc<Value> {
        self.commit(storage, EventType::Added, object, None)
    }

    /// Replaces an existing object; returns it with its new resourceVersion.
    pub(crate) fn update(
        &mut self,
        storage: &StorageKey,
        object: Value,
        previous: Arc<Value>,
    ) -> Arc<Value> {
        self.commit(storage, EventType::Modified, object, Some(previous))
    }

    /// Removes an object, recording `last` as its final state; returns that state with
    /// the delete's resourceVersion.
    pub(crate) fn delete(
        &mut self,
        storage: &StorageKey,
        last: Value,
        previous: Arc<Value>,
    ) -> Arc<Value> {
        self.commit(storage, EventType::Deleted, last, Some(previous))
    }

    /// Drops all history now: watches and exact lists from older versions get 410.
    pub(crate) fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.rv;
    }

    /// Forgets a store entirely (after its objects were deleted).
    pub(crate) fn drop_store(&mut self, storage: &StorageKey) {
        self.objects.remove(storage);
        self.watchers.close_store(storage);
    }

    /// Objects whose ownerReferences name `owner_uid`, with their stores.
    pub(crate) fn dependents_of(&self, owner_uid: &str) -> Vec<(StorageKey, Arc<Value>)> {
        let owned_by = |object: &Value| {
            object
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| {
                    refs.iter()
                        .any(|r| r.get("uid").and_then(Value::as_str) == Some(owner_uid))
                })
        };
        let mut dependents: Vec<(StorageKey, Arc<Value>)> = self
            .objects
            .iter()
            .flat_map(|(key, store)| {
                store
                    .objects
                    .values()
                    .filter(|o| owned_by(o))
                    .map(move |o| (key.clone(), o.clone()))
            })
            .collect();
        dependents.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| object_key(&a.1).cmp(&object_key(&b.1)))
        });
        dependents
    }

    /// Keys of every non-empty store holding objects in `namespace`.
    pub(crate) fn stores_with_namespace(
        &self,
        namespace: &str,
    ) -> Vec<(StorageKey, Vec<Arc<Value>>)> {
        self.objects
            .iter()
            .filter_map(|(key, store)| {
                let in_ns: Vec<Arc<Value>> = store
                    .objects
                    .range((namespace.to_owned(), String::new())..)
                    .take_while(|((ns, _), _)| ns == namespace)
                    .map(|(_, o)| o.clone())
                    .collect();
                (!in_ns.is_empty()).then(|| (key.clone(), in_ns))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StorageKey {
        StorageKey {
            group: String::new(),
            plural: "configmaps".to_owned(),
        }
    }

    fn cm(name: &str, data: &str) -> Value {
        json!({"metadata": {"namespace": "default", "name": name}, "data": {"v": data}})
    }

    #[test]
    fn every_write_gets_a_new_resource_version() {
        let mut cluster = Cluster::new(100);
        let start = cluster.current_rv();
        let a = cluster.create(&key(), cm("a", "1"));
        let a2 = cluster.update(&key(), cm("a", "2"), a.clone());
        cluster.delete(&key(), (*a2).clone(), a2);
        assert_eq!(cluster.current_rv(), start + 3);
        assert_eq!(
            cluster.events_after(&key(), start).expect("history").len(),
            3
        );
    }

    #[test]
    fn revisions_undo_later_events() {
        let mut cluster = Cluster::new(100);
        let a = cluster.create(&key(), cm("a", "1"));
        let at_one = cluster.current_rv();
        let a2 = cluster.update(&key(), cm("a", "2"), a);
        cluster.create(&key(), cm("b", "1"));
        cluster.delete(&key(), (*a2).clone(), a2);
        let revision = cluster.at(&key(), at_one).expect("revision");
        let objects: Vec<(KeyRef<'_>, &Arc<Value>)> = revision.iter(None, None).collect();
        assert_eq!(objects.len(), 1);
        assert_eq!(objects[0].0, ("default", "a"));
        assert_eq!(objects[0].1["data"]["v"], "1");
        assert_eq!(revision.count(None), 1);
        let now = cluster.at(&key(), cluster.current_rv()).expect("now");
        assert_eq!(now.count(Some("default")), 1);
        assert_eq!(now.iter(Some("default"), None).count(), 1);
    }

    #[test]
    fn dry_run_writes_change_nothing() {
        let mut cluster = Cluster::new(100);
        let start = cluster.current_rv();
        cluster.set_dry_run(true);
        let would_be = cluster.create(&key(), cm("a", "1"));
        assert_eq!(would_be["data"]["v"], "1");
        cluster.set_dry_run(false);
        assert_eq!(cluster.current_rv(), start);
        assert!(cluster.get(&key(), "default", "a").is_none());
    }

    #[test]
    fn history_is_bounded_and_compaction_expires_old_versions() {
        let mut cluster = Cluster::new(2);
        let start = cluster.current_rv();
        for name in ["a", "b", "c"] {
            cluster.create(&key(), cm(name, "1"));
        }
        assert_eq!(
            cluster
                .events_after(&key(), start)
                .expect_err("compacted")
                .code,
            410
        );
        assert_eq!(
            cluster.events_after(&key(), start + 1).expect("kept").len(),
            2
        );
        cluster.compact();
        assert_eq!(
            cluster
                .at(&key(), start + 2)
                .map(|_| ())
                .expect_err("compacted")
                .reason,
            "Expired"
        );
    }
}
