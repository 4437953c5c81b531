//! How a [`Controller`](super::Controller) is named, sized, paced and measured.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::StaleCacheGuard;
use crate::key::ObjectKey;
use crate::metrics::NoopMetrics;
use crate::metrics::controller::ControllerMetricsProvider;
use crate::workqueue::{QueueConfig, RateLimiter, default_controller_rate_limiter};

/// The name of a controller whose configuration does not set one.
pub const DEFAULT_NAME: &str = "controller";

/// How long a controller waits for its caches by default (controller-runtime's
/// `CacheSyncTimeout`).
pub const DEFAULT_CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a controller waits by default for the informers it watches to be started
/// before it fails, naming them (a forgotten `factory.start()`).
pub const DEFAULT_INFORMER_START_TIMEOUT: Duration = Duration::from_secs(5);

/// How a [`Controller`](super::Controller) runs.
///
/// Start from [`ControllerConfig::default`] and change what you need:
///
/// | setting | default |
/// |---|---|
/// | [`name`](ControllerConfig::name): log field, metrics label, and the queue's name unless the queue config names it | `"controller"` |
/// | [`workers`](ControllerConfig::workers): keys reconciled concurrently | 1 (controller-runtime's `MaxConcurrentReconciles`) |
/// | [`queue`](ControllerConfig::queue): the work queue's name, metrics and clock | [`QueueConfig::default`] |
/// | [`rate_limiter`](ControllerConfig::rate_limiter): retry pace of failed and requeued keys | [`default_controller_rate_limiter`] |
/// | [`cache_sync_timeout`](ControllerConfig::cache_sync_timeout) | 2 minutes |
/// | [`informer_start_timeout`](ControllerConfig::informer_start_timeout): how long an informer it waits for may stay unstarted | 5 seconds |
/// | [`reconcile_timeout`](ControllerConfig::reconcile_timeout): how long one reconcile may run before it is dropped and retried | none (controller-runtime's `ReconciliationTimeout`) |
/// | [`stale_cache_guard`](ControllerConfig::stale_cache_guard): hold a key back until the caches have seen its last writes (KEP-5647) | on, at most 5 seconds |
/// | [`metrics`](ControllerConfig::metrics): reconcile metrics | [`NoopMetrics`] |
///
/// ```
/// use std::time::Duration;
/// use kubegen_runtime::controller::ControllerConfig;
/// use kubegen_runtime::metrics::NoopMetrics;
/// use kubegen_runtime::workqueue::{ItemExponentialFailureRateLimiter, QueueConfig};
///
/// let config = ControllerConfig::default()
///     .name("foo-controller")
///     .workers(4)
///     .queue(QueueConfig::default().metrics(NoopMetrics))
///     .rate_limiter(ItemExponentialFailureRateLimiter::new(
///         Duration::from_millis(10),
///         Duration::from_secs(60),
///     ))
///     .cache_sync_timeout(Duration::from_secs(30))
///     .metrics(NoopMetrics);
/// assert_eq!(config.controller_name(), "foo-controller");
/// assert_eq!(config.worker_count(), 4);
/// ```
#[derive(Clone)]
pub struct ControllerConfig {
    pub(super) name: String,
    pub(super) workers: usize,
    pub(super) queue: QueueConfig,
    pub(super) limiter: Arc<dyn RateLimiter<ObjectKey>>,
    pub(super) cache_sync_timeout: Duration,
    pub(super) informer_start_timeout: Duration,
    pub(super) reconcile_timeout: Option<Duration>,
    pub(super) stale_cache_guard: StaleCacheGuard,
    pub(super) metrics: Arc<dyn ControllerMetricsProvider>,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            name: DEFAULT_NAME.to_owned(),
            workers: 1,
            queue: QueueConfig::default(),
            limiter: Arc::new(default_controller_rate_limiter()),
            cache_sync_timeout: DEFAULT_CACHE_SYNC_TIMEOUT,
            informer_start_timeout: DEFAULT_INFORMER_START_TIMEOUT,
            reconcile_timeout: None,
            stale_cache_guard: StaleCacheGuard::default(),
            metrics: Arc::new(NoopMetrics),
        }
    }
}

impl fmt::Debug for ControllerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControllerConfig")
            .field("name", &self.name)
            .field("workers", &self.workers)
            .field("queue", &self.queue)
            .field("cache_sync_timeout", &self.cache_sync_timeout)
            .field("informer_start_timeout", &self.informer_start_timeout)
            .field("reconcile_timeout", &self.reconcile_timeout)
            .field("stale_cache_guard", &self.stale_cache_guard)
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

impl ControllerConfig {
    /// Names the controller: the `controller` field of its logs, the `controller` label
    /// of its metrics, and the name of its work queue unless [`queue`](Self::queue)
    /// gives one.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// How many keys are reconciled concurrently (never the same key twice); zero is
    /// taken as one.
    #[must_use]
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers.max(1);
        self
    }

    /// The work queue's configuration (name, metrics, clock). An unnamed queue takes
    /// the controller's name, so its metrics are reported (only named queues report).
    #[must_use]
    pub fn queue(mut self, queue: QueueConfig) -> Self {
        self.queue = queue;
        self
    }

    /// Paces the retries of failed and requeued keys.
    #[must_use]
    pub fn rate_limiter(mut self, limiter: impl RateLimiter<ObjectKey> + 'static) -> Self {
        self.limiter = Arc::new(limiter);
        self
    }

    /// How long [`run`](super::Controller::run) waits for the caches before it fails.
    #[must_use]
    pub fn cache_sync_timeout(mut self, timeout: Duration) -> Self {
        self.cache_sync_timeout = timeout;
        self
    }

    /// How long [`run`](super::Controller::run) lets an informer it waits for stay
    /// unstarted before it fails with
    /// [`Error::InformersNotStarted`](super::Error::InformersNotStarted), naming the
    /// informers, instead of waiting the whole [cache sync
    /// timeout](Self::cache_sync_timeout) (capped by it). An informer is started by
    /// `factory.start()` (or its own `start()`), usually just before the controller
    /// runs; this leaves room for a caller that starts it just after.
    #[must_use]
    pub fn informer_start_timeout(mut self, timeout: Duration) -> Self {
        self.informer_start_timeout = timeout;
        self
    }

    /// Drops a reconcile still running after `timeout` and retries its key with
    /// backoff, as an error (controller-runtime's `ReconciliationTimeout`): one stuck
    /// call (a peer that never answers) cannot hold a worker forever. Counted in
    /// `controller_runtime_reconcile_timeouts_total`. Dropping the reconcile's future
    /// cancels it at its current `.await`; work it spawned elsewhere goes on.
    #[must_use]
    pub fn reconcile_timeout(mut self, timeout: Duration) -> Self {
        self.reconcile_timeout = Some(timeout);
        self
    }

    /// The stale-cache guard (read-your-writes, client-go's KEP-5647): a key whose last
    /// reconcile wrote objects the controller's caches have not seen yet is put back in
    /// the queue, not reconciled, until they have or the guard's timeout passes. On by
    /// default; [`StaleCacheGuard::disabled`] turns it off. See
    /// [`StaleCacheGuard`] for how writes are observed and versions compared.
    #[must_use]
    pub fn stale_cache_guard(mut self, guard: StaleCacheGuard) -> Self {
        self.stale_cache_guard = guard;
        self
    }

    /// Reports reconcile metrics to `provider` (default: [`NoopMetrics`]).
    #[must_use]
    pub fn metrics(mut self, provider: impl ControllerMetricsProvider) -> Self {
        self.metrics = Arc::new(provider);
        self
    }

    /// The controller's name.
    pub fn controller_name(&self) -> &str {
        &self.name
    }

    /// How many workers the controller runs.
    pub fn worker_count(&self) -> usize {
        self.workers
    }
}
