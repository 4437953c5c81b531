//! The flags every operator takes: where its cluster is, how many workers, and leader
//! election. With the `cli` feature each struct derives `clap::Args`, to flatten into the
//! binary's parser; without it they are plain structs with a `Default`.

use std::path::PathBuf;
use std::time::Duration;

use kubegen_runtime::leaderelection::{self, LeaderElectionConfig, LeaderElector};

use super::ManagerOptions;

/// Where the operator finds its cluster ([`Cluster::connect`](super::Cluster::connect)).
///
/// Flags: `--kubeconfig PATH`, `--context NAME`, and with the `embedded` feature
/// `--embedded`.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
// This documentation is not the binary's `--help` text when it has none of its own.
#[cfg_attr(feature = "cli", command(about = None, long_about = None))]
pub struct ClusterArgs {
    /// Kubeconfig file to use (default: `$KUBECONFIG`, then `~/.kube/config`, then the
    /// in-cluster service account).
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH"))]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context to use (default: the current context).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub context: Option<String>,
    /// Run against an embedded API server even if a cluster is configured (one is
    /// started anyway when none is).
    #[cfg(feature = "embedded")]
    #[cfg_attr(feature = "cli", arg(long, conflicts_with_all = ["kubeconfig", "context"]))]
    pub embedded: bool,
}

/// How the controller runs.
///
/// Flags: `--workers N` (at least 1, default 2), `--resync-seconds S` (default 30) and
/// `--keep-running`.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
// This documentation is not the binary's `--help` text when it has none of its own.
#[cfg_attr(feature = "cli", command(about = None, long_about = None))]
pub struct RunArgs {
    /// Number of workers processing the work queue concurrently.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))
    )]
    pub workers: u16,
    /// Informer resync period in seconds (0 disables resync).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 30))]
    pub resync_seconds: u64,
    /// On the embedded API server, keep running after the demo converged (until Ctrl-C
    /// or SIGTERM). Against a real cluster the controller always runs until then.
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_running: bool,
}

impl Default for RunArgs {
    fn default() -> Self {
        Self {
            workers: 2,
            resync_seconds: 30,
            keep_running: false,
        }
    }
}

impl RunArgs {
    /// The [`ManagerOptions`] these flags set (`--workers`, `--resync-seconds`; the
    /// reflector backoff is the default), for [`Manager::options`](super::Manager::options).
    ///
    /// ```
    /// use std::time::Duration;
    /// use kubegen::operator::RunArgs;
    ///
    /// let args = RunArgs { workers: 4, resync_seconds: 0, ..RunArgs::default() };
    /// let options = args.manager_options();
    /// assert_eq!((options.workers, options.resync), (4, Duration::ZERO));
    /// ```
    pub fn manager_options(&self) -> ManagerOptions {
        ManagerOptions {
            workers: usize::from(self.workers),
            resync: Duration::from_secs(self.resync_seconds),
            ..ManagerOptions::default()
        }
    }
}

/// Leader election: run the controller on one replica at a time.
///
/// Without `--leader-elect` the controller runs at once. With it, each replica campaigns
/// for a `coordination.k8s.io/v1` Lease with client-go's timings (lease 15 s, renew
/// deadline 10 s, retry 2 s) and an identity of `$HOSTNAME_<random>`; only the holder
/// reconciles (every replica keeps its caches warm); a replica shutting down drains, then
/// releases the Lease so a standby takes over within about a retry period; a replica
/// that loses the Lease stops and exits non-zero, to be restarted as a fresh candidate.
///
/// Flags: `--leader-elect`, `--leader-elect-lease-name NAME`,
/// `--leader-elect-namespace NS`.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
// This documentation is not the binary's `--help` text when it has none of its own.
#[cfg_attr(feature = "cli", command(about = None, long_about = None))]
pub struct LeaderElectArgs {
    /// Run the controller only while this replica holds the leader election Lease (for
    /// running several replicas). Needs RBAC get, create and update on
    /// leases.coordination.k8s.io in the Lease's namespace.
    #[cfg_attr(feature = "cli", arg(long))]
    pub leader_elect: bool,
    /// Name of the Lease the replicas compete for (default: the controller's name).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "NAME", requires = "leader_elect")
    )]
    pub leader_elect_lease_name: Option<String>,
    /// Namespace of the Lease (default: the namespace the controller runs in: the pod's
    /// own namespace in a cluster, the kubeconfig context's namespace outside, `default`
    /// on the embedded API server).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "NS", requires = "leader_elect")
    )]
    pub leader_elect_namespace: Option<String>,
}

impl LeaderElectArgs {
    /// The election these flags ask for, for a controller named `default_lease_name`:
    /// `None` without `--leader-elect`. The Lease is released when the controller shuts
    /// down.
    ///
    /// ```
    /// use kubegen::operator::LeaderElectArgs;
    ///
    /// assert!(LeaderElectArgs::default().config("foo-controller").is_none());
    /// let args = LeaderElectArgs { leader_elect: true, ..Default::default() };
    /// assert_eq!(args.config("foo-controller").map(|c| c.name().to_owned()), Some("foo-controller".into()));
    /// ```
    pub fn config(&self, default_lease_name: &str) -> Option<LeaderElectionConfig> {
        if !self.leader_elect {
            return None;
        }
        let lease_name = self
            .leader_elect_lease_name
            .clone()
            .unwrap_or_else(|| default_lease_name.to_owned());
        let mut config = LeaderElectionConfig::default()
            .lease_name(lease_name)
            .release_on_cancel(true);
        if let Some(namespace) = &self.leader_elect_namespace {
            config = config.namespace(namespace.clone());
        }
        Some(config)
    }

    /// An elector for [`config`](Self::config) on `client` (whose default namespace is
    /// the Lease's unless `--leader-elect-namespace` says otherwise); `None` without
    /// `--leader-elect`.
    pub fn elector(
        &self,
        client: &kube::Client,
        default_lease_name: &str,
    ) -> Result<Option<LeaderElector>, leaderelection::Error> {
        self.config(default_lease_name)
            .map(|config| LeaderElector::new(client.clone(), config))
            .transpose()
    }
}

#[cfg(all(test, feature = "cli"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        cluster: ClusterArgs,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        election: LeaderElectArgs,
    }

    #[test]
    fn defaults_and_flags() {
        let args = Args::parse_from(["x"]);
        assert_eq!(args.run.workers, 2);
        assert_eq!(args.run.resync_seconds, 30);
        assert!(!args.run.keep_running);
        assert_eq!(args.run.manager_options(), ManagerOptions::default());
        let args = Args::parse_from([
            "x",
            "--workers",
            "4",
            "--kubeconfig",
            "/k",
            "--context",
            "c",
            "--resync-seconds",
            "0",
        ]);
        assert_eq!(args.run.workers, 4);
        assert_eq!(args.run.manager_options().resync, Duration::ZERO);
        assert_eq!(args.cluster.kubeconfig, Some(PathBuf::from("/k")));
        assert!(Args::try_parse_from(["x", "--workers", "0"]).is_err());
    }

    #[cfg(feature = "embedded")]
    #[test]
    fn embedded_excludes_a_kubeconfig() {
        assert!(!Args::parse_from(["x"]).cluster.embedded);
        assert!(Args::parse_from(["x", "--embedded"]).cluster.embedded);
        assert!(Args::try_parse_from(["x", "--embedded", "--kubeconfig", "/k"]).is_err());
        assert!(Args::try_parse_from(["x", "--embedded", "--context", "c"]).is_err());
    }

    /// A documented parser.
    #[derive(Parser)]
    struct Documented {
        #[command(flatten)]
        cluster: ClusterArgs,
    }

    #[test]
    fn the_flags_docs_are_not_the_binarys_help() {
        use clap::CommandFactory;

        let command = Args::command();
        assert_eq!(command.get_about(), None);
        assert_eq!(command.get_long_about(), None);
        let about = Documented::command().get_about().map(ToString::to_string);
        assert_eq!(about.as_deref(), Some("A documented parser"));
    }

    #[test]
    fn leader_election_flags() {
        let args = Args::parse_from(["x"]);
        assert!(!args.election.leader_elect);
        assert!(args.election.config("foo").is_none());

        let args = Args::parse_from(["x", "--leader-elect"]);
        let config = args.election.config("foo").unwrap();
        assert_eq!(config.name(), "foo");
        assert!(config.validate().is_ok());

        let args = Args::parse_from([
            "x",
            "--leader-elect",
            "--leader-elect-lease-name",
            "bar-lock",
            "--leader-elect-namespace",
            "operators",
        ]);
        assert_eq!(
            args.election.leader_elect_namespace.as_deref(),
            Some("operators")
        );
        assert_eq!(args.election.config("foo").unwrap().name(), "bar-lock");

        // The lease flags mean nothing without --leader-elect.
        assert!(Args::try_parse_from(["x", "--leader-elect-lease-name", "bar"]).is_err());
        assert!(Args::try_parse_from(["x", "--leader-elect-namespace", "ops"]).is_err());
    }
}
