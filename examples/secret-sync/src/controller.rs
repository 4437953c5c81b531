//! The secret-sync controller. Its work item is a target namespace: syncing one compares
//! everything the source namespace holds with everything copied into the target and
//! fixes every difference, so whatever happened meanwhile (missed events, a restart), one
//! sync per namespace is enough. Handlers only decide which namespaces to look at.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{DeleteParams, ObjectMeta};
use kubegen::kubernetes;
use kubegen::kubernetes::listers::core::v1::{NamespaceLister, SecretLister};
use kubegen_runtime::events::{Event, EventRecorder};
use kubegen_runtime::factory::SharedInformerFactory;
use kubegen_runtime::informer::{
    DeletedObject, HandlerFns, HandlerRegistration, HasSynced, wait_for_cache_sync,
};
use kubegen_runtime::lister::Selector;
use kubegen_runtime::workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
use tokio::sync::watch;

/// The controller's name: `reportingController` of its events and its queue's name.
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
}

/// Why a namespace could not be synced (it is retried with backoff), or the controller
/// could not start.
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
    /// The informer caches did not sync in time.
    #[error("failed to wait for the Secret and Namespace caches to sync")]
    CacheSync,
}

/// Keeps copies of the source namespace's Secrets in every target namespace.
pub struct Controller {
    clientset: kubernetes::clientset::Clientset,
    scope: Scope,
    secrets: SecretLister,
    namespaces: NamespaceLister,
    synced: Vec<HandlerRegistration>,
    queue: RateLimitingQueue<String>,
    recorder: EventRecorder,
    processed: watch::Sender<u64>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("scope", &self.scope)
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

/// Decides which target namespaces an event concerns.
#[derive(Clone)]
struct Enqueuer {
    scope: Scope,
    namespaces: NamespaceLister,
    queue: RateLimitingQueue<String>,
}

impl Enqueuer {
    fn secret(&self, secret: &Secret) {
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        if namespace == self.scope.source {
            // A source changed: every target must follow.
            for ns in self.namespaces.list(&Selector::everything()) {
                self.namespace(ns.metadata.name.as_deref().unwrap_or_default());
            }
        } else if is_managed(secret) {
            // A copy changed or went away: its namespace is checked.
            self.namespace(namespace);
        }
    }

    fn namespace(&self, namespace: &str) {
        if self.scope.is_target(namespace) {
            self.queue.add(namespace.to_owned());
        }
    }
}

impl Controller {
    /// Sets up the informers' event handlers on `factory` (which the caller starts).
    pub fn new(
        client: kube::Client,
        factory: &SharedInformerFactory,
        recorder: EventRecorder,
        scope: Scope,
    ) -> Arc<Self> {
        // The generated informers of the built-in groups, over the shared factory.
        let informers = kubernetes::informers::InformerFactory::new(
            kubegen::gentype::InformerFactory::new(factory.clone()),
        );
        let secrets = informers.core().v1().secrets();
        let namespaces = informers.core().v1().namespaces();
        let secret_informer = secrets.informer();
        let namespace_informer = namespaces.informer();
        let queue = RateLimitingQueue::with_config(
            default_controller_rate_limiter(),
            QueueConfig::default().name(CONTROLLER_NAME),
        );
        let enqueuer = Enqueuer {
            scope: scope.clone(),
            namespaces: namespaces.lister(),
            queue: queue.clone(),
        };

        let secret_registration = secret_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let e = enqueuer.clone();
                    move |s: Arc<Secret>, _| e.secret(&s)
                })
                .on_update({
                    let e = enqueuer.clone();
                    move |old: Arc<Secret>, new: Arc<Secret>| {
                        // Both: a copy that lost its label must still be looked at.
                        e.secret(&old);
                        e.secret(&new);
                    }
                })
                .on_delete({
                    let e = enqueuer.clone();
                    move |gone: DeletedObject<Secret>| e.secret(gone.object())
                }),
        );
        let namespace_registration = namespace_informer.add_event_handler(
            HandlerFns::new()
                .on_add({
                    let e = enqueuer.clone();
                    move |ns: Arc<Namespace>, _| {
                        e.namespace(ns.metadata.name.as_deref().unwrap_or_default())
                    }
                })
                .on_update(move |_, ns: Arc<Namespace>| {
                    enqueuer.namespace(ns.metadata.name.as_deref().unwrap_or_default())
                }),
        );

        Arc::new(Self {
            clientset: kubernetes::clientset::Clientset::new(client),
            scope,
            secrets: secrets.lister(),
            namespaces: namespaces.lister(),
            synced: vec![secret_registration, namespace_registration],
            queue,
            recorder,
            processed: watch::Sender::new(0),
        })
    }

    /// Waits for the caches, runs `workers` workers until `shutdown` resolves, then drains
    /// the queue.
    pub async fn run(
        self: Arc<Self>,
        workers: usize,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), Error> {
        let synced: Vec<&dyn HasSynced> = self.synced.iter().map(|r| r as &dyn HasSynced).collect();
        if !wait_for_cache_sync(CACHE_SYNC_TIMEOUT, &synced).await {
            return Err(Error::CacheSync);
        }
        tracing::info!(workers, source = %self.scope.source, "starting workers");
        let handles: Vec<_> = (0..workers.max(1))
            .map(|_| {
                let controller = Arc::clone(&self);
                tokio::spawn(async move { while controller.process_next_work_item().await {} })
            })
            .collect();
        shutdown.await;
        tracing::info!("shutting down workers, draining the queue");
        self.queue.shut_down_with_drain().await;
        for handle in handles {
            if let Err(error) = handle.await {
                tracing::error!(%error, "a worker panicked");
            }
        }
        Ok(())
    }

    /// A receiver of the number of namespaces synced so far.
    pub fn processed(&self) -> watch::Receiver<u64> {
        self.processed.subscribe()
    }

    /// The work queue (for inspection).
    pub fn queue(&self) -> &RateLimitingQueue<String> {
        &self.queue
    }

    /// The Secret lister.
    pub fn secrets(&self) -> &SecretLister {
        &self.secrets
    }

    /// The Namespace lister.
    pub fn namespaces(&self) -> &NamespaceLister {
        &self.namespaces
    }

    /// The namespaces copied from and into.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    async fn process_next_work_item(&self) -> bool {
        let Some(namespace) = self.queue.get().await else {
            return false;
        };
        match self.sync_namespace(&namespace).await {
            Ok(()) => self.queue.forget(&namespace),
            Err(error) => {
                tracing::warn!(%namespace, %error, "error syncing; requeuing");
                self.queue.add_rate_limited(namespace.clone());
            }
        }
        self.queue.done(&namespace);
        self.processed.send_modify(|n| *n += 1);
        true
    }

    /// Makes the copies in `namespace` equal the source's Secrets.
    async fn sync_namespace(&self, namespace: &str) -> Result<(), Error> {
        let Some(ns) = self.namespaces.get(namespace) else {
            return Ok(());
        };
        if ns.metadata.deletion_timestamp.is_some() {
            return Ok(()); // Terminating: its Secrets are going away anyway.
        }
        let sources: BTreeMap<String, Arc<Secret>> = self
            .secrets
            .secrets(&self.scope.source)
            .list(&Selector::everything())
            .into_iter()
            .filter(|s| is_copyable(s))
            .map(|s| (s.metadata.name.clone().unwrap_or_default(), s))
            .collect();
        let targets = self.secrets.secrets(namespace);
        let api = self.clientset.core_v1().secrets(namespace);
        let mut failures = Vec::new();

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
                    failures.push(note);
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
                Err(error) => failures.push(error_chain(&error)),
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
                Err(error) => failures.push(error_chain(&error)),
            }
        }

        if failures.is_empty() {
            tracing::info!(%namespace, secrets = sources.len(), "namespace in step");
            Ok(())
        } else {
            Err(Error::Namespace {
                namespace: namespace.to_owned(),
                failures,
            })
        }
    }
}

/// An error and its sources, `: `-separated.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
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
