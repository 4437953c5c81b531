//! `/metrics`, `/healthz` and `/readyz` over HTTP/1, served while a
//! [`Manager`](super::Manager) runs.

use std::net::SocketAddr;
use std::time::Duration;

use kubegen_runtime::factory::SharedInformerFactory;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::operator::Metrics;

/// The served probes.
#[derive(Debug)]
pub(super) struct Probes {
    pub(super) address: SocketAddr,
    task: JoinHandle<std::io::Result<()>>,
}

impl Probes {
    /// Waits for the server to finish the requests in flight.
    pub(super) async fn finish(self) {
        match self.task.await {
            Ok(Err(error)) => tracing::error!(%error, "the probe server failed"),
            Err(error) => tracing::error!(%error, "the probe server panicked"),
            Ok(Ok(())) => {}
        }
    }
}

/// A listener on `address` and the address it is bound to (the port the OS chose
/// for `:0`), bound without awaiting so that starting a manager is synchronous.
pub(super) fn bind(address: SocketAddr) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = std::net::TcpListener::bind(address)?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    Ok((tokio::net::TcpListener::from_std(listener)?, bound))
}

/// Serves on `listener`, bound to `address`, until `stop`.
pub(super) fn serve(
    listener: tokio::net::TcpListener,
    address: SocketAddr,
    metrics: Metrics,
    factory: SharedInformerFactory,
    stop: CancellationToken,
) -> Probes {
    use axum::http::StatusCode;
    use axum::routing::get;
    let ready = get(move || {
        let factory = factory.clone();
        async move {
            // A zero timeout still checks once: synced informers answer at once.
            let report = factory.wait_for_cache_sync(Duration::ZERO).await;
            let unsynced: Vec<&str> = report
                .iter()
                .filter(|(_, synced)| !**synced)
                .map(|(name, _)| name.as_str())
                .collect();
            if unsynced.is_empty() {
                (StatusCode::OK, "ok".to_owned())
            } else {
                let lines = unsynced.join("\n");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("not synced:\n{lines}\n"),
                )
            }
        }
    });
    let app = metrics.router().route("/readyz", ready);
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
    });
    Probes { address, task }
}
