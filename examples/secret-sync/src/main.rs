//! `secret-sync`: copies the Secrets of a source namespace into every other namespace.
//! With no cluster configured it runs against an embedded API server with demo objects
//! until converged.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use kubegen::operator::{
    Cluster, ClusterArgs, ClusterSource, LeaderElectArgs, RunArgs, init_logging, shutdown_signal,
};
use kubegen::runtime::controller::ErrorChain;
use secret_sync::controller::Scope;
use secret_sync::demo::{self, DEMO_SOURCE};
use secret_sync::{App, Options};

/// Copies every Secret of a source namespace into every other namespace.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    election: LeaderElectArgs,
    /// The namespace whose Secrets are copied.
    #[arg(long, default_value = DEMO_SOURCE)]
    source_namespace: String,
    /// Namespaces never copied into (repeatable).
    #[arg(long = "exclude", value_name = "NAMESPACE", default_values = ["kube-system", "kube-public", "kube-node-lease"])]
    excluded: Vec<String>,
    /// Informer resync period in seconds (0 disables resync).
    #[arg(long, default_value_t = 30)]
    resync_seconds: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: failed to start the tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", ErrorChain(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let cluster = Cluster::connect(&args.cluster).await?;
    let client = cluster.client();
    if let ClusterSource::Embedded { url } = cluster.source() {
        println!("No cluster configured: started an embedded API server at {url}");
    }
    let mut scope = Scope::new(args.source_namespace.clone());
    scope.excluded = args.excluded.iter().cloned().collect();
    let options = Options {
        workers: usize::from(args.run.workers),
        resync: Duration::from_secs(args.resync_seconds),
        ..Options::new(scope)
    };
    let election = args.election.config(env!("CARGO_BIN_NAME"));
    let app = App::start(client.clone(), options, election)?;

    if cluster.is_embedded() {
        demo::seed(&client, &args.source_namespace).await?;
        println!(
            "Seeded namespaces {} (2 secrets), team-a and team-b",
            args.source_namespace
        );
        if args.run.keep_running {
            tokio::select! {
                () = shutdown_signal() => {}
                () = app.stopped() => {}
            }
        } else {
            tokio::select! {
                report = app.wait_converged() => print!("Converged:\n{report}"),
                () = shutdown_signal() => {}
                () = app.stopped() => {}
            }
        }
    } else {
        // Until SIGTERM or Ctrl-C, or until the controller stops by itself (a lost Lease: the
        // shutdown below returns why, and the process exits non-zero).
        tokio::select! {
            () = shutdown_signal() => {}
            () = app.stopped() => {}
        }
    }
    app.shutdown().await?;
    cluster.shutdown().await;
    Ok(())
}
