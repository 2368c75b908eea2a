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

use super::collect::{collect, pushed, submitted};
use super::futex::Futex;
use super::inject;
use super::{ProfileId, Timed, Workload};
use crate::check::{tag, CycleCheck, Kind, Ledger};
use crate::ops;
use crate::ring::Ring;
use crate::sys::clock::Clock;

/// e0's words hold 1 and every WAIT expects 0: each one sees a mismatch
/// (the formal program's values).
const MISMATCH_WORD: u32 = 1;
const MISMATCH_EXPECTED: u32 = 0;

pub struct Batch {
    kind: Kind,
    f: Futex,
}

impl Batch {
    /// `id` is ZeroWake, Mismatch or Nop.
    pub fn new(id: ProfileId, f: Futex) -> Batch {
        let kind = match id {
            ProfileId::ZeroWake => Kind::Wake,
            ProfileId::Mismatch => Kind::Wait,
            _ => Kind::Nop,
        };
        Batch { kind, f }
    }
}

impl Workload for Batch {
    fn pairs_per_cycle(&self) -> u64 {
        self.f.slots as u64
    }

    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (f, k) = (&self.f, self.kind);
        let n = f.slots;
        let before = ledger.failures();
        let mut check = CycleCheck::new(seq, &f.plan);
        let t0 = clock.now_ns();
        match k {
            Kind::Wake => f.set_words(n, 0),
            Kind::Wait => f.set_words(n, MISMATCH_WORD),
            _ => {}
        }
        let sqes = ring.push_batch(n, |i| {
            let t = tag(seq, k, i);
            match k {
                Kind::Wake => ops::futex_wake(f.word(i), 1, f.flags, t),
                Kind::Wait => ops::futex_wait(f.word(i), MISMATCH_EXPECTED, f.flags, t),
                _ => ops::nop(t),
            }
        });
        if pushed(sqes, ledger, seq) && submitted(ring.submit_and_wait(n, n), n, k, ledger, seq) {
            collect(ring, &mut check, ledger, n, seq);
        }
        let t1 = inject::end_ns(clock, f.inject_ns);
        let clean = check.finish(ledger, before);
        (t1.wrapping_sub(t0), clean)
    }
}
