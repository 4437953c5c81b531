//! Watches: the registry of open watches and event delivery in resourceVersion order
//! (with pause/resume). An open watch's end is a [`Subscription`](super::subscription).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::store::event::{Event, EventType};
use crate::store::registry::StorageKey;
use crate::store::selectors::{FieldSelector, LabelSelector, ShardFilter};
use crate::store::status::ApiError;

/// What a watch stream sends next.
#[derive(Debug, Clone)]
pub(crate) enum WatchItem {
    /// ADDED / MODIFIED / DELETED.
    Event(EventType, Arc<Value>),
    /// BOOKMARK at a resourceVersion; `initial_end` marks the end of initial events.
    Bookmark { rv: u64, initial_end: bool },
    /// An ERROR event (e.g. 410 Expired); the stream ends after it.
    Error(ApiError),
}

/// Which objects a watch (or list) sees.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    pub(crate) namespace: Option<String>,
    pub(crate) labels: LabelSelector,
    pub(crate) fields: FieldSelector,
    pub(crate) shard: ShardFilter,
}

impl Filter {
    pub(crate) fn matches(&self, object: &Value) -> bool {
        let namespace_ok = self.namespace.as_deref().is_none_or(|ns| {
            object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default()
                == ns
        });
        namespace_ok
            && self.labels.matches(object)
            && self.fields.matches(object)
            && self.shard.matches(object)
    }

    /// What a watcher with this filter sees of an event: objects entering the filter
    /// are ADDED, objects leaving it are DELETED, as on a real server.
    pub(crate) fn translate(&self, event: &Event) -> Option<(EventType, Arc<Value>)> {
        let now = self.matches(&event.object);
        let before = event.previous.as_deref().is_some_and(|p| self.matches(p));
        match event.kind {
            EventType::Added => now.then_some(EventType::Added),
            EventType::Modified => match (before, now) {
                (true, true) => Some(EventType::Modified),
                (false, true) => Some(EventType::Added),
                (true, false) => Some(EventType::Deleted),
                (false, false) => None,
            },
            EventType::Deleted => (before || now).then_some(EventType::Deleted),
        }
        .map(|kind| (kind, event.object.clone()))
    }
}

#[derive(Debug)]
struct Watcher {
    storage: StorageKey,
    filter: Filter,
    bookmarks: bool,
    tx: mpsc::UnboundedSender<WatchItem>,
}

/// Open watches. Items are handed over under the cluster lock, so every watcher gets
/// events in resourceVersion order; while paused they queue here, in order.
#[derive(Debug, Default)]
pub(crate) struct Watchers {
    next_id: u64,
    entries: BTreeMap<u64, Watcher>,
    paused: bool,
    pending: VecDeque<(u64, WatchItem)>,
}

impl Watchers {
    /// Registers a watcher and queues its first items.
    pub(crate) fn register(
        &mut self,
        storage: StorageKey,
        filter: Filter,
        bookmarks: bool,
        initial: Vec<WatchItem>,
    ) -> (u64, mpsc::UnboundedReceiver<WatchItem>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let id = self.next_id;
        self.next_id += 1;
        self.entries.insert(
            id,
            Watcher {
                storage,
                filter,
                bookmarks,
                tx,
            },
        );
        for item in initial {
            self.deliver(id, item);
        }
        (id, rx)
    }

    pub(crate) fn remove(&mut self, id: u64) {
        self.entries.remove(&id);
    }

    /// Number of open watches.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn deliver(&mut self, id: u64, item: WatchItem) {
        if self.paused {
            self.pending.push_back((id, item));
        } else if let Some(watcher) = self.entries.get(&id) {
            // A closed receiver means the stream is going away and will unregister itself.
            let _ = watcher.tx.send(item);
        }
    }

    /// Hands a committed event to every watcher of its store that sees it.
    pub(crate) fn dispatch(&mut self, event: &Event) {
        let targets: Vec<(u64, WatchItem)> = self
            .entries
            .iter()
            .filter(|(_, w)| w.storage == event.storage)
            .filter_map(|(id, w)| {
                w.filter
                    .translate(event)
                    .map(|(kind, obj)| (*id, WatchItem::Event(kind, obj)))
            })
            .collect();
        for (id, item) in targets {
            self.deliver(id, item);
        }
    }

    /// Sends a bookmark at `rv` to one watcher.
    pub(crate) fn bookmark(&mut self, id: u64, rv: u64) {
        self.deliver(
            id,
            WatchItem::Bookmark {
                rv,
                initial_end: false,
            },
        );
    }

    /// The periodic bookmark of one watcher; skipped while delivery is paused (progress
    /// stalls), unlike bookmarks asked for explicitly.
    pub(crate) fn periodic_bookmark(&mut self, id: u64, rv: u64) {
        if !self.paused {
            self.bookmark(id, rv);
        }
    }

    /// Sends a bookmark at `rv` to every watcher that allowed bookmarks.
    pub(crate) fn bookmark_all(&mut self, rv: u64) {
        let ids: Vec<u64> = self
            .entries
            .iter()
            .filter(|(_, w)| w.bookmarks)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.bookmark(id, rv);
        }
    }

    /// Holds every item back until [`Watchers::resume`].
    pub(crate) fn pause(&mut self) {
        self.paused = true;
    }

    /// Delivers held items in order and stops holding.
    pub(crate) fn resume(&mut self) {
        self.paused = false;
        while let Some((id, item)) = self.pending.pop_front() {
            self.deliver(id, item);
        }
    }

    /// Forgets every watcher (their streams end) and the items held for them. Delivery
    /// stays paused if it was: a restart keeps its faults armed, so watches opened after
    /// it are held back too until [`Watchers::resume`].
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.pending.clear();
    }

    /// Forgets the watchers of one store (after its resource went away).
    pub(crate) fn close_store(&mut self, storage: &StorageKey) {
        self.entries.retain(|_, w| w.storage != *storage);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(kind: EventType, previous: Option<Value>, object: Value) -> Event {
        Event {
            rv: 5,
            storage: StorageKey {
                group: String::new(),
                plural: "pods".to_owned(),
            },
            kind,
            object: Arc::new(object),
            previous: previous.map(Arc::new),
        }
    }

    fn labelled(app: &str) -> Value {
        json!({"metadata": {"name": "p", "namespace": "ns", "labels": {"app": app}}})
    }

    #[test]
    fn objects_moving_across_a_selector_are_added_or_deleted() {
        let filter = Filter {
            labels: LabelSelector::parse("app=web").expect("selector"),
            ..Filter::default()
        };
        let entering = event(EventType::Modified, Some(labelled("db")), labelled("web"));
        let leaving = event(EventType::Modified, Some(labelled("web")), labelled("db"));
        let outside = event(EventType::Modified, Some(labelled("db")), labelled("db"));
        assert_eq!(
            filter.translate(&entering).map(|e| e.0),
            Some(EventType::Added)
        );
        assert_eq!(
            filter.translate(&leaving).map(|e| e.0),
            Some(EventType::Deleted)
        );
        assert_eq!(filter.translate(&outside).map(|e| e.0), None);
    }

    fn configmaps() -> StorageKey {
        StorageKey {
            group: String::new(),
            plural: "configmaps".to_owned(),
        }
    }

    fn delivered(rx: &mut mpsc::UnboundedReceiver<WatchItem>) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|item| match item {
                WatchItem::Event(kind, object) => {
                    format!("{kind:?} {}", object["metadata"]["name"])
                }
                WatchItem::Bookmark { rv, .. } => format!("bookmark {rv}"),
                WatchItem::Error(error) => format!("error {}", error.code),
            })
            .collect()
    }

    #[test]
    fn a_restart_while_paused_drops_held_items_and_keeps_holding_until_resume() {
        let mut watchers = Watchers::default();
        let created = Event {
            rv: 9,
            storage: configmaps(),
            kind: EventType::Added,
            object: Arc::new(json!({"metadata": {"name": "a", "namespace": "ns"}})),
            previous: None,
        };
        let (_, mut before) = watchers.register(configmaps(), Filter::default(), true, Vec::new());
        watchers.pause();
        watchers.dispatch(&created);
        // The restart ends the watch: what was held for it goes with it.
        watchers.clear();
        assert!(delivered(&mut before).is_empty());
        assert_eq!(
            before.try_recv().err(),
            Some(mpsc::error::TryRecvError::Disconnected),
            "the ended watch's channel closes"
        );
        // The client re-watches from before the event: the replay is held too.
        let replay = vec![WatchItem::Event(EventType::Added, created.object.clone())];
        let (after_id, mut after) =
            watchers.register(configmaps(), Filter::default(), true, replay);
        watchers.bookmark(after_id, 9);
        watchers.periodic_bookmark(after_id, 9);
        assert!(delivered(&mut after).is_empty());
        watchers.resume();
        assert_eq!(delivered(&mut after), ["Added \"a\"", "bookmark 9"]);
        watchers.dispatch(&Event {
            rv: 10,
            kind: EventType::Deleted,
            previous: Some(created.object.clone()),
            ..created
        });
        assert_eq!(delivered(&mut after), ["Deleted \"a\""]);
    }

    #[test]
    fn paused_items_are_delivered_in_order_on_resume() {
        let mut watchers = Watchers::default();
        let storage = StorageKey {
            group: String::new(),
            plural: "pods".to_owned(),
        };
        let (id, mut rx) = watchers.register(storage, Filter::default(), true, Vec::new());
        watchers.pause();
        watchers.bookmark(id, 7);
        watchers.bookmark(id, 8);
        assert!(rx.try_recv().is_err());
        watchers.resume();
        for expected in [7, 8] {
            match rx.try_recv() {
                Ok(WatchItem::Bookmark { rv, .. }) => assert_eq!(rv, expected),
                other => panic!("unexpected {other:?}"),
            }
        }
    }
}
