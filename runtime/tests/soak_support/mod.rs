//! What the soaks share: the seed and round count from the environment, a seeded fault
//! schedule over the testkit's fault handle, and a tally of what was injected.
//! (Also compiled into the top-level sample-controller soak.)
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::collections::BTreeMap;
use std::time::Duration;

use kubegen_testkit::{ApiServer, Delay, Failure, Matcher, Verb};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A soak's seed and length: `KUBEGEN_SOAK_SEED` and `KUBEGEN_SOAK_ROUNDS`, or a fresh
/// random seed and the test's default.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub seed: u64,
    pub rounds: usize,
    started: std::time::Instant,
}

impl Settings {
    pub fn from_env(default_rounds: usize) -> Self {
        let number = |name: &str| {
            std::env::var(name).ok().map(|v| {
                v.trim()
                    .parse::<u64>()
                    .unwrap_or_else(|e| panic!("{name}={v:?} is not a number: {e}"))
            })
        };
        let settings = Self {
            seed: number("KUBEGEN_SOAK_SEED").unwrap_or_else(rand::random),
            rounds: number("KUBEGEN_SOAK_ROUNDS").map_or(default_rounds, |r| r as usize),
            started: std::time::Instant::now(),
        };
        eprintln!(
            "soak: KUBEGEN_SOAK_SEED={} KUBEGEN_SOAK_ROUNDS={}",
            settings.seed, settings.rounds
        );
        settings
    }

    pub fn rng(&self) -> SmallRng {
        SmallRng::seed_from_u64(self.seed)
    }

    /// Prints how to replay the run if the test panics while this lives.
    pub fn report_on_failure(&self) -> SeedReport {
        SeedReport(*self)
    }
}

/// See [`Settings::report_on_failure`].
pub struct SeedReport(Settings);

impl Drop for SeedReport {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "soak failed; replay with KUBEGEN_SOAK_SEED={} KUBEGEN_SOAK_ROUNDS={}",
                self.0.seed, self.0.rounds
            );
        }
    }
}

/// Counts by kind: rounds, writes, faults.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<String, u64>);

impl Tally {
    pub fn count(&mut self, what: &str) {
        self.add(what, 1);
    }

    pub fn add(&mut self, what: &str, n: u64) {
        *self.0.entry(what.to_owned()).or_default() += n;
    }

    pub fn get(&self, what: &str) -> u64 {
        self.0.get(what).copied().unwrap_or(0)
    }

    pub fn summary(&self, settings: &Settings) -> String {
        let faults: u64 = self
            .0
            .iter()
            .filter(|(k, _)| k.starts_with("fault: "))
            .map(|(_, n)| n)
            .sum();
        let mut out = format!(
            "soak: seed {} rounds {} faults {faults} in {:.1?}\n",
            settings.seed,
            settings.rounds,
            settings.started.elapsed()
        );
        for (what, n) in &self.0 {
            out.push_str(&format!("  {what}: {n}\n"));
        }
        out
    }
}

/// One fault the schedule injects.
#[derive(Debug, Clone)]
pub enum Fault {
    /// End every open watch.
    DropWatches,
    /// Drop the event history: older resourceVersions get 410 Expired.
    Compact,
    /// Fail the next matching requests.
    Fail {
        code: u16,
        verb: Verb,
        resource: &'static str,
        times: usize,
        retry_after: Option<Duration>,
    },
    /// Slow down matching requests.
    Delay {
        by: Duration,
        verb: Verb,
        resource: &'static str,
    },
    /// Hold back watch events until the round heals.
    Pause,
    /// Restart the server process, data kept.
    Restart,
}

impl Fault {
    fn name(&self) -> String {
        match self {
            Fault::DropWatches => "fault: drop watches".into(),
            Fault::Compact => "fault: compact (410)".into(),
            Fault::Fail {
                code,
                verb,
                retry_after,
                ..
            } => {
                let after = match retry_after {
                    Some(d) => format!(" Retry-After {}s", d.as_secs()),
                    None => String::new(),
                };
                format!("fault: {code} on {verb:?}{after}")
            }
            Fault::Delay { verb, .. } => format!("fault: latency on {verb:?}"),
            Fault::Pause => "fault: paused delivery".into(),
            Fault::Restart => "fault: restart".into(),
        }
    }

    /// Injects the fault; returns whether the server restarted (clients holding pooled
    /// connections to it should be rebuilt).
    pub async fn inject(&self, server: &mut ApiServer, tally: &mut Tally) -> bool {
        tally.count(&self.name());
        let faults = server.faults();
        match self {
            Fault::DropWatches => faults.drop_watches(),
            Fault::Compact => faults.compact(),
            Fault::Fail {
                code,
                verb,
                resource,
                times,
                retry_after,
            } => {
                let mut failure = Failure::status(*code)
                    .times(*times)
                    .matching(Matcher::any().verb(*verb).resource(*resource));
                if let Some(after) = retry_after {
                    failure = failure.retry_after(*after);
                }
                faults.fail(failure);
            }
            Fault::Delay { by, verb, resource } => faults
                .delay(Delay::new(*by).matching(Matcher::any().verb(*verb).resource(*resource))),
            Fault::Pause => faults.pause_watches(),
            Fault::Restart => {
                server.restart().await.expect("the server restarts");
                return true;
            }
        }
        false
    }
}

/// Faults to inject before given steps of a round (step `n` of `n` writes: after the
/// last write).
#[derive(Debug, Default)]
pub struct FaultPlan(Vec<(usize, Fault)>);

impl FaultPlan {
    /// A random schedule for a round of `steps` writes; failures and delays hit requests
    /// with one of the `(verb, resource)` targets.
    pub fn random(rng: &mut SmallRng, steps: usize, targets: &[(Verb, &'static str)]) -> Self {
        let mut plan = Vec::new();
        let at = |rng: &mut SmallRng| rng.random_range(0..=steps);
        // Now and then a partition: delivery stops, writes (deletes among them) go on,
        // the watch drops and the history it would resume from is compacted, so the
        // informer must relist and infer what it missed.
        if rng.random_bool(0.15) {
            plan.push((0, Fault::Pause));
            plan.push((steps, Fault::DropWatches));
            plan.push((steps, Fault::Compact));
        }
        for _ in 0..rng.random_range(0..4usize) {
            let (verb, resource) = targets[rng.random_range(0..targets.len())];
            let fault = match rng.random_range(0..100u32) {
                0..20 => Fault::DropWatches,
                20..32 => Fault::Compact,
                32..62 => {
                    let (code, retry_after) = match rng.random_range(0..6u32) {
                        0 => (500, None),
                        1 => (503, Some(Duration::ZERO)),
                        2 => (504, None),
                        3 => (410, None),
                        // A real wait, rarely: it costs a whole second.
                        4 if rng.random_bool(0.1) => (429, Some(Duration::from_secs(1))),
                        _ => (429, Some(Duration::ZERO)),
                    };
                    Fault::Fail {
                        code,
                        verb,
                        resource,
                        times: rng.random_range(1..4usize),
                        retry_after,
                    }
                }
                62..80 => Fault::Delay {
                    by: Duration::from_millis(rng.random_range(1..30u64)),
                    verb,
                    resource,
                },
                80..92 => Fault::Pause,
                _ => Fault::Restart,
            };
            plan.push((at(rng), fault));
        }
        Self(plan)
    }

    /// The faults to inject before step `step`.
    pub fn at(&self, step: usize) -> impl Iterator<Item = &Fault> {
        self.0
            .iter()
            .filter(move |(s, _)| *s == step)
            .map(|(_, f)| f)
    }

    /// Ends the round's faults: no more failures or delays, held events delivered.
    pub fn heal(server: &ApiServer) {
        let faults = server.faults();
        faults.clear();
        faults.resume_watches();
    }
}
