//! The validation ledger: every CQE is checked against what its workload
//! expects, and every deviation is counted (not just asserted), so the
//! output shows exactly what went wrong and how often.
//!
//! user_data layout: `seq << 16 | kind << 8 | index`. `seq` is the cycle's
//! sequence number (low 32 bits), so a CQE left over from an earlier cycle
//! is caught as an unknown tag instead of being credited to the current one.

use core::fmt;

use crate::sys::uapi::IoUringCqe;
use crate::sys::Errno;

/// Request kinds (the `kind` byte of user_data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Wait = 0,
    Wake = 1,
    Cancel = 2,
    /// v0's proof WAKE after a WAITV completed: must find nobody (res 0).
    Check = 3,
    Nop = 4,
    /// IORING_OP_FUTEX_WAITV (v0): res is the index of the woken word.
    Waitv = 5,
    /// pollwake: a MSG_RING request's own CQE, on the sending ring.
    Source = 6,
    /// pollwake: the CQE a MSG_RING request posts on the target ring.
    Target = 7,
    /// IORING_OP_READ: res is the bytes read.
    Read = 8,
    /// IORING_OP_WRITE: res is the bytes written.
    Write = 9,
    /// IORING_OP_POLL_ADD, one-shot: res is the ready mask.
    Poll = 10,
    /// IORING_OP_TIMEOUT: res 0 when its count of completions was met.
    Timeout = 11,
    /// IORING_OP_SEND and IORING_OP_RECV: res is the bytes moved.
    Send = 12,
    Recv = 13,
    /// A NOP queued by the link path: a later member of an IOSQE_IO_LINK
    /// chain, issued when the one before it completed (the chain's head
    /// is a `Nop`).
    Link = 14,
    /// IORING_OP_SPLICE (b0): res is the bytes moved.
    Splice = 15,
    /// g0's mix, one kind per opcode: FSYNC, FALLOCATE, FADVISE, MADVISE,
    /// STATX, FTRUNCATE and SYNC_FILE_RANGE end with res 0.
    Fsync = 16,
    Fallocate = 17,
    Fadvise = 18,
    Madvise = 19,
    Statx = 20,
    Ftruncate = 21,
    SyncRange = 22,
}

/// Number of kinds: 5 bits of the tag's kind byte (nine left free).
pub const KINDS: usize = 32;
// A plan's `kinds` has a bit per kind.
const _: () = assert!(KINDS <= u32::BITS as usize);

impl Kind {
    /// Every kind, in user_data order (`KINDS` has room for one more).
    pub const ALL: [Kind; Kind::SyncRange as usize + 1] = [
        Kind::Wait,
        Kind::Wake,
        Kind::Cancel,
        Kind::Check,
        Kind::Nop,
        Kind::Waitv,
        Kind::Source,
        Kind::Target,
        Kind::Read,
        Kind::Write,
        Kind::Poll,
        Kind::Timeout,
        Kind::Send,
        Kind::Recv,
        Kind::Link,
        Kind::Splice,
        Kind::Fsync,
        Kind::Fallocate,
        Kind::Fadvise,
        Kind::Madvise,
        Kind::Statx,
        Kind::Ftruncate,
        Kind::SyncRange,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Wait => "wait",
            Kind::Wake => "wake",
            Kind::Cancel => "cancel",
            Kind::Check => "check",
            Kind::Nop => "nop",
            Kind::Waitv => "waitv",
            Kind::Source => "source",
            Kind::Target => "target",
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Poll => "poll",
            Kind::Timeout => "timeout",
            Kind::Send => "send",
            Kind::Recv => "recv",
            Kind::Link => "link",
            Kind::Splice => "splice",
            Kind::Fsync => "fsync",
            Kind::Fallocate => "fallocate",
            Kind::Fadvise => "fadvise",
            Kind::Madvise => "madvise",
            Kind::Statx => "statx",
            Kind::Ftruncate => "ftruncate",
            Kind::SyncRange => "sync_range",
        }
    }
}

/// Most requests of one kind in one cycle (one bit each in a u64).
pub const MAX_PER_KIND: u32 = 64;

/// The user_data for request `index` of `kind` in cycle `seq`.
#[inline(always)]
pub const fn tag(seq: u32, kind: Kind, index: u32) -> u64 {
    ((seq as u64) << 16) | ((kind as u64) << 8) | index as u64
}

/// What a cycle must produce for one kind: `count` CQEs, each with `res`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    pub count: u32,
    pub res: i32,
}

/// The classes of failure; any non-zero count fails the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    /// A CQE's res is not what the request must return.
    BadResult,
    BadFlags,
    /// A CQE whose user_data names no request of the cycle.
    UnknownTag,
    Duplicate,
    /// An expected CQE never came.
    Missing,
    /// A bounded wait expired.
    Timeout,
    /// A submission failed, came up short, or did not fit the SQ.
    SubmitError,
    SqDropped,
    CqOverflow,
    /// SQEs not consumed or CQEs not reaped at a round boundary.
    Outstanding,
    /// getcpu did not report the pinned CPU.
    Migration,
    /// pollwake: idle's epoll_pwait(0) did not report the ring once.
    EpollBad,
    /// pollwake: CQEs posted and no poller woken (the watchdog).
    LostWakeup,
    /// pollwake: an epoll event other than (EPOLLIN, our token).
    BadEvent,
    /// pollwake: the waiter failed to start, failed, timed out or stayed.
    WaiterError,
    /// pollwake: the waiter was not asleep before a burst.
    NotAsleep,
    /// pollwake: the eventfd pass saw other commit counts than this kernel's.
    EventfdBad,
}

/// The number of failure classes: the last one's, plus one (a class added
/// after it must take its place here). Each class is counted on a checks
/// line, `FAILURES`' on every workload's and the rest on the one workload's
/// that can fail so: pollwake/output.rs asserts that they add up to this.
pub const FAILS: usize = Fail::EventfdBad as usize + 1;

/// The first deviation of a run, with enough context to trace it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    pub what: &'static str,
    pub seq: u32,
    /// The offending CQE, when one CQE is to blame.
    pub cqe: Option<IoUringCqe>,
    /// The system call to blame and what it returned, when one is.
    pub call: Option<Call>,
}

/// A system call that failed a cycle, and what it returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: &'static str,
    pub ret: Returned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returned {
    Errno(Errno),
    /// io_uring_enter took the first of the second's SQEs.
    Took(u32, u32),
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ret {
            Returned::Errno(e) => write!(f, "{}: {e}", self.name),
            Returned::Took(n, of) => write!(f, "{} took {n} of {of} SQEs", self.name),
        }
    }
}

/// Counters of everything validated over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    /// SQEs the kernel accepted, by the kind of request.
    pub submitted: [u64; KINDS],
    /// CQEs consumed, and those that passed their checks by kind.
    pub cqes: u64,
    pub kind_cqes: [u64; KINDS],
    fails: [u64; FAILS],
    /// The first failure seen, for the one-line diagnosis.
    pub first: Option<Failure>,
}

impl Ledger {
    /// Counts one failure of class `f` and notes it if it is the first.
    /// Not inlined: a cold path, at thirty-odd places of the workloads.
    #[cold]
    #[inline(never)]
    pub fn fail(&mut self, f: Fail, what: &'static str, seq: u32, cqe: Option<&IoUringCqe>) {
        self.add(f, 1);
        self.note(what, seq, cqe);
    }

    /// `fail`, with the system call to blame.
    #[cold]
    pub fn fail_call(&mut self, f: Fail, what: &'static str, seq: u32, call: Call) {
        self.add(f, 1);
        self.first.get_or_insert(Failure {
            what,
            seq,
            cqe: None,
            call: Some(call),
        });
    }

    /// Counts `n` failures of class `f` (the caller notes the first).
    pub fn add(&mut self, f: Fail, n: u64) {
        self.fails[f as usize] += n;
    }

    /// Records the first failure's context (later ones only count).
    pub fn note(&mut self, what: &'static str, seq: u32, cqe: Option<&IoUringCqe>) {
        if self.first.is_none() {
            self.first = Some(Failure {
                what,
                seq,
                cqe: cqe.copied(),
                call: None,
            });
        }
    }

    /// Failures of class `f` so far.
    pub fn count(&self, f: Fail) -> u64 {
        self.fails[f as usize]
    }

    /// Failures of every class so far.
    pub fn failures(&self) -> u64 {
        self.fails.iter().sum()
    }

    pub fn passed(&self) -> bool {
        self.failures() == 0
    }

    /// Requests of `kind` the kernel accepted.
    pub fn requests(&self, kind: Kind) -> u64 {
        self.submitted[kind as usize]
    }

    /// CQEs of `kind` that passed their checks.
    pub fn kind(&self, kind: Kind) -> u64 {
        self.kind_cqes[kind as usize]
    }

    /// What was counted since `before` (an earlier copy of this ledger):
    /// one round's share. `first` is kept from `self`.
    pub fn since(&self, before: &Ledger) -> Ledger {
        let mut d = *self;
        let pairs = [
            (&mut d.submitted[..], &before.submitted[..]),
            (&mut d.kind_cqes, &before.kind_cqes),
            (&mut d.fails, &before.fails),
        ];
        for (now, then) in pairs {
            now.iter_mut().zip(then).for_each(|(n, t)| *n -= t);
        }
        d.cqes -= before.cqes;
        d
    }

    /// Adds the CQEs and failures of an untimed pass checked in a ledger of
    /// its own (pollwake's eventfd pass, its stop message): they count in
    /// `cqes` and fail the run like any, but are no round's requests.
    pub fn absorb_untimed(&mut self, pass: &Ledger) {
        self.cqes += pass.cqes;
        for (n, p) in self.fails.iter_mut().zip(&pass.fails) {
            *n += p;
        }
        // The pass's first failure whole, the call it blames included.
        if self.first.is_none() {
            self.first = pass.first;
        }
    }
}

/// A counter of a checks line: its name and where the ledger keeps it.
pub type Counter = (&'static str, fn(&Ledger) -> u64);

/// The futex workloads' totals on the checks line: CQEs in all, then by kind.
pub const TOTALS: [Counter; 7] = [
    ("cqes", |l| l.cqes),
    ("wait_cqes", |l| l.kind(Kind::Wait)),
    ("waitv_cqes", |l| l.kind(Kind::Waitv)),
    ("wake_cqes", |l| l.kind(Kind::Wake)),
    ("cancel_cqes", |l| l.kind(Kind::Cancel)),
    ("check_cqes", |l| l.kind(Kind::Check)),
    ("nop_cqes", |l| l.kind(Kind::Nop)),
];

/// The failure classes every workload's checks line shows, after its
/// totals and before failures of its own.
pub const FAILURES: [Counter; 11] = [
    ("bad_results", |l| l.count(Fail::BadResult)),
    ("bad_flags", |l| l.count(Fail::BadFlags)),
    ("unknown_tags", |l| l.count(Fail::UnknownTag)),
    ("duplicates", |l| l.count(Fail::Duplicate)),
    ("missing", |l| l.count(Fail::Missing)),
    ("timeouts", |l| l.count(Fail::Timeout)),
    ("submit_errors", |l| l.count(Fail::SubmitError)),
    ("sq_dropped", |l| l.count(Fail::SqDropped)),
    ("cq_overflow", |l| l.count(Fail::CqOverflow)),
    ("outstanding", |l| l.count(Fail::Outstanding)),
    ("migrations", |l| l.count(Fail::Migration)),
];

/// Bits of `rel = user_data - (seq << 16)` that must be zero: anything but
/// a 5-bit kind at bit 8 and a 6-bit index.
const TAG_INVALID_BITS: u64 = !(((KINDS as u64 - 1) << 8) | (MAX_PER_KIND as u64 - 1));
/// The kinds the hot path checks (`CycleCheck::observe`): every workload's
/// but g0's. A cycle's check copies their seen-bits from its plan, 128
/// bytes, which x86_64 copies inline; the later kinds' seen-bits are
/// copied apart (all KINDS at once, 256 bytes, called memcpy: 7.2
/// instructions a pair of s0's, bench/targets.sh), and their CQEs take a
/// cold path (`CycleCheck::late`).
const HOT_KINDS: usize = 16;
const LATE_KINDS: usize = KINDS - HOT_KINDS;
/// `TAG_INVALID_BITS` of the hot kinds alone: a later kind's tag has one
/// of these set too.
const HOT_INVALID_BITS: u64 = !(((HOT_KINDS as u64 - 1) << 8) | (MAX_PER_KIND as u64 - 1));
/// Room for every `kind << 8 | index` a valid tag can have.
const TAG_SLOTS: usize = KINDS << 8;

/// A cycle's expectations precomputed for the hot path: per kind, the
/// bitmap of valid indices; per request, the expected `flags << 32 | res`.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    valid: [u64; KINDS],
    /// `!valid`: a cycle's starting seen-bits, of the hot kinds and of the
    /// later ones (`HOT_KINDS`).
    seen_init: [u64; HOT_KINDS],
    seen_late: [u64; LATE_KINDS],
    /// By `kind << 8 | index`: what request `index` of `kind` must return.
    want: [u64; TAG_SLOTS],
    count: [u32; KINDS],
    /// One bit per kind with a CQE expected: a clean cycle credits these
    /// kinds alone, so its cost does not grow with `KINDS`.
    kinds: u32,
    expected: u32,
}

impl Plan {
    pub fn new(expect: &[Expect; KINDS]) -> Plan {
        let mut plan = Plan {
            valid: [0; KINDS],
            seen_init: [u64::MAX; HOT_KINDS],
            seen_late: [u64::MAX; LATE_KINDS],
            want: [0; TAG_SLOTS],
            count: [0; KINDS],
            kinds: 0,
            expected: 0,
        };
        for (k, e) in expect.iter().enumerate() {
            let count = e.count.min(MAX_PER_KIND);
            plan.valid[k] = u64::MAX.checked_shr(64 - count).unwrap_or(0);
            match k.checked_sub(HOT_KINDS) {
                None => plan.seen_init[k] = !plan.valid[k],
                Some(late) => plan.seen_late[late] = !plan.valid[k],
            }
            plan.count[k] = count;
            plan.expected += count;
            plan.kinds |= ((count > 0) as u32) << k;
            for i in 0..count as usize {
                // Expected flags are always 0, so the word is just res.
                plan.want[k << 8 | i] = e.res as u32 as u64;
            }
        }
        plan
    }

    /// Expects `res` from request `index` of `kind` alone (pollwake's
    /// messages each carry a value of their own).
    pub fn set_res(&mut self, kind: Kind, index: u32, res: i32) {
        self.want[(kind as usize) << 8 | (index & (MAX_PER_KIND - 1)) as usize] = res as u32 as u64;
    }
}

/// Validates the CQEs of one cycle against its plan. The hot path
/// (`observe`) is a handful of instructions: invalid indices start out
/// marked as seen, so one bit test catches both duplicates and tags that do
/// not belong; telling them apart, and counting per kind and missing
/// entries, is left to the cold path and to `finish`.
pub struct CycleCheck<'p> {
    /// `seq << 16`: subtracting it maps this cycle's tags to `kind << 8 | index`.
    base: u64,
    seq: u32,
    plan: &'p Plan,
    /// Seen bits, pre-set for every index that is not valid: of the hot
    /// kinds, and of the later ones (`HOT_KINDS`).
    seen: [u64; HOT_KINDS],
    seen_late: [u64; LATE_KINDS],
    /// A cold path (foreign tag, duplicate, wrong res or flags) ran.
    dirty: bool,
    /// CQEs consumed for this cycle, as counted by the drains
    /// (`add_received`): no per-CQE counter in the hot path.
    received: u32,
}

impl<'p> CycleCheck<'p> {
    #[inline(always)]
    pub fn new(seq: u32, plan: &'p Plan) -> Self {
        CycleCheck {
            base: (seq as u64) << 16,
            seq,
            plan,
            seen: plan.seen_init,
            seen_late: plan.seen_late,
            dirty: false,
            received: 0,
        }
    }

    /// Distinct expected CQEs seen so far.
    pub fn seen(&self) -> u32 {
        let seen = self.seen.iter().chain(&self.seen_late);
        seen.zip(self.plan.valid.iter())
            .map(|(s, v)| (s & v).count_ones())
            .sum()
    }

    /// Checks one CQE: its tag, that it is new, its res and its flags.
    #[inline(always)]
    pub fn observe(&mut self, cqe: &IoUringCqe, ledger: &mut Ledger) {
        // Any other cycle's tag, or garbage, sets bits outside kind|index
        // (and so does a later kind's: `late`).
        let rel = cqe.user_data.wrapping_sub(self.base);
        if rel & HOT_INVALID_BITS != 0 {
            return self.late(cqe, rel, ledger);
        }
        let kind = (rel >> 8) as usize & (HOT_KINDS - 1);
        let bit = 1u64 << (rel & (MAX_PER_KIND as u64 - 1));
        if self.seen[kind] & bit != 0 {
            return self.seen_before(cqe, kind, bit, ledger);
        }
        self.seen[kind] |= bit;
        self.compare(cqe, rel, ledger);
    }

    /// The CQE's res and flags, as one 64-bit word, against what the plan
    /// wants of its tag (`rel`): the last step of `observe` and of `late`.
    #[inline(always)]
    fn compare(&mut self, cqe: &IoUringCqe, rel: u64, ledger: &mut Ledger) {
        let got = (cqe.flags as u64) << 32 | cqe.res as u32 as u64;
        let want = self.plan.want[rel as usize & (TAG_SLOTS - 1)];
        if got != want {
            self.mismatch(cqe, want, ledger);
        }
    }

    /// `observe` of a CQE whose tag is none of a hot kind's: a later
    /// kind's (g0's file operations), checked as the hot path checks, or
    /// unknown.
    #[cold]
    #[inline(never)]
    fn late(&mut self, cqe: &IoUringCqe, rel: u64, ledger: &mut Ledger) {
        if rel & TAG_INVALID_BITS != 0 {
            return self.unknown(cqe, ledger);
        }
        let kind = (rel >> 8) as usize & (KINDS - 1);
        let bit = 1u64 << (rel & (MAX_PER_KIND as u64 - 1));
        let seen = &mut self.seen_late[kind - HOT_KINDS];
        if *seen & bit != 0 {
            return self.seen_before(cqe, kind, bit, ledger);
        }
        *seen |= bit;
        self.compare(cqe, rel, ledger);
    }

    #[cold]
    #[inline(never)]
    fn unknown(&mut self, cqe: &IoUringCqe, ledger: &mut Ledger) {
        self.dirty = true;
        ledger.fail(Fail::UnknownTag, "unknown_tag", self.seq, Some(cqe));
    }

    #[cold]
    #[inline(never)]
    fn seen_before(&mut self, cqe: &IoUringCqe, kind: usize, bit: u64, ledger: &mut Ledger) {
        if self.plan.valid[kind] & bit == 0 {
            return self.unknown(cqe, ledger);
        }
        self.dirty = true;
        ledger.fail(Fail::Duplicate, "duplicate", self.seq, Some(cqe));
    }

    #[cold]
    #[inline(never)]
    fn mismatch(&mut self, cqe: &IoUringCqe, want: u64, ledger: &mut Ledger) {
        self.dirty = true;
        if cqe.res as u32 as u64 != want {
            ledger.fail(Fail::BadResult, "bad_result", self.seq, Some(cqe));
        }
        if cqe.flags != 0 {
            ledger.fail(Fail::BadFlags, "bad_flags", self.seq, Some(cqe));
        }
    }

    /// Every expected CQE arrived, once, with its res and flags, and
    /// nothing else came: every CQE `observe` took without a cold path
    /// was a distinct expected one, so as many of them as expected is all
    /// of them.
    #[inline(always)]
    pub fn clean(&self) -> bool {
        !self.dirty && self.received == self.plan.expected
    }

    /// Marks the cycle unclean for a cause found outside `observe`.
    pub fn spoil(&mut self) {
        self.dirty = true;
    }

    /// Credits `n` CQEs that a drain handed to `observe`.
    #[inline(always)]
    pub fn add_received(&mut self, n: u32) {
        self.received += n;
    }

    /// Ends the cycle: credits the CQEs received and those seen per kind,
    /// and counts every expected one not seen as missing. True when the
    /// cycle was clean: this check found nothing, and nothing else was
    /// counted in `ledger` since it held `failures_before` failures.
    pub fn finish(&mut self, ledger: &mut Ledger, failures_before: u64) -> bool {
        self.finish_own(ledger) && ledger.failures() == failures_before
    }

    /// `finish`, judging the cycle by this check alone: every expected CQE
    /// arrived once, with its res and flags, and nothing foreign came. The
    /// caller accounts for what happened outside the check (its
    /// submissions); every cycle made of batches does (profile/parts/cycle.rs),
    /// and so saves a sum over the ledger per cycle.
    #[inline(always)]
    pub fn finish_own(&mut self, ledger: &mut Ledger) -> bool {
        ledger.cqes += self.received as u64;
        // The common case: no look at the seen bits, no bit counting (a
        // loop of shifts on CPUs without POPCNT), and only the plan's kinds.
        if self.clean() {
            let mut kinds = self.plan.kinds;
            while kinds != 0 {
                let k = kinds.trailing_zeros() as usize;
                ledger.kind_cqes[k] += self.plan.count[k] as u64;
                kinds &= kinds - 1;
            }
            return true;
        }
        self.finish_slow(ledger)
    }

    #[cold]
    #[inline(never)]
    fn finish_slow(&mut self, ledger: &mut Ledger) -> bool {
        let seen = self.seen.iter().chain(&self.seen_late);
        for (k, s) in seen.enumerate() {
            ledger.kind_cqes[k] += (s & self.plan.valid[k]).count_ones() as u64;
        }
        let missing = self.plan.expected - self.seen();
        if missing != 0 {
            ledger.add(Fail::Missing, missing as u64);
            ledger.note("missing", self.seq, None);
        }
        !self.dirty && missing == 0
    }
}

#[cfg(test)]
mod tests;
