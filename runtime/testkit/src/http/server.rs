//! The server: start, the `kube::Client` and kubeconfig for it, the fault handle, and
//! shutdown.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use serde_json::json;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use crate::http::routes;
use crate::store::faults::{Delay, Failure};
use crate::store::shared::{ApiServerConfig, Shared};
use crate::store::storage::Cluster;
use crate::verbs::{collector, objects};

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

impl ApiServerConfig {
    /// Starts a server with these settings.
    pub async fn start(self) -> Result<ApiServer> {
        ApiServer::start_with(self).await
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
    /// The collection of dangling dependents, if on.
    collector: Option<JoinHandle<()>>,
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
        let owned_writes = config
            .collect_dangling_dependents
            .then(|| cluster.queue_owned_writes());
        let shared = Arc::new(Shared::new(cluster, config, address));
        let collector = owned_writes.map(|written| collect(shared.clone(), written));
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
            collector,
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

    /// Mints a bearer token for the ServiceAccount `namespace/name`: requests carrying
    /// it are user `system:serviceaccount:<namespace>:<name>` in the groups
    /// `system:serviceaccounts`, `system:serviceaccounts:<namespace>` and
    /// `system:authenticated`, authorized by RBAC when the server was started with
    /// [`ApiServerConfig::rbac`]. The ServiceAccount object itself need not exist.
    pub fn service_account_token(&self, namespace: &str, name: &str) -> String {
        self.shared.tokens().mint(namespace, name)
    }

    /// A `kube::Config` for this server (kube's defaults, namespace `namespace`)
    /// authenticating as the ServiceAccount `namespace/name` with a new token.
    pub fn service_account_config(&self, namespace: &str, name: &str) -> kube::Config {
        let mut config = self.kube_config.clone();
        config.default_namespace = namespace.to_owned();
        config.auth_info.token = Some(self.service_account_token(namespace, name).into());
        config
    }

    /// A `kube::Client` as [`ApiServer::client`]'s (retries off) authenticating as the
    /// ServiceAccount `namespace/name`, with `namespace` as its default namespace.
    pub fn service_account_client(&self, namespace: &str, name: &str) -> Result<kube::Client> {
        let mut config = self.service_account_config(namespace, name);
        config.default_retry = false;
        kube::Client::try_from(config).map_err(Error::Client)
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
        if let Some(collector) = self.collector.take() {
            collector.abort();
        }
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

/// Runs the collection of dangling dependents (`verbs/collector.rs`) after each write of
/// an object with ownerReferences, until aborted. A server restart does not stop it: a
/// cluster's garbage collector is another process.
fn collect(shared: Arc<Shared>, written: Arc<Notify>) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            written.notified().await;
            let collected = collector::collect_dangling(&mut shared.lock());
            for (write, what) in collected {
                if what == collector::Collected::Deleted {
                    tracing::debug!(
                        namespace = write.key.0,
                        name = write.key.1,
                        resource = write.storage.plural,
                        "deleted a dependent whose owners are gone"
                    );
                }
            }
        }
    })
}

/// A cheap, cloneable handle to make a running [`ApiServer`] misbehave.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use kubegen_testkit::{ApiServer, Failure, Matcher, Verb};
///
/// let server = ApiServer::start().await?;
/// let faults = server.faults();
/// // The next two lists of configmaps answer 429 with Retry-After: 1.
/// faults.fail(
///     Failure::status(429)
///         .times(2)
///         .retry_after(Duration::from_secs(1))
///         .matching(Matcher::any().verb(Verb::List).resource("configmaps")),
/// );
/// faults.drop_watches();
/// faults.compact();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Faults {
    pub(crate) shared: Arc<Shared>,
}

impl fmt::Debug for Faults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Faults").finish_non_exhaustive()
    }
}

impl Faults {
    /// Ends every open watch stream now; clients see their watch end and must re-watch.
    pub fn drop_watches(&self) {
        self.shared.lock().watchers.clear();
        self.shared.kill_watches();
    }

    /// Arms a failure: matching requests answer with a `metav1.Status` error.
    pub fn fail(&self, failure: Failure) {
        self.shared.faults().fail(failure);
    }

    /// Delays matching requests (delays of several matching rules add up).
    pub fn delay(&self, delay: Delay) {
        self.shared.faults().delay(delay);
    }

    /// Removes every armed failure and delay.
    pub fn clear(&self) {
        self.shared.faults().clear();
    }

    /// Drops all event history now: watches and exact lists from any older
    /// resourceVersion get 410 Expired.
    pub fn compact(&self) {
        self.shared.lock().compact();
    }

    /// Holds back every watch event (and bookmark) until [`Faults::resume_watches`].
    pub fn pause_watches(&self) {
        self.shared.lock().watchers.pause();
    }

    /// Delivers held-back watch events, in order, and stops holding them.
    pub fn resume_watches(&self) {
        self.shared.lock().watchers.resume();
    }

    /// Sends a BOOKMARK at the current resourceVersion to every watch that allowed
    /// bookmarks, now (besides the periodic ones).
    pub fn send_bookmarks(&self) {
        let mut cluster = self.shared.lock();
        let rv = cluster.current_rv();
        cluster.watchers.bookmark_all(rv);
    }

    /// Number of watch streams currently open.
    pub fn open_watches(&self) -> usize {
        self.shared.lock().watchers.len()
    }
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
            .watch_timeout(Duration::from_secs(10))
            .collect_dangling_dependents(false);
        assert_eq!(config.port, 8080);
        assert!(!config.collect_dangling_dependents);
        assert!(ApiServerConfig::default().collect_dangling_dependents);
        assert_eq!(
            config.history_window, 1,
            "a window keeps at least one event"
        );
        assert_eq!(config.bookmark_interval, Duration::from_secs(5));
        assert_eq!(config.watch_timeout, Duration::from_secs(10));
    }
}
