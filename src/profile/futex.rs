//! What the futex workloads share: their words, each alone in a 64-byte
//! cell (no false sharing) of one anonymous mapping populated before the
//! first cycle; the requests a cycle makes; the futex2 flags; and the plan
//! a cycle's CQEs are checked against.

use super::{setup, SetUp, Shape};
use crate::check::Plan;
use crate::exit::Exit;
use crate::ops;
use crate::sys::memory::Mapping;
use crate::sys::{Errno, SysResult};

/// Bytes per word cell: a cache line.
pub const CELL_BYTES: usize = 64;
/// Word cells a workload maps: 64 slots, or v0's 8 groups x 8 words.
pub const MAX_CELLS: usize = 64;

pub struct Futex {
    cells: Mapping,
    /// Requests of the main kind per cycle (v0: WAITV groups).
    pub slots: u32,
    /// FUTEX2_SIZE_U32, plus FUTEX2_PRIVATE unless --shared.
    pub flags: u32,
    pub plan: Plan,
    /// `--inject-ns` times the cycle's pairs: ns each timed cycle spins.
    pub inject_ns: u64,
}

/// A workload's memory could not be mapped: a failure naming the step.
pub fn mapping_failed(e: Errno) -> Exit {
    setup::step_failed("", "mapping the futex words", e)
}

impl Futex {
    pub fn new(shape: &Shape, flags: u32) -> SysResult<Futex> {
        Ok(Futex {
            cells: Mapping::anonymous(MAX_CELLS * CELL_BYTES)?,
            slots: shape.slots,
            flags,
            plan: Plan::new(&shape.expect),
            inject_ns: 0,
        })
    }

    /// The words of a run's futex workload: its shape's, private unless
    /// `--shared`, each timed cycle spinning `--inject-ns` per pair more.
    pub fn set_up(s: &SetUp) -> Result<Futex, Exit> {
        let mut f =
            Futex::new(&s.shape, ops::futex_flags(!s.cfg.shared)).map_err(mapping_failed)?;
        f.inject_ns = s.cfg.inject_ns as u64 * f.slots as u64;
        Ok(f)
    }

    /// The word of cell `i`. Panics unless i < MAX_CELLS: no workload has
    /// more words, so another index is a bug.
    #[inline(always)]
    pub fn word(&self, i: u32) -> *mut u32 {
        assert!((i as usize) < MAX_CELLS);
        // SAFETY: i < MAX_CELLS, so the cell lies inside the mapping.
        unsafe { self.cells.ptr().add(i as usize * CELL_BYTES) as *mut u32 }
    }

    /// Sets the first `n` words to `value`. Panics unless n <= MAX_CELLS
    /// (checked once, not per word: s0 does this every cycle).
    #[inline(always)]
    pub fn set_words(&self, n: u32, value: u32) {
        assert!(n as usize <= MAX_CELLS);
        let cells = self.cells.ptr();
        for i in 0..n as usize {
            // SAFETY: i < n <= MAX_CELLS: the word is inside our mapping;
            // volatile because the kernel reads it behind the compiler's back.
            unsafe { (cells.add(i * CELL_BYTES) as *mut u32).write_volatile(value) };
        }
    }
}
