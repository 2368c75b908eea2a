//! What the futex workloads share: their words, each alone in a 64-byte
//! cell (no false sharing) of one anonymous mapping populated before the
//! first cycle; the requests a cycle makes; the futex2 flags; the plan a
//! cycle's CQEs are checked against; and the kernel functions of their
//! requests, each with the hits the witness must see (Linux 6.12,
//! io_uring/opdef.c, futex.c, cancel.c).

use crate::check::Kind;
use crate::exit::Exit;
use crate::ops;
use crate::profile::parts::setup::{self, CyclePlan, Step};
use crate::profile::vocabulary::{Function, Hits, SetUp};
use crate::sys::memory::Mapping;
use crate::sys::{Errno, SysResult};

/// Bytes per word cell: a cache line.
pub const CELL_BYTES: usize = 64;
/// Word cells a workload maps: 64 slots, or v0's 8 groups x 8 words.
pub const MAX_CELLS: usize = 64;

pub struct Futex {
    cells: Mapping,
    /// FUTEX2_SIZE_U32, plus FUTEX2_PRIVATE unless --shared.
    pub flags: u32,
    /// Its requests of the main kind per cycle (v0: WAITV groups), the
    /// plan of their CQEs, the ns each timed cycle spins.
    pub p: CyclePlan,
}

/// A workload's memory could not be mapped: a failure naming the step.
pub fn mapping_failed(e: Errno) -> Exit {
    setup::step_failed(Step::run("mapping the futex words"), e)
}

impl Futex {
    /// Words for cycles of `p`, with futex2 `flags`.
    pub fn new(p: CyclePlan, flags: u32) -> SysResult<Futex> {
        Ok(Futex {
            cells: Mapping::anonymous(MAX_CELLS * CELL_BYTES)?,
            flags,
            p,
        })
    }

    /// The words of a run's futex workload: its shape's, private unless
    /// `--shared`, each timed cycle spinning `--inject-ns` per pair more.
    pub fn set_up(s: &SetUp) -> Result<Futex, Exit> {
        Futex::new(CyclePlan::of(s), ops::futex_flags(!s.cfg.shared)).map_err(mapping_failed)
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

/// `.prep` of both IORING_OP_FUTEX_WAIT and IORING_OP_FUTEX_WAKE: once per
/// SQE of either (v0's check WAKEs included).
pub const PREP: Function =
    Function::per_request("io_futex_prep", &[Kind::Wait, Kind::Wake, Kind::Check]);

/// FUTEX_WAIT's and FUTEX_WAKE's `.issue`: once per SQE.
pub const WAIT: Function = Function::per_request("io_futex_wait", &[Kind::Wait]);
pub const WAKE: Function = Function::per_request("io_futex_wake", &[Kind::Wake, Kind::Check]);

/// The task work of a FUTEX_WAIT that did not end inline, set by
/// `io_futex_wake_fn` (woken, res 0) and by `__io_futex_cancel`
/// (-ECANCELED): once per WAIT CQE. A WAIT whose word differs ends -EAGAIN
/// in `io_futex_wait` itself and never gets here (`COMPLETE_NEVER`, e0's).
pub const COMPLETE: Function = Function {
    name: "io_futex_complete",
    hits: Hits::PerCqe(Kind::Wait),
};
pub const COMPLETE_NEVER: Function = Function {
    name: "io_futex_complete",
    hits: Hits::Never,
};

/// Called once by `io_try_cancel` for each ASYNC_CANCEL by user_data that
/// finds no io-wq or poll request.
pub const CANCEL: Function = Function::per_request("io_futex_cancel", &[Kind::Cancel]);

/// FUTEX_WAITV's `.prep` and `.issue`, once per SQE each, and its task
/// work, set by `io_futex_wakev_fn`: once per WAITV CQE.
pub const WAITV_PREP: Function = Function::per_request("io_futexv_prep", &[Kind::Waitv]);
pub const WAITV: Function = Function::per_request("io_futexv_wait", &[Kind::Waitv]);
pub const WAITV_COMPLETE: Function = Function {
    name: "io_futexv_complete",
    hits: Hits::PerCqe(Kind::Waitv),
};

/// `io_req_track_inflight`: 079afb081c42 calls it from `io_futex_prep` and
/// `io_futexv_prep`, once per futex SQE. It is declared `inline` in
/// io_uring.c, and the kernel's `inline` implies `notrace`: listed, it is
/// reported as not traceable (`notrace` when kallsyms has it, `inlined`
/// when it has no symbol: Debian's 6.12.117) unless a kernel can trace it.
pub const INFLIGHT: Function = Function::per_request(
    "io_req_track_inflight",
    &[Kind::Wait, Kind::Wake, Kind::Check, Kind::Waitv],
);
