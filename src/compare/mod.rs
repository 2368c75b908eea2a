//! `uring-repro compare [--gate PCT] [--tsv] [--drop-first] [LABEL=]FILE...`:
//! the fresh-boot A/B/A sandwich and longer labelled series, analysed the
//! way the regression report did, by the binary itself.
//!
//! Points and groups: every FILE is one point (one run, one boot). Points
//! with the same label form a group; the group's value is the mean of its
//! boots' values (with two: their midpoint), points of one boot counting
//! once (`Boots`); one boot under two labels, as both parents of a plain
//! sandwich, or the same file twice is refused. The first label is the
//! control; every other label is compared with it, in order of first
//! appearance. Plain files get labels: one `A`; two `A B` (a plain ratio, no
//! drift); three `A B A` (the sandwich: the outer two are the control).
//!
//! Per comparison: change = test value vs control value in %; the same
//! without each point's first round (drop-first); the control's drift (its
//! last boot vs its first, in %; none with one control boot); the largest
//! CV of the points involved; two 95% intervals of the change (`intervals`).
//! CONFIRMED needs |change| >= gate, a drop-first change of the same sign
//! with |drop-first| >= gate, every row of the points involved passing its
//! checks, a control drift with |drift| < gate, and the wider interval
//! clear of 0. `--drop-first` makes the drop-first figures the primary ones
//! (the table, the intervals) and the all-rounds change the cross-check.
//!
//! Limits (no heap): 16 points, labels of 12 bytes, 4 MiB of input in all,
//! 4096 rounds a point. Exit: 0 analysed (whatever the verdict), 1 a point failed
//! its checks, 2 usage or unusable input (`FILE:LINE: reason`).

mod banner;
mod bisect;
mod draft;
mod input;
mod output;

use core::fmt;

pub use draft::{main as report, Draft, MAX_LINK, MAX_LINKS, MAX_TITLE};
pub use input::{decimal, MODES};

use crate::exit::{self, fail};
use crate::report::Clean;
use crate::stats::{pct_change, sqrt, summarize, Contrast};
use crate::sys::memory::Mapping;
use crate::sys::out::Out;
use crate::sys::{self, uapi, Errno};
use banner::{Facts, F, FACTS};
use input::{Bad, Format, Point, MAX_INPUT_BYTES, MAX_ROUNDS};

/// Most files one compare reads.
pub const MAX_POINTS: usize = 16;
/// Longest label.
pub const MAX_LABEL: usize = 12;

/// The command line of `compare` (the options table in cli/ fills it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Args<'a> {
    pub gate: f64,
    pub tsv: bool,
    pub drop_first: bool,
    /// `--mode M`: the pollwake profile (`pollwake_M`) every point is read for.
    pub mode: Option<&'static str>,
    /// `--bisect`: classify the `new=` point against `good=` and `bad=`.
    pub bisect: bool,
    /// Labels (set for every point after parsing) and file names; read
    /// them through `label(i)` and `file(i)`.
    pub labels: [Option<&'a [u8]>; MAX_POINTS],
    pub files: [Option<&'a [u8]>; MAX_POINTS],
    pub n: usize,
    /// The files came without labels (`A B A`: the outer two are the
    /// parents of a sandwich, each its own boot).
    pub plain: bool,
}

impl Default for Args<'_> {
    fn default() -> Self {
        Args {
            gate: crate::config::DEFAULT_GATE_PCT as f64,
            tsv: false,
            drop_first: false,
            mode: None,
            bisect: false,
            labels: [None; MAX_POINTS],
            files: [None; MAX_POINTS],
            n: 0,
            plain: false,
        }
    }
}

impl<'a> Args<'a> {
    pub fn label(&self, i: usize) -> &'a [u8] {
        self.labels[i].unwrap_or(b"")
    }

    pub fn file(&self, i: usize) -> &'a [u8] {
        self.files[i].unwrap_or(b"")
    }
}

/// Points sharing a label, in order of first appearance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group<'a> {
    pub label: Option<&'a [u8]>,
    /// Indices of its points, in command-line order.
    pub members: [usize; MAX_POINTS],
    pub k: usize,
}

impl<'a> Group<'a> {
    pub fn label(&self) -> &'a [u8] {
        self.label.unwrap_or(b"")
    }

    pub fn points(&self) -> &[usize] {
        &self.members[..self.k]
    }
}

/// Groups the points of `a`; returns how many groups.
pub fn groups<'a>(a: &Args<'a>, out: &mut [Group<'a>; MAX_POINTS]) -> usize {
    let mut n = 0;
    for i in 0..a.n {
        let g = match out[..n].iter().position(|g| g.label == a.labels[i]) {
            Some(g) => g,
            None => {
                out[n] = Group {
                    label: a.labels[i],
                    members: [0; MAX_POINTS],
                    k: 0,
                };
                n += 1;
                n - 1
            }
        };
        out[g].members[out[g].k] = i;
        out[g].k += 1;
    }
    n
}

/// A label's points as boots: points that share a boot_id are one boot,
/// not independent draws, so they count once between points (their boot's
/// value is the mean of their means). A point without a boot_id is a boot
/// of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Boots {
    /// Each boot's value, in the order of its first point.
    means: [f64; MAX_POINTS],
    /// How many boots.
    pub k: usize,
    /// Per point (in the order given): how many points share its boot.
    share: [usize; MAX_POINTS],
}

impl Boots {
    /// The boots of `pts` (at most MAX_POINTS), their values on basis `b`.
    pub fn of(pts: &[&Point], b: usize) -> Boots {
        let mut boots = Boots {
            means: [0.0; MAX_POINTS],
            k: 0,
            share: [0; MAX_POINTS],
        };
        let pts = &pts[..pts.len().min(MAX_POINTS)];
        let id = |i: usize| pts[i].tag(input::BOOT_ID);
        for i in 0..pts.len() {
            let same = |j: &usize| *j == i || (!id(i).is_empty() && id(*j) == id(i));
            boots.share[i] = (0..pts.len()).filter(same).count();
            // A boot is counted at its first point.
            if (0..i).any(|j| same(&j)) {
                continue;
            }
            let sum: f64 = (0..pts.len()).filter(same).map(|j| pts[j].s[b].mean).sum();
            boots.means[boots.k] = sum / boots.share[i] as f64;
            boots.k += 1;
        }
        boots
    }

    /// The boots' values.
    pub fn means(&self) -> &[f64] {
        &self.means[..self.k]
    }

    /// The label's value: the mean of its boots' values.
    pub fn value(&self) -> f64 {
        self.means().iter().sum::<f64>() / self.k as f64
    }

    /// The weight of point `i`'s mean in `value`.
    pub fn weight(&self, i: usize) -> f64 {
        1.0 / (self.k * self.share[i]) as f64
    }

    /// The last boot vs the first in %, NaN with one boot.
    pub fn drift(&self) -> f64 {
        match self.k {
            0 | 1 => f64::NAN,
            k => pct_change(self.means[k - 1], self.means[0]),
        }
    }
}

/// Why a comparison is NOT CONFIRMED: bit `1 << reason` of
/// `Comparison::reasons`, named by `output::REASONS[_][reason]` and
/// `output::REASON_CODES[reason]`.
#[derive(Clone, Copy)]
pub enum Reason {
    UnderGate,
    SecondSign,
    SecondUnderGate,
    FailedChecks,
    Drift,
    NoDrift,
    FewRounds,
    SpansZero,
    /// The values are identical (the points agree to the last bit, as
    /// exact icount points of an unchanged path do): in place of the
    /// reasons about the change's size and sign.
    NoChange,
}

impl Reason {
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// One test group against the control group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Index of the test group (the control is group 0).
    pub test: usize,
    /// Control and test values (ns/pair), primary basis.
    pub control: f64,
    pub value: f64,
    /// Change in %, primary basis, and the other basis (drop-first, or all
    /// rounds with --drop-first).
    pub change: f64,
    pub second: f64,
    /// The change's two 95% intervals (primary basis).
    pub iv: Intervals,
    /// Rounds behind the within-point interval: control, test.
    pub rounds: (usize, usize),
    /// Boots behind the between-point interval (points that share a boot
    /// count once): control, test.
    pub boots: (usize, usize),
    /// Last vs first boot in %, NaN with one boot: control, test.
    pub drift: f64,
    pub test_drift: f64,
    pub max_cv: f64,
    /// `Reason` bits; 0 = CONFIRMED.
    pub reasons: u16,
}

/// A 95% interval of a change in %: its ends and its degrees of freedom,
/// all NaN when it is not available. An exact one (no spread at all, as
/// points on QEMU's instruction clock can be) has low = high and df NaN.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    pub df: f64,
}

impl Interval {
    /// No spread behind it: its width is 0.
    pub fn exact(&self) -> bool {
        self.low == self.high
    }
}

/// The change of one label against the control, in %, with its two 95%
/// intervals.
///
/// - `within`: Welch over rounds. Each point's rounds are one sample of
///   that point's mean; the change is the linear combination of the point
///   means (1/k for each of the k test points, -1/k for the control's), its
///   variance sum(c_i^2 s_i^2 / n_i), its df Welch-Satterthwaite's. It
///   assumes the rounds of a point are independent draws around the
///   point's mean and that the points' means are what is compared: noise
///   between boots is not in it.
/// - `between`: Welch over point means. Each label's point means are one
///   sample (its size the label's points), so boot-to-boot noise is in it;
///   it assumes the points of a label are independent draws around the
///   label's value. A label of one point has no spread of its own: it is
///   taken to be the other label's (boot noise is the box's, not the
///   kernel's), so with k points on the other side the variance is
///   s^2 (1/k + 1) on k - 1 df. NaN when both labels have one point.
///
/// Both are in % of the control's value, around `change`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Intervals {
    pub change: f64,
    pub within: Interval,
    pub between: Interval,
}

impl Intervals {
    /// The wider interval, the one a claim of significance rests on (the
    /// within-point one when there is no between-point one).
    pub fn wider(&self) -> &Interval {
        let width = |i: &Interval| i.high - i.low;
        let (b, w) = (width(&self.between), width(&self.within));
        if b.is_nan() || b <= w {
            &self.within
        } else {
            &self.between
        }
    }
}

/// The change of `other` vs `control` in % with its within-point and
/// between-point 95% intervals (see `Intervals`), from raw rounds: each
/// inner slice is one point's per-round ns/pair. A point's mean is the mean
/// of its rounds (what `compare` computes when every round has the same
/// pairs); a label's value is the mean of its points' means. At most
/// MAX_POINTS points a side and `stats::MAX_VALUES` rounds a point are
/// used; a side without points gives NaN throughout. (`compare` itself
/// goes through `intervals_of`: its point means weigh rounds by pairs.)
pub fn intervals(control: &[&[f64]], other: &[&[f64]]) -> Intervals {
    if control.is_empty() || other.is_empty() {
        let nan = Interval {
            low: f64::NAN,
            high: f64::NAN,
            df: f64::NAN,
        };
        return Intervals {
            change: f64::NAN,
            within: nan,
            between: nan,
        };
    }
    let mut within = Contrast::new();
    let mut means = [[0f64; MAX_POINTS]; 2];
    let mut k = [0; 2];
    for (i, pts) in [control, other].iter().enumerate() {
        let coef = [-1.0, 1.0][i] / pts.len().min(MAX_POINTS) as f64;
        for (m, rounds) in means[i].iter_mut().zip(pts.iter()) {
            let s = summarize(rounds);
            within.add(coef, &s);
            (*m, k[i]) = (s.mean, k[i] + 1);
        }
    }
    intervals_of([&means[0][..k[0]], &means[1][..k[1]]], within)
}

/// `Intervals` of a test label against the control, from each side's
/// point means ([control's, test's], at least one each) and the
/// within-point contrast of their rounds.
fn intervals_of(means: [&[f64]; 2], within: Contrast) -> Intervals {
    // Each label's point means as one sample: its mean is the label's value.
    let [c, t] = means.map(summarize);
    let change = pct_change(t.mean, c.mean);
    let mut between = Contrast::new();
    for (s, other) in [(&c, &t), (&t, &c)] {
        // A label of one point takes the other's spread: with n points
        // there, the weight 1 + n gives s^2/n + s^2 on n - 1 df.
        if s.n > 1 {
            let k = if other.n > 1 { 1.0 } else { 1.0 + s.n as f64 };
            between.add(sqrt(k), s);
        }
    }
    // Both one point: no spread at all to go by.
    between.ok &= c.n > 1 || t.n > 1;
    let mut iv = [Interval::default(); 2];
    for (i, w) in iv.iter_mut().zip([within, between]) {
        let hw = w.half_width95() / c.mean * 100.0;
        // No df without a spread to have it (0 / 0 in Welch's formula).
        let df = if hw.is_nan() || hw == 0.0 {
            f64::NAN
        } else {
            w.df()
        };
        *i = Interval {
            low: change - hw,
            high: change + hw,
            df,
        };
    }
    Intervals {
        change,
        within: iv[0],
        between: iv[1],
    }
}

/// Which of a point's samples a figure uses: the primary basis (`second`
/// false: all rounds, or drop-first with --drop-first) or the other one.
pub fn basis(drop_first: bool, second: bool) -> usize {
    if drop_first != second {
        input::REST
    } else {
        input::ALL
    }
}

/// The boots of group `g`'s points, on basis `b`.
fn boots(points: &[Point], g: &Group, b: usize) -> Boots {
    let mut refs = [&points[0]; MAX_POINTS];
    for (r, &i) in refs.iter_mut().zip(g.points()) {
        *r = &points[i];
    }
    Boots::of(&refs[..g.k], b)
}

/// Compares group `test` with group 0.
pub fn compare(
    points: &[Point],
    groups: &[Group],
    test: usize,
    drop_first: bool,
    gate: f64,
) -> Comparison {
    let (c, t) = (&groups[0], &groups[test]);
    let (b1, b2) = (basis(drop_first, false), basis(drop_first, true));
    let second = pct_change(boots(points, t, b2).value(), boots(points, c, b2).value());
    let bs = [boots(points, c, b1), boots(points, t, b1)];
    // test value - control value: each point weighs as in its label's
    // value, + for the test's, - for the control's.
    let mut within = Contrast::new();
    // No CV of a point of one round: NaN when no point has two.
    let (mut max_cv, mut reasons, mut rounds) = (f64::NAN, 0, [0; 2]);
    for (side, g) in [c, t].iter().enumerate() {
        let sign = if side == 0 { -1.0 } else { 1.0 };
        for (j, &i) in g.points().iter().enumerate() {
            let p = &points[i];
            let s = &p.s[b1].s;
            rounds[side] += s.n;
            within.add(sign * bs[side].weight(j), s);
            if s.n > 1 {
                max_cv = max_cv.max(s.cv_pct);
            }
            if !p.valid() {
                reasons |= Reason::FailedChecks.bit();
            }
            if p.s[input::ALL].s.n < 2 {
                reasons |= Reason::FewRounds.bit();
            }
        }
    }
    let iv = intervals_of([bs[0].means(), bs[1].means()], within);
    let (change, w) = (iv.change, iv.wider());
    let drift_c = bs[0].drift();
    // Each test fails on NaN (no drop-first with one round, ...).
    let few = reasons & Reason::FewRounds.bit() != 0;
    let over = |v: f64| v.abs() >= gate;
    let one = bs[0].k < 2;
    // Identical values: no change to size up, which is the reason itself.
    let same = bs[1].value() == bs[0].value();
    for (ok, bit) in [
        (same || over(change), Reason::UnderGate.bit()),
        (
            same || few || second * change > 0.0,
            Reason::SecondSign.bit(),
        ),
        (same || few || over(second), Reason::SecondUnderGate.bit()),
        (one || drift_c.abs() < gate, Reason::Drift.bit()),
        (!one, Reason::NoDrift.bit()),
        // With a point of one round there is no interval to judge by: it
        // is FewRounds that says so.
        (
            same || few || w.low > 0.0 || w.high < 0.0,
            Reason::SpansZero.bit(),
        ),
        (!same, Reason::NoChange.bit()),
    ] {
        if !ok {
            reasons |= bit;
        }
    }
    Comparison {
        test,
        control: bs[0].value(),
        value: bs[1].value(),
        change,
        second,
        iv,
        rounds: (rounds[0], rounds[1]),
        boots: (bs[0].k, bs[1].k),
        drift: drift_c,
        test_drift: bs[1].drift(),
        max_cv,
        reasons,
    }
}

/// Reads `file` whole into `buf`: the length, or why not (an Errno; None
/// when it fills `buf`: too much input).
fn read(file: &[u8], buf: &mut [u8]) -> Result<usize, Option<Errno>> {
    let mut path = [0u8; 4097];
    if file.len() >= path.len() {
        return Err(Some(Errno::ENAMETOOLONG));
    }
    path[..file.len()].copy_from_slice(file);
    let fd = sys::open(&path[..=file.len()], uapi::O_RDONLY, 0)?;
    let mut len = 0;
    while len < buf.len() {
        match sys::read(fd.raw(), &mut buf[len..]) {
            Ok(0) => return Ok(len),
            Ok(n) => len += n,
            Err(Errno::EINTR) => {}
            Err(e) => return Err(Some(e)),
        }
    }
    Err(None)
}

/// `:LINE` of an error, nothing for line 0 (the whole file).
struct LineNo(usize);

impl fmt::Display for LineNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 > 0 {
            write!(f, ":{}", self.0)?;
        }
        Ok(())
    }
}

/// What follows the reason: `: `text`` when there is offending text to
/// show; for an interrupted run, `: N of M rounds` (M the text).
struct Quoted<'t>(&'t [u8], Option<u32>);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.1 {
            return write!(f, ": {n} of {} rounds", Clean(self.0));
        }
        if self.0.is_empty() {
            return Ok(());
        }
        // The excerpt may come from a binary file: shown as every echo is.
        write!(f, ": `{}`", Clean(self.0))
    }
}

/// One workload and one contract across points, where the inputs say:
/// the first point (in `order`) that breaks that, and why.
fn across<'t>(pts: &[Point<'t>], order: &[usize]) -> Option<(usize, Bad<'t>)> {
    fn profile<'t>(p: &Point<'t>) -> &'t [u8] {
        p.tag(input::PROFILE)
    }
    let pts_in_order = || order.iter().map(|&i| (i, &pts[i]));
    let first = pts_in_order()
        .map(|(_, p)| profile(p))
        .find(|p| !p.is_empty())
        .unwrap_or(b"");
    let pairs = pts_in_order()
        .map(|(_, p)| p.pairs)
        .find(|&n| n != 0)
        .unwrap_or(0);
    for (i, p) in pts_in_order() {
        if !profile(p).is_empty() && profile(p) != first {
            let why = "another profile than the first file's (one workload at a time)";
            return Some((i, input::bad(0, why, profile(p))));
        }
        if p.pairs != 0 && p.pairs != pairs {
            let why = "other pairs per round than the first file (another contract)";
            return Some((i, input::bad(0, why, b"")));
        }
    }
    None
}

/// The exit code when file `i` cannot be used: a usage error, or under
/// `--bisect` 125 for the new point (this commit cannot be judged) and 128
/// for a reference (stop the bisect).
fn unusable(a: &Args, i: usize) -> i32 {
    match (a.bisect, a.label(i)) {
        (false, _) => exit::USAGE,
        (true, b"new") => bisect::SKIP,
        (true, _) => bisect::ABORT,
    }
}

/// The contract fields points must agree on, beyond the profile and the
/// pairs per round (`across`): what the contract hash covers, with the
/// injected ns; the witness is checked on its own (`mixed_witness`). The
/// timebase is checked first of all (`TIMEBASE`): instructions beside time
/// is the mistake to name, whatever else differs.
const CONTRACT: [F; 13] = [
    F::Version,
    F::Mode,
    F::RingEntries,
    F::CqEntries,
    F::Slots,
    F::Cycles,
    F::Warmups,
    F::Rounds,
    F::Cpu,
    F::Futex,
    F::Timeout,
    F::InjectNs,
    F::Sha,
];
const TIMEBASE: [F; 1] = [F::Timebase];

/// What point `p` states for contract field `f`, where `facts` do not say
/// it outright: no `timebase` is wall time (any tool), no `inject_ns` in
/// our banner or TSV is none injected; otherwise not stated.
fn stated<'t>(p: &Point, facts: &Facts<'t>, f: F) -> Option<&'t [u8]> {
    let ours = matches!(p.format, Format::Stdout | Format::Tsv);
    facts.get(f).or(match f {
        F::Timebase => Some(b"wall"),
        F::InjectNs if ours => Some(b"0"),
        _ => None,
    })
}

/// The order points are checked against each other in: under `--bisect`
/// the references first, so that a new point that differs from them is
/// the one named (it cannot be judged), not a reference.
fn check_order(a: &Args) -> [usize; MAX_POINTS] {
    let mut order = [0; MAX_POINTS];
    let new = |i: usize| a.bisect && a.label(i) == b"new";
    let mut k = 0;
    for last in [false, true] {
        for i in (0..a.n).filter(|&i| new(i) == last) {
            order[k] = i;
            k += 1;
        }
    }
    order
}

/// A contract field two points disagree on: the later point, the field,
/// its value there, and the earlier point and its value.
struct Disagree<'t> {
    at: usize,
    field: F,
    value: &'t [u8],
    first: usize,
    was: &'t [u8],
}

/// The first of `fields` a point states otherwise than an earlier one (in
/// `order`) that states it; inputs that state less are checked on what they
/// state.
fn contract<'t>(
    pts: &[Point],
    facts: &[Facts<'t>],
    order: &[usize],
    fields: &[F],
) -> Option<Disagree<'t>> {
    for &f in fields {
        let mut first: Option<(usize, &[u8])> = None;
        for &i in order {
            let Some(v) = stated(&pts[i], &facts[i], f) else {
                continue;
            };
            match first {
                None => first = Some((i, v)),
                Some((j, w)) if w != v => {
                    return Some(Disagree {
                        at: i,
                        field: f,
                        value: v,
                        first: j,
                        was: w,
                    })
                }
                Some(_) => {}
            }
        }
    }
    None
}

/// The first point (in `order`) whose run was witnessed (`witness=on`:
/// tracepoints enabled around its rounds) when the first was not, or the
/// other way round; None when they are all alike.
fn mixed_witness(facts: &[Facts], order: &[usize]) -> Option<usize> {
    let on = |i: usize| facts[i].get(F::Witness) == Some(b"on");
    order.iter().copied().find(|&i| on(i) != on(order[0]))
}

/// Why two points cannot both be counted.
#[derive(Clone, Copy)]
enum Twice {
    /// The same bytes (the same file, or a copy).
    SameFile,
    /// One boot under two labels: not independent draws of two kernels.
    OtherLabel,
    /// One boot as both parents of a plain `A B A`.
    Parents,
}

/// Two points that must not both count: the later one (in `order`), the
/// earlier one, and why. Points of one boot within one label are allowed
/// (they count once: `Boots`), but not as the parents of a plain sandwich.
fn twice(
    a: &Args,
    pts: &[Point],
    texts: &[&[u8]],
    order: &[usize],
) -> Option<(usize, usize, Twice)> {
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[..x] {
            let id = pts[i].tag(input::BOOT_ID);
            let why = if texts[i] == texts[j] {
                Twice::SameFile
            } else if id.is_empty() || id != pts[j].tag(input::BOOT_ID) {
                continue;
            } else if a.label(i) != a.label(j) {
                Twice::OtherLabel
            } else if a.plain {
                Twice::Parents
            } else {
                continue;
            };
            return Some((i, j, why));
        }
    }
    None
}

/// What `with_points` hands the points and the facts they state to.
type Then<'c> = dyn FnMut(&[Point], &[Facts]) -> i32 + 'c;

/// Reads and checks every point of `a` (one buffer holds every file's
/// text, which the points keep slices of), then hands the points and their
/// texts to `then` (one loader for every command: `dyn`); its exit code, or the error's after its stderr line.
fn with_points(a: &Args, then: &mut Then) -> i32 {
    let mem = match Mapping::anonymous(MAX_INPUT_BYTES + 1) {
        Ok(m) => m,
        Err(e) => {
            let code = if a.bisect { bisect::ABORT } else { exit::USAGE };
            return fail(code, format_args!("compare: no memory for input: {e}"));
        }
    };
    // SAFETY: a fresh private mapping of mem.len() zeroed bytes, ours alone
    // while `mem` lives (until the end of this function).
    let mut buf = unsafe { core::slice::from_raw_parts_mut(mem.ptr(), mem.len()) };
    let mut values = [0f64; MAX_ROUNDS];
    let mut pts = [Point::default(); MAX_POINTS];
    let mut facts = [Facts::default(); MAX_POINTS];
    let mut texts: [&[u8]; MAX_POINTS] = [b""; MAX_POINTS];
    for i in 0..a.n {
        let file = Clean(a.file(i));
        // Every file stays in the buffer: points keep slices of their text.
        let len = match read(a.file(i), buf) {
            Ok(n) => n,
            Err(Some(e)) => return fail(unusable(a, i), format_args!("{file}: cannot read: {e}")),
            Err(None) => {
                return fail(
                    unusable(a, i),
                    format_args!("{file}: the files exceed 4 MiB together (compare's limit)"),
                )
            }
        };
        let (text, rest) = core::mem::take(&mut buf).split_at_mut(len);
        buf = rest;
        let text = &*text;
        texts[i] = text;
        if let Err(b) = input::parse(text, &mut values, &mut pts[i], a.mode.map(str::as_bytes)) {
            return fail(
                unusable(a, i),
                format_args!(
                    "{file}{}: {}{}",
                    LineNo(b.line),
                    b.why,
                    Quoted(b.text, b.done)
                ),
            );
        }
        facts[i] = banner::read(text, pts[i].format);
        if a.drop_first && pts[i].s[input::ALL].s.n < 2 {
            let why = "1 round: --drop-first leaves none (it needs 2 or more)";
            return fail(unusable(a, i), format_args!("{file}: {why}"));
        }
    }
    let (pts, facts, order) = (&pts[..a.n], &facts[..a.n], &check_order(a)[..a.n]);
    let file = |i: usize| Clean(a.file(i));
    let timebase = contract(pts, facts, order, &TIMEBASE);
    if let (None, Some((i, b))) = (&timebase, across(pts, order)) {
        return fail(
            unusable(a, i),
            format_args!("{}: {}{}", file(i), b.why, Quoted(b.text, None)),
        );
    }
    if let Some(d) = timebase.or_else(|| contract(pts, facts, order, &CONTRACT)) {
        let why = match d.field {
            F::Timebase => "icount counts guest instructions, not time",
            _ => "another contract",
        };
        let key = FACTS[d.field as usize].0;
        return fail(
            unusable(a, d.at),
            format_args!(
                "{}: {key}={} beside {key}={} in {}: {why} (compare like with like)",
                file(d.at),
                Clean(d.value),
                Clean(d.was),
                file(d.first)
            ),
        );
    }
    if let Some(i) = mixed_witness(facts, order) {
        let why = "a witnessed run beside plain ones (enabled tracepoints cost time: compare like with like)";
        return fail(unusable(a, i), format_args!("{}: {why}", file(i)));
    }
    if let Some((i, j, why)) = twice(a, pts, &texts[..a.n], order) {
        // Under --bisect the references (or the step) are wrong: stop.
        let code = if a.bisect { bisect::ABORT } else { exit::USAGE };
        let (this, that) = (file(i), file(j));
        let id = Clean(pts[i].tag(input::BOOT_ID));
        return match why {
            Twice::SameFile => fail(
                code,
                format_args!("{this}: the same file as {that} (a point counts once)"),
            ),
            Twice::OtherLabel => fail(
                code,
                format_args!(
                    "{this}: boot {id} is also {that}'s, under another label: points of one \
                     boot are not independent"
                ),
            ),
            Twice::Parents => fail(
                code,
                format_args!(
                    "{this}: boot {id} is also {that}'s: the parents of a sandwich need a boot each"
                ),
            ),
        };
    }
    then(pts, facts)
}

/// The groups of `a` and every label's comparison with the control, into
/// `gs` and `cmps` (`cmps[t]` for group t >= 1); returns how many groups.
fn analyse<'a>(
    a: &Args<'a>,
    pts: &[Point],
    gs: &mut [Group<'a>; MAX_POINTS],
    cmps: &mut [Comparison; MAX_POINTS],
) -> usize {
    let ng = groups(a, gs);
    for (t, c) in cmps.iter_mut().enumerate().take(ng).skip(1) {
        *c = compare(pts, &gs[..ng], t, a.drop_first, a.gate);
    }
    ng
}

/// No group yet.
const NO_GROUP: Group<'static> = Group {
    label: None,
    members: [0; MAX_POINTS],
    k: 0,
};

/// Runs `compare` with its parsed arguments; returns the exit code.
pub fn main(a: &Args, out: &mut Out) -> i32 {
    with_points(a, &mut |pts, _| {
        if a.bisect {
            return bisect_step(a, pts, out);
        }
        let (mut gs, mut cmps) = ([NO_GROUP; MAX_POINTS], [Comparison::default(); MAX_POINTS]);
        let ng = analyse(a, pts, &mut gs, &mut cmps);
        let r = output::Report {
            args: a,
            points: pts,
            groups: &gs[..ng],
            cmps: &cmps[1.min(ng)..ng],
        };
        if a.tsv {
            output::tsv(&r, out);
        } else {
            output::text(&r, out);
        }
        out.flush();
        let bad = pts.iter().filter(|p| !p.valid()).count();
        if bad > 0 {
            return fail(
                exit::FAIL,
                format_args!(
                    "compare: {bad} point(s) failed their checks: not evidence (see the table)"
                ),
            );
        }
        exit::PASS
    })
}

/// `--bisect`: every point read; the verdict line, and its exit code.
fn bisect_step(a: &Args, pts: &[Point], out: &mut Out) -> i32 {
    for (i, p) in pts.iter().enumerate() {
        let file = Clean(a.file(i));
        if !p.valid() {
            return fail(unusable(a, i), format_args!("{file}: failed its checks"));
        }
        if p.s[input::ALL].s.n < 2 {
            let why = "1 round: no spread within the point (it needs 2 or more)";
            return fail(unusable(a, i), format_args!("{file}: {why}"));
        }
    }
    let mut sides: [[&Point; MAX_POINTS]; 3] = [[&pts[0]; MAX_POINTS]; 3];
    let mut k = [0; 3];
    for (i, p) in pts.iter().enumerate() {
        let side = match a.label(i) {
            b"good" => 0,
            b"bad" => 1,
            _ => 2,
        };
        sides[side][k[side]] = p;
        k[side] += 1;
    }
    let (good, bad, new) = (&sides[0][..k[0]], &sides[1][..k[1]], sides[2][0]);
    match bisect::judge(good, bad, new, a.gate) {
        Err(bisect::Abort::CloserThanGate(c)) => fail(
            bisect::ABORT,
            format_args!(
                "compare --bisect: the references are closer than the gate: bad vs good {}%, gate {}%",
                crate::report::Signed(c, 3),
                crate::report::Dec(a.gate, 3)
            ),
        ),
        Ok(v) => {
            let _ = fmt::Write::write_fmt(out, format_args!("{v}\n"));
            out.flush();
            match v.code {
                0 => exit::PASS,
                code => fail(code, format_args!("compare --bisect: {}", v.why())),
            }
        }
    }
}

#[cfg(test)]
mod tests;
