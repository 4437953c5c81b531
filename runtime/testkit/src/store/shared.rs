//! The state shared by the HTTP handlers, the watch streams and the fault handle: the
//! cluster behind its lock, the injected faults, the switch that ends every watch, and
//! the settings the server was started with.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

use crate::store::faults::FaultState;
use crate::store::storage::Cluster;
use crate::store::tokens::Tokens;

/// Server settings, with [`Default`] and consuming setters.
///
/// ```
/// use std::time::Duration;
/// use kubegen_testkit::ApiServerConfig;
///
/// let config = ApiServerConfig::default()
///     .history_window(100)
///     .bookmark_interval(Duration::from_secs(5));
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiServerConfig {
    pub(crate) port: u16,
    pub(crate) history_window: usize,
    pub(crate) bookmark_interval: Duration,
    pub(crate) watch_timeout: Duration,
    pub(crate) conversion_timeout: Duration,
    pub(crate) rbac: bool,
    pub(crate) shard_selectors: ShardSelectors,
    /// Services mapped to a local address: `(namespace, name)` -> address.
    pub(crate) services: BTreeMap<(String, String), SocketAddr>,
    /// Dangling dependents are deleted after a write (see the setter).
    pub(crate) collect_dangling_dependents: bool,
}

/// What the server does with KEP-5866's `shardSelector` on list and watch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ShardSelectors {
    /// Serves it, as an API server with the alpha feature gate on: only the shard's
    /// objects are listed and watched, and lists echo the selector in
    /// `metadata.shardInfo.selector` (default).
    #[default]
    Served,
    /// Ignores it, as a server without the feature: every object is sent.
    Ignored,
    /// Refuses any request carrying it with a 400, as a server that rejects the field
    /// it names would.
    Refused,
}

impl Default for ApiServerConfig {
    fn default() -> Self {
        Self {
            port: 0,
            history_window: 10_000,
            bookmark_interval: Duration::from_secs(60),
            watch_timeout: Duration::from_secs(1800),
            conversion_timeout: Duration::from_secs(30),
            rbac: false,
            shard_selectors: ShardSelectors::Served,
            services: BTreeMap::new(),
            collect_dangling_dependents: true,
        }
    }
}

impl ApiServerConfig {
    /// The loopback port to listen on (default 0: a free port).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// How many events of history to keep for watches and exact-version lists (default
    /// 10 000); older resourceVersions get 410 Expired.
    pub fn history_window(mut self, events: usize) -> Self {
        self.history_window = events.max(1);
        self
    }

    /// How often watches with `allowWatchBookmarks=true` get a BOOKMARK (default 60 s,
    /// about what a real server does).
    pub fn bookmark_interval(mut self, interval: Duration) -> Self {
        self.bookmark_interval = interval;
        self
    }

    /// What lists and watches do with a `shardSelector` (default: serve it).
    pub fn shard_selectors(mut self, handling: ShardSelectors) -> Self {
        self.shard_selectors = handling;
        self
    }

    /// How long a watch without `timeoutSeconds` stays open (default 30 min).
    pub fn watch_timeout(mut self, timeout: Duration) -> Self {
        self.watch_timeout = timeout;
        self
    }

    /// How long a call of a CRD's conversion webhook may take (default 30 s, as
    /// kube-apiserver waits); a slower one fails the request.
    pub fn conversion_timeout(mut self, timeout: Duration) -> Self {
        self.conversion_timeout = timeout;
        self
    }

    /// Maps the Service `namespace/name` to `address`, for webhooks (admission or CRD
    /// conversion) whose `clientConfig.service` names it: every port of the Service
    /// reaches `address`, and neither the Service nor its Endpoints or EndpointSlices
    /// need to be stored. Without a mapping, a service is resolved from the stored
    /// Service and the ready addresses of its EndpointSlices or Endpoints. The address
    /// must be a loopback one (the testkit never sends webhook calls elsewhere; another
    /// fails the call). The webhook's certificate is still verified for
    /// `<name>.<namespace>.svc`, as kube-apiserver verifies it.
    ///
    /// ```
    /// use kubegen_testkit::ApiServerConfig;
    ///
    /// let config = ApiServerConfig::default()
    ///     .service_address("icecream-system", "icecream-webhook", "127.0.0.1:9443".parse().unwrap());
    /// # let _ = config;
    /// ```
    pub fn service_address(
        mut self,
        namespace: impl Into<String>,
        name: impl Into<String>,
        address: SocketAddr,
    ) -> Self {
        self.services
            .insert((namespace.into(), name.into()), address);
        self
    }

    /// Whether the server collects dangling dependents as kube-controller-manager's
    /// garbage collector does (default on): an object written with ownerReferences
    /// whose owners are all gone (not found by kind and name, or found with another
    /// uid) is deleted shortly after the write, on a task of the server's; references
    /// to gone owners beside existing ones are removed. Off, only deleting an owner
    /// collects its dependents (those that exist at that moment), so a dependent
    /// written after its owner's deletion stays, as it would in a cluster without a
    /// controller manager: turn it off to count what a controller leaves behind.
    pub fn collect_dangling_dependents(mut self, enabled: bool) -> Self {
        self.collect_dangling_dependents = enabled;
        self
    }

    /// Whether requests with a ServiceAccount token are authorized as kube-apiserver's
    /// RBAC authorizer authorizes them, from the stored Roles, ClusterRoles,
    /// RoleBindings and ClusterRoleBindings (default off: every request is allowed).
    /// Requests without a token are the administrator's and always allowed.
    pub fn rbac(mut self, enabled: bool) -> Self {
        self.rbac = enabled;
        self
    }
}

/// State shared by the HTTP handlers, the watch streams and the fault handle.
pub(crate) struct Shared {
    cluster: Mutex<Cluster>,
    faults: Mutex<FaultState>,
    tokens: Mutex<Tokens>,
    kill: watch::Sender<u64>,
    pub(crate) config: ApiServerConfig,
    pub(crate) address: SocketAddr,
}

impl Shared {
    /// The state of a server about to listen on `address`.
    pub(crate) fn new(cluster: Cluster, config: ApiServerConfig, address: SocketAddr) -> Self {
        let (kill, _) = watch::channel(0);
        Self {
            cluster: Mutex::new(cluster),
            faults: Mutex::new(FaultState::default()),
            tokens: Mutex::new(Tokens::default()),
            kill,
            config,
            address,
        }
    }

    /// The cluster state (a poisoned lock is recovered: state stays consistent per write).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Cluster> {
        self.cluster.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cluster state for a write; with `dry_run` the write is computed, not stored.
    pub(crate) fn write(&self, dry_run: bool) -> WriteGuard<'_> {
        let mut guard = self.lock();
        guard.set_dry_run(dry_run);
        WriteGuard(guard)
    }

    pub(crate) fn faults(&self) -> MutexGuard<'_, FaultState> {
        self.faults.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The minted bearer tokens.
    pub(crate) fn tokens(&self) -> MutexGuard<'_, Tokens> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends every open watch stream immediately.
    pub(crate) fn kill_watches(&self) {
        self.kill.send_modify(|epoch| *epoch += 1);
    }

    pub(crate) fn kill_receiver(&self) -> watch::Receiver<u64> {
        self.kill.subscribe()
    }
}

/// The locked cluster during one write; leaves dry-run mode when dropped.
pub(crate) struct WriteGuard<'a>(MutexGuard<'a, Cluster>);

impl std::ops::Deref for WriteGuard<'_> {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.0
    }
}

impl std::ops::DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Cluster {
        &mut self.0
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        self.0.set_dry_run(false);
    }
}
