//! s0, the report's workload. One cycle, as the published C standalone's
//! run_cycle() does it:
//! 1. set the `slots` (32) futex words to 0 (untimed);
//! 2. read the clock;
//! 3. queue one IORING_OP_FUTEX_WAIT per word (val 0, mask MATCH_ANY) and
//!    io_uring_enter(to_submit = 32);
//! 4. queue one IORING_OP_FUTEX_WAKE per word (nr 1) and io_uring_enter(
//!    to_submit = 32, min_complete = 64, GETEVENTS | EXT_ARG), the wait
//!    bounded by `--timeout`;
//! 5. drain the 64 CQEs, checking each: every WAIT ends with res 0 (woken),
//!    every WAKE with res 1 (one waiter woken), flags 0, each exactly once,
//!    user_data naming this cycle;
//! 6. read the clock: the cycle's ns is the difference.
//!
//! Two syscalls per cycle, both io_uring_enter: the clock is the vDSO's.

use super::futex::{self, Futex, CELL_BYTES};
use crate::check::{tag, Kind, Ledger, TOTALS};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::vocabulary::{
    Function, Names, Profile, RowSet, RunOptions, Shape, Timed, Workload,
};
use crate::profile::vocabulary::{FUTEX_WAIT, FUTEX_WAKE};
use crate::ring::Ring;
use crate::sys::clock::Clock;

/// s0: the report's workload, the cycle above.
pub static S0: Profile = Profile {
    names: Names {
        short: "s0",
        long: "wait-wake",
        formal: "s0_wait_wake",
        help: "32 FUTEX_WAIT, 32 FUTEX_WAKE (wait res 0, wake res 1)",
    },
    per: "WAIT/WAKE pair",
    opcodes: &[FUTEX_WAIT, FUTEX_WAKE],
    options: RunOptions::FUTEX,
    shape: |cfg| shape(cfg.slots),
    series: &[RowSet::only("s0_wait_wake", "io_uring futex WAIT/WAKE")],
    punted: &[],
    functions: &FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut WaitWake(Futex::set_up(s)?), ring, ledger),
};

/// `slots` WAITs each woken (res 0) by a WAKE that wakes one waiter (res 1).
pub fn shape(slots: u32) -> Shape {
    Shape::new(slots)
        .with(Kind::Wait, slots, 0)
        .with(Kind::Wake, slots, 1)
}

/// The kernel functions of a WAIT and a WAKE (where each hit comes from:
/// futex.rs); l0 and z0 name the same.
pub const FUNCTIONS: [Function; 5] = [
    futex::PREP,
    futex::WAIT,
    futex::WAKE,
    futex::COMPLETE,
    futex::INFLIGHT,
];

pub struct WaitWake(pub Futex);

impl Workload for WaitWake {
    // Not inlined into the driver: a symbol of its own, so perf annotate
    // and callgrind show the timed cycle alone.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let f = &self.0;
        let n = f.p.slots;
        f.set_words(n, 0);
        // Locals, so stores into the SQ ring do not force reloads of self.
        let (words, flags) = (f.word(0) as usize, f.flags);
        let word = |i: u32| (words + i as usize * CELL_BYTES) as *const u32;
        let mut c = Cycle::start(seq, &f.p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(Kind::Wait, n, |i| {
                ops::futex_wait(word(i), 0, flags, tag(seq, Kind::Wait, i))
            }),
            Batch::new(Kind::Wake, n, |i| {
                ops::futex_wake(word(i), 1, flags, tag(seq, Kind::Wake, i))
            }),
        );
        let ns = c.stop(clock, f.p.inject_ns);
        (ns, c.finish(ledger))
    }
}
