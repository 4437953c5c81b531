//! What a controller records: an [`Event`] about an object, and the key under which
//! repeats of it are folded into one series.

use std::fmt;

use k8s_openapi::api::core::v1::ObjectReference;

/// The longest note the API server accepts (events.k8s.io/v1 validation: 1 kB).
pub const MAX_NOTE_BYTES: usize = 1024;

/// Whether an event is routine or worth a look (events.k8s.io/v1 `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    /// Something expected happened.
    Normal,
    /// Something went wrong or needs attention.
    Warning,
}

impl EventType {
    /// The value of the event's `type` field.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event to record about an object: what happened (`reason`, UpperCamelCase), what
/// the controller did (`action`), and a human-readable `note`.
///
/// ```
/// use kubegen_runtime::events::{Event, EventType};
///
/// let event = Event::warning("ErrResourceExists", "Adopt", "Deployment web is not owned by Foo web");
/// assert_eq!(event.event_type(), EventType::Warning);
/// assert_eq!(event.reason(), "ErrResourceExists");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    event_type: EventType,
    reason: String,
    action: String,
    note: String,
    related: Option<ObjectReference>,
}

impl Event {
    /// An event of `event_type`. A note longer than [`MAX_NOTE_BYTES`] is cut at a
    /// character boundary, as the server would reject it.
    pub fn new(
        event_type: EventType,
        reason: impl Into<String>,
        action: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        let mut note = note.into();
        if note.len() > MAX_NOTE_BYTES {
            let mut end = MAX_NOTE_BYTES;
            while !note.is_char_boundary(end) {
                end -= 1;
            }
            note.truncate(end);
        }
        Self {
            event_type,
            reason: reason.into(),
            action: action.into(),
            note,
            related: None,
        }
    }

    /// A `Normal` event.
    pub fn normal(
        reason: impl Into<String>,
        action: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        Self::new(EventType::Normal, reason, action, note)
    }

    /// A `Warning` event.
    pub fn warning(
        reason: impl Into<String>,
        action: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        Self::new(EventType::Warning, reason, action, note)
    }

    /// A second object the event is about (events.k8s.io/v1 `related`).
    #[must_use]
    pub fn related(mut self, related: ObjectReference) -> Self {
        self.related = Some(related);
        self
    }

    /// Normal or Warning.
    pub fn event_type(&self) -> EventType {
        self.event_type
    }

    /// Why the event happened.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// What the controller did.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The human-readable note.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// The related object, if any.
    pub fn related_object(&self) -> Option<&ObjectReference> {
        self.related.as_ref()
    }
}

/// Two events with the same key are repeats of each other: the second becomes the next
/// item of the first one's series (client-go's `eventKey`). The `type` is part of it too,
/// so a Warning never increments a Normal event's count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SeriesKey {
    regarding: ReferenceKey,
    related: Option<ReferenceKey>,
    event_type: EventType,
    reason: String,
    action: String,
    note: String,
}

/// The identifying fields of an object reference (`ObjectReference` is not `Hash`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ReferenceKey {
    api_version: Option<String>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    field_path: Option<String>,
}

impl ReferenceKey {
    fn of(reference: &ObjectReference) -> Self {
        Self {
            api_version: reference.api_version.clone(),
            kind: reference.kind.clone(),
            namespace: reference.namespace.clone(),
            name: reference.name.clone(),
            uid: reference.uid.clone(),
            field_path: reference.field_path.clone(),
        }
    }
}

impl SeriesKey {
    pub(crate) fn new(regarding: &ObjectReference, event: &Event) -> Self {
        Self {
            regarding: ReferenceKey::of(regarding),
            related: event.related.as_ref().map(ReferenceKey::of),
            event_type: event.event_type,
            reason: event.reason.clone(),
            action: event.action.clone(),
            note: event.note.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str) -> ObjectReference {
        ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            namespace: Some("default".into()),
            name: Some(name.into()),
            uid: Some(format!("uid-{name}")),
            ..Default::default()
        }
    }

    #[test]
    fn long_notes_are_cut_at_a_char_boundary() {
        let note = "é".repeat(MAX_NOTE_BYTES); // two bytes each
        let event = Event::normal("Synced", "Sync", note);
        assert!(event.note().len() <= MAX_NOTE_BYTES);
        assert_eq!(event.note().len(), MAX_NOTE_BYTES);
        let odd = format!("a{}", "é".repeat(MAX_NOTE_BYTES));
        let event = Event::normal("Synced", "Sync", odd);
        assert_eq!(event.note().len(), MAX_NOTE_BYTES - 1);
    }

    #[test]
    fn series_key_separates_what_differs() {
        let a = reference("a");
        let base = Event::normal("Synced", "Sync", "ok");
        let key = SeriesKey::new(&a, &base);
        assert_eq!(key, SeriesKey::new(&a, &base.clone()));
        assert_ne!(key, SeriesKey::new(&reference("b"), &base));
        assert_ne!(
            key,
            SeriesKey::new(&a, &Event::normal("Synced", "Sync", "other"))
        );
        assert_ne!(
            key,
            SeriesKey::new(&a, &Event::normal("Synced", "Update", "ok"))
        );
        assert_ne!(
            key,
            SeriesKey::new(&a, &Event::warning("Synced", "Sync", "ok"))
        );
        assert_ne!(
            key,
            SeriesKey::new(&a, &base.clone().related(reference("c")))
        );
    }
}
