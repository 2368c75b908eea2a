//! m0: the msg path, ring to ring. Per cycle, `slots` (32) IORING_OP_MSG_RING
//! data messages from the run's ring to a target ring of its own (no
//! flags, polled by nobody), submitted and waited for by one
//! io_uring_enter: each posts a CQE on the target (io_msg_ring ->
//! io_msg_ring_data, the target's CQ locked and committed per message)
//! and completes with res 0 on the run's ring; then the target's CQ is
//! drained: every target CQE must carry its message's user_data and
//! value (`value`: unique per cycle and index, so a stale or misrouted one
//! is caught) and flags 0. pollwake sends the same messages, its `none`
//! mode this cycle; m0 is the plain path alone: one sender, one target,
//! no poller, no second thread, no eventfd pass.
//!
//! Timed span: from before the first SQE is written to after the last
//! target CQE is checked. The target CQEs are posted during the enter, so
//! draining them takes no syscall.

use crate::check::{tag, Counter, Kind, Ledger, Plan};
use crate::config::RingFlags;
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::setup::{self, CyclePlan, Whose};
use crate::profile::vocabulary::{
    Function, Names, Profile, RowSet, RunOptions, Shape, Timed, Workload, MSG_RING,
};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IoUringSqe;

/// m0: MSG_RING data messages into a second ring.
pub static M0: Profile = Profile {
    names: Names {
        short: "m0",
        long: "msg-ring",
        formal: "m0_msg_ring",
        help: "32 MSG_RING to a second ring (res 0; each CQE there its value)",
    },
    per: "MSG_RING message",
    opcodes: &[MSG_RING],
    options: RunOptions::SLOTS,
    shape: |cfg| shape(cfg.slots),
    series: &[RowSet::only(
        "m0_msg_ring",
        "io_uring MSG_RING, ring to ring",
    )],
    punted: &[],
    functions: &FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        let target = setup::ring(TARGET, RingFlags::None, s.cfg.timeout_ns())?;
        let mut m0 = MsgRing {
            p: CyclePlan::of(s),
            target,
        };
        then(&mut m0, ring, ledger)
    },
};

/// The target ring, as a failed set-up names it.
const TARGET: Whose = Whose::Own("msg-ring target");

/// MSG_RING's `.prep` and `.issue` (io_uring/msg_ring.c), once per message
/// each; pollwake names the same.
pub const FUNCTIONS: [Function; 2] = [
    Function::per_request("io_msg_ring_prep", &[Kind::Source]),
    Function::per_request("io_msg_ring", &[Kind::Source]),
];

/// The checks line's totals: the messages' own CQEs and the target's.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("source_cqes", |l| l.kind(Kind::Source)),
    ("target_cqes", |l| l.kind(Kind::Target)),
];

/// A cycle of `n` messages: their source CQEs (res 0) and their target
/// CQEs (each with its own message's value, `set_values`).
pub fn shape(n: u32) -> Shape {
    Shape::new(n)
        .with(Kind::Source, n, 0)
        .with(Kind::Target, n, 0)
}

/// The len (target res) of message `i` of cycle `seq`: unique per cycle
/// and index, below 2^31.
#[inline(always)]
pub const fn value(seq: u32, i: u32) -> u32 {
    ((seq & 0x7f_ffff) << 8) | i
}

/// How many of the first `cycles` cycles' target CQEs carry the value 0
/// (message 0 of every cycle whose `seq` is a multiple of 2^23): the
/// witness counts those with the source CQEs' res 0.
pub fn zero_values(cycles: u64) -> u64 {
    cycles.div_ceil(1 << 23)
}

/// Expects of cycle `seq`'s first `n` target CQEs their messages' values.
pub fn set_values(plan: &mut Plan, seq: u32, n: u32) {
    for i in 0..n {
        plan.set_res(Kind::Target, i, value(seq, i) as i32);
    }
}

/// Cycle `seq`'s `n` messages to the ring `fd`: message `i` posts
/// `tag(seq, Target, i)` with res `value(seq, i)` there, and its own CQE
/// is `tag(seq, Source, i)`.
#[inline(always)]
pub fn messages(fd: i32, seq: u32, n: u32) -> Batch<impl FnMut(u32) -> IoUringSqe> {
    Batch::new(Kind::Source, n, move |i| {
        let msg = tag(seq, Kind::Target, i);
        ops::msg_ring_data(fd, value(seq, i), msg, tag(seq, Kind::Source, i))
    })
}

pub struct MsgRing {
    p: CyclePlan,
    /// The ring the messages post into.
    target: Ring,
}

impl Workload for MsgRing {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, target) = (&mut self.p, &mut self.target);
        let n = p.slots;
        // Untimed: each target CQE's res is its message's value.
        set_values(&mut p.plan, seq, n);
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.one_batch(ring, ledger, messages(target.fd(), seq, n));
        c.collect_from(target, ledger, n);
        c.end(clock, p.inject_ns, ledger)
    }

    fn account(&mut self, ledger: &mut Ledger, seq: u32) {
        crate::profile::parts::collect::account(&mut self.target, ledger, seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CycleCheck, Fail};
    use crate::config::CQ_ENTRIES;
    use crate::profile::tests::live::live_plan;
    use crate::sys::uapi::IoUringCqe;

    /// A target CQE must carry its own message's value: one with another
    /// cycle's or another index's is a bad result.
    #[test]
    fn a_target_cqe_carries_its_own_messages_value() {
        let mut plan = Plan::new(&shape(4).expect);
        set_values(&mut plan, 5, 4);
        for (res, bad) in [(value(5, 2), 0), (value(4, 2), 1), (value(5, 1), 1)] {
            let mut l = Ledger::default();
            let mut c = CycleCheck::new(5, &plan);
            let cqe = IoUringCqe {
                user_data: tag(5, Kind::Target, 2),
                res: res as i32,
                flags: 0,
            };
            c.observe(&cqe, &mut l);
            assert_eq!(l.count(Fail::BadResult), bad, "{res:#x}");
        }
    }

    /// m0 runs clean, and the target ring's CQEs are checked: a message
    /// of another cycle left in the target before a cycle is the first
    /// CQE the cycle drains there, a foreign tag.
    #[test]
    fn a_stale_message_in_the_target_is_caught() {
        let Some((mut ring, p)) = live_plan(&M0, 8) else {
            return;
        };
        let Ok(target) = Ring::new(8, CQ_ENTRIES, 0) else {
            panic!("the target ring failed")
        };
        let mut m0 = MsgRing { p, target };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..2 {
            assert!(m0.cycle(&mut ring, &clock, &mut l, seq).1, "{l:?}");
        }
        assert_eq!((l.kind(Kind::Source), l.kind(Kind::Target)), (16, 16));
        let fd = m0.target.fd();
        assert!(ring.push_batch(1, |_| ops::msg_ring_data(fd, 9, tag(9, Kind::Target, 0), 9)));
        assert_eq!(ring.submit_and_wait(1, 1), Ok(1));
        assert_eq!(
            ring.drain(1, |c| assert_eq!((c.user_data, c.res), (9, 0))),
            1
        );
        let (_, ok) = m0.cycle(&mut ring, &clock, &mut l, 2);
        assert!(!ok);
        let f = l.first.unwrap();
        assert_eq!(
            (f.what, f.cqe.unwrap().user_data),
            ("unknown_tag", tag(9, Kind::Target, 0))
        );
    }
}
