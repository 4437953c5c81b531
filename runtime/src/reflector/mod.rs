//! The reflector: lists a collection, then watches it from the list's resourceVersion,
//! and mirrors every change into a sink (a [`StoreWriter`], or an informer).
//!
//! It follows client-go's `Reflector`: pages of 500 on list; watches with bookmarks and a
//! server timeout randomized in `[5, 10)` minutes; resumes a closed watch from the last
//! resourceVersion seen (bookmarks included); relists on `410 Gone`; backs off with
//! jitter on errors and `429` (800 ms doubling to 30 s, reset after 2 minutes without
//! errors, never less than the server's Retry-After); optionally streams the initial
//! list (`sendInitialEvents`); with a shard selector (KEP-5866) sends `shardSelector` on
//! list and watch and drops whatever arrives from outside the shard, so a server that
//! ignores the parameter gives the same cache (one that refuses it with a 400 is no
//! longer sent it); drops `managedFields` (unless told to keep them) and
//! applies an optional transform before caching. Errors are
//! logged with `tracing` and passed to the configured error handler; they never stop it.
//!
//! It never waits on the network without a bound: a list page or a watch's opening
//! unanswered for the request timeout (60 s), or a watch still open that long past the
//! `timeoutSeconds` it asked for, means a dead connection; the reflector gives the
//! request up and retries, as client-go's health checks make it do.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::Api;
//! use kubegen_runtime::reflector::{Reflector, ReflectorConfig};
//! use kubegen_runtime::store::Store;
//!
//! let (store, writer) = Store::<ConfigMap>::new();
//! // Cache only the ConfigMaps' metadata and keys, not their values.
//! let config = ReflectorConfig::default().transform(|mut cm: ConfigMap| {
//!     for value in cm.data.iter_mut().flat_map(|data| data.values_mut()) {
//!         value.clear();
//!     }
//!     cm
//! });
//! let reflector = Reflector::new(Api::<ConfigMap>::all(client), writer, config);
//! tokio::spawn(reflector.run(std::future::pending::<()>()));
//! # let _ = store;
//! # }
//! ```

mod config;
mod source;
mod state;
#[cfg(test)]
pub(crate) mod tests;
mod trim;

use std::sync::Arc;
use std::time::Duration;

use kube::Resource;
use kube::core::Status;

pub use config::{DEFAULT_BACKOFF, ErrorHandler, ReflectorConfig, Transform};
pub use source::{ListerWatcher, ShardedList, WatchStream};
pub use state::{INITIAL_EVENTS_END, State};

use crate::backoff::Delays;
use crate::error as api_error;
use crate::key::ObjectKey;
use crate::store::StoreWriter;

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong in a reflector. None of these stop it; all reach the error handler.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A list call failed.
    #[error("reflector {reflector}: failed to list")]
    List {
        /// The reflector's name.
        reflector: String,
        /// The kube error.
        #[source]
        source: kube::Error,
    },
    /// Opening a watch failed.
    #[error("reflector {reflector}: failed to watch from resourceVersion {resource_version:?}")]
    Watch {
        /// The reflector's name.
        reflector: String,
        /// Where the watch was to start.
        resource_version: String,
        /// The kube error.
        #[source]
        source: kube::Error,
    },
    /// An open watch failed (transport or decoding).
    #[error("reflector {reflector}: watch stream failed")]
    WatchStream {
        /// The reflector's name.
        reflector: String,
        /// The kube error.
        #[source]
        source: kube::Error,
    },
    /// The server sent an `ERROR` event on the watch.
    #[error("reflector {reflector}: watch returned error status {}: {}", .status.code, .status.message)]
    WatchStatus {
        /// The reflector's name.
        reflector: String,
        /// The status the server sent.
        status: Box<Status>,
    },
    /// A streaming initial list ended before its `k8s.io/initial-events-end` bookmark.
    #[error("reflector {reflector}: watch closed before the initial events ended")]
    InitialEventsIncomplete {
        /// The reflector's name.
        reflector: String,
    },
    /// A request got no answer in time (see [`ReflectorConfig::request_timeout`]); the
    /// reflector gave it up.
    #[error("reflector {reflector}: {request} got no answer within {after:?}")]
    Timeout {
        /// The reflector's name.
        reflector: String,
        /// Which request stalled.
        request: Stalled,
        /// How long the reflector waited.
        after: Duration,
    },
}

/// The request of an [`Error::Timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stalled {
    /// A list page.
    List,
    /// Opening a watch (its response headers).
    WatchOpen,
    /// An open watch that outlived its `timeoutSeconds` by the request timeout.
    Watch,
}

impl std::fmt::Display for Stalled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stalled::List => "a list request",
            Stalled::WatchOpen => "a watch request",
            Stalled::Watch => "an open watch past its timeoutSeconds",
        })
    }
}

impl Error {
    /// The server's status, when the server sent one.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::List { source, .. }
            | Error::Watch { source, .. }
            | Error::WatchStream { source, .. } => api_error::status_of(source),
            Error::WatchStatus { status, .. } => Some(status),
            Error::InitialEventsIncomplete { .. } | Error::Timeout { .. } => None,
        }
    }

    /// The resourceVersion asked for is too old: the reflector relists.
    pub fn is_gone(&self) -> bool {
        self.status().is_some_and(api_error::is_gone)
    }

    /// The server throttled the reflector.
    pub fn is_too_many_requests(&self) -> bool {
        self.status().is_some_and(api_error::is_too_many_requests)
    }

    /// How long the server asked the reflector to wait.
    pub fn retry_after(&self) -> Option<Duration> {
        self.status().and_then(api_error::retry_after)
    }
}

/// A change the reflector applies to its sink.
#[derive(Debug)]
pub enum Delta<K> {
    /// An object was added or modified (watch `ADDED` / `MODIFIED`).
    Upsert(Arc<K>),
    /// An object was deleted; this is its final state (watch `DELETED`).
    Delete(Arc<K>),
}

/// Where a reflector writes: a [`StoreWriter`], or an informer that also notifies
/// handlers. Calls come from the reflector's task, one at a time.
pub trait DeltaSink<K>: Send + 'static {
    /// Applies one watch change.
    fn apply(&mut self, delta: Delta<K>);
    /// Replaces the whole contents with a (re)list's objects.
    fn replace(&mut self, objects: Vec<Arc<K>>);
    /// The sink now holds everything up to `resource_version`: called after a (re)list
    /// is replaced and after every watch event, bookmarks included, once the change is
    /// applied. (An informer publishes it for the stale-cache guard.)
    fn synced_to(&mut self, resource_version: &str) {
        let _ = resource_version;
    }
    /// How many objects the sink holds (for the store size metric).
    fn len(&self) -> usize;
    /// Whether the sink is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Resource + Send + Sync + 'static> DeltaSink<K> for StoreWriter<K> {
    fn apply(&mut self, delta: Delta<K>) {
        match delta {
            Delta::Upsert(object) => {
                self.insert(object);
            }
            Delta::Delete(object) => {
                self.remove(&ObjectKey::of(object.as_ref()));
            }
        }
    }

    fn replace(&mut self, objects: Vec<Arc<K>>) {
        StoreWriter::replace(self, objects);
    }

    fn len(&self) -> usize {
        self.store().len()
    }
}

/// Lists and watches one collection into a [`DeltaSink`]; see the [module docs](self).
pub struct Reflector<K: Clone, S> {
    source: Arc<dyn ListerWatcher<K>>,
    sink: S,
    config: ReflectorConfig<K>,
    backoff: Delays,
    /// False once a streaming list was refused by the server: fall back to list+watch.
    streaming: bool,
    /// Whether the shard selector goes to the server: false once it refused it (the
    /// reflector then filters alone).
    send_shard: bool,
    relisting: bool,
}

impl<K, S> Reflector<K, S>
where
    K: Resource + Clone + Send + Sync + 'static,
    S: DeltaSink<K>,
{
    /// A reflector reading from `source` (usually a `kube::Api<K>`) into `sink`.
    pub fn new(source: impl ListerWatcher<K>, sink: S, config: ReflectorConfig<K>) -> Self {
        Self::from_shared(Arc::new(source), sink, config)
    }

    /// [`Reflector::new`] with a shared source.
    pub fn from_shared(
        source: Arc<dyn ListerWatcher<K>>,
        sink: S,
        config: ReflectorConfig<K>,
    ) -> Self {
        let backoff = Delays::new(config.backoff);
        let streaming = config.streaming_initial_list;
        Self {
            source,
            sink,
            config,
            backoff,
            streaming,
            send_shard: true,
            relisting: false,
        }
    }

    /// Runs until `stop` completes. Everything is cancel-safe: a change is applied to the
    /// sink whole or not at all.
    pub async fn run(mut self, stop: impl std::future::Future<Output = ()>) {
        tokio::pin!(stop);
        let mut state = State::Empty;
        loop {
            tokio::select! {
                biased;
                () = &mut stop => return,
                next = self.step(state) => state = next,
            }
        }
    }

    /// The sink, for inspection.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    fn report(&self, error: &Error) {
        tracing::warn!(reflector = %self.config.name, error = %error, cause = ?std::error::Error::source(error), "reflector error");
        if let Some(handler) = &self.config.error_handler {
            handler(error);
        }
    }
}
