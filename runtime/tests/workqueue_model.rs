//! Random operation sequences against simple sequential models of client-go's rules.
//!
//! Everything is single-threaded and deterministic: `get` and `shut_down_with_drain` are
//! polled once (`now_or_never`), so "would wait" is an observable outcome.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::time::Duration;

use futures::FutureExt;
use kubegen_runtime::workqueue::{DelayingQueue, Queue};
use proptest::prelude::*;

/// client-go's `Type`, written as plainly as possible.
#[derive(Debug, Default)]
struct Model {
    queue: VecDeque<u8>,
    dirty: HashSet<u8>,
    processing: HashSet<u8>,
    shutting_down: bool,
}

impl Model {
    fn add(&mut self, key: u8) {
        if self.shutting_down || self.dirty.contains(&key) {
            return;
        }
        self.dirty.insert(key);
        if !self.processing.contains(&key) {
            self.queue.push_back(key);
        }
    }

    /// `None`: would wait; `Some(None)`: shut down and empty.
    fn get(&mut self) -> Option<Option<u8>> {
        match self.queue.pop_front() {
            Some(key) => {
                self.dirty.remove(&key);
                self.processing.insert(key);
                Some(Some(key))
            }
            None if self.shutting_down => Some(None),
            None => None,
        }
    }

    fn done(&mut self, key: u8) {
        if self.processing.remove(&key) && self.dirty.contains(&key) {
            self.queue.push_back(key);
        }
    }

    fn drained(&self) -> bool {
        self.queue.is_empty() && self.processing.is_empty()
    }
}

#[derive(Debug, Clone)]
enum Op {
    Add(u8),
    Get,
    /// `done` for the n-th key the test holds (modulo how many it holds).
    Done(usize),
    /// `done` for any key, held or not.
    DoneAny(u8),
    ShutDown,
    /// Start `shut_down_with_drain` and poll it once.
    DrainPoll,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..6).prop_map(Op::Add),
        6 => Just(Op::Get),
        5 => any::<usize>().prop_map(Op::Done),
        1 => (0u8..6).prop_map(Op::DoneAny),
        1 => Just(Op::ShutDown),
        1 => Just(Op::DrainPoll),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn queue_matches_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        let queue = Queue::new();
        let mut model = Model::default();
        let mut held: Vec<u8> = Vec::new();
        for op in ops {
            match op {
                Op::Add(key) => {
                    queue.add(key);
                    model.add(key);
                }
                Op::Get => {
                    let got = queue.get().now_or_never();
                    prop_assert_eq!(got, model.get());
                    if let Some(Some(key)) = got {
                        prop_assert!(!held.contains(&key), "{} handed out twice", key);
                        held.push(key);
                    }
                }
                Op::Done(n) => {
                    if !held.is_empty() {
                        let key = held.remove(n % held.len());
                        queue.done(&key);
                        model.done(key);
                    }
                }
                Op::DoneAny(key) => {
                    queue.done(&key);
                    model.done(key);
                    held.retain(|held| *held != key);
                }
                Op::ShutDown => {
                    queue.shut_down();
                    model.shutting_down = true;
                }
                Op::DrainPoll => {
                    let finished = queue.shut_down_with_drain().now_or_never().is_some();
                    model.shutting_down = true;
                    prop_assert_eq!(finished, model.drained());
                }
            }
            prop_assert_eq!(queue.len(), model.queue.len());
            prop_assert_eq!(queue.is_shutting_down(), model.shutting_down);
        }
    }
}

/// The delaying layer: a timer heap in front of the [`Model`].
#[derive(Debug, Default)]
struct DelayModel {
    inner: Model,
    now: u64,
    /// key -> (ready time, insertion sequence)
    waiting: BTreeMap<u8, (u64, u64)>,
    seq: u64,
}

impl DelayModel {
    fn add(&mut self, key: u8) {
        if self.inner.shutting_down {
            return;
        }
        self.waiting.remove(&key); // an immediate add supersedes the pending entry
        self.inner.add(key);
    }

    fn add_after(&mut self, key: u8, delay: u64) {
        if self.inner.shutting_down {
            return;
        }
        if delay == 0 {
            return self.add(key);
        }
        let at = self.now + delay;
        if let Some(&(current, _)) = self.waiting.get(&key)
            && current <= at
        {
            return;
        }
        self.seq += 1;
        self.waiting.insert(key, (at, self.seq));
    }

    fn advance(&mut self, by: u64) {
        self.now += by;
        let mut due: Vec<_> = self
            .waiting
            .iter()
            .filter(|(_, (at, _))| *at <= self.now)
            .map(|(key, slot)| (*slot, *key))
            .collect();
        due.sort_unstable();
        for (_, key) in due {
            self.waiting.remove(&key);
            self.inner.add(key);
        }
    }

    fn shut_down(&mut self) {
        self.inner.shutting_down = true;
        self.waiting.clear();
    }
}

#[derive(Debug, Clone)]
enum DelayOp {
    Add(u8),
    AddAfter(u8, u64),
    Advance(u64),
    Get,
    Done(usize),
    ShutDown,
}

fn delay_op() -> impl Strategy<Value = DelayOp> {
    prop_oneof![
        4 => (0u8..6).prop_map(DelayOp::Add),
        6 => ((0u8..6), 0u64..20).prop_map(|(key, ms)| DelayOp::AddAfter(key, ms)),
        4 => (0u64..15).prop_map(DelayOp::Advance),
        6 => Just(DelayOp::Get),
        5 => any::<usize>().prop_map(DelayOp::Done),
        1 => Just(DelayOp::ShutDown),
    ]
}

/// Lets the timer task run to its next wait without moving paused time.
async fn settle() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn delaying_queue_matches_the_model(ops in proptest::collection::vec(delay_op(), 1..80)) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            let queue = DelayingQueue::new();
            let mut model = DelayModel::default();
            let mut held: Vec<u8> = Vec::new();
            for op in ops {
                match op {
                    DelayOp::Add(key) => {
                        queue.add(key);
                        model.add(key);
                    }
                    DelayOp::AddAfter(key, ms) => {
                        queue.add_after(key, Duration::from_millis(ms));
                        model.add_after(key, ms);
                    }
                    DelayOp::Advance(ms) => {
                        tokio::time::advance(Duration::from_millis(ms)).await;
                        settle().await;
                        model.advance(ms);
                    }
                    DelayOp::Get => {
                        let got = queue.get().now_or_never();
                        prop_assert_eq!(got, model.inner.get());
                        if let Some(Some(key)) = got {
                            held.push(key);
                        }
                    }
                    DelayOp::Done(n) => {
                        if !held.is_empty() {
                            let key = held.remove(n % held.len());
                            queue.done(&key);
                            model.inner.done(key);
                        }
                    }
                    DelayOp::ShutDown => {
                        queue.shut_down();
                        model.shut_down();
                    }
                }
                prop_assert_eq!(queue.len(), model.inner.queue.len());
                prop_assert_eq!(queue.waiting_len(), model.waiting.len());
            }
            Ok(())
        })?;
    }
}
