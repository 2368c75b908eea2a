//! compare's maths, pure: points grouped by label, a label's boots, and
//! each label compared with the control (the first label): the change,
//! drop-first, drifts, the largest CV, and the change's two 95% intervals
//! (`Intervals`), then the verdict's reasons. `Analysis` holds all of it
//! for one command line: what compare's text, its TSV and the mail are
//! written from.
//!
//! Points and groups: points with the same label form a group; the
//! group's value is the mean of its boots' values (with two: their
//! midpoint), points of one boot counting once (`Boots`). Plain files get
//! labels (cli/): one `A`; two `A B` (a plain ratio, no drift); three
//! `A B A` (the sandwich: the outer two are the control).
//!
//! CONFIRMED, at a gate in % (`Gate::Pct`), needs |change| >= gate, a
//! drop-first change of the same sign with |drop-first| >= gate, every row
//! of the points involved passing its checks, a control drift with |drift|
//! < gate, and the wider interval clear of 0. `--drop-first` makes the
//! drop-first figures the primary ones (the table, the intervals) and the
//! all-rounds change the cross-check.
//!
//! At a gate in instructions per pair (`Gate::Insn`, for points that count
//! instructions: ab's gate, docs/ab.md), CONFIRMED needs |change| >= gate
//! plus the spread of the control's boots' values, every row passing its
//! checks, and the change's 95% interval round by round clear of 0: each
//! round of the test against the same round of the control (one binary on
//! the instruction clock: the rounds of two kernels meet the same ticks),
//! so every point of both labels must have as many rounds, two or more.

use super::args::{Args, Gate, MAX_POINTS};
use super::point::{Cost, Point, Sample, ALL, REST};
use crate::stats::{pct_change, sqrt, summarize, t975, Contrast};

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

/// No group yet.
const NO_GROUP: Group<'static> = Group {
    label: None,
    members: [0; MAX_POINTS],
    k: 0,
};

/// Groups the points of `a`; returns how many groups.
pub fn groups<'a>(a: &Args<'a>, out: &mut [Group<'a>; MAX_POINTS]) -> usize {
    let mut n = 0;
    for i in 0..a.n {
        let g = match out[..n].iter().position(|g| g.label == a.labels[i]) {
            Some(g) => g,
            None => {
                out[n] = Group {
                    label: a.labels[i],
                    ..NO_GROUP
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
        let id = |i: usize| pts[i].boot();
        for i in 0..pts.len() {
            let same = |j: &usize| *j == i || (id(i).is_some() && id(*j) == id(i));
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
/// `Comparison::reasons`, worded by `claim::reason` and coded by
/// `text::code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    UnderGate,
    SecondSign,
    SecondUnderGate,
    FailedChecks,
    Drift,
    NoDrift,
    /// A point has fewer than 2 rounds on the primary basis (1 round, or
    /// 2 with `--drop-first`): no spread within it, no interval to judge by.
    FewRounds,
    SpansZero,
    /// The values are identical (the points agree to the last bit, as
    /// exact icount points of an unchanged path do): in place of the
    /// reasons about the change's size and sign.
    NoChange,
    /// A gate in instructions: the points have not all as many rounds, so
    /// no round of the test has its round of the control to be paired
    /// with, and there is no interval round by round.
    Unpaired,
}

impl Reason {
    /// Every reason, in the order they are named.
    pub const ALL: [Reason; 10] = [
        Reason::UnderGate,
        Reason::SecondSign,
        Reason::SecondUnderGate,
        Reason::FailedChecks,
        Reason::Drift,
        Reason::NoDrift,
        Reason::FewRounds,
        Reason::SpansZero,
        Reason::NoChange,
        Reason::Unpaired,
    ];

    pub const fn bit(self) -> u16 {
        1 << self as u16
    }

    /// The reasons set in `bits`, in order.
    pub fn of(bits: u16) -> impl Iterator<Item = Reason> {
        Reason::ALL.into_iter().filter(move |r| bits & r.bit() != 0)
    }
}

/// One test group against the control group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Index of the control group (group 0, the control label, but for
    /// the steps of `report --steps`: the step before, or the first) and
    /// of the test group.
    pub base: usize,
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
    /// The change in the points' unit, per pair: test value minus control
    /// value.
    pub delta: f64,
    /// The spread of the control's boots' values (largest minus smallest;
    /// 0 for one boot), per pair.
    pub spread: f64,
    /// The test's, likewise: the gate takes the larger of the two (a
    /// kernel's draws on two vCPUs spread on either side).
    pub test_spread: f64,
    /// At a gate in instructions: the change's 95% interval round by round
    /// (`paired`), per pair; NaN throughout otherwise, or where the rounds
    /// cannot be paired.
    pub paired: Interval,
    /// `Reason` bits; 0 = CONFIRMED.
    pub reasons: u16,
}

impl Comparison {
    /// Under the gate and clear of zero: a change the interval shows,
    /// smaller than the gate (not noise).
    pub fn clear_under_gate(&self) -> bool {
        let (under, spans) = (Reason::UnderGate.bit(), Reason::SpansZero.bit());
        let none = spans | Reason::FewRounds.bit() | Reason::Unpaired.bit();
        self.reasons & (under | none) == under
    }

    /// Has `r` among its reasons.
    pub fn has(&self, r: Reason) -> bool {
        self.reasons & r.bit() != 0
    }

    /// Its figures could not be judged at all: a point of too few rounds,
    /// rounds that cannot be paired (no interval to go by), or a point
    /// that failed its checks.
    pub fn unjudged(&self) -> bool {
        [Reason::FewRounds, Reason::Unpaired, Reason::FailedChecks]
            .iter()
            .any(|&r| self.has(r))
    }
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

/// The change round by round of the test group `t` against the control
/// group `c`, per pair: round r of a group is the mean of its boots' round
/// r (as its value is of its boots' values: `Boots`), the test's minus the
/// control's is that round's change, and their mean and sample spread give
/// Student's interval. Rounds of one basis (`b`: all, or all but the
/// first); None when the points have not all as many rounds.
pub fn paired(points: &[Point], c: &Group, t: &Group, b: usize) -> Option<Interval> {
    let skip = (b == REST) as usize;
    let n = points[c.points()[0]].rounds.len();
    let all = c.points().iter().chain(t.points());
    if all.clone().any(|&i| points[i].rounds.len() != n) {
        return None;
    }
    let k = n.saturating_sub(skip);
    let (bc, bt) = (boots(points, c, b), boots(points, t, b));
    // Round r of a group: its points' round r, each weighing as in its
    // group's value.
    let round = |g: &Group, bs: &Boots, r: usize| -> f64 {
        let points_r = g.points().iter().enumerate();
        points_r
            .map(|(j, &i)| bs.weight(j) * points[i].rounds[r])
            .sum()
    };
    let mut d = [0f64; crate::stats::MAX_VALUES];
    for (r, d) in d.iter_mut().enumerate().take(n).skip(skip) {
        *d = round(t, &bt, r) - round(c, &bc, r);
    }
    let s = summarize(&d[skip..n]);
    if k < 2 {
        return Some(Interval {
            low: f64::NAN,
            high: f64::NAN,
            df: f64::NAN,
        });
    }
    let df = (k - 1) as f64;
    let h = t975(df) * s.stddev / sqrt(k as f64);
    Some(Interval {
        low: s.mean - h,
        high: s.mean + h,
        df: if h == 0.0 { f64::NAN } else { df },
    })
}

/// Which of a point's samples a figure uses: the primary basis (`second`
/// false: all rounds, or drop-first with --drop-first) or the other one.
pub fn basis(drop_first: bool, second: bool) -> usize {
    if drop_first != second {
        REST
    } else {
        ALL
    }
}

/// The boots of group `g`'s points, on basis `b`.
pub(super) fn boots(points: &[Point], g: &Group, b: usize) -> Boots {
    let mut refs = [&points[0]; MAX_POINTS];
    for (r, &i) in refs.iter_mut().zip(g.points()) {
        *r = &points[i];
    }
    Boots::of(&refs[..g.k], b)
}

/// Compares group `test` with group `base`, the control.
pub fn compare(
    points: &[Point],
    groups: &[Group],
    (base, test): (usize, usize),
    drop_first: bool,
    gate: Gate,
) -> Comparison {
    let (c, t) = (&groups[base], &groups[test]);
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
            // The figures a verdict rests on need two rounds on the primary
            // basis: a spread within the point, an interval (with
            // --drop-first, three rounds in all).
            if s.n < 2 {
                reasons |= Reason::FewRounds.bit();
            }
        }
    }
    let iv = intervals_of([bs[0].means(), bs[1].means()], within);
    let (change, w) = (iv.change, iv.wider());
    let drift_c = bs[0].drift();
    // Each test fails on NaN (no drop-first with one round, ...).
    let few = reasons & Reason::FewRounds.bit() != 0;
    let one = bs[0].k < 2;
    // Identical values: no change to size up, which is the reason itself.
    let same = bs[1].value() == bs[0].value();
    let delta = bs[1].value() - bs[0].value();
    let spread_of = |means: &[f64]| {
        let hi = means.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        hi - means.iter().fold(f64::INFINITY, |m, &v| m.min(v))
    };
    let (spread, test_spread) = (spread_of(bs[0].means()), spread_of(bs[1].means()));
    let nan = Interval {
        low: f64::NAN,
        high: f64::NAN,
        df: f64::NAN,
    };
    let mut paired_iv = nan;
    // Each check that fails adds its reason.
    let mut check = |ok: bool, r: Reason| {
        if !ok {
            reasons |= r.bit();
        }
    };
    match gate {
        Gate::Pct(gate) => {
            let over = |v: f64| v.abs() >= gate;
            check(same || over(change), Reason::UnderGate);
            check(same || few || second * change > 0.0, Reason::SecondSign);
            check(same || few || over(second), Reason::SecondUnderGate);
            check(one || drift_c.abs() < gate, Reason::Drift);
            check(!one, Reason::NoDrift);
            // With a point of one round there is no interval to judge by:
            // it is FewRounds that says so.
            check(
                same || few || w.low > 0.0 || w.high < 0.0,
                Reason::SpansZero,
            );
        }
        Gate::Insn(gate) => {
            let p = paired(points, c, t, b1);
            paired_iv = p.unwrap_or(nan);
            let clear = paired_iv.low > 0.0 || paired_iv.high < 0.0;
            check(
                same || delta.abs() >= gate + spread.max(test_spread),
                Reason::UnderGate,
            );
            // Rounds that cannot be paired have no interval: Unpaired says so.
            check(same || few || p.is_none() || clear, Reason::SpansZero);
            check(same || p.is_some(), Reason::Unpaired);
        }
    }
    check(!same, Reason::NoChange);
    Comparison {
        base,
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
        delta,
        spread,
        test_spread,
        paired: paired_iv,
        reasons,
    }
}

/// A label's locked instructions per pair, the kernel's and the user's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LockedPerPair {
    pub kernel: f64,
    pub user: f64,
}

/// The locked instructions per pair of group `g`: the mean of its boots'
/// series lines, as its value is of its boots' values (`Boots`); None when
/// some point of it did not count them (not counted, never 0) or has no
/// cost lines that can be read.
pub fn locked_of(pts: &[Point], g: &Group) -> Option<LockedPerPair> {
    let b = boots(pts, g, ALL);
    let mut l = LockedPerPair {
        kernel: 0.0,
        user: 0.0,
    };
    for (j, &i) in g.points().iter().enumerate() {
        let Cost::Counted(counted) = pts[i].cost else {
            return None;
        };
        let locked = counted.totals.locked?;
        let per = b.weight(j) / counted.totals.pairs.max(1) as f64;
        l.kernel += per * locked.kernel as f64;
        l.user += per * locked.user as f64;
    }
    Some(l)
}

/// Every label of one command line compared with the control.
pub struct Analysis<'r, 'a> {
    pub args: &'r Args<'a>,
    pub points: &'r [Point<'r>],
    groups: [Group<'a>; MAX_POINTS],
    n: usize,
    /// `cmps[t]`: group t against group 0 (t >= 1).
    cmps: [Comparison; MAX_POINTS],
    /// `steps[t]`: group t against group t - 1 (t >= 1), the steps of a
    /// series (`report --steps`).
    steps: [Comparison; MAX_POINTS],
    /// Each group's locked instructions per pair (`locked_of`).
    locked: [Option<LockedPerPair>; MAX_POINTS],
    /// What the points are, once: the tool behind them (or `mixed
    /// tools`), the profile they name, whether they count instructions.
    tool: &'static str,
    profile: &'r [u8],
    icount: bool,
    /// At a boot's first point of a group, the points of that group that
    /// share its boot, as bits (`shared`).
    shared: [Option<u32>; MAX_POINTS],
}

impl<'r, 'a> Analysis<'r, 'a> {
    /// The groups of `args` and every label's comparison with the control.
    pub fn of(args: &'r Args<'a>, points: &'r [Point<'r>]) -> Self {
        let mut an = Analysis {
            args,
            points,
            groups: [NO_GROUP; MAX_POINTS],
            n: 0,
            cmps: [Comparison::default(); MAX_POINTS],
            steps: [Comparison::default(); MAX_POINTS],
            locked: [None; MAX_POINTS],
            tool: tool_of(points),
            // `load` made sure the points name one profile, and all count
            // instructions or none does.
            profile: points
                .iter()
                .map(Point::profile)
                .find(|p| !p.is_empty())
                .unwrap_or(b""),
            icount: points.first().is_some_and(Point::icount),
            shared: [None; MAX_POINTS],
        };
        an.n = groups(args, &mut an.groups);
        for g in &an.groups[..an.n] {
            for &i in g.points() {
                an.shared[i] = shared_at(points, g, i);
            }
        }
        for t in 1..an.n {
            an.cmps[t] = an.versus(0, t);
            an.steps[t] = an.versus(t - 1, t);
        }
        for g in 0..an.n {
            an.locked[g] = locked_of(points, &an.groups[g]);
        }
        an
    }

    /// Group `test` compared with group `base`.
    fn versus(&self, base: usize, test: usize) -> Comparison {
        let a = self.args;
        compare(
            self.points,
            self.groups(),
            (base, test),
            a.drop_first,
            a.gate,
        )
    }

    /// The labels' groups, the control's first.
    pub fn groups(&self) -> &[Group<'a>] {
        &self.groups[..self.n]
    }

    /// Every other label against the control, in order.
    pub fn cmps(&self) -> &[Comparison] {
        &self.cmps[1.min(self.n)..self.n]
    }

    /// Every label but the first against the one before it, in order: the
    /// steps of a series.
    pub fn steps(&self) -> &[Comparison] {
        &self.steps[1.min(self.n)..self.n]
    }

    /// Group `g`'s locked instructions per pair, when every point of it
    /// counted them.
    pub fn locked(&self, g: usize) -> Option<LockedPerPair> {
        self.locked[g]
    }

    /// The primary sample of point `i`.
    pub fn sample(&self, i: usize) -> &Sample {
        &self.points[i].s[basis(self.args.drop_first, false)]
    }

    /// The tool behind every point, or `mixed tools`.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The points were timed on QEMU TCG's instruction clock.
    pub fn icount(&self) -> bool {
        self.icount
    }

    /// The profile the points name.
    pub fn profile(&self) -> &'r [u8] {
        self.profile
    }

    /// The points of the group of point `i` that share its boot, as bits,
    /// at that boot's first point (None for the others, and for a boot of
    /// one point).
    pub fn shared(&self, i: usize) -> Option<u32> {
        self.shared[i]
    }
}

/// The tool behind every point, or `mixed tools`.
fn tool_of(points: &[Point]) -> &'static str {
    let t = points.first().map_or("", |p| p.format.tool());
    if points.iter().all(|p| p.format.tool() == t) {
        t
    } else {
        "mixed tools"
    }
}

/// The points of group `g` that share a boot with point `i`, as bits, when
/// `i` is that boot's first point of them and another shares it.
fn shared_at(points: &[Point], g: &Group, i: usize) -> Option<u32> {
    let id = |j: usize| points[j].boot();
    let mask = g
        .points()
        .iter()
        .filter(|&&j| id(i).is_some() && id(j) == id(i))
        .fold(0u32, |m, &j| m | 1 << j);
    (mask.count_ones() > 1 && mask.trailing_zeros() as usize == i).then_some(mask)
}

#[cfg(test)]
mod tests;
