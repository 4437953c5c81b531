//! The failover demo (`sample-controller --replicas N` on the embedded API server): N
//! replicas of the controller in one process, each with its own informers, queue and
//! leader elector (identities `replica-0`, `replica-1`, ...), competing for one Lease.
//! The leader reconciles the demo objects; the demo then stops it *without releasing
//! the Lease*, changes a Foo while nobody leads, and waits for a standby to take over
//! once the Lease expires and converge again.
//!
//! Election timings are shortened so the demo takes seconds ([`LEASE_DURATION`],
//! [`RENEW_DEADLINE`], [`RETRY_PERIOD`]; client-go's defaults are 15 s, 10 s and 2 s).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::leaderelection::{LeaderElectionConfig, LeaderStatus};
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::controller::CONTROLLER_NAME;
use crate::demo::{self, DEMO_NAMESPACE, DeploymentStandIn, Report};
use crate::generated::clientset::Clientset;
use crate::{App, Options};

/// How long a standby waits, after it last saw the Lease change, before it takes over.
pub const LEASE_DURATION: Duration = Duration::from_secs(2);
/// How long the leader keeps retrying a renewal before it steps down.
pub const RENEW_DEADLINE: Duration = Duration::from_millis(1500);
/// The time between two attempts to acquire or renew.
pub const RETRY_PERIOD: Duration = Duration::from_millis(500);

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A replica runs without leader election (its manager reports no election).
    #[error("replica {0} runs without leader election")]
    NoElection(String),
    /// Seeding or changing the demo objects failed.
    #[error(transparent)]
    Api(#[from] kubegen::runtime::error::Error),
    /// A replica's controller ended with an error.
    #[error(transparent)]
    Controller(#[from] crate::controller::Error),
}

/// One replica's time as leader, as its elector reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The replica's identity.
    pub replica: String,
    /// When it started leading.
    pub start: Instant,
    /// When it stopped leading (`None` while it leads).
    pub end: Option<Instant>,
}

/// What the demo saw.
#[derive(Clone, Debug)]
pub struct Failover {
    /// The replica that led first, and was stopped.
    pub first_leader: String,
    /// The replica that took over.
    pub new_leader: String,
    /// From the stop of the first leader to the new leader's start.
    pub takeover: Duration,
    /// Every replica's terms as leader, in the order they started.
    pub terms: Vec<Term>,
    /// The state the new leader converged to.
    pub report: Report,
}

impl Failover {
    /// Whether no two terms overlapped: at most one leader at any time.
    pub fn one_leader_at_a_time(&self) -> bool {
        self.terms.windows(2).all(|pair| match pair[0].end {
            Some(end) => end <= pair[1].start,
            None => false,
        })
    }
}

/// Every replica's terms, shared by the tasks that follow the electors.
#[derive(Clone)]
struct Terms {
    terms: Arc<Mutex<Vec<Term>>>,
    changed: Arc<watch::Sender<u64>>,
}

impl Default for Terms {
    fn default() -> Self {
        Self {
            terms: Arc::default(),
            changed: Arc::new(watch::Sender::new(0)),
        }
    }
}

impl fmt::Debug for Terms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.snapshot()).finish()
    }
}

impl Terms {
    fn snapshot(&self) -> Vec<Term> {
        self.terms
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Follows one replica's elector until it is dropped, recording its terms.
    fn follow(&self, replica: String, mut status: watch::Receiver<LeaderStatus>) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                let leading = status.borrow_and_update().leading;
                this.record(&replica, leading);
                if status.changed().await.is_err() {
                    this.record(&replica, false);
                    return;
                }
            }
        })
    }

    fn record(&self, replica: &str, leading: bool) {
        let now = Instant::now();
        let mut terms = self.terms.lock().unwrap_or_else(PoisonError::into_inner);
        let open = terms
            .iter_mut()
            .find(|t| t.replica == replica && t.end.is_none());
        match (open, leading) {
            (None, true) => terms.push(Term {
                replica: replica.to_owned(),
                start: now,
                end: None,
            }),
            (Some(term), false) => term.end = Some(now),
            _ => return,
        }
        drop(terms);
        self.changed.send_modify(|n| *n += 1);
    }

    /// Waits for a replica other than `except` to lead, and returns it.
    async fn leader(&self, except: Option<&str>) -> String {
        let mut changed = self.changed.subscribe();
        loop {
            changed.borrow_and_update();
            let leader = self
                .snapshot()
                .into_iter()
                .find(|t| t.end.is_none() && Some(t.replica.as_str()) != except);
            if let Some(term) = leader {
                return term.replica;
            }
            // The sender lives in `self`: `changed` cannot fail while we wait.
            let _ = changed.changed().await;
        }
    }
}

struct Replica {
    identity: String,
    app: App,
    follower: JoinHandle<()>,
}

impl Replica {
    async fn stop(self) -> Result<(), Error> {
        let result = self.app.shutdown().await;
        let _ = self.follower.await;
        Ok(result?)
    }
}

/// The election every replica runs: the controller's Lease in the demo namespace, the
/// demo's short timings, and no release on shutdown (so a stopped leader is replaced
/// only once its Lease expires, as after a crash).
pub fn election_config(identity: &str) -> LeaderElectionConfig {
    LeaderElectionConfig::default()
        .lease_name(CONTROLLER_NAME)
        .namespace(DEMO_NAMESPACE)
        .identity(identity)
        .lease_duration(LEASE_DURATION)
        .renew_deadline(RENEW_DEADLINE)
        .retry_period(RETRY_PERIOD)
        .release_on_cancel(false)
}

/// Runs the demo on `client` (an API server with the Foo CRD installed and nothing else
/// of the demo's): `replicas` replicas (at least two), the demo objects, a stop of the leader, a change,
/// the takeover and convergence. Tells what happens, line by line, to `say`.
pub async fn run(
    client: kube::Client,
    replicas: usize,
    options: Options,
    mut say: impl FnMut(String),
) -> Result<Failover, Error> {
    say(format!(
        "Leader election timings shortened for the demo: lease {:?}, renew deadline {:?}, retry {:?} (client-go's defaults: 15s, 10s, 2s)",
        LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD
    ));
    let stand_in_informers = SharedInformerFactory::new(client.clone());
    let stand_in = DeploymentStandIn::start(client.clone(), &stand_in_informers);
    stand_in_informers.start();

    let terms = Terms::default();
    let mut running = Vec::new();
    for i in 0..replicas.max(2) {
        let identity = format!("replica-{i}");
        let app = App::start(
            client.clone(),
            options.clone(),
            Some(election_config(&identity)),
        )?;
        let status = app
            .running()
            .leader_status()
            .ok_or_else(|| Error::NoElection(identity.clone()))?;
        let follower = terms.follow(identity.clone(), status);
        running.push(Replica {
            identity,
            app,
            follower,
        });
    }
    say(format!(
        "Started {} replicas ({}) competing for Lease {DEMO_NAMESPACE}/{CONTROLLER_NAME}",
        running.len(),
        running
            .iter()
            .map(|r| r.identity.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    demo::seed(&client).await?;

    let first_leader = terms.leader(None).await;
    say(format!("Leader: {first_leader}"));
    let index = running
        .iter()
        .position(|r| r.identity == first_leader)
        .unwrap_or_default();
    let leader = running.remove(index);
    let report = leader.app.wait_converged().await;
    say(format!("Converged under {first_leader}:\n{report}"));

    say(format!(
        "Stopping {first_leader} without releasing the Lease; scaling Foo web to 5 replicas while nobody leads"
    ));
    let stopped_at = Instant::now();
    leader.stop().await?;
    Clientset::new(client.clone())
        .samplecontroller_v1alpha1()
        .foos(DEMO_NAMESPACE)
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(&json!({ "spec": { "replicas": 5 } })),
        )
        .await?;

    let new_leader = terms.leader(Some(&first_leader)).await;
    let takeover = stopped_at.elapsed();
    say(format!(
        "New leader: {new_leader}, {:.1} s after {first_leader} stopped (the Lease expired: lease duration {:?} after the standbys last saw it renewed)",
        takeover.as_secs_f64(),
        LEASE_DURATION
    ));
    let index = running
        .iter()
        .position(|r| r.identity == new_leader)
        .unwrap_or_default();
    let report = running[index].app.wait_converged().await;
    say(format!("Converged under {new_leader}:\n{report}"));

    for replica in running {
        replica.stop().await?;
    }
    stand_in.stop().await;
    stand_in_informers.shutdown().await;
    let mut terms = terms.snapshot();
    terms.sort_by_key(|t| t.start);
    Ok(Failover {
        first_leader,
        new_leader,
        takeover,
        terms,
        report,
    })
}
