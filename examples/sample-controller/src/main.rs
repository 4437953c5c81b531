//! `sample-controller`: runs the Foo controller against the configured cluster, or, with
//! none configured, against an embedded API server with demo objects until converged.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use kubegen::operator::{ClusterSource, rbac_manifest};
use kubegen::prelude::*;
use sample_controller::apis::samplecontroller::v1alpha1::Foo;
use sample_controller::demo::{self, DeploymentStandIn};
use sample_controller::sharding::{self, ShardingOptions};
use sample_controller::{App, Options, failover};

/// client-go's sample-controller in Rust: every Foo gets the Deployment it asks for.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    election: LeaderElectArgs,
    /// Apply the Foo CustomResourceDefinition to the cluster before starting (always
    /// done on the embedded API server).
    #[arg(long)]
    install_crd: bool,
    /// The failover demo, on the embedded API server: run this many replicas of the
    /// controller in this process under leader election, stop the leader, show the
    /// takeover and the converged state, and exit. Against a cluster, run one process
    /// per replica with --leader-elect instead.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    replicas: u16,
    /// Print the ClusterRole the controller needs (and with --leader-elect the Role for
    /// its Lease) as YAML, derived from its code, and exit. The Lease's namespace is the
    /// one the controller would use (see --leader-elect-namespace).
    #[arg(long)]
    print_rbac: bool,
    /// The sharding demo, on the embedded API server (with --replicas 2 or more): split
    /// the Foos by namespace into this many shards, one Lease each, print what each
    /// replica caches and reconciles, kill one replica and show its shards taken over.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    shards: Option<u32>,
    /// Foos the sharding demo creates.
    #[arg(long, default_value_t = 200)]
    demo_foos: usize,
    /// Namespaces the sharding demo spreads its Foos over.
    #[arg(long, default_value_t = 64)]
    demo_namespaces: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.print_rbac {
        // The manifest goes to standard output alone.
        init_logging();
    }
    run_main(run(args))
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let cluster = Cluster::connect(&args.cluster).await?;
    let client = cluster.client();
    if args.print_rbac {
        let election = args.election.config(env!("CARGO_BIN_NAME"));
        let (cluster_role, role) = sample_controller::rbac(client, election);
        print!(
            "{}{}",
            sample_controller::RBAC_HEADER,
            rbac_manifest(&cluster_role, role.as_ref())?
        );
        cluster.shutdown().await;
        return Ok(());
    }
    if let ClusterSource::Embedded { url } = cluster.source() {
        println!("No cluster configured: started an embedded API server at {url}");
    }
    if cluster.is_embedded() || args.install_crd {
        install_crds(
            &client,
            &[Foo::crd()],
            "sample-controller",
            Duration::from_secs(30),
        )
        .await?;
    }
    let options = Options {
        manager: args.run.manager_options(),
        ..Options::default()
    };
    if let Some(shards) = args.shards {
        let Some(server) = cluster.server().filter(|_| args.replicas > 1) else {
            return Err("--shards runs the sharding demo on the embedded API server with --replicas 2 or more; against a cluster, run one process per replica of a manager with Manager::shards".into());
        };
        let sharding = ShardingOptions {
            replicas: usize::from(args.replicas),
            shards,
            namespaces: args.demo_namespaces.max(1),
            foos: args.demo_foos,
            options,
        };
        let config = server.kube_config();
        sharding::run(config, client, sharding, |line| println!("{line}")).await?;
        cluster.shutdown().await;
        return Ok(());
    }
    if args.replicas > 1 {
        if !cluster.is_embedded() {
            return Err("--replicas runs the failover demo on the embedded API server; against a cluster, run one process per replica with --leader-elect".into());
        }
        let outcome = failover::run(client, usize::from(args.replicas), options, |line| {
            println!("{line}");
        })
        .await?;
        let terms: Vec<String> = outcome.terms.iter().map(|t| t.replica.clone()).collect();
        println!(
            "Leaders in turn: {} (one at a time: {})",
            terms.join(" -> "),
            outcome.one_leader_at_a_time()
        );
        cluster.shutdown().await;
        if !outcome.one_leader_at_a_time() || !outcome.report.converged() {
            return Err(format!("the failover demo went wrong: {:?}", outcome.terms).into());
        }
        return Ok(());
    }
    let election = args.election.config(env!("CARGO_BIN_NAME"));
    let app = App::start(client.clone(), options, election)?;
    let running = app.running();

    // Until SIGTERM or Ctrl-C, or until the controller stops by itself (a lost Lease: the
    // shutdown below returns why, and the process exits non-zero); on the embedded API
    // server, until the demo converged unless --keep-running.
    let mut stand_in = None;
    if cluster.is_embedded() {
        stand_in = Some(DeploymentStandIn::start(client.clone(), running.factory()));
        demo::seed(&client).await?;
        println!(
            "Seeded 3 Foos (example-foo, web, intruder) and an unowned Deployment legacy-app in namespace default"
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
    if let Some(stand_in) = stand_in {
        stand_in.stop().await;
    }
    cluster.shutdown().await;
    Ok(())
}
