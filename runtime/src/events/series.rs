//! The de-duplication cache: which recorded events are still open series, and what a new
//! observation of one should do (create an Event, or bump an existing one's series).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use super::event::SeriesKey;

/// What the writer must do for one observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// First observation (or the previous series closed): create an Event named `name`.
    Create {
        /// The new Event's name.
        name: String,
    },
    /// A repeat: set the series of the Event `name` to `count` observations.
    Bump {
        /// The existing Event's name.
        name: String,
        /// The series' count, at least 2.
        count: i32,
    },
}

#[derive(Debug)]
struct Entry {
    name: String,
    count: i32,
    last_seen: Instant,
}

/// Open series by key. A series stays open while repeats come within `window` of each
/// other (client-go closes a series 6 minutes after its last observation); at most
/// `capacity` series are kept, the least recently seen going first.
#[derive(Debug)]
pub(crate) struct SeriesCache {
    entries: HashMap<SeriesKey, Entry>,
    window: Duration,
    capacity: usize,
}

impl SeriesCache {
    pub(crate) fn new(window: Duration, capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            window,
            capacity: capacity.max(1),
        }
    }

    /// Records an observation of `key` at `now`; `fresh_name` names the Event if one has
    /// to be created.
    pub(crate) fn observe(
        &mut self,
        key: SeriesKey,
        now: Instant,
        fresh_name: impl FnOnce() -> String,
    ) -> Step {
        if let Some(entry) = self.entries.get_mut(&key)
            && now.saturating_duration_since(entry.last_seen) <= self.window
        {
            entry.count = entry.count.saturating_add(1);
            entry.last_seen = now;
            return Step::Bump {
                name: entry.name.clone(),
                count: entry.count,
            };
        }
        let name = fresh_name();
        if !self.entries.contains_key(&key) && self.entries.len() >= self.capacity {
            self.evict(now);
        }
        self.entries.insert(
            key,
            Entry {
                name: name.clone(),
                count: 1,
                last_seen: now,
            },
        );
        Step::Create { name }
    }

    /// Renames the Event of a series (it was re-created after the old one vanished).
    pub(crate) fn rename(&mut self, key: &SeriesKey, name: String) {
        if let Some(entry) = self.entries.get_mut(key) {
            entry.name = name;
        }
    }

    /// Drops a series whose Event could not be written, so the next repeat creates one.
    pub(crate) fn forget(&mut self, key: &SeriesKey) {
        self.entries.remove(key);
    }

    /// Makes room: closed series first, else the least recently seen one.
    fn evict(&mut self, now: Instant) {
        let window = self.window;
        self.entries
            .retain(|_, e| now.saturating_duration_since(e.last_seen) <= window);
        if self.entries.len() >= self.capacity
            && let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.last_seen)
                .map(|(k, _)| k.clone())
        {
            self.entries.remove(&oldest);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ObjectReference;

    use super::*;
    use crate::events::Event;

    fn key(name: &str, note: &str) -> SeriesKey {
        let regarding = ObjectReference {
            name: Some(name.into()),
            ..Default::default()
        };
        SeriesKey::new(&regarding, &Event::normal("Synced", "Sync", note))
    }

    fn namer(prefix: &'static str) -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("{prefix}{n}")
        }
    }

    #[tokio::test(start_paused = true)]
    async fn repeats_within_the_window_bump_one_series() {
        let mut cache = SeriesCache::new(Duration::from_secs(360), 10);
        let mut names = namer("e");
        let t0 = Instant::now();
        assert_eq!(
            cache.observe(key("a", "x"), t0, &mut names),
            Step::Create { name: "e1".into() }
        );
        assert_eq!(
            cache.observe(key("a", "x"), t0 + Duration::from_secs(300), &mut names),
            Step::Bump {
                name: "e1".into(),
                count: 2
            }
        );
        // The window runs from the last observation, not the first.
        assert_eq!(
            cache.observe(key("a", "x"), t0 + Duration::from_secs(600), &mut names),
            Step::Bump {
                name: "e1".into(),
                count: 3
            }
        );
        // A different note is a different event.
        assert_eq!(
            cache.observe(key("a", "y"), t0, &mut names),
            Step::Create { name: "e2".into() }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_series_closes_and_the_next_repeat_starts_a_new_event() {
        let mut cache = SeriesCache::new(Duration::from_secs(360), 10);
        let mut names = namer("e");
        let t0 = Instant::now();
        cache.observe(key("a", "x"), t0, &mut names);
        assert_eq!(
            cache.observe(key("a", "x"), t0 + Duration::from_secs(361), &mut names),
            Step::Create { name: "e2".into() }
        );
        assert_eq!(cache.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn capacity_evicts_closed_then_least_recent_series() {
        let mut cache = SeriesCache::new(Duration::from_secs(10), 2);
        let mut names = namer("e");
        let t0 = Instant::now();
        cache.observe(key("a", "x"), t0, &mut names);
        cache.observe(key("b", "x"), t0 + Duration::from_secs(1), &mut names);
        cache.observe(key("c", "x"), t0 + Duration::from_secs(2), &mut names); // evicts a
        assert_eq!(cache.len(), 2);
        assert_eq!(
            cache.observe(key("b", "x"), t0 + Duration::from_secs(3), &mut names),
            Step::Bump {
                name: "e2".into(),
                count: 2
            }
        );
        assert!(matches!(
            cache.observe(key("a", "x"), t0 + Duration::from_secs(4), &mut names),
            Step::Create { .. }
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn forget_and_rename() {
        let mut cache = SeriesCache::new(Duration::from_secs(10), 4);
        let mut names = namer("e");
        let t0 = Instant::now();
        cache.observe(key("a", "x"), t0, &mut names);
        cache.rename(&key("a", "x"), "renamed".into());
        assert_eq!(
            cache.observe(key("a", "x"), t0, &mut names),
            Step::Bump {
                name: "renamed".into(),
                count: 2
            }
        );
        cache.forget(&key("a", "x"));
        assert!(matches!(
            cache.observe(key("a", "x"), t0, &mut names),
            Step::Create { .. }
        ));
    }
}
