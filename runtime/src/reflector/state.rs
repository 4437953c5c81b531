//! The reflector as a state machine: [`State`] plus [`Reflector::step`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kube::Resource;
use kube::api::{ListParams, WatchEvent, WatchParams};
use tokio::time::Instant;

use super::{Delta, DeltaSink, Error, Reflector, Stalled, WatchStream};
use crate::error as api_error;
use crate::key::ObjectKey;
use crate::metrics::informer::WatchEventKind;
use crate::shard::ShardSelector;

/// The annotation on the bookmark that ends a streamed initial list.
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// A watch closing this soon after opening, without events, is treated as a failure.
const VERY_SHORT_WATCH: Duration = Duration::from_secs(1);

/// Where a reflector is.
pub enum State<K> {
    /// Nothing synced: (re)list next.
    Empty,
    /// Synced up to `resource_version`: open a watch from there next.
    Synced {
        /// The resourceVersion to watch from.
        resource_version: String,
    },
    /// A streaming initial list is arriving; `objects` collects it until the
    /// `k8s.io/initial-events-end` bookmark.
    StreamingList {
        /// The watch carrying the initial events.
        stream: WatchStream<K>,
        /// The objects received so far, by key.
        objects: HashMap<ObjectKey, Arc<K>>,
        /// When the watch is presumed dead if the server has not closed it.
        deadline: Option<Instant>,
    },
    /// A watch is open.
    Watching {
        /// The last resourceVersion seen (objects and bookmarks).
        resource_version: String,
        /// The watch.
        stream: WatchStream<K>,
        /// When the watch opened, until its first event arrives.
        quiet_since: Option<Instant>,
        /// When the watch is presumed dead if the server has not closed it: its
        /// `timeoutSeconds` plus the request timeout after it was asked for.
        deadline: Option<Instant>,
    },
    /// Waiting out a backoff before going to `then`.
    Backoff {
        /// When to go on.
        until: Instant,
        /// Where to go.
        then: Box<State<K>>,
    },
}

impl<K> fmt::Debug for State<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::Empty => f.write_str("Empty"),
            State::Synced { resource_version } => f
                .debug_struct("Synced")
                .field("resource_version", resource_version)
                .finish(),
            State::StreamingList { objects, .. } => f
                .debug_struct("StreamingList")
                .field("objects", &objects.len())
                .finish(),
            State::Watching {
                resource_version, ..
            } => f
                .debug_struct("Watching")
                .field("resource_version", resource_version)
                .finish(),
            State::Backoff { until, then } => f
                .debug_struct("Backoff")
                .field("until", until)
                .field("then", then)
                .finish(),
        }
    }
}

fn resource_version_of<K: Resource>(object: &K) -> Option<&str> {
    object.meta().resource_version.as_deref()
}

impl<K, S> Reflector<K, S>
where
    K: Resource + Clone + Send + Sync + 'static,
    S: DeltaSink<K>,
{
    /// Performs one transition: one whole (paginated) list, one watch opening, one watch
    /// event or one backoff. The sink is changed only between awaits, so dropping the
    /// future at any await point leaves it consistent.
    pub async fn step(&mut self, state: State<K>) -> State<K> {
        match state {
            State::Empty if self.streaming => self.start_streaming_list().await,
            State::Empty => self.list().await,
            State::Synced { resource_version } => self.start_watch(resource_version).await,
            State::StreamingList {
                stream,
                objects,
                deadline,
            } => self.streaming_list_event(stream, objects, deadline).await,
            State::Watching {
                resource_version,
                stream,
                quiet_since,
                deadline,
            } => {
                self.watch_event(resource_version, stream, quiet_since, deadline)
                    .await
            }
            State::Backoff { until, then } => {
                tokio::time::sleep_until(until).await;
                *then
            }
        }
    }

    fn backoff_to(&mut self, error: &Error, then: State<K>) -> State<K> {
        let delay = self
            .backoff
            .next(Instant::now())
            .max(error.retry_after().unwrap_or_default());
        self.config.metrics.backoff(delay);
        State::Backoff {
            until: Instant::now() + delay,
            then: Box::new(then),
        }
    }

    fn list_params(&self) -> ListParams {
        ListParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            limit: Some(self.config.page_size),
            ..ListParams::default()
        }
    }

    fn watch_params(&self) -> WatchParams {
        WatchParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            timeout: Some(self.config.random_watch_timeout()),
            bookmarks: true,
            send_initial_events: false,
        }
    }

    /// When a watch asked for with `params` and opened now is presumed dead (`None`:
    /// never).
    fn watch_deadline(&self, params: &WatchParams) -> Option<Instant> {
        let asked = Duration::from_secs(params.timeout.map_or(0, u64::from));
        let grace = self.config.request_timeout?;
        Instant::now().checked_add(asked.saturating_add(grace))
    }

    /// The answer to `request`, its failure as `failed` makes it, or
    /// [`Error::Timeout`] once the request timeout passes without an answer.
    async fn bounded<T>(
        &self,
        stalled: Stalled,
        request: impl Future<Output = kube::Result<T>>,
        failed: impl FnOnce(kube::Error) -> Error,
    ) -> Result<T, Error> {
        let answer = match self.config.request_timeout {
            Some(limit) => tokio::time::timeout(limit, request)
                .await
                .map_err(|_elapsed| self.stalled(stalled, limit))?,
            None => request.await,
        };
        answer.map_err(failed)
    }

    /// The next item of an open watch, or [`Error::Timeout`] if `deadline` passes
    /// first.
    async fn next_before(
        &self,
        stream: &mut WatchStream<K>,
        deadline: Option<Instant>,
    ) -> Result<Option<kube::Result<WatchEvent<K>>>, Error> {
        match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, stream.next())
                .await
                .map_err(|_elapsed| {
                    let grace = self.config.request_timeout.unwrap_or_default();
                    self.stalled(Stalled::Watch, grace)
                }),
            None => Ok(stream.next().await),
        }
    }

    /// A request that got no answer in time.
    fn stalled(&self, request: Stalled, after: Duration) -> Error {
        Error::Timeout {
            reflector: self.config.name.clone(),
            request,
            after,
        }
    }

    /// Whether `object` belongs in the cache: in the shard, when there is one.
    fn in_shard(&self, object: &K) -> bool {
        self.config
            .shard_selector
            .as_ref()
            .is_none_or(|shard| shard.matches(object.meta()))
    }

    /// The shard selector to send to the server, unless it refused it.
    fn shard_to_send(&self) -> Option<ShardSelector> {
        self.config
            .shard_selector
            .clone()
            .filter(|_| self.send_shard)
    }

    /// After a failed request that carried the shard selector: a `400` means the server
    /// refuses it, so it is no longer sent (the reflector filters alone) and the request
    /// is retried at once. `true` when that is what happened.
    fn shard_refused(&mut self, error: &Error, sent: bool) -> bool {
        let refused = sent
            && error
                .status()
                .is_some_and(|s| s.code == 400 || api_error::is_invalid(s));
        if refused {
            tracing::info!(reflector = %self.config.name, error = %error, "the server refused shardSelector; filtering the shard client-side");
            self.send_shard = false;
        }
        refused
    }

    fn transform(&self, mut object: K) -> Arc<K> {
        if !self.config.keep_managed_fields {
            object.meta_mut().managed_fields = None;
        }
        match &self.config.transform {
            Some(transform) => Arc::new(transform(object)),
            None => Arc::new(object),
        }
    }

    fn replace(&mut self, objects: Vec<Arc<K>>, resource_version: &str) {
        if self.relisting {
            self.config.metrics.relist();
        }
        self.relisting = true;
        // Metrics first: replacing an informer's sink marks it synced, and whoever waits
        // for that may read them at once. A list's objects have distinct keys, so their
        // count is the sink's size after the replace.
        self.config.metrics.last_resource_version(resource_version);
        self.config.metrics.store_size(objects.len());
        self.sink.replace(objects);
        self.sink.synced_to(resource_version);
        // The pages, the dropped managedFields and the previous cache are free now.
        if self.config.release_memory_after_list {
            let started = std::time::Instant::now();
            let released = super::trim::release_free_memory();
            tracing::debug!(reflector = %self.config.name, released, elapsed = ?started.elapsed(), "released free memory after a list");
        }
    }

    /// Lists every page, then replaces the sink's contents.
    async fn list(&mut self) -> State<K> {
        let started = Instant::now();
        let mut params = self.list_params();
        let mut objects = Vec::new();
        let resource_version = loop {
            let failed = |source| Error::List {
                reflector: self.config.name.clone(),
                source,
            };
            let shard = self.shard_to_send();
            let request = async {
                match &shard {
                    Some(shard) => Ok(self.source.list_shard(&params, shard).await?.list),
                    None => self.source.list(&params).await,
                }
            };
            let answer = self.bounded(Stalled::List, request, failed).await;
            let page = match answer {
                Ok(page) => page,
                Err(error) => {
                    self.config.metrics.list_failed();
                    self.report(&error);
                    if self.shard_refused(&error, shard.is_some()) {
                        return State::Empty;
                    }
                    return self.backoff_to(&error, State::Empty);
                }
            };
            let kept: Vec<K> = page
                .items
                .into_iter()
                .filter(|o| self.in_shard(o))
                .collect();
            objects.extend(kept.into_iter().map(|o| self.transform(o)));
            match page.metadata.continue_.filter(|token| !token.is_empty()) {
                Some(token) => params.continue_token = Some(token),
                None => break page.metadata.resource_version.unwrap_or_default(),
            }
        };
        self.config
            .metrics
            .list_completed(objects.len(), started.elapsed());
        self.replace(objects, &resource_version);
        State::Synced { resource_version }
    }

    async fn start_streaming_list(&mut self) -> State<K> {
        let mut params = self.watch_params();
        params.send_initial_events = true;
        self.config.metrics.watch_started();
        let deadline = self.watch_deadline(&params);
        let failed = |source| Error::Watch {
            reflector: self.config.name.clone(),
            resource_version: String::new(),
            source,
        };
        let shard = self.shard_to_send();
        let opening = match &shard {
            Some(shard) => self.source.watch_shard(&params, "", shard),
            None => self.source.watch(&params, ""),
        };
        let answer = self.bounded(Stalled::WatchOpen, opening, failed).await;
        match answer {
            Ok(stream) => State::StreamingList {
                stream,
                objects: HashMap::new(),
                deadline,
            },
            Err(error) => {
                self.report(&error);
                self.config.metrics.watch_ended();
                if self.shard_refused(&error, shard.is_some()) {
                    return State::Empty;
                }
                if error
                    .status()
                    .is_some_and(|s| api_error::is_invalid(s) || s.code == 400)
                {
                    tracing::info!(reflector = %self.config.name, "streaming list refused; falling back to list+watch");
                    self.streaming = false;
                    return State::Empty;
                }
                self.backoff_to(&error, State::Empty)
            }
        }
    }

    async fn streaming_list_event(
        &mut self,
        mut stream: WatchStream<K>,
        mut objects: HashMap<ObjectKey, Arc<K>>,
        deadline: Option<Instant>,
    ) -> State<K> {
        let next = match self.next_before(&mut stream, deadline).await {
            Ok(next) => next,
            Err(error) => {
                self.config.metrics.watch_ended();
                self.report(&error);
                return self.backoff_to(&error, State::Empty);
            }
        };
        let event = match next {
            Some(Ok(event)) => event,
            Some(Err(source)) => {
                let error = Error::WatchStream {
                    reflector: self.config.name.clone(),
                    source,
                };
                self.report(&error);
                self.config.metrics.watch_ended();
                return self.backoff_to(&error, State::Empty);
            }
            None => {
                let error = Error::InitialEventsIncomplete {
                    reflector: self.config.name.clone(),
                };
                self.report(&error);
                self.config.metrics.watch_ended();
                return self.backoff_to(&error, State::Empty);
            }
        };
        match event {
            WatchEvent::Added(object) => {
                self.config.metrics.watch_event(WatchEventKind::Added);
                if self.in_shard(&object) {
                    objects.insert(ObjectKey::of(&object), self.transform(object));
                }
            }
            WatchEvent::Modified(object) => {
                self.config.metrics.watch_event(WatchEventKind::Modified);
                if self.in_shard(&object) {
                    objects.insert(ObjectKey::of(&object), self.transform(object));
                }
            }
            WatchEvent::Deleted(object) => {
                self.config.metrics.watch_event(WatchEventKind::Deleted);
                objects.remove(&ObjectKey::of(&object));
            }
            WatchEvent::Bookmark(bookmark) => {
                self.config.metrics.watch_event(WatchEventKind::Bookmark);
                let resource_version = bookmark.metadata.resource_version;
                let ended = bookmark
                    .metadata
                    .annotations
                    .get(INITIAL_EVENTS_END)
                    .is_some_and(|v| v == "true");
                if ended {
                    self.replace(objects.into_values().collect(), &resource_version);
                    return State::Watching {
                        resource_version,
                        stream,
                        quiet_since: None,
                        deadline,
                    };
                }
            }
            WatchEvent::Error(status) => {
                self.config.metrics.watch_event(WatchEventKind::Error);
                self.config.metrics.watch_ended();
                let error = Error::WatchStatus {
                    reflector: self.config.name.clone(),
                    status,
                };
                self.report(&error);
                return self.backoff_to(&error, State::Empty);
            }
        }
        State::StreamingList {
            stream,
            objects,
            deadline,
        }
    }

    fn upsert(&mut self, object: K, resource_version: &mut String) {
        if let Some(rv) = resource_version_of(&object) {
            *resource_version = rv.to_owned();
        }
        // An object's uid and namespace never change: one outside the shard never was in.
        if !self.in_shard(&object) {
            return;
        }
        let object = self.transform(object);
        self.sink.apply(Delta::Upsert(object));
    }

    async fn start_watch(&mut self, resource_version: String) -> State<K> {
        let params = self.watch_params();
        self.config.metrics.watch_started();
        let deadline = self.watch_deadline(&params);
        let failed = |source| Error::Watch {
            reflector: self.config.name.clone(),
            resource_version: resource_version.clone(),
            source,
        };
        let shard = self.shard_to_send();
        let opening = match &shard {
            Some(shard) => self.source.watch_shard(&params, &resource_version, shard),
            None => self.source.watch(&params, &resource_version),
        };
        let answer = self.bounded(Stalled::WatchOpen, opening, failed).await;
        match answer {
            Ok(stream) => State::Watching {
                resource_version,
                stream,
                quiet_since: Some(Instant::now()),
                deadline,
            },
            Err(error) => {
                self.config.metrics.watch_ended();
                self.report(&error);
                if self.shard_refused(&error, shard.is_some()) {
                    return State::Synced { resource_version };
                }
                let then = if error.is_gone() {
                    State::Empty
                } else {
                    State::Synced { resource_version }
                };
                self.backoff_to(&error, then)
            }
        }
    }

    async fn watch_event(
        &mut self,
        mut resource_version: String,
        mut stream: WatchStream<K>,
        quiet_since: Option<Instant>,
        deadline: Option<Instant>,
    ) -> State<K> {
        let next = match self.next_before(&mut stream, deadline).await {
            Ok(next) => next,
            Err(error) => {
                // The server should have closed it by now: the connection is dead.
                self.config.metrics.watch_ended();
                self.report(&error);
                return self.backoff_to(&error, State::Synced { resource_version });
            }
        };
        let event = match next {
            Some(Ok(event)) => event,
            Some(Err(source)) => {
                self.config.metrics.watch_ended();
                let error = Error::WatchStream {
                    reflector: self.config.name.clone(),
                    source,
                };
                self.report(&error);
                return self.backoff_to(&error, State::Synced { resource_version });
            }
            None => {
                // The server closed the watch (timeout, restart): resume where we were,
                // at once, unless it closed within a second without any event (client-go's
                // "very short watch"), which means something is wrong: back off.
                self.config.metrics.watch_ended();
                tracing::debug!(reflector = %self.config.name, %resource_version, "watch closed; resuming");
                let resume = State::Synced { resource_version };
                if quiet_since.is_some_and(|opened| opened.elapsed() < VERY_SHORT_WATCH) {
                    let delay = self.backoff.next(Instant::now());
                    self.config.metrics.backoff(delay);
                    return State::Backoff {
                        until: Instant::now() + delay,
                        then: Box::new(resume),
                    };
                }
                return resume;
            }
        };
        match event {
            WatchEvent::Added(object) => {
                self.config.metrics.watch_event(WatchEventKind::Added);
                self.upsert(object, &mut resource_version);
            }
            WatchEvent::Modified(object) => {
                self.config.metrics.watch_event(WatchEventKind::Modified);
                self.upsert(object, &mut resource_version);
            }
            WatchEvent::Deleted(object) => {
                if let Some(rv) = resource_version_of(&object) {
                    resource_version = rv.to_owned();
                }
                self.config.metrics.watch_event(WatchEventKind::Deleted);
                if self.in_shard(&object) {
                    let object = self.transform(object);
                    self.sink.apply(Delta::Delete(object));
                }
            }
            WatchEvent::Bookmark(bookmark) => {
                self.config.metrics.watch_event(WatchEventKind::Bookmark);
                resource_version = bookmark.metadata.resource_version;
            }
            WatchEvent::Error(status) => {
                self.config.metrics.watch_event(WatchEventKind::Error);
                self.config.metrics.watch_ended();
                let error = Error::WatchStatus {
                    reflector: self.config.name.clone(),
                    status,
                };
                self.report(&error);
                let then = if error.is_gone() {
                    State::Empty
                } else {
                    State::Synced { resource_version }
                };
                return self.backoff_to(&error, then);
            }
        }
        self.config.metrics.last_resource_version(&resource_version);
        self.config.metrics.store_size(self.sink.len());
        self.sink.synced_to(&resource_version);
        State::Watching {
            resource_version,
            stream,
            quiet_since: None,
            deadline,
        }
    }
}
