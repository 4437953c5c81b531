//! `kubegen-apiserver`: the kubegen testkit Kubernetes API server as a stand-alone
//! process, for kubectl and other clients.
//!
//! ```text
//! kubegen-apiserver --port 8001
//! KUBECONFIG=$(printed path) kubectl get namespaces
//! ```

use std::time::Duration;

use clap::Parser;
use kubegen_testkit::ApiServer;
use tracing_subscriber::EnvFilter;

/// Serve the kubegen testkit Kubernetes API on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(name = "kubegen-apiserver", version, about)]
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
