//! Leader election over a `coordination.k8s.io/v1` Lease, with client-go's
//! `LeaderElector` semantics, so that replicas of a controller do their work one at a
//! time.
//!
//! Every replica runs a [`LeaderElector`] with its own identity against the same Lease.
//! One acquires it and runs the work; the others poll the Lease every retry period
//! (jittered) and take over once it has not changed for a whole lease duration *by their
//! own clock*: the timestamps in the Lease are written for people, never trusted, so clock
//! skew between nodes does not matter (client-go's rule). Every write is optimistic:
//! updates carry the resourceVersion last seen, so of two replicas racing for an expired
//! Lease one wins and the other sees a conflict, which is a lost race, not an error.
//!
//! The leader renews every retry period. If it cannot renew within the renew deadline
//! (counted from when it sent its last successful renewal), or it sees another holder, it
//! steps down: the work's [`CancellationToken`] is cancelled and the work is awaited
//! *before* [`LeaderElector::run`] reports that it stopped leading. Because the renew
//! deadline is shorter than the lease duration, the work has `lease_duration -
//! renew_deadline` (5 s by default) to stop before any other replica may acquire.
//!
//! On shutdown the leader cancels the work and keeps renewing until the work has
//! finished; with [`release_on_cancel`](LeaderElectionConfig::release_on_cancel) it then
//! releases the Lease (holder cleared, lease duration 1 s, as client-go does), and another
//! replica takes over within about one retry period instead of a lease duration.
//!
//! A candidate may be told when to take a vacant Lease
//! ([`acquire_if`](LeaderElectionConfig::acquire_if)): the gate sees whether the Lease's
//! holder stopped renewing or it was absent or released, and for how long; renewals are
//! never gated. Sharded managers keep replicas to their share of shards with it.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector, Outcome, StepDown};
//! use tokio_util::sync::CancellationToken;
//!
//! let config = LeaderElectionConfig::default()
//!     .lease_name("foo-controller")
//!     .namespace("kube-system")
//!     .release_on_cancel(true);
//! let mut elector = LeaderElector::new(client, config)?;
//!
//! // Who leads, as this replica sees it (client-go's OnNewLeader).
//! let mut status = elector.status();
//! tokio::spawn(async move {
//!     while status.changed().await.is_ok() {
//!         println!("leader: {:?}", status.borrow().leader);
//!     }
//! });
//!
//! let shutdown = CancellationToken::new(); // cancel it on SIGTERM
//! let outcome = elector
//!     .run(shutdown, |leading: CancellationToken| async move {
//!         // Started leading. Do the work until `leading` is cancelled.
//!         leading.cancelled().await;
//!     })
//!     .await;
//! if let Outcome::Led { reason: StepDown::LeaseLost, .. } = outcome {
//!     // Stopped leading without being asked to: exit, as client-go's users do.
//!     std::process::exit(1);
//! }
//! # Ok(()) }
//! ```

mod config;
mod lock;
mod record;
mod state;
#[cfg(test)]
mod tests;

use std::future::Future;
use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use config::{AcquireGate, JITTER_FACTOR, LeaderElectionConfig, Vacancy};
use lock::{KubeLeaseLock, LeaseLock};
use state::{Election, State};

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of leader election. Only [`Error::InvalidConfig`] reaches callers; the others
/// describe failed attempts, which the elector logs and retries.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration breaks one of client-go's rules.
    #[error("invalid leader election config: {reason}")]
    InvalidConfig {
        /// Which rule.
        reason: String,
    },
    /// Another replica wrote the Lease first (409 Conflict or AlreadyExists): a lost race.
    #[error("lease {lease} was written by another replica first")]
    Conflict {
        /// `namespace/name` of the Lease.
        lease: String,
    },
    /// A call to the API server failed.
    #[error("failed to {action} lease {lease}")]
    Api {
        /// `get`, `create` or `update`.
        action: &'static str,
        /// `namespace/name` of the Lease.
        lease: String,
        /// What kube reported.
        #[source]
        source: kube::Error,
    },
    /// An attempt did not finish before its deadline.
    #[error("timed out acquiring or renewing lease {lease}")]
    Timeout {
        /// `namespace/name` of the Lease.
        lease: String,
    },
    /// The server returned a Lease without a resourceVersion, so it cannot be written
    /// conditionally.
    #[error("lease {lease} has no resourceVersion")]
    MissingResourceVersion {
        /// `namespace/name` of the Lease.
        lease: String,
    },
}

/// The election as one replica sees it; read it with [`LeaderElector::status`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderStatus {
    /// The holder of the Lease as last observed (`None` before the first read, or while
    /// the Lease is released). Each change is client-go's "new leader observed".
    pub leader: Option<String>,
    /// Whether this replica is leading: true from just before its work starts until just
    /// after its work has finished.
    pub leading: bool,
}

/// Why a replica stopped leading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepDown {
    /// `shutdown` was cancelled.
    Shutdown,
    /// The work returned by itself.
    WorkReturned,
    /// The Lease could not be renewed within the renew deadline, or another replica
    /// holds it. client-go's users exit the process here.
    LeaseLost,
}

/// How [`LeaderElector::run`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// `shutdown` was cancelled before this replica acquired the Lease: the work never
    /// started.
    NeverLed,
    /// This replica led, and its work ran to completion.
    Led {
        /// What the work returned.
        output: T,
        /// Why leading ended.
        reason: StepDown,
    },
}

/// Runs work on one replica at a time: client-go's `LeaderElector` over a Lease.
///
/// See the [module documentation](self) for the protocol and an example.
pub struct LeaderElector {
    config: LeaderElectionConfig,
    lock: Arc<dyn LeaseLock>,
    status: watch::Sender<LeaderStatus>,
}

impl std::fmt::Debug for LeaderElector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaderElector")
            .field("lease", &self.lock.describe())
            .field("identity", &self.config.identity)
            .field("status", &*self.status.borrow())
            .finish()
    }
}

impl LeaderElector {
    /// An elector for the Lease named in `config`, in the configured namespace or the
    /// client's default one. Fails if `config` breaks client-go's rules (see
    /// [`LeaderElectionConfig::validate`]); talks to no server until [`run`](Self::run).
    pub fn new(client: kube::Client, config: LeaderElectionConfig) -> Result<Self> {
        let namespace = config
            .namespace
            .clone()
            .unwrap_or_else(|| client.default_namespace().to_owned());
        let lock = KubeLeaseLock::new(client, &namespace, &config.lease_name);
        Self::with_lock(Arc::new(lock), config)
    }

    pub(crate) fn with_lock(
        lock: Arc<dyn LeaseLock>,
        config: LeaderElectionConfig,
    ) -> Result<Self> {
        config.validate()?;
        config.metrics.leading(&config.lease_name, false);
        Ok(Self {
            config,
            lock,
            status: watch::Sender::new(LeaderStatus::default()),
        })
    }

    /// This replica's identity (the Lease's `holderIdentity` while it leads).
    pub fn identity(&self) -> &str {
        &self.config.identity
    }

    /// The election as this replica sees it, updated as it changes: who holds the Lease
    /// and whether this replica leads. Await `changed()` on the receiver to be told of
    /// every new leader.
    pub fn status(&self) -> watch::Receiver<LeaderStatus> {
        self.status.subscribe()
    }

    /// Campaigns for the Lease until it is acquired or `shutdown` is cancelled; once
    /// acquired, runs `work` with a token that is cancelled when this replica must stop
    /// (shutdown, or leadership lost), and returns once the work has finished.
    ///
    /// While the work runs the Lease is renewed, also after shutdown was requested, so
    /// the work can drain under the Lease. The Lease is released at the end (with
    /// `release_on_cancel`) only after the work has finished. A run leads at most once,
    /// as client-go's does; call `run` again to campaign again (a controller usually
    /// exits instead when it returns [`StepDown::LeaseLost`]).
    ///
    /// Dropping the returned future drops the work with it, without releasing the Lease:
    /// the other replicas take over once it expires.
    pub async fn run<F, Fut>(
        &mut self,
        shutdown: CancellationToken,
        work: F,
    ) -> Outcome<Fut::Output>
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future,
    {
        let mut election = Election::new(self.lock.clone(), &self.config, self.status.clone());
        let mut state = election.start();
        while !matches!(state, State::Leader { .. }) {
            tokio::select! {
                biased;
                () = shutdown.cancelled() => return Outcome::NeverLed,
                next = election.step(state) => state = next,
            }
        }

        self.set_leading(true);
        let leading = shutdown.child_token();
        let work = work(leading.clone());
        tokio::pin!(work);
        let mut finished = None;
        let reason_now = || {
            if shutdown.is_cancelled() {
                StepDown::Shutdown
            } else {
                StepDown::WorkReturned
            }
        };
        // Renew until the work has finished or the Lease is lost. Waits between attempts
        // end early when the work finishes; attempts themselves always run to their end.
        while finished.is_none() {
            let Some(wake) = state.wake_at(self.config.renew_deadline) else {
                break;
            };
            tokio::select! {
                biased;
                output = &mut work => {
                    finished = Some((output, reason_now()));
                    continue;
                }
                () = self.config.clock.sleep_until(wake) => {}
            }
            let step = election.step(state);
            tokio::pin!(step);
            state = loop {
                tokio::select! {
                    biased;
                    next = &mut step => break next,
                    output = &mut work, if finished.is_none() => finished = Some((output, reason_now())),
                }
            };
        }
        let (output, reason) = match finished {
            Some(finished) => finished,
            None => {
                leading.cancel();
                (self.drain(work).await, StepDown::LeaseLost)
            }
        };
        // The work has finished: this replica no longer leads, and says so before the
        // release lets another replica take over (otherwise two would report leading).
        self.set_leading(false);
        if self.config.release_on_cancel {
            election.release().await;
        }
        Outcome::Led { output, reason }
    }

    /// Awaits work that was just cancelled after the Lease was lost, warning once when it
    /// outlives the margin the timings give it.
    async fn drain<Fut: Future>(&self, mut work: std::pin::Pin<&mut Fut>) -> Fut::Output {
        let margin = self.config.lease_duration - self.config.renew_deadline;
        let warn_at = self.config.clock.now() + margin;
        tokio::select! {
            biased;
            output = &mut work => return output,
            () = self.config.clock.sleep_until(warn_at) => {}
        }
        tracing::warn!(
            lease = %self.lock.describe(),
            identity = %self.config.identity,
            "the work has not stopped {margin:?} after leadership was lost: another replica may be leading already"
        );
        work.await
    }

    fn set_leading(&self, leading: bool) {
        self.config
            .metrics
            .leading(&self.config.lease_name, leading);
        self.status.send_if_modified(|status| {
            let changed = status.leading != leading;
            status.leading = leading;
            changed
        });
        if leading {
            tracing::info!(lease = %self.lock.describe(), identity = %self.config.identity, "started leading");
        } else {
            tracing::info!(lease = %self.lock.describe(), identity = %self.config.identity, "stopped leading");
        }
    }
}
