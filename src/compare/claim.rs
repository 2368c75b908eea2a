//! A comparison in words: the sentence compare's paragraph and the mail
//! both print (the change and both intervals, drop-first, drift, max CV
//! and the verdict), the verdict and its reasons.

use core::fmt::{self, Write};

use super::analysis::{Analysis, Comparison, Reason};
use super::words::{noun, unit, Cv, Pct, Points, Units};
use crate::fmt::{Clean, Dec};

/// The name of the other basis: the cross-check of the primary one.
pub(super) fn second_name(r: &Analysis) -> &'static str {
    if r.args.drop_first {
        "all-rounds"
    } else {
        "drop-first"
    }
}

/// Why a comparison is NOT CONFIRMED, one text per `Reason`, as the text
/// says it; `{second}` is the cross-check's basis: `drop-first`, or with
/// --drop-first `all-rounds`.
pub(super) const REASONS: [&str; 9] = [
    "|change| is under the gate",
    "the {second} change has the other sign",
    "|{second} change| is under the gate",
    "a point failed its checks",
    "|control drift| is not under the gate",
    "no drift: one control boot (run A B A)",
    "a point has 1 round: no drop-first, no spread",
    "the wider 95% CI includes 0",
    "no change: the values are identical",
];

/// The first reason, when the wider interval is clear of zero: a real
/// change, only smaller than the gate (not noise).
const UNDER_GATE_CLEAR: &str = "|change| is under the gate, though clear of zero";

/// The reasons set in `bits`, each as `name` writes it: `first` before
/// the first one, `sep` before the others.
pub(super) fn list(
    w: &mut dyn Write,
    bits: u16,
    first: &str,
    sep: &str,
    name: &dyn Fn(&mut dyn Write, usize) -> fmt::Result,
) {
    let mut before = first;
    for i in (0..REASONS.len()).filter(|i| bits & 1 << i != 0) {
        let _ = w.write_str(before);
        let _ = name(w, i);
        before = sep;
    }
}

/// Reason `i` as the text says it (`second`: the cross-check's basis;
/// `clear`: the change is under the gate but clear of zero).
pub(super) fn reason(w: &mut dyn Write, i: usize, second: &str, clear: bool) -> fmt::Result {
    let text = match clear && i == Reason::UnderGate as usize {
        true => UNDER_GATE_CLEAR,
        false => REASONS[i],
    };
    const MARK: &[u8] = b"{second}";
    let at = text.as_bytes().windows(MARK.len()).position(|w| w == MARK);
    match at.and_then(|i| Some((text.get(..i)?, text.get(i + MARK.len()..)?))) {
        Some((before, after)) => write!(w, "{before}{second}{after}"),
        None => w.write_str(text),
    }
}

/// `CONFIRMED ...` or `NOT CONFIRMED ...:` and the reasons.
pub(super) fn verdict(r: &Analysis, c: &Comparison, w: &mut dyn Write, first: &str, sep: &str) {
    let _ = write!(
        w,
        "{}CONFIRMED at the {}% gate{}",
        if c.reasons == 0 { "" } else { "NOT " },
        Dec(r.args.gate, 3),
        if c.reasons == 0 { "" } else { ":" }
    );
    let (second, clear) = (second_name(r), c.clear_under_gate());
    list(w, c.reasons, first, sep, &|w, i| {
        reason(w, i, second, clear)
    });
}

/// One comparison in a sentence: the change against the control's value
/// with both intervals, drop-first, drift, max CV and the verdict.
pub(super) fn sentence(r: &Analysis, c: &Comparison, w: &mut dyn Write) {
    let (ctl, test) = (&r.groups()[0], &r.groups()[c.test]);
    let some_shared = c.boots != (ctl.k, test.k);
    let _ = write!(
        w,
        "{} vs {} ({}, {} {}): {}",
        Clean(test.label()),
        Clean(ctl.label()),
        Points {
            points: ctl.k,
            boots: c.boots.0
        },
        Dec(c.control, 3),
        unit(r.icount()).prose,
        Pct(c.change)
    );
    let (wi, b) = (&c.iv.within, &c.iv.between);
    let (rounds, vs) = (c.rounds, Units(c.boots.0, some_shared));
    let _ = match (wi.low.is_nan(), wi.exact()) {
        (true, _) => w.write_str(" (95% CI within points n/a, a point has 1 round"),
        (_, true) => write!(
            w,
            " (95% CI within points {} exact, every round alike, {} vs {} rounds",
            Pct(wi.low),
            rounds.1,
            rounds.0
        ),
        _ => write!(
            w,
            " (95% CI within points {} to {}, Welch, {} vs {} rounds",
            Pct(wi.low),
            Pct(wi.high),
            rounds.1,
            rounds.0
        ),
    };
    let one = noun(some_shared);
    let _ = match (b.low.is_nan(), b.exact(), wi.low.is_nan()) {
        (true, _, true) => write!(w, "; between points n/a, one {one} per label)"),
        (true, _, false) => write!(
            w,
            "; between points n/a, one {one} per label: the claim rests on the within-point \
             interval only)"
        ),
        (_, true, _) => write!(
            w,
            "; between points {} exact, identical across {} vs {})",
            Pct(b.low),
            c.boots.1,
            Units(c.boots.0, true)
        ),
        _ => write!(
            w,
            "; between points {} to {}, {} vs {vs})",
            Pct(b.low),
            Pct(b.high),
            c.boots.1
        ),
    };
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
