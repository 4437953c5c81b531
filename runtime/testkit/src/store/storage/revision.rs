//! One store's objects, and reads of a store at an older resourceVersion that cost what
//! they return: a page of a paged list touches the page (plus the writes made since its
//! snapshot), never the whole collection.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use serde_json::Value;

use super::{ObjectKey, Objects};

/// The current objects of one store, in list order, with a count per namespace so that
/// `remainingItemCount` needs no scan.
#[derive(Debug, Default)]
pub(crate) struct Store {
    pub(super) objects: Objects,
    per_namespace: HashMap<String, usize>,
}

impl Store {
    pub(super) fn insert(&mut self, key: ObjectKey, object: Arc<Value>) {
        let namespace = key.0.clone();
        if self.objects.insert(key, object).is_none() {
            *self.per_namespace.entry(namespace).or_default() += 1;
        }
    }

    pub(super) fn remove(&mut self, key: &ObjectKey) {
        if self.objects.remove(key).is_some()
            && let Some(count) = self.per_namespace.get_mut(&key.0)
        {
            *count -= 1;
            if *count == 0 {
                self.per_namespace.remove(&key.0);
            }
        }
    }

    fn count(&self, namespace: Option<&str>) -> usize {
        match namespace {
            None => self.objects.len(),
            Some(namespace) => self.per_namespace.get(namespace).copied().unwrap_or(0),
        }
    }
}

/// An object key borrowed from a store or from history: `(namespace, name)`.
pub(crate) type KeyRef<'a> = (&'a str, &'a str);

fn key_ref(key: &ObjectKey) -> KeyRef<'_> {
    (&key.0, &key.1)
}

/// A store as it was at one resourceVersion: the current objects, with the keys written
/// after that version mapped to their state at it (`None`: absent then). The overlay
/// borrows from history, so building it allocates one tree node per changed key.
#[derive(Debug)]
pub(crate) struct Revision<'a> {
    store: &'a Store,
    overlay: BTreeMap<KeyRef<'a>, Option<&'a Arc<Value>>>,
}

fn in_scope(namespace: Option<&str>, key: KeyRef<'_>) -> bool {
    namespace.is_none_or(|ns| key.0 == ns)
}

impl<'a> Revision<'a> {
    pub(super) fn new(
        store: &'a Store,
        overlay: BTreeMap<KeyRef<'a>, Option<&'a Arc<Value>>>,
    ) -> Self {
        Self { store, overlay }
    }

    /// The objects in list order, in one namespace (or all), strictly after `after`.
    pub(crate) fn iter<'s>(
        &'s self,
        namespace: Option<&'s str>,
        after: Option<KeyRef<'s>>,
    ) -> impl Iterator<Item = (KeyRef<'s>, &'s Arc<Value>)> + 's {
        let lower = match (after, namespace) {
            (Some(after), _) => Bound::Excluded(after),
            (None, Some(namespace)) => Bound::Included((namespace, "")),
            (None, None) => Bound::Unbounded,
        };
        let owned_lower = match lower {
            Bound::Excluded((ns, name)) => Bound::Excluded((ns.to_owned(), name.to_owned())),
            Bound::Included((ns, name)) => Bound::Included((ns.to_owned(), name.to_owned())),
            Bound::Unbounded => Bound::Unbounded,
        };
        let mut current = self
            .store
            .objects
            .range::<ObjectKey, _>((owned_lower, Bound::Unbounded))
            .map(|(key, object)| (key_ref(key), object))
            .peekable();
        let mut overlay = self
            .overlay
            .range::<KeyRef<'s>, _>((lower, Bound::Unbounded))
            .map(|(key, object)| (*key, *object))
            .peekable();
        std::iter::from_fn(move || {
            loop {
                let order = match (current.peek(), overlay.peek()) {
                    (None, None) => return None,
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (Some((c, _)), Some((o, _))) => c.cmp(o),
                };
                if order == Ordering::Less {
                    return current.next();
                }
                if order == Ordering::Equal {
                    current.next();
                }
                if let Some((key, Some(object))) = overlay.next() {
                    return Some((key, object));
                }
            }
        })
        .take_while(move |(key, _)| in_scope(namespace, *key))
    }

    /// How many objects there are in one namespace (or all).
    pub(crate) fn count(&self, namespace: Option<&str>) -> usize {
        let mut count = self.store.count(namespace);
        for (key, then) in &self.overlay {
            if !in_scope(namespace, *key) {
                continue;
            }
            let now = self
                .store
                .objects
                .contains_key(&(key.0.to_owned(), key.1.to_owned()));
            match (then.is_some(), now) {
                (true, false) => count += 1,
                (false, true) => count = count.saturating_sub(1),
                _ => {}
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key(namespace: &str, name: &str) -> ObjectKey {
        (namespace.to_owned(), name.to_owned())
    }

    fn object(name: &str, v: u64) -> Arc<Value> {
        Arc::new(json!({"metadata": {"name": name}, "v": v}))
    }

    fn store(keys: &[(&str, &str)]) -> Store {
        let mut store = Store::default();
        for (namespace, name) in keys {
            store.insert(key(namespace, name), object(name, 2));
        }
        store
    }

    fn names(
        revision: &Revision<'_>,
        namespace: Option<&str>,
        after: Option<KeyRef<'_>>,
    ) -> Vec<String> {
        revision
            .iter(namespace, after)
            .map(|(k, o)| format!("{}/{}@{}", k.0, k.1, o["v"]))
            .collect()
    }

    #[test]
    fn counts_follow_inserts_and_removes() {
        let mut store = store(&[("a", "x"), ("a", "y"), ("b", "x")]);
        store.insert(key("a", "x"), object("x", 3));
        assert_eq!((store.count(None), store.count(Some("a"))), (3, 2));
        store.remove(&key("a", "x"));
        store.remove(&key("a", "x"));
        assert_eq!((store.count(None), store.count(Some("a"))), (2, 1));
        assert_eq!(store.count(Some("c")), 0);
    }

    #[test]
    fn the_overlay_replaces_hides_and_restores_objects() {
        // Now: a/x, a/y, b/x. At the revision: a/x held v=1, a/y did not exist, and a/w
        // (deleted since) existed.
        let store = store(&[("a", "x"), ("a", "y"), ("b", "x")]);
        let (w, x) = (object("w", 1), object("x", 1));
        let overlay = BTreeMap::from([
            (("a", "w"), Some(&w)),
            (("a", "x"), Some(&x)),
            (("a", "y"), None),
        ]);
        let revision = Revision::new(&store, overlay);
        assert_eq!(names(&revision, None, None), ["a/w@1", "a/x@1", "b/x@2"]);
        assert_eq!(names(&revision, Some("a"), None), ["a/w@1", "a/x@1"]);
        assert_eq!(names(&revision, None, Some(("a", "w"))), ["a/x@1", "b/x@2"]);
        assert_eq!(names(&revision, Some("b"), None), ["b/x@2"]);
        assert_eq!(revision.count(None), 3);
        assert_eq!(revision.count(Some("a")), 2);
        assert_eq!(revision.count(Some("b")), 1);
    }

    #[test]
    fn a_namespace_scope_stops_at_the_namespace_end() {
        let store = store(&[("a", "x"), ("ab", "x"), ("b", "x")]);
        let revision = Revision::new(&store, BTreeMap::new());
        assert_eq!(names(&revision, Some("a"), None), ["a/x@2"]);
        assert_eq!(
            names(&revision, Some("a"), Some(("a", "x"))),
            Vec::<String>::new()
        );
    }
}
