//! The minimal kubegen informer: a [`SharedInformer`] over Pods whose handler logs every
//! add, update, periodic resync and delete, with nothing else in the way. Start here to
//! see what an informer delivers before reading the controllers.
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), pod_logger::Error> {
//! use std::time::Duration;
//! use pod_logger::{Options, PodLogger};
//!
//! let logger = PodLogger::start(client.clone(), Options { namespace: None, resync: Duration::from_secs(30) });
//! logger.wait_for_sync().await;
//! let counts = logger.wait_in_step(&client, 0).await?; // the handler has seen what the server holds
//! println!("{counts}");
//! logger.shutdown().await;
//! # Ok(()) }
//! ```

pub mod demo;
mod handler;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::ListParams;
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::informer::{InformerConfig, SharedInformer};
use kubegen_runtime::key::ObjectKey;
use tokio::sync::watch;

use handler::PodHandler;

/// Why the logger could not compare itself with the server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Listing pods failed; the message names the call.
    #[error(transparent)]
    Api(#[from] kubegen_runtime::error::Error),
}

/// What to watch.
#[derive(Clone, Debug)]
pub struct Options {
    /// One namespace, or all.
    pub namespace: Option<String>,
    /// How often every cached pod is re-delivered (zero: never).
    pub resync: Duration,
}

/// How many notifications of each kind the handler has logged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Adds (the initial list included).
    pub adds: u64,
    /// Real updates (a new resourceVersion).
    pub updates: u64,
    /// Periodic resyncs (the same object again).
    pub resyncs: u64,
    /// Deletes (tombstones included).
    pub deletes: u64,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} adds, {} updates, {} resyncs, {} deletes",
            self.adds, self.updates, self.resyncs, self.deletes
        )
    }
}

/// What the handler has seen: each pod's last resourceVersion, and the counts.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) pods: BTreeMap<ObjectKey, Option<String>>,
    pub(crate) counts: Counts,
}

/// A running pod informer with its logging handler.
#[derive(Debug)]
pub struct PodLogger {
    informer: SharedInformer<Pod>,
    namespace: Option<String>,
    seen: Arc<Mutex<Seen>>,
    changes: watch::Receiver<u64>,
}

impl PodLogger {
    /// Creates the informer, registers the handler and starts it.
    pub fn start(client: kube::Client, options: Options) -> Self {
        let api = match &options.namespace {
            Some(ns) => kube::Api::<Pod>::namespaced(client, ns),
            None => kube::Api::<Pod>::all(client),
        };
        let informer = SharedInformer::new(api, InformerConfig::default().resync(options.resync));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let changes = watch::Sender::new(0);
        let receiver = changes.subscribe();
        informer.add_event_handler(PodHandler::new(Arc::clone(&seen), changes));
        informer.start();
        Self {
            informer,
            namespace: options.namespace,
            seen,
            changes: receiver,
        }
    }

    /// Waits until the initial list is cached and handed to the handler.
    pub async fn wait_for_sync(&self) {
        self.informer.wait_for_sync().await;
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        lock(&self.seen).counts
    }

    /// Whether the handler has seen exactly `pods`, each at its resourceVersion.
    pub fn agrees_with(&self, pods: &[Pod]) -> bool {
        let seen = lock(&self.seen);
        seen.pods.len() == pods.len()
            && pods
                .iter()
                .all(|p| seen.pods.get(&ObjectKey::of(p)) == Some(&p.metadata.resource_version))
    }

    /// Waits until the handler has seen every pod the server holds at its current
    /// resourceVersion, no deleted one, and at least `min_resyncs` resyncs. Checks the
    /// server after every notification, never on a timer.
    pub async fn wait_in_step(
        &self,
        client: &kube::Client,
        min_resyncs: u64,
    ) -> Result<Counts, Error> {
        let scope = self
            .namespace
            .as_deref()
            .map_or(Scope::All, Scope::Namespace);
        let pods = TypedClient::<Pod>::new(client.clone(), scope, &());
        let mut changes = self.changes.clone();
        loop {
            changes.borrow_and_update();
            let listed = pods.list(&ListParams::default()).await?.items;
            if self.agrees_with(&listed) && self.counts().resyncs >= min_resyncs {
                return Ok(self.counts());
            }
            if changes.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Stops the informer; the handler logs what is still buffered first.
    pub async fn shutdown(&self) {
        self.informer.shutdown().await;
    }
}

pub(crate) fn lock(seen: &Mutex<Seen>) -> MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(|p| p.into_inner())
}
