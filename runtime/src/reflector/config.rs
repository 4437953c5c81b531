//! Reflector configuration: a struct with defaults and consuming setters.

use std::sync::Arc;
use std::time::Duration;

use super::Error;
use crate::backoff::Backoff;
use crate::metrics::NoopMetrics;
use crate::metrics::informer::ReflectorMetrics;
use crate::shard::ShardSelector;

/// The reflector's backoff, client-go's `NewReflector` values: 800 ms, doubling to a 30 s
/// cap, jitter 1.0 (a delay `d` lies in `[d, 2d)`), starting over after 2 minutes without
/// a backoff.
pub const DEFAULT_BACKOFF: Backoff = Backoff {
    duration: Duration::from_millis(800),
    factor: 2.0,
    jitter: 1.0,
    steps: u32::MAX,
    cap: Some(Duration::from_secs(30)),
    reset_after: Some(Duration::from_secs(120)),
};

/// A function applied to every object before it is cached (client-go's
/// `TransformFunc`), e.g. to drop `managedFields`.
pub type Transform<K> = Arc<dyn Fn(K) -> K + Send + Sync>;

/// Receives every reflector error (client-go's `WatchErrorHandler`), after it is logged.
pub type ErrorHandler = Arc<dyn Fn(&Error) + Send + Sync>;

/// How a reflector lists and watches.
pub struct ReflectorConfig<K> {
    /// A name for logs and metrics (`ConfigMap`, `ConfigMap/default`, ...).
    pub name: String,
    /// Only objects whose labels match (`labelSelector`).
    pub label_selector: Option<String>,
    /// Only objects whose fields match (`fieldSelector`).
    pub field_selector: Option<String>,
    /// Only objects of this shard (KEP-5866's `shardSelector`): sent with every list and
    /// watch, and applied to what arrives, so a server that ignores the parameter (or
    /// refuses it, after which it is no longer sent) leaves the same objects cached.
    pub shard_selector: Option<ShardSelector>,
    /// Objects per list page (default 500, as client-go).
    pub page_size: u32,
    /// Backoff on errors (default [`DEFAULT_BACKOFF`]); never shorter than a server's
    /// Retry-After.
    pub backoff: Backoff,
    /// Watches ask the server to close them after a random time in `[min, 2 * min)`
    /// (default 5 minutes).
    pub min_watch_timeout: Duration,
    /// How long one list page, or the opening of a watch, may go unanswered (default
    /// 60 s, the API server's own limit for a request); also how long past its
    /// `timeoutSeconds` a watch may stay open. Past that the connection is presumed
    /// dead: the request is abandoned and retried after a backoff. `None`: wait as
    /// long as the transport does.
    pub request_timeout: Option<Duration>,
    /// Stream the initial list through a watch (`sendInitialEvents=true`) instead of
    /// listing. Falls back to list+watch if the server refuses.
    pub streaming_initial_list: bool,
    /// Applied to every object before caching.
    pub transform: Option<Transform<K>>,
    /// Keep `metadata.managedFields` in cached objects (default: dropped before the
    /// transform, as controller-runtime's default cache transform does: server-side
    /// apply's field ownership, which controllers rarely read, is often the largest part
    /// of a small object).
    pub keep_managed_fields: bool,
    /// After each (re)list, give the memory the allocator holds free back to the
    /// operating system (`malloc_trim(0)`; default true; only Linux with glibc has it,
    /// elsewhere this does nothing). See `reflector/trim.rs` for what it costs.
    pub release_memory_after_list: bool,
    /// Where metrics go.
    pub metrics: Arc<dyn ReflectorMetrics>,
    /// Receives every error.
    pub error_handler: Option<ErrorHandler>,
}

impl<K> Clone for ReflectorConfig<K> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
            shard_selector: self.shard_selector.clone(),
            page_size: self.page_size,
            backoff: self.backoff,
            min_watch_timeout: self.min_watch_timeout,
            request_timeout: self.request_timeout,
            streaming_initial_list: self.streaming_initial_list,
            transform: self.transform.clone(),
            keep_managed_fields: self.keep_managed_fields,
            release_memory_after_list: self.release_memory_after_list,
            metrics: self.metrics.clone(),
            error_handler: self.error_handler.clone(),
        }
    }
}

impl<K> std::fmt::Debug for ReflectorConfig<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReflectorConfig")
            .field("name", &self.name)
            .field("label_selector", &self.label_selector)
            .field("field_selector", &self.field_selector)
            .field("shard_selector", &self.shard_selector)
            .field("page_size", &self.page_size)
            .field("backoff", &self.backoff)
            .field("min_watch_timeout", &self.min_watch_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("streaming_initial_list", &self.streaming_initial_list)
            .field("transform", &self.transform.is_some())
            .field("keep_managed_fields", &self.keep_managed_fields)
            .field("release_memory_after_list", &self.release_memory_after_list)
            .finish_non_exhaustive()
    }
}

impl<K> Default for ReflectorConfig<K> {
    fn default() -> Self {
        Self {
            name: String::from("reflector"),
            label_selector: None,
            field_selector: None,
            shard_selector: None,
            page_size: 500,
            backoff: DEFAULT_BACKOFF,
            min_watch_timeout: Duration::from_secs(300),
            request_timeout: Some(Duration::from_secs(60)),
            streaming_initial_list: false,
            transform: None,
            keep_managed_fields: false,
            release_memory_after_list: true,
            metrics: Arc::new(NoopMetrics),
            error_handler: None,
        }
    }
}

impl<K> ReflectorConfig<K> {
    /// Sets the name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the label selector.
    #[must_use]
    pub fn label_selector(mut self, selector: impl Into<String>) -> Self {
        self.label_selector = Some(selector.into());
        self
    }

    /// Sets the field selector.
    #[must_use]
    pub fn field_selector(mut self, selector: impl Into<String>) -> Self {
        self.field_selector = Some(selector.into());
        self
    }

    /// Caches only the objects of one shard (see [`shard_selector`](Self::shard_selector)).
    #[must_use]
    pub fn shard_selector(mut self, selector: ShardSelector) -> Self {
        self.shard_selector = Some(selector);
        self
    }

    /// Sets the list page size.
    #[must_use]
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Sets the backoff.
    #[must_use]
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Sets the minimum watch timeout (watches last `[min, 2 * min)`).
    #[must_use]
    pub fn min_watch_timeout(mut self, min: Duration) -> Self {
        self.min_watch_timeout = min;
        self
    }

    /// Sets the request timeout: how long a list page or a watch's opening may go
    /// unanswered, and how long a watch may outlive its `timeoutSeconds` (zero: no
    /// bound).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout).filter(|t| !t.is_zero());
        self
    }

    /// Streams the initial list with `sendInitialEvents`.
    #[must_use]
    pub fn streaming_initial_list(mut self, enabled: bool) -> Self {
        self.streaming_initial_list = enabled;
        self
    }

    /// Keeps `metadata.managedFields` in cached objects (dropped by default).
    #[must_use]
    pub fn keep_managed_fields(mut self, keep: bool) -> Self {
        self.keep_managed_fields = keep;
        self
    }

    /// Whether to give free memory back to the operating system after each (re)list
    /// (default true; glibc only).
    #[must_use]
    pub fn release_memory_after_list(mut self, release: bool) -> Self {
        self.release_memory_after_list = release;
        self
    }

    /// Transforms every object before caching (after `managedFields` are dropped, unless
    /// [`keep_managed_fields`](Self::keep_managed_fields)).
    #[must_use]
    pub fn transform(mut self, transform: impl Fn(K) -> K + Send + Sync + 'static) -> Self {
        self.transform = Some(Arc::new(transform));
        self
    }

    /// Sends metrics to `metrics`.
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn ReflectorMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Passes every error to `handler`.
    #[must_use]
    pub fn error_handler(mut self, handler: impl Fn(&Error) + Send + Sync + 'static) -> Self {
        self.error_handler = Some(Arc::new(handler));
        self
    }

    /// A watch timeout in `[min, 2 * min)`, in whole seconds (at least 1).
    pub(crate) fn random_watch_timeout(&self) -> u32 {
        let min = self.min_watch_timeout.as_secs_f64();
        let secs = min + min * rand::random::<f64>();
        (secs.floor() as u32).max(1)
    }
}
