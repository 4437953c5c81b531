//! Confirming a dependent's owner after writing the dependent: one live read of the owner,
//! and, if it is gone, the deletion of the dependent just written.
//!
//! A reconcile that creates a dependent (a Deployment owned by a Foo) reads the owner
//! first, from a cache or even live, then writes. Another client may delete the owner
//! between that read and the write: a time-of-check/time-of-use race no cache can close.
//! The server collects dependents when their owner is deleted, but only those that exist
//! at that moment; a dependent whose write commits after the owner's deletion names an
//! owner uid nobody holds. In a cluster, kube-controller-manager's garbage collector
//! eventually deletes it (it looks up owners it has never seen); elsewhere (a test API
//! server, a cluster whose collector is slow or down) it stays.
//!
//! [`OwnerCheck::confirm`] closes the race in the controller: after the write, it reads
//! the owner from the API server (a GET without `resourceVersion`: a quorum read, not a
//! cache). The two orders of the owner's deletion and the dependent's write are then both
//! covered:
//!
//! - the owner was deleted **before** the write committed: the read, which follows the
//!   write, sees it gone (not found, or its name now held by an object with another
//!   uid) and the dependent is deleted, with its uid as a precondition so that nothing
//!   written under the same name since is touched;
//! - the owner is deleted **after** the write committed: the dependent exists when the
//!   owner goes, and the server's collection of dependents on owner deletion removes it.
//!
//! An owner being deleted (a `deletionTimestamp`, finalizers pending) still exists: its
//! dependents go when it does, by the same collection.
//!
//! The cost is one GET per create or apply of a dependent, counted in
//! `controller_runtime_owner_checks_total`; dependents deleted because their owner was
//! gone are counted in `controller_runtime_orphans_deleted_total` (the controller's
//! [metrics](crate::metrics::controller), through the handle
//! [`Controller::owner_check`](super::Controller::owner_check) returns). Transient
//! failures of the read and the delete (429, 5xx, transport) are retried a few times
//! (client-go's `retry.DefaultBackoff`); if they persist, the error is returned and
//! the dependent may stay, for the cluster's garbage collector.

use std::fmt::Debug;
use std::sync::Arc;

use kube::Resource;
use kube::api::{DeleteParams, Preconditions};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::{DEFAULT_BACKOFF, TypedClient, retry_on_error, verbs};
use crate::metrics::controller::ControllerMetrics;

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an owner could not be confirmed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The owner or the dependent has no name or uid: it was not read from (or returned
    /// by) the API server.
    #[error("cannot confirm the owner of {kind} {dependent:?}: the {which} has no {field}")]
    Incomplete {
        /// The dependent's kind.
        kind: String,
        /// The dependent's name, as far as known.
        dependent: String,
        /// `owner` or `dependent`.
        which: &'static str,
        /// `name` or `uid`.
        field: &'static str,
    },
    /// Reading the owner failed.
    #[error("failed to confirm the owner of {kind} {dependent:?}")]
    Read {
        /// The dependent's kind.
        kind: String,
        /// The dependent's name.
        dependent: String,
        /// The failed read.
        #[source]
        source: Box<crate::error::Error>,
    },
    /// The owner is gone, and deleting the dependent failed.
    #[error("failed to delete {kind} {dependent:?}, whose owner is gone")]
    Delete {
        /// The dependent's kind.
        kind: String,
        /// The dependent's name.
        dependent: String,
        /// The failed delete.
        #[source]
        source: Box<crate::error::Error>,
    },
}

/// What [`OwnerCheck::confirm`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmation {
    /// The owner exists with the uid the reconcile read (it may be being deleted: then
    /// the server collects the dependent with it). Carry on.
    OwnerPresent,
    /// The owner is gone (not found, or its name holds another uid) and the dependent
    /// was deleted.
    DependentDeleted,
    /// The owner is gone, and the dependent was already gone too, or its name now holds
    /// another object (left alone).
    DependentAlreadyGone,
}

impl Confirmation {
    /// Whether the owner exists: false means the reconcile's owner is gone and there is
    /// nothing left to do for it.
    pub fn owner_present(self) -> bool {
        self == Confirmation::OwnerPresent
    }
}

/// Confirms, after a reconcile created or applied a dependent, that its owner still
/// exists, and deletes the dependent if not (see the [module documentation](self) for why
/// this is enough). A cheap handle; [`Controller::owner_check`](super::Controller::owner_check)
/// gives one that counts into the controller's metrics, [`OwnerCheck::default`] one that
/// counts nowhere.
///
/// ```no_run
/// # async fn demo(
/// #     check: kubegen_runtime::controller::OwnerCheck,
/// #     owners: kubegen_runtime::client::TypedClient<k8s_openapi::api::core::v1::ConfigMap>,
/// #     owner: k8s_openapi::api::core::v1::ConfigMap,
/// #     dependents: kubegen_runtime::client::TypedClient<k8s_openapi::api::core::v1::Secret>,
/// #     wanted: k8s_openapi::api::core::v1::Secret,
/// # ) -> Result<kubegen_runtime::controller::Action, Box<dyn std::error::Error>> {
/// use kubegen_runtime::controller::Action;
///
/// // `wanted` carries an ownerReference to `owner`, read from a lister.
/// let created = dependents.create(&wanted).await?;
/// if !check.confirm(&owners, &owner, &dependents, &created).await?.owner_present() {
///     // The owner was deleted while we wrote: the dependent is deleted again.
///     return Ok(Action::Done);
/// }
/// # Ok(Action::Done) }
/// ```
#[derive(Clone, Default)]
pub struct OwnerCheck {
    metrics: Option<Arc<dyn ControllerMetrics>>,
}

impl Debug for OwnerCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnerCheck")
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}

impl OwnerCheck {
    /// A check counting into `metrics` (`None`: nowhere).
    pub(super) fn with_metrics(metrics: Option<Arc<dyn ControllerMetrics>>) -> Self {
        Self { metrics }
    }

    /// After `dependent` (as the server returned it from a create or apply through
    /// `dependents`) was written for `owner` (read from a cache or the server), reads
    /// `owner` live through `owners`: if it exists with the same uid, returns
    /// [`Confirmation::OwnerPresent`]; otherwise deletes `dependent` by name with its uid
    /// as a precondition (background propagation) and says so.
    ///
    /// # Errors
    /// [`Error::Incomplete`] if `owner` or `dependent` lacks a name or uid;
    /// [`Error::Read`] and [`Error::Delete`] when the API server fails the read or the
    /// delete (after a few retries of transient failures).
    pub async fn confirm<O, OS, OV, D, DS, DV>(
        &self,
        owners: &TypedClient<O, OS, OV>,
        owner: &O,
        dependents: &TypedClient<D, DS, DV>,
        dependent: &D,
    ) -> Result<Confirmation>
    where
        O: Resource + Clone + DeserializeOwned + Serialize + Debug,
        OV: verbs::CanGet,
        D: Resource + Clone + DeserializeOwned + Serialize + Debug,
        D::DynamicType: Default,
        DV: verbs::CanDelete,
    {
        let kind = D::kind(&D::DynamicType::default()).into_owned();
        let dependent_name = dependent.meta().name.clone().unwrap_or_default();
        let incomplete = |which, field| Error::Incomplete {
            kind: kind.clone(),
            dependent: dependent_name.clone(),
            which,
            field,
        };
        let (Some(owner_name), Some(owner_uid)) = (&owner.meta().name, &owner.meta().uid) else {
            let field = if owner.meta().name.is_none() {
                "name"
            } else {
                "uid"
            };
            return Err(incomplete("owner", field));
        };
        if dependent_name.is_empty() {
            return Err(incomplete("dependent", "name"));
        }
        let Some(dependent_uid) = dependent.meta().uid.clone() else {
            return Err(incomplete("dependent", "uid"));
        };

        if let Some(metrics) = &self.metrics {
            metrics.owner_checked();
        }
        let live = retry_on_error(DEFAULT_BACKOFF, crate::error::Error::is_transient, || {
            owners.get(owner_name)
        })
        .await;
        match live {
            Ok(live) if live.meta().uid.as_deref() == Some(owner_uid.as_str()) => {
                return Ok(Confirmation::OwnerPresent);
            }
            Ok(_) => {}
            Err(error) if error.is_not_found() => {}
            Err(source) => {
                return Err(Error::Read {
                    kind,
                    dependent: dependent_name,
                    source: Box::new(source),
                });
            }
        }

        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(dependent_uid),
                resource_version: None,
            }),
            ..DeleteParams::background()
        };
        let deleted = retry_on_error(DEFAULT_BACKOFF, crate::error::Error::is_transient, || {
            dependents.delete(&dependent_name, &params)
        })
        .await;
        match deleted {
            Ok(_) => {
                tracing::info!(
                    kind,
                    dependent = dependent_name,
                    owner = owner_name,
                    "owner gone after the dependent was written; deleted the dependent"
                );
                if let Some(metrics) = &self.metrics {
                    metrics.orphan_deleted();
                }
                Ok(Confirmation::DependentDeleted)
            }
            // Gone already, or the name holds another object now (the uid precondition).
            Err(error) if error.is_not_found() || error.is_conflict() => {
                Ok(Confirmation::DependentAlreadyGone)
            }
            Err(source) => Err(Error::Delete {
                kind,
                dependent: dependent_name,
                source: Box::new(source),
            }),
        }
    }
}
