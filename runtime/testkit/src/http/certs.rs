//! Throwaway certificates for tests of TLS servers such as webhooks (feature `certs`): a
//! certificate authority made on the spot, and serving certificates it signs for the
//! names a test connects to (`localhost`, `127.0.0.1`) or for a Service's DNS names
//! ([`TestCa::service_cert`]: `<service>.<namespace>.svc`, which kube-apiserver, and the
//! testkit, verify when calling a webhook's `clientConfig.service`), written as PEM where
//! a server reads them (cert-manager's `tls.crt`, `tls.key` and `ca.crt`).
//!
//! Nothing here is fit for anything but tests: keys are never protected, certificates
//! are valid for centuries. It lives in the HTTP layer (`http/certs.rs`) and imports
//! nothing of the server.
//!
//! ```
//! use kubegen_testkit::certs::TestCa;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ca = TestCa::new()?;
//! let serving = ca.serving_cert(&["localhost", "127.0.0.1"])?;
//! let dir = std::env::temp_dir().join(format!("certs-doctest-{}", std::process::id()));
//! serving.write_to(&dir)?;
//! assert!(std::fs::read_to_string(dir.join("tls.crt"))?.starts_with("-----BEGIN CERTIFICATE-----"));
//! assert_eq!(std::fs::read_to_string(dir.join("ca.crt"))?, ca.cert_pem());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};

/// Why a certificate could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// rcgen refused to make a key or certificate (an invalid name, most likely).
    #[error("failed to make a test certificate")]
    Generate(#[from] rcgen::Error),
    /// A file could not be written.
    #[error("failed to write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl From<Error> for io::Error {
    fn from(error: Error) -> Self {
        io::Error::other(error)
    }
}

/// A certificate authority for one test: a self-signed CA certificate (ECDSA P-256)
/// whose key signs [`ServingCert`]s. A client that trusts only
/// [`cert_pem`](Self::cert_pem) trusts exactly the certificates this CA signed.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    cert_pem: String,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

impl TestCa {
    /// A new CA, `CN=kubegen test CA`.
    pub fn new() -> Result<Self, Error> {
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, "kubegen test CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate()?;
        let cert = params.self_signed(&key)?;
        Ok(Self {
            cert_pem: cert.pem(),
            issuer: Issuer::new(params, key),
        })
    }

    /// The CA's certificate, PEM: what a client trusts, and a webhook configuration's
    /// `caBundle` (base64 of these bytes).
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// A serving certificate for `names`, signed by this CA: each name that parses as an
    /// IP address is an IP address SAN, any other a DNS name SAN; the first is also the
    /// subject's common name.
    pub fn serving_cert(&self, names: &[&str]) -> Result<ServingCert, Error> {
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        if let Some(first) = names.first() {
            params.distinguished_name.push(DnType::CommonName, *first);
        }
        params.subject_alt_names = names
            .iter()
            .map(|name| match name.parse::<IpAddr>() {
                Ok(ip) => Ok(SanType::IpAddress(ip)),
                Err(_) => Ok(SanType::DnsName((*name).try_into()?)),
            })
            .collect::<Result<_, rcgen::Error>>()?;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(ServingCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            ca_pem: self.cert_pem.clone(),
        })
    }
}

impl TestCa {
    /// A serving certificate for the Service `namespace/name`, as cert-manager issues
    /// one for a webhook Service: DNS names `<name>.<namespace>.svc` (the name
    /// kube-apiserver verifies), `<name>.<namespace>.svc.cluster.local`,
    /// `<name>.<namespace>` and `<name>`.
    ///
    /// ```
    /// use kubegen_testkit::certs::TestCa;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let ca = TestCa::new()?;
    /// let serving = ca.service_cert("icecream-system", "icecream-webhook")?;
    /// assert!(serving.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
    /// # Ok(()) }
    /// ```
    pub fn service_cert(&self, namespace: &str, name: &str) -> Result<ServingCert, Error> {
        let names = [
            format!("{name}.{namespace}.svc"),
            format!("{name}.{namespace}.svc.cluster.local"),
            format!("{name}.{namespace}"),
            name.to_owned(),
        ];
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.serving_cert(&names)
    }
}

/// A serving certificate and its key, PEM, with the CA that signed it.
#[derive(Clone)]
pub struct ServingCert {
    cert_pem: String,
    key_pem: String,
    ca_pem: String,
}

impl std::fmt::Debug for ServingCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServingCert")
            .field("cert_pem", &self.cert_pem)
            .finish_non_exhaustive()
    }
}

impl ServingCert {
    /// A certificate for `names` from a new CA of its own (see
    /// [`TestCa::serving_cert`]).
    pub fn new(names: &[&str]) -> Result<Self, Error> {
        TestCa::new()?.serving_cert(names)
    }

    /// The certificate, PEM (`tls.crt`).
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The private key, PKCS#8 PEM (`tls.key`).
    pub fn key_pem(&self) -> &str {
        &self.key_pem
    }

    /// The signing CA's certificate, PEM (`ca.crt`).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Writes `tls.crt`, `tls.key` and `ca.crt` into `dir` (created if missing), as
    /// cert-manager's Secret mounted there holds them. Each file is written beside its
    /// name and renamed over it, so a reader sees an old file or a new one, never half
    /// of one.
    pub fn write_to(&self, dir: impl AsRef<Path>) -> Result<(), Error> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_owned(),
            source,
        })?;
        for (name, contents) in [
            ("ca.crt", &self.ca_pem),
            ("tls.crt", &self.cert_pem),
            ("tls.key", &self.key_pem),
        ] {
            let path = dir.join(name);
            let staged = dir.join(format!(".{name}.tmp"));
            std::fs::write(&staged, contents)
                .and_then(|()| std::fs::rename(&staged, &path))
                .map_err(|source| Error::Write { path, source })?;
        }
        Ok(())
    }
}
