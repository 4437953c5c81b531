//! Order-preserving parallel map over a slice, with scoped threads.
//!
//! Files and documents are independent, so the generator spreads them over the available
//! cores; results come back in input order, so output stays deterministic.
//!
//! Reading nested schemas recurses once or more per level (the YAML reader, the type
//! builder, clones and drops), and a debug build spends tens of KiB of stack on a level:
//! a 2 MiB thread (Rust's default for spawned threads and tests) overflowed at about 20
//! schema levels. So workers get [`STACK_SIZE`], and [`deep`] runs a front-end on such a
//! stack whatever thread calls it; the readers bound nesting
//! ([`MAX_NESTING`](crate::frontend::schema::MAX_NESTING)) so that this is always enough.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};

/// Stack of every thread started here: address space reserved, used only as deep as the
/// input nests.
const STACK_SIZE: usize = 256 << 20;

/// Runs `f` on a thread with a [`STACK_SIZE`] stack and returns what it returns (a panic in
/// `f` is resumed on the caller's thread).
pub(crate) fn deep<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        // Like `std::thread::spawn`, failing to start a thread is a panic.
        std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, f)
            .expect("failed to start a thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `items.iter().map(f).collect()`, run on up to `available_parallelism` threads.
/// Callers put the most expensive items first for the best balance. Workers have
/// [`STACK_SIZE`] stacks; with one thread, `f` runs on the caller's (inside [`deep`], a
/// large one too).
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (next, f) = (&next, &f);
            let worker = std::thread::Builder::new().stack_size(STACK_SIZE);
            let spawned = worker.spawn_scoped(scope, move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if sender.send((i, f(item))).is_err() {
                        break;
                    }
                }
            });
            // Like `std::thread::scope`'s `spawn`, failing to start a thread is a panic.
            spawned.expect("failed to start a thread");
        }
    });
    drop(sender);
    let mut results: Vec<(usize, R)> = receiver.into_iter().collect();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// `items.into_iter().map(f).collect()`, run as [`map`] runs: each item is moved into
/// the thread that maps it (and is dropped there, if `f` drops it).
pub(crate) fn map_into<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    // Each slot is visited once, so each holds its item when it is.
    let taken = map(&slots, |slot| {
        let item = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        item.map(&f)
    });
    taken.into_iter().flatten().collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn keeps_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = super::map(&items, |x| x * x);
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |x| *x).is_empty());
        let names: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let lengths = super::map_into(names.clone(), |name| name.len());
        assert_eq!(lengths, names.iter().map(String::len).collect::<Vec<_>>());
    }
}
