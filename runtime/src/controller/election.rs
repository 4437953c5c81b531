//! A controller under leader election: [`Controller::run_with_leader_election`].

use tokio_util::sync::CancellationToken;

use super::{Controller, Error, Reconciler, Result};
use crate::leaderelection::{LeaderElector, Outcome, StepDown};

impl Controller {
    /// Runs the controller on one replica at a time: campaigns with `elector` until this
    /// replica leads, then [runs](Self::run) the workers with `reconciler` while it
    /// leads, until `shutdown` is cancelled or the Lease is lost.
    ///
    /// - While this replica is a standby, its informers (started by the caller) keep
    ///   their caches and its handlers keep queueing keys, but no key is reconciled: the
    ///   queue holds the latest key of every change, deduplicated, for when it leads
    ///   (controller-runtime starts caches on every replica and controllers only on the
    ///   leader, for the same reason: a new leader starts with warm caches).
    /// - On `shutdown`, the workers drain under the Lease (the elector keeps renewing),
    ///   then the elector releases the Lease if it was configured to
    ///   (`release_on_cancel`), and this returns `Ok(())`. Also `Ok(())` if `shutdown`
    ///   came before this replica ever led.
    /// - If the Lease is lost (not renewed within the renew deadline, or taken), the
    ///   workers are cancelled and drained before the elector reports that it stopped
    ///   leading, and this returns [`Error::LeadershipLost`]: like client-go's
    ///   controllers, which exit on `OnStoppedLeading`, the controller is done and the
    ///   process should exit (non-zero) to be restarted as a fresh candidate.
    ///
    /// A controller runs once: afterwards its queue is shut down, whatever the outcome.
    ///
    /// ```no_run
    /// # async fn demo(client: kube::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use kubegen_runtime::controller::{Action, Controller, ControllerConfig, Reconciler};
    /// use kubegen_runtime::key::ObjectKey;
    /// use kubegen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// struct Foos;
    /// impl Reconciler for Foos {
    ///     type Error = std::convert::Infallible;
    ///     async fn reconcile(&self, _key: &ObjectKey) -> Result<Action, Self::Error> {
    ///         Ok(Action::Done)
    ///     }
    /// }
    ///
    /// let controller = Controller::new(ControllerConfig::default().name("foo-controller"));
    /// // controller.watches(&informer, ...); factory.start();
    /// let mut elector = LeaderElector::new(
    ///     client,
    ///     LeaderElectionConfig::default()
    ///         .lease_name("foo-controller")
    ///         .release_on_cancel(true),
    /// )?;
    /// let shutdown = CancellationToken::new(); // cancelled on SIGTERM
    /// // Err(LeadershipLost) ends the process with an error, as client-go's controllers do.
    /// controller
    ///     .run_with_leader_election(Foos, &mut elector, shutdown)
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::LeadershipLost`] as above; [`Error::CacheSyncTimeout`] if the caches do
    /// not sync once this replica leads (it then stops leading, releasing the Lease if
    /// configured); [`Error::AlreadyStarted`] if the controller already ran, before
    /// campaigning.
    pub async fn run_with_leader_election<R: Reconciler>(
        &self,
        reconciler: R,
        elector: &mut LeaderElector,
        shutdown: CancellationToken,
    ) -> Result<()> {
        self.claim()?;
        let outcome = elector
            .run(shutdown, |leading| {
                self.run_claimed(reconciler, leading.cancelled_owned())
            })
            .await;
        match outcome {
            Outcome::NeverLed => {
                tracing::info!(controller = %self.shared.name, "stopped before leading");
                self.shared.queue.shut_down();
                Ok(())
            }
            Outcome::Led {
                output,
                reason: StepDown::LeaseLost,
            } => {
                output?;
                Err(Error::LeadershipLost {
                    controller: self.shared.name.clone(),
                    identity: elector.identity().to_owned(),
                })
            }
            Outcome::Led {
                output,
                reason: StepDown::Shutdown | StepDown::WorkReturned,
            } => output,
        }
    }
}
