//! Replicas of a "controller" under leader election against one testkit server, each
//! behind its own [`Proxy`], and a shared [`Timeline`] of who held the critical section.
#![allow(dead_code, unreachable_pub, missing_docs)]

pub mod proxy;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use kubegen_runtime::leaderelection::{
    LeaderElectionConfig, LeaderElector, LeaderStatus, Outcome, StepDown,
};
use kubegen_testkit::ApiServer;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use proxy::{Link, Proxy};

/// The test timings: short, with client-go's proportions.
pub const LEASE: Duration = Duration::from_secs(2);
pub const RENEW: Duration = Duration::from_secs(1);
pub const RETRY: Duration = Duration::from_millis(250);
pub const LEASE_NAME: &str = "controller-lock";

/// Waiting for a condition longer than this means it will not happen.
const HANG: Duration = Duration::from_secs(30);

/// One stretch of time a replica spent in the critical section.
#[derive(Clone, Debug)]
pub struct Span {
    pub who: String,
    pub enter: Instant,
    pub exit: Option<Instant>,
}

#[derive(Debug, Default)]
struct Spans {
    spans: Vec<Span>,
    /// Entries made while another replica was inside.
    overlaps: Vec<String>,
}

/// Who held the critical section when, on one clock, shared by every replica.
#[derive(Clone, Debug)]
pub struct Timeline {
    spans: Arc<Mutex<Spans>>,
    changed: watch::Sender<u64>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            spans: Arc::default(),
            changed: watch::Sender::new(0),
        }
    }
}

/// Inside the critical section until dropped (also when the task holding it is aborted).
pub struct Inside {
    timeline: Timeline,
    index: usize,
}

impl Drop for Inside {
    fn drop(&mut self) {
        self.timeline.lock().spans[self.index].exit = Some(Instant::now());
        self.timeline.changed.send_modify(|n| *n += 1);
    }
}

impl Timeline {
    fn lock(&self) -> MutexGuard<'_, Spans> {
        self.spans.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn enter(&self, who: &str) -> Inside {
        let index = {
            let mut spans = self.lock();
            let now = Instant::now();
            let inside: Vec<String> = spans
                .spans
                .iter()
                .filter(|s| s.exit.is_none())
                .map(|s| s.who.clone())
                .collect();
            if !inside.is_empty() {
                spans
                    .overlaps
                    .push(format!("{who} entered while {inside:?} were inside"));
            }
            spans.spans.push(Span {
                who: who.to_owned(),
                enter: now,
                exit: None,
            });
            spans.spans.len() - 1
        };
        self.changed.send_modify(|n| *n += 1);
        Inside {
            timeline: self.clone(),
            index,
        }
    }

    pub fn spans(&self) -> Vec<Span> {
        self.lock().spans.clone()
    }

    /// Waits until `found` picks something out of the spans.
    pub async fn wait<T>(&self, what: &str, found: impl Fn(&[Span]) -> Option<T>) -> T {
        let mut changed = self.changed.subscribe();
        let wait = async {
            loop {
                if let Some(t) = found(&self.lock().spans) {
                    return t;
                }
                changed.changed().await.expect("timeline alive");
            }
        };
        tokio::time::timeout(HANG, wait)
            .await
            .unwrap_or_else(|_| panic!("no {what} within {HANG:?}: {:#?}", self.spans()))
    }

    /// The replica inside the critical section now, waiting for one.
    pub async fn holder(&self) -> Span {
        self.wait("holder", |spans| {
            spans.iter().find(|s| s.exit.is_none()).cloned()
        })
        .await
    }

    /// The first entry after `after`.
    pub async fn entry_after(&self, after: Instant) -> Span {
        self.wait("new holder", |spans| {
            spans.iter().find(|s| s.enter > after).cloned()
        })
        .await
    }

    /// When `span`'s holder left (waiting for it).
    pub async fn exit_of(&self, span: &Span) -> Instant {
        self.wait("exit", |spans| {
            spans
                .iter()
                .find(|s| s.who == span.who && s.enter == span.enter)
                .and_then(|s| s.exit)
        })
        .await
    }

    /// Never two holders at once: no entry while another was inside, and every span
    /// ends before the next one starts.
    pub fn assert_exclusive(&self) {
        let spans = self.lock();
        assert!(spans.overlaps.is_empty(), "overlaps: {:#?}", spans.overlaps);
        let mut sorted = spans.spans.clone();
        sorted.sort_by_key(|s| s.enter);
        for pair in sorted.windows(2) {
            let exit = pair[0].exit.expect("an earlier span is closed");
            assert!(exit <= pair[1].enter, "overlapping spans: {pair:#?}");
        }
    }
}

/// One replica: an elector behind its own proxy, running the critical section whenever
/// it leads, rejoining as a candidate after losing the lease.
pub struct Replica {
    pub name: String,
    pub proxy: Proxy,
    pub status: watch::Receiver<LeaderStatus>,
    pub shutdown: CancellationToken,
    pub task: JoinHandle<()>,
    pub step_downs: Arc<Mutex<Vec<StepDown>>>,
}

impl Replica {
    pub async fn start(server: &ApiServer, name: &str, timeline: &Timeline) -> Self {
        let proxy = Proxy::start(server.address()).await;
        let mut config = server.kube_config();
        config.cluster_url = proxy.url().parse().expect("proxy url");
        config.default_retry = false;
        let client = kube::Client::try_from(config).expect("client");
        let mut elector = LeaderElector::new(
            client,
            LeaderElectionConfig::default()
                .lease_name(LEASE_NAME)
                .namespace("default")
                .identity(name)
                .lease_duration(LEASE)
                .renew_deadline(RENEW)
                .retry_period(RETRY)
                .release_on_cancel(true),
        )
        .expect("valid config");
        let status = elector.status();
        let shutdown = CancellationToken::new();
        let step_downs = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn({
            let (shutdown, step_downs) = (shutdown.clone(), step_downs.clone());
            let (timeline, name) = (timeline.clone(), name.to_owned());
            async move {
                loop {
                    let outcome = elector
                        .run(shutdown.clone(), |leading| {
                            critical_section(timeline.clone(), name.clone(), leading)
                        })
                        .await;
                    let Outcome::Led { reason, .. } = outcome else {
                        return;
                    };
                    step_downs.lock().expect("lock").push(reason);
                    if reason != StepDown::LeaseLost {
                        return;
                    }
                }
            }
        });
        Self {
            name: name.to_owned(),
            proxy,
            status,
            shutdown,
            task,
            step_downs,
        }
    }

    pub fn step_downs(&self) -> Vec<StepDown> {
        self.step_downs.lock().expect("lock").clone()
    }

    /// Waits until this replica is no longer leading.
    pub async fn stopped_leading(&mut self) {
        tokio::time::timeout(HANG, self.status.wait_for(|s| !s.leading))
            .await
            .expect("stops leading")
            .expect("elector alive");
    }
}

/// What the elected replica does: hold the critical section until told to stop.
async fn critical_section(timeline: Timeline, who: String, leading: CancellationToken) {
    let _inside = timeline.enter(&who);
    leading.cancelled().await;
}

/// Three replicas, `r0` to `r2`, on one server.
pub struct Cluster {
    pub server: ApiServer,
    pub timeline: Timeline,
    pub replicas: Vec<Replica>,
}

impl Cluster {
    pub async fn start() -> Self {
        let server = ApiServer::start().await.expect("server");
        let timeline = Timeline::default();
        let mut replicas = Vec::new();
        for i in 0..3 {
            replicas.push(Replica::start(&server, &format!("r{i}"), &timeline).await);
        }
        Self {
            server,
            timeline,
            replicas,
        }
    }

    pub fn replica(&mut self, name: &str) -> &mut Replica {
        self.replicas
            .iter_mut()
            .find(|r| r.name == name)
            .expect("known replica")
    }

    /// Waits for a leader, lets it renew a few times, and returns its span.
    pub async fn settled_leader(&self) -> Span {
        let leader = self.timeline.holder().await;
        tokio::time::sleep(RETRY * 3).await;
        leader
    }

    /// Shuts every replica down and waits for them.
    pub async fn stop(self) {
        for replica in &self.replicas {
            replica.shutdown.cancel();
        }
        for replica in self.replicas {
            let _ = tokio::time::timeout(HANG, replica.task).await;
        }
    }
}
