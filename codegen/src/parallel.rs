//! Order-preserving parallel map over a slice, with scoped threads.
//!
//! Files and documents are independent, so the generator spreads them over the available
//! cores; results come back in input order, so output stays deterministic.
//!
//! Reading nested schemas recurses once or more per level (the YAML reader, the type
//! builder, clones and drops), and a debug build spends tens of KiB of stack on a level:
//! a 2 MiB thread (Rust's default for spawned threads and tests) overflowed at about 20
//! schema levels. So workers get [`STACK_SIZE`], and [`deep`] runs a front-end on such a
//! stack whatever thread calls it (on the same thread when it already has one); the
//! readers bound nesting ([`MAX_NESTING`](crate::frontend::schema::MAX_NESTING)) so that
//! this is always enough.
//!
//! Few threads, reused: glibc's malloc gives each thread alive at once an arena of its
//! own, so every extra thread added its share of the peak memory. A whole generator run is
//! one large-stack thread, and [`map`] works on its caller's thread too. (The `kubegen`
//! binary runs on mimalloc, which frees another thread's memory without taking a lock;
//! the library runs on whatever allocator its user has.)

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, mpsc};

/// Stack of every thread started here: address space reserved, used only as deep as the
/// input nests.
const STACK_SIZE: usize = 256 << 20;

thread_local! {
    /// Whether this thread was started here, with a [`STACK_SIZE`] stack.
    static ON_LARGE_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Starts a thread with a [`STACK_SIZE`] stack running `f`.
fn spawn_large<'scope, R: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    f: impl FnOnce() -> R + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, R> {
    let large = std::thread::Builder::new().stack_size(STACK_SIZE);
    let spawned = large.spawn_scoped(scope, move || {
        ON_LARGE_STACK.set(true);
        f()
    });
    // Like `std::thread::spawn`, failing to start a thread is a panic.
    spawned.expect("failed to start a thread")
}

/// Runs `f` on a thread with a [`STACK_SIZE`] stack and returns what it returns (a panic in
/// `f` is resumed on the caller's thread): on this thread if it has one, else on a new one.
#[cfg(feature = "generator")]
pub(crate) fn deep<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if ON_LARGE_STACK.get() {
        return f();
    }
    std::thread::scope(|scope| {
        spawn_large(scope, f)
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The cores this process may use, asked once: `available_parallelism` reads the cgroup
/// files on every call, which is half a millisecond.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `items.iter().map(f).collect()`, run on up to `available_parallelism` threads, the
/// caller's included. Callers put the most expensive items first for the best balance.
/// Started workers have [`STACK_SIZE`] stacks; `f` also runs on the caller's (inside
/// [`deep`], a large one too).
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = cores().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    // Takes items until none is left, sending each result back with its index.
    let work = |sender: mpsc::Sender<(usize, R)>| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            if sender.send((i, f(item))).is_err() {
                break;
            }
        }
    };
    std::thread::scope(|scope| {
        // The caller is one of the workers: one thread fewer to start, and one malloc
        // arena fewer (each thread alive at once gets its own, and they added 10 MB of
        // peak memory to a generator run).
        for _ in 1..threads {
            let sender = sender.clone();
            let work = &work;
            spawn_large(scope, move || work(sender));
        }
        work(sender);
    });
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

#[cfg(all(test, feature = "generator"))]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn deep_runs_on_a_large_stack_once() {
        let (outer, inner) = super::deep(|| {
            let outer = std::thread::current().id();
            (outer, super::deep(|| std::thread::current().id()))
        });
        assert_eq!(outer, inner, "a nested `deep` stays on its thread");
        assert_ne!(outer, std::thread::current().id());
        // Inside `deep`, every item of a `map` is mapped on a large stack, the caller's
        // included.
        let on_large = super::deep(|| super::map(&[1, 2, 3, 4], |_| super::ON_LARGE_STACK.get()));
        assert_eq!(on_large, [true; 4]);
    }

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
