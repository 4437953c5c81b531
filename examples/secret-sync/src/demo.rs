//! The embedded demo: a source namespace with Secrets and two target namespaces, and the
//! convergence check that ends the run.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::events::v1::Event as KubeEvent;
use kube::Resource;
use kube::api::{ListParams, ObjectMeta};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::error::Error;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::lister::{Lister, Selector};

use crate::controller::{
    Controller, REASON_TARGET_EXISTS, copy_of, in_step, is_copyable, is_managed, source_of,
};

/// The demo's source namespace.
pub const DEMO_SOURCE: &str = "shared-secrets";

/// A namespace object.
pub fn namespace(name: &str) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// An Opaque Secret with `data`.
pub fn secret(namespace: &str, name: &str, data: &[(&str, &str)]) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..Default::default()
        },
        data: Some(
            data.iter()
                .map(|(k, v)| ((*k).to_owned(), ByteString(v.as_bytes().to_vec())))
                .collect(),
        ),
        type_: Some("Opaque".to_owned()),
        ..Default::default()
    }
}

/// Creates the `source` namespace with two Secrets, and namespaces `team-a` and `team-b`.
pub async fn seed(client: &kube::Client, source: &str) -> Result<(), Error> {
    let namespaces = TypedClient::<Namespace>::new(client.clone(), Scope::All, &());
    for name in [source, "team-a", "team-b"] {
        namespaces.create(&namespace(name)).await?;
    }
    let secrets = TypedClient::<Secret>::new(client.clone(), Scope::Namespace(source), &());
    secrets
        .create(&secret(
            source,
            "registry-credentials",
            &[("username", "robot"), ("password", "s3cr3t")],
        ))
        .await?;
    secrets
        .create(&secret(
            source,
            "tls-ca",
            &[("ca.crt", "-----BEGIN CERTIFICATE-----")],
        ))
        .await?;
    Ok(())
}

/// One target namespace in a [`Report`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceReport {
    /// The namespace.
    pub namespace: String,
    /// Copies that match their source.
    pub in_step: Vec<String>,
    /// Names held by an unmanaged Secret, with a Warning event saying so.
    pub refused: Vec<String>,
    /// What is still wrong.
    pub pending: Vec<String>,
}

/// Every target namespace and where it stands, plus whether the caches agree with the
/// server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per target namespace, by name.
    pub namespaces: Vec<NamespaceReport>,
    /// Why the caches disagree with the server, if they do.
    pub cache_lag: Option<String>,
}

impl Report {
    /// Whether nothing is pending and the caches agree with the server.
    pub fn converged(&self) -> bool {
        self.cache_lag.is_none() && self.namespaces.iter().all(|n| n.pending.is_empty())
    }

    /// The report of one namespace.
    pub fn namespace(&self, name: &str) -> Option<&NamespaceReport> {
        self.namespaces.iter().find(|n| n.namespace == name)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for ns in &self.namespaces {
            write!(
                f,
                "namespace {:<16} {} copies in step [{}]",
                ns.namespace,
                ns.in_step.len(),
                ns.in_step.join(", ")
            )?;
            if !ns.refused.is_empty() {
                write!(
                    f,
                    ", refused (unmanaged secret exists) [{}]",
                    ns.refused.join(", ")
                )?;
            }
            if !ns.pending.is_empty() {
                write!(f, ", pending: {}", ns.pending.join("; "))?;
            }
            writeln!(f)?;
        }
        if let Some(lag) = &self.cache_lag {
            writeln!(f, "caches behind the server: {lag}")?;
        }
        Ok(())
    }
}

/// Reads the server and compares every target namespace with the source.
pub async fn check(client: &kube::Client, controller: &Controller) -> Result<Report, Error> {
    let scope = controller.scope();
    let namespaces = TypedClient::<Namespace>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items;
    let secrets = TypedClient::<Secret>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items;
    let warnings: Vec<String> = TypedClient::<KubeEvent>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(REASON_TARGET_EXISTS))
        .filter_map(|e| e.note)
        .collect();

    let mut by_namespace: BTreeMap<&str, BTreeMap<&str, &Secret>> = BTreeMap::new();
    for secret in &secrets {
        let ns = secret.metadata.namespace.as_deref().unwrap_or_default();
        by_namespace
            .entry(ns)
            .or_default()
            .insert(secret.metadata.name.as_deref().unwrap_or_default(), secret);
    }
    let empty = BTreeMap::new();
    let sources: Vec<&Secret> = by_namespace
        .get(scope.source.as_str())
        .unwrap_or(&empty)
        .values()
        .copied()
        .filter(|s| is_copyable(s))
        .collect();

    let mut report = Report::default();
    for ns in &namespaces {
        let name = ns.metadata.name.as_deref().unwrap_or_default();
        if !scope.is_target(name) || ns.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let present = by_namespace.get(name).unwrap_or(&empty);
        let mut entry = NamespaceReport {
            namespace: name.to_owned(),
            ..Default::default()
        };
        for source in &sources {
            let secret_name = source.metadata.name.as_deref().unwrap_or_default();
            match present.get(secret_name) {
                None => entry.pending.push(format!("{secret_name} missing")),
                Some(existing) if !is_managed(existing) => {
                    let path = format!("{name}/{secret_name}");
                    if warnings.iter().any(|note| note.contains(&path)) {
                        entry.refused.push(secret_name.to_owned());
                    } else {
                        entry
                            .pending
                            .push(format!("{secret_name} unmanaged, no warning yet"));
                    }
                }
                Some(existing) if in_step(existing, &copy_of(source, name)) => {
                    entry.in_step.push(secret_name.to_owned())
                }
                Some(_) => entry
                    .pending
                    .push(format!("{secret_name} differs from its source")),
            }
        }
        for (secret_name, existing) in present {
            let ours = source_of(existing).is_some_and(|(src, _)| src == scope.source);
            if is_managed(existing)
                && ours
                && !sources
                    .iter()
                    .any(|s| s.metadata.name.as_deref() == Some(*secret_name))
            {
                entry.pending.push(format!("{secret_name} is a stale copy"));
            }
        }
        report.namespaces.push(entry);
    }
    report.cache_lag = cache_lag(controller.secrets(), &secrets)
        .or_else(|| cache_lag(controller.namespaces(), &namespaces));
    Ok(report)
}

/// Why a lister differs from the server's objects (by key and resourceVersion), if it does
/// (the lister may cache them whole or as metadata only).
fn cache_lag<C: Resource, K: Resource>(lister: &Lister<C>, server: &[K]) -> Option<String> {
    let cached = lister.list(&Selector::everything());
    if cached.len() != server.len() {
        return Some(format!(
            "{} cached, {} on the server",
            cached.len(),
            server.len()
        ));
    }
    server.iter().find_map(|object| {
        let key = ObjectKey::of(object);
        let cached_version = lister
            .get_key(&key)
            .and_then(|c| c.meta().resource_version.clone());
        (cached_version != object.meta().resource_version)
            .then(|| format!("{key} is stale in the cache"))
    })
}

impl kubegen::operator::Converged for Report {
    fn converged(&self) -> bool {
        Report::converged(self)
    }
}
