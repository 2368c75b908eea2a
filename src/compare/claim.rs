//! A comparison in words: the sentence compare's paragraph and the mail
//! both print (the change and both intervals, drop-first, drift, max CV
//! and the verdict), the verdict and its reasons.

use core::fmt::{self, Write};

use super::analysis::{Analysis, Comparison, Reason};
use super::args::Gate;
use super::words::{noun, unit, Cv, GroupValue, Pct, TheGate, Units};
use crate::render::{Clean, Dec, Signed};

/// The name of the other basis: the cross-check of the primary one.
pub(super) fn second_name(r: &Analysis) -> &'static str {
    basis_name(!r.args.drop_first)
}

/// Why the within-point interval is n/a: a point of too few rounds on the
/// primary basis.
pub(super) fn few_rounds(r: &Analysis) -> &'static str {
    if r.args.drop_first {
        "a point keeps 1 round after --drop-first"
    } else {
        "a point has 1 round"
    }
}

/// The name of the basis a point's figures are on, primary or the
/// cross-check.
fn basis_name(drop_first: bool) -> &'static str {
    if drop_first {
        "drop-first"
    } else {
        "all-rounds"
    }
}

/// How one command line words the reasons: whether its primary basis
/// drops each point's first round (`--drop-first`), and whether the
/// change, under the gate, is clear of zero.
#[derive(Clone, Copy)]
pub(super) struct Wording {
    pub drop_first: bool,
    pub clear: bool,
    /// The gate is in instructions per pair (`Gate::Insn`).
    pub insn: bool,
}

/// Why a comparison is NOT CONFIRMED, `r` as the text says it.
pub(super) fn reason(w: &mut dyn Write, r: Reason, how: Wording) -> fmt::Result {
    // The cross-check's basis: drop-first, or with --drop-first all-rounds.
    let second = basis_name(!how.drop_first);
    match r {
        Reason::UnderGate if how.insn && how.clear => {
            w.write_str("|change| is under gate plus spread, though clear of 0")
        }
        Reason::UnderGate if how.insn => {
            w.write_str("|change| is under the gate plus the control's spread")
        }
        Reason::SpansZero if how.insn => w.write_str("the 95% CI round by round includes 0"),
        Reason::Unpaired => w.write_str("the points' rounds differ in number: none paired"),
        Reason::UnderGate if how.clear => {
            w.write_str("|change| is under the gate, though clear of zero")
        }
        Reason::UnderGate => w.write_str("|change| is under the gate"),
        Reason::SecondSign => write!(w, "the {second} change has the other sign"),
        Reason::SecondUnderGate => write!(w, "|{second} change| is under the gate"),
        Reason::FailedChecks => w.write_str("a point failed its checks"),
        Reason::Drift => w.write_str("|control drift| is not under the gate"),
        Reason::NoDrift => w.write_str("no drift: one control boot (run A B A)"),
        Reason::FewRounds if how.drop_first => {
            w.write_str("a point keeps 1 round after --drop-first: no spread")
        }
        Reason::FewRounds => w.write_str("a point has 1 round: no drop-first, no spread"),
        Reason::SpansZero => w.write_str("the wider 95% CI includes 0"),
        Reason::NoChange => w.write_str("no change: the values are identical"),
    }
}

/// `CONFIRMED ...` or `NOT CONFIRMED ...:` and the reasons, `first`
/// before the first one, `sep` before the others.
pub(super) fn verdict(r: &Analysis, c: &Comparison, w: &mut dyn Write, first: &str, sep: &str) {
    let _ = write!(
        w,
        "{}CONFIRMED at {}{}",
        if c.reasons == 0 { "" } else { "NOT " },
        TheGate(r.args.gate),
        if c.reasons == 0 { "" } else { ":" }
    );
    let how = Wording {
        drop_first: r.args.drop_first,
        clear: c.clear_under_gate(),
        insn: matches!(r.args.gate, Gate::Insn(_)),
    };
    for (k, why) in Reason::of(c.reasons).enumerate() {
        let _ = w.write_str(if k == 0 { first } else { sep });
        let _ = reason(w, why, how);
    }
}

/// One comparison in a sentence: the change against the control's value
/// with both intervals, drop-first, drift, max CV and the verdict.
pub(super) fn sentence(r: &Analysis, c: &Comparison, w: &mut dyn Write) {
    let (ctl, test) = (&r.groups()[c.base], &r.groups()[c.test]);
    let some_shared = c.boots != (ctl.k, test.k);
    let _ = write!(
        w,
        "{} vs {} ({}, {} {}): {}",
        Clean(test.label()),
        Clean(ctl.label()),
        GroupValue {
            points: ctl.k,
            boots: c.boots.0
        },
        Dec(c.control, 3),
        unit(r.icount()).prose,
        Pct(c.change)
    );
    let (wi, b) = (&c.iv.within, &c.iv.between);
    let (rounds, vs) = (c.rounds, Units(c.boots.0, some_shared));
    let _ = if wi.low.is_nan() {
        write!(w, " (95% CI within points n/a, {}", few_rounds(r))
    } else if wi.exact() {
        write!(
            w,
            " (95% CI within points {} exact, every round alike, {} vs {} rounds",
            Pct(wi.low),
            rounds.1,
            rounds.0
        )
    } else {
        write!(
            w,
            " (95% CI within points {} to {}, Welch, {} vs {} rounds",
            Pct(wi.low),
            Pct(wi.high),
            rounds.1,
            rounds.0
        )
    };
    let one = noun(some_shared);
    let _ = if b.low.is_nan() && wi.low.is_nan() {
        write!(w, "; between points n/a, one {one} per label)")
    } else if b.low.is_nan() {
        write!(
            w,
            "; between points n/a, one {one} per label: the claim rests on the within-point \
             interval only)"
        )
    } else if b.exact() {
        write!(
            w,
            "; between points {} exact, identical across {} vs {})",
            Pct(b.low),
            c.boots.1,
            Units(c.boots.0, true)
        )
    } else {
        write!(
            w,
            "; between points {} to {}, {} vs {vs})",
            Pct(b.low),
            Pct(b.high),
            c.boots.1
        )
    };
    if let Gate::Insn(_) = r.args.gate {
        let _ = write!(
            w,
            "; {} {} beyond a control spread of {}",
            Signed(c.delta, 3),
            unit(r.icount()).prose,
            Dec(c.spread, 3)
        );
        if c.test_spread > c.spread {
            let _ = write!(w, " (the test's, larger: {})", Dec(c.test_spread, 3));
        }
        let _ = write!(w, ", round by round ");
        super::text::paired_interval(r, c, w, true);
    }
    let _ = write!(
        w,
        "; {} {}; control drift {}; max CV {}. Verdict: ",
        second_name(r),
        Pct(c.second),
        Pct(c.drift),
        Cv(c.max_cv)
    );
    verdict(r, c, w, " ", "; ");
    let _ = w.write_str(".");
}
