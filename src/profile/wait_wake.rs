//! s0, the report's contract: per cycle, `slots` IORING_OP_FUTEX_WAIT on
//! words holding 0 (val 0, mask MATCH_ANY), one io_uring_enter to submit
//! them, then `slots` IORING_OP_FUTEX_WAKE (nr 1), one io_uring_enter that
//! submits and waits for all 2*slots CQEs. Every WAIT must end with res 0
//! (woken), every WAKE with res 1 (one waiter woken), flags 0, once each.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked. Resetting the words happens before it.

use super::{check_pushed, check_submitted, wait_rest, Profile};
use crate::check::{tag, CycleCheck, Expect, Kind, Ledger, Plan, KINDS};
use crate::ops;
use crate::ring::{Memory, Ring};
use crate::sys::clock::Clock;
use crate::sys::uapi::{IORING_OP_FUTEX_WAIT, IORING_OP_FUTEX_WAKE};
use crate::sys::SysResult;

/// Each futex word sits alone in a 64-byte cell (no false sharing).
pub const CELL_BYTES: usize = 64;
/// Word cells we map: one per slot, slots <= 64.
pub const MAX_CELLS: usize = 64;

pub struct WaitWake {
    words: Memory,
    slots: u32,
    flags: u32,
    plan: Plan,
}

impl WaitWake {
    /// `slots` pairs per cycle (1..=64) on private or shared futex words.
    pub fn new(slots: u32, private: bool) -> SysResult<WaitWake> {
        let mut expect = [Expect::default(); KINDS];
        expect[Kind::Wait as usize] = Expect {
            count: slots,
            res: 0,
        };
        expect[Kind::Wake as usize] = Expect {
            count: slots,
            res: 1,
        };
        Ok(WaitWake {
            words: Memory::new(MAX_CELLS * CELL_BYTES)?,
            slots: slots.min(MAX_CELLS as u32),
            flags: ops::futex_flags(private),
            plan: Plan::new(&expect),
        })
    }
}

impl Profile for WaitWake {
    fn opcodes(&self) -> &'static [(u8, &'static str)] {
        &[
            (IORING_OP_FUTEX_WAIT, "IORING_OP_FUTEX_WAIT"),
            (IORING_OP_FUTEX_WAKE, "IORING_OP_FUTEX_WAKE"),
        ]
    }

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
        // Locals, so stores into the SQ ring do not force reloads of self.
        let (words, flags) = (self.words.ptr(), self.flags);
        let word = |i: u32| (words as usize + i as usize * CELL_BYTES) as *mut u32;
        for i in 0..n {
            // SAFETY: cell i < slots <= MAX_CELLS lies inside `words`;
            // volatile because the kernel reads it behind the compiler's back.
            unsafe { word(i).write_volatile(0) };
        }
        let before = ledger.failures();
        let t0 = clock.now_ns();
        let pushed = ring.push_batch(n, |i| {
            ops::futex_wait(word(i), 0, flags, tag(seq, Kind::Wait, i))
        });
        let mut ok = check_pushed(pushed, ledger, seq);
        ok = ok && check_submitted(ring.submit(n), n, ledger, seq);
        if ok {
            let pushed = ring.push_batch(n, |i| {
                ops::futex_wake(word(i), 1, flags, tag(seq, Kind::Wake, i))
            });
            ok = check_pushed(pushed, ledger, seq);
        }
        let mut check = CycleCheck::new(seq, &self.plan);
        ok = ok && check_submitted(ring.submit_and_wait(n, 2 * n), n, ledger, seq);
        let mut got = 0;
        if ok {
            got = ring.drain(2 * n, |c| check.observe(c, ledger));
            if got < 2 * n {
                got = wait_rest(ring, &mut check, ledger, got, seq);
            }
        }
        let t1 = clock.now_ns();
        let clean = check.finish(ledger, got, before);
        (t1.wrapping_sub(t0), clean)
    }
}
