//! `icecream`: writes into every Icecream the nodes its pods are scheduled on. With no
//! cluster configured it runs against an embedded API server with demo objects until
//! converged.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use icecream::webhooks::{self, Serving};
use icecream::{App, demo};
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use kube::api::{Api, PostParams};
use kubegen::operator::{
    Cluster, ClusterArgs, ClusterSource, LeaderElectArgs, RunArgs, init_logging, install_crds,
    run_main,
};
use kubegen::webhook::{WebhookClient, WebhookServerConfig};

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
    /// Apply the Icecream CustomResourceDefinition to the cluster before starting (always
    /// done on the embedded API server), converting through the webhook Service
    /// --webhook-service.
    #[arg(long)]
    install_crd: bool,
    /// Serve the conversion and validating webhooks with the certificate in this
    /// directory (tls.crt, tls.key: cert-manager's Secret, reloaded when renewed). The
    /// embedded API server gets a throwaway one.
    #[arg(long, value_name = "DIR")]
    webhook_cert_dir: Option<std::path::PathBuf>,
    /// The webhooks' port.
    #[arg(long, default_value_t = 9443)]
    webhook_port: u16,
    /// The Service (NAMESPACE/NAME) the API server reaches the webhooks through.
    #[arg(
        long,
        value_name = "NAMESPACE/NAME",
        default_value = "icecream-system/icecream-webhook"
    )]
    webhook_service: String,
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
    // The webhooks: on loopback with a throwaway CA for the embedded API server (which
    // calls them by URL), else on --webhook-port with the certificate of --webhook-cert-dir.
    let serving = match (&args.webhook_cert_dir, cluster.is_embedded()) {
        (_, true) => Some(Serving::on_loopback().await?),
        (Some(dir), false) => {
            let listener = tokio::net::TcpListener::bind(("0.0.0.0", args.webhook_port)).await?;
            let config = WebhookServerConfig::default().cert_dir(dir);
            Some(Serving::start(
                config,
                listener,
                service_client(&args.webhook_service)?,
            ))
        }
        (None, false) => None,
    };
    if cluster.is_embedded() || args.install_crd {
        let webhook = match &serving {
            Some(serving) => serving.client.clone(),
            None => service_client(&args.webhook_service)?,
        };
        install_crds(
            &client,
            &[webhooks::crd(&webhook)?],
            "icecream-controller",
            Duration::from_secs(30),
        )
        .await?;
    }
    if let (true, Some(serving)) = (cluster.is_embedded(), &serving) {
        let configurations = webhooks::server(WebhookServerConfig::default())
            .configurations("icecream", &serving.client);
        if let Some(validating) = configurations.validating {
            Api::<ValidatingWebhookConfiguration>::all(client.clone())
                .create(&PostParams::default(), &validating)
                .await?;
        }
    }
    let election = args.election.config(env!("CARGO_BIN_NAME"));
    let app = App::start(client.clone(), args.run.manager_options(), election)?;

    // Until SIGTERM or Ctrl-C, or until the controller stops by itself (a lost Lease: the
    // shutdown below returns why, and the process exits non-zero); on the embedded API
    // server, until the demo's tour is over unless --keep-running.
    if cluster.is_embedded() {
        demo::seed(&client).await?;
        println!(
            "Seeded Icecreams vanilla and chocolate and 5 pods on nodes node-a, node-b, node-c in namespace default"
        );
    }
    if cluster.is_embedded() && !args.run.keep_running {
        let tour = async {
            let report = app.wait_converged().await;
            print!("Converged:\n{report}");
            demo::versions(&client, |line| println!("{line}")).await?;
            let report =
                demo::delete_and_clean_up(&app, &client, |line| println!("{line}")).await?;
            print!("Converged:\n{report}");
            Ok::<_, kubegen::runtime::error::Error>(())
        };
        if let Some(toured) = app.running().until_shutdown(tour).await {
            toured?;
        }
    } else {
        app.running()
            .until_shutdown(std::future::pending::<()>())
            .await;
    }
    app.shutdown().await?;
    if let Some(serving) = serving {
        serving.stop().await?;
    }
    cluster.shutdown().await;
    Ok(())
}

/// The webhook Service `namespace/name` on port 443.
fn service_client(service: &str) -> Result<WebhookClient, String> {
    match service.split_once('/') {
        Some((namespace, name)) if !namespace.is_empty() && !name.is_empty() => {
            Ok(WebhookClient::service(namespace, name))
        }
        _ => Err(format!(
            "--webhook-service: expected NAMESPACE/NAME, got {service:?}"
        )),
    }
}
