//! The process's allocator: mimalloc for small blocks, the system's (glibc's) for large ones,
//! and mimalloc set to give freed memory back soon.
//!
//! mimalloc serves the many small blocks that one thread makes and another frees (a file's
//! text made by the reader and freed by a worker: glibc serialises those on its arena locks,
//! and `-j2` on 200,000 small files is 10 % slower with glibc alone). But mimalloc keeps the
//! pages of large blocks it has freed for a while before it hands them back, and the tables
//! free tens of megabytes of them per row group (Arrow buffers, Parquet's pages): with
//! mimalloc alone `positions` to Parquet peaked at 209 MB on a million games, 81 MB with
//! glibc. glibc takes blocks of this size back at once, or reuses them in place.
//! docs/history/benchmarks-notebook.md, "Session 21: the allocator", has the figures.
//!
//! Which allocator owns a block follows from its size alone, which `dealloc` and `realloc`
//! are given with the block: a block of [`LARGE`] bytes or more is the system's.
//!
//! mimalloc 3 (the `mimalloc` crate's default) keeps freed pages for a second before it
//! purges them (version 2 waited 10 ms), and asks for transparent huge pages, each of which
//! counts 2 MB of resident memory when one byte of it is touched. The build turns the huge
//! pages off (the crate's `no_thp`), and [`configure`] sets the delay to 100 ms (10 ms cost
//! `positions` to Parquet 13 % of its time in purges and faults, 100 ms 2 to 4 %): peak RSS
//! of `games` to Parquet on 100,000 games 143 MB with mimalloc as it comes, 64 MB so, 44 MB
//! with glibc alone.

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e` (mimalloc.h), which
/// mimalloc keeps from version to version (a retired option keeps its place, renamed
/// `deprecated_...`). The test below checks that it reads the option's default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Milliseconds mimalloc waits before it hands freed pages back to the system.
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets mimalloc's options; called first thing in `main`.
pub fn configure() {
    // Safety: `mi_option_set` takes any option and value; the option is mimalloc's purge
    // delay (see `PURGE_DELAY`), read by mimalloc each time it schedules a purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
}

/// The size from which a block is the system allocator's.
const LARGE: usize = 256 * 1024;

/// mimalloc below [`LARGE`] bytes, the system allocator from there.
pub struct Split;

#[inline]
fn large(layout: Layout) -> bool {
    layout.size() >= LARGE
}

// Safety: every method hands its arguments on unchanged to the allocator that owns the block
// (chosen by size, the same on allocation and release), or, where a reallocation crosses
// `LARGE`, allocates in the other one, copies the bytes both blocks hold and releases the old
// block in its own allocator; both allocators uphold `GlobalAlloc`'s contract.
unsafe impl GlobalAlloc for Split {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Safety: the caller's layout (of non-zero size) is handed on unchanged.
        unsafe {
            if large(layout) {
                System.alloc(layout)
            } else {
                MiMalloc.alloc(layout)
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // Safety: as in `alloc`.
        unsafe {
            if large(layout) {
                System.alloc_zeroed(layout)
            } else {
                MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // Safety: `ptr` was allocated with `layout` by this allocator, so by the allocator its
        // size chooses.
        unsafe {
            if large(layout) {
                System.dealloc(ptr, layout)
            } else {
                MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        // Safety: `ptr` and `layout` are a live block of the allocator `large(layout)`
        // chooses; a block that stays on one side is resized there, one that crosses is
        // copied (the shorter of the two lengths, both blocks being at least that long and
        // distinct) and released by its own allocator.
        unsafe {
            match (large(layout), large(new)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => MiMalloc.realloc(ptr, layout, new_size),
                _ => {
                    let moved = self.alloc(new);
                    if !moved.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Option 15 is the purge delay: unset (the tests do not call `configure`), it reads
    /// mimalloc 3's default of 1,000 ms, or what `MIMALLOC_PURGE_DELAY` says; no other
    /// option defaults to 1,000.
    #[test]
    fn option_15_is_the_purge_delay() {
        let want = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        // Safety: reads an option.
        let got = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(got, want);
    }

    /// Blocks cross `LARGE` both ways through `realloc` with their bytes, and are released
    /// by the allocator that owns them (a wrong one would abort the test process).
    #[test]
    fn a_block_keeps_its_bytes_across_the_line() {
        let mut v: Vec<u8> = (0..LARGE - 8).map(|i| i as u8).collect();
        v.extend_from_slice(&[7; 64]);
        assert!(v.capacity() >= LARGE);
        v.truncate(1000);
        v.shrink_to_fit();
        assert!(v.iter().enumerate().all(|(i, &b)| b == i as u8));
        let mut w = vec![1u8; LARGE * 3];
        w.truncate(10);
        w.shrink_to_fit();
        assert_eq!(w, [1; 10]);
    }
}
