//! Object keys: `namespace/name`, or `name` for cluster-scoped objects, as client-go's
//! `MetaNamespaceKeyFunc` produces them. [`ObjectKey`] is what stores index by and what
//! controllers put in their work queues.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::str::FromStr;

use kube::Resource;

/// The identity of an object inside one resource: its namespace (none for cluster scope)
/// and its name.
///
/// ```
/// use kubegen_runtime::key::ObjectKey;
///
/// let key: ObjectKey = "default/web".parse().unwrap();
/// assert_eq!(key.namespace(), Some("default"));
/// assert_eq!(key.name(), "web");
/// assert_eq!(key.to_string(), "default/web");
/// assert_eq!("node-1".parse::<ObjectKey>().unwrap(), ObjectKey::cluster("node-1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    namespace: Option<String>,
    name: String,
}

impl ObjectKey {
    /// The key of a namespaced object.
    pub fn namespaced(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: Some(namespace.into()),
            name: name.into(),
        }
    }

    /// The key of a cluster-scoped object.
    pub fn cluster(name: impl Into<String>) -> Self {
        Self {
            namespace: None,
            name: name.into(),
        }
    }

    /// A key from an optional namespace (an empty namespace means cluster scope).
    pub fn new(namespace: Option<&str>, name: impl Into<String>) -> Self {
        match namespace {
            Some(ns) if !ns.is_empty() => Self::namespaced(ns, name),
            _ => Self::cluster(name),
        }
    }

    /// The key of an object, from its metadata (`generateName` is not a name: an object
    /// without `metadata.name` gets an empty name).
    pub fn of<K: Resource>(object: &K) -> Self {
        let meta = object.meta();
        Self::new(
            meta.namespace.as_deref(),
            meta.name.clone().unwrap_or_default(),
        )
    }

    /// The namespace, `None` for cluster-scoped objects.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// Why a string is not an object key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The string had more than one `/`, or an empty part.
    #[error("failed to parse object key {0:?}: expected \"namespace/name\" or \"name\"")]
    Malformed(String),
}

impl FromStr for ObjectKey {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split('/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(name), None, None) if !name.is_empty() => Ok(Self::cluster(name)),
            (Some(ns), Some(name), None) if !ns.is_empty() && !name.is_empty() => {
                Ok(Self::namespaced(ns, name))
            }
            _ => Err(Error::Malformed(s.to_owned())),
        }
    }
}

/// An [`ObjectKey`] that also names the resource type, so a queue of `TypedKey<Foo>` cannot
/// receive a key of a `Bar`. It is `Hash + Eq + Clone + Send + Sync` whatever `K` is.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::key::{ObjectKey, TypedKey};
///
/// let key: TypedKey<ConfigMap> = TypedKey::new(ObjectKey::namespaced("default", "settings"));
/// assert_eq!(key.to_string(), "default/settings");
/// ```
pub struct TypedKey<K> {
    key: ObjectKey,
    kind: PhantomData<fn() -> K>,
}

impl<K> TypedKey<K> {
    /// Wraps a key.
    pub fn new(key: ObjectKey) -> Self {
        Self {
            key,
            kind: PhantomData,
        }
    }

    /// The untyped key.
    pub fn key(&self) -> &ObjectKey {
        &self.key
    }

    /// Unwraps the untyped key.
    pub fn into_key(self) -> ObjectKey {
        self.key
    }
}

impl<K: Resource> TypedKey<K> {
    /// The key of an object.
    pub fn of(object: &K) -> Self {
        Self::new(ObjectKey::of(object))
    }
}

impl<K> Clone for TypedKey<K> {
    fn clone(&self) -> Self {
        Self::new(self.key.clone())
    }
}

impl<K> PartialEq for TypedKey<K> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<K> Eq for TypedKey<K> {}

impl<K> Hash for TypedKey<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl<K> fmt::Debug for TypedKey<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypedKey").field(&self.key).finish()
    }
}

impl<K> fmt::Display for TypedKey<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.key.fmt(f)
    }
}

impl<K> From<ObjectKey> for TypedKey<K> {
    fn from(key: ObjectKey) -> Self {
        Self::new(key)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, Node};
    use kube::api::ObjectMeta;

    #[test]
    fn keys_of_objects() {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some("a".into()),
                namespace: Some("ns".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(ObjectKey::of(&cm).to_string(), "ns/a");
        let node = Node {
            metadata: ObjectMeta {
                name: Some("n1".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(ObjectKey::of(&node), ObjectKey::cluster("n1"));
    }

    #[test]
    fn parse_round_trips_and_rejects_garbage() {
        for s in ["a", "ns/a"] {
            assert_eq!(s.parse::<ObjectKey>().unwrap().to_string(), s);
        }
        for bad in ["", "/a", "ns/", "a/b/c"] {
            assert_eq!(bad.parse::<ObjectKey>(), Err(Error::Malformed(bad.into())));
        }
    }

    #[test]
    fn empty_namespace_means_cluster_scope() {
        assert_eq!(ObjectKey::new(Some(""), "x"), ObjectKey::cluster("x"));
    }

    #[test]
    fn key_is_a_queue_item() {
        fn assert_queue_item<T: std::hash::Hash + Eq + Clone + Send + Sync + 'static>() {}
        assert_queue_item::<ObjectKey>();
        // Not Send/Sync itself: the key must not inherit K's auto traits.
        assert_queue_item::<TypedKey<std::rc::Rc<()>>>();
    }
}
