//! `secret-sync`: copies the Secrets of a source namespace into every other namespace.
//! With no cluster configured it runs against an embedded API server with demo objects
//! until converged.

use std::process::ExitCode;

use clap::Parser;
use kubegen::operator::{
    Cluster, ClusterArgs, ClusterSource, LeaderElectArgs, RunArgs, init_logging, run_main,
};
use secret_sync::App;
use secret_sync::controller::Scope;
use secret_sync::demo::{self, DEMO_SOURCE};

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
    let mut scope = Scope::new(args.source_namespace.clone());
    scope.excluded = args.excluded.iter().cloned().collect();
    let election = args.election.config(env!("CARGO_BIN_NAME"));
    let app = App::start(client.clone(), scope, args.run.manager_options(), election)?;
    let running = app.running();

    // Until SIGTERM or Ctrl-C, or until the controller stops by itself (a lost Lease: the
    // shutdown below returns why, and the process exits non-zero); on the embedded API
    // server, until the demo converged unless --keep-running.
    if cluster.is_embedded() {
        demo::seed(&client, &args.source_namespace).await?;
        println!(
            "Seeded namespaces {} (2 secrets), team-a and team-b",
            args.source_namespace
        );
    }
    if cluster.is_embedded() && !args.run.keep_running {
        if let Some(report) = running.until_shutdown(app.wait_converged()).await {
            print!("Converged:\n{report}");
        }
    } else {
        running.until_shutdown(std::future::pending::<()>()).await;
    }
    app.shutdown().await?;
    cluster.shutdown().await;
    Ok(())
}
