//! Where the election record lives: [`LeaseLock`] (client-go's `resourcelock.Interface`)
//! and its implementation over a `coordination.k8s.io/v1` Lease, [`KubeLeaseLock`].

use std::sync::{Mutex, PoisonError};

use futures::future::BoxFuture;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use kube::api::{Api, ObjectMeta, PostParams};

use super::record::LeaseRecord;
use super::{Error, Result};
use crate::error as api_error;

/// A record as read from the store, with the version a conditional write must name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Versioned {
    /// The record.
    pub(crate) record: LeaseRecord,
    /// The object's resourceVersion.
    pub(crate) version: String,
}

/// Reads and conditionally writes one election record. Every write is optimistic: a
/// create fails with [`Error::Conflict`] when the record exists, an update when the record
/// is no longer at the version it names.
pub(crate) trait LeaseLock: Send + Sync + 'static {
    /// The record and its version, or `None` when there is no record yet.
    fn get(&self) -> BoxFuture<'_, Result<Option<Versioned>>>;

    /// Creates the record; returns its version.
    fn create(&self, record: LeaseRecord) -> BoxFuture<'_, Result<String>>;

    /// Replaces the record if it is still at `version`; returns the new version.
    fn update(&self, record: LeaseRecord, version: String) -> BoxFuture<'_, Result<String>>;

    /// `namespace/name`, for messages.
    fn describe(&self) -> String;
}

/// The election record in the spec of a `coordination.k8s.io/v1` Lease.
///
/// Writes are full updates carrying the resourceVersion last read or written, as
/// client-go's `LeaseLock` does. The last object seen is kept so that an update changes
/// only the election's spec fields: labels, annotations and spec fields this runtime does
/// not know (`preferredHolder`, `strategy`) are written back as they were.
pub(crate) struct KubeLeaseLock {
    api: Api<Lease>,
    name: String,
    namespace: String,
    last: Mutex<Option<Lease>>,
}

impl KubeLeaseLock {
    pub(crate) fn new(client: kube::Client, namespace: &str, name: &str) -> Self {
        Self {
            api: Api::namespaced(client, namespace),
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            last: Mutex::new(None),
        }
    }

    fn remember(&self, lease: &Lease) -> Result<String> {
        let version = lease
            .metadata
            .resource_version
            .clone()
            .filter(|v| !v.is_empty())
            .ok_or_else(|| Error::MissingResourceVersion {
                lease: self.describe(),
            })?;
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(lease.clone());
        Ok(version)
    }

    fn failed(&self, action: &'static str) -> impl FnOnce(kube::Error) -> Error + '_ {
        move |source| {
            let conflict = api_error::status_of(&source).is_some_and(|status| {
                api_error::is_conflict(status) || api_error::is_already_exists(status)
            });
            if conflict {
                Error::Conflict {
                    lease: self.describe(),
                }
            } else {
                Error::Api {
                    action,
                    lease: self.describe(),
                    source,
                }
            }
        }
    }

    fn meta(&self) -> ObjectMeta {
        ObjectMeta {
            name: Some(self.name.clone()),
            namespace: Some(self.namespace.clone()),
            ..ObjectMeta::default()
        }
    }
}

impl LeaseLock for KubeLeaseLock {
    fn get(&self) -> BoxFuture<'_, Result<Option<Versioned>>> {
        Box::pin(async move {
            let lease = self
                .api
                .get_opt(&self.name)
                .await
                .map_err(self.failed("get"))?;
            let Some(lease) = lease else {
                return Ok(None);
            };
            let version = self.remember(&lease)?;
            Ok(Some(Versioned {
                record: LeaseRecord::from_spec(lease.spec.as_ref()),
                version,
            }))
        })
    }

    fn create(&self, record: LeaseRecord) -> BoxFuture<'_, Result<String>> {
        Box::pin(async move {
            let mut spec = LeaseSpec::default();
            record.write_to(&mut spec);
            let lease = Lease {
                metadata: self.meta(),
                spec: Some(spec),
            };
            let created = self
                .api
                .create(&PostParams::default(), &lease)
                .await
                .map_err(self.failed("create"))?;
            self.remember(&created)
        })
    }

    fn update(&self, record: LeaseRecord, version: String) -> BoxFuture<'_, Result<String>> {
        Box::pin(async move {
            if version.is_empty() {
                // An update without a resourceVersion would be unconditional.
                return Err(Error::MissingResourceVersion {
                    lease: self.describe(),
                });
            }
            let last = self
                .last
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
                .filter(|l| l.metadata.resource_version.as_deref() == Some(version.as_str()));
            let mut lease = last.unwrap_or_else(|| Lease {
                metadata: self.meta(),
                spec: None,
            });
            lease.metadata.resource_version = Some(version);
            record.write_to(lease.spec.get_or_insert_with(LeaseSpec::default));
            let updated = self
                .api
                .replace(&self.name, &PostParams::default(), &lease)
                .await
                .map_err(self.failed("update"))?;
            self.remember(&updated)
        })
    }

    fn describe(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}
