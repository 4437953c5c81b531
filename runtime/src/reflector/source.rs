//! Where a reflector lists and watches from: client-go's `ListerWatcher`.

use std::fmt::Debug;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::Resource;
use kube::api::{Api, ListParams, ObjectList, TypeMeta, WatchEvent, WatchParams};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::client::written::GroupResource;
use crate::shard::ShardSelector;

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
    /// One list call that also sends `shard` as KEP-5866's `shardSelector`. The default
    /// cannot send it and lists everything (the reflector filters the page itself).
    fn list_shard<'a>(
        &'a self,
        lp: &'a ListParams,
        shard: &'a ShardSelector,
    ) -> BoxFuture<'a, kube::Result<ShardedList<K>>> {
        let _ = shard;
        async move {
            Ok(ShardedList {
                list: self.list(lp).await?,
                served: false,
            })
        }
        .boxed()
    }

    /// Opens a watch that also sends `shard` as `shardSelector`. The default cannot send
    /// it and watches everything (the reflector filters the events itself).
    fn watch_shard<'a>(
        &'a self,
        wp: &'a WatchParams,
        resource_version: &'a str,
        shard: &'a ShardSelector,
    ) -> BoxFuture<'a, kube::Result<WatchStream<K>>> {
        let _ = shard;
        self.watch(wp, resource_version)
    }
}

/// A list page asked for with a `shardSelector`.
#[derive(Debug)]
pub struct ShardedList<K: Clone> {
    /// The page.
    pub list: ObjectList<K>,
    /// Whether the server said it applied the selector (it echoed it in
    /// `metadata.shardInfo.selector`); when not, the page holds every object.
    pub served: bool,
}

/// A list response read with the `metadata.shardInfo` that k8s-openapi's `ListMeta`
/// has only from Kubernetes 1.36 on.
#[derive(Deserialize)]
#[serde(bound(deserialize = "K: DeserializeOwned"))]
struct ShardedListBody<K> {
    #[serde(default)]
    metadata: ShardedListMeta,
    #[serde(default = "Vec::new")]
    items: Vec<K>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ShardedListMeta {
    #[serde(rename = "continue")]
    continue_: Option<String>,
    remaining_item_count: Option<i64>,
    resource_version: Option<String>,
    shard_info: Option<ShardInfo>,
}

#[derive(Deserialize)]
struct ShardInfo {
    #[serde(default)]
    selector: String,
}

/// `request` with `shardSelector=<shard>` added to its query.
fn with_shard(
    mut request: http::Request<Vec<u8>>,
    shard: &ShardSelector,
) -> kube::Result<http::Request<Vec<u8>>> {
    let uri = request.uri().to_string();
    let separator = if uri.contains('?') { '&' } else { '?' };
    let uri = format!(
        "{uri}{separator}shardSelector={}",
        percent_encoded(&shard.to_string())
    );
    *request.uri_mut() = uri.parse().map_err(|e: http::uri::InvalidUri| {
        kube::Error::BuildRequest(kube::core::request::Error::Validation(e.to_string()))
    })?;
    Ok(request)
}

/// `text` as a query value: everything but RFC 3986's unreserved characters
/// percent-encoded.
fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
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

    fn list_shard<'a>(
        &'a self,
        lp: &'a ListParams,
        shard: &'a ShardSelector,
    ) -> BoxFuture<'a, kube::Result<ShardedList<K>>> {
        async move {
            let request = kube::core::Request::new(self.resource_url());
            let request = if K::metadata_api() {
                request.list_metadata(lp)
            } else {
                request.list(lp)
            }
            .map_err(kube::Error::BuildRequest)?;
            let mut request = with_shard(request, shard)?;
            request.extensions_mut().insert("list");
            let body: ShardedListBody<K> = self.clone().into_client().request(request).await?;
            let served = body
                .metadata
                .shard_info
                .is_some_and(|info| info.selector.parse::<ShardSelector>().as_ref() == Ok(shard));
            let metadata = ListMeta {
                continue_: body.metadata.continue_,
                remaining_item_count: body.metadata.remaining_item_count,
                resource_version: body.metadata.resource_version,
                ..ListMeta::default()
            };
            let list = ObjectList {
                types: TypeMeta::default(),
                metadata,
                items: body.items,
            };
            Ok(ShardedList { list, served })
        }
        .boxed()
    }

    fn watch_shard<'a>(
        &'a self,
        wp: &'a WatchParams,
        resource_version: &'a str,
        shard: &'a ShardSelector,
    ) -> BoxFuture<'a, kube::Result<WatchStream<K>>> {
        async move {
            let request = kube::core::Request::new(self.resource_url());
            let request = if K::metadata_api() {
                request.watch_metadata(wp, resource_version)
            } else {
                request.watch(wp, resource_version)
            }
            .map_err(kube::Error::BuildRequest)?;
            let mut request = with_shard(request, shard)?;
            request.extensions_mut().insert("watch");
            let client = self.clone().into_client();
            Ok(client.request_events::<K>(request).await?.boxed())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::percent_encoded;

    #[test]
    fn shard_selectors_are_percent_encoded() {
        assert_eq!(
            percent_encoded("shardRange(object.metadata.uid, '0x0', '0x1') || x"),
            "shardRange%28object.metadata.uid%2C%20%270x0%27%2C%20%270x1%27%29%20%7C%7C%20x"
        );
    }
}
