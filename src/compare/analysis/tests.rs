//! compare's maths and groups against hand-computed values.

use super::*;
use crate::compare::{Args, Gate};
use crate::stats::summarize;

/// The arguments of `compare` with these labels (the files' names do
/// not matter here).
fn args(labels: &[&'static str]) -> Args<'static> {
    let mut a = Args::default();
    for (i, l) in labels.iter().enumerate() {
        a.labels[i] = Some(l.as_bytes());
        a.files[i] = Some(b"f");
    }
    a.n = labels.len();
    a
}

#[test]
fn points_with_one_label_form_a_group() {
    let a = args(&["base", "patch1", "full", "patch1", "base"]);
    let mut gs = [Group {
        label: None,
        members: [0; MAX_POINTS],
        k: 0,
    }; MAX_POINTS];
    let n = groups(&a, &mut gs);
    assert_eq!(n, 3);
    let got: Vec<(&[u8], Vec<usize>)> = gs[..n]
        .iter()
        .map(|g| (g.label(), g.points().to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            (&b"base"[..], vec![0, 4]),
            (&b"patch1"[..], vec![1, 3]),
            (&b"full"[..], vec![2])
        ]
    );
}

/// A point with these rounds (pairs 100 each), every round passing.
fn point(rounds: &[f64]) -> Point<'static> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut p = Point::default();
    (p.pairs, p.run_passed) = (100, true);
    p.s[ALL] = Sample {
        mean: mean(rounds),
        s: summarize(rounds),
    };
    p.s[REST] = Sample {
        mean: mean(&rounds[1..]),
        s: summarize(&rounds[1..]),
    };
    p
}

fn groups_of(a: &Args<'static>) -> Vec<Group<'static>> {
    let mut gs = [Group {
        label: None,
        members: [0; MAX_POINTS],
        k: 0,
    }; MAX_POINTS];
    let n = groups(a, &mut gs);
    gs[..n].to_vec()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

#[test]
fn sandwich_hand_computed() {
    // A: 99, 101, 100 (mean 100, drop-first 100.5); B: 110, 111, 112
    // (mean 111, drop-first 111.5); A': 100, 102, 101 (mean 101,
    // drop-first 101.5). Midpoint 100.5: change 10.5/100.5; drop-first
    // midpoint 101: change 10.5/101; drift (101-100)/100 = +1%.
    let pts = [
        point(&[99.0, 101.0, 100.0]),
        point(&[110.0, 111.0, 112.0]),
        point(&[100.0, 102.0, 101.0]),
    ];
    let a = args(&["A", "B", "A"]);
    let gs = groups_of(&a);
    let c = compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0));
    assert!(close(c.control, 100.5) && close(c.value, 111.0));
    assert!(close(c.change, 10.5 / 100.5 * 100.0), "{}", c.change);
    assert!(close(c.second, 10.5 / 101.0 * 100.0), "{}", c.second);
    assert!(close(c.drift, 1.0), "{}", c.drift);
    assert!(c.test_drift.is_nan());
    // Every point has sample variance 1 (sd 1): CVs 1/100, 1/111, 1/101.
    assert!(close(c.max_cv, 1.0));
    // Welch: var = 1/3 + (1/4)(1/3) + (1/4)(1/3) = 1/2; the
    // Satterthwaite denominator (1/3)^2/2 + 2 (1/12)^2/2 = 1/16; df 4;
    // t(0.975, 4) = 2.776445; half-width in % of 100.5.
    let hw = 2.776_445 * 0.5f64.sqrt() / 100.5 * 100.0;
    let w = &c.iv.within;
    assert!((w.df - 4.0).abs() < 1e-9, "{}", w.df);
    assert!((w.low - (c.change - hw)).abs() < 1e-5, "{w:?}");
    assert!((w.high - (c.change + hw)).abs() < 1e-5, "{w:?}");
    assert_eq!(c.rounds, (6, 3));
    // Between points: the parents' means 100 and 101 (s^2 1/2) stand
    // for the child's one point too: var 1/2 (1/2 + 1) = 3/4 on 1 df,
    // t(0.975, 1) = 12.706205: the interval spans 0, so the 1% parent
    // drift is too much for a 10% change to be claimed from 3 boots.
    let hb = 12.706_205 * 0.75f64.sqrt() / 100.5 * 100.0;
    let b = &c.iv.between;
    assert_eq!(b.df, 1.0);
    assert!((b.low - (c.change - hb)).abs() < 1e-9, "{b:?}");
    assert!((b.high - (c.change + hb)).abs() < 1e-9, "{b:?}");
    assert!(b.low < 0.0 && core::ptr::eq(c.iv.wider(), b));
    assert_eq!(c.reasons, Reason::SpansZero.bit());
    // --drop-first swaps the bases; the drift uses drop-first means.
    let d = compare(&pts, &gs, (0, 1), true, Gate::Pct(5.0));
    assert!(close(d.change, c.second) && close(d.second, c.change));
    assert!(close(d.drift, 1.0 / 100.5 * 100.0), "{}", d.drift);
    assert_eq!(d.rounds, (4, 2));
}

#[test]
fn verdict_reasons() {
    let a = args(&["A", "B", "A"]);
    let gs = groups_of(&a);
    let sandwich = |pa: &[f64], b: &[f64], pb: &[f64], gate| {
        compare(
            &[point(pa), point(b), point(pb)],
            &gs,
            (0, 1),
            false,
            Gate::Pct(gate),
        )
        .reasons
    };
    let flat = [100.0, 100.0, 100.0];
    // +3%: under a 5% gate, and so is drop-first.
    assert_eq!(
        sandwich(&flat, &[103.0; 3], &flat, 5.0),
        Reason::UnderGate.bit() | Reason::SecondUnderGate.bit()
    );
    // +10% overall, but the first round carries it all: drop-first 0;
    // and the rounds' spread (sd 17 ns) puts 0 in the interval.
    assert_eq!(
        sandwich(&flat, &[130.0, 100.0, 100.0], &flat, 5.0),
        Reason::SecondSign.bit() | Reason::SecondUnderGate.bit() | Reason::SpansZero.bit()
    );
    // Drop-first of the other sign (-10%, over the gate in size).
    assert_eq!(
        sandwich(&flat, &[160.0, 90.0, 90.0], &flat, 5.0),
        Reason::SecondSign.bit() | Reason::SpansZero.bit()
    );
    // Parents 6% apart: drift not under the gate, and between points
    // (s^2 18 on 1 df) the interval is +16.5% +- 64%.
    assert_eq!(
        sandwich(&flat, &[120.0; 3], &[106.0; 3], 5.0),
        Reason::Drift.bit() | Reason::SpansZero.bit()
    );
    // A failed point.
    let mut bad = point(&[120.0; 3]);
    bad.failed_rounds = 1;
    let pts = [point(&flat), bad, point(&flat)];
    assert_eq!(
        compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0)).reasons,
        Reason::FailedChecks.bit()
    );
    bad.failed_rounds = 0;
    bad.run_passed = false;
    let pts = [point(&flat), bad, point(&flat)];
    assert_eq!(
        compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0)).reasons,
        Reason::FailedChecks.bit()
    );
    // Two plain files: no drift to check, never CONFIRMED.
    let a2 = args(&["A", "B"]);
    let c = compare(
        &[point(&flat), point(&[120.0; 3])],
        &groups_of(&a2),
        (0, 1),
        false,
        Gate::Pct(5.0),
    );
    assert_eq!(c.reasons, Reason::NoDrift.bit());
    assert!(c.drift.is_nan());
    // One round a point: no drop-first, no interval.
    let one = |v| point(&[v]);
    let pts = [one(100.0), one(120.0), one(100.0)];
    let c = compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0));
    assert_eq!(c.reasons, Reason::FewRounds.bit());
    assert!(c.second.is_nan() && c.iv.within.low.is_nan());
    // Exactly at the gate counts (|change| >= gate); a negative change
    // is as much a change as a positive one.
    assert_eq!(sandwich(&flat, &[105.0; 3], &flat, 5.0), 0);
    assert_eq!(sandwich(&flat, &[90.0; 3], &flat, 5.0), 0);
}

#[test]
fn longer_series_compares_every_label_with_the_first() {
    // base=100,102 patch=110,112 full=95: base midpoint 101.
    let a = args(&["base", "patch", "full", "patch", "base"]);
    let gs = groups_of(&a);
    let pts = [
        point(&[100.0, 100.0]),
        point(&[110.0, 110.0]),
        point(&[95.0, 95.0]),
        point(&[112.0, 112.0]),
        point(&[102.0, 102.0]),
    ];
    let patch = compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0));
    assert!(close(patch.value, 111.0) && close(patch.control, 101.0));
    assert!(close(patch.change, 10.0 / 101.0 * 100.0));
    assert!(close(patch.drift, 2.0));
    assert!(close(patch.test_drift, 2.0 / 110.0 * 100.0));
    // Between points, both labels of two: var 2/2 + 2/2 on df 2.
    let hb = 4.302_653 * 2f64.sqrt() / 101.0 * 100.0;
    let b = &patch.iv.between;
    assert!((b.df - 2.0).abs() < 1e-12, "{b:?}");
    assert!((b.high - b.low - 2.0 * hb).abs() < 1e-9, "{b:?}");
    assert_eq!(patch.reasons, 0);
    // full's one point takes base's spread: var 2 (1/2 + 1) on 1 df,
    // +-21.8% around -5.9%.
    let full = compare(&pts, &gs, (0, 2), false, Gate::Pct(5.0));
    assert!(close(full.change, -6.0 / 101.0 * 100.0));
    assert_eq!(full.iv.between.df, 1.0);
    assert_eq!(full.reasons, Reason::SpansZero.bit());
}

#[test]
fn intervals_from_raw_rounds() {
    // The hand-computed sandwich: the same intervals as compare's.
    let (a, b, c) = (
        [99.0, 101.0, 100.0],
        [110.0, 111.0, 112.0],
        [100.0, 102.0, 101.0],
    );
    let iv = intervals(&[&a, &c], &[&b]);
    let pts = [point(&a), point(&b), point(&c)];
    let gs = groups_of(&args(&["A", "B", "A"]));
    assert_eq!(iv, compare(&pts, &gs, (0, 1), false, Gate::Pct(5.0)).iv);
    assert!(close(iv.change, 10.5 / 100.5 * 100.0));
    // Flat rounds: no spread within points (an exact interval: zero
    // width, no df to speak of); between points, both sides of two: s^2 2
    // each, var 2 on df 2.
    let (p, q, r, s) = ([100.0; 2], [102.0; 2], [110.0; 2], [112.0; 2]);
    let iv = intervals(&[&p, &q], &[&r, &s]);
    assert_eq!((iv.within.low, iv.within.high), (iv.change, iv.change));
    assert!(iv.within.exact() && iv.within.df.is_nan());
    let hb = 4.302_653 * 2f64.sqrt() / 101.0 * 100.0;
    assert!((iv.between.high - (iv.change + hb)).abs() < 1e-5);
    assert!((iv.between.df - 2.0).abs() < 1e-12);
    assert!(core::ptr::eq(iv.wider(), &iv.between));
    // One point a side: no between-point interval, the within one rules.
    let iv = intervals(&[&a], &[&b]);
    assert!(iv.between.low.is_nan() && iv.between.df.is_nan());
    assert!(core::ptr::eq(iv.wider(), &iv.within));
    // No points on a side: nothing.
    let iv = intervals(&[], &[&b]);
    assert!(iv.change.is_nan() && iv.within.low.is_nan());
}

#[test]
fn every_verdict_reason_fits_its_column() {
    // The text prints each reason alone on a line after 18 blanks, with
    // either basis as the cross-check, the one under the gate in both its
    // wordings.
    use crate::compare::claim::{reason, Wording};
    use crate::compare::words::WIDTH;
    for drop_first in [false, true] {
        for r in Reason::ALL {
            for (clear, insn) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut name = String::new();
                let how = Wording {
                    drop_first,
                    clear,
                    insn,
                };
                reason(&mut name, r, how).unwrap();
                assert!(18 + name.chars().count() <= WIDTH, "{drop_first}: {name}");
            }
        }
    }
}

#[test]
fn identical_values_are_no_change_and_exact_points_no_nan() {
    // Both labels alike to the bit, no spread anywhere: exact intervals at
    // 0, the verdict "no change" alone (not under the gate, not of the
    // other sign, not "the CI includes 0").
    let a = args(&["A", "B", "A", "B"]);
    let gs = groups_of(&a);
    // Points of 15 rounds alike, each of one value.
    let flat = |values: [f64; 4]| values.map(|v| point(&[v; 15]));
    let c = compare(&flat([396.5; 4]), &gs, (0, 1), false, Gate::Pct(5.0));
    assert_eq!(c.change, 0.0);
    assert!(c.iv.within.exact() && c.iv.between.exact());
    assert!(!c.iv.within.low.is_nan() && !c.iv.between.low.is_nan());
    assert_eq!(c.reasons, Reason::NoChange.bit());
    // A change clear of zero but under the gate: UnderGate without
    // SpansZero (the text names it as a real change under the gate).
    let c = compare(
        &flat([100.0, 103.0, 100.0, 103.0]),
        &gs,
        (0, 1),
        false,
        Gate::Pct(5.0),
    );
    assert!(c.iv.between.exact() && (c.iv.between.low - 3.0).abs() < 1e-9);
    assert_eq!(
        c.reasons,
        Reason::UnderGate.bit() | Reason::SecondUnderGate.bit()
    );
    assert!(c.clear_under_gate());
}

#[test]
fn at_a_gate_in_instructions_the_larger_sides_spread_counts() {
    // Draws of two vCPUs: each side's boots differ. A (base): 100, 101;
    // B (head): 104, 114 (each boot's rounds alike, so the rounds pair
    // clear of zero). B's mean is 109, +8.5, beyond A's spread of 1 but
    // not B's own 10: under the gate.
    let a = args(&["A", "B", "A", "B"]);
    let gs = groups_of(&a);
    let pts = [100.0, 104.0, 101.0, 114.0].map(|v| point(&[v; 5]));
    let c = compare(&pts, &gs, (0, 1), false, Gate::Insn(0.5));
    assert!(close(c.delta, 8.5), "{}", c.delta);
    assert!(close(c.spread, 1.0) && close(c.test_spread, 10.0));
    assert_eq!(c.reasons & Reason::UnderGate.bit(), Reason::UnderGate.bit());
    // B: 109, 110: spread 1, the change +9 clears both.
    let pts = [100.0, 109.0, 101.0, 110.0].map(|v| point(&[v; 5]));
    let c = compare(&pts, &gs, (0, 1), false, Gate::Insn(0.5));
    assert!(close(c.test_spread, 1.0));
    assert_eq!(c.reasons & Reason::UnderGate.bit(), 0);
}
