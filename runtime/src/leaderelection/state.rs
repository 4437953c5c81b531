//! The election as a state machine: [`State`] plus [`Election::step`], on an injected
//! [`Clock`].
//!
//! One step waits for the state's next moment, then makes one attempt to acquire or
//! renew the Lease (client-go's `tryAcquireOrRenew`), bounded in time, and returns the
//! next state. Leadership of others is judged by the local clock from when the record was
//! last seen to change (`observed.at`), never by the timestamps in the record.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;
use tokio::time::Instant;

use super::config::{AcquireGate, JITTER_FACTOR, LeaderElectionConfig, Vacancy, jittered};
use super::lock::{LeaseLock, Versioned};
use super::record::LeaseRecord;
use super::{Error, LeaderStatus};
use crate::workqueue::Clock;

/// Where an election is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Not leading: try to acquire at `at`.
    Candidate {
        /// When to try next.
        at: Instant,
    },
    /// Leading. `renewed` is when the last successful write was sent: the leader steps
    /// down if it cannot renew by `renewed + renew_deadline`.
    Leader {
        /// When the last successful acquisition or renewal was sent.
        renewed: Instant,
        /// When to renew next.
        at: Instant,
    },
    /// The leader could not renew by its deadline, or saw another holder: it must stop.
    Lost,
}

impl State {
    /// When the next step makes its attempt (`None` for [`State::Lost`], which has none).
    pub(crate) fn wake_at(&self, renew_deadline: Duration) -> Option<Instant> {
        match *self {
            State::Candidate { at } => Some(at),
            State::Leader { renewed, at } => Some(at.min(renewed + renew_deadline)),
            State::Lost => None,
        }
    }
}

/// The record as last observed, and when this replica saw it change.
#[derive(Clone, Debug)]
pub(crate) struct Observed {
    /// The record.
    pub(crate) record: LeaseRecord,
    /// Its version, for the next conditional write.
    pub(crate) version: String,
    /// When this replica (by its own clock) first saw this record.
    pub(crate) at: Instant,
}

/// The outcome of one attempt.
#[derive(Debug)]
enum Attempt {
    /// The write went through: this replica holds the Lease.
    Holding,
    /// Another replica holds the Lease and it has not expired by this replica's clock.
    Held {
        /// The holder.
        by: String,
        /// When the Lease expires unless it changes again.
        until: Instant,
    },
    /// The Lease is vacant but the acquire gate said not yet.
    Deferred,
    /// The attempt failed (API error, lost race, timeout): try again later.
    Failed(Error),
}

/// One replica's view of an election and the means to act on it.
pub(crate) struct Election {
    lock: Arc<dyn LeaseLock>,
    clock: Arc<dyn Clock>,
    identity: String,
    lease_duration_seconds: i32,
    renew_deadline: Duration,
    retry_period: Duration,
    observed: Option<Observed>,
    /// When this replica first found the Lease absent, while it stays so.
    absent_since: Option<Instant>,
    acquire_if: Option<AcquireGate>,
    status: watch::Sender<LeaderStatus>,
}

impl Election {
    /// A fresh view: nothing observed yet. `config` must be valid.
    pub(crate) fn new(
        lock: Arc<dyn LeaseLock>,
        config: &LeaderElectionConfig,
        status: watch::Sender<LeaderStatus>,
    ) -> Self {
        Self {
            lock,
            clock: config.clock.clone(),
            identity: config.identity.clone(),
            lease_duration_seconds: i32::try_from(config.lease_duration_seconds())
                .unwrap_or(i32::MAX),
            renew_deadline: config.renew_deadline,
            retry_period: config.retry_period,
            observed: None,
            absent_since: None,
            acquire_if: config.acquire_if.clone(),
            status,
        }
    }

    /// The record as last observed, if any.
    #[cfg(test)]
    pub(crate) fn observed(&self) -> Option<&Observed> {
        self.observed.as_ref()
    }

    /// Whether the last observed record names this replica as holder.
    pub(crate) fn is_leader(&self) -> bool {
        self.observed
            .as_ref()
            .is_some_and(|o| o.record.holder == self.identity)
    }

    /// The state to start from: a candidate trying now.
    pub(crate) fn start(&self) -> State {
        State::Candidate {
            at: self.clock.now(),
        }
    }

    /// Waits until the state's moment, then makes one attempt and returns the next state.
    pub(crate) async fn step(&mut self, state: State) -> State {
        match state {
            State::Candidate { at } => {
                self.clock.sleep_until(at).await;
                self.campaign().await
            }
            State::Leader { renewed, at } => {
                let deadline = renewed + self.renew_deadline;
                self.clock.sleep_until(at.min(deadline)).await;
                self.renew(renewed, deadline).await
            }
            State::Lost => State::Lost,
        }
    }

    async fn campaign(&mut self) -> State {
        let started = self.clock.now();
        let (clock, lease) = (self.clock.clone(), self.lock.describe());
        let attempt = within(
            &*clock,
            started + self.renew_deadline,
            self.try_acquire_or_renew(started),
            || Attempt::Failed(Error::Timeout { lease }),
        )
        .await;
        let now = self.clock.now();
        let retry = now + jittered(self.retry_period, JITTER_FACTOR);
        match attempt {
            Attempt::Holding => {
                tracing::info!(lease = %self.lock.describe(), identity = %self.identity, "acquired the lease");
                State::Leader {
                    renewed: started,
                    at: now + self.retry_period,
                }
            }
            Attempt::Held { by, until } => {
                tracing::debug!(lease = %self.lock.describe(), holder = %by, "the lease is held and has not expired");
                // Try again at the usual jittered pace, or right when the lease expires.
                State::Candidate {
                    at: retry.min(until),
                }
            }
            Attempt::Deferred => {
                tracing::debug!(lease = %self.lock.describe(), "the lease is vacant; not taking it yet");
                State::Candidate { at: retry }
            }
            Attempt::Failed(error) => {
                if matches!(error, Error::Conflict { .. }) {
                    tracing::debug!(lease = %self.lock.describe(), "lost a race for the lease");
                } else {
                    tracing::warn!(lease = %self.lock.describe(), error = %ErrorChain(&error), "failed to acquire the lease");
                }
                State::Candidate { at: retry }
            }
        }
    }

    async fn renew(&mut self, renewed: Instant, deadline: Instant) -> State {
        let started = self.clock.now();
        if started >= deadline {
            tracing::info!(lease = %self.lock.describe(), identity = %self.identity, "failed to renew the lease within the renew deadline: stepping down");
            return State::Lost;
        }
        let (clock, lease) = (self.clock.clone(), self.lock.describe());
        let attempt = within(
            &*clock,
            deadline,
            self.try_acquire_or_renew(started),
            || Attempt::Failed(Error::Timeout { lease }),
        )
        .await;
        let now = self.clock.now();
        match attempt {
            Attempt::Holding => State::Leader {
                renewed: started,
                at: now + self.retry_period,
            },
            Attempt::Deferred => {
                // The record no longer names this replica and nobody live holds it: the
                // lease was lost in between.
                tracing::info!(lease = %self.lock.describe(), identity = %self.identity, "the lease no longer names this replica: stepping down");
                State::Lost
            }
            Attempt::Held { by, .. } => {
                // client-go keeps retrying until the deadline; a leader that knows another
                // replica holds the lease has nothing left to wait for.
                tracing::info!(lease = %self.lock.describe(), holder = %by, "another replica holds the lease: stepping down");
                State::Lost
            }
            Attempt::Failed(error) => {
                tracing::warn!(lease = %self.lock.describe(), error = %ErrorChain(&error), "failed to renew the lease");
                if now >= deadline {
                    tracing::info!(lease = %self.lock.describe(), identity = %self.identity, "failed to renew the lease within the renew deadline: stepping down");
                    State::Lost
                } else {
                    State::Leader {
                        renewed,
                        at: (now + self.retry_period).min(deadline),
                    }
                }
            }
        }
    }

    /// Releases the Lease if the last observed record names this replica: clears the
    /// holder and shortens the lease to 1 s (client-go's `release`), conditionally on the
    /// version last written, so a Lease another replica has taken is never touched.
    /// Returns whether the Lease is now free of this replica.
    pub(crate) async fn release(&mut self) -> bool {
        let Some(observed) = self.observed.clone().filter(|_| self.is_leader()) else {
            return true;
        };
        let now = Timestamp::now();
        let record = LeaseRecord {
            holder: String::new(),
            lease_duration_seconds: 1,
            acquire_time: Some(now),
            renew_time: Some(now),
            transitions: observed.record.transitions,
        };
        let deadline = self.clock.now() + self.renew_deadline;
        let lease = self.lock.describe();
        let write = self.lock.update(record.clone(), observed.version);
        match within(&*self.clock, deadline, write, || {
            Err(Error::Timeout { lease })
        })
        .await
        {
            Ok(version) => {
                tracing::info!(lease = %self.lock.describe(), identity = %self.identity, "released the lease");
                self.wrote(record, version);
                true
            }
            Err(error) => {
                tracing::warn!(lease = %self.lock.describe(), error = %ErrorChain(&error), "failed to release the lease");
                false
            }
        }
    }

    /// client-go's `tryAcquireOrRenew`: renew optimistically when leading, otherwise read
    /// the record, and write it (create or conditional update) only if it is free, expired
    /// by this replica's clock, or already ours.
    async fn try_acquire_or_renew(&mut self, started: Instant) -> Attempt {
        let now = Timestamp::now();
        // Fast path: the leader writes over the version it last wrote.
        if let Some(observed) = self.observed.clone().filter(|_| self.is_leader()) {
            let record = LeaseRecord {
                holder: self.identity.clone(),
                lease_duration_seconds: self.lease_duration_seconds,
                acquire_time: observed.record.acquire_time,
                renew_time: Some(now),
                transitions: observed.record.transitions,
            };
            match self.lock.update(record.clone(), observed.version).await {
                Ok(version) => {
                    self.wrote(record, version);
                    return Attempt::Holding;
                }
                Err(error) => {
                    tracing::debug!(lease = %self.lock.describe(), error = %ErrorChain(&error), "optimistic renewal failed: reading the lease");
                }
            }
        }
        // Slow path: read, judge, write.
        let current = match self.lock.get().await {
            Ok(current) => current,
            Err(error) => return Attempt::Failed(error),
        };
        let Some(current) = current else {
            let since = *self.absent_since.get_or_insert(started);
            let vacancy = Vacancy {
                expired_holder: None,
                vacant_for: started.saturating_duration_since(since),
            };
            if !self.may_acquire(&vacancy) {
                return Attempt::Deferred;
            }
            let record = LeaseRecord {
                holder: self.identity.clone(),
                lease_duration_seconds: self.lease_duration_seconds,
                acquire_time: Some(now),
                renew_time: Some(now),
                transitions: 0,
            };
            return match self.lock.create(record.clone()).await {
                Ok(version) => {
                    self.wrote(record, version);
                    Attempt::Holding
                }
                Err(error) => Attempt::Failed(error),
            };
        };
        self.absent_since = None;
        let observed = self.observe(current);
        let leading = self.is_leader();
        if let Some(holder) = observed.record.holder().filter(|_| !leading) {
            let until = observed.at + observed.record.lease_duration();
            if until > started {
                return Attempt::Held {
                    by: holder.to_owned(),
                    until,
                };
            }
        }
        if !leading {
            let holder = observed.record.holder().map(str::to_owned);
            let vacant_since = match holder {
                Some(_) => observed.at + observed.record.lease_duration(),
                None => observed.at,
            };
            let vacancy = Vacancy {
                expired_holder: holder,
                vacant_for: started.saturating_duration_since(vacant_since),
            };
            if !self.may_acquire(&vacancy) {
                return Attempt::Deferred;
            }
        }
        let record = if leading {
            LeaseRecord {
                holder: self.identity.clone(),
                lease_duration_seconds: self.lease_duration_seconds,
                acquire_time: observed.record.acquire_time,
                renew_time: Some(now),
                transitions: observed.record.transitions,
            }
        } else {
            LeaseRecord {
                holder: self.identity.clone(),
                lease_duration_seconds: self.lease_duration_seconds,
                acquire_time: Some(now),
                renew_time: Some(now),
                transitions: observed.record.transitions.saturating_add(1),
            }
        };
        match self.lock.update(record.clone(), observed.version).await {
            Ok(version) => {
                self.wrote(record, version);
                Attempt::Holding
            }
            Err(error) => Attempt::Failed(error),
        }
    }

    /// Whether the acquire gate, if any, lets this candidate take the vacant Lease.
    fn may_acquire(&self, vacancy: &Vacancy) -> bool {
        self.acquire_if.as_ref().is_none_or(|gate| gate(vacancy))
    }

    /// Takes in a record read from the store: its time of observation moves only when
    /// the record differs from the one observed before.
    fn observe(&mut self, current: Versioned) -> Observed {
        match &mut self.observed {
            Some(observed) if observed.record == current.record => {
                observed.version = current.version;
                observed.clone()
            }
            _ => {
                let observed = Observed {
                    record: current.record,
                    version: current.version,
                    at: self.clock.now(),
                };
                self.observed = Some(observed.clone());
                self.report();
                observed
            }
        }
    }

    /// Records a successful write of this replica.
    fn wrote(&mut self, record: LeaseRecord, version: String) {
        self.observed = Some(Observed {
            record,
            version,
            at: self.clock.now(),
        });
        self.report();
    }

    /// Publishes the observed holder (client-go's `maybeReportTransition`).
    fn report(&self) {
        let leader = self
            .observed
            .as_ref()
            .and_then(|o| o.record.holder())
            .map(str::to_owned);
        self.status.send_if_modified(|status| {
            let changed = status.leader != leader;
            if changed {
                if let Some(leader) = &leader {
                    tracing::info!(lease = %self.lock.describe(), %leader, "new leader observed");
                }
                status.leader = leader;
            }
            changed
        });
    }
}

/// Runs `attempt`; at `deadline` drops it and returns `timed_out()` instead.
async fn within<T>(
    clock: &dyn Clock,
    deadline: Instant,
    attempt: impl Future<Output = T>,
    timed_out: impl FnOnce() -> T,
) -> T {
    let timeout = clock.sleep_until(deadline);
    tokio::select! {
        biased;
        result = attempt => result,
        () = timeout => timed_out(),
    }
}

/// Displays an error with its sources, `a: b: c`, for one-line logs.
pub(crate) struct ErrorChain<'a>(pub(crate) &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(error) = source {
            write!(f, ": {error}")?;
            source = error.source();
        }
        Ok(())
    }
}
