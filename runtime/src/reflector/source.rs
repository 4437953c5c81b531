//! Where a reflector lists and watches from: client-go's `ListerWatcher`.

use std::fmt::Debug;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use kube::Resource;
use kube::api::{Api, ListParams, ObjectList, WatchEvent, WatchParams};
use serde::de::DeserializeOwned;

use crate::client::written::GroupResource;

/// A stream of watch events.
pub type WatchStream<K> = BoxStream<'static, kube::Result<WatchEvent<K>>>;

/// Lists and watches one collection. Implemented by `kube::Api<K>` (an
/// `Api<PartialObjectMeta<K>>` lists and watches metadata only); tests implement it with
/// scripted responses.
pub trait ListerWatcher<K: Clone>: Send + Sync + 'static {
    /// One list call (one page when `lp.limit` is set).
    fn list<'a>(&'a self, lp: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<K>>>;

    /// Opens a watch from `resource_version`.
    fn watch<'a>(
        &'a self,
        wp: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<K>>>;

    /// The resource it lists, when known: an informer over it tells a controller's
    /// stale-cache guard which writes its cache must catch up with.
    fn resource(&self) -> Option<GroupResource> {
        None
    }

    /// The one namespace it lists, if it lists only one (`None`: all namespaces, or
    /// unknown).
    fn namespace(&self) -> Option<String> {
        None
    }
}

impl<K> ListerWatcher<K> for Api<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    fn list<'a>(&'a self, lp: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<K>>> {
        Api::list(self, lp).boxed()
    }

    fn watch<'a>(
        &'a self,
        wp: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<K>>> {
        async move { Ok(Api::watch(self, wp, resource_version).await?.boxed()) }.boxed()
    }

    fn resource(&self) -> Option<GroupResource> {
        GroupResource::from_url_path(self.resource_url())
    }

    fn namespace(&self) -> Option<String> {
        Api::namespace(self).map(str::to_owned)
    }
}
