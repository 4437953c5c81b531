//! The reflector's backoff: client-go's `wait.NewExponentialBackoffManager` with the
//! values `NewReflector` passes (800 ms initial, doubling, 30 s cap, jitter 1.0, reset
//! after 2 minutes without a backoff).

use std::time::Duration;

use tokio::time::Instant;

/// The reflector's backoff parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackoffConfig {
    /// The first delay.
    pub initial: Duration,
    /// The delay never grows past this (before jitter).
    pub max: Duration,
    /// The multiplier after each backoff.
    pub factor: f64,
    /// Each delay is extended by a random fraction up to `jitter` of itself: with 1.0 the
    /// delay lies in `[d, 2d)`.
    pub jitter: f64,
    /// After this long without a backoff, the next one starts again from `initial`.
    pub reset_after: Duration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            factor: 2.0,
            jitter: 1.0,
            reset_after: Duration::from_secs(120),
        }
    }
}

/// Hands out growing, jittered delays; reads the time from `tokio::time`, so paused-time
/// tests control it.
#[derive(Debug)]
pub(crate) struct BackoffManager {
    config: BackoffConfig,
    next_base: Duration,
    last: Option<Instant>,
}

impl BackoffManager {
    pub(crate) fn new(config: BackoffConfig) -> Self {
        Self {
            config,
            next_base: config.initial,
            last: None,
        }
    }

    /// The next delay to wait, at least `floor` (a server's Retry-After).
    pub(crate) fn next(&mut self, floor: Option<Duration>) -> Duration {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|last| now.duration_since(last) > self.config.reset_after)
        {
            self.next_base = self.config.initial;
        }
        self.last = Some(now);
        let base = self.next_base.min(self.config.max);
        self.next_base = base.mul_f64(self.config.factor).min(self.config.max);
        let jittered = base + base.mul_f64(self.config.jitter * rand::random::<f64>());
        jittered.max(floor.unwrap_or_default())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn doubles_to_the_cap_with_jitter_and_resets_after_quiet() {
        let mut backoff = BackoffManager::new(BackoffConfig::default());
        let mut base = Duration::from_millis(800);
        for _ in 0..10 {
            let d = backoff.next(None);
            assert!(
                d >= base && d < base * 2,
                "{d:?} not in [{base:?}, {:?})",
                base * 2
            );
            base = (base * 2).min(Duration::from_secs(30));
        }
        tokio::time::advance(Duration::from_secs(121)).await;
        let d = backoff.next(None);
        assert!(d >= Duration::from_millis(800) && d < Duration::from_millis(1600));
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_a_floor() {
        let mut backoff = BackoffManager::new(BackoffConfig::default());
        assert!(backoff.next(Some(Duration::from_secs(7))) >= Duration::from_secs(7));
    }
}
