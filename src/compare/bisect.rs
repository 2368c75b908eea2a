//! `compare --bisect good=FILE... bad=FILE... new=FILE`: one step of
//! `git bisect run`, which reads exit 0 as good, 1..=127 but 125 as bad,
//! 125 as "cannot test this commit" and above 127 as "stop the bisect".
//!
//! The references are points of the known-good kernel (`good=`, one or
//! more boots) and of the known-bad one (`bad=`). Their means G and B
//! (each the mean of its points' means) must be at least the gate apart,
//! or the step stops the bisect (128), as it does when a reference is
//! unreadable or failed its checks: no verdict could be trusted.
//!
//! The new point N is placed between them: its position is (N - G) / (B - G)
//! (0% = the good mean, 100% = the bad one), with the 95% interval of that
//! position, from the interval of N minus the midpoint M = (G + B) / 2:
//! - within-point: Welch over rounds (N's rounds, and the references'
//!   rounds behind M);
//! - between-point, when the references have a spread (two or more boots on
//!   one side at least): a new point deviates from its kernel's value as a
//!   reference point does from its label's mean, so its variance is the
//!   references' pooled between-point variance s^2, and M's is
//!   s^2 (1/nG + 1/nB) / 4; df nG + nB - 2. Points of one boot are one
//!   draw: they count once (`Boots`), in G and B too.
//!
//! The wider one decides: entirely below the midpoint is good (0),
//! entirely above is bad (1), anything else is "cannot judge" (125), as is
//! a new point that failed its checks, was interrupted or is unreadable.

use core::fmt::{self, Write};

use super::analysis::Boots;
use super::args::{Args, MAX_POINTS};
use super::point::{Point, ALL};
use super::words::Pct;
use crate::exit::{self, fail, CANNOT_JUDGE as SKIP};
use crate::render::{Clean, Dec};
use crate::stats::{pct_change, sqrt, t975, Contrast};
use crate::sys::out::Out;

/// The step: every point read (`load`); the verdict line, and its exit
/// code (0 good, 1 bad, SKIP), or why the references cannot be used
/// (128: stop the bisect).
pub fn step(a: &Args, pts: &[Point], out: &mut Out) -> i32 {
    for (i, p) in pts.iter().enumerate() {
        let file = Clean(a.file(i));
        if !p.valid() {
            return fail(a.unusable(i), format_args!("{file}: failed its checks"));
        }
        if p.s[ALL].s.n < 2 {
            let why = "1 round: no spread within the point (it needs 2 or more)";
            return fail(a.unusable(i), format_args!("{file}: {why}"));
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
    match judge(good, bad, new, a.gate.pct()) {
        Err(Abort::CloserThanGate(c)) => fail(
            a.refused(),
            format_args!(
                "compare --bisect: the references are closer than the gate: bad vs good {}, gate {}%",
                Pct(c),
                Dec(a.gate.pct(), 3)
            ),
        ),
        Ok(v) => {
            let _ = writeln!(out, "{v}");
            out.flush();
            match v.code {
                0 => exit::PASS,
                code => fail(code, format_args!("compare --bisect: {}", v.why())),
            }
        }
    }
}

/// Where the new point stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// 0 good, 1 bad, SKIP.
    pub code: i32,
    pub good: f64,
    pub bad: f64,
    pub new: f64,
    /// Position and its 95% interval, in % of the way from good to bad.
    pub at: f64,
    pub low: f64,
    pub high: f64,
}

/// Judges `new` against the references; Err: why the references cannot be
/// used (the bisect must stop). Every point here is readable and valid.
pub fn judge(good: &[&Point], bad: &[&Point], new: &Point, gate: f64) -> Result<Verdict, Abort> {
    // Points of one boot count once (`Boots`).
    let (gb, bb) = (Boots::of(good, ALL), Boots::of(bad, ALL));
    let (g, b, n) = (gb.value(), bb.value(), new.s[ALL].mean);
    if pct_change(b, g).abs() < gate {
        return Err(Abort::CloserThanGate(pct_change(b, g)));
    }
    // Within-point: N - (good's value + bad's value) / 2.
    let mut within = Contrast::new();
    within.add(1.0, &new.s[ALL].s);
    for (ps, boots) in [(good, &gb), (bad, &bb)] {
        for (j, p) in ps.iter().enumerate() {
            within.add(-0.5 * boots.weight(j), &p.s[ALL].s);
        }
    }
    let mut half = within.half_width95();
    // Between-point: the references' pooled spread of boot values.
    let (ng, nb) = (gb.k as f64, bb.k as f64);
    let df = ng + nb - 2.0;
    if df >= 1.0 {
        let ss = |boots: &Boots, mean: f64| {
            boots
                .means()
                .iter()
                .map(|m| (m - mean) * (m - mean))
                .sum::<f64>()
        };
        let var = (ss(&gb, g) + ss(&bb, b)) / df;
        let between = t975(df) * sqrt(var * (1.0 + (1.0 / ng + 1.0 / nb) / 4.0));
        if half.is_nan() || between > half {
            half = between;
        }
    }
    let pos = |v: f64| (v - g) / (b - g) * 100.0;
    let (lo, hi) = (pos(n - half), pos(n + half));
    let (low, high) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let code = if low > 50.0 {
        1
    } else if high < 50.0 {
        0
    } else {
        SKIP
    };
    Ok(Verdict {
        code: if half.is_nan() { SKIP } else { code },
        good: g,
        bad: b,
        new: n,
        at: pos(n),
        low,
        high,
    })
}

/// Why the references cannot be used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Abort {
    /// Bad vs good in %, under the gate.
    CloserThanGate(f64),
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self.code {
            0 => "good",
            1 => "bad",
            _ => "skip",
        }
    }

    /// What the exit code says, for the stderr line of a non-zero one.
    pub fn why(&self) -> &'static str {
        match self.code {
            0 => "good: its 95% interval is below the midpoint",
            1 => "bad: its 95% interval is above the midpoint",
            _ => "cannot judge: its 95% interval holds the midpoint",
        }
    }
}

/// The stdout line, at most 72 columns for ns/pair under 10^5:
/// `bisect: bad: new 196.21 (good 180.08, bad 196.65) at 97% [85%,110%]`;
/// with no spread at all (exact points of QEMU's instruction clock) the
/// interval is the position itself: `... at 100% exact`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bisect: {}: new {} (good {}, bad {}) at {}% ",
            self.word(),
            Dec(self.new, 2),
            Dec(self.good, 2),
            Dec(self.bad, 2),
            Dec(self.at, 0),
        )?;
        if self.low == self.high {
            f.write_str("exact")
        } else {
            write!(f, "[{}%,{}%]", Dec(self.low, 0), Dec(self.high, 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::point::Sample;
    use super::*;
    use crate::stats::summarize;

    /// A point of `rounds` ns/pair values.
    fn point(rounds: &[f64]) -> Point<'static> {
        let s = summarize(rounds);
        let mut p = Point::default();
        p.run_passed = true;
        p.s = [Sample { mean: s.mean, s }, Sample::default()];
        p
    }

    fn near(v: f64) -> Point<'static> {
        point(&[v - 0.5, v, v + 0.5])
    }

    #[test]
    fn a_point_near_either_reference_is_judged() {
        let (g1, g2, b1, b2) = (near(180.0), near(180.2), near(196.6), near(196.4));
        let (good, bad) = ([&g1, &g2], [&b1, &b2]);
        let v = judge(&good, &bad, &near(180.5), 5.0).unwrap();
        assert_eq!(v.code, 0, "{v}");
        let v = judge(&good, &bad, &near(196.0), 5.0).unwrap();
        assert_eq!(v.code, 1, "{v}");
        assert!((v.at - (196.0 - 180.1) / (196.5 - 180.1) * 100.0).abs() < 1e-9);
        assert!(v.low > 50.0 && v.high > v.at);
        // Half-way: the interval straddles the midpoint.
        let v = judge(&good, &bad, &near(188.3), 5.0).unwrap();
        assert_eq!(v.code, SKIP, "{v}");
    }

    #[test]
    fn boot_to_boot_spread_widens_the_interval() {
        // Rounds agree closely, but boots scatter 3 ns: a point 30% of the
        // way is not clearly good any more.
        let (g1, g2, b1, b2) = (near(177.0), near(183.0), near(193.5), near(199.5));
        let v = judge(&[&g1, &g2], &[&b1, &b2], &near(185.0), 5.0).unwrap();
        assert_eq!(v.code, SKIP, "{v}");
        // With one boot each only the rounds speak: the same point is good.
        let v = judge(&[&g1], &[&b1], &near(179.0), 5.0).unwrap();
        assert_eq!(v.code, 0, "{v}");
    }

    /// A point near `v`, from boot number `id`.
    fn booted(v: f64, id: u128) -> Point<'static> {
        near(v).on_boot(id)
    }

    #[test]
    fn points_of_one_boot_count_once_between_points() {
        // Good: 180.0 twice from boot g (one draw), bad: 196.0 and 197.0.
        // Counted once, good has one boot: df 1 + 2 - 2 = 1, s^2 from the
        // bad side alone, (0.5^2 * 2) / 1 = 0.5; M's variance
        // 0.5 (1/1 + 1/2) / 4; the new point's 0.5.
        let (g1, g2) = (booted(180.0, 1), booted(180.0, 1));
        let (b1, b2) = (booted(196.0, 2), booted(197.0, 3));
        let v = judge(&[&g1, &g2], &[&b1, &b2], &near(195.0), 5.0).unwrap();
        let half = 12.706_205 * (0.5f64 * (1.0 + 1.5 / 4.0)).sqrt();
        let pos = |x: f64| (x - 180.0) / 16.5 * 100.0;
        assert!((v.low - pos(195.0 - half)).abs() < 1e-6, "{v}");
        assert!((v.high - pos(195.0 + half)).abs() < 1e-6, "{v}");
        // Counted twice they made df 2 and a pooled s^2 of 0.25.
        assert_eq!(v.code, SKIP, "{v}");
    }

    #[test]
    fn exact_points_are_placed_exactly() {
        // No spread within or between points: the interval is the position.
        let flat = |v: f64, id| point(&[v; 15]).on_boot(id);
        let (g1, g2) = (flat(1500.744629, 1), flat(1500.744629, 2));
        let (b1, b2) = (flat(1558.744922, 3), flat(1558.744922, 4));
        let new = flat(1558.744922, 5);
        let v = judge(&[&g1, &g2], &[&b1, &b2], &new, 1.0).unwrap();
        assert_eq!(
            (v.code, v.at, v.low, v.high),
            (1, 100.0, 100.0, 100.0),
            "{v}"
        );
        assert_eq!(
            v.to_string(),
            "bisect: bad: new 1558.74 (good 1500.74, bad 1558.74) at 100% exact"
        );
        // At the midpoint exactly: cannot be told apart.
        let mid = flat((1500.744629 + 1558.744922) / 2.0, 6);
        let v = judge(&[&g1, &g2], &[&b1, &b2], &mid, 1.0).unwrap();
        assert_eq!(v.code, SKIP, "{v}");
    }

    #[test]
    fn references_closer_than_the_gate_abort() {
        let (g, b) = (near(180.0), near(185.0));
        let e = judge(&[&g], &[&b], &near(181.0), 5.0).unwrap_err();
        assert!(matches!(e, Abort::CloserThanGate(c) if (c - 2.7777).abs() < 1e-3));
    }

    #[test]
    fn the_line_fits_a_bisect_log() {
        let (g, b) = (near(80180.0), near(96647.0));
        let v = judge(&[&g], &[&b], &near(96000.0), 5.0).unwrap();
        let line = format!("{v}");
        assert!(line.len() <= 72, "{} {line}", line.len());
        assert!(
            line.starts_with("bisect: bad: new 96000.00 (good 80180.00, bad 96647.00) at 96% [")
        );
    }
}
