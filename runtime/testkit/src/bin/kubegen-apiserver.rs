//! `kubegen-apiserver`: the kubegen testkit Kubernetes API server as a stand-alone
//! process, for kubectl and other clients. It writes a kubeconfig for itself and prints
//! its path as the first line of standard output (see `--help`).
//!
//! ```text
//! kubegen-apiserver --port 8001
//! KUBECONFIG=/tmp/kubegen-testkit-<pid>-8001/kubeconfig kubectl get namespaces
//! ```

use std::io::IsTerminal;
use std::time::Duration;

use clap::Parser;
use kubegen_testkit::ApiServer;
use tracing_subscriber::EnvFilter;

/// What `--help` says after the options: where the kubeconfig goes and how to use it.
const AFTER_HELP: &str = "\
Kubeconfig:
  On start, kubegen-apiserver writes a kubeconfig for itself to
  <temp>/kubegen-testkit-<pid>-<port>/kubeconfig, where <temp> is the system's
  temporary directory ($TMPDIR, or /tmp when it is unset), and prints that path as
  the first line of standard output. Its one context, kubegen-testkit, points at
  http://127.0.0.1:<port> (plain HTTP, no authentication) with namespace default.
  The file and its directory are removed when the server stops on Ctrl-C or SIGTERM.

Using it with kubectl:
  $ kubegen-apiserver --port 8001 &
  /tmp/kubegen-testkit-4242-8001/kubeconfig
  $ export KUBECONFIG=/tmp/kubegen-testkit-4242-8001/kubeconfig
  $ kubectl get namespaces
  (or: kubectl --kubeconfig /tmp/kubegen-testkit-4242-8001/kubeconfig get namespaces)

Logs go to standard error, filtered by RUST_LOG (default: info), in colour only
when standard error is a terminal.";

/// Serve the kubegen testkit Kubernetes API on 127.0.0.1, and write a kubeconfig for
/// kubectl and other clients.
#[derive(Debug, Parser)]
#[command(name = "kubegen-apiserver", version, after_help = AFTER_HELP)]
struct Args {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Events of history kept for watches; older resourceVersions get 410 Expired.
    #[arg(long, default_value_t = 10_000)]
    history_window: usize,
    /// Seconds between BOOKMARK events on watches that allow them.
    #[arg(long, default_value_t = 60)]
    bookmark_interval: u64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal: a log file or a pipe gets plain text.
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let args = Args::parse();
    let server = ApiServer::builder()
        .port(args.port)
        .history_window(args.history_window)
        .bookmark_interval(Duration::from_secs(args.bookmark_interval))
        .start()
        .await?;
    let kubeconfig = server.kubeconfig()?;
    tracing::info!(url = %server.url(), kubeconfig = %kubeconfig.display(), "serving");
    println!("{}", kubeconfig.display());
    shutdown_signal().await?;
    tracing::info!("shutting down");
    server.shutdown().await;
    Ok(())
}

/// Resolves on Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result,
            _ = terminate.recv() => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await
    }
}
