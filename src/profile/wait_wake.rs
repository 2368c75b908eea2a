//! s0, the report's contract: per cycle, `slots` IORING_OP_FUTEX_WAIT on
//! words holding 0 (val 0, mask MATCH_ANY), one io_uring_enter to submit
//! them, then `slots` IORING_OP_FUTEX_WAKE (nr 1), one io_uring_enter that
//! submits and waits for all 2*slots CQEs. Every WAIT must end with res 0
//! (woken), every WAKE with res 1 (one waiter woken), flags 0, once each.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked. Resetting the words happens before it.

use super::{check_pushed, check_submitted, wait_rest, Profile, Shape, Words, CELL_BYTES};
use crate::check::{tag, CycleCheck, Kind, Ledger, Plan};
use crate::ops;
use crate::ring::Ring;
use crate::sys::clock::Clock;

pub struct WaitWake {
    words: Words,
    slots: u32,
    flags: u32,
    plan: Plan,
}

impl WaitWake {
    /// `shape.slots` pairs per cycle on `words`, with futex2 `flags`.
    pub fn new(words: Words, shape: Shape, flags: u32) -> WaitWake {
        WaitWake {
            words,
            slots: shape.slots,
            flags,
            plan: Plan::new(&shape.expect),
        }
    }
}

impl Profile for WaitWake {
    fn pairs_per_cycle(&self) -> u64 {
        self.slots as u64
    }

    #[inline(never)]
    fn cycle(
        &mut self,
        ring: &mut Ring,
        clock: &Clock,
        ledger: &mut Ledger,
        seq: u32,
    ) -> (u64, bool) {
        let n = self.slots;
        self.words.set(n, 0);
        // Locals, so stores into the SQ ring do not force reloads of self.
        let (words, flags) = (self.words.word(0) as usize, self.flags);
        let word = |i: u32| (words + i as usize * CELL_BYTES) as *const u32;
        let t0 = clock.now_ns();
        let pushed = ring.push_batch(n, |i| {
            ops::futex_wait(word(i), 0, flags, tag(seq, Kind::Wait, i))
        });
        let mut ok = check_pushed(pushed, ledger, seq)
            && check_submitted(ring.submit(n), n, Kind::Wait, ledger, seq);
        if ok {
            let pushed = ring.push_batch(n, |i| {
                ops::futex_wake(word(i), 1, flags, tag(seq, Kind::Wake, i))
            });
            ok = check_pushed(pushed, ledger, seq);
        }
        let mut check = CycleCheck::new(seq, &self.plan);
        ok = ok && check_submitted(ring.submit_and_wait(n, 2 * n), n, Kind::Wake, ledger, seq);
        if ok {
            let got = ring.drain(2 * n, |c| check.observe(c, ledger));
            check.add_received(got);
            if got < 2 * n {
                wait_rest(ring, &mut check, ledger, got, 2 * n, seq);
            }
        }
        let t1 = clock.now_ns();
        // Every failure outside the check is a failed submission (`ok`).
        let clean = check.finish_own(ledger) && ok;
        (t1.wrapping_sub(t0), clean)
    }
}
