//! Leader election metrics in Prometheus, with client-go's name.

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::metrics::leaderelection::LeaderElectionMetrics;

/// The `name` label: the Lease's name.
type Labels = [(&'static str, String); 1];

/// `leader_election_master_status{name}`: 1 while this process leads the Lease `name`,
/// 0 while it stands by (client-go's gauge and help text).
///
/// ```
/// use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector};
/// use kubegen_runtime::metrics::prometheus::PrometheusLeaderElectionMetrics;
/// use prometheus_client::registry::Registry;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut registry = Registry::default();
/// let metrics = PrometheusLeaderElectionMetrics::register(&mut registry);
/// let client = kube::Client::try_from(kube::Config::new("http://127.0.0.1:6443".parse()?))?;
/// let config = LeaderElectionConfig::default().lease_name("foo-controller").metrics(metrics);
/// let _elector = LeaderElector::new(client, config)?;
///
/// // A replica reports 0 (standby) from the moment its elector exists.
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// assert!(text.contains(r#"leader_election_master_status{name="foo-controller"} 0"#));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct PrometheusLeaderElectionMetrics {
    master_status: Family<Labels, Gauge>,
}

impl PrometheusLeaderElectionMetrics {
    /// Registers `leader_election_master_status` in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let master_status = Family::<Labels, Gauge>::default();
        registry.register(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates \
             backup, 1 indicates master. 'name' is the string used to identify the lease. \
             Please make sure to group by name.",
            master_status.clone(),
        );
        Self { master_status }
    }
}

impl LeaderElectionMetrics for PrometheusLeaderElectionMetrics {
    fn leading(&self, name: &str, leading: bool) {
        self.master_status
            .get_or_create(&[("name", name.to_owned())])
            .set(i64::from(leading));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn master_status_follows_leading_per_lease() {
        let mut registry = Registry::default();
        let metrics = PrometheusLeaderElectionMetrics::register(&mut registry);
        metrics.leading("a", false);
        metrics.leading("b", false);
        metrics.leading("a", true);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains("# TYPE leader_election_master_status gauge"),
            "{text}"
        );
        assert!(
            text.contains(r#"leader_election_master_status{name="a"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"leader_election_master_status{name="b"} 0"#),
            "{text}"
        );
        metrics.leading("a", false);
        text.clear();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains(r#"leader_election_master_status{name="a"} 0"#),
            "{text}"
        );
    }
}
