//! Shared informers: one reflector and one cache per collection, any number of event
//! handlers, client-go's `sharedIndexInformer`.
//!
//! A metadata-only informer (client-go's `metadatainformer`) is a
//! `SharedInformer<kube::core::PartialObjectMeta<K>>` over an
//! `Api<PartialObjectMeta<K>>`: kube sends that `Api`'s lists and watches with the
//! `meta.k8s.io` PartialObjectMetadata Accept headers, so neither the wire nor the cache
//! carries the objects' bodies (a controller can watch every Secret by name and labels).
//! Its lister, indexes and handlers are the usual ones.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) {
//! use std::time::Duration;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_runtime::informer::{HandlerFns, InformerConfig, SharedInformer};
//!
//! let informer = SharedInformer::<ConfigMap>::new(
//!     kube::Api::all(client),
//!     InformerConfig::default().resync(Duration::from_secs(600)),
//! );
//! informer.add_event_handler(HandlerFns::new().on_add(|cm: std::sync::Arc<ConfigMap>, _| {
//!     println!("added {:?}", cm.metadata.name);
//! }));
//! informer.start();
//! informer.wait_for_sync().await;
//! let cached = informer.lister().namespace("default").get("settings");
//! # let _ = cached;
//! # }
//! ```

mod distributor;
mod handler;
mod sync;
#[cfg(test)]
mod tests;
mod version;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::Resource;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use handler::{DeletedObject, EventHandler, HandlerFns};
pub use sync::{HasSynced, wait_for_cache_sync};

use crate::client::written::GroupResource;
use crate::lister::Lister;
use crate::reflector::{ListerWatcher, Reflector, ReflectorConfig};
use crate::store::{IndexHandle, Store, StoreWriter};
use distributor::{Distributor, InformerSink};
pub(crate) use version::SyncedVersion;

/// How an informer runs.
pub struct InformerConfig<K> {
    /// The reflector's configuration (selectors, transform, backoff, metrics...).
    pub reflector: ReflectorConfig<K>,
    /// The resync period of handlers added without one (`None`: no resync).
    pub resync: Option<Duration>,
}

impl<K> Default for InformerConfig<K> {
    fn default() -> Self {
        Self {
            reflector: ReflectorConfig::default(),
            resync: None,
        }
    }
}

impl<K> Clone for InformerConfig<K> {
    fn clone(&self) -> Self {
        Self {
            reflector: self.reflector.clone(),
            resync: self.resync,
        }
    }
}

impl<K> fmt::Debug for InformerConfig<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InformerConfig")
            .field("reflector", &self.reflector)
            .field("resync", &self.resync)
            .finish()
    }
}

impl<K> InformerConfig<K> {
    /// Sets the reflector configuration.
    #[must_use]
    pub fn reflector(mut self, reflector: ReflectorConfig<K>) -> Self {
        self.reflector = reflector;
        self
    }

    /// Sets the default resync period (zero disables resync).
    #[must_use]
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period).filter(|p| !p.is_zero());
        self
    }
}

/// A registered handler: remove it with [`SharedInformer::remove_event_handler`]; its
/// [`HasSynced`] turns true once the handler has processed the initial list, and names
/// its informer and whether that was started.
#[derive(Debug, Clone)]
pub struct HandlerRegistration {
    id: u64,
    synced: watch::Receiver<bool>,
    informer: Arc<str>,
    started: watch::Receiver<bool>,
}

impl HasSynced for HandlerRegistration {
    fn has_synced(&self) -> bool {
        *self.synced.borrow()
    }
    fn synced_receiver(&self) -> watch::Receiver<bool> {
        self.synced.clone()
    }
    fn informer_name(&self) -> Option<&str> {
        Some(&self.informer)
    }
    fn started_receiver(&self) -> Option<watch::Receiver<bool>> {
        Some(self.started.clone())
    }
}

struct Running {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

struct Inner<K: Clone> {
    source: Arc<dyn ListerWatcher<K>>,
    config: InformerConfig<K>,
    store: Store<K>,
    writer: Mutex<Option<StoreWriter<K>>>,
    distributor: Arc<Distributor<K>>,
    /// Each handler thread signals here when it ends.
    handler_tasks: Mutex<Vec<tokio::sync::oneshot::Receiver<()>>>,
    running: Mutex<Option<Running>>,
    /// Turns true when [`SharedInformer::start`] starts the reflector.
    started: watch::Sender<bool>,
    stopped: watch::Sender<bool>,
    resync_wakeup: Arc<tokio::sync::Notify>,
    /// The resource its source lists, when the source says.
    resource: Option<GroupResource>,
    /// The one namespace its source lists, if only one.
    namespace: Option<String>,
    synced_version: SyncedVersion,
}

/// One reflector and cache for a collection, shared by any number of handlers.
/// Clones share the same informer.
pub struct SharedInformer<K: Clone> {
    inner: Arc<Inner<K>>,
}

impl<K: Clone> Clone for SharedInformer<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<K: Clone> fmt::Debug for SharedInformer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedInformer")
            .field("name", &self.inner.config.reflector.name)
            .field("synced", &*self.inner.distributor.synced.borrow())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<K> SharedInformer<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// An informer over `source` (usually a `kube::Api<K>`); nothing runs before
    /// [`start`](Self::start).
    pub fn new(source: impl ListerWatcher<K>, config: InformerConfig<K>) -> Self {
        Self::from_shared(Arc::new(source), config)
    }

    /// [`SharedInformer::new`] with a shared source.
    pub fn from_shared(source: Arc<dyn ListerWatcher<K>>, config: InformerConfig<K>) -> Self {
        let (store, writer) = Store::new();
        let resource = source.resource();
        let namespace = source.namespace();
        Self {
            inner: Arc::new(Inner {
                resource,
                namespace,
                synced_version: SyncedVersion::new(),
                source,
                config,
                store,
                writer: Mutex::new(Some(writer)),
                distributor: Arc::new(Distributor::new()),
                handler_tasks: Mutex::new(Vec::new()),
                running: Mutex::new(None),
                started: watch::Sender::new(false),
                stopped: watch::Sender::new(false),
                resync_wakeup: Arc::new(tokio::sync::Notify::new()),
            }),
        }
    }

    /// The cache.
    pub fn store(&self) -> Store<K> {
        self.inner.store.clone()
    }

    /// A lister over the cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.store())
    }

    /// Adds an index, before or after start (filled from the current cache).
    pub fn add_index<F>(&self, name: &str, func: F) -> IndexHandle<K>
    where
        F: Fn(&K) -> Vec<String> + Send + Sync + 'static,
    {
        self.inner.store.add_index(name, func)
    }

    /// The informer's name (its reflector's).
    pub fn name(&self) -> &str {
        &self.inner.config.reflector.name
    }

    /// The resource the informer lists and watches, when its source says (a
    /// `kube::Api` does): a controller [watching](crate::controller::Controller::watches)
    /// it matches its own writes of that resource against this cache.
    pub fn resource(&self) -> Option<&GroupResource> {
        self.inner.resource.as_ref()
    }

    /// The one namespace the informer lists, when its source says it lists only one
    /// (`None`: every namespace, or unknown).
    pub fn namespace(&self) -> Option<&str> {
        self.inner.namespace.as_deref()
    }

    /// The resourceVersion of the last list or watch event (bookmarks included) in the
    /// cache: the cache holds every change of the server up to it (client-go's
    /// `LastSyncResourceVersion`). Empty before the first list.
    pub fn last_synced_resource_version(&self) -> String {
        self.inner.synced_version.get()
    }

    /// A shared view of [`last_synced_resource_version`](Self::last_synced_resource_version).
    pub(crate) fn synced_version(&self) -> SyncedVersion {
        self.inner.synced_version.clone()
    }

    /// Adds a handler with the informer's default resync period. If the cache has
    /// synced, the handler first receives every cached object as an add.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) -> HandlerRegistration {
        self.register(Box::new(handler), self.inner.config.resync)
    }

    /// Adds a handler with its own resync period.
    pub fn add_event_handler_with_resync(
        &self,
        handler: impl EventHandler<K>,
        resync: Duration,
    ) -> HandlerRegistration {
        self.register(Box::new(handler), Some(resync).filter(|p| !p.is_zero()))
    }

    fn register(
        &self,
        handler: Box<dyn EventHandler<K>>,
        resync: Option<Duration>,
    ) -> HandlerRegistration {
        let (tx, rx) = mpsc::unbounded_channel();
        let synced = watch::Sender::new(false);
        let receiver = synced.subscribe();
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name(format!("handler-{}", self.inner.config.reflector.name))
            .spawn(move || {
                handler::run_handler(handler, rx, synced);
                let _ = done_tx.send(());
            });
        match spawned {
            Ok(_) => lock(&self.inner.handler_tasks).push(done_rx),
            Err(error) => {
                // The registration never syncs, which wait_for_cache_sync reports.
                tracing::error!(informer = %self.inner.config.reflector.name, %error, "failed to start a handler thread");
            }
        }
        let id = self.inner.distributor.add(&self.inner.store, tx, resync);
        self.inner.resync_wakeup.notify_one();
        HandlerRegistration {
            id,
            synced: receiver,
            informer: Arc::from(self.name()),
            started: self.inner.started.subscribe(),
        }
    }

    /// Removes a handler; it finishes what is in its buffer and gets nothing more.
    pub fn remove_event_handler(&self, registration: &HandlerRegistration) {
        self.inner.distributor.remove(registration.id);
    }

    /// Starts the reflector and the resync timer on the current tokio runtime. Calling it
    /// again, or after [`shutdown`](Self::shutdown), does nothing.
    pub fn start(&self) {
        let Some(writer) = lock(&self.inner.writer).take() else {
            return;
        };
        let (stop, _) = watch::channel(false);
        let sink = InformerSink {
            writer,
            distributor: self.inner.distributor.clone(),
            synced_version: self.inner.synced_version.clone(),
        };
        let reflector = Reflector::from_shared(
            self.inner.source.clone(),
            sink,
            self.inner.config.reflector.clone(),
        );
        let mut stop_rx = stop.subscribe();
        let reflector_task = tokio::spawn(reflector.run(async move {
            let _ = stop_rx.wait_for(|s| *s).await;
        }));
        let resync_task = tokio::spawn(resync_loop(
            self.inner.distributor.clone(),
            self.inner.store.clone(),
            self.inner.resync_wakeup.clone(),
            stop.subscribe(),
        ));
        *lock(&self.inner.running) = Some(Running {
            stop,
            tasks: vec![reflector_task, resync_task],
        });
        self.inner.started.send_replace(true);
    }

    /// Whether [`start`](Self::start) started the informer (it may have stopped since).
    pub fn is_started(&self) -> bool {
        *self.inner.started.borrow()
    }

    /// Whether the initial list is in the cache and has been handed to every handler.
    pub fn has_synced(&self) -> bool {
        *self.inner.distributor.synced.borrow()
    }

    /// Waits until [`has_synced`](Self::has_synced).
    pub async fn wait_for_sync(&self) {
        let mut rx = self.inner.distributor.synced.subscribe();
        // The sender lives in `self`: it cannot be dropped while we wait.
        let _ = rx.wait_for(|s| *s).await;
    }

    /// Whether [`shutdown`](Self::shutdown) ran.
    pub fn is_stopped(&self) -> bool {
        *self.inner.stopped.borrow()
    }

    /// Stops the reflector and the resync timer, lets every handler finish its buffer,
    /// and waits for all of them. The cache keeps its last contents.
    pub async fn shutdown(&self) {
        lock(&self.inner.writer).take();
        let running = lock(&self.inner.running).take();
        if let Some(running) = running {
            running.stop.send_replace(true);
            for task in running.tasks {
                let _ = task.await;
            }
        }
        self.inner.distributor.close();
        let handler_tasks = std::mem::take(&mut *lock(&self.inner.handler_tasks));
        for task in handler_tasks {
            let _ = task.await;
        }
        self.inner.stopped.send_replace(true);
    }
}

impl<K> HasSynced for SharedInformer<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    fn has_synced(&self) -> bool {
        SharedInformer::has_synced(self)
    }
    fn synced_receiver(&self) -> watch::Receiver<bool> {
        self.inner.distributor.synced.subscribe()
    }
    fn informer_name(&self) -> Option<&str> {
        Some(self.name())
    }
    fn started_receiver(&self) -> Option<watch::Receiver<bool>> {
        Some(self.inner.started.subscribe())
    }
}

async fn resync_loop<K: Resource + Send + Sync + 'static>(
    distributor: Arc<Distributor<K>>,
    store: Store<K>,
    wakeup: Arc<tokio::sync::Notify>,
    mut stop: watch::Receiver<bool>,
) {
    let mut synced = distributor.synced.subscribe();
    loop {
        let next = distributor.resync_due(&store, Instant::now());
        let sleep = async {
            match next {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            () = sleep => {}
            () = wakeup.notified() => {}
            _ = synced.changed() => {}
        }
    }
}
