//! The election's state machine and driver on paused time, against a scripted store.

#![allow(clippy::unwrap_used)]

mod run;
mod scripted;
mod state;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;
use tokio::time::Instant;

use super::record::LeaseRecord;
use super::state::{Election, State};
use super::{LeaderElectionConfig, LeaderStatus};
use scripted::ScriptedLock;

const LEASE: Duration = Duration::from_secs(15);
const RENEW: Duration = Duration::from_secs(10);
const RETRY: Duration = Duration::from_secs(2);

fn config() -> LeaderElectionConfig {
    LeaderElectionConfig::default()
        .lease_name("test")
        .identity("me")
}

fn held_by(holder: &str, renew_time: Timestamp) -> LeaseRecord {
    LeaseRecord {
        holder: holder.into(),
        lease_duration_seconds: 15,
        acquire_time: Some(renew_time),
        renew_time: Some(renew_time),
        transitions: 3,
    }
}

fn election(lock: &ScriptedLock) -> (Election, watch::Receiver<LeaderStatus>) {
    let (status, rx) = watch::channel(LeaderStatus::default());
    (Election::new(Arc::new(lock.clone()), &config(), status), rx)
}

/// Steps until the state is not a candidate's; returns it and when it was reached.
async fn campaign(election: &mut Election, mut state: State) -> (State, Instant) {
    while let State::Candidate { .. } = state {
        state = election.step(state).await;
    }
    (state, Instant::now())
}
