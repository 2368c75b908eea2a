//! t0: the timeout path, a timeout completed by count. Per cycle, `slots`
//! (32) IORING_OP_TIMEOUT, each to complete after one other completion or
//! after `--timeout` (2 s), whichever comes first, one io_uring_enter: each
//! arms its hrtimer and joins the ring's sorted list of timeouts
//! (io_timeout); then `slots` NOPs, one io_uring_enter that submits them
//! and waits for both: their completions meet every timeout's count
//! (io_flush_timeouts -> io_kill_timeout, the hrtimer cancelled), and each
//! TIMEOUT completes with res 0, as a count-completed timeout does (one
//! whose timer fired ends -ETIME). Every NOP ends with res 0. A pair is a
//! TIMEOUT and a NOP.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked.

use crate::check::{tag, Counter, Kind, Ledger};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::setup::CyclePlan;
use crate::profile::vocabulary::{
    Function, Hits, Names, Profile, RowSet, RunOptions, Shape, Timed, Workload, NOP, TIMEOUT,
};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::KernelTimespec;

/// t0: TIMEOUTs that NOPs' completions complete.
pub static T0: Profile = Profile {
    names: Names {
        short: "t0",
        long: "timeout-count",
        formal: "t0_timeout_count",
        help: "32 TIMEOUT (count 1), 32 NOP that complete them (res 0, 0)",
    },
    per: "TIMEOUT/NOP pair",
    opcodes: &[TIMEOUT, NOP],
    options: RunOptions::SLOTS,
    shape: |cfg| {
        let n = cfg.slots;
        Shape::new(n)
            .with(Kind::Timeout, n, 0)
            .with(Kind::Nop, n, 0)
    },
    series: &[RowSet::only(
        "t0_timeout_count",
        "io_uring TIMEOUT completed by count",
    )],
    punted: &[],
    // TIMEOUT's `.prep` and `.issue` (io_uring/timeout.c) once per SQE;
    // io_kill_timeout once per TIMEOUT its count completed (every CQE:
    // one whose timer fired is a bad result); NOP's `.issue`, once per NOP.
    functions: &[
        Function::per_request("io_timeout_prep", &[Kind::Timeout]),
        Function::per_request("io_timeout", &[Kind::Timeout]),
        Function {
            name: "io_kill_timeout",
            hits: Hits::PerCqe(Kind::Timeout),
        },
        Function::per_request("io_nop", &[Kind::Nop]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        let mut t0 = TimeoutCount {
            p: CyclePlan::of(s),
            count: COUNT,
            ts: KernelTimespec::from_ns(s.cfg.timeout_ns()),
        };
        then(&mut t0, ring, ledger)
    },
};

/// The completions each TIMEOUT waits for.
const COUNT: u32 = 1;

/// The checks line's totals.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("timeout_cqes", |l| l.kind(Kind::Timeout)),
    ("nop_cqes", |l| l.kind(Kind::Nop)),
];

pub struct TimeoutCount {
    p: CyclePlan,
    /// The completions each TIMEOUT waits for (COUNT).
    count: u32,
    /// How long a TIMEOUT waits for its count: the bound on every wait.
    ts: KernelTimespec,
}

impl Workload for TimeoutCount {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, count, ts) = (&self.p, self.count, &self.ts as *const KernelTimespec);
        let n = p.slots;
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(Kind::Timeout, n, |i| {
                ops::timeout(ts, count, tag(seq, Kind::Timeout, i))
            }),
            Batch::new(Kind::Nop, n, |i| ops::nop(tag(seq, Kind::Nop, i))),
        );
        c.end(clock, p.inject_ns, ledger)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Fail;
    use crate::profile::tests::live::live_plan;
    use crate::sys::Errno;

    /// t0 runs clean, its TIMEOUTs completed by the NOPs' completions; a
    /// count the cycle never meets lets every timer fire: each TIMEOUT is
    /// a bad result, -ETIME, and the NOPs are still right.
    #[test]
    fn a_count_never_met_is_each_timer_firing() {
        let Some((mut ring, p)) = live_plan(&T0, 16) else {
            return;
        };
        let mut t0 = TimeoutCount {
            p,
            count: COUNT,
            ts: KernelTimespec::from_ns(2_000_000_000),
        };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..2 {
            assert!(t0.cycle(&mut ring, &clock, &mut l, seq).1, "{l:?}");
        }
        assert_eq!((l.kind(Kind::Timeout), l.kind(Kind::Nop)), (32, 32));
        t0.count = 1000;
        t0.ts = KernelTimespec::from_ns(1_000_000);
        let mut l = Ledger::default();
        let (_, ok) = t0.cycle(&mut ring, &clock, &mut l, 2);
        assert!(!ok);
        assert_eq!((l.count(Fail::BadResult), l.kind(Kind::Nop)), (16, 16));
        assert_eq!(l.first.unwrap().cqe.unwrap().res, -Errno::ETIME.0);
    }
}
