//! l0: the ring's life around a populated futex cache. Per cycle: set up a
//! fresh ring (64 entries, CQ 128, as every workload), run one s0 cycle on
//! it, check its end state, and close it. Completed futex requests leave
//! their data in the ring's futex cache, so the close frees a populated
//! cache; the kernel finishes that teardown later in a workqueue
//! (io_ring_exit_work). After the last round the process stays alive
//! LINGER_NS so the teardown of the last ring runs while it still exists,
//! inside a `--trace` window.
//!
//! Timed span: from before io_uring_setup to after the ring's fd is closed
//! and its mappings are gone (ns/pair divides it by the s0 cycle's pairs).

use super::futex::Futex;
use super::wait_wake::{self, WaitWake};
use crate::check::{Call, Fail, Ledger, Returned, TOTALS};
use crate::config::{CQ_ENTRIES, RING_ENTRIES};
use crate::profile::parts::collect::account;
use crate::profile::parts::span;
use crate::profile::vocabulary::{
    Fault, Names, Profile, RowSet, RunOptions, Takes, Timed, Workload,
};
use crate::profile::vocabulary::{FUTEX_WAIT, FUTEX_WAKE};
use crate::ring::{Ring, SetupError};
use crate::sys;
use crate::sys::clock::Clock;

/// l0: s0's cycle, each in a ring of its own.
pub static L0: Profile = Profile {
    names: Names {
        short: "l0",
        long: "lifecycle",
        formal: "l0_lifecycle",
        help: "ring setup, one s0 cycle, close; stays 200 ms at the end",
    },
    per: "ring, setup to close",
    opcodes: &[FUTEX_WAIT, FUTEX_WAKE],
    options: RunOptions {
        // Private by contract: the populated cache of the report's cycle.
        takes: &[Takes::Slots, Takes::Tsv],
        ..RunOptions::FUTEX
    },
    shape: |cfg| wait_wake::shape(cfg.slots),
    series: &[RowSet::only("l0_lifecycle", "io_uring ring setup to exit")],
    punted: &[],
    functions: &wait_wake::FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        let s0 = WaitWake(Futex::set_up(s)?);
        then(&mut Lifecycle::new(s0, s.cfg.timeout_ns()), ring, ledger)
    },
};

/// How long the process lingers after the last ring was closed.
pub const LINGER_NS: u64 = 200_000_000;

pub struct Lifecycle {
    s0: WaitWake,
    timeout_ns: u64,
}

impl Lifecycle {
    /// `s0` runs in each fresh ring, whose waits `timeout_ns` bounds.
    pub fn new(s0: WaitWake, timeout_ns: u64) -> Lifecycle {
        Lifecycle { s0, timeout_ns }
    }
}

impl Workload for Lifecycle {
    /// The run's ring (probed before the first cycle) is not used. A
    /// symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, _ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let before = ledger.failures();
        let t0 = span::start(clock);
        let mut ring = match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
            Ok(r) => r,
            Err(e) => {
                let (f, what) = (Fail::SubmitError, "ring_setup");
                let call = |name, e| Call {
                    name,
                    ret: Returned::Errno(e),
                };
                match e {
                    SetupError::Setup(e) => {
                        ledger.fail_call(f, what, seq, call("io_uring_setup", e))
                    }
                    SetupError::Mmap(e) => ledger.fail_call(f, what, seq, call("mmap", e)),
                    // A feature missing: no errno to name.
                    SetupError::Feature(_) => ledger.fail(f, what, seq, None),
                }
                return (span::end(clock, 0).wrapping_sub(t0), false);
            }
        };
        ring.set_wait_timeout_ns(self.timeout_ns);
        self.s0.cycle(&mut ring, clock, ledger, seq);
        // Nothing may be dropped, lost or left in flight when it closes.
        account(&mut ring, ledger, seq);
        drop(ring);
        let t1 = span::end(clock, 0);
        (t1.wrapping_sub(t0), ledger.failures() == before)
    }

    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) -> Result<(), Fault> {
        sys::sleep_ns(LINGER_NS);
        Ok(())
    }
}
