//! The embedded demo: objects to reconcile, a stand-in for the Deployment controller the
//! embedded API server lacks, and the convergence check that ends the run.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::events::v1::Event as KubeEvent;
use kube::Resource;
use kube::api::{ListParams, Patch, PatchParams};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::informer::HandlerFns;
use kubegen::runtime::key::ObjectKey;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::apis::samplecontroller::v1alpha1::{Foo, FooSpec};
use crate::controller::{Controller, ERR_RESOURCE_EXISTS, is_controlled_by, new_deployment};
use crate::generated::clientset::Clientset;

/// The namespace the demo objects live in.
pub const DEMO_NAMESPACE: &str = "default";

/// Creates the demo objects: two Foos to reconcile, and a Foo naming a Deployment that
/// already exists without an owner (which the controller must refuse to adopt).
pub async fn seed(client: &kube::Client) -> Result<(), kubegen::runtime::error::Error> {
    let foos = Clientset::new(client.clone())
        .samplecontroller_v1alpha1()
        .foos(DEMO_NAMESPACE);
    let deployments =
        TypedClient::<Deployment>::new(client.clone(), Scope::Namespace(DEMO_NAMESPACE), &());
    let mut legacy = new_deployment(&Foo::new(
        DEMO_NAMESPACE,
        "legacy",
        FooSpec {
            deployment_name: "legacy-app".into(),
            replicas: Some(1),
        },
    ));
    legacy.metadata.owner_references = None;
    deployments.create(&legacy).await?;
    for (name, deployment, replicas) in [
        ("example-foo", "example-foo", 1),
        ("web", "web-frontend", 3),
        ("intruder", "legacy-app", 2),
    ] {
        let spec = FooSpec {
            deployment_name: deployment.into(),
            replicas: Some(replicas),
        };
        foos.create(&Foo::new(DEMO_NAMESPACE, name, spec)).await?;
    }
    Ok(())
}

/// Plays kube-controller-manager's Deployment controller, which the embedded API server
/// does not run: reports every Deployment's desired replicas as available.
#[derive(Debug)]
pub struct DeploymentStandIn {
    task: JoinHandle<()>,
}

impl DeploymentStandIn {
    /// Starts it on the factory's shared Deployment informer.
    pub fn start(client: kube::Client, factory: &SharedInformerFactory) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Arc<Deployment>>();
        factory.informer::<Deployment>().add_event_handler(
            HandlerFns::new()
                .on_add({
                    let tx = tx.clone();
                    move |d, _| {
                        let _ = tx.send(d);
                    }
                })
                .on_update(move |_, d| {
                    let _ = tx.send(d);
                }),
        );
        let task = tokio::spawn(async move {
            while let Some(deployment) = rx.recv().await {
                report_available(&client, &deployment).await;
            }
        });
        Self { task }
    }

    /// Stops it.
    pub async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

async fn report_available(client: &kube::Client, deployment: &Deployment) {
    let replicas = deployment.spec.replicas.unwrap_or(1);
    let status = deployment.status.clone().unwrap_or_default();
    if status.available_replicas == Some(replicas)
        && status.observed_generation == deployment.metadata.generation
    {
        return;
    }
    let patch = json!({ "status": {
        "observedGeneration": deployment.metadata.generation,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
    }});
    let namespace = deployment.metadata.namespace.as_deref().unwrap_or_default();
    let name = deployment.metadata.name.as_deref().unwrap_or_default();
    let api = TypedClient::<Deployment>::new(client.clone(), Scope::Namespace(namespace), &());
    let mut delay = Duration::from_millis(50);
    for _ in 0..5 {
        match api
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => return,
            Err(error) if error.is_not_found() => return,
            Err(error) => {
                tracing::debug!(%error, "deployment stand-in: retrying status");
                tokio::time::sleep(delay).await;
                delay *= 2;
            }
        }
    }
}

/// Where one Foo stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FooState {
    /// Its Deployment exists, is owned by it, runs the desired replicas, and the Foo's
    /// status reports them available.
    Synced {
        /// The Deployment's replicas.
        replicas: i32,
        /// The Foo's `status.availableReplicas`.
        available: i32,
    },
    /// Its Deployment belongs to someone else and a Warning event says so.
    Refused,
    /// Not there yet, and why.
    Pending(String),
}

/// One Foo in a [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FooReport {
    /// The Foo.
    pub foo: ObjectKey,
    /// The Deployment it names.
    pub deployment: String,
    /// Where it stands.
    pub state: FooState,
}

/// Every Foo on the server and where it stands, plus whether the controller's caches
/// agree with the server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per Foo, by key.
    pub foos: Vec<FooReport>,
    /// Why the caches disagree with the server, if they do.
    pub cache_lag: Option<String>,
}

impl Report {
    /// Whether every Foo is synced or refused and the caches agree with the server.
    pub fn converged(&self) -> bool {
        self.cache_lag.is_none()
            && self
                .foos
                .iter()
                .all(|f| !matches!(f.state, FooState::Pending(_)))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for foo in &self.foos {
            let key = foo.foo.to_string();
            match &foo.state {
                FooState::Synced {
                    replicas,
                    available,
                } => writeln!(
                    f,
                    "foo {:<22} -> deployment {:<14} replicas {replicas}, available {available}",
                    key, foo.deployment
                )?,
                FooState::Refused => writeln!(
                    f,
                    "foo {:<22} -> deployment {:<14} refused: not owned by the Foo (Warning {ERR_RESOURCE_EXISTS})",
                    key, foo.deployment
                )?,
                FooState::Pending(why) => writeln!(
                    f,
                    "foo {:<22} -> deployment {:<14} pending: {why}",
                    key, foo.deployment
                )?,
            }
        }
        if let Some(lag) = &self.cache_lag {
            writeln!(f, "caches behind the server: {lag}")?;
        }
        Ok(())
    }
}

/// Reads the server and compares it with what the controller should have made of it.
pub async fn check(
    client: &kube::Client,
    controller: &Controller,
) -> Result<Report, kubegen::runtime::error::Error> {
    let foos = Clientset::new(client.clone())
        .samplecontroller_v1alpha1()
        .foos("")
        .list(&ListParams::default())
        .await?
        .items;
    let deployments = TypedClient::<Deployment>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items;
    let warnings = TypedClient::<KubeEvent>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(ERR_RESOURCE_EXISTS))
        .filter_map(|e| e.regarding.and_then(|r| r.uid))
        .collect::<Vec<_>>();

    let mut report = Report::default();
    for foo in &foos {
        let key = ObjectKey::of(foo);
        let namespace = foo.metadata.namespace.as_deref();
        let deployment = deployments.iter().find(|d| {
            d.metadata.namespace.as_deref() == namespace
                && d.metadata.name.as_deref() == Some(&foo.spec.deployment_name)
        });
        let state = match deployment {
            None => FooState::Pending("no deployment".into()),
            Some(d) if !is_controlled_by(d, foo) => {
                if foo
                    .metadata
                    .uid
                    .as_ref()
                    .is_some_and(|uid| warnings.contains(uid))
                {
                    FooState::Refused
                } else {
                    FooState::Pending("deployment not owned, no warning recorded yet".into())
                }
            }
            Some(d) => {
                let replicas = d.spec.replicas.unwrap_or(1);
                let deployment_available = d
                    .status
                    .as_ref()
                    .and_then(|s| s.available_replicas)
                    .unwrap_or(0);
                let available = foo
                    .status
                    .as_ref()
                    .map(|s| s.available_replicas)
                    .unwrap_or(0);
                if replicas != foo.desired_replicas() {
                    FooState::Pending(format!(
                        "deployment has {replicas} replicas, foo wants {}",
                        foo.desired_replicas()
                    ))
                } else if deployment_available != replicas {
                    FooState::Pending(format!(
                        "{deployment_available} of {replicas} replicas available"
                    ))
                } else if available != deployment_available {
                    FooState::Pending(format!(
                        "foo status says {available} available, deployment {deployment_available}"
                    ))
                } else {
                    FooState::Synced {
                        replicas,
                        available,
                    }
                }
            }
        };
        report.foos.push(FooReport {
            foo: key,
            deployment: foo.spec.deployment_name.clone(),
            state,
        });
    }
    report.foos.sort_by(|a, b| a.foo.cmp(&b.foo));
    report.cache_lag = cache_lag(controller.foos(), &foos)
        .or_else(|| cache_lag(controller.deployments(), &deployments));
    Ok(report)
}

/// Why a lister differs from the server's objects (by key and resourceVersion), if it does.
fn cache_lag<K: Resource>(
    lister: &kubegen::runtime::lister::Lister<K>,
    server: &[K],
) -> Option<String> {
    let cached = lister.list(&kubegen::runtime::lister::Selector::everything());
    if cached.len() != server.len() {
        return Some(format!(
            "{} cached, {} on the server",
            cached.len(),
            server.len()
        ));
    }
    server.iter().find_map(|object| {
        let key = ObjectKey::of(object);
        let cached = lister.get_key(&key);
        let cached_version = cached
            .as_ref()
            .and_then(|c| c.meta().resource_version.clone());
        (cached_version != object.meta().resource_version)
            .then(|| format!("{key} is stale in the cache"))
    })
}

impl kubegen::operator::Converged for Report {
    fn converged(&self) -> bool {
        Report::converged(self)
    }
}
