//! The keys a queue is ready to hand out: highest priority first, in the order they
//! became ready within a priority.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::Hash;

/// How soon a key should be handed out relative to others: higher first.
/// controller-runtime's priority queue uses the same numbers.
pub type Priority = i32;

/// The priority of live events and of keys added without one.
pub const PRIORITY_NORMAL: Priority = 0;

/// The priority of keys from an informer's initial list or an unchanged resync
/// (controller-runtime's `handler.LowPriority`): after a restart, a live change is not
/// stuck behind every object of the cluster.
pub const PRIORITY_LOW: Priority = -100;

/// Ready keys by priority. Raising a ready key's priority adds a newer entry and leaves
/// the older one behind as stale (skipped when popped), so a raise costs one push however
/// many keys are ready.
pub(super) struct Ready<T> {
    /// Entries by priority, each with the ticket that makes it current.
    buckets: BTreeMap<Priority, VecDeque<(T, u64)>>,
    /// The current ticket and priority of every ready key.
    current: HashMap<T, (u64, Priority)>,
    next_ticket: u64,
}

impl<T> Ready<T> {
    pub(super) fn new() -> Self {
        Self {
            buckets: BTreeMap::new(),
            current: HashMap::new(),
            next_ticket: 0,
        }
    }

    /// How many keys are ready.
    pub(super) fn len(&self) -> usize {
        self.current.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.current.is_empty()
    }
}

impl<T: Hash + Eq + Clone> Ready<T> {
    /// Makes `key` ready at `priority`; a key already ready moves up if `priority` is
    /// higher than its own, and keeps its place otherwise.
    pub(super) fn push(&mut self, key: T, priority: Priority) {
        if let Some((_, held)) = self.current.get(&key)
            && *held >= priority
        {
            return;
        }
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.current.insert(key.clone(), (ticket, priority));
        self.buckets
            .entry(priority)
            .or_default()
            .push_back((key, ticket));
    }

    /// The next key: the oldest of the highest priority.
    pub(super) fn pop(&mut self) -> Option<T> {
        loop {
            let mut bucket = self.buckets.last_entry()?;
            let Some((key, ticket)) = bucket.get_mut().pop_front() else {
                bucket.remove();
                continue;
            };
            if bucket.get().is_empty() {
                bucket.remove();
            }
            if self.current.get(&key).is_some_and(|(t, _)| *t == ticket) {
                self.current.remove(&key);
                return Some(key);
            }
            // A stale entry: the key moved up (or was taken) since.
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(ready: &mut Ready<&'static str>) -> Vec<&'static str> {
        std::iter::from_fn(|| ready.pop()).collect()
    }

    #[test]
    fn higher_priorities_first_and_in_order_within_one() {
        let mut ready = Ready::new();
        ready.push("low-1", PRIORITY_LOW);
        ready.push("normal-1", PRIORITY_NORMAL);
        ready.push("low-2", PRIORITY_LOW);
        ready.push("high", 10);
        ready.push("normal-2", PRIORITY_NORMAL);
        assert_eq!(ready.len(), 5);
        assert_eq!(
            drain(&mut ready),
            ["high", "normal-1", "normal-2", "low-1", "low-2"]
        );
        assert!(ready.is_empty());
    }

    #[test]
    fn a_ready_key_moves_up_never_down_and_is_handed_out_once() {
        let mut ready = Ready::new();
        ready.push("a", PRIORITY_LOW);
        ready.push("b", PRIORITY_LOW);
        ready.push("c", PRIORITY_NORMAL);
        ready.push("b", PRIORITY_NORMAL); // raised: after c, which was there first
        ready.push("c", PRIORITY_LOW); // not lowered
        assert_eq!(ready.len(), 3);
        assert_eq!(drain(&mut ready), ["c", "b", "a"]);
    }

    #[test]
    fn stale_entries_do_not_resurrect_a_key_pushed_again_later() {
        let mut ready = Ready::new();
        ready.push("a", PRIORITY_LOW);
        ready.push("a", PRIORITY_NORMAL);
        assert_eq!(ready.pop(), Some("a"));
        ready.push("a", PRIORITY_LOW); // ready again, at the back of the low bucket
        ready.push("b", PRIORITY_LOW);
        assert_eq!(drain(&mut ready), ["a", "b"]);
    }
}
