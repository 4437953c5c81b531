//! What the user supplies: a [`Reconciler`], and the [`Action`] it asks for.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::key::ObjectKey;

/// What happens to a key after a successful reconcile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// The object is where it should be: the key's backoff is forgotten and it comes
    /// back only when a watch event (or a resync) enqueues it again.
    #[default]
    Done,
    /// Not there yet, without an error (for example a write refused because the cache
    /// was behind): the key comes back after the rate limiter's delay, which grows with
    /// every requeue until a [`Done`](Action::Done) forgets it.
    Requeue,
    /// Look again after this delay (polling something no watch reports, or a deadline):
    /// the backoff is forgotten and the key comes back after the delay. A zero delay
    /// queues it again at once.
    RequeueAfter(Duration),
}

/// The user's half of a controller: brings the object behind one key to where it should
/// be, reading it from a lister (edge triggered, level driven).
///
/// A controller calls `reconcile` for one key at a time per key: never for the same key
/// on two workers at once. An error retries the key with backoff (the error is logged
/// as one line: its `Display`, then each source's); a panic is caught and handled as
/// an error.
///
/// Implement it with an `async fn`:
///
/// ```
/// use kubegen_runtime::controller::{Action, Reconciler};
/// use kubegen_runtime::key::ObjectKey;
///
/// struct Foos;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("failed to sync foo {0}")]
/// struct SyncError(ObjectKey);
///
/// impl Reconciler for Foos {
///     type Error = SyncError;
///
///     async fn reconcile(&self, key: &ObjectKey) -> Result<Action, SyncError> {
///         if key.name().is_empty() {
///             return Err(SyncError(key.clone()));
///         }
///         Ok(Action::Done)
///     }
/// }
/// ```
pub trait Reconciler: Send + Sync + 'static {
    /// Why a reconcile failed.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Reconciles the object behind `key` (which may no longer exist).
    fn reconcile(
        &self,
        key: &ObjectKey,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send;
}

impl<R: Reconciler> Reconciler for Arc<R> {
    type Error = R::Error;

    fn reconcile(
        &self,
        key: &ObjectKey,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send {
        (**self).reconcile(key)
    }
}

/// Whether a write refused with `error` only shows that the cache the reconciler read
/// was behind the server: `409 Conflict` (an update carrying a cached, now stale
/// `resourceVersion`) or `AlreadyExists` (a create of an object the cache had not seen
/// yet, typically one this controller created a moment ago).
///
/// Informer caches lag the server by design, so these refusals are expected, not
/// failures: return [`Action::Requeue`] (log at debug level) and let the next reconcile
/// read the caught-up cache. A watch event for the object usually enqueues the key
/// anyway.
///
/// ```
/// use kubegen_runtime::controller::{Action, is_cache_lag};
///
/// fn after_write(result: Result<(), kubegen_runtime::error::Error>) -> Result<Action, kubegen_runtime::error::Error> {
///     match result {
///         Ok(()) => Ok(Action::Done),
///         Err(error) if is_cache_lag(&error) => Ok(Action::Requeue),
///         Err(error) => Err(error),
///     }
/// }
/// # let _ = after_write;
/// ```
pub fn is_cache_lag(error: &crate::error::Error) -> bool {
    error.is_conflict() || error.is_already_exists()
}
