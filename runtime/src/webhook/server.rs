//! [`WebhookServer`]: the accept loop (TCP, then TLS, then HTTP/1 per connection), the
//! routes, and graceful shutdown.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use kube::core::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::admission::{MutatingEndpoint, ValidatingEndpoint};
use super::certs::CertWatcher;
use super::conversion::{ConversionEndpoint, Converter};
use super::http::{self, Endpoint};
use super::manifests::AdmissionTarget;
use super::{Error, Mutator, Result, Validator};
use crate::metrics::NoopMetrics;
use crate::metrics::webhook::WebhookMetricsProvider;

/// The health path: `GET` answers `ok` while the server accepts connections.
const HEALTHZ: &str = "/healthz";

/// How the [`WebhookServer`] finds its certificate, and its limits. Defaults are
/// controller-runtime's where it has one.
///
/// ```
/// use std::time::Duration;
/// use kubegen_runtime::webhook::WebhookServerConfig;
///
/// let config = WebhookServerConfig::default()
///     .cert_dir("/var/run/certs")
///     .cert_reload_interval(Duration::from_secs(5))
///     .shutdown_timeout(Duration::from_secs(10));
/// # let _ = config;
/// ```
#[derive(Clone, Debug)]
pub struct WebhookServerConfig {
    cert_dir: PathBuf,
    cert_name: String,
    key_name: String,
    cert_reload_interval: Duration,
    shutdown_timeout: Duration,
    handshake_timeout: Duration,
    body_limit: usize,
    metrics: Arc<dyn WebhookMetricsProvider>,
}

impl Default for WebhookServerConfig {
    fn default() -> Self {
        Self {
            cert_dir: std::env::temp_dir().join("k8s-webhook-server/serving-certs"),
            cert_name: "tls.crt".into(),
            key_name: "tls.key".into(),
            cert_reload_interval: Duration::from_secs(1),
            shutdown_timeout: Duration::from_secs(30),
            handshake_timeout: Duration::from_secs(10),
            body_limit: 64 << 20,
            metrics: Arc::new(NoopMetrics),
        }
    }
}

impl WebhookServerConfig {
    /// The directory holding the certificate and key (default
    /// `$TMPDIR/k8s-webhook-server/serving-certs`, controller-runtime's); mount
    /// cert-manager's Secret here.
    pub fn cert_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cert_dir = dir.into();
        self
    }

    /// The certificate chain's file name in the directory, PEM, leaf first (default
    /// `tls.crt`).
    pub fn cert_name(mut self, name: impl Into<String>) -> Self {
        self.cert_name = name.into();
        self
    }

    /// The private key's file name in the directory, PEM (default `tls.key`).
    pub fn key_name(mut self, name: impl Into<String>) -> Self {
        self.key_name = name.into();
        self
    }

    /// How often the files are checked for a new certificate (default 1 s).
    pub fn cert_reload_interval(mut self, interval: Duration) -> Self {
        self.cert_reload_interval = interval;
        self
    }

    /// How long shutdown waits for requests in flight before it drops their connections
    /// (default 30 s).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// How long a new connection may take to finish its TLS handshake (default 10 s).
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// The largest request body read, in bytes (default 64 MiB: a ConversionReview
    /// carries a whole list); a larger one is answered `413`.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Where each webhook path reports its requests (default: nowhere).
    pub fn metrics(mut self, metrics: impl WebhookMetricsProvider) -> Self {
        self.metrics = Arc::new(metrics);
        self
    }

    /// The certificate and key files.
    fn cert_files(&self) -> (PathBuf, PathBuf) {
        (
            self.cert_dir.join(&self.cert_name),
            self.cert_dir.join(&self.key_name),
        )
    }
}

/// An HTTPS server for admission and conversion webhooks, many on one port by path, as
/// controller-runtime's `webhook.Server`.
///
/// Register webhooks with [`validating`](Self::validating),
/// [`mutating`](Self::mutating) and [`conversion`](Self::conversion), then
/// [`serve`](Self::serve). It speaks HTTP/1.1 over TLS (rustls, ring), answers
/// `GET /healthz` with `ok`, serves the certificate in the configured files and picks up
/// a renewed one without a restart (see [`CertWatcher`]), and on shutdown stops
/// accepting, lets requests in flight finish (up to the configured timeout) and closes
/// idle connections. A body that is not the review a path expects is answered `400` with
/// a `Status` saying why; a handler that panics, `500`.
#[derive(Debug)]
pub struct WebhookServer {
    config: WebhookServerConfig,
    pub(super) endpoints: BTreeMap<String, Registered>,
    /// The first path registered twice, or invalid, reported by `serve`.
    refused: Option<Error>,
}

/// An endpoint, with the kind of webhook it is.
pub(super) struct Registered {
    endpoint: Arc<dyn Endpoint>,
    pub(super) hook: Hook,
}

/// What a registered path serves: the kind and operations an admission webhook admits,
/// for its configuration ([`WebhookServer::configurations`]).
#[derive(Debug)]
pub(super) enum Hook {
    Validating(AdmissionTarget),
    Mutating(AdmissionTarget),
    Conversion,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.hook {
            Hook::Validating(_) => "validating",
            Hook::Mutating(_) => "mutating",
            Hook::Conversion => "conversion",
        };
        f.write_str(what)
    }
}

impl WebhookServer {
    /// A server with no webhooks yet.
    pub fn new(config: WebhookServerConfig) -> Self {
        Self {
            config,
            endpoints: BTreeMap::new(),
            refused: None,
        }
    }

    /// Serves `validator` at `path` (`/validate-example-com-v1-foo`) for the kind `K`.
    pub fn validating<K, V>(self, path: &str, validator: V) -> Self
    where
        K: Resource<DynamicType = ()>
            + DeserializeOwned
            + Serialize
            + Clone
            + Send
            + Sync
            + 'static,
        V: Validator<K>,
    {
        self.register(
            path,
            Hook::Validating(AdmissionTarget::of::<K>(V::OPERATIONS)),
            Arc::new(ValidatingEndpoint::<K, V>::new(validator)),
        )
    }

    /// Serves `mutator` at `path` (`/mutate-example-com-v1-foo`) for the kind `K`.
    pub fn mutating<K, M>(self, path: &str, mutator: M) -> Self
    where
        K: Resource<DynamicType = ()>
            + DeserializeOwned
            + Serialize
            + Clone
            + Send
            + Sync
            + 'static,
        M: Mutator<K>,
    {
        self.register(
            path,
            Hook::Mutating(AdmissionTarget::of::<K>(M::OPERATIONS)),
            Arc::new(MutatingEndpoint::<K, M>::new(mutator)),
        )
    }

    /// Serves `converter` at `path` (`/convert`), the path of a CRD's
    /// `spec.conversion.webhook.clientConfig.service`.
    pub fn conversion<C: Converter>(self, path: &str, converter: C) -> Self {
        self.register(
            path,
            Hook::Conversion,
            Arc::new(ConversionEndpoint::new(converter)),
        )
    }

    fn register(mut self, path: &str, hook: Hook, endpoint: Arc<dyn Endpoint>) -> Self {
        let valid = path.starts_with('/') && !path.contains([':', '*', '{', '}']);
        let refusal = match () {
            () if !valid => Some(Error::InvalidPath(path.to_owned())),
            () if path == HEALTHZ || self.endpoints.contains_key(path) => {
                Some(Error::DuplicatePath(path.to_owned()))
            }
            () => None,
        };
        match refusal {
            Some(error) => {
                self.refused.get_or_insert(error);
            }
            None => {
                self.endpoints
                    .insert(path.to_owned(), Registered { endpoint, hook });
            }
        }
        self
    }

    /// The paths registered, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.endpoints.keys().map(String::as_str)
    }

    /// Loads the certificate, then serves on `listener` until `shutdown` resolves: stops
    /// accepting, lets the requests in flight finish for up to the shutdown timeout, and
    /// returns. Fails before serving anything if a path was registered twice or is
    /// invalid, or if the certificate files are not a usable pair.
    pub async fn serve(
        mut self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        if let Some(error) = self.refused.take() {
            return Err(error);
        }
        let (cert, key) = self.config.cert_files();
        let certs = Arc::new(CertWatcher::load(cert, key)?);
        let mut tls = rustls::ServerConfig::builder_with_provider(Arc::clone(certs.provider()))
            .with_safe_default_protocol_versions()
            .map_err(Error::Tls)?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(&certs) as _);
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(tls));
        let router = self.router();

        let stop = CancellationToken::new();
        let watcher = tokio::spawn(
            Arc::clone(&certs).watch(self.config.cert_reload_interval, stop.child_token()),
        );
        let local = listener.local_addr().ok();
        tracing::info!(
            address = ?local,
            paths = ?self.endpoints.keys().collect::<Vec<_>>(),
            "serving webhooks"
        );

        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        connections.spawn(connection(
                            stream,
                            acceptor.clone(),
                            router.clone(),
                            self.config.handshake_timeout,
                            stop.child_token(),
                        ));
                    }
                    Err(error) => {
                        // Out of file descriptors and the like: wait instead of spinning.
                        tracing::warn!(%error, "failed to accept a webhook connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }

        drop(listener);
        stop.cancel();
        let open = connections.len();
        tracing::info!(
            connections = open,
            "shutting down the webhook server: finishing the requests in flight"
        );
        let drained = tokio::time::timeout(self.config.shutdown_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                connections = connections.len(),
                timeout = ?self.config.shutdown_timeout,
                "dropping webhook connections still busy after the shutdown timeout"
            );
            connections.shutdown().await;
        }
        let _ = watcher.await;
        Ok(())
    }

    /// Every registered path (POST), measured, and the health path (GET).
    fn router(&self) -> Router {
        let limit = self.config.body_limit;
        let mut router = Router::new().route(HEALTHZ, get(|| async { "ok" }));
        for (path, registered) in &self.endpoints {
            let endpoint = Arc::clone(&registered.endpoint);
            let metrics = self.config.metrics.webhook_metrics(path);
            router = router.route(
                path,
                post(move |request: Request| {
                    http::serve(
                        Arc::clone(&endpoint),
                        metrics.clone(),
                        limit,
                        request.into_body(),
                    )
                }),
            );
        }
        router
    }
}

/// One connection: the TLS handshake (bounded), then HTTP/1 until the client closes it
/// or the server shuts down; on shutdown the request in flight finishes and the
/// connection closes.
async fn connection(
    stream: TcpStream,
    acceptor: TlsAcceptor,
    router: Router,
    handshake_timeout: Duration,
    stop: CancellationToken,
) {
    let peer = stream.peer_addr().ok();
    let handshake = tokio::select! {
        () = stop.cancelled() => return,
        handshake = tokio::time::timeout(handshake_timeout, acceptor.accept(stream)) => handshake,
    };
    let stream = match handshake {
        Ok(Ok(stream)) => stream,
        Ok(Err(error)) => {
            tracing::debug!(?peer, %error, "TLS handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!(?peer, "TLS handshake timed out");
            return;
        }
    };
    let service = TowerToHyperService::new(router);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new());
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = served {
        tracing::debug!(?peer, %error, "webhook connection ended with an error");
    }
}
