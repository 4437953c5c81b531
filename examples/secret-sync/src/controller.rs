//! The secret-sync controller. Its work item is a target namespace: syncing one compares
//! everything the source namespace holds with everything copied into the target and
//! fixes every difference, so whatever happened meanwhile (missed events, a restart), one
//! sync per namespace is enough. Handlers only decide which namespaces to look at.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{DeleteParams, ObjectMeta};
use kube::core::PartialObjectMeta;
use kubegen::kubernetes;
use kubegen::kubernetes::listers::core::v1::SecretLister;
use kubegen::operator::{Manager, ManagerError};
use kubegen::runtime::controller::{
    self as runtime, Action, ControllerConfig, EnqueueByIndex, EnqueueObject, ErrorChain,
    Reconciler, is_cache_lag,
};
use kubegen::runtime::events::{Event, EventRecorder};
use kubegen::runtime::factory::SharedInformerFactory;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::lister::{Lister, Selector};
use kubegen::runtime::workqueue::RateLimitingQueue;
use tokio::sync::watch;

/// The controller's name: `reportingController` of its events, its queue's name and
/// the `controller` label of its metrics.
pub const CONTROLLER_NAME: &str = "secret-sync";
/// Label on every copy (value [`CONTROLLER_NAME`]): only labelled Secrets are ever updated
/// or deleted.
pub const MANAGED_BY_LABEL: &str = "secret-sync.kubegen.io/managed-by";
/// Annotation on every copy naming its source, `namespace/name`.
pub const SOURCE_ANNOTATION: &str = "secret-sync.kubegen.io/source";
/// Event reason when a target namespace holds an unmanaged Secret of a source's name.
pub const REASON_TARGET_EXISTS: &str = "TargetExists";
/// Secrets of this type belong to their namespace's service accounts: never copied.
pub const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";
/// How long [`Controller::run`] waits for the caches.
pub const CACHE_SYNC_TIMEOUT: Duration = Duration::from_secs(60);
/// The Namespace index behind the fan-out: each target namespace is filed under the
/// namespaces whose Secrets its sync reads (the source, and itself for its copies).
const CONCERNED_BY_INDEX: &str = "secret-sync.kubegen.io/concerned-by";

/// A Namespace as the controller caches it: metadata only (name, labels, deletion
/// timestamp), through a metadata-only informer, since the sync needs nothing else.
pub type NamespaceMeta = PartialObjectMeta<Namespace>;

/// Which namespaces are copied from and into.
#[derive(Clone, Debug)]
pub struct Scope {
    /// Where the Secrets come from.
    pub source: String,
    /// Namespaces never copied into (besides the source).
    pub excluded: BTreeSet<String>,
}

impl Scope {
    /// Copies from `source` into every namespace but the system ones (`kube-system`,
    /// `kube-public`, `kube-node-lease`).
    pub fn new(source: impl Into<String>) -> Self {
        let excluded = ["kube-system", "kube-public", "kube-node-lease"]
            .map(String::from)
            .into();
        Self {
            source: source.into(),
            excluded,
        }
    }

    /// Whether `namespace` receives copies.
    pub fn is_target(&self, namespace: &str) -> bool {
        namespace != self.source && !self.excluded.contains(namespace)
    }

    /// The namespaces whose Secrets the sync of `namespace` reads: the source and
    /// `namespace` itself if it is a target, nothing otherwise.
    pub fn concerned_by(&self, namespace: &str) -> Vec<String> {
        if self.is_target(namespace) {
            vec![self.source.clone(), namespace.to_owned()]
        } else {
            Vec::new()
        }
    }

    /// The namespaces whose Secrets changed, as far as syncs care, when `secret` did:
    /// its own namespace if it is a source Secret or a copy, nothing otherwise. Looked up
    /// in the index of [`concerned_by`](Self::concerned_by), a source Secret reaches
    /// every target and a copy reaches its own namespace.
    pub fn affected_by(&self, secret: &Secret) -> Vec<String> {
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        if namespace == self.source || is_managed(secret) {
            vec![namespace.to_owned()]
        } else {
            Vec::new()
        }
    }
}

/// Why a namespace could not be synced (it is retried with backoff), or the controller
/// could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Some Secrets of the namespace could not be synced; each failure is listed.
    #[error("failed to sync {} secret(s) into namespace {namespace}: {}", failures.len(), failures.join("; "))]
    Namespace {
        /// The target namespace.
        namespace: String,
        /// One message per failed Secret.
        failures: Vec<String>,
    },
    /// The reconcile loop could not run (its caches did not sync, the Lease was lost...).
    #[error(transparent)]
    Run(#[from] ManagerError),
}

/// Keeps copies of the source namespace's Secrets in every target namespace: the
/// reconciler of target namespaces, with the runtime controller that runs it.
pub struct Controller {
    clientset: kubernetes::clientset::Clientset,
    scope: Scope,
    secrets: SecretLister,
    namespaces: Lister<NamespaceMeta>,
    recorder: EventRecorder,
    reconcile_loop: runtime::Controller,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("scope", &self.scope)
            .field("loop", &self.reconcile_loop)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts) and
    /// a reconcile loop configured by `config` (workers, metrics) under the controller's
    /// name. Work items are the keys of Namespaces.
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
        scope: Scope,
        config: ControllerConfig,
    ) -> Arc<Self> {
        // Secrets through the generated informers of the built-in groups, over the shared
        // factory; Namespaces through a metadata-only informer of the same factory: the
        // sync reads their names and deletion timestamps, never their bodies.
        let informers = kubernetes::informers::InformerFactory::new(
            kubegen::gentype::InformerFactory::new(factory.clone()),
        );
        let secrets = informers.core().v1().secrets();
        let namespace_informer = factory.informer::<NamespaceMeta>();
        let reconcile_loop = runtime::Controller::new(
            config
                .name(CONTROLLER_NAME)
                .cache_sync_timeout(CACHE_SYNC_TIMEOUT),
        );

        // A namespace appeared or changed: sync it (non-targets are skipped). Its
        // initial list syncs every namespace once, whatever the Secrets did meanwhile.
        reconcile_loop.watches(
            &namespace_informer,
            EnqueueObject::new(reconcile_loop.queue()),
        );
        // A Secret changed: sync every namespace filed under the Secret's namespace.
        let concerned_by = namespace_informer.add_index(CONCERNED_BY_INDEX, {
            let scope = scope.clone();
            move |ns: &NamespaceMeta| {
                scope.concerned_by(ns.metadata.name.as_deref().unwrap_or_default())
            }
        });
        let affected_by = {
            let scope = scope.clone();
            move |secret: &Secret| scope.affected_by(secret)
        };
        reconcile_loop.watches(
            &secrets.informer(),
            EnqueueByIndex::new(
                reconcile_loop.queue(),
                namespace_informer.store(),
                concerned_by,
                affected_by,
            ),
        );

        Arc::new(Self {
            clientset: kubernetes::clientset::Clientset::new(client),
            scope,
            secrets: secrets.lister(),
            namespaces: namespace_informer.lister(),
            recorder,
            reconcile_loop,
        })
    }

    /// Adds the reconcile loop to `manager`: from its start, it waits for the caches,
    /// reconciles (under the manager's Lease, if any) until stopped, then drains the
    /// queue.
    pub fn add_to(self: &Arc<Self>, manager: &mut Manager) {
        manager.add(self.reconcile_loop.clone(), Arc::clone(self));
    }

    /// A receiver of the number of namespaces synced so far.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.reconcile_loop.processed()
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<ObjectKey> {
        self.reconcile_loop.queue()
    }

    /// The Secret lister.
    pub fn secrets(&self) -> &SecretLister {
        &self.secrets
    }

    /// The Namespace lister (metadata only).
    pub fn namespaces(&self) -> &Lister<NamespaceMeta> {
        &self.namespaces
    }

    /// The namespaces copied from and into.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Makes the copies in `namespace` equal the source's Secrets.
    ///
    /// Writes refused because the Secret cache is behind the server (a copy the
    /// previous sync created a moment ago, an update carrying a stale resourceVersion)
    /// requeue the namespace quietly; the next sync reads the caught-up cache.
    async fn sync_namespace(&self, namespace: &str) -> Result<Action, Error> {
        if !self.scope.is_target(namespace) {
            return Ok(Action::Done);
        }
        let Some(ns) = self.namespaces.get(namespace) else {
            return Ok(Action::Done);
        };
        if ns.metadata.deletion_timestamp.is_some() {
            return Ok(Action::Done); // Terminating: its Secrets are going away anyway.
        }
        let sources: BTreeMap<String, Arc<Secret>> = self
            .secrets
            .namespace(&self.scope.source)
            .list(&Selector::everything())
            .into_iter()
            .filter(|s| is_copyable(s))
            .map(|s| (s.metadata.name.clone().unwrap_or_default(), s))
            .collect();
        let targets = self.secrets.namespace(namespace);
        let api = self.clientset.core_v1().secrets(namespace);
        let mut failures = Failures::default();

        for (name, source) in &sources {
            let wanted = copy_of(source, namespace);
            let result = match targets.get(name) {
                None => {
                    tracing::info!(secret = %name, %namespace, "copying secret");
                    api.create(&wanted).await.map(|_| ())
                }
                Some(existing) if !is_managed(&existing) => {
                    let note = format!(
                        "Secret {namespace}/{name} exists and is not managed by {CONTROLLER_NAME}; not overwriting it"
                    );
                    self.recorder.publish(
                        source.as_ref(),
                        Event::warning(REASON_TARGET_EXISTS, "Copy", note.clone()),
                    );
                    failures.failed.push(note);
                    continue;
                }
                Some(existing) if in_step(&existing, &wanted) => continue,
                Some(existing) if secret_type(&existing) != secret_type(&wanted) => {
                    // `type` is immutable: replace the copy.
                    tracing::info!(secret = %name, %namespace, "replacing secret copy (type changed)");
                    match api.delete(name, &DeleteParams::default()).await {
                        Ok(_) => api.create(&wanted).await.map(|_| ()),
                        Err(error) => Err(error),
                    }
                }
                Some(existing) => {
                    tracing::info!(secret = %name, %namespace, "updating secret copy");
                    let mut updated = wanted;
                    updated.metadata.resource_version = existing.metadata.resource_version.clone();
                    api.update(&updated).await.map(|_| ())
                }
            };
            match result {
                Ok(()) => self.recorder.publish(
                    source.as_ref(),
                    Event::normal(
                        "Copied",
                        "Copy",
                        format!("copied into namespace {namespace}"),
                    ),
                ),
                Err(error) => failures.record(&error),
            }
        }

        for stale in targets
            .list(&Selector::everything())
            .into_iter()
            .filter(|s| is_managed(s))
        {
            let name = stale.metadata.name.clone().unwrap_or_default();
            let from_our_source = source_of(&stale).is_some_and(|(ns, _)| ns == self.scope.source);
            if sources.contains_key(&name) || !from_our_source {
                continue;
            }
            tracing::info!(secret = %name, %namespace, "deleting copy of a removed secret");
            match api.delete(&name, &DeleteParams::default()).await {
                Ok(_) => {}
                Err(error) if error.is_not_found() => {}
                Err(error) => failures.record(&error),
            }
        }

        if !failures.failed.is_empty() {
            return Err(Error::Namespace {
                namespace: namespace.to_owned(),
                failures: failures.failed,
            });
        }
        if !failures.lagging.is_empty() {
            let writes = failures.lagging.join("; ");
            tracing::debug!(%namespace, %writes, "secret cache behind the server; requeuing");
            return Ok(Action::Requeue);
        }
        tracing::info!(%namespace, secrets = sources.len(), "namespace in step");
        Ok(Action::Done)
    }
}

/// The writes of one namespace sync that did not go through.
#[derive(Debug, Default)]
struct Failures {
    /// Real failures: the namespace is retried with backoff as an error.
    failed: Vec<String>,
    /// Refusals that only show the cache was behind: the namespace is requeued quietly.
    lagging: Vec<String>,
}

impl Failures {
    fn record(&mut self, error: &kubegen::runtime::error::Error) {
        let line = ErrorChain(error).to_string();
        if is_cache_lag(error) {
            self.lagging.push(line);
        } else {
            self.failed.push(line);
        }
    }
}

impl Reconciler for Controller {
    type Error = Error;

    async fn reconcile(&self, key: &ObjectKey) -> Result<Action, Error> {
        // Work items are Namespaces: cluster-scoped keys named after the namespace.
        self.sync_namespace(key.name()).await
    }
}

/// Whether a Secret is one of our copies.
pub fn is_managed(secret: &Secret) -> bool {
    secret
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(MANAGED_BY_LABEL))
        .map(String::as_str)
        == Some(CONTROLLER_NAME)
}

/// The `(namespace, name)` a copy was made from.
pub fn source_of(secret: &Secret) -> Option<(&str, &str)> {
    secret
        .metadata
        .annotations
        .as_ref()?
        .get(SOURCE_ANNOTATION)?
        .split_once('/')
}

/// Whether a source Secret is copied (service account tokens are not).
pub fn is_copyable(secret: &Secret) -> bool {
    secret.type_.as_deref() != Some(SERVICE_ACCOUNT_TOKEN)
}

/// The copy of `source` that belongs in `namespace`: same name, data, type and labels,
/// plus the managed-by label and the source annotation.
pub fn copy_of(source: &Secret, namespace: &str) -> Secret {
    let mut labels = source.metadata.labels.clone().unwrap_or_default();
    labels.insert(MANAGED_BY_LABEL.to_owned(), CONTROLLER_NAME.to_owned());
    let origin = format!(
        "{}/{}",
        source.metadata.namespace.as_deref().unwrap_or_default(),
        source.metadata.name.as_deref().unwrap_or_default()
    );
    Secret {
        metadata: ObjectMeta {
            name: source.metadata.name.clone(),
            namespace: Some(namespace.to_owned()),
            labels: Some(labels),
            annotations: Some([(SOURCE_ANNOTATION.to_owned(), origin)].into()),
            ..Default::default()
        },
        data: source.data.clone().filter(|d| !d.is_empty()),
        type_: source.type_.clone(),
        ..Default::default()
    }
}

/// A Secret's type (`Opaque` when unset, as the server defaults it).
pub fn secret_type(secret: &Secret) -> &str {
    secret.type_.as_deref().unwrap_or("Opaque")
}

/// Whether an existing copy already matches the wanted one.
pub fn in_step(existing: &Secret, wanted: &Secret) -> bool {
    existing.data.clone().filter(|d| !d.is_empty()) == wanted.data
        && secret_type(existing) == secret_type(wanted)
        && existing.metadata.labels == wanted.metadata.labels
        && existing
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(SOURCE_ANNOTATION))
            == wanted
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(SOURCE_ANNOTATION))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a failed call is a failed test
mod tests {
    use k8s_openapi::ByteString;

    use super::*;

    fn source() -> Secret {
        Secret {
            metadata: ObjectMeta {
                name: Some("creds".into()),
                namespace: Some("src".into()),
                labels: Some([("team".to_owned(), "a".to_owned())].into()),
                resource_version: Some("7".into()),
                ..Default::default()
            },
            data: Some([("password".to_owned(), ByteString(b"hunter2".to_vec()))].into()),
            type_: Some("Opaque".into()),
            ..Default::default()
        }
    }

    #[test]
    fn copies_are_marked_and_comparable() {
        let copy = copy_of(&source(), "team-a");
        assert!(is_managed(&copy));
        assert_eq!(source_of(&copy), Some(("src", "creds")));
        assert_eq!(copy.metadata.namespace.as_deref(), Some("team-a"));
        assert_eq!(copy.metadata.labels.as_ref().unwrap()["team"], "a");
        assert!(copy.metadata.resource_version.is_none());
        assert!(in_step(&copy, &copy_of(&source(), "team-a")));
        let mut changed = source();
        changed.data = Some([("password".to_owned(), ByteString(b"new".to_vec()))].into());
        assert!(!in_step(&copy, &copy_of(&changed, "team-a")));
    }

    #[test]
    fn the_fan_out_index_files_targets_under_the_source_and_themselves() {
        let scope = Scope::new("src");
        assert_eq!(scope.concerned_by("team-a"), ["src", "team-a"]);
        assert!(scope.concerned_by("src").is_empty());
        assert!(scope.concerned_by("kube-system").is_empty());
        // A source Secret reaches every target, a copy its own namespace, others nobody.
        assert_eq!(scope.affected_by(&source()), ["src"]);
        assert_eq!(scope.affected_by(&copy_of(&source(), "team-a")), ["team-a"]);
        let mut unmanaged = source();
        unmanaged.metadata.namespace = Some("team-a".into());
        assert!(scope.affected_by(&unmanaged).is_empty());
    }

    #[test]
    fn scope_excludes_source_and_system_namespaces() {
        let scope = Scope::new("src");
        assert!(scope.is_target("team-a"));
        assert!(!scope.is_target("src"));
        assert!(!scope.is_target("kube-system"));
        let token = Secret {
            type_: Some(SERVICE_ACCOUNT_TOKEN.into()),
            ..Default::default()
        };
        assert!(!is_copyable(&token));
    }
}
