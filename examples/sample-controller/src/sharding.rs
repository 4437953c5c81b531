//! The sharding demo (`sample-controller --replicas N --shards S` on the embedded API
//! server): N replicas of the controller in this process, each on its own Tokio runtime
//! with its own client (as N processes), split the Foos into S shards with
//! [`Manager::shards`](kubegen::operator::Manager::shards), one Lease per shard
//! (`sample-controller-shard-<i>`). Foos are sharded by namespace, so that a Foo and the
//! Deployment it owns land in the same shard. The demo creates Foos across namespaces,
//! waits until every one is reconciled, prints the shards, cached objects (count and
//! JSON bytes) and reconciles of each replica, kills the replica holding the most shards
//! (its runtime shut down: no release), and shows its shards taken over, with the time
//! it took, and the Foos it owned reconciled again.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{ListParams, ObjectMeta, Patch, PatchParams};
use kubegen::operator::{HeldShards, Manager, ShardConfig};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::controller::{Action, ControllerConfig, Reconciler};
use kubegen::runtime::events::EventRecorderConfig;
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::leaderelection::LeaderElectionConfig;
use kubegen::runtime::shard::ShardKey;
use serde_json::json;
use tokio::sync::oneshot;

use crate::Options;
use crate::apis::samplecontroller::v1alpha1::{Foo, FooSpec};
use crate::controller::{self, CONTROLLER_NAME, Controller};
use crate::demo::DeploymentStandIn;
use crate::failover::{LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD};
use crate::generated::clientset::Clientset;

/// How long the demo waits for anything before it gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Creating or changing the demo objects failed.
    #[error(transparent)]
    Api(#[from] kubegen::runtime::error::Error),
    /// A replica could not start.
    #[error("replica {replica} could not start: {why}")]
    Start {
        /// The replica.
        replica: String,
        /// Why.
        why: String,
    },
    /// Something the demo waited for did not happen in time.
    #[error("gave up after {PATIENCE:?} waiting for {0}")]
    Timeout(String),
}

/// What the demo does.
#[derive(Clone, Debug)]
pub struct ShardingOptions {
    /// Replicas to run (at least 2).
    pub replicas: usize,
    /// Shards to split the Foos into.
    pub shards: u32,
    /// Namespaces to spread the Foos over.
    pub namespaces: usize,
    /// Foos to create.
    pub foos: usize,
    /// The controller's options.
    pub options: Options,
}

/// One replica as the demo saw it at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaReport {
    /// The replica's identity.
    pub name: String,
    /// The shards it held.
    pub shards: BTreeSet<u32>,
    /// Foos and Deployments in the caches of the shards it held.
    pub cached_objects: usize,
    /// Their size as JSON.
    pub cached_bytes: usize,
    /// Reconciles it ran so far.
    pub reconciles: u64,
}

impl fmt::Display for ReplicaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "  {}: shards {:?}, {} objects cached ({} KiB as JSON), {} reconciles",
            self.name,
            self.shards,
            self.cached_objects,
            self.cached_bytes / 1024,
            self.reconciles
        )
    }
}

/// What the demo saw.
#[derive(Clone, Debug)]
pub struct Sharding {
    /// Every replica once all Foos were reconciled.
    pub before: Vec<ReplicaReport>,
    /// The replica killed.
    pub killed: String,
    /// Its shards.
    pub orphaned: BTreeSet<u32>,
    /// From the kill until every one of its shards was held by another replica.
    pub takeover: Duration,
    /// The survivors once the Foos were reconciled again.
    pub after: Vec<ReplicaReport>,
}

/// Counts a replica's reconciles, then reconciles.
struct Counting {
    inner: Arc<Controller>,
    count: Arc<AtomicU64>,
}

impl Reconciler for Counting {
    type Error = controller::Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Self::Error> {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.inner.reconcile(key).await
    }
}

/// The factories of the shards a replica built controllers for, by shard.
type Factories = Arc<Mutex<BTreeMap<u32, SharedInformerFactory>>>;

/// One replica: its own runtime, client and manager.
struct Replica {
    name: String,
    runtime: Option<tokio::runtime::Runtime>,
    held: HeldShards,
    factories: Factories,
    reconciles: Arc<AtomicU64>,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

impl Replica {
    async fn start(
        config: kube::Config,
        name: String,
        sharding: &ShardingOptions,
    ) -> Result<Self, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|error| Error::Start {
                replica: name.clone(),
                why: error.to_string(),
            })?;
        let factories = Factories::default();
        let reconciles = Arc::new(AtomicU64::new(0));
        let (stop, stopping) = oneshot::channel::<()>();
        let (started, held) = oneshot::channel();
        let done = runtime.spawn({
            let (name, sharding) = (name.clone(), sharding.clone());
            let (factories, reconciles) = (factories.clone(), reconciles.clone());
            async move {
                let running = kube::Client::try_from(config)
                    .map_err(|error| error.to_string())
                    .and_then(|client| {
                        manager(client, &name, &sharding, factories, reconciles)
                            .start()
                            .map_err(|error| error.to_string())
                    });
                let running = match running {
                    Ok(running) => running,
                    Err(why) => {
                        let _ = started.send(Err(why));
                        return;
                    }
                };
                let _ = started.send(running.held_shards().ok_or_else(|| "no shards".into()));
                tokio::select! {
                    _ = stopping => {}
                    () = running.stopped() => {}
                }
                if let Err(error) = running.stop().await {
                    tracing::error!(replica = %name, %error, "the replica stopped with an error");
                }
            }
        });
        let held = held
            .await
            .map_err(|_| "the replica's task ended".to_owned())
            .and_then(|held| held)
            .map_err(|why| Error::Start {
                replica: name.clone(),
                why,
            })?;
        Ok(Self {
            name,
            runtime: Some(runtime),
            held,
            factories,
            reconciles,
            stop: Some(stop),
            done,
        })
    }

    fn held(&self) -> BTreeSet<u32> {
        self.held.borrow().clone()
    }

    fn report(&self) -> ReplicaReport {
        let shards = self.held();
        let factories = self
            .factories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let (mut objects, mut bytes) = (0, 0);
        for (_, factory) in factories.iter().filter(|(i, _)| shards.contains(i)) {
            for foo in factory.informer::<Foo>().store().list() {
                objects += 1;
                bytes += serde_json::to_vec(foo.as_ref()).map_or(0, |b| b.len());
            }
            for deployment in factory.informer::<Deployment>().store().list() {
                objects += 1;
                bytes += serde_json::to_vec(deployment.as_ref()).map_or(0, |b| b.len());
            }
        }
        ReplicaReport {
            name: self.name.clone(),
            shards,
            cached_objects: objects,
            cached_bytes: bytes,
            reconciles: self.reconciles.load(Ordering::Relaxed),
        }
    }

    /// The process dies: its runtime goes at once, no Lease is released.
    fn kill(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    /// The process is told to stop: drains, releases its Leases, exits.
    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let done = &mut self.done;
        if tokio::time::timeout(PATIENCE, done).await.is_err() {
            tracing::error!(replica = %self.name, "the replica did not stop in time");
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A replica's manager: the Foo controller, built per shard held.
fn manager(
    client: kube::Client,
    name: &str,
    sharding: &ShardingOptions,
    factories: Factories,
    reconciles: Arc<AtomicU64>,
) -> Manager {
    let election = LeaderElectionConfig::default()
        .lease_name(CONTROLLER_NAME)
        .namespace("default")
        .identity(name)
        .lease_duration(LEASE_DURATION)
        .renew_deadline(RENEW_DEADLINE)
        .retry_period(RETRY_PERIOD)
        .release_on_cancel(true);
    let shards = ShardConfig::new(election, sharding.shards)
        .replicas(u32::try_from(sharding.replicas).unwrap_or(u32::MAX))
        .key(ShardKey::Namespace);
    let options = sharding.options.clone();
    let mut manager = Manager::new(client.clone())
        .options(&options.manager)
        .shards(shards);
    let recorder = manager.event_recorder(EventRecorderConfig::new(CONTROLLER_NAME));
    manager.add_sharded(move |shard| {
        factories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(shard.index(), shard.factory().clone());
        let config = ControllerConfig::default().stale_cache_guard(options.stale_cache_guard);
        let controller = Controller::new(
            client.clone(),
            shard.factory(),
            recorder.clone(),
            shard.controller_config(config),
        );
        let reconcile_loop = controller.reconcile_loop().clone();
        let counting = Counting {
            inner: controller,
            count: reconciles.clone(),
        };
        (reconcile_loop, counting)
    });
    manager
}

/// Waits until every Foo has its Deployment with its replicas and reports them
/// available; polls the server, as the point is to see it from outside the replicas.
async fn converged(client: &kube::Client, foos: usize) -> Result<(), Error> {
    let wait = async {
        loop {
            if synced_foos(client).await? == foos {
                return Ok::<_, Error>(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .map_err(|_| Error::Timeout("every Foo to be reconciled".into()))?
}

/// Foos whose status reports their desired replicas available.
async fn synced_foos(client: &kube::Client) -> Result<usize, Error> {
    let foos = TypedClient::<Foo>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?;
    Ok(foos
        .items
        .iter()
        .filter(|foo| {
            let want = foo.spec.replicas.unwrap_or(1);
            foo.status
                .as_ref()
                .is_some_and(|s| s.available_replicas == want)
        })
        .count())
}

/// The name of namespace `n`: `tenant-` and six hex digits scrambled from `n`, as
/// generated names look. (Names differing only in a trailing counter, `team-0` to
/// `team-63`, would crowd into two of four shards: FNV-1a's last steps barely move the
/// hash's top bits, which pick the range.)
fn namespace(n: usize) -> String {
    // splitmix64's finalizer.
    let mut z = (n as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    format!("tenant-{:06x}", z & 0xff_ffff)
}

/// Creates `foos` Foos round-robin over `namespaces` namespaces.
async fn seed(client: &kube::Client, sharding: &ShardingOptions) -> Result<(), Error> {
    let namespaces = TypedClient::<Namespace>::new(client.clone(), Scope::All, &());
    for n in 0..sharding.namespaces {
        let namespace = Namespace {
            metadata: ObjectMeta {
                name: Some(namespace(n)),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        namespaces.create(&namespace).await?;
    }
    let clientset = Clientset::new(client.clone());
    for i in 0..sharding.foos {
        let namespace = namespace(i % sharding.namespaces.max(1));
        let spec = FooSpec {
            deployment_name: format!("app-{i}"),
            replicas: Some(1),
        };
        clientset
            .samplecontroller_v1alpha1()
            .foos(&namespace)
            .create(&Foo::new(&namespace, &format!("foo-{i}"), spec))
            .await?;
    }
    Ok(())
}

/// Runs the demo against the embedded server `config` points at (the Foo CRD
/// installed), telling what happens to `say`.
pub async fn run(
    config: kube::Config,
    client: kube::Client,
    sharding: ShardingOptions,
    mut say: impl FnMut(String),
) -> Result<Sharding, Error> {
    say(format!(
        "Sharding demo: {} replicas, {} shards by namespace (Leases {CONTROLLER_NAME}-shard-0..{}), each replica's share ceil({}/{}) = {}; lease {:?}, renew deadline {:?}, retry {:?}",
        sharding.replicas,
        sharding.shards,
        sharding.shards.saturating_sub(1),
        sharding.shards,
        sharding.replicas,
        sharding
            .shards
            .div_ceil(u32::try_from(sharding.replicas.max(1)).unwrap_or(1)),
        LEASE_DURATION,
        RENEW_DEADLINE,
        RETRY_PERIOD
    ));
    let stand_in_informers = SharedInformerFactory::new(client.clone());
    let stand_in = DeploymentStandIn::start(client.clone(), &stand_in_informers);
    stand_in_informers.start();

    let mut replicas = Vec::new();
    for i in 0..sharding.replicas.max(2) {
        replicas.push(Replica::start(config.clone(), format!("replica-{i}"), &sharding).await?);
    }
    seed(&client, &sharding).await?;
    say(format!(
        "Created {} Foos over {} namespaces",
        sharding.foos, sharding.namespaces
    ));
    converged(&client, sharding.foos).await?;
    let before: Vec<ReplicaReport> = replicas.iter().map(Replica::report).collect();
    say("Every Foo reconciled; per replica:".into());
    for report in &before {
        say(report.to_string());
    }

    let index = (0..replicas.len())
        .max_by_key(|&i| replicas[i].held().len())
        .unwrap_or_default();
    let victim = replicas.remove(index);
    let (killed, orphaned) = (victim.name.clone(), victim.held());
    say(format!(
        "Killing {killed} (no Lease released), which held shards {orphaned:?}"
    ));
    let at = Instant::now();
    victim.kill();
    let wait = async {
        loop {
            let held: BTreeSet<u32> = replicas.iter().flat_map(Replica::held).collect();
            if orphaned.is_subset(&held) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .map_err(|_| Error::Timeout("the killed replica's shards to be taken over".into()))?;
    let takeover = at.elapsed();
    say(format!(
        "Its shards were taken over {:.2} s after the kill (lease duration {:?})",
        takeover.as_secs_f64(),
        LEASE_DURATION
    ));
    // Scale every Foo: the new holders reconcile the killed replica's too.
    let clientset = Clientset::new(client.clone());
    for i in 0..sharding.foos {
        let namespace = namespace(i % sharding.namespaces.max(1));
        clientset
            .samplecontroller_v1alpha1()
            .foos(&namespace)
            .patch(
                &format!("foo-{i}"),
                &PatchParams::default(),
                &Patch::Merge(&json!({ "spec": { "replicas": 2 } })),
            )
            .await?;
    }
    converged(&client, sharding.foos).await?;
    let after: Vec<ReplicaReport> = replicas.iter().map(Replica::report).collect();
    say("Every Foo scaled to 2 and reconciled again; per surviving replica:".into());
    for report in &after {
        say(report.to_string());
    }
    for replica in replicas {
        replica.stop().await;
    }
    stand_in.stop().await;
    stand_in_informers.shutdown().await;
    Ok(Sharding {
        before,
        killed,
        orphaned,
        takeover,
        after,
    })
}
