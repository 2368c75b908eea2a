//! `calibrate`: the positive control. Can this box, with these settings,
//! see a change of the size being hunted?
//!
//! In one process it runs six full points, interleaved A B A B A B: A as
//! the options say, B with `--inject-ns` set to PCT% of the first A's mean
//! ns/pair (a spin on the run's own clock at the end of every timed cycle,
//! after its last CQE is checked: no syscall is added). Each point's whole
//! report is printed, then the analysis compare would make of them:
//!
//! - the A/A noise floor: the spread of the A points' means (sample sd over
//!   their mean), the between-point spread a sandwich of separate points
//!   meets;
//! - B vs A, the change of the mean of B's point means against A's, with two
//!   95% intervals: within-point (Welch over every round of every point, as
//!   if rounds were independent samples of the box) and between-point
//!   (Welch over the point means). The wider one is the one used;
//! - the smallest change this box resolves at these round counts: the
//!   half-width of the 95% interval of an nA-against-nB comparison with
//!   A's between-point spread (never less than the within-point one).
//!
//! The last line is for scripts:
//! `# calibrate: injected=+5.000% measured=+4.87% ci=[+4.21%, +5.53%]
//! noise_floor=0.41% smallest_resolvable=1.30%`. Exit 0 when the injected
//! change lies inside its interval and the interval excludes zero, 1 when
//! not (one stderr line says why), a point's own code when a point could
//! not run or failed.

use core::fmt::Write;

use crate::compare::{self, Interval, Intervals};
use crate::config::{RunConfig, MAX_INJECT_NS};
use crate::exit::{self, Exit};
use crate::profile::{self, ProfileId, Rows};
use crate::render::{Dec, Signed};
use crate::stats;
use crate::sys::clock::Clock;
use crate::sys::out::Out;

/// Points of each kind, interleaved A B A B A B.
pub const POINTS_EACH: usize = 3;

/// What the six points say (every figure in % of A's mean but the means).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The mean of the A point means, and of the B point means (ns/pair).
    pub a: f64,
    pub b: f64,
    pub injected: f64,
    /// B vs A with its within-point and between-point intervals, by
    /// compare's maths (`compare::intervals`). A point's value here is the
    /// plain mean of its rounds, where `compare` weighs a point's rounds by
    /// their pairs: the same, since every round of a point that passed has
    /// the same pairs.
    pub change: Intervals,
    /// The wider of the two intervals: the one any statement uses.
    pub ci: Interval,
    pub noise_floor: f64,
    pub smallest_resolvable: f64,
}

impl Calibration {
    /// Why the box does not resolve the injected change (None: it does,
    /// its interval holding it and excluding zero). A verdict needs its
    /// interval: without one (too few rounds and points) it says so.
    pub fn unresolved(&self) -> Option<&'static str> {
        let holds = |v: f64| self.ci.low <= v && v <= self.ci.high;
        if self.ci.low.is_nan() || self.ci.high.is_nan() {
            Some("its 95% interval is n/a (too few rounds and points to have one)")
        } else if holds(0.0) {
            Some("its 95% interval includes 0")
        } else if !holds(self.injected) {
            Some("its 95% interval misses the injected change")
        } else {
            None
        }
    }
}

/// The analysis of A's and B's points (each point's rounds) when B had
/// `inject_ns` more per pair. A point's value is the mean of its rounds.
pub fn analyse(a: &[&[f64]], b: &[&[f64]], inject_ns: u32) -> Calibration {
    let change = compare::intervals(a, b);
    let point_means = |p: &[&[f64]]| {
        let mut m = [0f64; POINTS_EACH];
        let n = p.len().min(POINTS_EACH);
        for (d, rounds) in m.iter_mut().zip(p) {
            *d = stats::summarize(rounds).mean;
        }
        stats::summarize(&m[..n])
    };
    let (sa, sb) = (point_means(a), point_means(b));
    let pct = |ns: f64| ns / sa.mean * 100.0;
    // What an nA-against-nB comparison with A's between-point spread
    // resolves, never less than the within-point interval's half-width.
    let (na, nb) = (sa.n as f64, sb.n as f64);
    let aa = stats::t975(na + nb - 2.0) * sa.stddev * stats::sqrt(1.0 / na + 1.0 / nb);
    let within_half = (change.within.high - change.within.low) / 2.0;
    Calibration {
        a: sa.mean,
        b: sb.mean,
        injected: pct(inject_ns as f64),
        change,
        ci: *change.wider(),
        noise_floor: sa.cv_pct,
        smallest_resolvable: pct(aa).max(within_half),
    }
}

/// B's injection: `pct`% of A's first mean, in whole ns per pair (at least 1).
pub fn inject_for(a_mean: f64, pct: f64) -> u32 {
    let ns = a_mean * pct / 100.0 + 0.5;
    (ns as u32).clamp(1, MAX_INJECT_NS)
}

/// `uring-repro calibrate`: see the module docs.
pub fn run(id: ProfileId, cfg: &RunConfig, pct: f64, clock: &Clock, out: &mut Out) -> Exit {
    // Each point's measured rows (series 0: pollwake's `none` mode).
    let mut points = [const { Rows::new() }; 2 * POINTS_EACH];
    let mut inject_ns = 0;
    for (i, point) in points.iter_mut().enumerate() {
        let is_b = i % 2 == 1;
        let mut c = *cfg;
        c.inject_ns = if is_b { inject_ns } else { 0 };
        let label = if is_b { "B" } else { "A" };
        let _ = writeln!(
            out,
            "# calibrate: point {} of {}: {label} inject_ns={}",
            i + 1,
            2 * POINTS_EACH,
            c.inject_ns
        );
        out.flush();
        let e = profile::run_point(id, &c, clock, out, &mut |o| point.clone_from(&o.rows[0]));
        if e.code != exit::PASS {
            return e;
        }
        if i == 0 {
            inject_ns = inject_for(point.mean(), pct);
        }
    }
    let pick = |b: usize| {
        let mut v: [&[f64]; POINTS_EACH] = [&[]; POINTS_EACH];
        for (k, p) in points.iter().skip(b).step_by(2).enumerate() {
            v[k] = p.per_round();
        }
        v
    };
    let (a, b) = (pick(0), pick(1));
    let r = analyse(&a, &b, inject_ns);
    print(out, &r, &a, &b, inject_ns, pct);
    let Some(why) = r.unresolved() else {
        return Exit::pass();
    };
    Exit::new(
        exit::FAIL,
        format_args!(
            "calibrate: this box cannot resolve {}%: {why} (smallest resolvable here: {}%)",
            Signed(r.injected, 3),
            Dec(r.smallest_resolvable, 2)
        ),
    )
}

fn print(out: &mut Out, r: &Calibration, a: &[&[f64]], b: &[&[f64]], ns: u32, pct: f64) {
    let _ = write!(out, "# calibrate: point means (ns/pair): A");
    for p in a {
        let _ = write!(out, " {}", Dec(stats::summarize(p).mean, 3));
    }
    let _ = write!(out, " B");
    for p in b {
        let _ = write!(out, " {}", Dec(stats::summarize(p).mean, 3));
    }
    let rounds = |p: &[&[f64]]| p.iter().map(|p| p.len()).sum::<usize>();
    let iv = |i: &Interval| (Signed(i.low, 2), Signed(i.high, 2));
    let (c, ci) = (&r.change, iv(&r.ci));
    let ((wl, wh), (bl, bh)) = (iv(&c.within), iv(&c.between));
    let _ = write!(
        out,
        "\n# calibrate: B inject_ns={ns} ({}% of the first A's mean) = {}% of A's {}\n\
         # calibrate: A/A noise floor {}% (sd of the A point means over their mean; all six \
         points share one process and one boot: separate boots spread more)\n\
         # calibrate: B vs A {}%: within-point 95% CI ",
        Dec(pct, 3),
        Signed(r.injected, 3),
        Dec(r.a, 3),
        Dec(r.noise_floor, 2),
        Signed(c.change, 2),
    );
    // One round a point (--smoke) has no spread within a point: say so, never nan.
    let _ = if c.within.low.is_nan() {
        write!(out, "n/a (one round a point)")
    } else {
        write!(
            out,
            "[{wl}%, {wh}%] (Welch over {}+{} rounds)",
            rounds(b),
            rounds(a)
        )
    };
    let _ = writeln!(
        out,
        ", between-point 95% CI [{bl}%, {bh}%] (Welch over {}+{} point means); the wider is \
         used\n\
         # calibrate: injected={}% measured={}% ci=[{}%, {}%] noise_floor={}% \
         smallest_resolvable={}%",
        b.len(),
        a.len(),
        Signed(r.injected, 3),
        Signed(c.change, 2),
        ci.0,
        ci.1,
        Dec(r.noise_floor, 2),
        Dec(r.smallest_resolvable, 2),
    );
    out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    const A1: [f64; 3] = [99.0, 100.0, 101.0];
    const A2: [f64; 3] = [100.0, 101.0, 102.0];
    const A3: [f64; 3] = [101.0, 102.0, 103.0];
    const B1: [f64; 3] = [104.0, 105.0, 106.0];
    const B2: [f64; 3] = [105.0, 106.0, 107.0];
    const B3: [f64; 3] = [106.0, 107.0, 108.0];

    #[test]
    fn both_intervals_by_hand() {
        let r = analyse(&[&A1, &A2, &A3], &[&B1, &B2, &B3], 5);
        // A means 100 101 102, B means 105 106 107: +5 ns = +4.950%.
        assert!(close(r.a, 101.0) && close(r.b, 106.0));
        assert!(close(r.change.change, 500.0 / 101.0));
        assert!(close(r.injected, 500.0 / 101.0));
        // Between: sd 1 each, se sqrt(2/3), df 4, t 2.776445.
        let half = 2.776445 * stats::sqrt(2.0 / 3.0) / 101.0 * 100.0;
        assert!(
            close(r.change.between.high - r.change.change, half),
            "{r:?}"
        );
        // Within: every point sd 1 over 3 rounds, weights 1/3: var = 6 *
        // (1/9) * (1/3) = 2/9, df = (2/9)^2 / (6 * (1/27)^2 / 2) = 12.
        let whalf = stats::t975(12.0) * stats::sqrt(2.0 / 9.0) / 101.0 * 100.0;
        assert!(
            close(r.change.within.high - r.change.change, whalf),
            "{r:?}"
        );
        // The between-point interval is the wider: it is the one used.
        assert_eq!(r.ci, r.change.between);
        assert!(close(r.noise_floor, 100.0 / 101.0));
        // A/A: t(4) * sd 1 * sqrt(1/3 + 1/3), as the between one here.
        assert!(close(r.smallest_resolvable, half));
        assert_eq!(r.unresolved(), None);
    }

    #[test]
    fn a_change_inside_the_noise_is_not_resolved() {
        // B is A again: nothing measured, 5 ns injected in name only.
        let r = analyse(&[&A1, &A3, &A2], &[&A2, &A1, &A3], 5);
        assert!(close(r.change.change, 0.0));
        assert!(r.ci.low < 0.0 && r.ci.high > 0.0);
        assert_eq!(r.unresolved(), Some("its 95% interval includes 0"));
    }

    #[test]
    fn a_measured_change_far_from_the_injected_one_is_not_resolved() {
        // 5 ns measured, 20 ns claimed injected.
        let r = analyse(&[&A1, &A2, &A3], &[&B1, &B2, &B3], 20);
        assert!(r.ci.low > 0.0 && r.ci.high < r.injected);
        assert_eq!(
            r.unresolved(),
            Some("its 95% interval misses the injected change")
        );
    }

    #[test]
    fn one_round_points_have_no_within_interval() {
        let r = analyse(
            &[&[100.0], &[101.0], &[102.0]],
            &[&[105.0], &[106.0], &[107.0]],
            5,
        );
        assert!(r.change.within.low.is_nan());
        assert_eq!(r.ci, r.change.between);
        assert_eq!(r.unresolved(), None);
    }

    #[test]
    fn no_interval_is_no_verdict() {
        // One point a side of one round: no interval at all. Not resolved,
        // and the reason is that, not a miss.
        let r = analyse(&[&[100.0]], &[&[105.0]], 5);
        assert!(r.ci.low.is_nan());
        assert_eq!(
            r.unresolved(),
            Some("its 95% interval is n/a (too few rounds and points to have one)")
        );
    }

    #[test]
    fn injection_is_pct_of_the_mean_in_whole_ns() {
        assert_eq!(inject_for(503.2, 5.0), 25);
        assert_eq!(inject_for(10.0, 1.0), 1);
        assert_eq!(inject_for(1e9, 100.0), MAX_INJECT_NS);
    }
}
