//! The futex words: each alone in a 64-byte cell (no false sharing between
//! them), in one anonymous mapping populated before the first cycle.

use crate::sys::memory::Mapping;
use crate::sys::SysResult;

/// Bytes per word cell: a cache line.
pub const CELL_BYTES: usize = 64;
/// Word cells a workload maps: 64 slots, or v0's 8 groups x 8 words.
pub const MAX_CELLS: usize = 64;

pub struct Words(Mapping);

impl Words {
    pub fn new() -> SysResult<Words> {
        Mapping::anonymous(MAX_CELLS * CELL_BYTES).map(Words)
    }

    /// The word of cell `i` (i < MAX_CELLS).
    #[inline(always)]
    pub fn word(&self, i: u32) -> *mut u32 {
        debug_assert!((i as usize) < MAX_CELLS);
        // SAFETY: i < MAX_CELLS, so the cell lies inside the mapping.
        unsafe { self.0.ptr().add(i as usize * CELL_BYTES) as *mut u32 }
    }

    /// Sets the first `n` words to `v` (outside any timed span).
    #[inline(always)]
    pub fn set(&self, n: u32, v: u32) {
        for i in 0..n {
            // SAFETY: the word is inside our mapping; volatile because the
            // kernel reads it behind the compiler's back.
            unsafe { self.word(i).write_volatile(v) };
        }
    }
}
