//! c0: per cycle, `slots` IORING_OP_FUTEX_WAIT on words holding 0 (as s0),
//! one io_uring_enter to submit them, then one IORING_OP_ASYNC_CANCEL by
//! user_data per WAIT and one io_uring_enter that submits and waits for all
//! 2*slots CQEs. Every WAIT must end -ECANCELED and every cancel with res 1:
//! ASYNC_CANCEL of a pending futex wait reports the one request it found
//! (io_futex_cancel's count), not 0 as for most other opcodes. A cancel
//! that finds nothing ends -ENOENT, which is counted as a bad result.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked, as in s0.

use super::futex::{self, Futex};
use crate::check::{tag, Kind, Ledger, TOTALS};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::vocabulary::{Names, Profile, RowSet, RunOptions, Shape, Timed, Workload};
use crate::profile::vocabulary::{ASYNC_CANCEL, FUTEX_WAIT};
use crate::profile::vocabulary::{RES_CANCELED, RES_CANCEL_FOUND};
use crate::ring::Ring;
use crate::sys::clock::Clock;

/// c0: the cycle above; its cancels' res 1 is the count io_futex_cancel
/// returns.
pub static C0: Profile = Profile {
    names: Names {
        short: "c0",
        long: "wait-cancel",
        formal: "c0_wait_cancel",
        help: "32 FUTEX_WAIT, 32 ASYNC_CANCEL by user_data (-ECANCELED, 1)",
    },
    per: "WAIT/ASYNC_CANCEL pair",
    opcodes: &[FUTEX_WAIT, ASYNC_CANCEL],
    options: RunOptions::FUTEX,
    shape: |cfg| {
        let n = cfg.slots;
        Shape::new(n)
            .with(Kind::Wait, n, RES_CANCELED)
            .with(Kind::Cancel, n, RES_CANCEL_FOUND)
    },
    series: &[RowSet::only("c0_wait_cancel", "io_uring futex WAIT/cancel")],
    punted: &[],
    functions: &[
        futex::PREP,
        futex::WAIT,
        futex::WAKE,
        futex::COMPLETE,
        futex::CANCEL,
        futex::INFLIGHT,
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut WaitCancel(Futex::set_up(s)?), ring, ledger),
};

pub struct WaitCancel(pub Futex);

impl Workload for WaitCancel {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let f = &self.0;
        let n = f.p.slots;
        f.set_words(n, 0);
        let mut c = Cycle::start(seq, &f.p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(Kind::Wait, n, |i| {
                ops::futex_wait(f.word(i), 0, f.flags, tag(seq, Kind::Wait, i))
            }),
            Batch::new(Kind::Cancel, n, |i| {
                ops::cancel(tag(seq, Kind::Wait, i), tag(seq, Kind::Cancel, i))
            }),
        );
        let ns = c.stop(clock, f.p.inject_ns);
        (ns, c.finish(ledger))
    }
}
