//! What one cycle of a workload submits and must get back: the checks,
//! `describe` and the TSV all read it from the workload's `Profile::shape`.
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

use crate::check::{Expect, Kind, KINDS};
use crate::sys::Errno;

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
    /// `slots` requests (each a pair of ns/pair) of one word each, and no
    /// CQE expected yet.
    pub fn new(slots: u32) -> Shape {
        Shape {
            slots,
            vector_width: 1,
            pairs: slots as u64,
            expect: [Expect::default(); KINDS],
        }
    }

    /// This shape, with `count` CQEs of `kind` a cycle, each with `res`.
    pub fn with(mut self, kind: Kind, count: u32, res: i32) -> Shape {
        self.expect[kind as usize] = Expect { count, res };
        self
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::profile::ProfileId;

    /// The shape of profile `name` with `slots` requests (pollwake: a
    /// burst of that many messages) per cycle.
    pub fn shape_of(name: &str, slots: u32) -> Shape {
        let id = ProfileId::parse(name.as_bytes()).unwrap();
        let cfg = RunConfig {
            slots,
            burst: slots,
            ..RunConfig::default()
        };
        id.shape(&cfg)
    }

    #[test]
    fn shapes_state_every_expected_result() {
        let e = |count, res| Expect { count, res };
        let s0 = shape_of("s0", 32);
        assert_eq!((s0.pairs, s0.vector_width), (32, 1));
        assert_eq!(s0.expect[Kind::Wait as usize], e(32, 0));
        assert_eq!(s0.expect[Kind::Wake as usize], e(32, 1));
        assert_eq!(shape_of("l0", 32), s0);
        let c0 = shape_of("c0", 32);
        assert_eq!(c0.expect[Kind::Wait as usize], e(32, -125));
        assert_eq!(c0.expect[Kind::Cancel as usize], e(32, 1));
        let v0 = shape_of("v0", 8);
        assert_eq!((v0.pairs, v0.vector_width), (8, 8));
        assert_eq!(v0.expect[Kind::Waitv as usize], e(8, 3));
        assert_eq!(v0.expect[Kind::Wake as usize], e(8, 1));
        assert_eq!(v0.expect[Kind::Check as usize], e(8, 0));
        assert_eq!(v0.expect[Kind::Wait as usize].count, 0);
        assert_eq!(shape_of("z0", 32).expect[1], e(32, 0));
        assert_eq!(shape_of("e0", 32).expect[0], e(32, -11));
        let n0 = shape_of("n0", 5);
        assert_eq!((n0.pairs, n0.expect[Kind::Nop as usize].count), (5, 5));
        let pw = shape_of("pollwake", 16);
        assert_eq!((pw.slots, pw.pairs), (16, 16));
        assert_eq!(pw.expect[Kind::Source as usize], e(16, 0));
        assert_eq!(pw.expect[Kind::Target as usize], e(16, 0));
    }

    #[test]
    fn the_probe_covers_every_kind_a_shape_uses() {
        use crate::sys::uapi::*;
        let uses = |k: Kind| match k {
            Kind::Wait => IORING_OP_FUTEX_WAIT,
            Kind::Waitv => IORING_OP_FUTEX_WAITV,
            Kind::Wake | Kind::Check => IORING_OP_FUTEX_WAKE,
            Kind::Cancel => IORING_OP_ASYNC_CANCEL,
            Kind::Nop | Kind::Link => IORING_OP_NOP,
            Kind::Source | Kind::Target => IORING_OP_MSG_RING,
            Kind::Read => IORING_OP_READ,
            Kind::Write => IORING_OP_WRITE,
            Kind::Poll => IORING_OP_POLL_ADD,
            Kind::Timeout => IORING_OP_TIMEOUT,
            Kind::Send => IORING_OP_SEND,
            Kind::Recv => IORING_OP_RECV,
        };
        for id in ProfileId::ALL {
            let ops: Vec<u8> = id.profile().opcodes.iter().map(|o| o.0).collect();
            let s = shape_of(id.names().short, 8);
            for k in Kind::ALL
                .into_iter()
                .filter(|&k| s.expect[k as usize].count > 0)
            {
                assert!(ops.contains(&uses(k)), "{id:?} {k:?}");
            }
        }
    }
}
