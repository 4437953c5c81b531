//! `pod-logger`: logs every add, update, resync and delete of Pods. With no cluster
//! configured it runs against an embedded API server, seeds and changes demo pods, and
//! exits once it has seen all of it and one resync round.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use kubegen::operator::{
    Cluster, ClusterArgs, ClusterSource, LeaderElectArgs, init_logging, run_main, shutdown_signal,
};
use kubegen::runtime::reflector::DEFAULT_BACKOFF;
use pod_logger::{Options, PodLogger, demo};

/// The minimal informer: logs Pod adds, updates, resyncs and deletes.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    election: LeaderElectArgs,
    /// Only pods of this namespace (default: all namespaces).
    #[arg(long, short)]
    namespace: Option<String>,
    /// Resync period in seconds (default: 30 on a cluster, 1 on the embedded server so
    /// the demo shows a resync round; 0 disables resync).
    #[arg(long)]
    resync_seconds: Option<u64>,
    /// On the embedded API server, keep running after the demo (until SIGTERM or Ctrl-C).
    #[arg(long)]
    keep_running: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logging();
    run_main(run(args))
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let cluster = Cluster::connect(&args.cluster).await?;
    let client = cluster.client();
    if let ClusterSource::Embedded { url } = cluster.source() {
        println!("No cluster configured: started an embedded API server at {url}");
    }
    let default_resync = if cluster.is_embedded() { 1 } else { 30 };
    let resync = Duration::from_secs(args.resync_seconds.unwrap_or(default_resync));
    let elector = args.election.elector(&client, env!("CARGO_BIN_NAME"))?;
    let logger = PodLogger::start(
        client.clone(),
        Options {
            namespace: args.namespace.clone(),
            resync,
            reflector_backoff: DEFAULT_BACKOFF,
        },
        elector,
    );
    logger.wait_for_sync().await;

    if cluster.is_embedded() && !args.keep_running {
        demo::seed(&client).await?;
        logger.wait_in_step(&client, 0).await?;
        demo::churn(&client).await?;
        let min_resyncs = if resync.is_zero() { 0 } else { 2 };
        tokio::select! {
            counts = logger.wait_in_step(&client, min_resyncs) => println!("In step with the server: {}", counts?),
            () = shutdown_signal() => {}
            () = logger.stopped() => {}
        }
    } else {
        if cluster.is_embedded() {
            demo::seed(&client).await?;
            demo::churn(&client).await?;
        }
        // Until SIGTERM or Ctrl-C, or until the reconcile loop stops by itself (a lost Lease: the
        // shutdown below returns why, and the process exits non-zero).
        tokio::select! {
            () = shutdown_signal() => {}
            () = logger.stopped() => {}
        }
    }
    logger.shutdown().await?;
    println!(
        "Logged {}; reconciled {} times",
        logger.counts(),
        logger.reconciles()
    );
    cluster.shutdown().await;
    Ok(())
}
