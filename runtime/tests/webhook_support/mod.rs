//! A webhook server on 127.0.0.1 with throwaway certificates, and an HTTPS client that
//! trusts only the test's CA: hyper's HTTP/1 client over tokio-rustls, one connection
//! per [`Connection`], so a test controls which requests share one.
#![allow(dead_code, clippy::unwrap_used, unreachable_pub)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use kubegen_runtime::webhook::{Result, WebhookServer, WebhookServerConfig};
use kubegen_testkit::certs::TestCa;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A failure guard for waits that should end quickly: never an assertion on speed.
pub const GUARD: Duration = Duration::from_secs(30);

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kubegen-webhook-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server serving on 127.0.0.1 with a certificate for `localhost` and `127.0.0.1`.
pub struct Running {
    pub addr: SocketAddr,
    pub dir: TempDir,
    pub ca: TestCa,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: JoinHandle<Result<()>>,
}

/// Serves `server(config)` with a fresh CA; the config's certificate directory is the
/// test's and its reload interval short.
pub async fn start(server: impl FnOnce(WebhookServerConfig) -> WebhookServer) -> Running {
    let dir = TempDir::new();
    let ca = TestCa::new().unwrap();
    ca.serving_cert(&["localhost", "127.0.0.1"])
        .unwrap()
        .write_to(dir.path())
        .unwrap();
    let config = WebhookServerConfig::default()
        .cert_dir(dir.path())
        .cert_reload_interval(Duration::from_millis(50));
    let server = server(config);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.serve(listener, async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        dir,
        ca,
        shutdown: Some(shutdown),
        task,
    }
}

impl Running {
    /// A new connection trusting only this server's CA.
    pub async fn connect(&self) -> Connection {
        Connection::open(self.addr, self.ca.cert_pem())
            .await
            .unwrap()
    }

    /// Resolves the shutdown future.
    pub fn begin_shutdown(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }

    /// Shuts the server down and returns what `serve` returned.
    pub async fn stop(mut self) -> Result<()> {
        self.begin_shutdown();
        tokio::time::timeout(GUARD, &mut self.task)
            .await
            .expect("the server stops")
            .unwrap()
    }
}

/// One HTTPS connection.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    /// The leaf certificate the server presented.
    pub peer_cert: CertificateDer<'static>,
}

impl Connection {
    /// Connects to `addr`, trusting only `ca_pem`, for the name `localhost`.
    pub async fn open(
        addr: SocketAddr,
        ca_pem: &str,
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(cert?)?;
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tcp = TcpStream::connect(addr).await?;
        let tls = connector
            .connect(ServerName::try_from("localhost")?, tcp)
            .await?;
        let peer_cert = tls
            .get_ref()
            .1
            .peer_certificates()
            .and_then(|certs| certs.first())
            .ok_or("no peer certificate")?
            .clone()
            .into_owned();
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls)).await?;
        tokio::spawn(connection);
        Ok(Self { sender, peer_cert })
    }

    /// Sends a request and reads the whole answer.
    pub async fn send(&mut self, method: &str, path: &str, body: Vec<u8>) -> (u16, Vec<u8>) {
        let request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        tokio::time::timeout(GUARD, self.sender.ready())
            .await
            .expect("the connection is ready")
            .unwrap();
        let response = tokio::time::timeout(GUARD, self.sender.send_request(request))
            .await
            .expect("an answer")
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, body.to_vec())
    }

    /// POSTs `body` as JSON; the answer as JSON.
    pub async fn post(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let (status, body) = self
            .send("POST", path, serde_json::to_vec(body).unwrap())
            .await;
        let body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
        (status, body)
    }
}

/// An `admission.k8s.io/v1` AdmissionReview for a ConfigMap.
pub fn admission_review(operation: &str, object: Option<Value>, old: Option<Value>) -> Value {
    let name = object
        .as_ref()
        .or(old.as_ref())
        .and_then(|o| o["metadata"]["name"].as_str())
        .unwrap_or_default()
        .to_owned();
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": format!("uid-{operation}-{name}"),
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "requestResource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": name,
            "namespace": "default",
            "operation": operation,
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": object,
            "oldObject": old,
            "dryRun": false,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
        }
    })
}

/// A ConfigMap in `default`.
pub fn config_map(name: &str, data: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": null},
        "data": data
    })
}
