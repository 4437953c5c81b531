//! The election record: the part of a Lease's spec that the election reads and writes
//! (client-go's `LeaderElectionRecord`).

use k8s_openapi::api::coordination::v1::LeaseSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use std::time::Duration;

/// Who holds a Lease, for how long, and since when.
///
/// The timestamps are the writers' wall clocks: they are written for people and other
/// tools to read, never trusted by the election, which only notices that the record
/// changed (see [`Election`](super::state::Election)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LeaseRecord {
    /// `holderIdentity`; empty when nobody holds the Lease (never written or released).
    pub(crate) holder: String,
    /// `leaseDurationSeconds`.
    pub(crate) lease_duration_seconds: i32,
    /// `acquireTime`.
    pub(crate) acquire_time: Option<Timestamp>,
    /// `renewTime`.
    pub(crate) renew_time: Option<Timestamp>,
    /// `leaseTransitions`: how many times the Lease changed hands.
    pub(crate) transitions: i32,
}

impl LeaseRecord {
    /// The record in a Lease's spec (a missing spec reads as an empty record).
    pub(crate) fn from_spec(spec: Option<&LeaseSpec>) -> Self {
        let Some(spec) = spec else {
            return Self::default();
        };
        Self {
            holder: spec.holder_identity.clone().unwrap_or_default(),
            lease_duration_seconds: spec.lease_duration_seconds.unwrap_or_default(),
            acquire_time: spec.acquire_time.as_ref().map(|t| t.0),
            renew_time: spec.renew_time.as_ref().map(|t| t.0),
            transitions: spec.lease_transitions.unwrap_or_default(),
        }
    }

    /// Writes the record into `spec`, leaving the fields the election does not own
    /// (`preferredHolder`, `strategy`, ...) as they are.
    pub(crate) fn write_to(&self, spec: &mut LeaseSpec) {
        spec.holder_identity = Some(self.holder.clone()).filter(|h| !h.is_empty());
        spec.lease_duration_seconds = Some(self.lease_duration_seconds);
        spec.acquire_time = self.acquire_time.map(MicroTime);
        spec.renew_time = self.renew_time.map(MicroTime);
        spec.lease_transitions = Some(self.transitions);
    }

    /// The holder, or `None` when nobody holds the Lease.
    pub(crate) fn holder(&self) -> Option<&str> {
        Some(self.holder.as_str()).filter(|h| !h.is_empty())
    }

    /// How long after the record was last seen to change it may be taken over.
    pub(crate) fn lease_duration(&self) -> Duration {
        Duration::from_secs(u64::try_from(self.lease_duration_seconds).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_a_spec_and_keeps_foreign_fields() {
        let now = Timestamp::from_second(1_700_000_000).expect("timestamp");
        let record = LeaseRecord {
            holder: "a".into(),
            lease_duration_seconds: 15,
            acquire_time: Some(now),
            renew_time: Some(now),
            transitions: 3,
        };
        let mut spec = LeaseSpec::default();
        record.write_to(&mut spec);
        assert_eq!(LeaseRecord::from_spec(Some(&spec)), record);
        assert_eq!(spec.holder_identity.as_deref(), Some("a"));
    }

    #[test]
    fn released_and_missing_records_have_no_holder() {
        assert_eq!(LeaseRecord::from_spec(None).holder(), None);
        let released = LeaseRecord {
            lease_duration_seconds: 1,
            transitions: 4,
            ..LeaseRecord::default()
        };
        let mut spec = LeaseSpec::default();
        released.write_to(&mut spec);
        assert_eq!(spec.holder_identity, None);
        assert_eq!(LeaseRecord::from_spec(Some(&spec)).holder(), None);
        assert_eq!(released.lease_duration(), Duration::from_secs(1));
        let negative = LeaseRecord {
            lease_duration_seconds: -5,
            ..LeaseRecord::default()
        };
        assert_eq!(negative.lease_duration(), Duration::ZERO);
    }
}
