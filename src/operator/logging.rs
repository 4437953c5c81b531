//! Logging for operator binaries (feature `cli`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Logs to stderr with `tracing`, filtered by `RUST_LOG` (default: `info`), in colour
/// only when stderr is a terminal (a pod's log or a redirected file gets plain text).
/// Calling it twice keeps the first subscriber.
///
/// ```
/// kubegen::operator::init_logging();
/// tracing::info!("starting");
/// ```
pub fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
