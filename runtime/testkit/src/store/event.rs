//! Committed writes as watchers see them: the event types and one event.

use std::sync::Arc;

use serde_json::Value;

use crate::store::registry::StorageKey;

/// The type of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    /// The event type as a watch line names it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// One committed write.
#[derive(Debug)]
pub(crate) struct Event {
    pub(crate) rv: u64,
    pub(crate) storage: StorageKey,
    pub(crate) kind: EventType,
    /// The object after the write (for deletes: its final state, with the delete's rv).
    pub(crate) object: Arc<Value>,
    /// The object before the write (none for creates).
    pub(crate) previous: Option<Arc<Value>>,
}
