//! Metrics of [leader election](crate::leaderelection), modelled on client-go's
//! `leaderelection.MetricsProvider`.
//!
//! | event | call | client-go metric |
//! |---|---|---|
//! | an elector is created, starts or stops leading | [`leading`](LeaderElectionMetrics::leading) | `leader_election_master_status{name}` |

use std::fmt::Debug;
use std::sync::Arc;

use super::NoopMetrics;

/// What leader electors report. Every method has a default that does nothing.
pub trait LeaderElectionMetrics: Debug + Send + Sync {
    /// The elector of the Lease `name` now leads (`true`: its work is running) or not
    /// (`leader_election_master_status`, 1 or 0). Called with `false` when the elector is
    /// created, so a standby reports 0 from the start.
    fn leading(&self, name: &str, leading: bool) {
        let _ = (name, leading);
    }
}

// The runtime's one no-op provider serves this family too.
impl LeaderElectionMetrics for NoopMetrics {}

impl<M: LeaderElectionMetrics + ?Sized> LeaderElectionMetrics for Arc<M> {
    fn leading(&self, name: &str, leading: bool) {
        (**self).leading(name, leading);
    }
}
