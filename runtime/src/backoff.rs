//! Exponential backoff with jitter: client-go's `wait.Backoff`, the one schedule behind
//! every wait-and-try-again in the runtime (the reflector after a failed list or watch,
//! [`retry_on_conflict`](crate::client::retry_on_conflict), the event recorder's writes).
//!
//! A [`Backoff`] holds the parameters; [`Delays`] hands out the delays one at a time.
//! Both randomness ([`Random`]) and time (the `now` passed to [`Delays::next`]) come
//! from the caller, so tests are deterministic.
//!
//! ```
//! use std::time::Duration;
//! use kubegen_runtime::backoff::{Backoff, Delays};
//! use tokio::time::Instant;
//!
//! let backoff = Backoff {
//!     duration: Duration::from_millis(100),
//!     factor: 2.0,
//!     jitter: 0.0,
//!     steps: 3,
//!     cap: None,
//!     reset_after: None,
//! };
//! let mut delays = Delays::new(backoff);
//! let now = Instant::now();
//! let got: Vec<_> = (0..5).map(|_| delays.next(now).as_millis()).collect();
//! // Three steps grow the delay; after them it stays where it got to.
//! assert_eq!(got, [100, 200, 400, 800, 800]);
//! ```

use std::time::Duration;

use tokio::time::Instant;

/// How to back off (client-go's `wait.Backoff`, plus the reset of its
/// `NewExponentialBackoffManager`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// The first delay.
    pub duration: Duration,
    /// Each step multiplies the delay by this (0 or 1: the delay stays the same).
    /// Should not be negative.
    pub factor: f64,
    /// Each delay is extended by a random fraction of itself, up to `jitter`: with 1.0 a
    /// delay `d` lies in `[d, 2d)`. Jitter does not feed into the next delay.
    pub jitter: f64,
    /// How many steps grow the delay; after them it stays the same. Retry loops also
    /// read it as the number of attempts.
    pub steps: u32,
    /// The delay never grows past this (before jitter); reaching it ends the growth.
    pub cap: Option<Duration>,
    /// After this long without a delay handed out, the next one starts again from
    /// `duration` (`None`: never). A quiet period, as the reflector's backoff manager
    /// measures it: every delay handed out restarts it.
    pub reset_after: Option<Duration>,
}

/// A source of jitter: numbers in `[0, 1)`.
///
/// Closures `FnMut() -> f64` are sources too, which is how tests pin the jitter.
pub trait Random: Send {
    /// The next number, in `[0, 1)`.
    fn fraction(&mut self) -> f64;
}

/// The thread-local generator of the `rand` crate.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadRandom;

impl Random for ThreadRandom {
    fn fraction(&mut self) -> f64 {
        rand::random::<f64>()
    }
}

impl<F: FnMut() -> f64 + Send> Random for F {
    fn fraction(&mut self) -> f64 {
        self()
    }
}

/// The delays of a [`Backoff`], one at a time (client-go's `Backoff.Step`, with the
/// quiet-period reset when [`Backoff::reset_after`] is set).
#[derive(Clone, Debug)]
pub struct Delays<R = ThreadRandom> {
    backoff: Backoff,
    duration: Duration,
    steps: u32,
    last: Option<Instant>,
    random: R,
}

impl Delays {
    /// The delays of `backoff`, jittered by [`ThreadRandom`].
    pub fn new(backoff: Backoff) -> Self {
        Self {
            backoff,
            duration: backoff.duration,
            steps: backoff.steps,
            last: None,
            random: ThreadRandom,
        }
    }
}

impl<R: Random> Delays<R> {
    /// Takes the jitter from `random` instead.
    #[must_use]
    pub fn random<S: Random>(self, random: S) -> Delays<S> {
        Delays {
            backoff: self.backoff,
            duration: self.duration,
            steps: self.steps,
            last: self.last,
            random,
        }
    }

    /// The parameters.
    pub fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// The delay to wait now, and a step forward. `now` is the caller's clock: it only
    /// matters with [`Backoff::reset_after`].
    pub fn next(&mut self, now: Instant) -> Duration {
        if let (Some(last), Some(quiet)) = (self.last, self.backoff.reset_after)
            && now.saturating_duration_since(last) > quiet
        {
            self.duration = self.backoff.duration;
            self.steps = self.backoff.steps;
        }
        self.last = Some(now);
        let current = self.duration;
        if self.steps > 0 {
            self.steps -= 1;
            if self.backoff.factor != 0.0 {
                let mut next = scale(current, self.backoff.factor);
                if let Some(cap) = self.backoff.cap.filter(|cap| next > *cap) {
                    next = cap;
                    self.steps = 0;
                }
                self.duration = next;
            }
        }
        if self.backoff.jitter > 0.0 {
            let fraction = self.random.fraction().clamp(0.0, 1.0);
            current.saturating_add(scale(current, self.backoff.jitter * fraction))
        } else {
            current
        }
    }
}

/// `d * by`, saturating at `Duration::MAX` and at zero (for a negative or NaN `by`).
fn scale(d: Duration, by: f64) -> Duration {
    let secs = d.as_secs_f64() * by;
    if secs.is_nan() || secs <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn schedule<R: Random>(delays: &mut Delays<R>, now: Instant, n: usize) -> Vec<Duration> {
        (0..n).map(|_| delays.next(now)).collect()
    }

    /// The reflector's backoff, with the jitter pinned.
    fn reflector_like(fraction: f64) -> Delays<impl Random> {
        Delays::new(crate::reflector::DEFAULT_BACKOFF).random(move || fraction)
    }

    #[test]
    fn steps_follow_client_go() {
        // retry.DefaultBackoff: 10 ms, factor 5, jitter 0.1, 4 steps; jitter pinned at half.
        let backoff = Backoff {
            duration: 10 * MS,
            factor: 5.0,
            jitter: 0.1,
            steps: 4,
            cap: None,
            reset_after: None,
        };
        let mut delays = Delays::new(backoff).random(|| 0.5);
        let got = schedule(&mut delays, Instant::now(), 6);
        let want = [10.5, 52.5, 262.5, 1312.5, 6562.5, 6562.5];
        for (got, want) in got.iter().zip(want) {
            assert!(
                (got.as_secs_f64() * 1000.0 - want).abs() < 1e-6,
                "{got:?} != {want} ms"
            );
        }
    }

    #[test]
    fn the_cap_ends_growth_and_jitter_stays_within_its_fraction() {
        let start = Instant::now();
        let low = schedule(&mut reflector_like(0.0), start, 9);
        let millis = |ms: &[u64]| {
            ms.iter()
                .map(|m| Duration::from_millis(*m))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            low,
            millis(&[800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000])
        );
        let high = schedule(&mut reflector_like(0.999), start, 9);
        for (l, h) in low.iter().zip(&high) {
            assert!(h >= l && *h < *l * 2, "{h:?} not in [{l:?}, {:?})", *l * 2);
        }
    }

    #[test]
    fn resets_after_a_quiet_period_only() {
        let start = Instant::now();
        let mut delays = reflector_like(0.0);
        assert_eq!(
            schedule(&mut delays, start, 3),
            [800 * MS, 1600 * MS, 3200 * MS]
        );
        // Errors a minute apart keep it growing, well past two minutes in total.
        for (i, want) in [6400, 12800, 25600].into_iter().enumerate() {
            let at = start + Duration::from_secs(60 * (i as u64 + 1));
            assert_eq!(delays.next(at), want * MS);
        }
        let quiet = start + Duration::from_secs(180 + 121);
        assert_eq!(
            delays.next(quiet),
            800 * MS,
            "two quiet minutes: start over"
        );
        assert_eq!(delays.next(quiet), 1600 * MS);
    }

    #[test]
    fn without_reset_after_it_never_starts_over() {
        let backoff = Backoff {
            reset_after: None,
            jitter: 0.0,
            ..*reflector_like(0.0).backoff()
        };
        let mut delays = Delays::new(backoff);
        let start = Instant::now();
        delays.next(start);
        assert_eq!(delays.next(start + Duration::from_secs(3600)), 1600 * MS);
    }

    #[test]
    fn constant_and_huge_schedules_do_not_panic() {
        let constant = Backoff {
            duration: 10 * MS,
            factor: 0.0,
            jitter: 0.0,
            steps: 5,
            cap: None,
            reset_after: None,
        };
        assert_eq!(
            schedule(&mut Delays::new(constant), Instant::now(), 3),
            [10 * MS; 3]
        );
        let huge = Backoff {
            duration: Duration::MAX / 2,
            factor: 10.0,
            jitter: 1.0,
            ..constant
        };
        let mut delays = Delays::new(huge).random(|| 0.9);
        let got = schedule(&mut delays, Instant::now(), 3);
        assert!(got[0] > Duration::MAX / 2, "{got:?}");
        assert_eq!(got[1..], [Duration::MAX; 2]);
        let negative = Backoff {
            factor: -1.0,
            ..constant
        };
        let mut delays = Delays::new(negative);
        assert_eq!(
            schedule(&mut delays, Instant::now(), 2),
            [10 * MS, Duration::ZERO]
        );
    }
}
