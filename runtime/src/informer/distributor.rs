//! Applies the reflector's changes to the store and fans them out to handlers, under
//! one lock, so a handler added at any moment sees the cache exactly once: replayed
//! as adds, then every later change.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kube::Resource;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::handler::{DeletedObject, Notification};
use super::version::SyncedVersion;
use crate::key::ObjectKey;
use crate::reflector::{Delta, DeltaSink};
use crate::store::{Store, StoreWriter};

/// One registered handler: its buffer and its resync schedule.
pub(crate) struct Listener<K> {
    pub(crate) id: u64,
    pub(crate) buffer: mpsc::UnboundedSender<Notification<K>>,
    pub(crate) resync: Option<Duration>,
    pub(crate) next_resync: Option<Instant>,
}

impl<K> Listener<K> {
    fn send(&self, notification: Notification<K>) {
        // A handler whose task ended (it panicked) just misses notifications.
        let _ = self.buffer.send(notification);
    }
}

/// The handlers and whether the initial list has been delivered.
pub(crate) struct Handlers<K> {
    pub(crate) listeners: Vec<Listener<K>>,
    pub(crate) synced: bool,
    next_id: u64,
}

/// Shared between the informer (adds handlers) and the sink (applies changes).
pub(crate) struct Distributor<K> {
    handlers: Mutex<Handlers<K>>,
    pub(crate) synced: watch::Sender<bool>,
}

impl<K: Resource + Send + Sync + 'static> Distributor<K> {
    pub(crate) fn new() -> Self {
        Self {
            handlers: Mutex::new(Handlers {
                listeners: Vec::new(),
                synced: false,
                next_id: 0,
            }),
            synced: watch::Sender::new(false),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Handlers<K>> {
        self.handlers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a buffer; if the cache has synced, replays it as adds followed by the
    /// synced marker. Returns the listener id.
    pub(crate) fn add(
        &self,
        store: &Store<K>,
        buffer: mpsc::UnboundedSender<Notification<K>>,
        resync: Option<Duration>,
    ) -> u64 {
        let mut handlers = self.lock();
        let id = handlers.next_id;
        handlers.next_id += 1;
        let mut listener = Listener {
            id,
            buffer,
            resync,
            next_resync: None,
        };
        if handlers.synced {
            for object in store.list() {
                listener.send(Notification::Add(object, true));
            }
            listener.send(Notification::Synced);
        }
        listener.next_resync = resync
            .filter(|_| handlers.synced)
            .map(|p| Instant::now() + p);
        handlers.listeners.push(listener);
        id
    }

    pub(crate) fn remove(&self, id: u64) {
        self.lock().listeners.retain(|l| l.id != id);
    }

    /// Drops every buffer: the handler tasks finish what they hold and end.
    pub(crate) fn close(&self) {
        self.lock().listeners.clear();
    }

    /// Re-delivers every cached object as `on_update(o, o)` to the handlers whose resync
    /// is due at `now`; returns when the next one is due.
    pub(crate) fn resync_due(&self, store: &Store<K>, now: Instant) -> Option<Instant> {
        let mut handlers = self.lock();
        if !handlers.synced {
            return None;
        }
        let mut objects = None;
        for listener in &mut handlers.listeners {
            let (Some(period), Some(due)) = (listener.resync, listener.next_resync) else {
                continue;
            };
            if due <= now {
                for object in objects.get_or_insert_with(|| store.list()).iter() {
                    listener.send(Notification::Update(object.clone(), object.clone()));
                }
                listener.next_resync = Some(now + period);
            }
        }
        handlers
            .listeners
            .iter()
            .filter_map(|l| l.next_resync)
            .min()
    }
}

/// The reflector's sink inside an informer.
pub(crate) struct InformerSink<K> {
    pub(crate) writer: StoreWriter<K>,
    pub(crate) distributor: Arc<Distributor<K>>,
    /// Where the last resourceVersion applied to the store is published.
    pub(crate) synced_version: SyncedVersion,
}

impl<K: Resource + Send + Sync + 'static> DeltaSink<K> for InformerSink<K> {
    fn apply(&mut self, delta: Delta<K>) {
        let handlers = self.distributor.lock();
        match delta {
            Delta::Upsert(object) => match self.writer.insert(object.clone()) {
                Some(old) => {
                    for l in &handlers.listeners {
                        l.send(Notification::Update(old.clone(), object.clone()));
                    }
                }
                None => {
                    for l in &handlers.listeners {
                        l.send(Notification::Add(object.clone(), false));
                    }
                }
            },
            Delta::Delete(object) => {
                self.writer.remove(&ObjectKey::of(object.as_ref()));
                for l in &handlers.listeners {
                    l.send(Notification::Delete(DeletedObject::Object(object.clone())));
                }
            }
        }
    }

    fn replace(&mut self, objects: Vec<Arc<K>>) {
        let mut handlers = self.distributor.lock();
        let diff = self.writer.replace(objects);
        let initial = !handlers.synced;
        for l in &handlers.listeners {
            // Deletions first: an object deleted and created again under the same name
            // between the lists is a tombstone for the old uid, then an add of the new.
            for last_known in &diff.deleted {
                l.send(Notification::Delete(DeletedObject::FinalStateUnknown {
                    key: ObjectKey::of(last_known.as_ref()),
                    last_known: last_known.clone(),
                }));
            }
            for object in &diff.added {
                l.send(Notification::Add(object.clone(), initial));
            }
            for (old, new) in &diff.updated {
                l.send(Notification::Update(old.clone(), new.clone()));
            }
            if initial {
                l.send(Notification::Synced);
            }
        }
        if initial {
            handlers.synced = true;
            let now = Instant::now();
            for l in &mut handlers.listeners {
                l.next_resync = l.resync.map(|p| now + p);
            }
            self.distributor.synced.send_replace(true);
        }
    }

    fn synced_to(&mut self, resource_version: &str) {
        self.synced_version.set(resource_version);
    }

    fn len(&self) -> usize {
        self.writer.store().len()
    }
}
