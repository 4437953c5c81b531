//! [`shutdown_signal`]: when the operator is asked to stop.

/// Resolves when the process is asked to stop: on unix at the first SIGTERM (what the
/// kubelet sends a pod's containers before it kills them, as `docker stop` and systemd
/// do) or SIGINT (Ctrl-C); elsewhere at Ctrl-C.
///
/// Await it, then stop the controller ([`RunningController::stop`](super::RunningController::stop)),
/// which drains the work queue and, under leader election, releases the Lease, so a
/// standby replica takes over at once. A process that does not handle SIGTERM ends on
/// the spot: no drain, and the Lease stays held until it expires. The drain must end
/// within the pod's `terminationGracePeriodSeconds` (30 s by default), after which the
/// kubelet sends SIGKILL.
///
/// The handlers are installed when the future is first polled, as with
/// `tokio::signal::ctrl_c`: until then both signals keep their default action and end
/// the process at once, which suits start-up (connecting, installing CRDs), when there
/// is nothing to drain. Once installed, a handler stays for the life of the process: a
/// second SIGTERM or Ctrl-C during the drain does not end it. If a handler cannot be
/// installed, that is logged and the future waits for the other signal (forever if
/// neither could be), so the caller's other stop conditions still apply.
///
/// ```no_run
/// # async fn demo(running: kubegen::operator::RunningController) -> Result<(), kubegen::runtime::controller::Error> {
/// use kubegen::operator::shutdown_signal;
///
/// tokio::select! {
///     () = shutdown_signal() => {}
///     () = running.stopped() => {} // stopped by itself: stop() says why
/// }
/// running.stop().await // drained; the Lease released
/// # }
/// ```
///
/// # Panics
/// When first polled outside a Tokio runtime whose drivers are enabled (`enable_all`,
/// as `#[tokio::main]` does).
pub async fn shutdown_signal() {
    imp::shutdown_signal().await;
}

/// The target of this module's logs (rather than its platform submodule's path).
const LOG_TARGET: &str = "kubegen::operator::shutdown";

#[cfg(unix)]
mod imp {
    use std::io;

    use tokio::signal::unix::{Signal, SignalKind, signal};

    pub(super) async fn shutdown_signal() {
        let terminate = signal(SignalKind::terminate());
        let interrupt = signal(SignalKind::interrupt());
        tokio::select! {
            () = received(terminate, "SIGTERM") => {}
            () = received(interrupt, "SIGINT") => {}
        }
    }

    /// Resolves on the first `name` signal; never, if its handler could not be installed.
    async fn received(installed: io::Result<Signal>, name: &str) {
        match installed {
            Ok(mut signal) => {
                // `None`: the runtime is shutting down, and no signal will come.
                if signal.recv().await.is_some() {
                    tracing::info!(target: super::LOG_TARGET, "{name}: shutting down, draining the work queue");
                    return;
                }
            }
            Err(error) => {
                tracing::error!(target: super::LOG_TARGET, %error, "failed to listen for {name}")
            }
        }
        std::future::pending::<()>().await;
    }
}

#[cfg(not(unix))]
mod imp {
    pub(super) async fn shutdown_signal() {
        match tokio::signal::ctrl_c().await {
            Ok(()) => {
                tracing::info!(target: super::LOG_TARGET, "Ctrl-C: shutting down, draining the work queue")
            }
            Err(error) => {
                tracing::error!(target: super::LOG_TARGET, %error, "failed to listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    //! Each signal is sent to a child process: this test binary again, running only
    //! [`child_waits_for_a_shutdown_signal`], which polls [`shutdown_signal`] once (so its
    //! handlers are installed), says so on stdout, and exits 0 once it resolves. A signal
    //! the handlers missed would end the child instead.

    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    use super::shutdown_signal;

    /// Set in the child's environment.
    const CHILD: &str = "KUBEGEN_SHUTDOWN_SIGNAL_CHILD";
    /// In the child's output once its handlers are installed (the test harness may have
    /// written `test <name> ... ` before it on the same line).
    const READY: &str = "kubegen-shutdown-signal-ready";
    /// In the child's output once the signal resolved the future.
    const RESOLVED: &str = "kubegen-shutdown-signal-resolved";

    /// In the child: installs the handlers, says so, and waits for a signal (a guard
    /// against a hang ends it with code 3 after a minute). Does nothing in a normal run.
    #[tokio::test]
    async fn child_waits_for_a_shutdown_signal() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        let mut shutdown = std::pin::pin!(shutdown_signal());
        // The first poll installs the handlers.
        assert!(futures::poll!(&mut shutdown).is_pending());
        println!("{READY}");
        if tokio::time::timeout(Duration::from_secs(60), shutdown)
            .await
            .is_err()
        {
            std::process::exit(3);
        }
        println!("{RESOLVED}");
    }

    /// Starts the child, waits until it is ready, sends it `signal` with kill(1), and
    /// returns how it exited and what it wrote after it was ready (read to the end: a
    /// closed pipe would fail the child's last writes).
    fn signal_child(signal: &str) -> (std::process::ExitStatus, String) {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "operator::shutdown::tests::child_waits_for_a_shutdown_signal",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.contains(READY));
        assert!(ready, "the child ended before its handlers were installed");
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success(), "kill -{signal} failed");
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        (child.wait().unwrap(), rest.join("\n"))
    }

    #[test]
    fn sigterm_resolves_it_and_the_process_exits_cleanly() {
        let (status, output) = signal_child("TERM");
        assert_eq!(status.signal(), None, "killed by a signal: {status}");
        assert!(status.success(), "{status}: {output}");
        assert!(output.contains(RESOLVED), "{output}");
    }

    #[test]
    fn sigint_resolves_it_and_the_process_exits_cleanly() {
        let (status, output) = signal_child("INT");
        assert_eq!(status.signal(), None, "killed by a signal: {status}");
        assert!(status.success(), "{status}: {output}");
        assert!(output.contains(RESOLVED), "{output}");
    }
}
