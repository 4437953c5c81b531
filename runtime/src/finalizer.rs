//! Finalizers: hold an object's deletion until the controller has cleaned up after it
//! (kube-runtime's `finalizer`, over [`TypedClient`]).
//!
//! [`finalize`] wraps a reconciler's work on one object and hands the user's function
//! an [`Event`]:
//!
//! | object                                   | what [`finalize`] does                                          |
//! |------------------------------------------|-----------------------------------------------------------------|
//! | not being deleted, finalizer absent      | adds the finalizer, then [`Event::Apply`] on the patched object |
//! | not being deleted, finalizer present     | [`Event::Apply`]                                                |
//! | being deleted, finalizer present         | [`Event::Cleanup`]; removes the finalizer once it succeeded     |
//! | being deleted, finalizer absent          | nothing ([`Outcome::Skipped`]): never re-finalized              |
//!
//! So if an apply ever started, the cleanup succeeded before the object went away. A
//! failing cleanup keeps the finalizer and returns [`Error::Cleanup`]: the caller
//! requeues the key with backoff (`add_rate_limited`) and the cleanup runs again later.
//! Both functions must therefore be idempotent, and the cleanup must cope with an apply
//! that never ran or never finished.
//!
//! Every write is a JSON patch whose `test` operations pin the state the decision was
//! made on, so a concurrent writer is never overwritten:
//!
//! - adding tests `metadata.resourceVersion` (the object did not change since it was
//!   read, in particular it was not deleted meanwhile) and the current finalizers list,
//!   then appends to it (or creates it);
//! - removing tests that the finalizer is still at the index it was read at, then removes
//!   that index; other finalizers, added or removed by other controllers, are kept.
//!
//! A failed test is answered 422 (409 for a stale resourceVersion): [`Error::is_conflict`]
//! says the object changed under the helper, so the caller requeues and decides again
//! on the fresh object.
//!
//! ```no_run
//! # async fn demo(client: kube::Client, cm: std::sync::Arc<k8s_openapi::api::core::v1::ConfigMap>) {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_runtime::client::{Scope, TypedClient};
//! use kubegen_runtime::finalizer::{Event, finalize};
//!
//! let configmaps = TypedClient::<ConfigMap>::new(client, Scope::Namespace("default"), &());
//! let outcome = finalize(&configmaps, "example.com/cleanup", cm, |event| async move {
//!     match event {
//!         Event::Apply(cm) => println!("apply {:?}", cm.metadata.name),
//!         Event::Cleanup(cm) => println!("clean up after {:?}", cm.metadata.name),
//!     }
//!     Ok::<_, std::io::Error>(())
//! })
//! .await;
//! match outcome {
//!     Ok(_) => { /* forget the key */ }
//!     Err(e) if e.is_conflict() => { /* requeue: the object changed meanwhile */ }
//!     Err(e) => { /* requeue with backoff */ let _ = e; }
//! }
//! # }
//! ```

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, PatchOperation, RemoveOperation, TestOperation};
use kube::Resource;
use kube::api::{Patch, PatchParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::{TypedClient, verbs};
use crate::error as client_error;
use crate::key::ObjectKey;

/// `Result` with this module's [`Error`].
pub type Result<T, E> = std::result::Result<T, Error<E>>;

/// What the user's function is asked to do.
#[derive(Debug)]
pub enum Event<K> {
    /// Make the world match the object. The finalizer is on the object: a deletion will
    /// wait for [`Event::Cleanup`].
    Apply(Arc<K>),
    /// The object is being deleted: release what the applies created. The finalizer is
    /// removed only if this succeeds.
    Cleanup(Arc<K>),
}

/// What [`finalize`] did, with the user's value when it ran the user's function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<T> {
    /// [`Event::Apply`] ran (after adding the finalizer, if it was missing).
    Applied(T),
    /// [`Event::Cleanup`] ran and the finalizer was removed (the object is gone, or waits
    /// for other finalizers).
    CleanedUp(T),
    /// The object is being deleted without this finalizer: the cleanup already ran, or
    /// the object was deleted before the finalizer was ever added. Nothing was done.
    Skipped,
}

impl<T> Outcome<T> {
    /// The user's value, if the user's function ran: a reconciler turns it into its
    /// action and treats `None` as done (the next change of the object brings it back).
    pub fn into_value(self) -> Option<T> {
        match self {
            Outcome::Applied(value) | Outcome::CleanedUp(value) => Some(value),
            Outcome::Skipped => None,
        }
    }
}

/// What went wrong in [`finalize`]. `E` is the user's error.
#[derive(Debug, thiserror::Error)]
pub enum Error<E: std::error::Error + 'static> {
    /// The user's [`Event::Apply`] failed.
    #[error("failed to apply {key}")]
    Apply {
        /// The object.
        key: ObjectKey,
        /// The user's error.
        #[source]
        source: E,
    },
    /// The user's [`Event::Cleanup`] failed: the finalizer stays, and the object with it.
    #[error("failed to clean up after {key}; finalizer {finalizer:?} stays")]
    Cleanup {
        /// The object.
        key: ObjectKey,
        /// The finalizer.
        finalizer: String,
        /// The user's error.
        #[source]
        source: E,
    },
    /// The patch adding the finalizer failed; the apply did not run.
    #[error("failed to add finalizer {finalizer:?} to {key}")]
    AddFinalizer {
        /// The object.
        key: ObjectKey,
        /// The finalizer.
        finalizer: String,
        /// The client error.
        #[source]
        source: client_error::Error,
    },
    /// The patch removing the finalizer failed after a successful cleanup (which will
    /// run again).
    #[error("failed to remove finalizer {finalizer:?} from {key} after its cleanup")]
    RemoveFinalizer {
        /// The object.
        key: ObjectKey,
        /// The finalizer.
        finalizer: String,
        /// The client error.
        #[source]
        source: client_error::Error,
    },
    /// The object lacks metadata only the API server sets: it was not read from it.
    #[error("failed to finalize {key}: the object has no metadata.{field}")]
    MissingMetadata {
        /// The object.
        key: ObjectKey,
        /// The missing field (`name`, `resourceVersion`).
        field: &'static str,
    },
    /// The client is scoped to another namespace than the object's.
    #[error("failed to finalize {key} with a client scoped to {client:?}")]
    WrongScope {
        /// The object.
        key: ObjectKey,
        /// The client's namespace (`None`: all namespaces or the cluster).
        client: Option<String>,
    },
}

impl<E: std::error::Error + 'static> Error<E> {
    /// The object changed between the read this call decided on and its write (a failed
    /// patch `test`, or a stale resourceVersion): requeue and decide again on the fresh
    /// object. Not a failure of the object, nor of the user's functions.
    ///
    /// A failed `test` is answered 422 with no field named in its causes; a 422 naming a
    /// field (an invalid finalizer name) is a real error.
    pub fn is_conflict(&self) -> bool {
        match self {
            Error::AddFinalizer { source, .. } | Error::RemoveFinalizer { source, .. } => {
                source.is_conflict() || patch_test_failed(source)
            }
            _ => false,
        }
    }

    /// The client error of a finalizer patch, if that is what failed.
    pub fn client_error(&self) -> Option<&client_error::Error> {
        match self {
            Error::AddFinalizer { source, .. } | Error::RemoveFinalizer { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

fn patch_test_failed(error: &client_error::Error) -> bool {
    error.status().is_some_and(|status| {
        status.code == 422
            && status
                .details
                .as_ref()
                .is_none_or(|d| d.causes.iter().all(|c| c.field.is_empty()))
    })
}

fn finalizers_path() -> PointerBuf {
    PointerBuf::from_tokens(["metadata", "finalizers"])
}

fn test(path: PointerBuf, value: Value) -> PatchOperation {
    PatchOperation::Test(TestOperation { path, value })
}

/// The patch adding `finalizer` to an object whose finalizers and resourceVersion were
/// read as `current` and `resource_version`.
fn add_patch(current: &[String], resource_version: &str, finalizer: &str) -> json_patch::Patch {
    let mut operations = vec![test(
        PointerBuf::from_tokens(["metadata", "resourceVersion"]),
        Value::from(resource_version),
    )];
    if current.is_empty() {
        // An absent list cannot be tested portably: real servers (evanphx/json-patch),
        // and the testkit like them, treat a test of a missing member against null as
        // a match, while RFC 6902 implementations fail it. The resourceVersion test
        // above pins the absent list instead.
        operations.push(PatchOperation::Add(AddOperation {
            path: finalizers_path(),
            value: Value::from(vec![finalizer]),
        }));
    } else {
        operations.push(test(finalizers_path(), Value::from(current)));
        let mut end = finalizers_path();
        end.push_back("-");
        operations.push(PatchOperation::Add(AddOperation {
            path: end,
            value: Value::from(finalizer),
        }));
    }
    json_patch::Patch(operations)
}

/// The patch removing `finalizer`, read at `index`.
fn remove_patch(index: usize, finalizer: &str) -> json_patch::Patch {
    let mut path = finalizers_path();
    path.push_back(index);
    json_patch::Patch(vec![
        test(path.clone(), Value::from(finalizer)),
        PatchOperation::Remove(RemoveOperation { path }),
    ])
}

/// Runs `reconcile` on `object` under the finalizer `finalizer`; see the
/// [module docs](self). `client` must be scoped to the object's namespace (or be a
/// cluster-scoped client for cluster-scoped objects); `object` is usually the informer's
/// cached copy. `finalizer` must be a qualified name, unique to the controller
/// (`example.com/cleanup`).
///
/// Any typed client of `K` will do, whatever subresources it serves (`S`), as long as
/// its verbs (`V`) include patch, the only call this makes: a generated client
/// (`FooClient = ResourceClient<Foo, Status>`) is passed as it is. A read-only client
/// cannot add or remove a finalizer, and does not compile:
///
/// ```compile_fail
/// # async fn demo(configmaps: kubegen_runtime::client::TypedClient<
/// #     k8s_openapi::api::core::v1::ConfigMap,
/// #     kubegen_runtime::client::subresources::None,
/// #     kubegen_runtime::client::verbs::ReadOnly,
/// # >, cm: std::sync::Arc<k8s_openapi::api::core::v1::ConfigMap>) {
/// let _ = kubegen_runtime::finalizer::finalize(&configmaps, "example.com/x", cm, |_| async {
///     Ok::<_, std::io::Error>(())
/// })
/// .await;
/// # }
/// ```
pub async fn finalize<K, S, V, F, Fut, T, E>(
    client: &TypedClient<K, S, V>,
    finalizer: &str,
    object: Arc<K>,
    reconcile: F,
) -> Result<Outcome<T>, E>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    V: verbs::CanPatch,
    F: FnOnce(Event<K>) -> Fut,
    Fut: Future<Output = std::result::Result<T, E>>,
    E: std::error::Error + 'static,
{
    let key = ObjectKey::of(object.as_ref());
    let meta = object.meta();
    let Some(name) = meta.name.clone().filter(|n| !n.is_empty()) else {
        return Err(Error::MissingMetadata { key, field: "name" });
    };
    let namespace = meta.namespace.as_deref().filter(|ns| !ns.is_empty());
    if namespace != client.namespace() {
        return Err(Error::WrongScope {
            key,
            client: client.namespace().map(str::to_owned),
        });
    }
    let current = meta.finalizers.as_deref().unwrap_or_default();
    let index = current.iter().position(|f| f == finalizer);
    let deleting = meta.deletion_timestamp.is_some();
    match (deleting, index) {
        (false, Some(_)) => reconcile(Event::Apply(object))
            .await
            .map(Outcome::Applied)
            .map_err(|source| Error::Apply { key, source }),
        (false, None) => {
            let Some(resource_version) = meta.resource_version.as_deref() else {
                return Err(Error::MissingMetadata {
                    key,
                    field: "resourceVersion",
                });
            };
            let patch = add_patch(current, resource_version, finalizer);
            let patched = client
                .patch(&name, &PatchParams::default(), &Patch::<()>::Json(patch))
                .await
                .map_err(|source| Error::AddFinalizer {
                    key: key.clone(),
                    finalizer: finalizer.to_owned(),
                    source,
                })?;
            tracing::debug!(%key, finalizer, "finalizer added");
            reconcile(Event::Apply(Arc::new(patched)))
                .await
                .map(Outcome::Applied)
                .map_err(|source| Error::Apply { key, source })
        }
        (true, Some(index)) => {
            let value = match reconcile(Event::Cleanup(object)).await {
                Ok(value) => value,
                Err(source) => {
                    return Err(Error::Cleanup {
                        key,
                        finalizer: finalizer.to_owned(),
                        source,
                    });
                }
            };
            let patch = remove_patch(index, finalizer);
            client
                .patch(&name, &PatchParams::default(), &Patch::<()>::Json(patch))
                .await
                .map_err(|source| Error::RemoveFinalizer {
                    key: key.clone(),
                    finalizer: finalizer.to_owned(),
                    source,
                })?;
            tracing::debug!(%key, finalizer, "cleanup done; finalizer removed");
            Ok(Outcome::CleanedUp(value))
        }
        (true, None) => Ok(Outcome::Skipped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(patch: &json_patch::Patch) -> Value {
        serde_json::to_value(patch).unwrap_or_default()
    }

    #[test]
    fn adding_pins_the_resource_version_and_the_list() {
        assert_eq!(
            ops(&add_patch(&[], "7", "example.com/x")),
            serde_json::json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
                {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/x"]},
            ])
        );
        let theirs = vec!["other.io/y".to_owned()];
        assert_eq!(
            ops(&add_patch(&theirs, "8", "example.com/x")),
            serde_json::json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": "8"},
                {"op": "test", "path": "/metadata/finalizers", "value": ["other.io/y"]},
                {"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/x"},
            ])
        );
    }

    #[test]
    fn removing_tests_the_index_it_removes() {
        assert_eq!(
            ops(&remove_patch(2, "example.com/x")),
            serde_json::json!([
                {"op": "test", "path": "/metadata/finalizers/2", "value": "example.com/x"},
                {"op": "remove", "path": "/metadata/finalizers/2"},
            ])
        );
    }

    /// `finalize` takes every typed client of a kind whose verbs include patch: the
    /// default client, and generated ones naming the subresources their kind serves
    /// (`ResourceClient<Foo, Status>`) or fewer verbs. Each call fails on the scope
    /// check, before any request and without running the user's function.
    #[tokio::test]
    async fn takes_clients_of_any_subresource_set_with_patch() {
        use k8s_openapi::api::core::v1::ConfigMap;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

        use crate::client::verbs::{No, Verbs, Yes};
        use crate::client::{Scope, subresources};

        type PatchOnly = Verbs<No, No, No, No, No, Yes, No, No>;

        let never = "http://127.0.0.1:9".parse().expect("a URL");
        let client = kube::Client::try_from(kube::Config::new(never)).expect("a client");
        let base = TypedClient::<ConfigMap>::new(client, Scope::Namespace("default"), &());
        let status: TypedClient<ConfigMap, subresources::Status> = base.clone().with_subresources();
        let none: TypedClient<ConfigMap, subresources::None> = base.clone().with_subresources();
        let patch_only: TypedClient<ConfigMap, subresources::Scale, PatchOnly> =
            base.clone().with_subresources().with_verbs();
        let cm = Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some("settings".into()),
                namespace: Some("elsewhere".into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        });
        let unreached = |_: Event<ConfigMap>| async {
            Err::<(), _>(std::io::Error::other("the user's function ran"))
        };
        let outcomes = [
            finalize(&base, "example.com/x", cm.clone(), unreached).await,
            finalize(&status, "example.com/x", cm.clone(), unreached).await,
            finalize(&none, "example.com/x", cm.clone(), unreached).await,
            finalize(&patch_only, "example.com/x", cm.clone(), unreached).await,
        ];
        for outcome in outcomes {
            assert!(
                matches!(&outcome, Err(Error::WrongScope { client: Some(ns), .. }) if ns == "default"),
                "{outcome:?}"
            );
        }
    }

    #[test]
    fn outcomes_give_the_users_value() {
        assert_eq!(Outcome::Applied(1).into_value(), Some(1));
        assert_eq!(Outcome::CleanedUp(2).into_value(), Some(2));
        assert_eq!(Outcome::<i32>::Skipped.into_value(), None);
    }
}
