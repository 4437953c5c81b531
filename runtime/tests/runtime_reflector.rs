//! Reflector and informer caches against the testkit API server under fault schedules:
//! dropped watches, 410 after compaction, 500s and 429s during list and watch, deletes
//! while the watch is down, updates racing relists. After each schedule the cache holds
//! exactly the server's objects (key -> resourceVersion maps compared).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::informer::{HandlerFns, InformerConfig, SharedInformer, wait_for_cache_sync};
use kubegen_runtime::key::ObjectKey;
use kubegen_runtime::metrics::informer::{ReflectorMetrics, WatchEventKind};
use kubegen_runtime::reflector::{DEFAULT_BACKOFF, Delta, DeltaSink, Reflector, ReflectorConfig};
use kubegen_runtime::store::{Store, StoreWriter};
use kubegen_testkit::{ApiServer, Delay, Failure, Matcher, Verb};
use serde_json::json;
use tokio::sync::Notify;

const NS: &str = "default";

fn fast_backoff() -> Backoff {
    Backoff {
        duration: Duration::from_millis(20),
        cap: Some(Duration::from_millis(200)),
        ..DEFAULT_BACKOFF
    }
}

fn client_without_retry(server: &ApiServer) -> kube::Client {
    let mut config = kube::Config::new(server.url().parse().unwrap());
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

#[derive(Default)]
struct Counts {
    lists: AtomicUsize,
    watches: AtomicUsize,
    relists: AtomicUsize,
    events: AtomicUsize,
    backoffs: AtomicUsize,
    store_size: AtomicUsize,
    last_rv: Mutex<String>,
}

impl ReflectorMetrics for Counts {
    fn list_completed(&self, _items: usize, _duration: Duration) {
        self.lists.fetch_add(1, Ordering::SeqCst);
    }
    fn watch_started(&self) {
        self.watches.fetch_add(1, Ordering::SeqCst);
    }
    fn watch_event(&self, _kind: WatchEventKind) {
        self.events.fetch_add(1, Ordering::SeqCst);
    }
    fn relist(&self) {
        self.relists.fetch_add(1, Ordering::SeqCst);
    }
    fn last_resource_version(&self, rv: &str) {
        *self.last_rv.lock().unwrap() = rv.to_owned();
    }
    fn store_size(&self, objects: usize) {
        self.store_size.store(objects, Ordering::SeqCst);
    }
    fn backoff(&self, _delay: Duration) {
        self.backoffs.fetch_add(1, Ordering::SeqCst);
    }
}

type Rvs = BTreeMap<String, String>;

fn rvs_of<'a>(objects: impl IntoIterator<Item = &'a ConfigMap>) -> Rvs {
    objects
        .into_iter()
        .map(|o| {
            (
                ObjectKey::of(o).to_string(),
                o.metadata.resource_version.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn store_rvs(store: &Store<ConfigMap>) -> Rvs {
    rvs_of(store.list().iter().map(|o| o.as_ref()))
}

async fn server_rvs(client: &kube::Client) -> Rvs {
    let list = Api::<ConfigMap>::all(client.clone())
        .list(&ListParams::default())
        .await
        .unwrap();
    rvs_of(&list.items)
}

/// An informer on configmaps whose handler records tombstones and wakes `changed`.
struct Harness {
    server: ApiServer,
    informer: SharedInformer<ConfigMap>,
    changed: Arc<Notify>,
    tombstones: Arc<Mutex<Rvs>>,
    errors: Arc<Mutex<Vec<String>>>,
    throttled: Arc<Mutex<Vec<Option<Duration>>>>,
    metrics: Arc<Counts>,
}

impl Harness {
    async fn new(
        configure: impl FnOnce(ReflectorConfig<ConfigMap>) -> ReflectorConfig<ConfigMap>,
    ) -> Self {
        let server = ApiServer::start().await.unwrap();
        Self::with_server(server, configure)
    }

    fn with_server(
        server: ApiServer,
        configure: impl FnOnce(ReflectorConfig<ConfigMap>) -> ReflectorConfig<ConfigMap>,
    ) -> Self {
        let metrics = Arc::new(Counts::default());
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let throttled: Arc<Mutex<Vec<Option<Duration>>>> = Arc::default();
        let (e, t) = (errors.clone(), throttled.clone());
        let reflector = configure(
            ReflectorConfig::default()
                .name("configmaps")
                .backoff(fast_backoff())
                .metrics(metrics.clone())
                .error_handler(move |err| {
                    e.lock().unwrap().push(err.to_string());
                    if err.is_too_many_requests() {
                        t.lock().unwrap().push(err.retry_after());
                    }
                }),
        );
        let api = Api::<ConfigMap>::all(client_without_retry(&server));
        let informer = SharedInformer::new(api, InformerConfig::default().reflector(reflector));
        let changed = Arc::new(Notify::new());
        let tombstones: Arc<Mutex<Rvs>> = Arc::default();
        let (c1, c2, c3, tomb) = (
            changed.clone(),
            changed.clone(),
            changed.clone(),
            tombstones.clone(),
        );
        informer.add_event_handler(
            HandlerFns::<ConfigMap>::new()
                .on_add(move |_, _| c1.notify_one())
                .on_update(move |_, _| c2.notify_one())
                .on_delete(move |gone| {
                    if gone.is_final_state_unknown() {
                        let o = gone.object();
                        tomb.lock().unwrap().insert(
                            ObjectKey::of(o.as_ref()).to_string(),
                            o.metadata.resource_version.clone().unwrap_or_default(),
                        );
                    }
                    c3.notify_one();
                }),
        );
        Self {
            server,
            informer,
            changed,
            tombstones,
            errors,
            throttled,
            metrics,
        }
    }

    fn api(&self) -> Api<ConfigMap> {
        Api::namespaced(self.server.client(), NS)
    }

    async fn start(&self) {
        self.informer.start();
        assert!(
            wait_for_cache_sync(Duration::from_secs(30), &[&self.informer]).await,
            "informer did not sync; errors: {:?}",
            self.errors.lock().unwrap()
        );
    }

    /// Waits until the cache equals the server's state, re-checking after every event.
    async fn converge(&self) {
        let client = self.server.client();
        let result = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let server = server_rvs(&client).await;
                if store_rvs(&self.informer.store()) == server {
                    return server;
                }
                self.changed.notified().await;
            }
        })
        .await;
        match result {
            Ok(_) => {}
            Err(_) => panic!(
                "cache did not converge:\n cache  {:?}\n server {:?}\n errors {:?}",
                store_rvs(&self.informer.store()),
                server_rvs(&client).await,
                self.errors.lock().unwrap()
            ),
        }
    }

    async fn shutdown(self) {
        self.informer.shutdown().await;
        self.server.shutdown().await;
    }
}

fn cm(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some([("v".to_string(), value.to_string())].into()),
        ..Default::default()
    }
}

async fn create_n(api: &Api<ConfigMap>, prefix: &str, n: usize) {
    for i in 0..n {
        api.create(&PostParams::default(), &cm(&format!("{prefix}-{i}"), "0"))
            .await
            .unwrap();
    }
}

async fn set(api: &Api<ConfigMap>, name: &str, value: &str) {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"v": value}})),
    )
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_watches_resume_from_the_last_version_without_relisting() {
    let h = Harness::new(|c| c).await;
    let api = h.api();
    create_n(&api, "cm", 20).await;
    h.start().await;
    h.converge().await;
    for round in 0..3 {
        h.server.faults().drop_watches();
        set(&api, &format!("cm-{round}"), "changed").await;
        api.create(&PostParams::default(), &cm(&format!("new-{round}"), "1"))
            .await
            .unwrap();
        api.delete(&format!("cm-{}", 10 + round), &DeleteParams::default())
            .await
            .unwrap();
        h.converge().await;
    }
    assert_eq!(
        h.metrics.relists.load(Ordering::SeqCst),
        0,
        "no relist was needed"
    );
    assert_eq!(h.metrics.lists.load(Ordering::SeqCst), 1);
    // Round 0 may drop before the first watch opened; rounds 1 and 2 drop an open one.
    assert!(h.metrics.watches.load(Ordering::SeqCst) >= 3);
    assert!(
        h.tombstones.lock().unwrap().is_empty(),
        "deletes were seen on the watch"
    );
    // Once the reflector has stopped, its last metric calls are visible.
    h.informer.shutdown().await;
    let last: u64 = h.metrics.last_rv.lock().unwrap().parse().unwrap();
    assert_eq!(last, h.server.resource_version());
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_while_the_watch_is_down_become_tombstones_after_410_relist() {
    let h = Harness::new(|c| c).await;
    let api = h.api();
    create_n(&api, "cm", 10).await;
    h.start().await;
    h.converge().await;
    let before = store_rvs(&h.informer.store());

    h.server.faults().pause_watches();
    for i in 0..3 {
        api.delete(&format!("cm-{i}"), &DeleteParams::default())
            .await
            .unwrap();
    }
    set(&api, "cm-5", "x").await;
    set(&api, "cm-6", "y").await;
    create_n(&api, "late", 2).await;
    h.server.faults().compact();
    h.server.faults().drop_watches();
    h.server.faults().resume_watches();
    h.converge().await;

    assert!(
        h.metrics.relists.load(Ordering::SeqCst) >= 1,
        "the 410 forced a relist"
    );
    // The cache is updated before handlers run: wait for the handler to see them.
    tokio::time::timeout(Duration::from_secs(30), async {
        while h.tombstones.lock().unwrap().len() < 3 {
            h.changed.notified().await;
        }
    })
    .await
    .expect("three tombstones delivered");
    let expected: Rvs = (0..3)
        .map(|i| {
            let key = format!("{NS}/cm-{i}");
            let rv = before[&key].clone();
            (key, rv)
        })
        .collect();
    assert_eq!(
        *h.tombstones.lock().unwrap(),
        expected,
        "tombstones carry the last known state"
    );
    assert!(
        h.errors
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.contains("410") || e.contains("Expired") || e.contains("watch"))
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_500s_and_429s_back_off_honour_retry_after_then_sync() {
    let h = Harness::new(|c| c).await;
    create_n(&h.api(), "cm", 7).await;
    let list = Matcher::any().verb(Verb::List).resource("configmaps");
    h.server
        .faults()
        .fail(Failure::status(500).times(2).matching(list.clone()));
    h.server.faults().fail(
        Failure::status(429)
            .retry_after(Duration::from_secs(1))
            .matching(list),
    );
    let started = tokio::time::Instant::now();
    h.start().await;
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After was honoured"
    );
    h.converge().await;
    assert_eq!(
        h.errors.lock().unwrap().len(),
        3,
        "{:?}",
        h.errors.lock().unwrap()
    );
    assert_eq!(*h.throttled.lock().unwrap(), [Some(Duration::from_secs(1))]);
    assert_eq!(h.metrics.backoffs.load(Ordering::SeqCst), 3);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_500s_and_429s_back_off_and_resume() {
    let h = Harness::new(|c| c).await;
    let api = h.api();
    create_n(&api, "cm", 5).await;
    h.start().await;
    let watch = Matcher::any().verb(Verb::Watch).resource("configmaps");
    h.server
        .faults()
        .fail(Failure::status(500).times(2).matching(watch.clone()));
    h.server.faults().fail(
        Failure::status(429)
            .retry_after(Duration::from_secs(1))
            .matching(watch),
    );
    h.server.faults().drop_watches();
    set(&api, "cm-1", "during-outage").await;
    api.delete("cm-2", &DeleteParams::default()).await.unwrap();
    h.converge().await;
    assert!(
        h.errors.lock().unwrap().len() >= 3,
        "{:?}",
        h.errors.lock().unwrap()
    );
    assert_eq!(*h.throttled.lock().unwrap(), [Some(Duration::from_secs(1))]);
    assert_eq!(h.metrics.relists.load(Ordering::SeqCst), 0);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_racing_relists_converge() {
    let h = Harness::new(|c| c).await;
    let api = h.api();
    create_n(&api, "cm", 30).await;
    h.start().await;
    // Slow lists widen the window in which writes land between list and watch.
    h.server.faults().delay(
        Delay::new(Duration::from_millis(30))
            .matching(Matcher::any().verb(Verb::List).resource("configmaps")),
    );
    let writer = {
        let api = api.clone();
        let faults = h.server.faults();
        tokio::spawn(async move {
            for i in 0..150usize {
                if i % 20 == 10 {
                    // Force a 410 relist in the middle of the writes: with delivery paused,
                    // the reflector has not seen this write, so the version it re-watches
                    // from is older than the compaction (a caught-up reflector would get
                    // no 410, and the relist would depend on timing).
                    faults.pause_watches();
                    let _ = api
                        .patch(
                            &format!("cm-{}", i % 30),
                            &PatchParams::default(),
                            &Patch::Merge(json!({"data": {"held": i.to_string()}})),
                        )
                        .await
                        .expect("cm-0, cm-10 and cm-20 are never deleted");
                    faults.compact();
                    faults.drop_watches();
                    faults.resume_watches();
                }
                let name = format!("cm-{}", i % 30);
                match i % 10 {
                    3 => {
                        let _ = api.delete(&name, &DeleteParams::default()).await;
                    }
                    7 => {
                        let _ = api
                            .create(&PostParams::default(), &cm(&name, "recreated"))
                            .await;
                    }
                    _ => {
                        let _ = api
                            .patch(
                                &name,
                                &PatchParams::default(),
                                &Patch::Merge(json!({"data": {"v": i.to_string()}})),
                            )
                            .await;
                    }
                }
            }
        })
    };
    writer.await.unwrap();
    h.server.faults().clear();
    h.converge().await;
    assert!(h.metrics.relists.load(Ordering::SeqCst) >= 1);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_initial_list_syncs_without_list_calls() {
    let h = Harness::new(|c| c.streaming_initial_list(true)).await;
    let api = h.api();
    create_n(&api, "cm", 12).await;
    h.start().await;
    h.converge().await;
    set(&api, "cm-3", "after").await;
    h.converge().await;
    assert_eq!(
        h.metrics.lists.load(Ordering::SeqCst),
        0,
        "no list request was made"
    );
    assert!(
        h.errors.lock().unwrap().is_empty(),
        "{:?}",
        h.errors.lock().unwrap()
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_and_transform_shape_the_cache() {
    let server = ApiServer::start().await.unwrap();
    let api = Api::<ConfigMap>::namespaced(server.client(), NS);
    for (name, app) in [("a", "web"), ("b", "db"), ("c", "web")] {
        let mut object = cm(name, "payload");
        object.metadata.labels = Some([("app".to_string(), app.to_string())].into());
        api.create(&PostParams::default(), &object).await.unwrap();
    }
    let informer = SharedInformer::new(
        Api::<ConfigMap>::all(server.client()),
        InformerConfig::default().reflector(
            ReflectorConfig::default()
                .label_selector("app=web")
                .field_selector("metadata.namespace=default")
                .transform(|mut cm: ConfigMap| {
                    cm.data = None;
                    cm
                }),
        ),
    );
    informer.start();
    informer.wait_for_sync().await;
    let mut names: Vec<_> = informer
        .store()
        .list()
        .iter()
        .map(|o| o.metadata.name.clone().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "c"]);
    assert!(informer.store().list().iter().all(|o| o.data.is_none()));
    informer.shutdown().await;
    server.shutdown().await;
}

/// A sink that wakes the test after every change, around a plain `StoreWriter`.
struct NotifyingSink {
    writer: StoreWriter<ConfigMap>,
    changed: Arc<Notify>,
}

impl DeltaSink<ConfigMap> for NotifyingSink {
    fn apply(&mut self, delta: Delta<ConfigMap>) {
        DeltaSink::apply(&mut self.writer, delta);
        self.changed.notify_one();
    }
    fn replace(&mut self, objects: Vec<Arc<ConfigMap>>) {
        DeltaSink::replace(&mut self.writer, objects);
        self.changed.notify_one();
    }
    fn len(&self) -> usize {
        DeltaSink::len(&self.writer)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_reflector_mirrors_into_a_store_in_pages() {
    let server = ApiServer::start().await.unwrap();
    let api = Api::<ConfigMap>::namespaced(server.client(), NS);
    create_n(&api, "cm", 25).await;
    let (store, writer) = Store::<ConfigMap>::new();
    let changed = Arc::new(Notify::new());
    let sink = NotifyingSink {
        writer,
        changed: changed.clone(),
    };
    let metrics = Arc::new(Counts::default());
    // Pages of 4: 25 objects end on a page of one.
    let reflector = Reflector::new(
        Api::<ConfigMap>::all(server.client()),
        sink,
        ReflectorConfig::default()
            .page_size(4)
            .metrics(metrics.clone()),
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(reflector.run(async move {
        let _ = stopped.await;
    }));
    let client = server.client();
    let converge = || async {
        tokio::time::timeout(Duration::from_secs(30), async {
            while store_rvs(&store) != server_rvs(&client).await {
                changed.notified().await;
            }
        })
        .await
        .expect("store converged");
    };
    converge().await;
    assert_eq!(store.len(), 25);
    api.delete("cm-0", &DeleteParams::default()).await.unwrap();
    converge().await;
    assert_eq!(store.len(), 24);
    stop.send(()).unwrap();
    task.await.unwrap();
    // The reflector has stopped: every metric call it made is visible now.
    assert_eq!(metrics.store_size.load(Ordering::SeqCst), 24);
    assert_eq!(metrics.lists.load(Ordering::SeqCst), 1);
    assert!(metrics.events.load(Ordering::SeqCst) >= 1);
    server.shutdown().await;
}
