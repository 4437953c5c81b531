//! The reflector's state machine driven by a scripted list/watch source on paused time.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::api::{ListParams, ObjectList, ObjectMeta, TypeMeta, WatchEvent, WatchParams};
use kube::core::Status;
use kube::core::response::StatusDetails;
use kube::core::watch::{Bookmark, BookmarkMeta};
use tokio::time::Instant;

use super::*;
use crate::store::Store;

pub(crate) fn cm(name: &str, rv: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("ns".into()),
            resource_version: Some(rv.into()),
            managed_fields: Some(vec![Default::default()]),
            ..Default::default()
        },
        ..Default::default()
    }
}

pub(crate) fn page(
    items: Vec<ConfigMap>,
    rv: &str,
    cont: Option<&str>,
) -> kube::Result<ObjectList<ConfigMap>> {
    Ok(ObjectList {
        types: TypeMeta {
            api_version: "v1".into(),
            kind: "ConfigMapList".into(),
        },
        metadata: ListMeta {
            resource_version: Some(rv.into()),
            continue_: cont.map(str::to_owned),
            ..Default::default()
        },
        items,
    })
}

pub(crate) fn status(code: u16, reason: &str, retry_after: u32) -> Box<Status> {
    let mut s = Status::failure("injected", reason).with_code(code);
    if retry_after > 0 {
        s.details = Some(StatusDetails {
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: Vec::new(),
            retry_after_seconds: retry_after,
        });
    }
    s.boxed()
}

pub(crate) fn bookmark(rv: &str, initial_end: bool) -> kube::Result<WatchEvent<ConfigMap>> {
    let mut annotations = BTreeMap::new();
    if initial_end {
        annotations.insert(INITIAL_EVENTS_END.to_string(), "true".to_string());
    }
    Ok(WatchEvent::Bookmark(Bookmark {
        types: TypeMeta {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
        },
        metadata: BookmarkMeta {
            resource_version: rv.into(),
            annotations,
        },
    }))
}

/// A watch script: a failure to open, or events followed by a close or by silence.
pub(crate) enum WatchScript {
    Fail(kube::Error),
    Events {
        events: Vec<kube::Result<WatchEvent<ConfigMap>>>,
        close: bool,
    },
    /// Events pushed by the test while it runs; the watch closes when the sender drops.
    Live(tokio::sync::mpsc::UnboundedReceiver<kube::Result<WatchEvent<ConfigMap>>>),
    /// The request is never answered (a dead connection).
    Stall,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Call {
    List {
        limit: Option<u32>,
        continue_token: Option<String>,
    },
    Watch {
        rv: String,
        timeout: Option<u32>,
        initial_events: bool,
        bookmarks: bool,
    },
}

#[derive(Default)]
pub(crate) struct Script {
    pub(crate) lists: Mutex<VecDeque<kube::Result<ObjectList<ConfigMap>>>>,
    /// How many of the next list calls are never answered (a dead connection).
    pub(crate) stalled_lists: Mutex<usize>,
    pub(crate) watches: Mutex<VecDeque<WatchScript>>,
    pub(crate) calls: Mutex<Vec<Call>>,
}

impl ListerWatcher<ConfigMap> for Arc<Script> {
    fn list<'a>(
        &'a self,
        lp: &'a ListParams,
    ) -> BoxFuture<'a, kube::Result<ObjectList<ConfigMap>>> {
        self.calls.lock().unwrap().push(Call::List {
            limit: lp.limit,
            continue_token: lp.continue_token.clone(),
        });
        let mut stalled = self.stalled_lists.lock().unwrap();
        if *stalled > 0 {
            *stalled -= 1;
            return futures::future::pending().boxed();
        }
        let next = self
            .lists
            .lock()
            .unwrap()
            .pop_front()
            .expect("unscripted list");
        async move { next }.boxed()
    }

    fn watch<'a>(
        &'a self,
        wp: &'a WatchParams,
        rv: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<ConfigMap>>> {
        self.calls.lock().unwrap().push(Call::Watch {
            rv: rv.into(),
            timeout: wp.timeout,
            initial_events: wp.send_initial_events,
            bookmarks: wp.bookmarks,
        });
        let next = self
            .watches
            .lock()
            .unwrap()
            .pop_front()
            .expect("unscripted watch");
        async move {
            match next {
                WatchScript::Stall => futures::future::pending().await,
                WatchScript::Fail(e) => Err(e),
                WatchScript::Live(rx) => Ok(tokio_stream_from(rx)),
                WatchScript::Events {
                    events,
                    close: true,
                } => Ok(futures::stream::iter(events).boxed()),
                WatchScript::Events {
                    events,
                    close: false,
                } => Ok(futures::stream::iter(events)
                    .chain(futures::stream::pending())
                    .boxed()),
            }
        }
        .boxed()
    }
}

pub(crate) fn rvs(store: &Store<ConfigMap>) -> BTreeMap<String, String> {
    store
        .list()
        .iter()
        .map(|o| {
            (
                o.metadata.name.clone().unwrap(),
                o.metadata.resource_version.clone().unwrap(),
            )
        })
        .collect()
}

pub(crate) fn expect(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

type Errors = Arc<Mutex<Vec<String>>>;

fn reflector(
    script: &Arc<Script>,
    config: ReflectorConfig<ConfigMap>,
) -> (
    Reflector<ConfigMap, StoreWriter<ConfigMap>>,
    Store<ConfigMap>,
    Errors,
) {
    let (store, writer) = Store::new();
    let errors: Errors = Arc::default();
    let sink = errors.clone();
    let config = config.error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    (
        Reflector::new(script.clone(), writer, config),
        store,
        errors,
    )
}

async fn run_steps(
    r: &mut Reflector<ConfigMap, StoreWriter<ConfigMap>>,
    mut state: State<ConfigMap>,
    n: usize,
) -> State<ConfigMap> {
    for _ in 0..n {
        state = r.step(state).await;
    }
    state
}

#[tokio::test(start_paused = true)]
async fn lists_in_pages_then_watches_from_the_list_version() {
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        page(vec![cm("a", "1")], "10", Some("t1")),
        page(vec![cm("b", "2")], "10", None),
    ]);
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Events {
            events: vec![
                Ok(WatchEvent::Added(cm("c", "11"))),
                Ok(WatchEvent::Modified(cm("a", "12"))),
            ],
            close: false,
        });
    let (mut r, store, errors) = reflector(&script, ReflectorConfig::default());
    let state = run_steps(&mut r, State::Empty, 1).await;
    assert!(matches!(&state, State::Synced { resource_version } if resource_version == "10"));
    assert_eq!(rvs(&store), expect(&[("a", "1"), ("b", "2")]));
    let state = run_steps(&mut r, state, 3).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "12"));
    assert_eq!(rvs(&store), expect(&[("a", "12"), ("b", "2"), ("c", "11")]));

    let calls = script.calls.lock().unwrap().clone();
    assert_eq!(
        calls[0],
        Call::List {
            limit: Some(500),
            continue_token: None
        }
    );
    assert_eq!(
        calls[1],
        Call::List {
            limit: Some(500),
            continue_token: Some("t1".into())
        }
    );
    let Call::Watch {
        rv,
        timeout: Some(timeout),
        initial_events: false,
        bookmarks: true,
    } = &calls[2]
    else {
        panic!("unexpected {:?}", calls[2]);
    };
    assert_eq!(rv, "10");
    assert!((300..600).contains(timeout), "timeout {timeout}");
    assert!(errors.lock().unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn managed_fields_are_kept_when_asked() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "10", None));
    let config = ReflectorConfig::default().keep_managed_fields(true);
    let (mut r, store, _) = reflector(&script, config);
    run_steps(&mut r, State::Empty, 1).await;
    assert!(
        store
            .list()
            .iter()
            .all(|o| o.metadata.managed_fields.is_some())
    );
}

#[tokio::test(start_paused = true)]
async fn closed_watch_resumes_from_last_bookmark_without_relisting() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "5", None));
    script.watches.lock().unwrap().extend([
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Added(cm("b", "6"))), bookmark("9", false)],
            close: true,
        },
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Deleted(cm("a", "10")))],
            close: false,
        },
    ]);
    let (mut r, store, _) = reflector(&script, ReflectorConfig::default());
    // list, watch, event, bookmark, close -> Synced{9}, watch, delete
    let state = run_steps(&mut r, State::Empty, 7).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "10"));
    assert_eq!(rvs(&store), expect(&[("b", "6")]));
    let calls = script.calls.lock().unwrap().clone();
    assert!(
        matches!(&calls[2], Call::Watch { rv, .. } if rv == "9"),
        "{calls:?}"
    );
    assert_eq!(
        calls
            .iter()
            .filter(|c| matches!(c, Call::List { .. }))
            .count(),
        1
    );
}

#[tokio::test(start_paused = true)]
async fn gone_relists_and_drops_objects_deleted_meanwhile() {
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        page(vec![cm("a", "1"), cm("b", "2")], "2", None),
        page(vec![cm("b", "7"), cm("c", "8")], "8", None),
    ]);
    script.watches.lock().unwrap().extend([
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Error(status(410, "Expired", 0)))],
            close: false,
        },
        WatchScript::Events {
            events: vec![],
            close: false,
        },
    ]);
    let (mut r, store, errors) = reflector(&script, ReflectorConfig::default());
    let state = run_steps(&mut r, State::Empty, 3).await;
    assert!(
        matches!(&state, State::Backoff { then, .. } if matches!(**then, State::Empty)),
        "{state:?}"
    );
    let state = run_steps(&mut r, state, 3).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "8"));
    assert_eq!(rvs(&store), expect(&[("b", "7"), ("c", "8")]));
    assert_eq!(errors.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn watch_open_gone_relists() {
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        page(vec![], "2", None),
        page(vec![cm("x", "30")], "30", None),
    ]);
    script.watches.lock().unwrap().extend([
        WatchScript::Fail(kube::Error::Api(status(410, "Gone", 0))),
        WatchScript::Events {
            events: vec![],
            close: false,
        },
    ]);
    let (mut r, store, _) = reflector(&script, ReflectorConfig::default());
    let state = run_steps(&mut r, State::Empty, 5).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "30"));
    assert_eq!(rvs(&store), expect(&[("x", "30")]));
}

#[tokio::test(start_paused = true)]
async fn errors_back_off_exponentially_and_honour_retry_after() {
    let script = Arc::new(Script::default());
    script.lists.lock().unwrap().extend([
        Err(kube::Error::Api(status(500, "InternalError", 0))),
        Err(kube::Error::Api(status(500, "InternalError", 0))),
        Err(kube::Error::Api(status(429, "TooManyRequests", 20))),
        page(vec![cm("a", "1")], "1", None),
    ]);
    let (mut r, store, errors) = reflector(&script, ReflectorConfig::default());
    let mut state = State::Empty;
    let mut waits = Vec::new();
    for _ in 0..3 {
        state = r.step(state).await;
        let State::Backoff { until, .. } = &state else {
            panic!("expected backoff, got {state:?}")
        };
        waits.push(until.duration_since(Instant::now()));
        state = r.step(state).await;
    }
    assert!(
        waits[0] >= Duration::from_millis(800) && waits[0] < Duration::from_millis(1600),
        "{waits:?}"
    );
    assert!(
        waits[1] >= Duration::from_millis(1600) && waits[1] < Duration::from_millis(3200),
        "{waits:?}"
    );
    assert!(waits[2] >= Duration::from_secs(20), "{waits:?}");
    let state = r.step(state).await;
    assert!(matches!(state, State::Synced { .. }));
    assert_eq!(rvs(&store), expect(&[("a", "1")]));
    let errors = errors.lock().unwrap();
    assert_eq!(errors.len(), 3);
    assert!(errors[0].contains("failed to list"), "{errors:?}");
}

#[tokio::test(start_paused = true)]
async fn stream_errors_resume_from_last_version_after_backoff() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![], "3", None));
    script.watches.lock().unwrap().extend([
        WatchScript::Events {
            events: vec![
                Ok(WatchEvent::Added(cm("a", "4"))),
                Err(kube::Error::Api(status(500, "InternalError", 0))),
            ],
            close: false,
        },
        WatchScript::Events {
            events: vec![],
            close: false,
        },
    ]);
    let (mut r, _store, errors) = reflector(&script, ReflectorConfig::default());
    let state = run_steps(&mut r, State::Empty, 6).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "4"));
    let calls = script.calls.lock().unwrap().clone();
    assert!(
        matches!(&calls[2], Call::Watch { rv, .. } if rv == "4"),
        "{calls:?}"
    );
    assert_eq!(errors.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn very_short_empty_watches_back_off() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![], "3", None));
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Events {
            events: vec![],
            close: true,
        });
    let (mut r, _store, _) = reflector(&script, ReflectorConfig::default());
    let state = run_steps(&mut r, State::Empty, 3).await;
    assert!(
        matches!(&state, State::Backoff { then, .. } if matches!(**then, State::Synced { .. })),
        "{state:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn streaming_initial_list_replaces_at_the_end_bookmark_and_keeps_watching() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("stale", "1")], "1", None));
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Events {
            events: vec![
                Ok(WatchEvent::Added(cm("a", "3"))),
                Ok(WatchEvent::Added(cm("b", "4"))),
                bookmark("5", false),
                bookmark("6", true),
                Ok(WatchEvent::Modified(cm("a", "7"))),
            ],
            close: false,
        });
    let config = ReflectorConfig::default()
        .streaming_initial_list(true)
        .transform(|mut cm: ConfigMap| {
            cm.metadata.labels = Some([("seen".to_owned(), "yes".to_owned())].into());
            cm
        });
    let (mut r, store, _) = reflector(&script, config);
    // Pre-populate with something the stream must replace.
    let state = run_steps(&mut r, State::Empty, 1).await;
    assert!(matches!(state, State::StreamingList { .. }));
    let state = run_steps(&mut r, state, 3).await;
    assert!(
        store.is_empty(),
        "nothing is cached before the end bookmark"
    );
    let state = run_steps(&mut r, state, 1).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "6"));
    assert_eq!(rvs(&store), expect(&[("a", "3"), ("b", "4")]));
    let _state = run_steps(&mut r, state, 1).await;
    assert_eq!(rvs(&store), expect(&[("a", "7"), ("b", "4")]));
    assert!(
        store
            .list()
            .iter()
            .all(|o| o.metadata.managed_fields.is_none() && o.metadata.labels.is_some()),
        "managedFields dropped by default, then the transform applied"
    );
    let calls = script.calls.lock().unwrap().clone();
    assert!(
        matches!(&calls[0], Call::Watch { rv, initial_events: true, bookmarks: true, .. } if rv.is_empty())
    );
    assert_eq!(
        script.lists.lock().unwrap().len(),
        1,
        "no list call was made"
    );
}

#[tokio::test(start_paused = true)]
async fn refused_streaming_list_falls_back_to_list() {
    let script = Arc::new(Script::default());
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Fail(kube::Error::Api(status(
            422, "Invalid", 0,
        ))));
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "1", None));
    let (mut r, store, _) = reflector(
        &script,
        ReflectorConfig::default().streaming_initial_list(true),
    );
    let state = run_steps(&mut r, State::Empty, 2).await;
    assert!(matches!(state, State::Synced { .. }));
    assert_eq!(rvs(&store), expect(&[("a", "1")]));
}

#[tokio::test(start_paused = true)]
async fn run_stops_when_told() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "1", None));
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Events {
            events: vec![],
            close: false,
        });
    let (r, store, _) = reflector(&script, ReflectorConfig::default());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(r.run(async move {
        let _ = stop_rx.await;
    }));
    while script.calls.lock().unwrap().len() < 2 {
        tokio::task::yield_now().await;
    }
    stop_tx.send(()).unwrap();
    task.await.unwrap();
    assert_eq!(store.len(), 1);
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<kube::Result<WatchEvent<ConfigMap>>>,
) -> WatchStream<ConfigMap> {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}

/// The error messages the reflector reported.
fn reported(errors: &Errors) -> Vec<String> {
    errors.lock().unwrap().clone()
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_list_is_given_up_after_the_request_timeout_and_retried() {
    let script = Arc::new(Script::default());
    *script.stalled_lists.lock().unwrap() = 1;
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "1", None));
    let config = ReflectorConfig::default().request_timeout(Duration::from_secs(5));
    let (mut r, store, errors) = reflector(&script, config);
    let asked = Instant::now();
    let state = r.step(State::Empty).await;
    assert_eq!(asked.elapsed(), Duration::from_secs(5));
    assert!(
        matches!(&state, State::Backoff { then, .. } if matches!(**then, State::Empty)),
        "{state:?}"
    );
    assert_eq!(
        reported(&errors),
        ["reflector reflector: a list request got no answer within 5s"]
    );
    let state = run_steps(&mut r, state, 2).await;
    assert!(matches!(&state, State::Synced { resource_version } if resource_version == "1"));
    assert_eq!(rvs(&store), expect(&[("a", "1")]));
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_watch_is_given_up_and_reopened_from_the_same_version() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![], "7", None));
    script.watches.lock().unwrap().extend([
        WatchScript::Stall,
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Added(cm("a", "8")))],
            close: false,
        },
    ]);
    let config = ReflectorConfig::default().request_timeout(Duration::from_secs(5));
    let (mut r, store, errors) = reflector(&script, config);
    let state = run_steps(&mut r, State::Empty, 2).await;
    assert!(
        matches!(&state, State::Backoff { then, .. }
            if matches!(&**then, State::Synced { resource_version } if resource_version == "7")),
        "{state:?}"
    );
    assert_eq!(
        reported(&errors),
        ["reflector reflector: a watch request got no answer within 5s"]
    );
    let state = run_steps(&mut r, state, 3).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "8"));
    assert_eq!(rvs(&store), expect(&[("a", "8")]));
    let calls = script.calls.lock().unwrap().clone();
    let watched_from: Vec<_> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Watch { rv, .. } => Some(rv.as_str()),
            Call::List { .. } => None,
        })
        .collect();
    assert_eq!(watched_from, ["7", "7"], "no relist: {calls:?}");
}

#[tokio::test(start_paused = true)]
async fn a_watch_open_past_its_server_timeout_is_abandoned_and_resumed() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![], "3", None));
    script.watches.lock().unwrap().extend([
        // The server never closes it: past timeoutSeconds the connection is dead.
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Added(cm("a", "4")))],
            close: false,
        },
        WatchScript::Events {
            events: vec![],
            close: false,
        },
    ]);
    let config = ReflectorConfig::default()
        .min_watch_timeout(Duration::from_secs(10))
        .request_timeout(Duration::from_secs(5));
    let (mut r, store, errors) = reflector(&script, config);
    let state = run_steps(&mut r, State::Empty, 3).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "4"));
    let opened = Instant::now();
    let state = r.step(state).await;
    let Some(Call::Watch {
        timeout: Some(asked),
        ..
    }) = script.calls.lock().unwrap().get(1).cloned()
    else {
        panic!("the watch asked for no timeout")
    };
    assert_eq!(
        opened.elapsed(),
        Duration::from_secs(u64::from(asked) + 5),
        "given up at timeoutSeconds plus the request timeout"
    );
    assert!(
        matches!(&state, State::Backoff { then, .. }
            if matches!(&**then, State::Synced { resource_version } if resource_version == "4")),
        "{state:?}"
    );
    assert_eq!(
        reported(&errors),
        ["reflector reflector: an open watch past its timeoutSeconds got no answer within 5s"]
    );
    let state = run_steps(&mut r, state, 2).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "4"));
    assert_eq!(rvs(&store), expect(&[("a", "4")]));
}

#[tokio::test(start_paused = true)]
async fn without_a_request_timeout_nothing_is_given_up() {
    let script = Arc::new(Script::default());
    *script.stalled_lists.lock().unwrap() = 1;
    let config = ReflectorConfig::default().request_timeout(Duration::ZERO);
    let (mut r, _store, errors) = reflector(&script, config);
    let waited = tokio::time::timeout(Duration::from_secs(3600), r.step(State::Empty)).await;
    assert!(waited.is_err(), "the list was given up");
    assert!(reported(&errors).is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_past_its_server_timeout_is_abandoned_and_started_over() {
    let script = Arc::new(Script::default());
    script.watches.lock().unwrap().extend([
        // The initial events never end, and the server never closes the watch.
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Added(cm("a", "1")))],
            close: false,
        },
        WatchScript::Events {
            events: vec![Ok(WatchEvent::Added(cm("a", "1"))), bookmark("1", true)],
            close: false,
        },
    ]);
    let config = ReflectorConfig::default()
        .streaming_initial_list(true)
        .request_timeout(Duration::from_secs(5));
    let (mut r, store, errors) = reflector(&script, config);
    let state = run_steps(&mut r, State::Empty, 3).await;
    assert!(
        matches!(&state, State::Backoff { then, .. } if matches!(**then, State::Empty)),
        "{state:?}"
    );
    assert!(store.list().is_empty(), "a partial initial list was cached");
    assert_eq!(
        reported(&errors),
        ["reflector reflector: an open watch past its timeoutSeconds got no answer within 5s"]
    );
    let state = run_steps(&mut r, state, 4).await;
    assert!(matches!(&state, State::Watching { resource_version, .. } if resource_version == "1"));
    assert_eq!(rvs(&store), expect(&[("a", "1")]));
}

/// Each `synced_to` version, with the object names in the store at that moment.
type SyncedLog = Arc<Mutex<Vec<(String, Vec<String>)>>>;

/// A store writer that records each `synced_to`.
struct SyncedTo {
    writer: StoreWriter<ConfigMap>,
    synced: SyncedLog,
}

impl DeltaSink<ConfigMap> for SyncedTo {
    fn apply(&mut self, delta: Delta<ConfigMap>) {
        DeltaSink::apply(&mut self.writer, delta);
    }
    fn replace(&mut self, objects: Vec<Arc<ConfigMap>>) {
        DeltaSink::replace(&mut self.writer, objects);
    }
    fn synced_to(&mut self, resource_version: &str) {
        let names: Vec<String> = rvs(&self.writer.store()).into_keys().collect();
        self.synced
            .lock()
            .unwrap()
            .push((resource_version.to_owned(), names));
    }
    fn len(&self) -> usize {
        self.writer.store().len()
    }
}

#[tokio::test(start_paused = true)]
async fn the_sink_hears_each_version_once_its_change_is_applied_bookmarks_included() {
    let script = Arc::new(Script::default());
    script
        .lists
        .lock()
        .unwrap()
        .push_back(page(vec![cm("a", "1")], "5", None));
    script
        .watches
        .lock()
        .unwrap()
        .push_back(WatchScript::Events {
            events: vec![
                Ok(WatchEvent::Added(cm("b", "6"))),
                bookmark("9", false),
                Ok(WatchEvent::Deleted(cm("a", "10"))),
            ],
            close: false,
        });
    let (_, writer) = Store::new();
    let synced = SyncedLog::default();
    let sink = SyncedTo {
        writer,
        synced: Arc::clone(&synced),
    };
    let mut r = Reflector::new(script.clone(), sink, ReflectorConfig::default());
    let mut state = State::Empty;
    // list, watch, three events
    for _ in 0..5 {
        state = r.step(state).await;
    }
    let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        *synced.lock().unwrap(),
        [
            ("5".to_owned(), names(&["a"])),
            ("6".to_owned(), names(&["a", "b"])),
            ("9".to_owned(), names(&["a", "b"])),
            ("10".to_owned(), names(&["b"])),
        ]
    );
}
