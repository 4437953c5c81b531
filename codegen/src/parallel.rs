//! Order-preserving parallel map over a slice, with scoped threads.
//!
//! Files and documents are independent, so the generator spreads them over the available
//! cores; results come back in input order, so output stays deterministic.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// `items.iter().map(f).collect()`, run on up to `available_parallelism` threads.
/// Callers put the most expensive items first for the best balance.
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
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if sender.send((i, f(item))).is_err() {
                        break;
                    }
                }
            });
        }
    });
    drop(sender);
    let mut results: Vec<(usize, R)> = receiver.into_iter().collect();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
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
    }
}
