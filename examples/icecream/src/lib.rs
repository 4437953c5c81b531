//! icecream: watches Pods and writes into each `Icecream` custom resource
//! (`icecream.example.com/v1`) the nodes its pods are scheduled on. An Icecream selects
//! the pods of its namespace with a standard label selector (`spec.selector`); its status
//! lists every matching pod with its node (`status.pods`), the distinct nodes
//! (`status.nodes`) and the spec generation it reflects (`status.observedGeneration`).
//! See [`apis::icecream::v1`] for the API (written with `#[derive(Resource, DeepCopy)]`);
//! its clientset, lister and informer are generated into [`generated`]. Pods come from
//! the generated informers of the built-in groups (`kubegen::kubernetes`).
//!
//! The kind has a second, older version, [`apis::icecream::v1alpha1`], still served: the
//! API server converts between the two through the example's conversion webhook, and
//! checks `v1` toppings with its validating webhook ([`webhooks`]; the conversions
//! themselves are generated into [`conversions`], but for the four fields only we can
//! convert).
//!
//! ```no_run
//! # async fn demo(client: kube::Client) -> Result<(), icecream::controller::Error> {
//! use icecream::{App, Options};
//!
//! let app = App::start(client, Options::default(), None)?;
//! let report = app.wait_converged().await;
//! print!("{report}");
//! app.shutdown().await
//! # }
//! ```

pub mod apis;
pub mod controller;
pub mod demo;
pub mod menu;
pub mod webhooks;
// Written by `kubegen generate --rust src/apis` (hack/update-codegen.sh); never edited, so
// rustfmt leaves the generator's layout alone and verify-codegen.sh can diff it.
#[rustfmt::skip]
pub mod generated;
// Apply configurations (`FooApply`), written by `kubegen generate --apply-out`.
#[rustfmt::skip]
pub mod applyconfigurations;
// Conversions between v1alpha1 and v1, written by `kubegen generate --conversions-out`;
// `webhooks` implements the fields only we can convert.
#[rustfmt::skip]
pub mod conversions;

use std::sync::Arc;
use std::time::Duration;

use kubegen::operator::{Manager, RunningManager};
use kubegen::runtime::backoff::Backoff;
use kubegen::runtime::events::{EventRecorder, EventRecorderConfig};
use kubegen::runtime::leaderelection::LeaderElectionConfig;
use kubegen::runtime::reflector::DEFAULT_BACKOFF;

use controller::{CONTROLLER_NAME, Controller, Error};
use demo::Report;

/// How [`App::start`] runs the controller.
#[derive(Clone, Debug)]
pub struct Options {
    /// Workers processing the queue concurrently.
    pub workers: usize,
    /// How often informers re-deliver every cached object.
    pub resync: Duration,
    /// How the informers' reflectors back off after a failed list or watch (default
    /// client-go's: 800 ms doubling to a 30 s cap).
    pub reflector_backoff: Backoff,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            workers: 2,
            resync: Duration::from_secs(30),
            reflector_backoff: DEFAULT_BACKOFF,
        }
    }
}

/// The controller on its manager (informer factory, optional Lease) with its event
/// recorder, running.
pub struct App {
    client: kube::Client,
    controller: Arc<Controller>,
    recorder: EventRecorder,
    running: RunningManager,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("controller", &self.controller)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Wires informers, handlers, queue, recorder and workers on a
    /// [`Manager`](kubegen::operator::Manager) and starts them. With `election`, the
    /// workers run only while this replica leads (the informers always run, so a new
    /// leader starts with warm caches).
    #[allow(
        clippy::result_large_err,
        reason = "called once per process; the error is the reconciler's, which kube's error sizes"
    )]
    pub fn start(
        client: kube::Client,
        options: Options,
        election: Option<LeaderElectionConfig>,
    ) -> Result<Self, Error> {
        let recorder =
            EventRecorder::new(client.clone(), EventRecorderConfig::new(CONTROLLER_NAME));
        let mut manager = Manager::new(client.clone())
            .factory_with(|factory| {
                factory
                    .default_resync(options.resync)
                    .reflector_backoff(options.reflector_backoff)
            })
            .leader_election(election);
        let controller = Controller::new(
            client.clone(),
            manager.factory(),
            recorder.clone(),
            options.workers,
        );
        controller.add_to(&mut manager);
        let running = manager.start()?;
        Ok(Self {
            client,
            controller,
            recorder,
            running,
        })
    }

    /// The controller.
    pub fn controller(&self) -> &Arc<Controller> {
        &self.controller
    }

    /// Resolves once the controller has stopped by itself: under leader election, when
    /// this replica lost the Lease ([`shutdown`](Self::shutdown) then says so).
    pub async fn stopped(&self) {
        self.running.stopped().await;
    }

    /// Reads the server once and reports every Icecream.
    pub async fn check(&self) -> Result<Report, kubegen::runtime::error::Error> {
        self.recorder.flush().await;
        demo::check(&self.client, &self.controller).await
    }

    /// Waits until every Icecream's status matches the pods on the server and the caches
    /// agree with it. Checks after every sync, never on a timer.
    pub async fn wait_converged(&self) -> Report {
        kubegen::operator::wait_converged(self.controller.processed(), || self.check()).await
    }

    /// Drains the queue and stops workers, informers and recorder.
    pub async fn shutdown(self) -> Result<(), Error> {
        let result = self.running.stop().await.map_err(Error::from);
        self.recorder.shutdown().await;
        result
    }
}
