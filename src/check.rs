//! The validation ledger: every CQE is checked against what its profile
//! expects, and every deviation is counted (not just asserted), so the output
//! can show exactly what went wrong and how often.
//!
//! user_data layout: `seq << 16 | kind << 8 | index`. `seq` is the cycle's
//! sequence number (low 32 bits), so a CQE left over from an earlier cycle is
//! caught as an unknown tag instead of being credited to the current one.

use crate::sys::uapi::IoUringCqe;

/// Request kinds a profile can submit (the `kind` byte of user_data).
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
}

/// Number of kinds (size of per-kind tables).
pub const KINDS: usize = 6;

impl Kind {
    /// Every kind, in user_data order.
    pub const ALL: [Kind; KINDS] = [
        Kind::Wait,
        Kind::Wake,
        Kind::Cancel,
        Kind::Check,
        Kind::Nop,
        Kind::Waitv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Wait => "wait",
            Kind::Wake => "wake",
            Kind::Cancel => "cancel",
            Kind::Check => "check",
            Kind::Nop => "nop",
            Kind::Waitv => "waitv",
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

/// Counters of everything validated over a run. All but `submitted`, the
/// `*_cqes` and `cqes` totals are failure counters: any non-zero one fails
/// the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    /// SQEs the kernel accepted, by the kind of request.
    pub submitted: [u64; KINDS],
    pub cqes: u64,
    pub kind_cqes: [u64; KINDS],
    pub bad_results: u64,
    pub bad_flags: u64,
    pub unknown_tags: u64,
    pub duplicates: u64,
    pub missing: u64,
    pub timeouts: u64,
    pub submit_errors: u64,
    pub sq_dropped: u64,
    pub cq_overflow: u64,
    pub outstanding: u64,
    pub migrations: u64,
    /// The first failure seen, for the one-line diagnosis.
    pub first: Option<Failure>,
}

/// The first deviation of a run, with enough context to trace it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    pub what: &'static str,
    pub seq: u32,
    /// The offending CQE, when one CQE is to blame.
    pub cqe: Option<IoUringCqe>,
}

impl Ledger {
    /// Number of failures counted so far.
    pub fn failures(&self) -> u64 {
        self.bad_results
            + self.bad_flags
            + self.unknown_tags
            + self.duplicates
            + self.missing
            + self.timeouts
            + self.submit_errors
            + self.sq_dropped
            + self.cq_overflow
            + self.outstanding
            + self.migrations
    }

    pub fn passed(&self) -> bool {
        self.failures() == 0
    }

    /// Records the first failure's context (later ones only count). Cold
    /// and out of line: it runs only on failures, and each inlined copy
    /// would grow the binary.
    #[cold]
    #[inline(never)]
    pub fn note(&mut self, what: &'static str, seq: u32, cqe: Option<&IoUringCqe>) {
        if self.first.is_none() {
            self.first = Some(Failure {
                what,
                seq,
                cqe: cqe.copied(),
            });
        }
    }

    /// The counters accumulated since `before` (an earlier copy of this
    /// ledger): what one round added. `first` is kept from `self`.
    pub fn since(&self, before: &Ledger) -> Ledger {
        let mut d = *self;
        for k in 0..KINDS {
            d.submitted[k] -= before.submitted[k];
            d.kind_cqes[k] -= before.kind_cqes[k];
        }
        d.cqes -= before.cqes;
        d.bad_results -= before.bad_results;
        d.bad_flags -= before.bad_flags;
        d.unknown_tags -= before.unknown_tags;
        d.duplicates -= before.duplicates;
        d.missing -= before.missing;
        d.timeouts -= before.timeouts;
        d.submit_errors -= before.submit_errors;
        d.sq_dropped -= before.sq_dropped;
        d.cq_overflow -= before.cq_overflow;
        d.outstanding -= before.outstanding;
        d.migrations -= before.migrations;
        d
    }

    /// CQEs of `kind` seen so far.
    pub fn kind(&self, kind: Kind) -> u64 {
        self.kind_cqes[kind as usize]
    }

    /// Names of the `counters` values, in output order, space-separated
    /// (one string, not 18 `&str`s: binary size).
    pub const COUNTER_NAMES: &'static str = "\
        cqes wait_cqes waitv_cqes wake_cqes cancel_cqes check_cqes nop_cqes bad_results \
        bad_flags unknown_tags duplicates missing timeouts submit_errors sq_dropped \
        cq_overflow outstanding migrations";

    /// Every counter, in the order of COUNTER_NAMES.
    pub fn counters(&self) -> [u64; 18] {
        [
            self.cqes,
            self.kind(Kind::Wait),
            self.kind(Kind::Waitv),
            self.kind(Kind::Wake),
            self.kind(Kind::Cancel),
            self.kind(Kind::Check),
            self.kind(Kind::Nop),
            self.bad_results,
            self.bad_flags,
            self.unknown_tags,
            self.duplicates,
            self.missing,
            self.timeouts,
            self.submit_errors,
            self.sq_dropped,
            self.cq_overflow,
            self.outstanding,
            self.migrations,
        ]
    }
}

/// Room for kinds in a tag (3 bits): kinds past KINDS are never valid.
const KIND_SLOTS: usize = 8;
/// Bits of `rel = user_data - (seq << 16)` that must be zero: anything but
/// a 3-bit kind at bit 8 and a 6-bit index.
const TAG_INVALID_BITS: u64 = !(((KIND_SLOTS as u64 - 1) << 8) | (MAX_PER_KIND as u64 - 1));

/// A profile's expectations precomputed for the hot path: per kind, the
/// bitmap of valid indices and the expected `flags << 32 | res` word.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    valid: [u64; KIND_SLOTS],
    /// `!valid`: a cycle's starting seen-bits.
    seen_init: [u64; KIND_SLOTS],
    want: [u64; KIND_SLOTS],
    count: [u32; KINDS],
    expected: u32,
}

impl Plan {
    pub fn new(expect: &[Expect; KINDS]) -> Plan {
        let mut plan = Plan {
            valid: [0; KIND_SLOTS],
            seen_init: [u64::MAX; KIND_SLOTS],
            want: [0; KIND_SLOTS],
            count: [0; KINDS],
            expected: 0,
        };
        for (k, e) in expect.iter().enumerate() {
            let count = e.count.min(MAX_PER_KIND);
            plan.valid[k] = if count == 64 {
                u64::MAX
            } else {
                (1u64 << count) - 1
            };
            plan.seen_init[k] = !plan.valid[k];
            // Expected flags are always 0, so the word is just res.
            plan.want[k] = e.res as u32 as u64;
            plan.count[k] = count;
            plan.expected += count;
        }
        plan
    }

    /// CQEs a cycle must produce in all.
    pub fn expected(&self) -> u32 {
        self.expected
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
    /// Seen bits, pre-set for every index that is not valid.
    seen: [u64; KIND_SLOTS],
    /// A cold path (foreign tag, duplicate, wrong res or flags) ran.
    dirty: bool,
    /// CQEs consumed for this cycle, as counted by the drains
    /// (`add_received`): no per-CQE counter in the hot path.
    received: u32,
}

impl<'p> CycleCheck<'p> {
    #[inline(always)]
    pub fn new(seq: u32, plan: &'p Plan) -> Self {
        let seen = plan.seen_init;
        CycleCheck {
            base: (seq as u64) << 16,
            seq,
            plan,
            seen,
            dirty: false,
            received: 0,
        }
    }

    /// CQEs expected in this cycle in all.
    pub fn expected(&self) -> u32 {
        self.plan.expected
    }

    /// Distinct expected CQEs seen so far.
    pub fn seen(&self) -> u32 {
        self.seen
            .iter()
            .zip(self.plan.valid.iter())
            .map(|(s, v)| (s & v).count_ones())
            .sum()
    }

    /// Checks one CQE: its tag, that it is new, its res and its flags.
    #[inline(always)]
    pub fn observe(&mut self, cqe: &IoUringCqe, ledger: &mut Ledger) {
        // Any other cycle's tag, or garbage, sets bits outside kind|index.
        let rel = cqe.user_data.wrapping_sub(self.base);
        if rel & TAG_INVALID_BITS != 0 {
            return self.unknown(cqe, ledger);
        }
        let kind = (rel >> 8) as usize & (KIND_SLOTS - 1);
        let bit = 1u64 << (rel & (MAX_PER_KIND as u64 - 1));
        if self.seen[kind] & bit != 0 {
            return self.seen_before(cqe, kind, bit, ledger);
        }
        self.seen[kind] |= bit;
        // res and flags as one 64-bit word.
        let got = (cqe.flags as u64) << 32 | cqe.res as u32 as u64;
        if got != self.plan.want[kind] {
            self.mismatch(cqe, kind, ledger);
        }
    }

    #[cold]
    #[inline(never)]
    fn unknown(&mut self, cqe: &IoUringCqe, ledger: &mut Ledger) {
        self.dirty = true;
        ledger.unknown_tags += 1;
        ledger.note("unknown_tag", self.seq, Some(cqe));
    }

    #[cold]
    #[inline(never)]
    fn seen_before(&mut self, cqe: &IoUringCqe, kind: usize, bit: u64, ledger: &mut Ledger) {
        if self.plan.valid[kind] & bit == 0 {
            return self.unknown(cqe, ledger);
        }
        self.dirty = true;
        ledger.duplicates += 1;
        ledger.note("duplicate", self.seq, Some(cqe));
    }

    #[cold]
    #[inline(never)]
    fn mismatch(&mut self, cqe: &IoUringCqe, kind: usize, ledger: &mut Ledger) {
        self.dirty = true;
        if cqe.res as u32 as u64 != self.plan.want[kind] {
            ledger.bad_results += 1;
            ledger.note("bad_result", self.seq, Some(cqe));
        }
        if cqe.flags != 0 {
            ledger.bad_flags += 1;
            ledger.note("bad_flags", self.seq, Some(cqe));
        }
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
    /// submissions); s0 does, and so saves a sum over the ledger per cycle.
    #[inline(always)]
    pub fn finish_own(&mut self, ledger: &mut Ledger) -> bool {
        ledger.cqes += self.received as u64;
        if !self.dirty && self.seen.iter().all(|&s| s == u64::MAX) {
            // Every expected CQE seen (the common case): no bit counting,
            // which is a loop of shifts on CPUs without POPCNT.
            for k in 0..KINDS {
                ledger.kind_cqes[k] += self.plan.count[k] as u64;
            }
            return true;
        }
        self.finish_slow(ledger)
    }

    #[cold]
    #[inline(never)]
    fn finish_slow(&mut self, ledger: &mut Ledger) -> bool {
        for k in 0..KINDS {
            ledger.kind_cqes[k] += (self.seen[k] & self.plan.valid[k]).count_ones() as u64;
        }
        let missing = self.expected() - self.seen();
        if missing != 0 {
            ledger.missing += missing as u64;
            ledger.note("missing", self.seq, None);
        }
        !self.dirty && missing == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect_s0(slots: u32) -> [Expect; KINDS] {
        let mut e = [Expect::default(); KINDS];
        e[Kind::Wait as usize] = Expect {
            count: slots,
            res: 0,
        };
        e[Kind::Wake as usize] = Expect {
            count: slots,
            res: 1,
        };
        e
    }

    fn cqe(user_data: u64, res: i32, flags: u32) -> IoUringCqe {
        IoUringCqe {
            user_data,
            res,
            flags,
        }
    }

    fn good_cycle(seq: u32, slots: u32) -> Vec<IoUringCqe> {
        let mut v = Vec::new();
        for i in 0..slots {
            v.push(cqe(tag(seq, Kind::Wake, i), 1, 0));
            v.push(cqe(tag(seq, Kind::Wait, i), 0, 0));
        }
        v
    }

    fn run(seq: u32, slots: u32, cqes: &[IoUringCqe]) -> (Ledger, bool) {
        let plan = Plan::new(&expect_s0(slots));
        let mut l = Ledger::default();
        let mut c = CycleCheck::new(seq, &plan);
        for q in cqes {
            c.observe(q, &mut l);
        }
        c.add_received(cqes.len() as u32);
        let ok = c.finish(&mut l, 0);
        (l, ok)
    }

    #[test]
    fn clean_cycle_passes() {
        let (l, ok) = run(7, 32, &good_cycle(7, 32));
        assert!(ok && l.passed());
        assert_eq!(l.cqes, 64);
        assert_eq!(l.kind_cqes[Kind::Wait as usize], 32);
        assert_eq!(l.kind_cqes[Kind::Wake as usize], 32);
        assert_eq!(l.first, None);
    }

    #[test]
    fn wrong_wait_result_is_counted() {
        let mut v = good_cycle(1, 32);
        v[1].res = -11; // a WAIT that saw a changed word
        let (l, ok) = run(1, 32, &v);
        assert!(!ok);
        assert_eq!(l.bad_results, 1);
        let f = l.first.unwrap();
        assert_eq!(
            (f.what, f.cqe.unwrap().res, f.cqe.unwrap().user_data),
            ("bad_result", -11, tag(1, Kind::Wait, 0))
        );
    }

    #[test]
    fn wake_that_woke_nobody_is_counted() {
        let mut v = good_cycle(1, 4);
        v[0].res = 0;
        let (l, _) = run(1, 4, &v);
        assert_eq!(l.bad_results, 1);
    }

    #[test]
    fn nonzero_flags_are_counted() {
        let mut v = good_cycle(1, 4);
        v[3].flags = 2;
        let (l, ok) = run(1, 4, &v);
        assert!(!ok);
        assert_eq!(l.bad_flags, 1);
    }

    #[test]
    fn duplicate_and_missing() {
        let mut v = good_cycle(1, 4);
        v[2] = v[0]; // wake 0 twice, wake 1 never
        let (l, ok) = run(1, 4, &v);
        assert!(!ok);
        assert_eq!((l.duplicates, l.missing), (1, 1));
    }

    #[test]
    fn stale_unknown_kind_and_out_of_range_tags() {
        let mut v = good_cycle(2, 4);
        v.push(cqe(tag(1, Kind::Wait, 0), 0, 0)); // from the previous cycle
        v.push(cqe(tag(2, Kind::Cancel, 0), 0, 0)); // a kind s0 never submits
        v.push(cqe(tag(2, Kind::Wait, 4), 0, 0)); // index beyond slots
        v.push(cqe(0xdead_0000_0000_0000, 0, 0)); // garbage high bits
        v.push(cqe(tag(2, Kind::Wake, 0) | 0x40, 1, 0)); // index bit 6 set
        v.push(cqe(tag(2, Kind::Wake, 0) | 0x700, 1, 0)); // kind 7 (no such kind)
        let (l, ok) = run(2, 4, &v);
        assert!(!ok);
        assert_eq!(l.unknown_tags, 6);
        assert_eq!(l.duplicates, 0);
        assert_eq!(l.missing, 0);
    }

    #[test]
    fn full_64_slot_cycle_and_plan_totals() {
        let plan = Plan::new(&expect_s0(64));
        assert_eq!(plan.expected(), 128);
        let (l, ok) = run(9, 64, &good_cycle(9, 64));
        assert!(ok, "{l:?}");
        assert_eq!(l.kind_cqes[Kind::Wake as usize], 64);
    }

    #[test]
    fn bad_result_and_bad_flags_on_one_cqe_count_both() {
        let mut v = good_cycle(1, 2);
        v[0].res = 2;
        v[0].flags = 4;
        let (l, _) = run(1, 2, &v);
        assert_eq!((l.bad_results, l.bad_flags), (1, 1));
    }

    #[test]
    fn finish_own_judges_by_the_check_alone() {
        let plan = Plan::new(&expect_s0(4));
        let mut clean = good_cycle(5, 4);
        let mut l = Ledger::default();
        let mut c = CycleCheck::new(5, &plan);
        clean.iter().for_each(|q| c.observe(q, &mut l));
        c.add_received(8);
        assert!(c.finish_own(&mut l));
        assert_eq!((l.cqes, l.kind_cqes[Kind::Wake as usize]), (8, 4));
        // Every failure class the check sees makes its own verdict false.
        for (i, damage) in ["res", "flags", "dup", "foreign", "missing"]
            .iter()
            .enumerate()
        {
            let mut v = clean.clone();
            match *damage {
                "res" => v[i].res = 7,
                "flags" => v[i].flags = 1,
                "dup" => v[1] = v[3],
                "foreign" => v.push(cqe(tag(4, Kind::Wait, 0), 0, 0)),
                _ => {
                    v.pop();
                }
            }
            let mut l = Ledger::default();
            let mut c = CycleCheck::new(5, &plan);
            v.iter().for_each(|q| c.observe(q, &mut l));
            assert!(!c.finish_own(&mut l), "{damage}");
            assert!(!l.passed(), "{damage}");
        }
        clean.clear();
    }

    #[test]
    fn missing_completions_are_counted() {
        let v = good_cycle(3, 32);
        let (l, ok) = run(3, 32, &v[..60]);
        assert!(!ok);
        assert_eq!(l.missing, 4);
        assert_eq!(l.first.unwrap().what, "missing");
    }

    #[test]
    fn every_failure_counter_fails_the_ledger() {
        for i in 0..11 {
            let mut l = Ledger::default();
            match i {
                0 => l.bad_results = 1,
                1 => l.bad_flags = 1,
                2 => l.unknown_tags = 1,
                3 => l.duplicates = 1,
                4 => l.missing = 1,
                5 => l.timeouts = 1,
                6 => l.submit_errors = 1,
                7 => l.sq_dropped = 1,
                8 => l.cq_overflow = 1,
                9 => l.outstanding = 1,
                _ => l.migrations = 1,
            }
            assert!(!l.passed(), "counter {i}");
        }
        let l = Ledger {
            cqes: 5,
            kind_cqes: [1; KINDS],
            ..Ledger::default()
        };
        assert!(l.passed());
    }
}
