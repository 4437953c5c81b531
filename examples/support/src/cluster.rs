//! Connecting to a cluster: the kubeconfig, the in-cluster service account, or an API
//! server embedded in the process when no cluster is configured.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kubegen_testkit::ApiServer;

use crate::cli::ClusterArgs;

/// Why no cluster could be reached.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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
    /// Neither the kubeconfig nor the in-cluster configuration worked.
    #[error("failed to infer the cluster configuration")]
    Infer(#[source] kube::config::InferConfigError),
    /// The client could not be built.
    #[error("failed to create a Kubernetes client")]
    Client(#[source] kube::Error),
    /// The embedded API server did not start.
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
    /// The testkit API server, started in this process on 127.0.0.1.
    Embedded {
        /// Its URL.
        url: String,
    },
}

/// A client and, for the embedded case, the server it talks to (stopped on drop).
pub struct Cluster {
    client: kube::Client,
    source: ClusterSource,
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
    /// Connects as the flags say: `--embedded` starts an embedded server; `--kubeconfig`
    /// / `--context` read that kubeconfig; otherwise `kube::Config::infer` if a cluster is
    /// configured at all (`$KUBECONFIG`, `~/.kube/config`, `$KUBERNETES_SERVICE_HOST`),
    /// and an embedded server if none is.
    pub async fn connect(args: &ClusterArgs) -> Result<Self, Error> {
        let options = KubeConfigOptions {
            context: args.context.clone(),
            ..Default::default()
        };
        if args.embedded {
            return Self::embedded().await;
        }
        let (config, source) = if let Some(path) = &args.kubeconfig {
            let kubeconfig =
                Kubeconfig::read_from(path).map_err(|source| Error::ReadKubeconfig {
                    path: path.clone(),
                    source,
                })?;
            let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(Error::LoadKubeconfig)?;
            (config, ClusterSource::Kubeconfig)
        } else if args.context.is_some() {
            let config = kube::Config::from_kubeconfig(&options)
                .await
                .map_err(Error::LoadKubeconfig)?;
            (config, ClusterSource::Kubeconfig)
        } else if kubeconfig_configured() || in_cluster() {
            let source = if kubeconfig_configured() {
                ClusterSource::Kubeconfig
            } else {
                ClusterSource::InCluster
            };
            (kube::Config::infer().await.map_err(Error::Infer)?, source)
        } else {
            return Self::embedded().await;
        };
        let client = kube::Client::try_from(config).map_err(Error::Client)?;
        Ok(Self {
            client,
            source,
            server: None,
        })
    }

    /// Starts the testkit API server in this process and connects to it.
    pub async fn embedded() -> Result<Self, Error> {
        let server = ApiServer::start().await.map_err(Error::Embedded)?;
        Ok(Self::from_server(server))
    }

    /// Uses an already started testkit server (tests hand theirs in).
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
        self.server.is_some()
    }

    /// The embedded server, if any.
    pub fn server(&self) -> Option<&ApiServer> {
        self.server.as_ref()
    }

    /// Stops the embedded server, if any.
    pub async fn shutdown(self) {
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
