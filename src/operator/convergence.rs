//! Waiting until a controller, or every controller of a manager, has converged (a demo's
//! or a test's end): the state is checked after every processed key, never on a timer.

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
pub async fn wait_converged<R, E, F, Fut>(processed: watch::Receiver<u64>, check: F) -> R
where
    R: Converged,
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<R, E>>,
{
    wait_any_converged(vec![processed], check).await
}

/// [`wait_converged`], checking again each time any of `processed` changes; with none
/// (or once every sender is dropped) after the first check, waits forever.
pub(super) async fn wait_any_converged<R, E, F, Fut>(
    mut processed: Vec<watch::Receiver<u64>>,
    mut check: F,
) -> R
where
    R: Converged,
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<R, E>>,
{
    loop {
        for receiver in &mut processed {
            receiver.borrow_and_update();
        }
        match check().await {
            Ok(report) if report.converged() => return report,
            Ok(report) => tracing::debug!("not converged yet:\n{report}"),
            Err(error) => tracing::debug!(%error, "convergence check failed"),
        }
        if !any_changed(&mut processed).await {
            std::future::pending::<()>().await;
        }
    }
}

/// Waits until one of `processed` changes (`true`), or every sender is dropped
/// (`false`).
async fn any_changed(processed: &mut [watch::Receiver<u64>]) -> bool {
    let mut changes: Vec<_> = processed
        .iter_mut()
        .map(|receiver| Box::pin(receiver.changed()))
        .collect();
    while !changes.is_empty() {
        let (changed, _, others) = futures::future::select_all(changes).await;
        if changed.is_ok() {
            return true;
        }
        changes = others;
    }
    false
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::fmt;

    use super::*;

    /// Converged once `want` keys were processed in all.
    struct Total(u64, u64);

    impl fmt::Display for Total {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{} of {}", self.0, self.1)
        }
    }

    impl Converged for Total {
        fn converged(&self) -> bool {
            self.0 >= self.1
        }
    }

    #[tokio::test]
    async fn any_controller_finishing_a_key_checks_again() {
        let (first_tx, first) = watch::channel(0u64);
        let (second_tx, second) = watch::channel(0u64);
        let watched = [first.clone(), second.clone()];
        let checks = std::cell::Cell::new(0);
        let waiting = wait_any_converged(vec![first, second], || {
            checks.set(checks.get() + 1);
            let total = *watched[0].borrow() + *watched[1].borrow();
            async move { Ok::<_, Infallible>(Total(total, 3)) }
        });
        let worker = async {
            // Only the second controller works: its keys alone must wake the check.
            for n in 1..=3 {
                tokio::task::yield_now().await;
                second_tx.send_replace(n);
            }
            first_tx
        };
        let (report, _first_tx) = tokio::join!(waiting, worker);
        assert!(report.converged(), "{report}");
        assert!(
            checks.get() >= 2,
            "checked again after the second controller's keys"
        );
    }

    #[tokio::test]
    async fn gone_controllers_leave_the_caller_to_stop_waiting() {
        let (sender, processed) = watch::channel(0u64);
        drop(sender);
        let checks = std::cell::Cell::new(0);
        let waiting = wait_any_converged(vec![processed], || {
            checks.set(checks.get() + 1);
            async { Ok::<_, Infallible>(Total(0, 1)) }
        });
        let mut waiting = std::pin::pin!(waiting);
        for _ in 0..3 {
            assert!(futures::poll!(waiting.as_mut()).is_pending(), "waits on");
            tokio::task::yield_now().await;
        }
        assert_eq!(
            checks.get(),
            1,
            "and checks no more once every sender is gone"
        );
    }
}
