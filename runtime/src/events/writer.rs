//! The background task of an [`EventRecorder`](super::EventRecorder): takes observations
//! off the bounded queue, folds repeats into series, and writes Events to the server.

use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event as KubeEvent, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::event::{Event, SeriesKey};
use super::series::{SeriesCache, Step};
use crate::backoff::Backoff;
use crate::client::{Scope, TypedClient, retry_on_error};
use crate::error::Error as ClientError;

/// Namespace of events about cluster-scoped objects (client-go uses `default` too).
const CLUSTER_EVENTS_NAMESPACE: &str = "default";
/// Longest object name the server accepts.
const MAX_NAME_LEN: usize = 253;

/// What goes through the recorder's queue.
pub(crate) enum Message {
    /// One observation of an event, timed when it was published.
    Record(Box<Observation>),
    /// Answer once everything queued before has been written (or given up on).
    Flush(oneshot::Sender<()>),
}

/// One published event: what, about what, and when (monotonic and wall clock).
pub(crate) struct Observation {
    pub(crate) regarding: ObjectReference,
    pub(crate) event: Event,
    pub(crate) at: Instant,
    pub(crate) time: Timestamp,
}

/// How the writer behaves.
#[derive(Clone, Debug)]
pub(crate) struct WriterConfig {
    pub(crate) reporting_controller: String,
    pub(crate) reporting_instance: String,
    pub(crate) series_window: Duration,
    pub(crate) max_series: usize,
    pub(crate) retry: Backoff,
}

pub(crate) struct Writer {
    client: kube::Client,
    config: WriterConfig,
    cache: SeriesCache,
    last_stamp: i128,
}

impl Writer {
    pub(crate) fn new(client: kube::Client, config: WriterConfig) -> Self {
        let cache = SeriesCache::new(config.series_window, config.max_series);
        Self {
            client,
            config,
            cache,
            last_stamp: 0,
        }
    }

    /// Runs until every sender is gone.
    pub(crate) async fn run(mut self, mut queue: mpsc::Receiver<Message>) {
        while let Some(message) = queue.recv().await {
            match message {
                Message::Record(observation) => {
                    let Observation {
                        regarding,
                        event,
                        at,
                        time,
                    } = *observation;
                    self.record(regarding, event, at, time).await;
                }
                Message::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    }

    async fn record(
        &mut self,
        regarding: ObjectReference,
        event: Event,
        at: Instant,
        time: Timestamp,
    ) {
        let key = SeriesKey::new(&regarding, &event);
        let base = regarding.name.clone().unwrap_or_default();
        let step = self.cache.observe(key.clone(), at, || {
            unique_name(&base, &mut self.last_stamp, time)
        });
        let namespace = event_namespace(&regarding);
        let events =
            TypedClient::<KubeEvent>::new(self.client.clone(), Scope::Namespace(&namespace), &());
        let outcome = match &step {
            Step::Create { name } => {
                let object = self.event_object(name, &namespace, &regarding, &event, time, None);
                self.create(&events, &object).await.map(|()| None)
            }
            Step::Bump { name, count } => match self.bump(&events, name, *count, time).await {
                Ok(()) => Ok(None),
                Err(error) if error.is_not_found() => Ok(Some(*count)),
                Err(error) => Err(error),
            },
        };
        let result = match outcome {
            // The series' Event vanished (expired or deleted): start it again, keeping the count.
            Ok(Some(count)) => {
                let name = unique_name(&base, &mut self.last_stamp, time);
                let series = EventSeries {
                    count,
                    last_observed_time: MicroTime(time),
                };
                let object =
                    self.event_object(&name, &namespace, &regarding, &event, time, Some(series));
                let created = self.create(&events, &object).await;
                if created.is_ok() {
                    self.cache.rename(&key, name);
                }
                created
            }
            Ok(None) => Ok(()),
            Err(error) => Err(error),
        };
        if let Err(error) = result {
            self.cache.forget(&key);
            tracing::warn!(
                reason = event.reason(),
                regarding = %describe(&regarding),
                %error,
                "failed to record event; dropping it"
            );
        }
    }

    fn event_object(
        &self,
        name: &str,
        namespace: &str,
        regarding: &ObjectReference,
        event: &Event,
        time: Timestamp,
        series: Option<EventSeries>,
    ) -> KubeEvent {
        KubeEvent {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            },
            event_time: Some(MicroTime(time)),
            series,
            reporting_controller: Some(self.config.reporting_controller.clone()),
            reporting_instance: Some(self.config.reporting_instance.clone()),
            action: Some(event.action().to_owned()),
            reason: Some(event.reason().to_owned()),
            note: Some(event.note().to_owned()).filter(|n| !n.is_empty()),
            type_: Some(event.event_type().as_str().to_owned()),
            regarding: Some(regarding.clone()),
            related: event.related_object().cloned(),
            ..Default::default()
        }
    }

    async fn create(
        &self,
        events: &TypedClient<KubeEvent>,
        object: &KubeEvent,
    ) -> Result<(), ClientError> {
        self.with_retries(|| async {
            match events.create(object).await {
                Ok(_) => Ok(()),
                // A retry whose first attempt did land: the event is recorded.
                Err(error) if error.is_already_exists() => Ok(()),
                Err(error) => Err(error),
            }
        })
        .await
    }

    async fn bump(
        &self,
        events: &TypedClient<KubeEvent>,
        name: &str,
        count: i32,
        time: Timestamp,
    ) -> Result<(), ClientError> {
        let patch = json!({
            "series": { "count": count, "lastObservedTime": MicroTime(time) }
        });
        self.with_retries(|| async {
            events
                .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .map(|_| ())
        })
        .await
    }

    /// Retries transient failures (5xx, 429, transport) on the configured backoff;
    /// other errors are final.
    async fn with_retries<F, Fut>(&self, attempt: F) -> Result<(), ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<(), ClientError>>,
    {
        let retriable = |error: &ClientError| {
            let transient = error.is_transient();
            if transient {
                tracing::debug!(%error, "transient failure writing an event");
            }
            transient
        };
        retry_on_error(self.config.retry, retriable, attempt).await
    }
}

/// Events live in the namespace of the object they are about (`default` for
/// cluster-scoped objects).
fn event_namespace(regarding: &ObjectReference) -> String {
    regarding
        .namespace
        .clone()
        .filter(|ns| !ns.is_empty())
        .unwrap_or_else(|| CLUSTER_EVENTS_NAMESPACE.to_owned())
}

/// `<object name>.<hex timestamp>` as client-go names events, with the timestamp made
/// strictly increasing so two events in the same nanosecond do not collide.
fn unique_name(base: &str, last_stamp: &mut i128, time: Timestamp) -> String {
    let stamp = time.as_nanosecond().max(*last_stamp + 1);
    *last_stamp = stamp;
    let suffix = format!(".{stamp:x}");
    let mut base = if base.is_empty() { "event" } else { base };
    let room = MAX_NAME_LEN - suffix.len();
    if base.len() > room {
        let mut end = room;
        while !base.is_char_boundary(end) {
            end -= 1;
        }
        base = &base[..end];
    }
    format!("{base}{suffix}")
}

fn describe(reference: &ObjectReference) -> String {
    let kind = reference.kind.as_deref().unwrap_or_default();
    match (&reference.namespace, &reference.name) {
        (Some(ns), Some(name)) => format!("{kind} {ns}/{name}"),
        (None, Some(name)) => format!("{kind} {name}"),
        _ => kind.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_bounded() {
        let mut last = 0;
        let time = Timestamp::from_second(1_700_000_000).expect("a valid timestamp");
        let a = unique_name("web", &mut last, time);
        let b = unique_name("web", &mut last, time);
        assert_ne!(a, b);
        assert!(a.starts_with("web."));
        let long = "x".repeat(300);
        assert!(unique_name(&long, &mut last, time).len() <= MAX_NAME_LEN);
        assert!(unique_name("", &mut last, time).starts_with("event."));
    }

    #[test]
    fn cluster_scoped_objects_get_events_in_default() {
        let node = ObjectReference {
            kind: Some("Node".into()),
            name: Some("n1".into()),
            ..Default::default()
        };
        assert_eq!(event_namespace(&node), "default");
        assert_eq!(describe(&node), "Node n1");
    }
}
