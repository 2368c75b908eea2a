//! What one cycle of each workload submits and must get back: the checks,
//! `describe` and the TSV all read it from here.
//!
//! Results the live kernel gives (6.18; the live tests in this module and
//! tests/workloads.rs check them):
//! - FUTEX_WAIT: 0 when woken, -EAGAIN (-11) when the word differs from the
//!   expected value, -ECANCELED (-125) when cancelled.
//! - FUTEX_WAKE: the number of waiters woken (0 when nobody waits).
//! - FUTEX_WAITV: the index of the entry that was woken (3 for v0).
//! - ASYNC_CANCEL by user_data of a pending futex wait: 1 (the one request
//!   it found and cancelled); -ENOENT (-2) when nothing matches.
//! - NOP: 0.

use super::ProfileId;
use crate::check::{Expect, Kind, KINDS};
use crate::sys::Errno;

/// v0: futex words per FUTEX_WAITV.
pub const WAITV_WIDTH: u32 = 8;
/// v0: the word of each group the WAKE targets (the WAITV's expected res).
pub const WAITV_WAKE_INDEX: u32 = 3;
/// v0: the word of each group the check WAKE targets after the WAITV ended.
pub const WAITV_CHECK_INDEX: u32 = 0;

/// -ECANCELED: a FUTEX_WAIT ended by ASYNC_CANCEL.
pub const RES_CANCELED: i32 = -Errno::ECANCELED.0;
/// -EAGAIN: a FUTEX_WAIT whose word did not hold the expected value.
pub const RES_AGAIN: i32 = -Errno::EAGAIN.0;
/// ASYNC_CANCEL by user_data of one pending futex wait: one request found.
pub const RES_CANCEL_FOUND: i32 = 1;

/// What one cycle of a workload submits and must get back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Requests of the main kind per cycle (v0: FUTEX_WAITV groups).
    pub slots: u32,
    /// Futex words per wait request (v0: 8, everything else 1).
    pub vector_width: u32,
    /// The unit of ns/pair per cycle: WAIT/WAKE (or WAIT/CANCEL, WAITV/WAKE)
    /// pairs; single requests for z0, e0 and n0.
    pub pairs: u64,
    /// The CQEs a cycle must produce, per kind (count and res).
    pub expect: [Expect; KINDS],
}

impl Shape {
    fn with(mut self, kind: Kind, count: u32, res: i32) -> Shape {
        self.expect[kind as usize] = Expect { count, res };
        self
    }
}

/// The shape of `id` with `slots` requests (v0: groups) per cycle.
pub fn shape(id: ProfileId, slots: u32) -> Shape {
    let s = Shape {
        slots,
        vector_width: 1,
        pairs: slots as u64,
        expect: [Expect::default(); KINDS],
    };
    match id {
        ProfileId::WaitWake | ProfileId::Lifecycle => {
            s.with(Kind::Wait, slots, 0).with(Kind::Wake, slots, 1)
        }
        ProfileId::WaitCancel => {
            s.with(Kind::Wait, slots, RES_CANCELED)
                .with(Kind::Cancel, slots, RES_CANCEL_FOUND)
        }
        ProfileId::WaitvWake => Shape {
            vector_width: WAITV_WIDTH,
            ..s
        }
        .with(Kind::Waitv, slots, WAITV_WAKE_INDEX as i32)
        .with(Kind::Wake, slots, 1)
        .with(Kind::Check, slots, 0),
        ProfileId::ZeroWake => s.with(Kind::Wake, slots, 0),
        ProfileId::Mismatch => s.with(Kind::Wait, slots, RES_AGAIN),
        ProfileId::Nop => s.with(Kind::Nop, slots, 0),
        // Each burst's messages and their target CQEs (pollwake/).
        ProfileId::Pollwake => s.with(Kind::Source, slots, 0).with(Kind::Target, slots, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_state_every_expected_result() {
        let e = |count, res| Expect { count, res };
        let s0 = shape(ProfileId::WaitWake, 32);
        assert_eq!((s0.pairs, s0.vector_width), (32, 1));
        assert_eq!(s0.expect[Kind::Wait as usize], e(32, 0));
        assert_eq!(s0.expect[Kind::Wake as usize], e(32, 1));
        assert_eq!(shape(ProfileId::Lifecycle, 32), s0);
        let c0 = shape(ProfileId::WaitCancel, 32);
        assert_eq!(c0.expect[Kind::Wait as usize], e(32, -125));
        assert_eq!(c0.expect[Kind::Cancel as usize], e(32, 1));
        let v0 = shape(ProfileId::WaitvWake, 8);
        assert_eq!((v0.pairs, v0.vector_width), (8, 8));
        assert_eq!(v0.expect[Kind::Waitv as usize], e(8, 3));
        assert_eq!(v0.expect[Kind::Wake as usize], e(8, 1));
        assert_eq!(v0.expect[Kind::Check as usize], e(8, 0));
        assert_eq!(v0.expect[Kind::Wait as usize].count, 0);
        assert_eq!(shape(ProfileId::ZeroWake, 32).expect[1], e(32, 0));
        assert_eq!(shape(ProfileId::Mismatch, 32).expect[0], e(32, -11));
        let n0 = shape(ProfileId::Nop, 5);
        assert_eq!((n0.pairs, n0.expect[Kind::Nop as usize].count), (5, 5));
    }

    #[test]
    fn the_probe_covers_every_kind_a_shape_uses() {
        use crate::sys::uapi::*;
        let uses = |k: Kind| match k {
            Kind::Wait => IORING_OP_FUTEX_WAIT,
            Kind::Waitv => IORING_OP_FUTEX_WAITV,
            Kind::Wake | Kind::Check => IORING_OP_FUTEX_WAKE,
            Kind::Cancel => IORING_OP_ASYNC_CANCEL,
            Kind::Nop => IORING_OP_NOP,
            Kind::Source | Kind::Target => IORING_OP_MSG_RING,
        };
        for id in ProfileId::ALL {
            let ops: Vec<u8> = id.opcodes().iter().map(|o| o.0).collect();
            let s = shape(id, 8);
            for k in Kind::ALL
                .into_iter()
                .filter(|&k| s.expect[k as usize].count > 0)
            {
                assert!(ops.contains(&uses(k)), "{id:?} {k:?}");
            }
        }
    }
}
