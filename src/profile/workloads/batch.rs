//! z0, e0 and n0: one batch of `slots` requests per cycle, submitted and
//! waited for by a single io_uring_enter, each request a pair's worth of
//! ns/pair:
//! - z0: IORING_OP_FUTEX_WAKE (nr 1) on words nobody waits on: res 0;
//! - e0: IORING_OP_FUTEX_WAIT expecting 0 on words holding 1: -EAGAIN,
//!   the path that never queues a waiter;
//! - n0: IORING_OP_NOP: res 0, the ring's own floor.
//!
//! Timed span: from before z0 and e0 set their words (inside the span, as
//! the formal program does: z0 stores 0, e0 stores 1) and the first SQE is
//! written, to after the last CQE is checked.

use super::futex::{self, Futex};
use super::wait_wake;
use crate::check::{tag, Kind, Ledger, TOTALS};
use crate::exit::Exit;
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::vocabulary::RES_AGAIN;
use crate::profile::vocabulary::{
    Function, Names, Profile, RowSet, RunOptions, SetUp, Shape, Takes, Then, Timed,
};
use crate::profile::vocabulary::{Workload, FUTEX_WAIT, FUTEX_WAKE, NOP};
use crate::ring::Ring;
use crate::sys::clock::Clock;

/// z0: WAKEs on words nobody waits on.
pub static Z0: Profile = Profile {
    names: Names {
        short: "z0",
        long: "zero-wake",
        formal: "z0_zero_wake",
        help: "32 FUTEX_WAKE nobody waits on (res 0)",
    },
    per: "WAKE",
    opcodes: &[FUTEX_WAKE],
    options: RunOptions::FUTEX,
    shape: |cfg| Shape::new(cfg.slots).with(Kind::Wake, cfg.slots, 0),
    series: &[RowSet::only(
        "z0_zero_wake",
        "io_uring FUTEX_WAKE, no waiter",
    )],
    punted: &[],
    functions: &wait_wake::FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start,
};

/// e0: WAITs on words that do not hold the expected value.
pub static E0: Profile = Profile {
    names: Names {
        short: "e0",
        long: "mismatch",
        formal: "e0_mismatch",
        help: "32 FUTEX_WAIT on a changed value (res -EAGAIN)",
    },
    per: "WAIT",
    opcodes: &[FUTEX_WAIT],
    options: RunOptions::FUTEX,
    shape: |cfg| Shape::new(cfg.slots).with(Kind::Wait, cfg.slots, RES_AGAIN),
    series: &[RowSet::only("e0_mismatch", "io_uring FUTEX_WAIT -EAGAIN")],
    punted: &[],
    functions: &[
        futex::PREP,
        futex::WAIT,
        futex::WAKE,
        futex::COMPLETE_NEVER,
        futex::INFLIGHT,
    ],
    totals: &TOTALS,
    failures: &[],
    start,
};

/// n0: NOPs, the ring's own floor; no request uses its futex words, and
/// they stay private (its contract has always stated `futex=private`).
pub static N0: Profile = Profile {
    names: Names {
        short: "n0",
        long: "nop",
        formal: "n0_nop",
        help: "32 NOP (res 0)",
    },
    per: "NOP",
    opcodes: &[NOP],
    options: RunOptions {
        takes: &[Takes::Slots, Takes::Tsv],
        ..RunOptions::FUTEX
    },
    shape: |cfg| Shape::new(cfg.slots).with(Kind::Nop, cfg.slots, 0),
    series: &[RowSet::only("n0_nop", "io_uring NOP")],
    punted: &[],
    functions: &NOP_FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start,
};

/// NOP's `.prep` and `.issue` (io_uring/nop.c), once per NOP each: n0's
/// functions, and q0's (in its SQ thread).
pub(super) const NOP_FUNCTIONS: [Function; 2] = [
    Function::per_request("io_nop_prep", &[Kind::Nop]),
    Function::per_request("io_nop", &[Kind::Nop]),
];

/// e0's words hold 1 and every WAIT expects 0: each one sees a mismatch
/// (the formal program's values).
const MISMATCH_WORD: u32 = 1;
const MISMATCH_EXPECTED: u32 = 0;

pub struct OneBatch {
    /// Wake (z0), Wait (e0) or Nop (n0).
    kind: Kind,
    f: Futex,
}

/// z0's, e0's and n0's set-up: a batch of the one kind of request their
/// shape expects.
fn start(s: &SetUp, ring: &mut Ring, ledger: &mut Ledger, then: Then) -> Result<Exit, Exit> {
    let expected = |k: &Kind| s.shape.expect[*k as usize].count > 0;
    let kind = Kind::ALL.into_iter().find(expected).unwrap_or(Kind::Nop);
    let mut batch = OneBatch {
        kind,
        f: Futex::set_up(s)?,
    };
    then(&mut batch, ring, ledger)
}

impl Workload for OneBatch {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (f, k) = (&self.f, self.kind);
        let n = f.p.slots;
        let mut c = Cycle::start(seq, &f.p.plan, clock);
        match k {
            Kind::Wake => f.set_words(n, 0),
            Kind::Wait => f.set_words(n, MISMATCH_WORD),
            _ => {}
        }
        let requests = Batch::new(k, n, |i| {
            let t = tag(seq, k, i);
            match k {
                Kind::Wake => ops::futex_wake(f.word(i), 1, f.flags, t),
                Kind::Wait => ops::futex_wait(f.word(i), MISMATCH_EXPECTED, f.flags, t),
                _ => ops::nop(t),
            }
        });
        c.one_batch(ring, ledger, requests);
        let ns = c.stop(clock, f.p.inject_ns);
        (ns, c.finish(ledger))
    }
}
