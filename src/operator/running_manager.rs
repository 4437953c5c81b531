//! A started [`Manager`](super::Manager): what its binary and tests do with it until it
//! stops (wait for a signal, for convergence, for its events to be written), and the
//! stop itself (controllers drained within the deadline, then informers, probes and
//! event recorders).

use std::fmt::Display;
use std::time::Duration;

use kubegen_runtime::events::EventRecorder;
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::leaderelection::LeaderStatus;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::convergence::{self, Converged};
use super::manager::ManagerError;
use super::shards::HeldShards;

/// A [`Manager`](super::Manager) whose controllers run on a task.
///
/// ```no_run
/// # async fn demo(manager: kubegen::operator::Manager) -> Result<(), kubegen::operator::ManagerError> {
/// let running = manager.start()?;
/// // Until SIGTERM or Ctrl-C, or until the controllers stop by themselves (a lost Lease).
/// running.until_shutdown(std::future::pending::<()>()).await;
/// running.stop().await // drained, then informers, probes and event recorders stopped
/// # }
/// ```
#[derive(Debug)]
pub struct RunningManager {
    pub(super) factory: SharedInformerFactory,
    pub(super) leader_status: Option<watch::Receiver<LeaderStatus>>,
    pub(super) held_shards: Option<HeldShards>,
    pub(super) recorders: Vec<EventRecorder>,
    pub(super) processed: Vec<watch::Receiver<u64>>,
    pub(super) stop: CancellationToken,
    pub(super) stopped: CancellationToken,
    pub(super) task: JoinHandle<Result<(), ManagerError>>,
    pub(super) shutdown_timeout: Duration,
    #[cfg(feature = "metrics")]
    pub(super) probes: Option<super::probes::Probes>,
}

impl RunningManager {
    /// Resolves once every controller has ended: after [`stop`](Self::stop), or by
    /// themselves (the Lease was lost, a controller failed).
    pub fn stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        self.stopped.clone().cancelled_owned()
    }

    /// Runs `work` until it finishes (`Some` of its output), SIGTERM or SIGINT arrives
    /// ([`shutdown_signal`](super::shutdown_signal)), or the controllers stop by
    /// themselves (`None` both: [`stop`](Self::stop) then says why). Against a cluster
    /// `work` is usually `std::future::pending()`; a demo or test converging is the other.
    ///
    /// ```no_run
    /// # async fn demo(running: kubegen::operator::RunningManager) -> Result<(), kubegen::operator::ManagerError> {
    /// if let Some(()) = running.until_shutdown(async { /* seed, then wait */ }).await {
    ///     println!("demo done");
    /// }
    /// running.stop().await
    /// # }
    /// ```
    pub async fn until_shutdown<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            output = work => Some(output),
            () = super::shutdown_signal() => None,
            () = self.stopped() => None,
        }
    }

    /// Waits until every event published so far by the recorders of
    /// [`Manager::event_recorder`](super::Manager::event_recorder) has been written (or
    /// given up on after its retries), so that reading Events back finds them.
    pub async fn flush_events(&self) {
        for recorder in &self.recorders {
            recorder.flush().await;
        }
    }

    /// Runs `check` now and again each time a controller added with
    /// [`Manager::add`](super::Manager::add) finishes a key, each time after
    /// [`flush_events`](Self::flush_events), until a report says it converged, and
    /// returns that report ([`wait_converged`](super::wait_converged) over all of the
    /// manager's controllers: for demos and tests). Sharded controllers do not wake it.
    /// If every controller is gone, waits forever, so the caller's other stop conditions
    /// apply ([`until_shutdown`](Self::until_shutdown)).
    ///
    /// ```no_run
    /// # struct Report; impl std::fmt::Display for Report { fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) } }
    /// # impl kubegen::operator::Converged for Report { fn converged(&self) -> bool { true } }
    /// # async fn check(client: &kube::Client) -> Result<Report, kube::Error> { Ok(Report) }
    /// # async fn demo(running: kubegen::operator::RunningManager, client: kube::Client) {
    /// let report = running.wait_converged(|| check(&client)).await; // reads the server
    /// println!("Converged:\n{report}");
    /// # }
    /// ```
    pub async fn wait_converged<R, E, F, Fut>(&self, mut check: F) -> R
    where
        R: Converged,
        E: Display,
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<R, E>>,
    {
        convergence::wait_any_converged(self.processed.clone(), || {
            let checked = check();
            async move {
                self.flush_events().await;
                checked.await
            }
        })
        .await
    }

    /// The informer factory (started: informers asked for now start at once).
    pub fn factory(&self) -> &SharedInformerFactory {
        &self.factory
    }

    /// The election as this replica sees it (who holds the Lease, whether this replica
    /// leads), updated as it changes; `None` without leader election.
    pub fn leader_status(&self) -> Option<watch::Receiver<LeaderStatus>> {
        self.leader_status.clone()
    }

    /// The shards this replica holds, updated as it takes and loses them; `None`
    /// without [`Manager::shards`](super::Manager::shards).
    pub fn held_shards(&self) -> Option<HeldShards> {
        self.held_shards.clone()
    }

    /// The address the probes are served on, if any (the port the OS chose for `:0`).
    #[cfg(feature = "metrics")]
    pub fn probe_address(&self) -> Option<std::net::SocketAddr> {
        self.probes.as_ref().map(|p| p.address)
    }

    /// Stops the controllers (their queues drain, under the Lease when leading; the Lease
    /// is released), waiting at most the shutdown timeout, then the informers, the
    /// probes and the event recorders (which write what they still hold); returns how
    /// the controllers ended.
    pub async fn stop(self) -> Result<(), ManagerError> {
        self.stop.cancel();
        let waited = self.shutdown_timeout;
        let result = match tokio::time::timeout(waited, self.task).await {
            Ok(Ok(result)) => result,
            Ok(Err(error)) => {
                tracing::error!(%error, "the manager's controller task panicked");
                Ok(())
            }
            Err(_elapsed) => Err(ManagerError::ShutdownTimeout { waited }),
        };
        self.factory.shutdown().await;
        #[cfg(feature = "metrics")]
        if let Some(probes) = self.probes {
            probes.finish().await;
        }
        for recorder in &self.recorders {
            recorder.shutdown().await;
        }
        result
    }
}
