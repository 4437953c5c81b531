//! `HasSynced` and `wait_for_cache_sync` for any set of informers or handlers.

use std::time::Duration;

use futures::future::join_all;
use tokio::sync::watch;

/// Something that becomes synced once (an informer, a handler registration).
///
/// Informers and their handler registrations also say which informer they wait on and
/// whether it was started, so a controller waiting for them can report an informer that
/// was never started (a forgotten `factory.start()`) instead of a bare timeout. Other
/// implementations keep the defaults: unnamed, and taken as started.
pub trait HasSynced: Send + Sync {
    /// Whether it has synced.
    fn has_synced(&self) -> bool;
    /// A receiver that turns `true` when it syncs.
    fn synced_receiver(&self) -> watch::Receiver<bool>;
    /// The name of the informer this waits on, for messages (`None`: not an informer's).
    fn informer_name(&self) -> Option<&str> {
        None
    }
    /// A receiver that turns `true` once the informer this waits on was started
    /// (`None`: unknown, taken as started).
    fn started_receiver(&self) -> Option<watch::Receiver<bool>> {
        None
    }
}

/// Waits until every one of `items` has synced, or `timeout` passes. Returns whether all
/// synced (client-go's `cache.WaitForCacheSync`, without polling).
///
/// ```no_run
/// # async fn demo(a: kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::Pod>,
/// #               b: kubegen_runtime::informer::SharedInformer<k8s_openapi::api::core::v1::ConfigMap>) {
/// use std::time::Duration;
/// use kubegen_runtime::informer::wait_for_cache_sync;
///
/// if !wait_for_cache_sync(Duration::from_secs(30), &[&a, &b]).await {
///     panic!("caches did not sync");
/// }
/// # }
/// ```
pub async fn wait_for_cache_sync(timeout: Duration, items: &[&dyn HasSynced]) -> bool {
    let receivers: Vec<_> = items.iter().map(|i| i.synced_receiver()).collect();
    let all = join_all(receivers.into_iter().map(|mut rx| async move {
        // An error means the sender is gone: it can never sync.
        rx.wait_for(|synced| *synced).await.is_ok()
    }));
    match tokio::time::timeout(timeout, all).await {
        Ok(results) => results.into_iter().all(|ok| ok),
        Err(_elapsed) => false,
    }
}
