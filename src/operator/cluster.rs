//! Connecting to a cluster: the kubeconfig, the in-cluster service account, or, with the
//! `embedded` feature, an API server started in the process when no cluster is
//! configured.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};
#[cfg(feature = "embedded")]
use kubegen_testkit::ApiServer;

use super::ClusterArgs;

/// Why no cluster could be reached.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The kubeconfig named by `--kubeconfig` could not be read.
    #[error("failed to read kubeconfig {path}")]
    ReadKubeconfig {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// The kubeconfig could not be turned into a client configuration.
    #[error("failed to load the kubeconfig")]
    LoadKubeconfig(#[source] kube::config::KubeconfigError),
    /// A cluster is configured, but neither the kubeconfig nor the in-cluster
    /// configuration worked.
    #[error("failed to infer the cluster configuration")]
    Infer(#[source] kube::config::InferConfigError),
    /// No cluster is configured at all (built without the `embedded` feature, which
    /// would start an API server in the process instead).
    #[error(
        "no cluster configured: pass --kubeconfig or set $KUBECONFIG, create ~/.kube/config, or run in a pod with a service account (building with kubegen's `embedded` feature runs an API server in the process instead)"
    )]
    NoCluster(#[source] kube::config::InferConfigError),
    /// The client could not be built.
    #[error("failed to create a Kubernetes client")]
    Client(#[source] kube::Error),
    /// The embedded API server did not start.
    #[cfg(feature = "embedded")]
    #[error("failed to start the embedded API server")]
    Embedded(#[source] kubegen_testkit::Error),
}

/// Where the client points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterSource {
    /// A kubeconfig file (`--kubeconfig`, `$KUBECONFIG` or `~/.kube/config`).
    Kubeconfig,
    /// The pod's service account.
    InCluster,
    /// The testkit API server, started in this process on 127.0.0.1 (only with the
    /// `embedded` feature).
    Embedded {
        /// Its URL.
        url: String,
    },
}

/// A client and, for the embedded case, the server it talks to (stopped on drop).
///
/// ```no_run
/// # async fn demo() -> Result<(), kubegen::operator::ConnectError> {
/// use kubegen::operator::{Cluster, ClusterArgs, ClusterSource};
///
/// let cluster = Cluster::connect(&ClusterArgs::default()).await?;
/// if let ClusterSource::Embedded { url } = cluster.source() {
///     println!("no cluster configured: started an API server at {url}");
/// }
/// let client = cluster.client();
/// # let _ = client;
/// cluster.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Cluster {
    client: kube::Client,
    source: ClusterSource,
    #[cfg(feature = "embedded")]
    server: Option<ApiServer>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Cluster {
    /// Connects as `args` say: `--kubeconfig` / `--context` read that kubeconfig;
    /// otherwise `kube::Config::infer` (`$KUBECONFIG`, `~/.kube/config`, then the
    /// in-cluster service account).
    ///
    /// With the `embedded` feature, `--embedded` starts an API server in the process, and
    /// so does finding no cluster configured at all; without it, finding none is
    /// [`ConnectError::NoCluster`], which says what to configure.
    pub async fn connect(args: &ClusterArgs) -> Result<Self, ConnectError> {
        #[cfg(feature = "embedded")]
        if args.embedded {
            return Self::embedded().await;
        }
        let options = KubeConfigOptions {
            context: args.context.clone(),
            ..Default::default()
        };
        let (config, source) = if let Some(path) = &args.kubeconfig {
            let kubeconfig =
                Kubeconfig::read_from(path).map_err(|source| ConnectError::ReadKubeconfig {
                    path: path.clone(),
                    source,
                })?;
            let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(ConnectError::LoadKubeconfig)?;
            (config, ClusterSource::Kubeconfig)
        } else if args.context.is_some() {
            let config = kube::Config::from_kubeconfig(&options)
                .await
                .map_err(ConnectError::LoadKubeconfig)?;
            (config, ClusterSource::Kubeconfig)
        } else if kubeconfig_configured() || in_cluster() {
            let source = if kubeconfig_configured() {
                ClusterSource::Kubeconfig
            } else {
                ClusterSource::InCluster
            };
            let config = kube::Config::infer().await.map_err(ConnectError::Infer)?;
            (config, source)
        } else {
            return Self::unconfigured().await;
        };
        Self::with_config(config, source)
    }

    fn with_config(config: kube::Config, source: ClusterSource) -> Result<Self, ConnectError> {
        let client = kube::Client::try_from(config).map_err(ConnectError::Client)?;
        Ok(Self {
            client,
            source,
            #[cfg(feature = "embedded")]
            server: None,
        })
    }

    /// No cluster is configured: the embedded API server.
    #[cfg(feature = "embedded")]
    async fn unconfigured() -> Result<Self, ConnectError> {
        Self::embedded().await
    }

    /// No cluster seems configured: `kube::Config::infer` has the last word, and its
    /// error says what to configure.
    #[cfg(not(feature = "embedded"))]
    async fn unconfigured() -> Result<Self, ConnectError> {
        let config = kube::Config::infer()
            .await
            .map_err(ConnectError::NoCluster)?;
        Self::with_config(config, ClusterSource::Kubeconfig)
    }

    /// Starts the testkit API server in this process and connects to it.
    #[cfg(feature = "embedded")]
    pub async fn embedded() -> Result<Self, ConnectError> {
        let server = ApiServer::start().await.map_err(ConnectError::Embedded)?;
        Ok(Self::from_server(server))
    }

    /// Uses an already started testkit server (tests hand theirs in); it is stopped by
    /// [`shutdown`](Self::shutdown).
    #[cfg(feature = "embedded")]
    pub fn from_server(server: ApiServer) -> Self {
        let source = ClusterSource::Embedded { url: server.url() };
        Self {
            client: server.client(),
            source,
            server: Some(server),
        }
    }

    /// The client.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// Where the client points.
    pub fn source(&self) -> &ClusterSource {
        &self.source
    }

    /// Whether this is the embedded API server.
    pub fn is_embedded(&self) -> bool {
        matches!(self.source, ClusterSource::Embedded { .. })
    }

    /// The embedded server, if any (to inject faults in tests, or write its kubeconfig).
    #[cfg(feature = "embedded")]
    pub fn server(&self) -> Option<&ApiServer> {
        self.server.as_ref()
    }

    /// Stops the embedded server, if any.
    pub async fn shutdown(self) {
        #[cfg(feature = "embedded")]
        if let Some(server) = self.server {
            server.shutdown().await;
        }
    }
}

fn kubeconfig_configured() -> bool {
    if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty()) {
        return true;
    }
    std::env::home_dir().is_some_and(|home| home.join(".kube").join("config").is_file())
}

fn in_cluster() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some_and(|v| !v.is_empty())
}
