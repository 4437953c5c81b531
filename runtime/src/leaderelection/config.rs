//! [`LeaderElectionConfig`]: which Lease, who we are, and client-go's three timings.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::{Error, Result};
use crate::metrics::NoopMetrics;
use crate::metrics::leaderelection::LeaderElectionMetrics;
use crate::workqueue::{Clock, TokioClock};

/// client-go's `JitterFactor`: a candidate waits between `retry_period` and
/// `(1 + JITTER_FACTOR) * retry_period` between two attempts, and the renew deadline must
/// exceed `JITTER_FACTOR * retry_period`.
pub const JITTER_FACTOR: f64 = 1.2;

/// Decides whether a candidate takes a vacant Lease now (see
/// [`LeaderElectionConfig::acquire_if`]).
pub type AcquireGate = Arc<dyn Fn(&Vacancy) -> bool + Send + Sync>;

/// A Lease this candidate could take: absent, released, or not renewed by its holder for
/// a lease duration (by this replica's clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vacancy {
    /// The holder whose Lease expired (it stopped renewing: dead, paused or cut off);
    /// `None` for an absent or released Lease.
    pub expired_holder: Option<String>,
    /// How long the Lease has been vacant as this candidate saw it: since the holder's
    /// lease duration ran out, or since it was first seen absent or released.
    pub vacant_for: Duration,
}

/// How a [`LeaderElector`](super::LeaderElector) campaigns: the Lease it competes for, its
/// identity, client-go's timings and what it does on shutdown.
///
/// The defaults are client-go's (and kube-controller-manager's): lease duration 15 s,
/// renew deadline 10 s, retry period 2 s, no release on cancel. Only the lease name has
/// no default.
///
/// ```
/// use std::time::Duration;
/// use kubegen_runtime::leaderelection::LeaderElectionConfig;
///
/// let config = LeaderElectionConfig::default()
///     .lease_name("foo-controller")
///     .namespace("kube-system")
///     .identity("foo-controller-7d9f-abcde")
///     .lease_duration(Duration::from_secs(30))
///     .renew_deadline(Duration::from_secs(20))
///     .retry_period(Duration::from_secs(4))
///     .release_on_cancel(true);
/// assert!(config.validate().is_ok());
/// assert!(config.retry_period(Duration::from_secs(17)).validate().is_err());
/// ```
#[derive(Clone)]
pub struct LeaderElectionConfig {
    pub(crate) lease_name: String,
    pub(crate) namespace: Option<String>,
    pub(crate) identity: String,
    pub(crate) lease_duration: Duration,
    pub(crate) renew_deadline: Duration,
    pub(crate) retry_period: Duration,
    pub(crate) release_on_cancel: bool,
    pub(crate) metrics: Arc<dyn LeaderElectionMetrics>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) acquire_if: Option<AcquireGate>,
}

impl Default for LeaderElectionConfig {
    fn default() -> Self {
        Self {
            lease_name: String::new(),
            namespace: None,
            identity: default_identity(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: false,
            metrics: Arc::new(NoopMetrics),
            clock: Arc::new(TokioClock),
            acquire_if: None,
        }
    }
}

impl fmt::Debug for LeaderElectionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElectionConfig")
            .field("lease_name", &self.lease_name)
            .field("namespace", &self.namespace)
            .field("identity", &self.identity)
            .field("lease_duration", &self.lease_duration)
            .field("renew_deadline", &self.renew_deadline)
            .field("retry_period", &self.retry_period)
            .field("release_on_cancel", &self.release_on_cancel)
            .field("acquire_if", &self.acquire_if.is_some())
            .finish_non_exhaustive()
    }
}

impl LeaderElectionConfig {
    /// The name of the `coordination.k8s.io/v1` Lease the replicas compete for (required;
    /// usually the controller's name). It is created on first use.
    pub fn lease_name(mut self, name: impl Into<String>) -> Self {
        self.lease_name = name.into();
        self
    }

    /// The Lease's namespace (default: the client's default namespace, which in a pod is
    /// the pod's own namespace).
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// This replica's identity, written as the Lease's `holderIdentity` (default: the
    /// `HOSTNAME` environment variable, which is the pod name in a pod, followed by `_`
    /// and a random suffix, so that a restarted process never mistakes itself for its
    /// predecessor). Every replica needs a different one.
    pub fn identity(mut self, identity: impl Into<String>) -> Self {
        self.identity = identity.into();
        self
    }

    /// How long candidates wait, after they last saw the Lease change, before they take it
    /// over (default 15 s). The Lease stores whole seconds: a fractional duration is
    /// written rounded up, and candidates wait for what the Lease says.
    pub fn lease_duration(mut self, duration: Duration) -> Self {
        self.lease_duration = duration;
        self
    }

    /// How long the leader keeps retrying a renewal before it steps down (default 10 s),
    /// counted from when it sent its last successful renewal. Must be shorter than the
    /// lease duration: the difference is the time the leader's work has to stop after
    /// being cancelled before another replica may take over.
    pub fn renew_deadline(mut self, deadline: Duration) -> Self {
        self.renew_deadline = deadline;
        self
    }

    /// The time between two attempts to acquire (jittered by [`JITTER_FACTOR`]) or to
    /// renew (default 2 s).
    pub fn retry_period(mut self, period: Duration) -> Self {
        self.retry_period = period;
        self
    }

    /// When leading ends, once the work has finished, release the Lease (clear its holder
    /// and shorten it to 1 s, as client-go does) so another replica takes over within
    /// about one retry period instead of a whole lease duration (default false).
    ///
    /// The release is a conditional write over the version this replica last wrote, so
    /// after a lost lease it only goes through if nobody else has written since.
    pub fn release_on_cancel(mut self, release: bool) -> Self {
        self.release_on_cancel = release;
        self
    }

    /// Reports whether this replica leads (`leader_election_master_status`) to `metrics`
    /// (default: [`NoopMetrics`]).
    pub fn metrics(mut self, metrics: impl LeaderElectionMetrics + 'static) -> Self {
        self.metrics = Arc::new(metrics);
        self
    }

    /// Takes a vacant Lease only when `gate` says so, asked at each attempt (default:
    /// always). A refused candidate keeps polling at the retry period; renewals are
    /// never gated. Sharded managers use it to keep a replica from taking more than its
    /// share of shards while their holders live.
    pub fn acquire_if(mut self, gate: impl Fn(&Vacancy) -> bool + Send + Sync + 'static) -> Self {
        self.acquire_if = Some(Arc::new(gate));
        self
    }

    /// Reads time from `clock` (default: [`TokioClock`], which honours paused Tokio time).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The Lease's name.
    pub fn name(&self) -> &str {
        &self.lease_name
    }

    /// The Lease's namespace, if set (`None`: the client's default namespace).
    pub fn lease_namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The lease duration.
    pub fn lease_duration_value(&self) -> Duration {
        self.lease_duration
    }

    /// This replica's identity.
    pub fn holder_identity(&self) -> &str {
        &self.identity
    }

    /// Checks client-go's rules: a lease name and an identity are set, every duration is
    /// positive, `lease_duration > renew_deadline > JITTER_FACTOR * retry_period`.
    pub fn validate(&self) -> Result<()> {
        let invalid = |reason: String| Err(Error::InvalidConfig { reason });
        if self.lease_name.is_empty() {
            return invalid("the lease name must be set".into());
        }
        if self.identity.is_empty() {
            return invalid("the identity must not be empty".into());
        }
        if self.retry_period.is_zero() {
            return invalid("the retry period must be greater than zero".into());
        }
        if self.lease_duration <= self.renew_deadline {
            return invalid(format!(
                "the lease duration ({:?}) must be greater than the renew deadline ({:?})",
                self.lease_duration, self.renew_deadline
            ));
        }
        if self.renew_deadline <= self.retry_period.mul_f64(JITTER_FACTOR) {
            return invalid(format!(
                "the renew deadline ({:?}) must be greater than the retry period ({:?}) times \
                 {JITTER_FACTOR}",
                self.renew_deadline, self.retry_period
            ));
        }
        if i32::try_from(self.lease_duration_seconds()).is_err() {
            return invalid(format!(
                "the lease duration ({:?}) does not fit the Lease's leaseDurationSeconds",
                self.lease_duration
            ));
        }
        Ok(())
    }

    /// The lease duration in whole seconds, rounded up (what the Lease records).
    pub(crate) fn lease_duration_seconds(&self) -> u64 {
        let secs = self.lease_duration.as_secs();
        if self.lease_duration.subsec_nanos() > 0 {
            secs.saturating_add(1)
        } else {
            secs
        }
    }
}

/// `$HOSTNAME_<16 random hex digits>`, or `kubegen_<...>` without a `HOSTNAME`.
fn default_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "kubegen".to_owned());
    format!("{host}_{:016x}", rand::random::<u64>())
}

/// `period` stretched by a random fraction up to `factor` of itself: a delay in
/// `[period, (1 + factor) * period)` (client-go's `wait.Jitter`).
///
/// A small local helper until the runtime has one shared backoff/jitter module.
pub(crate) fn jittered(period: Duration, factor: f64) -> Duration {
    period + period.mul_f64(factor * rand::random::<f64>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> LeaderElectionConfig {
        LeaderElectionConfig::default().lease_name("foo")
    }

    #[test]
    fn defaults_are_client_go_s() {
        let config = valid();
        assert_eq!(config.lease_duration, Duration::from_secs(15));
        assert_eq!(config.renew_deadline, Duration::from_secs(10));
        assert_eq!(config.retry_period, Duration::from_secs(2));
        assert!(!config.release_on_cancel);
        assert!(config.validate().is_ok());
    }

    #[test]
    fn validation_follows_client_go() {
        let reason = |config: LeaderElectionConfig| match config.validate() {
            Err(Error::InvalidConfig { reason }) => reason,
            other => panic!("expected an invalid config, got {other:?}"),
        };
        assert!(reason(LeaderElectionConfig::default()).contains("lease name"));
        assert!(reason(valid().identity("")).contains("identity"));
        assert!(reason(valid().retry_period(Duration::ZERO)).contains("retry period"));
        assert!(reason(valid().lease_duration(Duration::from_secs(10))).contains("lease duration"));
        // 10 s is not more than 1.2 * 8.5 s = 10.2 s; it is more than 1.2 * 8 s = 9.6 s.
        assert!(reason(valid().retry_period(Duration::from_millis(8500))).contains("times 1.2"));
        assert!(
            valid()
                .retry_period(Duration::from_secs(8))
                .validate()
                .is_ok()
        );
        assert!(
            reason(valid().lease_duration(Duration::from_secs(u64::MAX / 2)))
                .contains("leaseDurationSeconds")
        );
    }

    #[test]
    fn fractional_lease_durations_are_written_rounded_up() {
        let config = valid()
            .lease_duration(Duration::from_millis(1500))
            .renew_deadline(Duration::from_secs(1))
            .retry_period(Duration::from_millis(250));
        assert!(config.validate().is_ok());
        assert_eq!(config.lease_duration_seconds(), 2);
        assert_eq!(valid().lease_duration_seconds(), 15);
    }

    #[test]
    fn default_identities_are_unique_per_elector() {
        let (a, b) = (default_identity(), default_identity());
        assert_ne!(a, b);
        assert_eq!(a.rsplit_once('_').map(|(_, suffix)| suffix.len()), Some(16));
    }

    #[test]
    fn jitter_stays_within_the_factor() {
        let period = Duration::from_millis(100);
        for _ in 0..1000 {
            let d = jittered(period, JITTER_FACTOR);
            assert!(
                d >= period && d < period.mul_f64(1.0 + JITTER_FACTOR),
                "{d:?}"
            );
        }
    }
}
