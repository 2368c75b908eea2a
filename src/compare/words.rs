//! The words compare's text and the mail share: the change and the
//! verdict in a sentence (`sentence`, which both print), the verdict's
//! reasons, points and boots counted in words, figures with their unit,
//! and the columns of a table. Numbers go through `Dec`, rounded as
//! printf rounds them; every line is at most WIDTH columns.

use core::fmt::{self, Write};

use super::analysis::{Analysis, Comparison, Reason};
use crate::fmt::{plural, Clean, Dec, Signed, Text};
use crate::stats::Summary;
use crate::sys::out::Out;

/// Width of every text line.
pub(super) const WIDTH: usize = 72;

/// `:LINE` of an error, nothing for line 0 (the whole file).
pub struct LineNo(pub usize);

impl fmt::Display for LineNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 > 0 {
            write!(f, ":{}", self.0)?;
        }
        Ok(())
    }
}

/// A change in % with its sign and three decimals (`+9.268%`, `0.000%`),
/// `n/a` for NaN.
pub(super) struct Pct(pub f64);

impl fmt::Display for Pct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() {
            return f.write_str("n/a");
        }
        write!(f, "{}%", Signed(self.0, 3))
    }
}

/// Text long enough for all that compare and the mail compose before
/// they wrap it: a paragraph of 16 points and 15 comparisons (under 14
/// KiB: facts are cut to 64 characters), a path with every byte escaped.
pub(super) type Long = Text<16400>;

/// What a group's value is: `1 point`, `midpoint of 2 points`, `mean of
/// 3 points`; in boots when some of its points share one (`Boots`):
/// `midpoint of 2 boots`.
pub(super) struct Points {
    pub points: usize,
    pub boots: usize,
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = Units(self.boots, self.boots != self.points);
        match self.boots {
            1 => write!(f, "{what}"),
            2 => write!(f, "midpoint of {what}"),
            _ => write!(f, "mean of {what}"),
        }
    }
}

/// `n points`, or `n boots` when (`.1`) some points share a boot.
pub(super) struct Units(pub usize, pub bool);

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}{}", self.0, noun(self.1), plural(self.0))
    }
}

/// What is counted between points: a `boot` where some points share one,
/// else a `point`.
pub(super) fn noun(boots: bool) -> &'static str {
    if boots {
        "boot"
    } else {
        "point"
    }
}

/// `1`, `1 and 3`, `1, 2 and 3`: the points whose bit is set.
pub(super) struct Nums(pub u32);

impl fmt::Display for Nums {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut left = self.0;
        while left != 0 {
            let i = left.trailing_zeros();
            left &= left - 1;
            let sep = match (i == self.0.trailing_zeros(), left == 0) {
                (true, _) => "",
                (false, true) => " and ",
                (false, false) => ", ",
            };
            write!(f, "{sep}{}", i + 1)?;
        }
        Ok(())
    }
}

/// `point 1` or `points 1 and 3` (`Point`... to start a sentence).
pub(super) struct PointsOf(pub u32, pub bool);

impl fmt::Display for PointsOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = if self.1 { "P" } else { "p" };
        let s = plural(self.0.count_ones() as usize);
        write!(f, "{p}oint{s} {}", Nums(self.0))
    }
}

/// Column alignments: right, left (padded), and the last column (left,
/// not padded: no trailing blanks).
pub(super) const RIGHT: u8 = 0;
pub(super) const LEFT: u8 = 1;
pub(super) const LAST: u8 = 2;

/// `args` in a column of `width` characters, cut to fit from the left
/// behind `...` (the end of a path or a kernel release tells most).
pub(super) fn cell(out: &mut Out, width: usize, align: u8, args: fmt::Arguments<'_>) {
    let mut b = Long::new();
    let _ = b.write_fmt(args);
    let mut s = b.as_str();
    let n = s.chars().count();
    if n > width {
        out.bytes(b"...");
        s = s
            .char_indices()
            .nth(n + 3 - width)
            .and_then(|(at, _)| s.split_at_checked(at))
            .map_or("", |(_, tail)| tail);
    }
    let pad = width - s.chars().count();
    if align == RIGHT {
        spaces(out, pad);
    }
    out.bytes(s.as_bytes());
    if align == LEFT {
        spaces(out, pad);
    }
}

fn spaces(out: &mut Out, n: usize) {
    for _ in 0..n {
        out.bytes(b" ");
    }
}

/// Numbers in right-aligned columns of `width` (`n/a` for NaN).
pub(super) fn nums(out: &mut Out, width: usize, vs: &[f64], decimals: u32) {
    for &v in vs {
        cell(out, width, RIGHT, format_args!("{}", Num(v, decimals)));
    }
}

/// What the figures count: ns of wall time per pair, or under QEMU TCG's
/// instruction clock (icount) guest instructions per pair.
#[derive(Clone, Copy)]
pub(super) struct Unit {
    pub short: &'static str,
    pub prose: &'static str,
}

/// What an icount point's figures are, for a sentence.
pub(super) const ICOUNT: &str = "timed on QEMU TCG's instruction clock (-icount shift=0: one \
virtual ns per guest instruction), so every figure is guest instructions per pair (user + \
kernel), not time";

/// `v` with `d` decimals, `n/a` for NaN (text).
pub(super) struct Num(pub f64, pub u32);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.is_nan() {
            true => f.write_str("n/a"),
            false => Dec(self.0, self.1).fmt(f),
        }
    }
}

/// A CV in % (`0.126%`), `n/a` for NaN.
pub(super) struct Cv(pub f64);

impl fmt::Display for Cv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.is_nan() {
            true => f.write_str("n/a"),
            false => write!(f, "{}%", Dec(self.0, 3)),
        }
    }
}

/// A point's spread, sd and CV: NaN for one round (a sample of one has
/// none to speak of, not a spread of 0).
pub(super) fn spread(s: &Summary) -> (f64, f64) {
    match s.n {
        0 | 1 => (f64::NAN, f64::NAN),
        _ => (s.stddev, s.cv_pct),
    }
}

/// The name of the other basis: the cross-check of the primary one.
pub(super) fn second_name(r: &Analysis) -> &'static str {
    if r.args.drop_first {
        "all-rounds"
    } else {
        "drop-first"
    }
}

/// The unit of every figure, short (tables, `1500.745 insn/pair`) and
/// in a sentence (`1500.745 instructions/pair`).
pub(super) fn unit(r: &Analysis) -> Unit {
    match r.icount() {
        false => Unit {
            short: "ns/pair",
            prose: "ns/pair",
        },
        true => Unit {
            short: "insn/pair",
            prose: "instructions/pair",
        },
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
        unit(r).prose,
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
