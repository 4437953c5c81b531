//! The serving certificate, read from PEM files and reloaded when they change.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_util::sync::CancellationToken;

use super::{Error, Result};
use crate::controller::ErrorChain;

/// A certificate chain and its private key, read from PEM files (cert-manager's
/// `tls.crt` and `tls.key`) and swapped for the files' new contents when they change,
/// as controller-runtime's `certwatcher`.
///
/// It is the server's rustls [`ResolvesServerCert`]: each TLS handshake takes the pair
/// current at that moment, so a reload reaches new connections while connections
/// already open keep the session they negotiated. [`reload`](Self::reload) looks at the
/// files' modification times and sizes and, when either changed, at their contents; a
/// pair that fails to parse, or whose key does not match the certificate, is refused and
/// the current pair stays.
///
/// ```no_run
/// use kubegen_runtime::webhook::CertWatcher;
///
/// # fn main() -> Result<(), kubegen_runtime::webhook::Error> {
/// let certs = CertWatcher::load("/certs/tls.crt", "/certs/tls.key")?;
/// // ... cert-manager renews the certificate ...
/// if certs.reload()? {
///     println!("serving the renewed certificate");
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct CertWatcher {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    current: RwLock<Arc<CertifiedKey>>,
    seen: Mutex<Seen>,
}

/// What the last look at the files found, so an unchanged (or already refused) pair is
/// neither parsed nor reported again.
#[derive(Debug)]
struct Seen {
    stamps: [Stamp; 2],
    cert: Vec<u8>,
    key: Vec<u8>,
}

/// A file's modification time and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(path: &Path) -> Result<Self> {
        let metadata = fs::metadata(path).map_err(|source| Error::ReadFile {
            path: path.to_owned(),
            source,
        })?;
        Ok(Self {
            modified: metadata.modified().ok(),
            len: metadata.len(),
        })
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|source| Error::ReadFile {
        path: path.to_owned(),
        source,
    })
}

impl CertWatcher {
    /// Reads the certificate chain (leaf first) from `cert` and the private key (PKCS#8,
    /// PKCS#1 or SEC1) from `key`, with rustls' ring provider.
    pub fn load(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Result<Self> {
        Self::with_provider(
            cert,
            key,
            Arc::new(rustls::crypto::ring::default_provider()),
        )
    }

    /// As [`load`](Self::load), parsing the key with `provider`.
    pub fn with_provider(
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self> {
        let (cert_path, key_path) = (cert.into(), key.into());
        let stamps = [Stamp::of(&cert_path)?, Stamp::of(&key_path)?];
        let (cert, key) = (read(&cert_path)?, read(&key_path)?);
        let pair = parse(&cert_path, &cert, &key_path, &key, &provider)?;
        Ok(Self {
            cert_path,
            key_path,
            provider,
            current: RwLock::new(Arc::new(pair)),
            seen: Mutex::new(Seen { stamps, cert, key }),
        })
    }

    /// The provider keys are parsed with (the server's TLS configuration uses it too).
    pub fn provider(&self) -> &Arc<CryptoProvider> {
        &self.provider
    }

    /// The pair served to the next TLS handshake.
    pub fn current(&self) -> Arc<CertifiedKey> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Reads the files again if their modification time or size changed, and serves
    /// their pair from the next handshake on if their contents changed: `Ok(true)` when
    /// it swapped the pair, `Ok(false)` when nothing changed. An error (a file gone, not
    /// PEM, a key that does not match) leaves the current pair in place; the same
    /// contents are not reported twice.
    pub fn reload(&self) -> Result<bool> {
        let stamps = [Stamp::of(&self.cert_path)?, Stamp::of(&self.key_path)?];
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.stamps == stamps {
            return Ok(false);
        }
        // Stamps first, contents second: a write between the two changes the stamps
        // again, and the next look reads the files once more.
        let (cert, key) = (read(&self.cert_path)?, read(&self.key_path)?);
        seen.stamps = stamps;
        if seen.cert == cert && seen.key == key {
            return Ok(false);
        }
        let parsed = parse(&self.cert_path, &cert, &self.key_path, &key, &self.provider);
        seen.cert = cert;
        seen.key = key;
        let pair = parsed?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(pair);
        Ok(true)
    }

    /// Calls [`reload`](Self::reload) every `interval` (on the blocking thread pool, as it
    /// reads files) until `stop` is cancelled, logging each reload and each refused pair.
    pub async fn watch(self: Arc<Self>, interval: Duration, stop: CancellationToken) {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = ticks.tick() => {}
            }
            let watcher = Arc::clone(&self);
            match tokio::task::spawn_blocking(move || watcher.reload()).await {
                Ok(Ok(true)) => tracing::info!(
                    cert = %self.cert_path.display(),
                    "serving the certificate and key changed on disk"
                ),
                Ok(Ok(false)) => {}
                Ok(Err(error)) => tracing::error!(
                    error = %ErrorChain(&error),
                    "keeping the current certificate: the files on disk are not a usable pair"
                ),
                Err(error) => tracing::error!(%error, "the certificate reload task failed"),
            }
        }
    }
}

impl ResolvesServerCert for CertWatcher {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// A certificate chain and its key from PEM, checked to belong together.
fn parse(
    cert_path: &Path,
    cert: &[u8],
    key_path: &Path,
    key: &[u8],
    provider: &CryptoProvider,
) -> Result<CertifiedKey> {
    fn pem_error<'a>(
        path: &'a Path,
        what: &'static str,
    ) -> impl FnOnce(rustls::pki_types::pem::Error) -> Error + 'a {
        move |source| Error::Pem {
            path: path.to_owned(),
            what,
            source,
        }
    }
    let chain = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(pem_error(cert_path, "certificates"))?;
    if chain.is_empty() {
        return Err(pem_error(cert_path, "certificates")(
            rustls::pki_types::pem::Error::NoItemsFound,
        ));
    }
    let key_der =
        PrivateKeyDer::from_pem_slice(key).map_err(pem_error(key_path, "a private key"))?;
    CertifiedKey::from_der(chain, key_der, provider).map_err(|source| Error::KeyPair {
        cert: cert_path.to_owned(),
        key: key_path.to_owned(),
        source,
    })
}
