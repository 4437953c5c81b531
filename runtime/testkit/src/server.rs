//! The server: configuration, start, the `kube::Client` and kubeconfig for it, and
//! shutdown.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use serde_json::json;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::faults::{FaultState, Faults};
use super::objects;
use super::routes;
use super::storage::Cluster;

/// Errors of starting the server or writing its kubeconfig.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Binding the listening socket failed.
    #[error("failed to bind the testkit API server to {address}")]
    Bind {
        /// The address that could not be bound.
        address: SocketAddr,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Reading the bound address failed.
    #[error("failed to read the testkit API server's local address")]
    LocalAddr(#[source] std::io::Error),
    /// The server's own URL did not parse.
    #[error("invalid testkit API server URL: {0}")]
    Url(String),
    /// Building the `kube::Client` for the server failed.
    #[error("failed to build a kube client for the testkit API server")]
    Client(#[source] kube::Error),
    /// Seeding the built-in namespaces failed.
    #[error("failed to create the built-in namespaces: {0}")]
    Bootstrap(String),
    /// Writing the kubeconfig file failed.
    #[error("failed to write the testkit kubeconfig to {path}")]
    Kubeconfig {
        /// The file that could not be written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Serializing the kubeconfig failed.
    #[error("failed to serialize the testkit kubeconfig: {0}")]
    KubeconfigYaml(String),
}

/// Result of server operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Server settings, with [`Default`] and consuming setters.
///
/// ```
/// use std::time::Duration;
/// use kubegen_testkit::ApiServerConfig;
///
/// let config = ApiServerConfig::default()
///     .history_window(100)
///     .bookmark_interval(Duration::from_secs(5));
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiServerConfig {
    pub(crate) port: u16,
    pub(crate) history_window: usize,
    pub(crate) bookmark_interval: Duration,
    pub(crate) watch_timeout: Duration,
}

impl Default for ApiServerConfig {
    fn default() -> Self {
        Self {
            port: 0,
            history_window: 10_000,
            bookmark_interval: Duration::from_secs(60),
            watch_timeout: Duration::from_secs(1800),
        }
    }
}

impl ApiServerConfig {
    /// The loopback port to listen on (default 0: a free port).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// How many events of history to keep for watches and exact-version lists (default
    /// 10 000); older resourceVersions get 410 Expired.
    pub fn history_window(mut self, events: usize) -> Self {
        self.history_window = events.max(1);
        self
    }

    /// How often watches with `allowWatchBookmarks=true` get a BOOKMARK (default 60 s,
    /// about what a real server does).
    pub fn bookmark_interval(mut self, interval: Duration) -> Self {
        self.bookmark_interval = interval;
        self
    }

    /// How long a watch without `timeoutSeconds` stays open (default 30 min).
    pub fn watch_timeout(mut self, timeout: Duration) -> Self {
        self.watch_timeout = timeout;
        self
    }

    /// Starts a server with these settings.
    pub async fn start(self) -> Result<ApiServer> {
        ApiServer::start_with(self).await
    }
}

/// State shared by the HTTP handlers, the watch streams and the fault handle.
pub(crate) struct Shared {
    cluster: Mutex<Cluster>,
    faults: Mutex<FaultState>,
    kill: watch::Sender<u64>,
    pub(crate) config: ApiServerConfig,
    pub(crate) address: SocketAddr,
}

impl Shared {
    /// The cluster state (a poisoned lock is recovered: state stays consistent per write).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Cluster> {
        self.cluster.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cluster state for a write; with `dry_run` the write is computed, not stored.
    pub(crate) fn write(&self, dry_run: bool) -> WriteGuard<'_> {
        let mut guard = self.lock();
        guard.set_dry_run(dry_run);
        WriteGuard(guard)
    }

    pub(crate) fn faults(&self) -> MutexGuard<'_, FaultState> {
        self.faults.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends every open watch stream immediately.
    pub(crate) fn kill_watches(&self) {
        self.kill.send_modify(|epoch| *epoch += 1);
    }

    pub(crate) fn kill_receiver(&self) -> watch::Receiver<u64> {
        self.kill.subscribe()
    }
}

/// The locked cluster during one write; leaves dry-run mode when dropped.
pub(crate) struct WriteGuard<'a>(MutexGuard<'a, Cluster>);

impl std::ops::Deref for WriteGuard<'_> {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.0
    }
}

impl std::ops::DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Cluster {
        &mut self.0
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        self.0.set_dry_run(false);
    }
}

/// A Kubernetes API server running in this process, on 127.0.0.1.
///
/// Dropping it (or [`ApiServer::shutdown`]) stops it and ends open watches.
pub struct ApiServer {
    shared: Arc<Shared>,
    client: kube::Client,
    kube_config: kube::Config,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    kubeconfig_dir: PathBuf,
}

impl std::fmt::Debug for ApiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiServer")
            .field("address", &self.shared.address)
            .finish_non_exhaustive()
    }
}

impl ApiServer {
    /// Starts a server with default settings on a free port.
    pub async fn start() -> Result<Self> {
        Self::start_with(ApiServerConfig::default()).await
    }

    /// Settings for a server: `ApiServer::builder().history_window(50).start().await`.
    pub fn builder() -> ApiServerConfig {
        ApiServerConfig::default()
    }

    /// Starts a server with the given settings.
    pub async fn start_with(config: ApiServerConfig) -> Result<Self> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, config.port));
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| Error::Bind { address, source })?;
        let address = listener.local_addr().map_err(Error::LocalAddr)?;
        let mut cluster = Cluster::new(config.history_window);
        objects::bootstrap(&mut cluster).map_err(|e| Error::Bootstrap(e.message))?;
        let (kill, _) = watch::channel(0);
        let shared = Arc::new(Shared {
            cluster: Mutex::new(cluster),
            faults: Mutex::new(FaultState::default()),
            kill,
            config,
            address,
        });
        let (stop, task) = serve(listener, shared.clone());
        let url: axum::http::Uri = format!("http://{address}")
            .parse()
            .map_err(|e: axum::http::uri::InvalidUri| Error::Url(e.to_string()))?;
        let mut kube_config = kube::Config::new(url);
        kube_config.default_namespace = "default".to_owned();
        let mut client_config = kube_config.clone();
        client_config.default_retry = false;
        let client = kube::Client::try_from(client_config).map_err(Error::Client)?;
        let kubeconfig_dir = std::env::temp_dir().join(format!(
            "kubegen-testkit-{}-{}",
            std::process::id(),
            address.port()
        ));
        tracing::info!(%address, "testkit API server listening");
        Ok(Self {
            shared,
            client,
            kube_config,
            stop: Some(stop),
            task: Some(task),
            kubeconfig_dir,
        })
    }

    /// The address the server listens on.
    pub fn address(&self) -> SocketAddr {
        self.shared.address
    }

    /// The server's base URL, e.g. `http://127.0.0.1:34567`.
    pub fn url(&self) -> String {
        format!("http://{}", self.shared.address)
    }

    /// A `kube::Client` talking to this server (plain HTTP, no auth, namespace
    /// `default`). Its automatic retries of 429/503/504 are off, so tests see every
    /// answer the server gives, injected faults included; build a client from
    /// [`ApiServer::kube_config`] to get kube's default retrying behaviour.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// A `kube::Config` for this server with kube's defaults (retries on).
    pub fn kube_config(&self) -> kube::Config {
        self.kube_config.clone()
    }

    /// A handle to inject faults; cheap to clone and usable from any task.
    pub fn faults(&self) -> Faults {
        Faults {
            shared: self.shared.clone(),
        }
    }

    /// The current (latest) resourceVersion of the server's global counter.
    pub fn resource_version(&self) -> u64 {
        self.shared.lock().current_rv()
    }

    /// Writes a kubeconfig (YAML) pointing at this server and returns its path; the file
    /// is removed when the server stops.
    pub fn kubeconfig(&self) -> Result<PathBuf> {
        let document = json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "kubegen-testkit", "cluster": {"server": self.url()}}],
            "users": [{"name": "kubegen-testkit", "user": {}}],
            "contexts": [{"name": "kubegen-testkit", "context": {"cluster": "kubegen-testkit", "user": "kubegen-testkit", "namespace": "default"}}],
            "current-context": "kubegen-testkit",
            "preferences": {},
        });
        let yaml =
            serde_saphyr::to_string(&document).map_err(|e| Error::KubeconfigYaml(e.to_string()))?;
        let path = self.kubeconfig_dir.join("kubeconfig");
        std::fs::create_dir_all(&self.kubeconfig_dir)
            .and_then(|()| std::fs::write(&path, yaml))
            .map_err(|source| Error::Kubeconfig {
                path: path.clone(),
                source,
            })?;
        Ok(path)
    }

    /// Restarts the server process, as a real API server restarts with its storage
    /// intact: every connection (open watches included) is closed, then the server
    /// listens again on the same port with the same objects, resourceVersions and event
    /// history. Faults stay armed.
    pub async fn restart(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take() {
            // A watch opened while stopping would hold the shutdown open: end the open
            // watches until the server has stopped.
            loop {
                self.shared.lock().watchers.clear();
                self.shared.kill_watches();
                if tokio::time::timeout(Duration::from_millis(20), &mut task)
                    .await
                    .is_ok()
                {
                    break;
                }
            }
        }
        let address = self.shared.address;
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| Error::Bind { address, source })?;
        let (stop, task) = serve(listener, self.shared.clone());
        self.stop = Some(stop);
        self.task = Some(task);
        tracing::info!(%address, "testkit API server restarted");
        Ok(())
    }

    fn stop(&mut self) {
        self.shared.lock().watchers.clear();
        self.shared.kill_watches();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = std::fs::remove_dir_all(&self.kubeconfig_dir);
    }

    /// Stops accepting requests, ends open watches and waits for in-flight requests.
    pub async fn shutdown(mut self) {
        self.stop();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Serves the API on `listener` until the returned sender fires (or is dropped).
fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let router = Router::new().fallback(routes::handle).with_state(shared);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let shutdown = async {
            // Either an explicit stop or the server handle going away.
            let _ = stopped.await;
        };
        if let Err(error) = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::error!(%error, "testkit API server failed");
        }
    });
    (stop, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_can_be_shared_across_tasks() {
        fn shareable<T: Send + Sync + 'static>() {}
        shareable::<ApiServer>();
        shareable::<Faults>();
        shareable::<ApiServerConfig>();
    }

    #[test]
    fn config_setters() {
        let config = ApiServerConfig::default()
            .port(8080)
            .history_window(0)
            .bookmark_interval(Duration::from_secs(5))
            .watch_timeout(Duration::from_secs(10));
        assert_eq!(config.port, 8080);
        assert_eq!(
            config.history_window, 1,
            "a window keeps at least one event"
        );
        assert_eq!(config.bookmark_interval, Duration::from_secs(5));
        assert_eq!(config.watch_timeout, Duration::from_secs(10));
    }
}
