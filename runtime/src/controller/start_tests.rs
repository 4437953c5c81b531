//! A controller waiting for informers that were never started (a forgotten
//! `factory.start()`) fails within the informer start timeout, naming them, instead of
//! waiting out the cache sync timeout; one started late, within it, is waited for.

#![allow(clippy::unwrap_used)]

use std::convert::Infallible;

use futures::FutureExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, ObjectList, WatchParams};
use tokio::time::Instant;

use super::*;
use crate::factory::SharedInformerFactory;
use crate::informer::{HandlerFns, InformerConfig};
use crate::reflector::{ListerWatcher, WatchStream};

/// Does nothing: the controllers here never get to reconcile.
struct Idle;

impl Reconciler for Idle {
    type Error = Infallible;

    async fn reconcile(&self, _key: &ObjectKey) -> std::result::Result<Action, Infallible> {
        Ok(Action::Done)
    }
}

/// A source whose list never answers: an informer over it starts but never syncs.
struct Silent;

impl ListerWatcher<ConfigMap> for Silent {
    fn list<'a>(&'a self, _: &'a ListParams) -> BoxFuture<'a, kube::Result<ObjectList<ConfigMap>>> {
        std::future::pending().boxed()
    }

    fn watch<'a>(
        &'a self,
        _: &'a WatchParams,
        _: &'a str,
    ) -> BoxFuture<'a, kube::Result<WatchStream<ConfigMap>>> {
        std::future::pending().boxed()
    }
}

/// A client that never connects (nothing here starts an informer that would use it).
fn client() -> kube::Client {
    let url = "http://127.0.0.1:9".parse().unwrap();
    kube::Client::try_from(kube::Config::new(url)).unwrap()
}

fn controller(name: &str) -> Controller {
    Controller::new(
        ControllerConfig::default()
            .name(name)
            .cache_sync_timeout(Duration::from_secs(60)),
    )
}

#[tokio::test(start_paused = true)]
async fn an_informer_never_started_fails_the_run_naming_it() {
    let factory = SharedInformerFactory::new(client());
    let configmaps = factory.informer::<ConfigMap>();
    let controller = controller("foos");
    controller.watches(&configmaps, HandlerFns::new());
    // factory.start() forgotten.
    let started = Instant::now();
    let error = controller
        .run(Idle, std::future::pending())
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), DEFAULT_INFORMER_START_TIMEOUT);
    assert!(
        matches!(
            &error,
            Error::InformersNotStarted { controller, informers, waited }
                if controller == "foos"
                    && *informers == ["configmaps.v1 (ConfigMap)"]
                    && *waited == DEFAULT_INFORMER_START_TIMEOUT
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "failed to start controller foos: informer configmaps.v1 (ConfigMap) never started \
         (waited 5s); was factory.start() called after the informers were created?"
    );
    assert!(controller.queue().is_shutting_down());
}

#[tokio::test(start_paused = true)]
async fn a_dropped_informer_that_never_started_fails_the_run_at_once() {
    let controller = controller("foos");
    {
        let informer = SharedInformer::new(Silent, InformerConfig::default());
        controller.watches(&informer, HandlerFns::new());
    }
    let started = Instant::now();
    let error = controller
        .run(Idle, std::future::pending())
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert!(
        matches!(&error, Error::InformersNotStarted { informers, .. } if informers.len() == 1),
        "{error:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_informer_started_within_the_start_timeout_is_waited_for() {
    let controller = Controller::new(
        ControllerConfig::default()
            .name("foos")
            .cache_sync_timeout(Duration::from_secs(30))
            .informer_start_timeout(Duration::from_secs(2)),
    );
    let informer = SharedInformer::new(Silent, InformerConfig::default());
    controller.watches(&informer, HandlerFns::new());
    let started = Instant::now();
    let run = tokio::spawn({
        let controller = controller.clone();
        async move { controller.run(Idle, std::future::pending()).await }
    });
    tokio::time::sleep(Duration::from_secs(1)).await;
    informer.start();
    assert!(informer.is_started());
    // Started, it never syncs: the run waits out the cache sync timeout and names it.
    let error = run.await.unwrap().unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    assert!(
        matches!(
            &error,
            Error::CacheSyncTimeout { unsynced: 1, total: 1, informers, .. }
                if informers.len() == 1
        ),
        "{error:?}"
    );
    assert!(error.to_string().ends_with(&format!(
        "1 of 1 caches did not sync within 30s: {}",
        informer.name()
    )));
    informer.shutdown().await;
}
