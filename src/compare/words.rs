//! The words compare's text, the mail and their errors share, a leaf of
//! what they print: figures with their unit (`n/a` for what cannot be
//! computed), points and boots counted in words, and the columns of a
//! table. Numbers go through `Dec`, rounded as printf rounds them; every
//! line is at most WIDTH columns.

use core::fmt::{self, Write};

use super::args::Gate;
use crate::render::{columns, plural, unit_len, Dec, Signed, Text};
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

/// A gate as a sentence names it: `the 5.000% gate`, `the
/// 0.500-instruction gate` (three decimals: the gate printed is the gate
/// applied, `percent`).
pub(super) struct TheGate(pub Gate);

impl fmt::Display for TheGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Gate::Pct(p) => write!(f, "the {}% gate", Dec(p, 3)),
            Gate::Insn(i) => write!(f, "the {}-instruction gate", Dec(i, 3)),
        }
    }
}

/// A gate's value, as a heading gives it: `5.000%`, `0.500 insn/pair`.
pub(super) struct GateValue(pub Gate);

impl fmt::Display for GateValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Gate::Pct(p) => write!(f, "{}%", Dec(p, 3)),
            Gate::Insn(i) => write!(f, "{} insn/pair", Dec(i, 3)),
        }
    }
}

/// Text long enough for all that compare and the mail compose before
/// they wrap it: a paragraph of 16 points and 15 comparisons (under 14
/// KiB: facts are cut to 64 characters), a path with every byte escaped.
pub(super) type Long = Text<16400>;

/// What a group's value is: `1 point`, `midpoint of 2 points`, `mean of
/// 3 points`; in boots when some of its points share one (`Boots`):
/// `midpoint of 2 boots`.
pub(super) struct GroupValue {
    pub points: usize,
    pub boots: usize,
}

impl fmt::Display for GroupValue {
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
            let sep = if i == self.0.trailing_zeros() {
                ""
            } else if left == 0 {
                " and "
            } else {
                ", "
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

/// How a cell fills its column.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Right,
    Left,
    /// The last column: left, not padded (no trailing blanks).
    Last,
}

/// `args` in a column of `width` display columns, cut to fit from the
/// left behind `...` (the end of a path or a kernel release tells most),
/// at a unit of the escaped text (an escape is never cut in two).
pub(super) fn cell(out: &mut Out, width: usize, align: Align, args: fmt::Arguments<'_>) {
    let mut b = Long::new();
    let _ = b.write_fmt(args);
    let mut s = b.as_str();
    let mut room = width;
    if columns(s) > width {
        out.bytes(b"...");
        room = width.saturating_sub(3);
        while columns(s) > room {
            s = &s[unit_len(s)..];
        }
    }
    let pad = room - columns(s);
    if align == Align::Right {
        spaces(out, pad);
    }
    out.bytes(s.as_bytes());
    if align == Align::Left {
        spaces(out, pad);
    }
}

/// `n` blanks.
pub(super) fn spaces(out: &mut Out, n: usize) {
    for _ in 0..n {
        out.bytes(b" ");
    }
}

/// How a figure is written in a column: its decimals, its sign (a change:
/// `+` before one that prints above zero) and a `%`.
#[derive(Clone, Copy)]
pub(super) struct Figure {
    pub decimals: u32,
    pub signed: bool,
    pub pct: bool,
}

impl Figure {
    /// A plain figure of `decimals`.
    pub const fn plain(decimals: u32) -> Figure {
        Figure {
            decimals,
            signed: false,
            pct: false,
        }
    }
}

/// `v` as `how` writes it, right-aligned in a column of `width` (`n/a`
/// for NaN), a blank before it. A figure too wide for its column is never
/// cut, which hid its sign or its size: it is written shorter, to as many
/// digits as fit, with its power of ten (`+7.5000e16%`).
pub(super) fn figure(out: &mut Out, width: usize, v: f64, how: Figure) {
    let pct = if how.pct { "%" } else { "" };
    let mut t = Text::<48>::new();
    let _ = if v.is_nan() {
        t.write_str("n/a")
    } else if how.signed {
        write!(t, "{}{pct}", Signed(v, how.decimals))
    } else {
        write!(t, "{}{pct}", Dec(v, how.decimals))
    };
    // A blank before it at least: columns run together otherwise.
    if columns(t.as_str()) >= width && v.is_finite() {
        t = shorter(v, width - 1, how.signed, pct);
    }
    cell(
        out,
        width.max(columns(t.as_str())),
        Align::Right,
        format_args!("{t}"),
    );
}

/// `v` as `[sign]M.MMMeE[%]` in `width` columns where it can be: the
/// mantissa to as many decimals as fit (at least none).
fn shorter(v: f64, width: usize, signed: bool, pct: &str) -> Text<48> {
    let sign = if v < 0.0 {
        "-"
    } else if signed && v > 0.0 {
        "+"
    } else {
        ""
    };
    let (mut m, mut e) = (v.abs(), 0u32);
    while m >= 10.0 {
        (m, e) = (m / 10.0, e + 1);
    }
    let mut t = Text::<48>::new();
    for _ in 0..2 {
        let mut tail = Text::<8>::new();
        let _ = write!(tail, "e{e}{pct}");
        // Room for the sign, the first digit, the point and the tail.
        let room = width.saturating_sub(sign.len() + 2 + tail.as_bytes().len());
        let d = (room as u32).min(9);
        t = Text::new();
        let _ = write!(t, "{sign}{}{tail}", Dec(m, d));
        // Rounded up to 10 (9.996 to two decimals): one more power of ten.
        if !t.as_str()[sign.len()..].starts_with("10") {
            break;
        }
        (m, e) = (m / 10.0, e + 1);
    }
    t
}

/// Numbers in right-aligned columns of `width` (`n/a` for NaN).
pub(super) fn nums(out: &mut Out, width: usize, vs: &[f64], decimals: u32) {
    for &v in vs {
        figure(out, width, v, Figure::plain(decimals));
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

/// A CV in % (`0.126%`), `n/a` for NaN.
pub(super) struct Cv(pub f64);

impl fmt::Display for Cv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() {
            f.write_str("n/a")
        } else {
            write!(f, "{}%", Dec(self.0, 3))
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

/// The unit of every figure, short (tables, `1500.745 insn/pair`) and
/// in a sentence (`1500.745 instructions/pair`): ns of wall time, or
/// (`icount`) guest instructions.
pub(super) fn unit(icount: bool) -> Unit {
    if icount {
        Unit {
            short: "insn/pair",
            prose: "instructions/pair",
        }
    } else {
        Unit {
            short: "ns/pair",
            prose: "ns/pair",
        }
    }
}

/// `a ` or `an ` before `words`, as their first sound asks: `an` before a
/// vowel (an Intel, an Opteron), before an initialism whose first letter's
/// name starts with one (an AMD EPYC, an HP, an SMT) and before a number
/// said with one (an 8-core, an 11th, an 18-core); else `a` (a 12th Gen
/// Intel, a QEMU Virtual CPU, a unit, a one-socket box).
pub(super) fn article(words: &[u8]) -> &'static str {
    let first = words
        .split(|b| !b.is_ascii_alphanumeric())
        .next()
        .unwrap_or(b"");
    let lower = |prefix: &[u8]| {
        first.len() >= prefix.len() && first[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    let an = match first.first() {
        None => false,
        Some(d) if d.is_ascii_digit() => {
            let digits = first.iter().take_while(|b| b.is_ascii_digit()).count();
            *d == b'8' || ((lower(b"11") || lower(b"18")) && (digits == 2 || digits == 5))
        }
        // An initialism is said letter by letter: the letters whose names
        // start with a vowel.
        Some(c) if first.len() > 1 && first.iter().all(u8::is_ascii_uppercase) => {
            b"AEFHILMNORSX".contains(c)
        }
        Some(c) => match c.to_ascii_lowercase() {
            b'a' | b'i' => true,
            b'e' => !lower(b"eu"),
            b'o' => !lower(b"one"),
            b'u' => !(lower(b"uni") || lower(b"use") || lower(b"usu") || lower(b"uti")),
            _ => false,
        },
    };
    if an {
        "an "
    } else {
        "a "
    }
}
