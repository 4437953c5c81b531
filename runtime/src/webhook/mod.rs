//! An HTTPS server for admission and conversion webhooks (feature `webhook`), as
//! controller-runtime's webhook server: many webhooks on one port by path, typed
//! handlers, certificates reloaded from disk, graceful shutdown and metrics.
//!
//! - [`WebhookServer`] serves registered webhooks over TLS (rustls, HTTP/1) with a
//!   health path, `/healthz`. Its [`WebhookServerConfig`] names the certificate files
//!   (cert-manager's `tls.crt` and `tls.key` in a directory), how often they are checked
//!   for changes, how long shutdown waits for requests in flight, and the
//!   [metrics](crate::metrics::webhook).
//! - [`Validator`]: validating admission of one kind, with a method per operation
//!   (create, update with the old object, delete), answering a [`Verdict`] (allowed or
//!   denied with a message and code, and warnings).
//! - [`Mutator`]: mutating admission of one kind; the handler returns the changed object
//!   ([`Mutated`]) and the server answers with the JSON patch from the object it received.
//! - [`Converter`]: `apiextensions.k8s.io/v1` ConversionReviews; the handler converts one
//!   object at a time to the desired `apiVersion`. A function or closure
//!   `Fn(Value, &str) -> Result<Value, E>` is one ([`converter_fn`] fixes a closure's
//!   signature), so a kind's generated `convert` serves as it is.
//! - [`CertWatcher`]: the certificate and key behind the server, read from PEM files and
//!   swapped when they change on disk, for new connections only.
//! - [`WebhookServer::configurations`] and [`convert_with_webhook`]: the
//!   Validating/MutatingWebhookConfiguration and the CRD `spec.conversion` that point
//!   the API server at the served webhooks ([`WebhookClient`]: a Service or a URL, a CA
//!   bundle or cert-manager's CA injection), built from what was registered.
//!
//! The review types on the wire are kube's (`kube::core::admission`,
//! `kube::core::conversion`), but for the admission response, whose JSON patch goes out
//! base64-encoded as the API documents it.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_runtime::webhook::{AdmissionRequest, Validator, Verdict, WebhookServer, WebhookServerConfig};
//!
//! struct NoSecretsInConfigMaps;
//!
//! impl Validator<ConfigMap> for NoSecretsInConfigMaps {
//!     async fn validate_create(&self, object: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
//!         match object.data.as_ref().is_some_and(|data| data.contains_key("password")) {
//!             true => Verdict::deny("passwords belong in Secrets"),
//!             false => Verdict::allow(),
//!         }
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:9443").await?;
//! WebhookServer::new(WebhookServerConfig::default().cert_dir("/tmp/serving-certs"))
//!     .validating("/validate-configmaps", NoSecretsInConfigMaps)
//!     .serve(listener, async { let _ = tokio::signal::ctrl_c().await; })
//!     .await?;
//! # Ok(()) }
//! ```

mod admission;
mod certs;
mod conversion;
mod http;
mod manifests;
mod server;

use std::path::PathBuf;

pub use admission::{Mutated, Mutator, Validator, Verdict};
pub use certs::CertWatcher;
pub use conversion::{Converter, converter_fn};
pub use kube::core::admission::{AdmissionRequest, Operation};
pub use manifests::{
    CERT_MANAGER_INJECT_CA_FROM, WebhookClient, WebhookConfigurations, convert_with_webhook,
};
pub use server::{WebhookServer, WebhookServerConfig};

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why the webhook server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A certificate or key file could not be read.
    #[error("failed to read {path}")]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A certificate or key file held no PEM item of the expected kind, or a broken one.
    #[error("failed to parse {path} as PEM ({what})")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What was expected: `certificates` or `a private key`.
        what: &'static str,
        /// Why.
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    /// The key is of a type rustls cannot sign with, or does not match the certificate.
    #[error("failed to use the key in {key} with the certificate in {cert}")]
    KeyPair {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// Why.
        #[source]
        source: rustls::Error,
    },
    /// The TLS configuration could not be built.
    #[error("failed to configure TLS")]
    Tls(#[source] rustls::Error),
    /// Two webhooks were registered at the same path (or one at `/healthz`).
    #[error("two webhooks registered at path {0}")]
    DuplicatePath(String),
    /// A webhook path does not start with `/` or holds a character axum routes by
    /// (`:`, `*`, `{`, `}`).
    #[error("webhook path {0:?} must start with / and hold no :, *, {{ or }}")]
    InvalidPath(String),
}
