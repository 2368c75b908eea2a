//! v0: per cycle, `groups` (8) IORING_OP_FUTEX_WAITV, each over 8 words
//! holding 0 (64 cells in all), one io_uring_enter to submit them; then one
//! IORING_OP_FUTEX_WAKE (nr 1) per group on its word 3 and one
//! io_uring_enter that submits and waits for the 2*groups CQEs. Every WAITV
//! must end with res 3 (the index of the woken word, as FUTEX_WAITV reports
//! on 6.18) and every WAKE with res 1. Then, untimed, one check WAKE per
//! group on its word 0 must return 0: the WAITV's seven other waiters were
//! removed when it completed. ns/pair is per vector pair (groups a cycle).
//!
//! Timed span: from before the first WAITV SQE is written to after the last
//! WAKE/WAITV CQE is checked. The check wakes are not timed: they prove
//! correctness and are not part of the WAITV->WAKE path being measured.

use super::futex::{self, mapping_failed, Futex, MAX_CELLS};
use crate::check::{tag, Kind, Ledger, TOTALS};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::vocabulary::{Names, Profile, RowSet, RunOptions, Shape, Timed, Workload};
use crate::profile::vocabulary::{FUTEX_WAITV, FUTEX_WAKE};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::memory::Mapping;
use crate::sys::uapi::FutexWaitv;
use crate::sys::SysResult;

/// v0: `slots` counts WAITV groups here (at most 8, of 8 words each).
pub static V0: Profile = Profile {
    names: Names {
        short: "v0",
        long: "waitv-wake",
        formal: "v0_waitv_wake",
        help: "8 WAITV x 8 words, WAKE index 3 (res 3, 1), check WAKE (0)",
    },
    per: "WAITV/WAKE pair",
    opcodes: &[FUTEX_WAITV, FUTEX_WAKE],
    options: RunOptions {
        default_slots: MAX_GROUPS,
        max_slots: MAX_GROUPS,
        ..RunOptions::FUTEX
    },
    shape: |cfg| {
        let g = cfg.slots;
        Shape {
            vector_width: WAITV_WIDTH,
            ..Shape::new(g)
        }
        .with(Kind::Waitv, g, WAITV_WAKE_INDEX as i32)
        .with(Kind::Wake, g, 1)
        .with(Kind::Check, g, 0)
    },
    series: &[RowSet::only("v0_waitv_wake", "io_uring FUTEX_WAITV/WAKE")],
    punted: &[],
    functions: &[
        futex::WAITV_PREP,
        futex::WAITV,
        futex::WAITV_COMPLETE,
        futex::PREP,
        futex::WAKE,
        futex::INFLIGHT,
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        let mut v0 = WaitvWake::new(Futex::set_up(s)?).map_err(mapping_failed)?;
        then(&mut v0, ring, ledger)
    },
};

/// Futex words per FUTEX_WAITV.
pub const WAITV_WIDTH: u32 = 8;
/// The word of each group the WAKE targets (the WAITV's expected res).
pub const WAITV_WAKE_INDEX: u32 = 3;
/// The word of each group the check WAKE targets after the WAITV ended.
pub const WAITV_CHECK_INDEX: u32 = 0;
/// Most groups, and the default: every word of MAX_CELLS in one WAITV.
const MAX_GROUPS: u32 = MAX_CELLS as u32 / WAITV_WIDTH;

pub struct WaitvWake {
    /// `slots` counts WAITV groups here.
    f: Futex,
    groups: u32,
    /// The struct futex_waitv arrays, WAITV_WIDTH entries per group, one
    /// per word (the kernel copies them when it prepares the request).
    vecs: Mapping,
}

impl WaitvWake {
    /// `f.p.slots` groups (1..=8) of WAITV_WIDTH of `f`'s words.
    pub fn new(f: Futex) -> SysResult<WaitvWake> {
        let groups = f.p.slots.min(MAX_GROUPS);
        let vecs = Mapping::anonymous(MAX_CELLS * core::mem::size_of::<FutexWaitv>())?;
        let v = vecs.ptr() as *mut FutexWaitv;
        for i in 0..groups * WAITV_WIDTH {
            let entry = FutexWaitv {
                val: 0,
                uaddr: f.word(i) as u64,
                flags: f.flags,
                reserved: 0,
            };
            // SAFETY: i < MAX_CELLS entries fit the mapping, which is
            // page-aligned and so aligned for FutexWaitv.
            unsafe { v.add(i as usize).write(entry) };
        }
        Ok(WaitvWake { f, groups, vecs })
    }

    /// Group `g`'s WAITV_WIDTH entries. Panics unless g < groups.
    #[inline(always)]
    fn vec(&self, g: u32) -> *const FutexWaitv {
        assert!(g < self.groups);
        // SAFETY: g < groups <= MAX_GROUPS, so its entries lie inside `vecs`.
        unsafe { (self.vecs.ptr() as *const FutexWaitv).add((g * WAITV_WIDTH) as usize) }
    }

    #[inline(always)]
    fn word(&self, group: u32, index: u32) -> *mut u32 {
        self.f.word(group * WAITV_WIDTH + index)
    }
}

impl Workload for WaitvWake {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let g = self.groups;
        self.f.set_words(g * WAITV_WIDTH, 0);
        let flags = self.f.flags;
        let mut c = Cycle::start(seq, &self.f.p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(Kind::Waitv, g, |i| {
                ops::futex_waitv(self.vec(i), WAITV_WIDTH, tag(seq, Kind::Waitv, i))
            }),
            Batch::new(Kind::Wake, g, |i| {
                let w = self.word(i, WAITV_WAKE_INDEX);
                ops::futex_wake(w, 1, flags, tag(seq, Kind::Wake, i))
            }),
        );
        let ns = c.stop(clock, self.f.p.inject_ns);
        // Untimed: nobody may be left waiting on any word of a completed
        // WAITV (skipped when a timed batch failed).
        c.one_batch(
            ring,
            ledger,
            Batch::new(Kind::Check, g, |i| {
                let w = self.word(i, WAITV_CHECK_INDEX);
                ops::futex_wake(w, 1, flags, tag(seq, Kind::Check, i))
            }),
        );
        (ns, c.finish(ledger))
    }
}
