//! Flags shared by the example binaries (flatten them into each binary's clap parser).

use std::path::PathBuf;

/// Where the example finds its cluster.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ClusterArgs {
    /// Kubeconfig file to use (default: `$KUBECONFIG`, then `~/.kube/config`, then the
    /// in-cluster service account; with none of them, an embedded API server).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context to use (default: the current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Run against an embedded API server even if a cluster is configured.
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    pub embedded: bool,
}

/// How the controller runs.
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// Number of workers processing the work queue concurrently.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: u16,
    /// On the embedded API server, keep running after the demo converged (until Ctrl-C).
    /// Against a real cluster the controller always runs until Ctrl-C.
    #[arg(long)]
    pub keep_running: bool,
}

impl Default for RunArgs {
    fn default() -> Self {
        Self {
            workers: 2,
            keep_running: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        cluster: ClusterArgs,
        #[command(flatten)]
        run: RunArgs,
    }

    #[test]
    fn defaults_and_flags() {
        let args = Args::parse_from(["x"]);
        assert_eq!(args.run.workers, 2);
        assert!(!args.run.keep_running && !args.cluster.embedded);
        let args = Args::parse_from([
            "x",
            "--workers",
            "4",
            "--kubeconfig",
            "/k",
            "--context",
            "c",
        ]);
        assert_eq!(args.run.workers, 4);
        assert_eq!(args.cluster.kubeconfig, Some(PathBuf::from("/k")));
        assert!(Args::try_parse_from(["x", "--workers", "0"]).is_err());
        assert!(Args::try_parse_from(["x", "--embedded", "--kubeconfig", "/k"]).is_err());
    }
}
