//! Hands the memory a (re)list freed back to the operating system.
//!
//! A list decodes page after page and frees each page's body, the `managedFields` the
//! reflector drops and, on a relist, the previous cache. glibc's malloc keeps what is
//! freed in its arenas for reuse, so after a list the process's RSS stays near the list's
//! high-water mark although much of it is free. `malloc_trim(0)` gives the whole free
//! pages of every arena back (`madvise(MADV_DONTNEED)`, the middle of a heap included,
//! since glibc 2.8); nothing moves, and the next allocations fault pages in again.
//!
//! Portability: only Linux with glibc has `malloc_trim`; elsewhere (musl, macOS,
//! Windows) [`release_free_memory`] does nothing. It trims glibc's heap only: a program
//! whose global allocator is another (mimalloc, jemalloc) gains nothing and pays one walk
//! over glibc's mostly empty arenas.

/// Returns the allocator's free pages to the operating system; true if any went back.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub(crate) fn release_free_memory() -> bool {
    // SAFETY: `malloc_trim` takes no pointers and has no preconditions: it walks glibc's
    // own arenas, each under its lock, and only releases pages no allocation uses.
    unsafe { libc::malloc_trim(0) != 0 }
}

/// Returns the allocator's free pages to the operating system: nothing to do on this
/// target.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn release_free_memory() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::release_free_memory;

    /// Frees most of many small allocations (too small for glibc to map them on their
    /// own, so they live in the heap) while keeping one in sixteen, so the freed pages
    /// lie between live chunks where only a trim reaches them.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn free_pages_between_live_chunks_go_back() {
        let mut blocks: Vec<Vec<u8>> = (0..16 * 1024).map(|_| vec![1u8; 1024]).collect();
        let kept: Vec<Vec<u8>> = blocks.iter_mut().step_by(16).map(std::mem::take).collect();
        drop(blocks);
        assert!(release_free_memory());
        assert!(
            kept.iter()
                .all(|b| b.len() == 1024 && b.iter().all(|&x| x == 1))
        );
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    #[test]
    fn does_nothing_without_glibc() {
        assert!(!release_free_memory());
    }
}
