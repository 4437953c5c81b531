//! [`SharedInformerFactory`]: one informer per (type, namespace, label selector, field
//! selector), however many controllers ask for it; started, synced and stopped together,
//! and released one at a time (what client-go cannot do, kubernetes#79610). A factory
//! made with [`SharedInformerFactory::shard`] gives informers of one shard (KEP-5866's
//! `shardSelector`) only.
//!
//! Metadata-only informers (client-go's `metadatainformer`) are the informers of
//! `kube::core::PartialObjectMeta<K>`: `Api<PartialObjectMeta<K>>` lists and watches with
//! the `meta.k8s.io` PartialObjectMetadata Accept headers, so the server sends, and the
//! cache holds, metadata only. Being another type, `PartialObjectMeta<K>` gets its own
//! informer, distinct from `K`'s.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) {
//! use std::time::Duration;
//! use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
//! use kube::core::PartialObjectMeta;
//! use kubegen_runtime::factory::SharedInformerFactory;
//!
//! let factory = SharedInformerFactory::new(client).default_resync(Duration::from_secs(600));
//! let pods = factory.informer::<Pod>();
//! let same_pods = factory.informer::<Pod>(); // the same informer
//! let configmaps = factory.informer::<ConfigMap>();
//! // Every Secret's metadata, without their data: its own informer, not the one of `Secret`.
//! let secret_names = factory.informer::<PartialObjectMeta<Secret>>();
//! factory.start();
//! let synced = factory.wait_for_cache_sync(Duration::from_secs(30)).await;
//! assert!(synced.values().all(|ok| *ok));
//! # let _ = (pods, same_pods, configmaps, secret_names);
//! factory.shutdown().await;
//! # }
//! ```

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use kube::core::ApiResource;
use kube::{Client, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::backoff::Backoff;
use crate::client::ApiScope;
use crate::informer::{HasSynced, InformerConfig, SharedInformer, wait_for_cache_sync};
use crate::metrics::NoopMetrics;
use crate::metrics::informer::InformerMetricsProvider;
use crate::reflector::{DEFAULT_BACKOFF, ReflectorConfig};
use crate::shard::ShardSelector;

/// Which collection an informer watches; the factory's sharing key (with the type).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct InformerOptions {
    /// One namespace, or `None` for all (ignored for cluster-scoped types).
    pub namespace: Option<String>,
    /// A label selector.
    pub label_selector: Option<String>,
    /// A field selector.
    pub field_selector: Option<String>,
}

impl InformerOptions {
    /// Watches one namespace.
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Filters by labels.
    #[must_use]
    pub fn label_selector(mut self, selector: impl Into<String>) -> Self {
        self.label_selector = Some(selector.into());
        self
    }

    /// Filters by fields.
    #[must_use]
    pub fn field_selector(mut self, selector: impl Into<String>) -> Self {
        self.field_selector = Some(selector.into());
        self
    }
}

/// The collection one informer lists and watches: what it needs RBAC `get`, `list` and
/// `watch` on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InformedResource {
    /// API group (`""` for core).
    pub group: String,
    /// The plural, e.g. `deployments`.
    pub plural: String,
    /// The one namespace watched, or `None` for all (and for cluster-scoped types).
    pub namespace: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct InformerKey {
    type_id: TypeId,
    type_name: String,
    group: String,
    version: String,
    plural: String,
    options: InformerOptions,
}

/// A type-erased informer, as the factory holds them.
trait ErasedInformer: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn start(&self);
    fn synced(&self) -> watch::Receiver<bool>;
    fn shutdown(&self) -> BoxFuture<'static, ()>;
}

impl<K> ErasedInformer for SharedInformer<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn start(&self) {
        SharedInformer::start(self);
    }
    fn synced(&self) -> watch::Receiver<bool> {
        self.synced_receiver()
    }
    fn shutdown(&self) -> BoxFuture<'static, ()> {
        let informer = self.clone();
        async move { informer.shutdown().await }.boxed()
    }
}

struct Entry {
    name: String,
    informer: Arc<dyn ErasedInformer>,
}

#[derive(Default)]
struct State {
    informers: HashMap<InformerKey, Entry>,
    started: bool,
    shut_down: bool,
}

/// Creates and shares informers; see the [module docs](self).
#[derive(Clone)]
pub struct SharedInformerFactory {
    client: Client,
    default_resync: Option<Duration>,
    namespace: Option<String>,
    metrics: Arc<dyn InformerMetricsProvider>,
    backoff: Backoff,
    shard: Option<ShardSelector>,
    state: Arc<Mutex<State>>,
}

impl Debug for SharedInformerFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("SharedInformerFactory")
            .field(
                "informers",
                &state
                    .informers
                    .values()
                    .map(|e| &e.name)
                    .collect::<Vec<_>>(),
            )
            .field("started", &state.started)
            .finish()
    }
}

impl SharedInformerFactory {
    /// A factory over all namespaces, without resync.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            default_resync: None,
            namespace: None,
            metrics: Arc::new(NoopMetrics),
            backoff: DEFAULT_BACKOFF,
            shard: None,
            state: Arc::default(),
        }
    }

    /// A factory with this one's settings (resync, namespace, metrics, backoff, shard)
    /// and no informers, not started: e.g. one per shard a replica holds, shut down with
    /// the shard.
    pub fn new_like(&self) -> Self {
        Self {
            client: self.client.clone(),
            default_resync: self.default_resync,
            namespace: self.namespace.clone(),
            metrics: self.metrics.clone(),
            backoff: self.backoff,
            shard: self.shard.clone(),
            state: Arc::default(),
        }
    }

    /// The resync period of informers created from now on (zero: none).
    #[must_use]
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.default_resync = Some(period).filter(|p| !p.is_zero());
        self
    }

    /// The namespace of informers asked for without one (client-go's `WithNamespace`).
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Where reflector metrics go.
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn InformerMetricsProvider>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Sets the backoff of every informer's reflector (default
    /// [`DEFAULT_BACKOFF`](crate::reflector::DEFAULT_BACKOFF), client-go's: 800 ms doubling
    /// to a 30 s cap), e.g. a short cap for tests that inject many faults.
    #[must_use]
    pub fn reflector_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Informers created from now on cache only the objects of this shard (KEP-5866's
    /// `shardSelector`, see [`ReflectorConfig::shard_selector`]): a factory per shard is
    /// how a sharded replica runs its controllers on a slice of the objects.
    #[must_use]
    pub fn shard(mut self, selector: ShardSelector) -> Self {
        self.shard = Some(selector);
        self
    }

    /// The shard of this factory's informers, if any.
    pub fn shard_selector(&self) -> Option<&ShardSelector> {
        self.shard.as_ref()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The informer for `K` with the factory's namespace and no selectors.
    pub fn informer<K>(&self) -> SharedInformer<K>
    where
        K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::DynamicType: Default,
        K::Scope: ApiScope,
    {
        self.informer_with(&K::DynamicType::default(), InformerOptions::default())
    }

    /// The informer for `K` (a `DynamicObject` with its `ApiResource`, or any type) with
    /// these options. The first call creates it (started at once if the factory is
    /// running); later calls with the same type and options return the same informer.
    pub fn informer_with<K>(
        &self,
        dyntype: &K::DynamicType,
        options: InformerOptions,
    ) -> SharedInformer<K>
    where
        K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: ApiScope,
    {
        let (key, options) = self.key::<K>(dyntype, options);
        let mut state = self.lock();
        if let Some(existing) = state.informers.get(&key)
            && let Some(informer) = existing
                .informer
                .as_any()
                .downcast_ref::<SharedInformer<K>>()
        {
            return informer.clone();
        }
        let name = informer_name(&key);
        let api = <K::Scope as ApiScope>::api::<K>(
            self.client.clone(),
            options.namespace.as_deref(),
            dyntype,
        );
        let mut reflector = ReflectorConfig::default()
            .name(name.clone())
            .backoff(self.backoff)
            .metrics(self.metrics.reflector(&name));
        reflector.label_selector = options.label_selector.clone();
        reflector.field_selector = options.field_selector.clone();
        reflector.shard_selector = self.shard.clone();
        let mut config = InformerConfig::default().reflector(reflector);
        config.resync = self.default_resync;
        let informer = SharedInformer::new(api, config);
        if state.started && !state.shut_down {
            informer.start();
        }
        state.informers.insert(
            key,
            Entry {
                name,
                informer: Arc::new(informer.clone()),
            },
        );
        informer
    }

    fn key<K>(
        &self,
        dyntype: &K::DynamicType,
        mut options: InformerOptions,
    ) -> (InformerKey, InformerOptions)
    where
        K: Resource + 'static,
    {
        if options.namespace.is_none() {
            options.namespace = self.namespace.clone();
        }
        let resource = ApiResource::erase::<K>(dyntype);
        let key = InformerKey {
            type_id: TypeId::of::<K>(),
            type_name: short_type_name::<K>(),
            group: resource.group,
            version: resource.version,
            plural: resource.plural,
            options: options.clone(),
        };
        (key, options)
    }

    /// Starts every informer not yet started (and every one created later). Does nothing
    /// after [`shutdown`](Self::shutdown).
    pub fn start(&self) {
        let mut state = self.lock();
        if state.shut_down {
            return;
        }
        state.started = true;
        for entry in state.informers.values() {
            entry.informer.start();
        }
    }

    /// Waits until every informer has synced or `timeout` passes; reports each by name
    /// (`configmaps.v1 (ConfigMap)`, `deployments.apps/v1 (Deployment) in namespace "x"`,
    /// `widgets.example.com/v1 (DynamicObject)`, ...).
    ///
    /// Before [`start`](Self::start) nothing can sync: as client-go's factory waits only
    /// for started informers, it then returns at once, every informer unsynced (and logs
    /// an error naming the missing call), instead of waiting out `timeout`.
    pub async fn wait_for_cache_sync(&self, timeout: Duration) -> BTreeMap<String, bool> {
        let (started, receivers) = {
            let state = self.lock();
            let receivers: Vec<(String, watch::Receiver<bool>)> = state
                .informers
                .values()
                .map(|e| (e.name.clone(), e.informer.synced()))
                .collect();
            (state.started, receivers)
        };
        if !started {
            tracing::error!(
                informers = receivers.len(),
                "wait_for_cache_sync on a factory whose start() was not called: nothing syncs"
            );
            return receivers
                .into_iter()
                .map(|(name, _)| (name, false))
                .collect();
        }
        let waiters: Vec<Receiver> = receivers
            .iter()
            .map(|(_, rx)| Receiver(rx.clone()))
            .collect();
        let refs: Vec<&dyn HasSynced> = waiters.iter().map(|w| w as &dyn HasSynced).collect();
        wait_for_cache_sync(timeout, &refs).await;
        receivers
            .into_iter()
            .map(|(name, rx)| (name, *rx.borrow()))
            .collect()
    }

    /// Stops and forgets the informer for `K` with these options, leaving every other
    /// informer running (e.g. when its CRD is deleted). Returns whether it existed.
    /// Holders of the old informer keep its last cache; the next request creates a new one.
    pub async fn release<K>(&self, dyntype: &K::DynamicType, options: InformerOptions) -> bool
    where
        K: Resource + 'static,
    {
        let (key, _) = self.key::<K>(dyntype, options);
        let removed = self.lock().informers.remove(&key);
        match removed {
            Some(entry) => {
                entry.informer.shutdown().await;
                true
            }
            None => false,
        }
    }

    /// Stops every informer and waits for them; later `start` calls do nothing.
    pub async fn shutdown(&self) {
        let informers: Vec<Arc<dyn ErasedInformer>> = {
            let mut state = self.lock();
            state.shut_down = true;
            state
                .informers
                .values()
                .map(|e| e.informer.clone())
                .collect()
        };
        futures::future::join_all(informers.iter().map(|i| i.shutdown())).await;
    }

    /// What the factory's informers list and watch, sorted, each once (two informers of
    /// one resource with other selectors or types are one entry).
    pub fn resources(&self) -> Vec<InformedResource> {
        let mut resources: Vec<InformedResource> = self
            .lock()
            .informers
            .keys()
            .map(|key| InformedResource {
                group: key.group.clone(),
                plural: key.plural.clone(),
                namespace: key.options.namespace.clone(),
            })
            .collect();
        resources.sort();
        resources.dedup();
        resources
    }

    /// How many informers the factory holds.
    pub fn len(&self) -> usize {
        self.lock().informers.len()
    }

    /// Whether the factory holds no informer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A synced flag seen through [`HasSynced`].
struct Receiver(watch::Receiver<bool>);

impl HasSynced for Receiver {
    fn has_synced(&self) -> bool {
        *self.0.borrow()
    }
    fn synced_receiver(&self) -> watch::Receiver<bool> {
        self.0.clone()
    }
}

/// `ConfigMap` for `k8s_openapi::api::core::v1::ConfigMap`, and
/// `PartialObjectMeta<Secret>` for a metadata-only informer's type: every path in the
/// type's name shortened to its last segment.
fn short_type_name<K>() -> String {
    let full = std::any::type_name::<K>();
    let mut short = String::with_capacity(full.len());
    let mut segment_start = 0;
    for (i, c) in full.char_indices() {
        if matches!(c, '<' | '>' | ',' | ' ' | '(' | ')' | '[' | ']' | ';' | '&') {
            short.push_str(last_segment(&full[segment_start..i]));
            short.push(c);
            segment_start = i + c.len_utf8();
        }
    }
    short.push_str(last_segment(&full[segment_start..]));
    short
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

fn informer_name(key: &InformerKey) -> String {
    let mut name = if key.group.is_empty() {
        format!("{}.{} ({})", key.plural, key.version, key.type_name)
    } else {
        format!(
            "{}.{}/{} ({})",
            key.plural, key.group, key.version, key.type_name
        )
    };
    if let Some(ns) = &key.options.namespace {
        name.push_str(&format!(" in namespace {ns:?}"));
    }
    if let Some(labels) = &key.options.label_selector {
        name.push_str(&format!(" labels {labels:?}"));
    }
    if let Some(fields) = &key.options.field_selector {
        name.push_str(&format!(" fields {fields:?}"));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::{InformedResource, InformerOptions, SharedInformerFactory, short_type_name};
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::{Namespace, Secret};
    use kube::core::PartialObjectMeta;

    #[tokio::test]
    async fn resources_name_each_watched_collection_once() {
        // Never started: no request is made.
        let config = kube::Config::new("http://127.0.0.1:9".parse().expect("url"));
        let client = kube::Client::try_from(config).expect("client");
        let factory = SharedInformerFactory::new(client);
        let _ = factory.informer::<Secret>();
        let _ = factory.informer::<PartialObjectMeta<Secret>>();
        let _ = factory.informer::<Namespace>();
        let _ = factory
            .informer_with::<Deployment>(&(), InformerOptions::default().namespace("team-a"));
        let _ = factory.informer_with::<Deployment>(
            &(),
            InformerOptions::default()
                .namespace("team-a")
                .label_selector("app=web"),
        );
        let resource = |group: &str, plural: &str, namespace: Option<&str>| InformedResource {
            group: group.to_owned(),
            plural: plural.to_owned(),
            namespace: namespace.map(str::to_owned),
        };
        assert_eq!(
            factory.resources(),
            [
                resource("", "namespaces", None),
                resource("", "secrets", None),
                resource("apps", "deployments", Some("team-a")),
            ]
        );
    }

    #[test]
    fn informer_type_names_drop_module_paths() {
        assert_eq!(short_type_name::<Secret>(), "Secret");
        assert_eq!(
            short_type_name::<PartialObjectMeta<Secret>>(),
            "PartialObjectMeta<Secret>"
        );
        assert_eq!(
            short_type_name::<std::collections::BTreeMap<String, Vec<u8>>>(),
            "BTreeMap<String, Vec<u8>>"
        );
    }
}
