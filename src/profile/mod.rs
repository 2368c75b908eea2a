//! Workloads. Each profile knows how to run and validate one cycle; the
//! round driver here times cycles and keeps the ledger. `shape` states what
//! each cycle submits and must get back, for the checks, `describe` and the
//! TSV alike.
//!
//! Results the live kernel gives (checked on 6.18 by the live tests below,
//! `the_kernel_values_are_checked_not_assumed` among them, and by
//! tests/workloads.rs):
//! - FUTEX_WAIT: 0 when woken, -EAGAIN (-11) when the word differs from the
//!   expected value, -ECANCELED (-125) when cancelled.
//! - FUTEX_WAKE: the number of waiters woken (0 when nobody waits).
//! - FUTEX_WAITV: the index of the entry that was woken (3 for v0).
//! - ASYNC_CANCEL by user_data of a pending futex wait: 1 (the one request
//!   it found and cancelled); -ENOENT (-2) when nothing matches.
//! - NOP: 0.

pub mod batch;
pub mod lifecycle;
pub mod pollwake;
pub mod wait_cancel;
pub mod wait_wake;
pub mod waitv_wake;

use crate::check::{CycleCheck, Expect, Kind, Ledger, KINDS};
use crate::cli::ProfileId;
use crate::hist::Histogram;
use crate::ops;
use crate::ring::{Memory, Ring};
use crate::sys::clock::Clock;
use crate::sys::signal;
use crate::sys::uapi::*;
use crate::sys::{Errno, SysResult};

/// Most tries to collect a cycle's missing CQEs (each bounded by the ring's
/// wait timeout), so a broken kernel ends the run instead of hanging it.
const MAX_EXTRA_WAITS: u32 = 4;

/// Each futex word sits alone in a 64-byte cell (no false sharing).
pub const CELL_BYTES: usize = 64;
/// Word cells a profile maps: 64 slots, or v0's 8 groups x 8 words.
pub const MAX_CELLS: usize = 64;
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

/// What one cycle of a profile submits and must get back.
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

    /// SQEs per cycle by opcode: (FUTEX_WAIT + FUTEX_WAITV, FUTEX_WAKE
    /// including v0's check wakes, ASYNC_CANCEL, NOP).
    pub fn sqes(&self) -> [u64; 4] {
        let c = |k: Kind| self.expect[k as usize].count as u64;
        [
            c(Kind::Wait) + c(Kind::Waitv),
            c(Kind::Wake) + c(Kind::Check),
            c(Kind::Cancel),
            c(Kind::Nop),
        ]
    }
}

/// The shape of `id` with `slots` requests (v0: groups) per cycle. Out of
/// line: inlined into its three callers it costs ~1 KiB of binary.
#[inline(never)]
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
        // Its own runner and checks (pollwake/): nothing per futex kind.
        ProfileId::Pollwake => s,
    }
}

/// Opcodes `id` needs, with their UAPI names, for the probe.
pub fn opcodes(id: ProfileId) -> &'static [(u8, &'static str)] {
    const WAIT: (u8, &str) = (IORING_OP_FUTEX_WAIT, "IORING_OP_FUTEX_WAIT");
    const WAKE: (u8, &str) = (IORING_OP_FUTEX_WAKE, "IORING_OP_FUTEX_WAKE");
    const WAITV: (u8, &str) = (IORING_OP_FUTEX_WAITV, "IORING_OP_FUTEX_WAITV");
    const CANCEL: (u8, &str) = (IORING_OP_ASYNC_CANCEL, "IORING_OP_ASYNC_CANCEL");
    const NOP: (u8, &str) = (IORING_OP_NOP, "IORING_OP_NOP");
    match id {
        ProfileId::WaitWake | ProfileId::Lifecycle => &[WAIT, WAKE],
        ProfileId::WaitCancel => &[WAIT, CANCEL],
        ProfileId::WaitvWake => &[WAITV, WAKE],
        ProfileId::ZeroWake => &[WAKE],
        ProfileId::Mismatch => &[WAIT],
        ProfileId::Nop => &[NOP],
        ProfileId::Pollwake => &[(IORING_OP_MSG_RING, "IORING_OP_MSG_RING"), NOP],
    }
}

/// One workload.
pub trait Profile {
    /// Pairs (the unit of ns/pair) one cycle performs.
    fn pairs_per_cycle(&self) -> u64;
    /// Runs cycle `seq`: returns the nanoseconds of its timed span and
    /// whether it was clean (every failure is counted in `ledger`).
    fn cycle(
        &mut self,
        ring: &mut Ring,
        clock: &Clock,
        ledger: &mut Ledger,
        seq: u32,
    ) -> (u64, bool);
    /// Runs once after the last round (l0 waits there for deferred teardown).
    fn finish(&mut self) {}
}

/// Every profile, by value (no heap): `profile()` gives the trait object the
/// round driver runs.
pub enum Workload {
    WaitWake(wait_wake::WaitWake),
    WaitCancel(wait_cancel::WaitCancel),
    WaitvWake(waitv_wake::WaitvWake),
    Batch(batch::Batch),
    Lifecycle(lifecycle::Lifecycle),
}

impl Workload {
    /// `id` with `slots` requests per cycle on private or shared futex words;
    /// `timeout_ns` bounds the waits of rings the profile makes itself (l0).
    /// Out of line (binary size).
    #[inline(never)]
    pub fn new(id: ProfileId, slots: u32, private: bool, timeout_ns: u64) -> SysResult<Workload> {
        let s = shape(id, slots.min(MAX_CELLS as u32));
        let words = Words::new()?;
        let flags = ops::futex_flags(private);
        Ok(match id {
            ProfileId::WaitWake => Workload::WaitWake(wait_wake::WaitWake::new(words, s, flags)),
            ProfileId::WaitCancel => {
                Workload::WaitCancel(wait_cancel::WaitCancel::new(words, s, flags))
            }
            ProfileId::WaitvWake => {
                Workload::WaitvWake(waitv_wake::WaitvWake::new(words, s, flags)?)
            }
            ProfileId::ZeroWake | ProfileId::Mismatch | ProfileId::Nop => {
                Workload::Batch(batch::Batch::new(id, words, s, flags))
            }
            ProfileId::Lifecycle => Workload::Lifecycle(lifecycle::Lifecycle::new(
                wait_wake::WaitWake::new(words, s, flags),
                timeout_ns,
            )),
            // app::run hands pollwake to its own runner before this point.
            ProfileId::Pollwake => return Err(Errno::EINVAL),
        })
    }

    pub fn profile(&mut self) -> &mut dyn Profile {
        match self {
            Workload::WaitWake(p) => p,
            Workload::WaitCancel(p) => p,
            Workload::WaitvWake(p) => p,
            Workload::Batch(p) => p,
            Workload::Lifecycle(p) => p,
        }
    }
}

/// MAX_CELLS futex words, one per 64-byte cell, in an anonymous mapping.
pub struct Words(Memory);

impl Words {
    pub fn new() -> SysResult<Words> {
        Memory::new(MAX_CELLS * CELL_BYTES).map(Words)
    }

    /// The word of cell `i` (i < MAX_CELLS).
    #[inline(always)]
    pub fn word(&self, i: u32) -> *mut u32 {
        debug_assert!((i as usize) < MAX_CELLS);
        // SAFETY: i < MAX_CELLS, so the cell lies inside the mapping.
        unsafe { self.0.ptr().add(i as usize * CELL_BYTES) as *mut u32 }
    }

    /// Sets the first `n` words to `v` (outside any timed span).
    #[inline(always)]
    pub fn set(&self, n: u32, v: u32) {
        for i in 0..n {
            // SAFETY: the word is inside our mapping; volatile because the
            // kernel reads it behind the compiler's back.
            unsafe { self.word(i).write_volatile(v) };
        }
    }
}

/// A round's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub timed_ns: u64,
    pub cycles: u32,
    pub pairs: u64,
    pub passed: bool,
    /// SIGINT or SIGTERM was caught during it: the round is unfinished
    /// (its last cycle may have stopped waiting), and the run ends.
    pub interrupted: bool,
}

/// Runs up to `cycles` cycles, stopping at the first unclean one (the ring
/// state is then unknown, and the run fails anyway), or after the cycle
/// that saw SIGINT or SIGTERM caught (`interrupted`).
pub fn run_round(
    profile: &mut dyn Profile,
    ring: &mut Ring,
    clock: &Clock,
    ledger: &mut Ledger,
    cycles: u32,
    seq: &mut u32,
) -> Round {
    run_round_into(profile, ring, clock, ledger, cycles, seq, None)
}

/// `run_round`, also counting every timed cycle's nanoseconds in `hist`
/// (after the cycle's closing clock read: outside the timed span).
pub fn run_round_into(
    profile: &mut dyn Profile,
    ring: &mut Ring,
    clock: &Clock,
    ledger: &mut Ledger,
    cycles: u32,
    seq: &mut u32,
    mut hist: Option<&mut Histogram>,
) -> Round {
    let mut round = Round {
        passed: true,
        ..Round::default()
    };
    for _ in 0..cycles {
        let (ns, ok) = profile.cycle(ring, clock, ledger, *seq);
        *seq = seq.wrapping_add(1);
        if let Some(h) = hist.as_deref_mut() {
            h.record(ns);
        }
        round.timed_ns += ns;
        round.cycles += 1;
        round.pairs += profile.pairs_per_cycle();
        // Outside the timed span: one relaxed load per cycle. Before the
        // clean check: a cycle the signal cut short is not a failure.
        if signal::caught() != 0 {
            round.interrupted = true;
            break;
        }
        if !ok {
            round.passed = false;
            break;
        }
    }
    round
}

/// Counts a failed or short submission: `ret` must equal `want`. What the
/// kernel did take is counted as submitted requests of `kind`.
#[inline(always)]
pub fn check_submitted(
    ret: Result<usize, Errno>,
    want: u32,
    kind: Kind,
    ledger: &mut Ledger,
    seq: u32,
) -> bool {
    if let Ok(n) = ret {
        ledger.submitted[kind as usize] += n as u64;
    }
    submit_ok(ret, want, ledger, seq)
}

/// Counts a failed or short submission (`ret` must equal `want`) without a
/// per-kind count: pollwake's MSG_RING and NOP SQEs use it directly.
#[inline(always)]
pub fn submit_ok(ret: Result<usize, Errno>, want: u32, ledger: &mut Ledger, seq: u32) -> bool {
    if ret == Ok(want as usize) {
        return true;
    }
    ledger.submit_errors += 1;
    ledger.note("submit_error", seq, None);
    false
}

/// Counts a batch that did not fit in the SQ (a bug or a shrunken ring).
#[inline(always)]
pub fn check_pushed(pushed: bool, ledger: &mut Ledger, seq: u32) -> bool {
    if !pushed {
        ledger.submit_errors += 1;
        ledger.note("sq_full", seq, None);
    }
    pushed
}

/// Adds to `ledger` what the kernel reports about `ring` since `seen` (SQEs
/// it dropped, CQEs lost to overflow, the overflow flag) and what is still
/// in flight (SQEs not consumed, CQEs not reaped). Call it when nothing
/// should be in flight: after a round, or before closing a ring. Any count
/// fails the run, which then stops, so level counts are added once.
pub fn account_ring(ring: &Ring, ledger: &mut Ledger, seen: &mut [u32; 2], seq: u32) {
    let before = ledger.failures();
    let (dropped, overflow) = (ring.sq_dropped(), ring.cq_overflow());
    ledger.sq_dropped += dropped.wrapping_sub(seen[0]) as u64;
    ledger.cq_overflow += overflow.wrapping_sub(seen[1]) as u64;
    ledger.cq_overflow += (ring.sq_flags() & IORING_SQ_CQ_OVERFLOW != 0) as u64;
    *seen = [dropped, overflow];
    ledger.outstanding += ring.sq_outstanding() as u64 + ring.cq_ready() as u64;
    if ledger.failures() != before {
        ledger.note("ring_state", seq, None);
    }
}

/// Takes the `want` CQEs the last enter waited for into `check`, waiting
/// again (bounded) for any that are late. One out-of-line copy serves every
/// profile but s0 (which keeps its own inlined drain, as published): a call
/// per batch costs nothing next to io_uring_enter, and the binary stays small.
#[inline(never)]
pub fn collect(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    want: u32,
    seq: u32,
) {
    let got = ring.drain(want, |c| check.observe(c, ledger));
    check.add_received(got);
    if got < want {
        wait_rest(ring, check, ledger, got, want, seq);
    }
}

/// Collects the rest of a batch of `want` CQEs when the first wait returned
/// short: waits again (bounded), counting a timeout if the kernel never
/// delivers. `got` is how many of them were consumed so far. Whatever did
/// arrive is always taken (`CycleCheck::finish` counts the rest missing).
/// Once SIGINT or SIGTERM is caught it stops waiting (the round driver
/// then ends the run as interrupted, not failed).
pub fn wait_rest(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    mut got: u32,
    want: u32,
    seq: u32,
) {
    let mut tries = 0;
    while got < want {
        if signal::caught() != 0 {
            return;
        }
        if tries == MAX_EXTRA_WAITS {
            ledger.timeouts += 1;
            ledger.note("timeout", seq, None);
            return;
        }
        tries += 1;
        let waited = ring.submit_and_wait(0, want - got);
        let n = ring.drain(want - got, |c| check.observe(c, ledger));
        check.add_received(n);
        got += n;
        match waited {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(Errno::ETIME) => {
                ledger.timeouts += 1;
                ledger.note("timeout", seq, None);
                return;
            }
            Err(_) => {
                ledger.submit_errors += 1;
                ledger.note("enter_error", seq, None);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{tag, Plan};
    use crate::ring;

    #[test]
    fn shapes_state_every_expected_result() {
        let s0 = shape(ProfileId::WaitWake, 32);
        assert_eq!(
            (s0.pairs, s0.vector_width, s0.sqes()),
            (32, 1, [32, 32, 0, 0])
        );
        assert_eq!(s0.expect[Kind::Wait as usize], Expect { count: 32, res: 0 });
        assert_eq!(s0.expect[Kind::Wake as usize], Expect { count: 32, res: 1 });
        assert_eq!(shape(ProfileId::Lifecycle, 32), s0);

        let c0 = shape(ProfileId::WaitCancel, 32);
        let wait = Expect {
            count: 32,
            res: -125,
        };
        assert_eq!(c0.expect[Kind::Wait as usize], wait);
        assert_eq!(
            c0.expect[Kind::Cancel as usize],
            Expect { count: 32, res: 1 }
        );
        assert_eq!(c0.sqes(), [32, 0, 32, 0]);

        let v0 = shape(ProfileId::WaitvWake, 8);
        assert_eq!(
            (v0.pairs, v0.vector_width, v0.sqes()),
            (8, 8, [8, 16, 0, 0])
        );
        assert_eq!(v0.expect[Kind::Waitv as usize], Expect { count: 8, res: 3 });
        assert_eq!(v0.expect[Kind::Wake as usize], Expect { count: 8, res: 1 });
        assert_eq!(v0.expect[Kind::Check as usize], Expect { count: 8, res: 0 });
        assert_eq!(v0.expect[Kind::Wait as usize].count, 0);

        let z0 = shape(ProfileId::ZeroWake, 32);
        assert_eq!(z0.expect[Kind::Wake as usize], Expect { count: 32, res: 0 });
        assert_eq!(z0.sqes(), [0, 32, 0, 0]);
        let e0 = shape(ProfileId::Mismatch, 32);
        assert_eq!(
            e0.expect[Kind::Wait as usize],
            Expect {
                count: 32,
                res: -11
            }
        );
        let n0 = shape(ProfileId::Nop, 5);
        assert_eq!((n0.pairs, n0.sqes()), (5, [0, 0, 0, 5]));
    }

    #[test]
    fn opcodes_cover_every_kind_a_shape_uses() {
        for (id, ..) in ProfileId::ALL
            .into_iter()
            .filter(|p| p.0 != ProfileId::Pollwake)
        {
            let ops: Vec<u8> = opcodes(id).iter().map(|o| o.0).collect();
            let s = shape(id, 8).sqes();
            let waits = ops.contains(&IORING_OP_FUTEX_WAIT) || ops.contains(&IORING_OP_FUTEX_WAITV);
            assert_eq!(s[0] > 0, waits, "{id:?}");
            assert_eq!(s[1] > 0, ops.contains(&IORING_OP_FUTEX_WAKE), "{id:?}");
            assert_eq!(s[2] > 0, ops.contains(&IORING_OP_ASYNC_CANCEL), "{id:?}");
            assert_eq!(s[3] > 0, ops.contains(&IORING_OP_NOP), "{id:?}");
        }
    }

    // ---- synthetic CQEs: every workload's failure classes ----

    fn cqe(user_data: u64, res: i32) -> IoUringCqe {
        IoUringCqe {
            user_data,
            res,
            flags: 0,
        }
    }

    /// The CQEs of a clean cycle `seq` of `s`, kind by kind.
    fn clean(seq: u32, s: &Shape) -> Vec<IoUringCqe> {
        let mut v = Vec::new();
        for k in Kind::ALL {
            let e = s.expect[k as usize];
            for i in 0..e.count {
                v.push(cqe(tag(seq, k, i), e.res));
            }
        }
        v
    }

    fn verdict(seq: u32, s: &Shape, cqes: &[IoUringCqe]) -> (Ledger, bool) {
        let mut l = Ledger::default();
        let plan = Plan::new(&s.expect);
        let mut c = CycleCheck::new(seq, &plan);
        for q in cqes {
            c.observe(q, &mut l);
        }
        c.add_received(cqes.len() as u32);
        let ok = c.finish(&mut l, 0);
        (l, ok)
    }

    fn default_shape(id: ProfileId) -> Shape {
        let slots = if id == ProfileId::WaitvWake { 8 } else { 32 };
        shape(id, slots)
    }

    #[test]
    fn every_profile_accepts_its_clean_cycle() {
        for (id, ..) in ProfileId::ALL
            .into_iter()
            .filter(|p| p.0 != ProfileId::Pollwake)
        {
            let s = default_shape(id);
            let (l, ok) = verdict(9, &s, &clean(9, &s));
            assert!(ok && l.passed(), "{id:?}: {l:?}");
            let total: u32 = s.expect.iter().map(|e| e.count).sum();
            assert_eq!(l.cqes, total as u64, "{id:?}");
        }
    }

    #[test]
    fn a_wrong_result_for_the_workload_is_a_bad_result() {
        // (profile, kind, a result the kernel could give, what it would mean)
        let cases = [
            (
                ProfileId::WaitWake,
                Kind::Wait,
                -11,
                "word changed before queueing",
            ),
            (ProfileId::WaitWake, Kind::Wake, 0, "the wake found nobody"),
            (ProfileId::WaitCancel, Kind::Wait, 0, "woken, not cancelled"),
            (
                ProfileId::WaitCancel,
                Kind::Cancel,
                -2,
                "-ENOENT: nothing to cancel",
            ),
            (
                ProfileId::WaitCancel,
                Kind::Cancel,
                -114,
                "-EALREADY: already running",
            ),
            (
                ProfileId::WaitCancel,
                Kind::Cancel,
                0,
                "0, as other opcodes report",
            ),
            (
                ProfileId::WaitvWake,
                Kind::Waitv,
                0,
                "woken at another index",
            ),
            (ProfileId::WaitvWake, Kind::Wake, 0, "the wake found nobody"),
            (
                ProfileId::WaitvWake,
                Kind::Check,
                1,
                "a residual waiter stayed queued",
            ),
            (ProfileId::ZeroWake, Kind::Wake, 1, "somebody was waiting"),
            (
                ProfileId::Mismatch,
                Kind::Wait,
                0,
                "the wait queued and was woken",
            ),
            (ProfileId::Mismatch, Kind::Wait, -125, "cancelled instead"),
            (ProfileId::Nop, Kind::Nop, -22, "-EINVAL"),
            (
                ProfileId::Lifecycle,
                Kind::Wait,
                -125,
                "cancelled by the close",
            ),
        ];
        for (id, kind, res, why) in cases {
            let s = default_shape(id);
            let mut v = clean(3, &s);
            let i = v
                .iter()
                .position(|c| c.user_data == tag(3, kind, 1))
                .unwrap();
            v[i].res = res;
            let (l, ok) = verdict(3, &s, &v);
            assert!(!ok, "{id:?} {why}");
            assert_eq!(
                (l.bad_results, l.missing, l.duplicates),
                (1, 0, 0),
                "{id:?} {why}"
            );
            let f = l.first.unwrap();
            let c = f.cqe.unwrap();
            assert_eq!(
                (f.what, c.user_data, c.res),
                ("bad_result", tag(3, kind, 1), res)
            );
        }
    }

    #[test]
    fn v0_without_its_check_cqes_is_missing_them() {
        let s = default_shape(ProfileId::WaitvWake);
        let v: Vec<_> = clean(4, &s)
            .into_iter()
            .filter(|c| (c.user_data >> 8) & 0xff != Kind::Check as u64 || c.user_data & 0xff < 5)
            .collect();
        let (l, ok) = verdict(4, &s, &v);
        assert!(!ok);
        assert_eq!((l.missing, l.bad_results), (3, 0));
        assert_eq!(l.first.unwrap().what, "missing");
        assert_eq!(l.kind(Kind::Check), 5);
    }

    #[test]
    fn extra_and_foreign_cqes_per_profile() {
        for (id, ..) in ProfileId::ALL
            .into_iter()
            .filter(|p| p.0 != ProfileId::Pollwake)
        {
            let s = default_shape(id);
            // One CQE twice: a duplicate.
            let mut v = clean(5, &s);
            v.push(v[0]);
            let (l, ok) = verdict(5, &s, &v);
            assert!(!ok && l.duplicates == 1 && l.unknown_tags == 0, "{id:?}");
            // A kind the workload never submits, an index past its count, a
            // CQE of the previous cycle: all unknown tags.
            let foreign = Kind::ALL
                .into_iter()
                .find(|k| s.expect[*k as usize].count == 0);
            let mut v = clean(5, &s);
            v.push(cqe(tag(5, foreign.unwrap(), 0), 0));
            v.push(cqe(tag(5, Kind::ALL[0], 40), 0));
            v.push(cqe(tag(4, Kind::ALL[0], 0), 0));
            let (l, ok) = verdict(5, &s, &v);
            assert!(!ok, "{id:?}");
            assert_eq!(
                (l.unknown_tags, l.missing, l.bad_results),
                (3, 0, 0),
                "{id:?}"
            );
            // A CQE with flags set.
            let mut v = clean(5, &s);
            v[1].flags = 4;
            assert_eq!(verdict(5, &s, &v).0.bad_flags, 1, "{id:?}");
        }
    }

    // ---- the live kernel ----

    /// A ring with the opcodes `id` needs, or None after a loud SKIP.
    fn live_ring(id: ProfileId) -> Option<Ring> {
        let mut r = match Ring::new(64, 128, 0) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("SKIP: io_uring unavailable here: {e:?}");
                return None;
            }
        };
        r.set_wait_timeout_ns(2_000_000_000);
        let mut p = ring::empty_probe();
        r.probe(&mut p).unwrap();
        for &(op, name) in opcodes(id) {
            if !ring::probe_supports(&p, op) {
                eprintln!("SKIP: kernel lacks {name}");
                return None;
            }
        }
        Some(r)
    }

    fn run_cycles(id: ProfileId, shared: bool, cycles: u32) -> Option<(Ledger, Round)> {
        let mut ring = live_ring(id)?;
        let s = default_shape(id);
        let mut w = Workload::new(id, s.slots, !shared, 2_000_000_000).unwrap();
        let mut l = Ledger::default();
        let mut seq = 100;
        let round = run_round(
            w.profile(),
            &mut ring,
            &Clock::syscall(),
            &mut l,
            cycles,
            &mut seq,
        );
        account_ring(&ring, &mut l, &mut [0, 0], seq);
        Some((l, round))
    }

    #[test]
    fn every_profile_runs_clean_on_this_kernel() {
        for (id, ..) in ProfileId::ALL
            .into_iter()
            .filter(|p| p.0 != ProfileId::Pollwake)
        {
            for shared in [false, true] {
                if shared && !id.has_futex_scope() {
                    continue;
                }
                let Some((l, round)) = run_cycles(id, shared, 3) else {
                    return;
                };
                assert!(l.passed() && round.passed, "{id:?} shared={shared}: {l:?}");
                let s = default_shape(id);
                assert_eq!((round.cycles, round.pairs), (3, 3 * s.pairs), "{id:?}");
                for k in Kind::ALL {
                    let want = 3 * s.expect[k as usize].count as u64;
                    assert_eq!(l.kind(k), want, "{id:?} {k:?} CQEs");
                    assert_eq!(l.submitted[k as usize], want, "{id:?} {k:?} submitted");
                }
            }
        }
    }

    /// The checks compare with what the kernel really returns: a workload
    /// told to expect what most opcodes give (0) fails on this kernel for
    /// every request, and the first failure shows the real value.
    #[test]
    fn the_kernel_values_are_checked_not_assumed() {
        let Some(mut ring) = live_ring(ProfileId::WaitCancel) else {
            return;
        };
        let mut s = shape(ProfileId::WaitCancel, 32);
        s.expect[Kind::Cancel as usize].res = 0;
        let mut c0 = wait_cancel::WaitCancel::new(Words::new().unwrap(), s, ops::futex_flags(true));
        let mut l = Ledger::default();
        let (_, ok) = c0.cycle(&mut ring, &Clock::syscall(), &mut l, 1);
        assert!(!ok);
        assert_eq!((l.bad_results, l.missing), (32, 0));
        let f = l.first.unwrap().cqe.unwrap();
        assert_eq!(
            (f.res, (f.user_data >> 8) & 0xff),
            (RES_CANCEL_FOUND, Kind::Cancel as u64)
        );

        let Some(mut ring) = live_ring(ProfileId::WaitvWake) else {
            return;
        };
        let mut s = shape(ProfileId::WaitvWake, 8);
        s.expect[Kind::Waitv as usize].res = 0;
        let flags = ops::futex_flags(false);
        let mut v0 = waitv_wake::WaitvWake::new(Words::new().unwrap(), s, flags).unwrap();
        let mut l = Ledger::default();
        let (_, ok) = v0.cycle(&mut ring, &Clock::syscall(), &mut l, 1);
        assert!(!ok);
        assert_eq!((l.bad_results, l.missing), (8, 0));
        assert_eq!(l.first.unwrap().cqe.unwrap().res, WAITV_WAKE_INDEX as i32);
        // The check wakes still ran and found nobody: the WAITVs were done.
        assert_eq!(l.kind(Kind::Check), 8);
    }

    #[test]
    fn lifecycle_cycles_run_clean_in_their_own_rings() {
        let Some(mut main) = live_ring(ProfileId::Lifecycle) else {
            return;
        };
        let s = shape(ProfileId::Lifecycle, 4);
        let w = Words::new().unwrap();
        let mut l0 = lifecycle::Lifecycle::new(
            wait_wake::WaitWake::new(w, s, ops::futex_flags(true)),
            1_000_000_000,
        );
        let mut l = Ledger::default();
        let clock = Clock::syscall();
        for seq in 0..3 {
            let (ns, ok) = l0.cycle(&mut main, &clock, &mut l, seq);
            assert!(ok && ns > 0, "{l:?}");
        }
        assert_eq!((l.kind(Kind::Wait), l.kind(Kind::Wake)), (12, 12));
        assert_eq!(l.submitted[Kind::Wait as usize], 12);
    }
}
