//! Who hears of a write: while a future runs under [`observe_writes`], every successful
//! write of a [`TypedClient`](super::TypedClient) inside it (create, update, patch, apply,
//! their status forms, a delete answered with the object) reports the resource and the
//! `resourceVersion` the server returned, and the object's namespace, to the observer.
//!
//! A controller observes its reconciles this way, to learn which versions of which
//! resources each key has written and wait for its caches to catch up with them before
//! reconciling that key again (see the controller's stale-cache guard). The observer is
//! a Tokio task-local: writes in tasks the future spawns are not observed; a client
//! other than [`TypedClient`](super::TypedClient) reports with [`report_write`].
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use kubegen_runtime::client::written::{GroupResource, WriteObserver, observe_writes, report_write};
//!
//! #[derive(Default)]
//! struct Log(Mutex<Vec<(GroupResource, String)>>);
//!
//! impl WriteObserver for Log {
//!     fn wrote(&self, resource: &GroupResource, _namespace: Option<&str>, resource_version: &str) {
//!         self.0.lock().unwrap().push((resource.clone(), resource_version.to_owned()));
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let log = Arc::new(Log::default());
//! let configmaps = GroupResource::new("", "configmaps");
//! observe_writes(log.clone(), async {
//!     // A TypedClient's writes report themselves; others report what the server returned:
//!     report_write(&configmaps, Some("default"), Some("42"));
//! })
//! .await;
//! report_write(&configmaps, Some("default"), Some("43")); // not observed: outside the scope
//! assert_eq!(*log.0.lock().unwrap(), [(configmaps, "42".to_owned())]);
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::sync::Arc;

/// A resource of the API, by group (`""` for the core group) and plural name: what a
/// write and an informer's cache are matched by (client-go's `schema.GroupResource`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupResource {
    /// The API group, `""` for the core group.
    pub group: String,
    /// The resource's plural name (`deployments`).
    pub resource: String,
}

impl GroupResource {
    /// The resource `resource` of `group`.
    pub fn new(group: impl Into<String>, resource: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            resource: resource.into(),
        }
    }

    /// The resource of `K`, for the type information `dyntype` (`&()` for generated and
    /// k8s-openapi types).
    pub fn of<K: kube::Resource>(dyntype: &K::DynamicType) -> Self {
        Self::new(K::group(dyntype), K::plural(dyntype))
    }

    /// The resource a collection URL path names: `/api/v1/configmaps`,
    /// `/apis/apps/v1/namespaces/web/deployments` (what `kube::Api::resource_url`
    /// returns); `None` for anything else.
    ///
    /// ```
    /// use kubegen_runtime::client::written::GroupResource;
    ///
    /// let deployments = GroupResource::from_url_path("/apis/apps/v1/namespaces/web/deployments");
    /// assert_eq!(deployments, Some(GroupResource::new("apps", "deployments")));
    /// let namespaces = GroupResource::from_url_path("/api/v1/namespaces");
    /// assert_eq!(namespaces, Some(GroupResource::new("", "namespaces")));
    /// assert_eq!(GroupResource::from_url_path("/healthz"), None);
    /// ```
    pub fn from_url_path(path: &str) -> Option<Self> {
        let mut segments = path.split('/').filter(|s| !s.is_empty());
        let group = match segments.next()? {
            "api" => "",
            "apis" => segments.next()?,
            _ => return None,
        };
        let _version = segments.next()?;
        let rest: Vec<&str> = segments.collect();
        let resource = match rest.as_slice() {
            [resource] => *resource,
            ["namespaces", _namespace, resource] => *resource,
            _ => return None,
        };
        Some(Self::new(group, resource))
    }
}

impl fmt::Display for GroupResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.resource)
        } else {
            write!(f, "{}.{}", self.resource, self.group)
        }
    }
}

/// Hears of the writes made under [`observe_writes`].
pub trait WriteObserver: Send + Sync {
    /// A write of `resource` succeeded, and the server's answer carried
    /// `resource_version`; `namespace` is the written object's (`None`: cluster-scoped).
    fn wrote(&self, resource: &GroupResource, namespace: Option<&str>, resource_version: &str);
}

tokio::task_local! {
    static OBSERVER: Arc<dyn WriteObserver>;
}

/// Runs `future` with `observer` hearing of every write reported inside it (the
/// writes of [`TypedClient`](super::TypedClient)s, and [`report_write`] calls).
pub async fn observe_writes<F: Future>(observer: Arc<dyn WriteObserver>, future: F) -> F::Output {
    OBSERVER.scope(observer, future).await
}

/// Reports a successful write of `resource` in `namespace` (`None` for a cluster-scoped
/// object) whose answer carried `resource_version` (`None` or empty: nothing to report)
/// to the observer of the current task, if any. [`TypedClient`](super::TypedClient)
/// calls it for its writes; call it after a write made with another client.
pub fn report_write(
    resource: &GroupResource,
    namespace: Option<&str>,
    resource_version: Option<&str>,
) {
    let Some(resource_version) = resource_version.filter(|rv| !rv.is_empty()) else {
        return;
    };
    // Outside observe_writes there is no observer: nothing to do.
    let namespace = namespace.filter(|ns| !ns.is_empty());
    let _ = OBSERVER.try_with(|observer| observer.wrote(resource, namespace, resource_version));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl WriteObserver for Log {
        fn wrote(&self, resource: &GroupResource, namespace: Option<&str>, resource_version: &str) {
            self.0
                .lock()
                .unwrap()
                .push(format!("{namespace:?}/{resource}@{resource_version}"));
        }
    }

    #[test]
    fn url_paths_of_every_scope() {
        let parse = GroupResource::from_url_path;
        assert_eq!(
            parse("/api/v1/namespaces/default/configmaps"),
            Some(GroupResource::new("", "configmaps"))
        );
        assert_eq!(
            parse("/api/v1/nodes"),
            Some(GroupResource::new("", "nodes"))
        );
        assert_eq!(
            parse("/apis/samplecontroller.k8s.io/v1alpha1/foos"),
            Some(GroupResource::new("samplecontroller.k8s.io", "foos"))
        );
        assert_eq!(parse("/apis/apps"), None);
        assert_eq!(parse("/apis/apps/v1/namespaces/web/deployments/x"), None);
        assert_eq!(parse("/version"), None);
    }

    #[test]
    fn display_names_the_group_after_the_resource() {
        assert_eq!(
            GroupResource::new("apps", "deployments").to_string(),
            "deployments.apps"
        );
        assert_eq!(GroupResource::new("", "pods").to_string(), "pods");
        assert_eq!(
            GroupResource::of::<k8s_openapi::api::apps::v1::Deployment>(&()),
            GroupResource::new("apps", "deployments")
        );
    }

    #[tokio::test]
    async fn only_writes_inside_the_scope_of_this_task_are_observed() {
        let log = Arc::new(Log::default());
        let pods = GroupResource::new("", "pods");
        report_write(&pods, Some("web"), Some("1"));
        observe_writes(log.clone(), async {
            report_write(&pods, Some("web"), Some("2"));
            report_write(&pods, Some(""), Some("4"));
            report_write(&pods, Some("web"), None);
            report_write(&pods, Some("web"), Some(""));
            // A spawned task does not inherit the observer.
            tokio::spawn(async { report_write(&GroupResource::new("", "pods"), None, Some("3")) })
                .await
                .unwrap();
        })
        .await;
        assert_eq!(
            *log.0.lock().unwrap(),
            ["Some(\"web\")/pods@2", "None/pods@4"]
        );
    }
}
