//! A namespace's objects as a set keyed by the names the objects carry, so the cache
//! holds no second copy of every name.
//!
//! A `HashMap<String, Arc<K>>` allocates each name again as its key (a small heap chunk
//! per object) and spends 32 bytes a slot; a `HashSet<ByName<K>>` hashes and compares
//! each entry by `metadata.name` read from the object, looks up with `&str` through
//! `Borrow<str>`, and spends 8 bytes a slot. An object's name cannot change under the set:
//! cached objects are immutable behind their `Arc`.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use kube::Resource;

/// A cached object, hashed and compared by its name (`""` for an object without one, as
/// [`ObjectKey::of`](crate::key::ObjectKey::of) names it).
pub(crate) struct ByName<K>(pub(crate) Arc<K>);

/// One namespace's objects.
pub(crate) type Objects<K> = HashSet<ByName<K>>;

impl<K: Resource> ByName<K> {
    /// The name the entry is keyed by.
    pub(crate) fn name(&self) -> &str {
        self.0.meta().name.as_deref().unwrap_or("")
    }
}

impl<K: Resource> Borrow<str> for ByName<K> {
    fn borrow(&self) -> &str {
        self.name()
    }
}

// Hash and Eq agree with `str`'s, as `Borrow<str>` requires.
impl<K: Resource> Hash for ByName<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl<K: Resource> PartialEq for ByName<K> {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl<K: Resource> Eq for ByName<K> {}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::RandomState;
    use std::hash::BuildHasher;

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;

    fn named(name: Option<&str>, data: &str) -> ByName<ConfigMap> {
        ByName(Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: name.map(str::to_owned),
                ..ObjectMeta::default()
            },
            data: Some([("k".to_owned(), data.to_owned())].into()),
            ..ConfigMap::default()
        }))
    }

    #[test]
    fn hashes_as_its_name_does() {
        let hasher = RandomState::new();
        assert_eq!(
            hasher.hash_one(named(Some("web"), "1")),
            hasher.hash_one("web")
        );
        assert_eq!(hasher.hash_one(named(None, "1")), hasher.hash_one(""));
    }

    #[test]
    fn a_set_finds_replaces_and_takes_by_name() {
        let mut objects: Objects<ConfigMap> = HashSet::new();
        assert!(objects.insert(named(Some("a"), "1")));
        assert!(objects.insert(named(Some("b"), "1")));
        assert!(objects.insert(named(None, "1")));
        let old = objects.replace(named(Some("a"), "2")).map(|o| o.0);
        assert_eq!(
            old.and_then(|o| o.data.clone()),
            named(None, "1").0.data.clone()
        );
        assert_eq!(objects.len(), 3);
        let found = objects.get("a").map(|o| o.0.clone());
        assert_eq!(
            found.and_then(|o| o.data.clone()),
            named(None, "2").0.data.clone()
        );
        assert_eq!(objects.get("").map(ByName::name), Some(""));
        assert!(objects.take("b").is_some());
        assert!(!objects.contains("b"));
        assert_eq!(objects.len(), 2);
    }
}
