//! Read-only typed views of a [`Store`]: client-go's generated listers, as one generic.
//!
//! ```
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::ObjectMeta;
//! use kubegen_runtime::lister::{Lister, Selector};
//! use kubegen_runtime::store::Store;
//!
//! let (store, mut writer) = Store::<ConfigMap>::new();
//! let mut cm = ConfigMap::default();
//! cm.metadata = ObjectMeta {
//!     name: Some("settings".into()),
//!     namespace: Some("default".into()),
//!     labels: Some([("app".to_string(), "web".to_string())].into()),
//!     ..Default::default()
//! };
//! writer.insert(Arc::new(cm));
//!
//! let lister = Lister::new(store);
//! let web: Selector = "app=web".parse().unwrap();
//! assert_eq!(lister.list(&web).len(), 1);
//! assert!(lister.namespace("default").get("settings").is_some());
//! assert!(lister.namespace("other").list(&Selector::everything()).is_empty());
//! ```

use std::sync::Arc;

use kube::Resource;

/// The label selector [`Lister::list`] takes: [`labels::Selector`](crate::labels::Selector),
/// named here too because generated listers name it through this module.
pub use crate::labels::Selector;

use crate::key::ObjectKey;
use crate::store::{IndexHandle, Store};

/// Lists and gets objects of one type from a cache, across all namespaces.
pub struct Lister<K> {
    store: Store<K>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
        }
    }
}

impl<K> std::fmt::Debug for Lister<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lister")
            .field("store", &self.store)
            .finish()
    }
}

impl<K: Resource> Lister<K> {
    /// A lister over a store.
    pub fn new(store: Store<K>) -> Self {
        Self { store }
    }

    /// The objects whose labels match `selector`, in every namespace.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        if selector.is_everything() {
            return self.store.list();
        }
        self.store
            .filter(|o| selector.matches_labels(o.meta().labels.as_ref()))
    }

    /// A cluster-scoped object by name.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.store.get_in(None, name)
    }

    /// An object by key.
    pub fn get_key(&self, key: &ObjectKey) -> Option<Arc<K>> {
        self.store.get(key)
    }

    /// The objects indexed under `value` by a user index.
    pub fn by_index(&self, handle: &IndexHandle<K>, value: &str) -> Vec<Arc<K>> {
        self.store.by_index(handle, value)
    }

    /// A view of one namespace.
    pub fn namespace(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister {
            store: self.store.clone(),
            namespace: namespace.to_owned(),
        }
    }

    /// The store behind this lister.
    pub fn store(&self) -> &Store<K> {
        &self.store
    }
}

/// Lists and gets objects of one namespace. Listing costs the size of the namespace.
pub struct NamespaceLister<K> {
    store: Store<K>,
    namespace: String,
}

impl<K> Clone for NamespaceLister<K> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
            namespace: self.namespace.clone(),
        }
    }
}

impl<K> std::fmt::Debug for NamespaceLister<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NamespaceLister")
            .field("namespace", &self.namespace)
            .finish()
    }
}

impl<K: Resource> NamespaceLister<K> {
    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The objects of this namespace whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.store.filter_namespace(Some(&self.namespace), |o| {
            selector.matches_labels(o.meta().labels.as_ref())
        })
    }

    /// An object of this namespace by name.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.store.get_in(Some(&self.namespace), name)
    }

    /// The objects of this namespace indexed under `value` by a user index.
    pub fn by_index(&self, handle: &IndexHandle<K>, value: &str) -> Vec<Arc<K>> {
        let mut objects = self.store.by_index(handle, value);
        objects.retain(|o| o.meta().namespace.as_deref() == Some(self.namespace.as_str()));
        objects
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    fn cm(ns: &str, name: &str, app: &str) -> Arc<ConfigMap> {
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(ns.into()),
                labels: Some([("app".to_string(), app.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    #[test]
    fn namespace_lister_sees_only_its_namespace() {
        let mut builder = Store::<ConfigMap>::builder();
        let by_app = builder.index("app", |cm: &ConfigMap| {
            cm.metadata
                .labels
                .iter()
                .flat_map(|l| l.get("app").cloned())
                .collect()
        });
        let (store, mut writer) = builder.build();
        writer.insert(cm("a", "x", "web"));
        writer.insert(cm("a", "y", "db"));
        writer.insert(cm("b", "x", "web"));
        let lister = Lister::new(store);
        let web: Selector = "app=web".parse().unwrap();
        assert_eq!(lister.list(&web).len(), 2);
        assert_eq!(lister.list(&Selector::everything()).len(), 3);
        let a = lister.namespace("a");
        assert_eq!(a.list(&web).len(), 1);
        assert_eq!(a.list(&Selector::everything()).len(), 2);
        assert!(a.get("y").is_some());
        assert!(lister.namespace("b").get("y").is_none());
        assert_eq!(lister.by_index(&by_app, "web").len(), 2);
        assert_eq!(a.by_index(&by_app, "web").len(), 1);
        assert!(lister.get_key(&ObjectKey::namespaced("b", "x")).is_some());
    }
}
