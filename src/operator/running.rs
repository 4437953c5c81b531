//! A controller's reconcile loop on its own task: alone, or under leader election.

use kubegen_runtime::controller::{self, Controller, Reconciler};
use kubegen_runtime::leaderelection::LeaderElector;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A controller running on a task, as [`Controller::run`] or, given an elector,
/// [`Controller::run_with_leader_election`]. Stop it with [`stop`](Self::stop); under
/// leader election it may also stop by itself (a lost Lease), which
/// [`stopped`](Self::stopped) tells.
///
/// ```no_run
/// # async fn demo(controller: kubegen::runtime::controller::Controller, reconciler: impl kubegen::runtime::controller::Reconciler) -> Result<(), kubegen::runtime::controller::Error> {
/// use kubegen::operator::{RunningController, shutdown_signal};
///
/// let running = RunningController::spawn(controller, reconciler, None);
/// tokio::select! {
///     () = shutdown_signal() => {}     // SIGTERM or Ctrl-C: drain and stop
///     () = running.stopped() => {}     // stopped by itself: stop() says why
/// }
/// running.stop().await
/// # }
/// ```
#[derive(Debug)]
pub struct RunningController {
    shutdown: CancellationToken,
    stopped: CancellationToken,
    task: JoinHandle<controller::Result<()>>,
}

impl RunningController {
    /// Spawns the run on the current Tokio runtime.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn spawn<R: Reconciler>(
        controller: Controller,
        reconciler: R,
        elector: Option<LeaderElector>,
    ) -> Self {
        let shutdown = CancellationToken::new();
        let stopped = CancellationToken::new();
        let task = tokio::spawn({
            let shutdown = shutdown.clone();
            // Cancels `stopped` when the run ends, however it ends.
            let guard = stopped.clone().drop_guard();
            async move {
                let _guard = guard;
                match elector {
                    Some(mut elector) => {
                        controller
                            .run_with_leader_election(reconciler, &mut elector, shutdown)
                            .await
                    }
                    None => controller.run(reconciler, shutdown.cancelled_owned()).await,
                }
            }
        });
        Self {
            shutdown,
            stopped,
            task,
        }
    }

    /// Resolves once the run has ended: after [`stop`](Self::stop), or by itself (the
    /// Lease was lost, or the caches never synced).
    pub fn stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        self.stopped.clone().cancelled_owned()
    }

    /// Stops the run (the queue drains; under leader election, under the Lease) and
    /// returns how it ended.
    pub async fn stop(self) -> controller::Result<()> {
        self.shutdown.cancel();
        match self.task.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "the controller task panicked");
                Ok(())
            }
        }
    }
}
