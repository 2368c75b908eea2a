//! What `compare` prints: a text report no wider than 72 columns ending in
//! a paragraph to paste into a mail, or (`--tsv`) one TSV row per
//! comparison. Numbers go through `Dec`, rounded as printf rounds them.

use core::fmt::{self, Write};

use super::input::{Point, BOOT_ID, KERNEL, PROFILE};
use super::{basis, Args, Comparison, Group, Reason};
use crate::report::{self, Clean, Clip, Dec, Text};
use crate::stats::Summary;
use crate::sys::out::Out;

/// Width of every text line.
pub const WIDTH: usize = 72;

pub struct Report<'r, 'a> {
    pub args: &'r Args<'a>,
    pub points: &'r [Point<'r>],
    pub groups: &'r [Group<'a>],
    pub cmps: &'r [Comparison],
}

/// A percentage with its sign and three decimals (`+9.268%`), `n/a` for NaN.
pub struct Pct(pub f64);

impl fmt::Display for Pct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() {
            return f.write_str("n/a");
        }
        let sign = if self.0 >= 0.0005 { "+" } else { "" };
        write!(f, "{sign}{}%", Dec(self.0, 3))
    }
}

/// What a group's value is: `1 point`, `midpoint of 2 points`, `mean of
/// 3 points`; in boots when some of its points share one (`Boots`):
/// `midpoint of 2 boots`.
struct Points {
    points: usize,
    boots: usize,
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
struct Units(usize, bool);

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = ["point", "boot"][self.1 as usize];
        write!(f, "{} {noun}{}", self.0, ["s", ""][(self.0 == 1) as usize])
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
        let s = ["s", ""][(self.0.count_ones() == 1) as usize];
        let p = ["p", "P"][self.1 as usize];
        write!(f, "{p}oint{s} {}", Nums(self.0))
    }
}

/// The points of group `g` that share a boot, one mask of point indices
/// a shared boot, at that boot's first point (None for the others).
fn shared(r: &Report, g: &Group, i: usize) -> Option<u32> {
    let id = |j: usize| r.points[j].tag(BOOT_ID);
    let mask = g
        .points()
        .iter()
        .filter(|&&j| !id(i).is_empty() && id(j) == id(i))
        .fold(0u32, |m, &j| m | 1 << j);
    (mask.count_ones() > 1 && mask.trailing_zeros() as usize == i).then_some(mask)
}

/// `v` with `d` decimals, `NA` for NaN (TSV).
struct Na(f64, u32);

impl fmt::Display for Na {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() {
            return f.write_str("NA");
        }
        Dec(self.0, self.1).fmt(f)
    }
}

/// Column alignments: right, left (padded), and the last column (left,
/// not padded: no trailing blanks).
pub(super) const RIGHT: u8 = 0;
pub(super) const LEFT: u8 = 1;
const LAST: u8 = 2;

/// `args` in a column of `width` characters, cut to fit from the left
/// behind `...` (the end of a path or a kernel release tells most).
pub(super) fn cell(out: &mut Out, width: usize, align: u8, args: fmt::Arguments<'_>) {
    // Room for a whole path, every byte of it escaped.
    let mut b = Text::<16400>::new();
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

/// Each number after a tab, with `decimals` (`NA` for NaN).
fn tsv_nums(out: &mut Out, vs: &[f64], decimals: u32) {
    for &v in vs {
        let _ = write!(out, "\t{}", Na(v, decimals));
    }
}

impl Report<'_, '_> {
    fn point(&self, i: usize) -> &Point<'_> {
        &self.points[i]
    }

    /// The primary sample of point `i`.
    fn sample(&self, i: usize) -> &super::input::Sample {
        &self.points[i].s[basis(self.args.drop_first, false)]
    }

    /// The name of the other basis: the cross-check of the primary one.
    fn second_name(&self) -> &'static str {
        ["drop-first", "all-rounds"][self.args.drop_first as usize]
    }

    /// The tool behind every point, or `mixed tools`.
    fn tool(&self) -> &'static str {
        let t = self.points[0].format.tool();
        if self.points.iter().all(|p| p.format.tool() == t) {
            t
        } else {
            "mixed tools"
        }
    }

    /// The points were timed on QEMU TCG's instruction clock (`with_points`
    /// made sure they all were, or none).
    fn icount(&self) -> bool {
        self.points.first().is_some_and(Point::icount)
    }

    /// The unit of every figure, short (tables, `1500.745 insn/pair`) and
    /// in a sentence (`1500.745 instructions/pair`).
    pub(super) fn unit(&self) -> Unit {
        match self.icount() {
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

    /// The profile the points name (`across` made sure it is one).
    fn profile(&self) -> &[u8] {
        self.points
            .iter()
            .map(|p| p.tag(PROFILE))
            .find(|p| !p.is_empty())
            .unwrap_or(b"")
    }
}

/// The text report.
pub fn text(r: &Report, out: &mut Out) {
    let a = r.args;
    let mut head = Text::<128>::new();
    let _ = write!(
        head,
        "uring-repro compare: {} point(s), gate {}%, {}",
        a.n,
        Dec(a.gate, 3),
        ["every round counted", "first round of each point dropped"][a.drop_first as usize]
    );
    report::wrap(out, head.as_str(), 0, 2, WIDTH);
    let _ = writeln!(
        out,
        "  #  label         rounds{:>14}     cv%  checks  file",
        ["ns/pair mean", "insn/pair"][r.icount() as usize]
    );
    for i in 0..a.n {
        let s = r.sample(i);
        nums(out, 3, &[(i + 1) as f64], 0);
        out.bytes(b"  ");
        cell(out, 12, LEFT, format_args!("{}", Clean(a.label(i))));
        nums(out, 7, &[s.s.n as f64], 0);
        nums(out, 14, &[s.mean], 3);
        nums(out, 8, &[spread(&s.s).1], 3);
        out.bytes(if r.point(i).valid() {
            b"  pass    "
        } else {
            b"  FAIL    "
        });
        cell(out, 16, LAST, format_args!("{}", Clean(a.file(i))));
        out.bytes(b"\n");
    }
    out.bytes(b"  #      median         min         max          sd  kernel\n");
    for i in 0..a.n {
        let s = &r.sample(i).s;
        nums(out, 3, &[(i + 1) as f64], 0);
        nums(out, 12, &[s.median, s.min, s.max, spread(s).0], 3);
        let kernel = r.point(i).tag(KERNEL);
        if !kernel.is_empty() {
            out.bytes(b"  ");
            cell(out, 19, LAST, format_args!("{}", Clean(kernel)));
        }
        out.bytes(b"\n");
    }
    for (i, p) in r.points.iter().enumerate() {
        if !p.valid() {
            let _ = writeln!(
                out,
                "  point {} FAILED: {} round(s) with semantic_pass 0{}",
                i + 1,
                p.failed_rounds,
                ["", ", run FAIL"][!p.run_passed as usize]
            );
        }
    }
    for c in r.cmps {
        comparison(r, c, out);
    }
    // The paragraph: composed whole, then wrapped.
    // 16 points and 15 comparisons take under 14 KiB (tags are cut to 64).
    let mut para = Text::<16384>::new();
    paragraph(r, &mut para);
    out.bytes(b"\nTo paste:\n\n");
    report::wrap(out, para.as_str(), 0, 0, WIDTH);
}

fn comparison(r: &Report, c: &Comparison, out: &mut Out) {
    let (ctl, test) = (&r.groups[0], &r.groups[c.test]);
    let _ = writeln!(out, "\n{} vs {}", Clean(test.label()), Clean(ctl.label()));
    let sides = [
        (ctl, c.control, "control", c.boots.0),
        (test, c.value, "test", c.boots.1),
    ];
    for (g, v, role, boots) in sides {
        out.bytes(b"  ");
        cell(out, 14, LEFT, format_args!("{}", Clean(g.label())));
        nums(out, 12, &[v], 3);
        let points = Points { points: g.k, boots };
        let _ = writeln!(out, " {}  {role}, {points}", r.unit().short);
    }
    let some_shared = c.boots != (ctl.k, test.k);
    // Both intervals; the verdict uses the wider (see `Intervals`).
    let (w, b) = (&c.iv.within, &c.iv.between);
    let none = ["", "  (no change)"][(c.reasons & Reason::NoChange.bit() != 0) as usize];
    let _ = writeln!(out, "  change          {}{none}", Pct(c.change));
    const NEXT: &str = "\n                  ";
    out.bytes(b"  within-point    ");
    let _ = match (w.low.is_nan(), w.exact()) {
        (true, _) => out.write_str("n/a (a point has 1 round)"),
        (_, true) => write!(
            out,
            "{} exact (no spread){NEXT}every round alike, {} vs {} rounds",
            Pct(w.low),
            c.rounds.1,
            c.rounds.0
        ),
        _ => write!(
            out,
            "{} .. {}  95% CI{NEXT}Welch, df {}, {} vs {} rounds",
            Pct(w.low),
            Pct(w.high),
            Dec(w.df, 1),
            c.rounds.1,
            c.rounds.0,
        ),
    };
    out.bytes(b"\n  between-point   ");
    let vs = Units(c.boots.0, some_shared);
    let _ = match (b.low.is_nan(), b.exact()) {
        (true, _) => write!(
            out,
            "n/a (one {} per label): the claim rests{NEXT}on the within-point interval only",
            ["point", "boot"][some_shared as usize]
        ),
        (_, true) => write!(
            out,
            "{} exact (no spread){NEXT}identical across {} vs {}",
            Pct(b.low),
            c.boots.1,
            Units(c.boots.0, true)
        ),
        _ => write!(
            out,
            "{} .. {}  95% CI{NEXT}Welch, df {}, {} vs {vs}",
            Pct(b.low),
            Pct(b.high),
            Dec(b.df, 1),
            c.boots.1
        ),
    };
    out.bytes(b"\n");
    for g in [ctl, test] {
        for &i in g.points() {
            if let Some(m) = shared(r, g, i) {
                // Up to 16 points: wrapped, as every line.
                let mut line = Text::<256>::new();
                let _ = write!(line, "{} (counted once)", PointsOf(m, false));
                out.bytes(b"  one boot        ");
                report::wrap(out, line.as_str(), 18, 18, WIDTH);
            }
        }
    }
    let _ = writeln!(
        out,
        "  {:<16}{}\n  \
         control drift   {}  (last {} vs first)\n  \
         test drift      {}\n  \
         max CV          {}",
        r.second_name(),
        Pct(c.second),
        Pct(c.drift),
        ["point", "boot"][(c.boots.0 != ctl.k) as usize],
        Pct(c.test_drift),
        Cv(c.max_cv)
    );
    out.bytes(b"  verdict         ");
    let sep = "\n                  ";
    verdict(r, c, out, sep, sep);
    out.bytes(b"\n");
}

/// Why a comparison is NOT CONFIRMED, one text per `why` bit, as the text
/// says it: with the drop-first change as the cross-check, or (with
/// --drop-first) the all-rounds change.
pub(super) const REASONS: [[&str; 9]; 2] = [
    [
        "|change| is under the gate",
        "the drop-first change has the other sign",
        "|drop-first change| is under the gate",
        "a point failed its checks",
        "|control drift| is not under the gate",
        "no drift: one control boot (run A B A)",
        "a point has 1 round: no drop-first, no spread",
        "the wider 95% CI includes 0",
        "no change: the values are identical",
    ],
    [
        "|change| is under the gate",
        "the all-rounds change has the other sign",
        "|all-rounds change| is under the gate",
        "a point failed its checks",
        "|control drift| is not under the gate",
        "no drift: one control boot (run A B A)",
        "a point has 1 round: no drop-first, no spread",
        "the wider 95% CI includes 0",
        "no change: the values are identical",
    ],
];

/// The first reason, when the wider interval is clear of zero: a real
/// change, only smaller than the gate (not noise).
pub(super) const UNDER_GATE_CLEAR: &str = "|change| is under the gate, though clear of zero";

/// The same reasons as TSV codes.
const REASON_CODES: [&str; 9] = [
    "under_gate",
    "second_sign",
    "second_under_gate",
    "failed_checks",
    "drift",
    "no_drift",
    "few_rounds",
    "ci_includes_zero",
    "no_change",
];

/// The names of the bits set in `bits`: `first` before the first one,
/// `sep` before the others.
fn list(w: &mut dyn Write, bits: u16, names: &[&str; 9], first: &str, sep: &str) {
    let mut before = first;
    for (i, name) in names.iter().enumerate() {
        if bits & (1 << i) != 0 {
            let _ = write!(w, "{before}{name}");
            before = sep;
        }
    }
}

/// Under the gate and clear of zero: a change the interval shows, smaller
/// than the gate.
pub(super) fn clear_under_gate(c: &Comparison) -> bool {
    let (under, spans) = (Reason::UnderGate.bit(), Reason::SpansZero.bit());
    c.reasons & (under | spans | Reason::FewRounds.bit()) == under
}

/// `CONFIRMED ...` or `NOT CONFIRMED ...:` and the reasons.
fn verdict(r: &Report, c: &Comparison, w: &mut dyn Write, first: &str, sep: &str) {
    let _ = write!(
        w,
        "{}CONFIRMED at the {}% gate{}",
        ["", "NOT "][(c.reasons != 0) as usize],
        Dec(r.args.gate, 3),
        ["", ":"][(c.reasons != 0) as usize]
    );
    let mut names = REASONS[r.args.drop_first as usize];
    if clear_under_gate(c) {
        names[Reason::UnderGate as usize] = UNDER_GATE_CLEAR;
    }
    list(w, c.reasons, &names, first, sep);
}

/// The paragraph to paste (unwrapped).
fn paragraph(r: &Report, w: &mut dyn Write) {
    let _ = write!(w, "Measured with {}", r.tool());
    if !r.profile().is_empty() {
        let p = r.profile();
        let _ = write!(w, ", profile {}", Clip::new(p, 64));
    }
    let pairs = r.points.iter().map(|p| p.pairs).max().unwrap_or(0);
    if pairs > 0 {
        let _ = write!(w, ", {pairs} pairs per round");
    }
    // Claim separate boots only when every point names its boot, all distinct.
    let id = |i: usize| r.points[i].tag(BOOT_ID);
    let n = r.points.len();
    let distinct = n > 1 && (0..n).all(|i| !id(i).is_empty() && (0..i).all(|j| id(j) != id(i)));
    let _ = write!(
        w,
        ", one run per point{}{}.",
        ["", ", each on its own boot (distinct boot ids)"][distinct as usize],
        ["", ", first round of each point dropped"][r.args.drop_first as usize]
    );
    if r.icount() {
        let _ = write!(w, " The points were {ICOUNT}.");
    }
    for g in r.groups {
        for &i in g.points() {
            if let Some(m) = shared(r, g, i) {
                let _ = write!(
                    w,
                    " {} share a boot ({}): counted once between points.",
                    PointsOf(m, true),
                    Clip::head(id(i), 8)
                );
            }
        }
    }
    for i in 0..n {
        let (p, s) = (r.point(i), r.sample(i));
        let _ = write!(
            w,
            " Point {} ({}): {} {} over {} round{}, CV {}",
            i + 1,
            Clean(r.args.label(i)),
            Dec(s.mean, 3),
            r.unit().prose,
            s.s.n,
            ["s", ""][(s.s.n == 1) as usize],
            Cv(spread(&s.s).1)
        );
        for (t, name) in [(KERNEL, "kernel"), (BOOT_ID, "boot")] {
            let v = p.tag(t);
            if !v.is_empty() {
                // A boot id's first group is enough to tell boots apart.
                let v = match t {
                    BOOT_ID => Clip::head(v, 8),
                    _ => Clip::new(v, 64),
                };
                let _ = write!(w, ", {name} {v}");
            }
        }
        let _ = w.write_str([", FAILED its checks.", "."][p.valid() as usize]);
    }
    for c in r.cmps {
        let _ = w.write_str(" ");
        sentence(r, c, w);
    }
}

/// One comparison in a sentence: the change against the control's value
/// with both intervals, drop-first, drift, max CV and the verdict.
pub(super) fn sentence(r: &Report, c: &Comparison, w: &mut dyn Write) {
    let (ctl, test) = (&r.groups[0], &r.groups[c.test]);
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
        r.unit().prose,
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
    let one = ["point", "boot"][some_shared as usize];
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
        r.second_name(),
        Pct(c.second),
        Pct(c.drift),
        Cv(c.max_cv)
    );
    verdict(r, c, w, " ", "; ");
    let _ = w.write_str(".");
}

/// TSV columns of `--tsv`, one row per comparison.
pub const TSV_HEADER: &str = "implementation\tprofile\tcontrol\ttest\tcontrol_points\t\
test_points\tcontrol_means\ttest_means\tcontrol_value\ttest_value\tchange_pct\t\
within_ci95_low_pct\twithin_ci95_high_pct\twithin_df\tcontrol_rounds\ttest_rounds\t\
between_ci95_low_pct\tbetween_ci95_high_pct\tbetween_df\tall_rounds_pct\t\
drop_first_pct\tcontrol_drift_pct\ttest_drift_pct\tmax_cv_pct\tgate_pct\tcvs_pct\tbasis\t\
confirmed\treasons\tcontrol_boots\ttest_boots\ttimebase";

/// The result summary as TSV.
pub fn tsv(r: &Report, out: &mut Out) {
    let _ = writeln!(out, "{TSV_HEADER}");
    let profile = r.profile();
    for c in r.cmps {
        let (ctl, test) = (&r.groups[0], &r.groups[c.test]);
        let _ = write!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}",
            r.tool(),
            Clean(if profile.is_empty() { b"NA" } else { profile }),
            Clean(ctl.label()),
            Clean(test.label()),
            ctl.k,
            test.k
        );
        // Per-point means of each group (comma-separated), then the numbers.
        for g in [ctl, test] {
            for (j, &i) in g.points().iter().enumerate() {
                let sep = [",", "\t"][(j == 0) as usize];
                let _ = write!(out, "{sep}{}", Dec(r.sample(i).mean, 6));
            }
        }
        let (all, drop_first) = match r.args.drop_first {
            false => (c.change, c.second),
            true => (c.second, c.change),
        };
        let (wi, b) = (&c.iv.within, &c.iv.between);
        tsv_nums(
            out,
            &[c.control, c.value, c.change, wi.low, wi.high, wi.df],
            6,
        );
        tsv_nums(out, &[c.rounds.0 as f64, c.rounds.1 as f64], 0);
        tsv_nums(
            out,
            &[
                b.low,
                b.high,
                b.df,
                all,
                drop_first,
                c.drift,
                c.test_drift,
                c.max_cv,
                r.args.gate,
            ],
            6,
        );
        for (j, &i) in ctl.points().iter().chain(test.points()).enumerate() {
            let sep = [",", "\t"][(j == 0) as usize];
            let _ = write!(out, "{sep}{}", Na(spread(&r.sample(i).s).1, 6));
        }
        let _ = write!(
            out,
            "\t{}\t{}\t",
            ["all", "drop-first"][r.args.drop_first as usize],
            ["yes", "no"][(c.reasons != 0) as usize]
        );
        list(out, c.reasons, &REASON_CODES, "", ",");
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}",
            ["-", ""][(c.reasons != 0) as usize],
            c.boots.0,
            c.boots.1,
            ["wall", "icount"][r.icount() as usize]
        );
    }
}
