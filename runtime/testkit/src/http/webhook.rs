//! The HTTPS client that calls admission and CRD conversion webhooks: one POST of a JSON
//! body to a [`Target`] (`clientConfig.url`, or the address a `clientConfig.service`
//! resolved to, `http/service.rs`), over rustls trusting only the webhook's `caBundle`
//! and verifying the target's server name, within its timeout. Every failure is a reason
//! string, for the caller to judge (admission's failure policy) or report.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Request, Uri, header};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// The largest answer read (kube-apiserver reads webhook responses of any size): the
/// runtime's webhook server's default request limit, as a conversion of a whole list
/// answers with every object (10,000 small custom resources are about 5 MiB).
const MAX_RESPONSE: usize = 64 * 1024 * 1024;

/// Where a webhook call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The URL requested (its path, its authority as `Host`) and printed in errors.
    pub(crate) url: String,
    /// The host (name or IP address) and port connected to.
    pub(crate) host: String,
    pub(crate) port: u16,
    /// The name the certificate is verified for (the URL's host, or
    /// `<service>.<namespace>.svc`).
    pub(crate) server_name: String,
}

impl Target {
    /// The target of a `clientConfig.url`: its own host and port (default 443).
    pub(crate) fn of_url(url: &str) -> Result<Self, String> {
        let uri: Uri = url.parse().map_err(|e| format!("invalid URL: {e}"))?;
        if uri.scheme_str() != Some("https") {
            return Err("unsupported URL scheme: only https is allowed".to_owned());
        }
        let host = uri.host().ok_or("the URL has no host")?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        Ok(Self {
            url: url.to_owned(),
            port: uri.port_u16().unwrap_or(443),
            server_name: host.clone(),
            host,
        })
    }
}

/// POSTs `body` to `target` and returns the response body; `Err` says why the call
/// failed, in the words kube-apiserver uses where it has them (`Post "<url>": <why>`).
pub(crate) async fn post(
    target: &Target,
    ca_bundle: &[u8],
    timeout: Duration,
    body: Vec<u8>,
) -> Result<Vec<u8>, String> {
    let url = &target.url;
    let call = call(target, ca_bundle, body);
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => result.map_err(|why| format!("Post {url:?}: {why}")),
        Err(_) => Err(format!(
            "Post {url:?}: context deadline exceeded (timeout {timeout:?})"
        )),
    }
}

/// The TLS client configuration trusting exactly the certificates of `ca_bundle` (PEM).
fn tls_config(ca_bundle: &[u8]) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_bundle) {
        let cert = cert.map_err(|e| format!("invalid caBundle: {e}"))?;
        roots
            .add(cert)
            .map_err(|e| format!("invalid caBundle: {e}"))?;
    }
    if roots.is_empty() {
        return Err(
            "no certificate in caBundle (the testkit trusts only a webhook's caBundle)".to_owned(),
        );
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

async fn call(target: &Target, ca_bundle: &[u8], body: Vec<u8>) -> Result<Vec<u8>, String> {
    let uri: Uri = target
        .url
        .parse()
        .map_err(|e| format!("invalid URL: {e}"))?;
    let (host, port) = (target.host.as_str(), target.port);
    let config = tls_config(ca_bundle)?;
    let server_name =
        ServerName::try_from(target.server_name.clone()).map_err(|e| e.to_string())?;
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("dial tcp {host}:{port}: {e}"))?;
    let tls = TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .map_err(|e| format!("tls: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(|e| e.to_string())?;
    let driver = tokio::spawn(connection);
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let authority = uri
        .authority()
        .map(|a| a.as_str().to_owned())
        .unwrap_or_default();
    let request = Request::post(path)
        .header(header::HOST, authority)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let result = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let bytes = Limited::new(response.into_body(), MAX_RESPONSE)
            .collect()
            .await
            .map_err(|e| format!("reading the response: {e}"))?
            .to_bytes();
        if !status.is_success() {
            return Err(format!(
                "the server responded with {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        Ok(bytes.to_vec())
    }
    .await;
    driver.abort();
    result
}
