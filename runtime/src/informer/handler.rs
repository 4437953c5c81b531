//! Event handlers, what they receive, and the task that feeds each one.

use std::fmt;
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use crate::key::ObjectKey;

/// What `on_delete` receives: the deleted object, or, when the deletion was missed
/// while the watch was down and found on relist, the last state the cache knew
/// (client-go's `DeletedFinalStateUnknown`).
#[derive(Debug)]
pub enum DeletedObject<K> {
    /// The object's final state, from the watch's `DELETED` event.
    Object(Arc<K>),
    /// The object vanished between two lists; this is its last known state.
    FinalStateUnknown {
        /// The object's key.
        key: ObjectKey,
        /// The state the cache held before the relist.
        last_known: Arc<K>,
    },
}

impl<K> Clone for DeletedObject<K> {
    fn clone(&self) -> Self {
        match self {
            DeletedObject::Object(o) => DeletedObject::Object(o.clone()),
            DeletedObject::FinalStateUnknown { key, last_known } => {
                DeletedObject::FinalStateUnknown {
                    key: key.clone(),
                    last_known: last_known.clone(),
                }
            }
        }
    }
}

impl<K> DeletedObject<K> {
    /// The object: final state or last known state.
    pub fn object(&self) -> &Arc<K> {
        match self {
            DeletedObject::Object(o) => o,
            DeletedObject::FinalStateUnknown { last_known, .. } => last_known,
        }
    }

    /// Whether the deletion was inferred on relist rather than seen.
    pub fn is_final_state_unknown(&self) -> bool {
        matches!(self, DeletedObject::FinalStateUnknown { .. })
    }
}

/// Reacts to changes of the cache (client-go's `ResourceEventHandler`). Each handler runs
/// on its own thread with its own unbounded buffer, so a slow handler
/// delays only itself. Objects are shared: to change one, clone it. A controller's
/// handler usually just enqueues the object's key.
pub trait EventHandler<K>: Send + 'static {
    /// An object appeared; `in_initial_list` is true for objects of the first list (and
    /// for the cache replayed to a handler added later).
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        let _ = (object, in_initial_list);
    }
    /// An object changed, or a resync re-delivered it (then `old` and `new` are the same
    /// object).
    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        let _ = (old, new);
    }
    /// An object was deleted.
    fn on_delete(&mut self, object: DeletedObject<K>) {
        let _ = object;
    }
}

type AddFn<K> = Box<dyn FnMut(Arc<K>, bool) + Send>;
type UpdateFn<K> = Box<dyn FnMut(Arc<K>, Arc<K>) + Send>;
type DeleteFn<K> = Box<dyn FnMut(DeletedObject<K>) + Send>;

/// An [`EventHandler`] from closures (client-go's `ResourceEventHandlerFuncs`).
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::informer::HandlerFns;
///
/// let (tx, _rx) = std::sync::mpsc::channel();
/// let handler = HandlerFns::<ConfigMap>::new()
///     .on_add({ let tx = tx.clone(); move |cm, _| { let _ = tx.send(cm.metadata.name.clone()); } })
///     .on_delete(move |gone| { let _ = tx.send(gone.object().metadata.name.clone()); });
/// # let _ = handler;
/// ```
pub struct HandlerFns<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        Self {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> fmt::Debug for HandlerFns<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HandlerFns")
            .field("add", &self.add.is_some())
            .field("update", &self.update.is_some())
            .field("delete", &self.delete.is_some())
            .finish()
    }
}

impl<K> HandlerFns<K> {
    /// A handler that ignores everything until given closures.
    pub fn new() -> Self {
        Self::default()
    }

    /// Called on add.
    #[must_use]
    pub fn on_add(mut self, f: impl FnMut(Arc<K>, bool) + Send + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Called on update and resync.
    #[must_use]
    pub fn on_update(mut self, f: impl FnMut(Arc<K>, Arc<K>) + Send + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Called on delete.
    #[must_use]
    pub fn on_delete(mut self, f: impl FnMut(DeletedObject<K>) + Send + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> EventHandler<K> for HandlerFns<K> {
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        if let Some(f) = &mut self.add {
            f(object, in_initial_list);
        }
    }
    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if let Some(f) = &mut self.update {
            f(old, new);
        }
    }
    fn on_delete(&mut self, object: DeletedObject<K>) {
        if let Some(f) = &mut self.delete {
            f(object);
        }
    }
}

/// What goes through a handler's buffer.
pub(crate) enum Notification<K> {
    Add(Arc<K>, bool),
    Update(Arc<K>, Arc<K>),
    Delete(DeletedObject<K>),
    /// Everything of the initial list is before this marker.
    Synced,
}

/// Feeds one handler from its buffer until the buffer closes. Runs on a thread of its
/// own: handlers are synchronous, and one that blocks must not hold up the async runtime,
/// let alone the other handlers. (Not tokio's blocking pool: a forever-running blocking
/// task would stop paused-time tests from advancing the clock.)
pub(crate) fn run_handler<K: 'static>(
    mut handler: Box<dyn EventHandler<K>>,
    mut buffer: mpsc::UnboundedReceiver<Notification<K>>,
    synced: watch::Sender<bool>,
) {
    while let Some(notification) = buffer.blocking_recv() {
        match notification {
            Notification::Add(object, initial) => handler.on_add(object, initial),
            Notification::Update(old, new) => handler.on_update(old, new),
            Notification::Delete(object) => handler.on_delete(object),
            Notification::Synced => {
                synced.send_replace(true);
            }
        }
    }
}
