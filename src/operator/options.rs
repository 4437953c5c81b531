//! The knobs every controller of a [`Manager`](super::Manager) shares, in one value an
//! operator's flags fill and its tests set: workers per controller, the informers' resync
//! period, and how their reflectors back off.

use std::time::Duration;

use kubegen_runtime::backoff::Backoff;
use kubegen_runtime::reflector::DEFAULT_BACKOFF;

/// How a [`Manager`](super::Manager)'s controllers and informers run, applied with
/// [`Manager::options`](super::Manager::options): its informer factory takes the resync
/// period and reflector backoff, and [`Manager::controller_config`](super::Manager::controller_config)
/// gives each controller the workers.
///
/// ```no_run
/// # fn demo(client: kube::Client) {
/// use std::time::Duration;
///
/// use kubegen::operator::{Manager, ManagerOptions};
/// use kubegen::runtime::controller::ControllerConfig;
///
/// let options = ManagerOptions { workers: 4, resync: Duration::ZERO, ..ManagerOptions::default() };
/// let manager = Manager::new(client).options(&options);
/// let config = manager.controller_config(ControllerConfig::default().name("foos"));
/// assert_eq!(config.worker_count(), 4);
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ManagerOptions {
    /// Keys each controller reconciles concurrently (at least 1; default 2, as
    /// `--workers`).
    pub workers: usize,
    /// How often informers re-deliver every cached object, the level-based safety net
    /// (zero: never; default 30 s).
    pub resync: Duration,
    /// How the informers' reflectors back off after a failed list or watch (default
    /// client-go's: 800 ms doubling to a 30 s cap).
    pub reflector_backoff: Backoff,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            workers: 2,
            resync: Duration::from_secs(30),
            reflector_backoff: DEFAULT_BACKOFF,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_flags_defaults_and_client_gos_backoff() {
        let options = ManagerOptions::default();
        assert_eq!(options.workers, 2);
        assert_eq!(options.resync, Duration::from_secs(30));
        assert_eq!(options.reflector_backoff, DEFAULT_BACKOFF);
    }
}
