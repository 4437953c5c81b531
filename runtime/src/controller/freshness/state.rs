//! The guard's state: which caches each resource has, which versions each key wrote,
//! and the decision taken before each reconcile.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::StaleCacheGuard;
use super::version::compare_resource_versions;
use crate::client::written::{GroupResource, WriteObserver};
use crate::informer::SyncedVersion;
use crate::key::ObjectKey;
use crate::workqueue::Clock;

/// What to do with a key taken from the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every cache has seen the key's writes (or it wrote nothing): reconcile.
    Fresh,
    /// A cache is behind a write of the key: put the key back for `retry`.
    Behind {
        /// When to look again (the retry delay, or less if the deadline comes first).
        retry: Duration,
        /// The resources whose caches are behind.
        resources: Vec<GroupResource>,
    },
    /// A cache is still behind once the deadline passed: reconcile anyway.
    GaveUp {
        /// How long ago the oldest write not yet seen was made.
        waited: Duration,
        /// The resources whose caches are behind.
        resources: Vec<GroupResource>,
    },
}

/// One write a key made: the newest version of one resource in one namespace.
#[derive(Debug, Clone)]
struct Written {
    resource: GroupResource,
    namespace: Option<String>,
    resource_version: String,
    at: Instant,
}

/// One tracked cache: the namespace its informer lists (`None`: all) and its version.
#[derive(Debug, Clone)]
struct Cache {
    namespace: Option<String>,
    version: SyncedVersion,
}

impl Cache {
    /// Whether this cache holds objects of `namespace` (`None`: cluster-scoped).
    fn covers(&self, namespace: Option<&str>) -> bool {
        self.namespace.is_none() || self.namespace.as_deref() == namespace
    }
}

type Caches = HashMap<GroupResource, Vec<Cache>>;

#[derive(Debug, Default)]
struct Pending {
    /// The writes of each key not yet seen by the caches.
    by_key: HashMap<ObjectKey, Vec<Written>>,
    /// How many keys the last sweep kept: the next sweep runs at twice as many.
    kept_at_last_sweep: usize,
}

/// The stale-cache guard of one controller (see the [module docs](super)).
#[derive(Debug)]
pub(crate) struct Guard {
    config: StaleCacheGuard,
    clock: Arc<dyn Clock>,
    caches: Mutex<Caches>,
    pending: Mutex<Pending>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sweep no more often than this many keys: below it, entries cost nothing worth it.
const MIN_SWEEP: usize = 64;

impl Guard {
    pub(crate) fn new(config: StaleCacheGuard, clock: Arc<dyn Clock>) -> Self {
        Self {
            config,
            clock,
            caches: Mutex::new(HashMap::new()),
            pending: Mutex::new(Pending::default()),
        }
    }

    /// Whether the guard is on.
    pub(crate) fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// Makes writes of `resource` (in `namespace`, or in any with `None`) wait for
    /// `cache` (once per cache).
    pub(crate) fn track(
        &self,
        resource: GroupResource,
        namespace: Option<String>,
        cache: SyncedVersion,
    ) {
        let mut caches = lock(&self.caches);
        let known = caches.entry(resource).or_default();
        if !known.iter().any(|c| c.version.same(&cache)) {
            known.push(Cache {
                namespace,
                version: cache,
            });
        }
    }

    /// Records that reconciling `key` wrote `resource` in `namespace` at
    /// `resource_version`. A write no tracked cache holds (another resource, another
    /// namespace) is not recorded: nothing would ever see it.
    pub(crate) fn wrote(
        &self,
        key: &ObjectKey,
        resource: &GroupResource,
        namespace: Option<&str>,
        resource_version: &str,
    ) {
        let covered = lock(&self.caches)
            .get(resource)
            .is_some_and(|caches| caches.iter().any(|c| c.covers(namespace)));
        if !self.enabled() || !covered {
            return;
        }
        let now = self.clock.now();
        let mut pending = lock(&self.pending);
        let writes = pending.by_key.entry(key.clone()).or_default();
        let same =
            |w: &&mut Written| w.resource == *resource && w.namespace.as_deref() == namespace;
        match writes.iter_mut().find(same) {
            // Keep the newest version of each resource; one that cannot be ordered
            // replaces the old (the caches are then not waited for: see `check`).
            Some(known) => {
                let newer = compare_resource_versions(resource_version, &known.resource_version)
                    .is_none_or(|order| order == Ordering::Greater);
                if newer {
                    resource_version.clone_into(&mut known.resource_version);
                    known.at = now;
                }
            }
            None => writes.push(Written {
                resource: resource.clone(),
                namespace: namespace.map(str::to_owned),
                resource_version: resource_version.to_owned(),
                at: now,
            }),
        }
        let threshold = (pending.kept_at_last_sweep * 2).max(MIN_SWEEP);
        if pending.by_key.len() > threshold {
            self.sweep(&mut pending, now);
        }
    }

    /// Drops the records of keys whose writes every cache has seen or whose deadline
    /// passed (keys written once and never reconciled again would otherwise stay).
    fn sweep(&self, pending: &mut Pending, now: Instant) {
        let caches = lock(&self.caches);
        pending.by_key.retain(|_, writes| {
            writes.retain(|w| {
                now.saturating_duration_since(w.at) < self.config.timeout && !seen(&caches, w)
            });
            !writes.is_empty()
        });
        pending.kept_at_last_sweep = pending.by_key.len();
    }

    /// Decides whether `key` may be reconciled now. [`Verdict::Fresh`] and
    /// [`Verdict::GaveUp`] forget the key's writes; [`Verdict::Behind`] keeps them.
    pub(crate) fn check(&self, key: &ObjectKey) -> Verdict {
        if !self.enabled() {
            return Verdict::Fresh;
        }
        let mut pending = lock(&self.pending);
        let Some(writes) = pending.by_key.get(key) else {
            return Verdict::Fresh;
        };
        let caches = lock(&self.caches);
        let behind: Vec<&Written> = writes.iter().filter(|w| !seen(&caches, w)).collect();
        drop(caches);
        let Some(oldest) = behind.iter().map(|w| w.at).min() else {
            pending.by_key.remove(key);
            return Verdict::Fresh;
        };
        let resources = behind.iter().map(|w| w.resource.clone()).collect();
        let waited = self.clock.now().saturating_duration_since(oldest);
        match self.config.timeout.checked_sub(waited) {
            Some(left) if !left.is_zero() => Verdict::Behind {
                retry: self.config.retry.min(left),
                resources,
            },
            _ => {
                pending.by_key.remove(key);
                Verdict::GaveUp { waited, resources }
            }
        }
    }

    /// How many keys have writes recorded (for tests).
    #[cfg(test)]
    pub(crate) fn pending_keys(&self) -> usize {
        lock(&self.pending).by_key.len()
    }
}

/// Whether every cache holding the write (its resource, its namespace) has seen it:
/// its last synced version is at or past it, or the two cannot be ordered (KEP-5647
/// fails open).
fn seen(caches: &Caches, write: &Written) -> bool {
    caches.get(&write.resource).is_none_or(|caches| {
        caches
            .iter()
            .filter(|cache| cache.covers(write.namespace.as_deref()))
            .all(|cache| {
                compare_resource_versions(&write.resource_version, &cache.version.get())
                    .is_none_or(|order| order != Ordering::Greater)
            })
    })
}

/// The [`WriteObserver`] of one reconcile: records its writes under its key.
pub(crate) struct KeyWrites {
    pub(crate) guard: Arc<Guard>,
    pub(crate) key: ObjectKey,
}

impl WriteObserver for KeyWrites {
    fn wrote(&self, resource: &GroupResource, namespace: Option<&str>, resource_version: &str) {
        self.guard
            .wrote(&self.key, resource, namespace, resource_version);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workqueue::TokioClock;

    const NS: Option<&str> = Some("default");
    const RETRY: Duration = Duration::from_millis(10);
    const TIMEOUT: Duration = Duration::from_secs(2);

    fn guard() -> (Arc<Guard>, SyncedVersion) {
        let config = StaleCacheGuard::default().retry(RETRY).timeout(TIMEOUT);
        let guard = Arc::new(Guard::new(config, Arc::new(TokioClock)));
        let cache = SyncedVersion::new();
        cache.set("10");
        guard.track(deployments(), None, cache.clone());
        (guard, cache)
    }

    fn deployments() -> GroupResource {
        GroupResource::new("apps", "deployments")
    }

    fn key() -> ObjectKey {
        ObjectKey::namespaced("default", "web")
    }

    fn behind(retry: Duration) -> Verdict {
        Verdict::Behind {
            retry,
            resources: vec![deployments()],
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_key_waits_until_the_cache_reaches_its_write() {
        let (guard, cache) = guard();
        assert_eq!(guard.check(&key()), Verdict::Fresh, "nothing written yet");
        guard.wrote(&key(), &deployments(), NS, "12");
        assert_eq!(guard.check(&key()), behind(RETRY));
        assert_eq!(
            guard.check(&ObjectKey::namespaced("default", "other")),
            Verdict::Fresh,
            "other keys are not held back"
        );
        cache.set("11");
        assert_eq!(guard.check(&key()), behind(RETRY));
        cache.set("12");
        assert_eq!(guard.check(&key()), Verdict::Fresh);
        assert_eq!(
            guard.pending_keys(),
            0,
            "a fresh verdict forgets the writes"
        );
        assert_eq!(guard.check(&key()), Verdict::Fresh);
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_deadline_the_key_is_reconciled_anyway() {
        let (guard, _cache) = guard();
        guard.wrote(&key(), &deployments(), NS, "12");
        tokio::time::advance(TIMEOUT - Duration::from_millis(4)).await;
        assert_eq!(
            guard.check(&key()),
            behind(Duration::from_millis(4)),
            "the last retry lands on the deadline"
        );
        tokio::time::advance(Duration::from_millis(4)).await;
        assert_eq!(
            guard.check(&key()),
            Verdict::GaveUp {
                waited: TIMEOUT,
                resources: vec![deployments()]
            }
        );
        assert_eq!(guard.check(&key()), Verdict::Fresh, "given up: forgotten");
    }

    #[tokio::test(start_paused = true)]
    async fn the_newest_write_of_a_resource_counts_and_restarts_the_clock() {
        let (guard, cache) = guard();
        guard.wrote(&key(), &deployments(), NS, "12");
        tokio::time::advance(Duration::from_secs(1)).await;
        guard.wrote(&key(), &deployments(), NS, "15");
        guard.wrote(&key(), &deployments(), NS, "13"); // older: ignored
        cache.set("13");
        assert_eq!(guard.check(&key()), behind(RETRY));
        tokio::time::advance(Duration::from_millis(1500)).await;
        assert_eq!(guard.check(&key()), behind(RETRY), "2 s from the newest");
        cache.set("15");
        assert_eq!(guard.check(&key()), Verdict::Fresh);
    }

    #[tokio::test(start_paused = true)]
    async fn versions_that_cannot_be_ordered_do_not_hold_a_key_back() {
        let (guard, cache) = guard();
        guard.wrote(&key(), &deployments(), NS, "opaque-1");
        assert_eq!(guard.check(&key()), Verdict::Fresh, "written version odd");
        guard.wrote(&key(), &deployments(), NS, "12");
        cache.set("");
        assert_eq!(guard.check(&key()), Verdict::Fresh, "cache not listed yet");
    }

    #[tokio::test(start_paused = true)]
    async fn writes_of_untracked_resources_and_a_disabled_guard_record_nothing() {
        let (guard, _cache) = guard();
        guard.wrote(&key(), &GroupResource::new("", "configmaps"), NS, "99");
        assert_eq!(guard.pending_keys(), 0);
        assert_eq!(guard.check(&key()), Verdict::Fresh);

        let off = Guard::new(StaleCacheGuard::disabled(), Arc::new(TokioClock));
        let cache = SyncedVersion::new();
        off.track(deployments(), None, cache);
        off.wrote(&key(), &deployments(), NS, "99");
        assert_eq!(off.pending_keys(), 0);
        assert_eq!(off.check(&key()), Verdict::Fresh);
    }

    #[tokio::test(start_paused = true)]
    async fn every_cache_of_a_resource_must_catch_up() {
        let (guard, first) = guard();
        let second = SyncedVersion::new();
        second.set("10");
        guard.track(deployments(), Some("default".into()), second.clone());
        guard.track(deployments(), None, first.clone()); // the same cache again: no-op
        guard.wrote(&key(), &deployments(), NS, "12");
        first.set("12");
        assert_eq!(guard.check(&key()), behind(RETRY));
        second.set("20");
        assert_eq!(guard.check(&key()), Verdict::Fresh);
    }

    #[tokio::test(start_paused = true)]
    async fn a_cache_of_one_namespace_holds_back_only_writes_in_it() {
        let config = StaleCacheGuard::default().retry(RETRY).timeout(TIMEOUT);
        let guard = Guard::new(config, Arc::new(TokioClock));
        let web = SyncedVersion::new();
        web.set("10");
        guard.track(deployments(), Some("web".into()), web.clone());
        guard.wrote(&key(), &deployments(), Some("other"), "12");
        assert_eq!(guard.pending_keys(), 0, "no cache holds namespace other");
        assert_eq!(guard.check(&key()), Verdict::Fresh);

        let all = SyncedVersion::new();
        all.set("10");
        guard.track(deployments(), None, all.clone());
        guard.wrote(&key(), &deployments(), Some("other"), "12");
        assert_eq!(guard.check(&key()), behind(RETRY));
        all.set("12");
        assert_eq!(
            guard.check(&key()),
            Verdict::Fresh,
            "the cache of web, still at 10, does not hold the write"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn records_of_keys_never_reconciled_again_are_swept() {
        let (guard, cache) = guard();
        for i in 0..=MIN_SWEEP {
            guard.wrote(
                &ObjectKey::namespaced("default", format!("k{i}")),
                &deployments(),
                Some("default"),
                "12",
            );
        }
        // The sweep ran at MIN_SWEEP + 1 keys, with the cache still behind: all kept.
        assert_eq!(guard.pending_keys(), MIN_SWEEP + 1);
        cache.set("12");
        for i in 0..=(MIN_SWEEP * 2) {
            guard.wrote(
                &ObjectKey::namespaced("other", format!("k{i}")),
                &deployments(),
                Some("other"),
                "13",
            );
        }
        // The second sweep dropped the writes the cache has seen (version 12, every
        // `default` key) and kept the others.
        assert_eq!(guard.pending_keys(), MIN_SWEEP * 2 + 1);
        tokio::time::advance(TIMEOUT).await;
        guard.wrote(&key(), &deployments(), NS, "14");
        for i in 0..(MIN_SWEEP * 8) {
            guard.wrote(
                &ObjectKey::namespaced("third", format!("k{i}")),
                &deployments(),
                Some("third"),
                "14",
            );
        }
        assert_eq!(
            guard.check(&ObjectKey::namespaced("other", "k0")),
            Verdict::Fresh,
            "expired records are swept too"
        );
    }
}
