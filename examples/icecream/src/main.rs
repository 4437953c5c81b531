//! `icecream`: writes into every Icecream the nodes its pods are scheduled on. With no
//! cluster configured it runs against an embedded API server with demo objects until
//! converged.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use icecream::apis::icecream::v1::Icecream;
use icecream::{App, Options, demo};
use kubegen::operator::{
    Cluster, ClusterArgs, ClusterSource, LeaderElectArgs, RunArgs, init_logging, install_crds,
    shutdown_signal,
};
use kubegen::runtime::controller::ErrorChain;

/// Writes into every Icecream custom resource the nodes its pods run on.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    election: LeaderElectArgs,
    /// Informer resync period in seconds (0 disables resync).
    #[arg(long, default_value_t = 30)]
    resync_seconds: u64,
    /// Apply the Icecream CustomResourceDefinition to the cluster before starting (always
    /// done on the embedded API server).
    #[arg(long)]
    install_crd: bool,
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
    if cluster.is_embedded() || args.install_crd {
        install_crds(
            &client,
            &[Icecream::crd()],
            "icecream-controller",
            Duration::from_secs(30),
        )
        .await?;
    }
    let options = Options {
        workers: usize::from(args.run.workers),
        resync: Duration::from_secs(args.resync_seconds),
        ..Options::default()
    };
    let election = args.election.config(env!("CARGO_BIN_NAME"));
    let app = App::start(client.clone(), options, election)?;

    if cluster.is_embedded() {
        demo::seed(&client).await?;
        println!(
            "Seeded Icecreams vanilla and chocolate and 5 pods on nodes node-a, node-b, node-c in namespace default"
        );
        if args.run.keep_running {
            tokio::select! {
                () = shutdown_signal() => {}
                () = app.stopped() => {}
            }
        } else {
            let tour = async {
                let report = app.wait_converged().await;
                print!("Converged:\n{report}");
                let report =
                    demo::delete_and_clean_up(&app, &client, |line| println!("{line}")).await?;
                print!("Converged:\n{report}");
                Ok::<_, kubegen::runtime::error::Error>(())
            };
            tokio::select! {
                toured = tour => toured?,
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
