//! Waiting until a controller has converged (a demo's or a test's end): the state is checked
//! after every processed key, never on a timer.

use std::fmt::Display;
use std::future::Future;

use tokio::sync::watch;

/// A report of where a controller stands, that knows whether it has converged.
pub trait Converged: Display {
    /// Whether the server holds exactly what the controller should have produced.
    fn converged(&self) -> bool;
}

/// Runs `check` now and again each time `processed` changes (a worker finished a key),
/// until a report says it converged, and returns that report. Failed checks and reports
/// that have not converged are logged at debug level. If the controller is gone (the
/// sender dropped), waits forever, so the caller's other stop conditions apply.
///
/// ```
/// use kubegen::operator::{Converged, wait_converged};
///
/// struct Count(u64);
/// impl std::fmt::Display for Count {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "{} processed", self.0)
///     }
/// }
/// impl Converged for Count {
///     fn converged(&self) -> bool {
///         self.0 >= 2
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (processed_tx, processed) = tokio::sync::watch::channel(0u64);
/// let worker = tokio::spawn(async move {
///     for n in 1..=2 {
///         processed_tx.send_replace(n);
///         tokio::task::yield_now().await;
///     }
///     processed_tx
/// });
/// let watched = processed.clone();
/// let report = wait_converged(processed, || {
///     let n = *watched.borrow();
///     async move { Ok::<_, std::convert::Infallible>(Count(n)) }
/// })
/// .await;
/// assert!(report.converged());
/// drop(worker.await.unwrap());
/// # }
/// ```
pub async fn wait_converged<R, E, F, Fut>(mut processed: watch::Receiver<u64>, mut check: F) -> R
where
    R: Converged,
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<R, E>>,
{
    loop {
        processed.borrow_and_update();
        match check().await {
            Ok(report) if report.converged() => return report,
            Ok(report) => tracing::debug!("not converged yet:\n{report}"),
            Err(error) => tracing::debug!(%error, "convergence check failed"),
        }
        if processed.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
