//! What `compare` prints: a text no wider than 72 columns, ending in a
//! paragraph to paste into a mail, or (`--tsv`) one TSV row per
//! comparison.

use core::fmt::{self, Write};

use super::analysis::{Analysis, Comparison, Reason};
use super::args::Gate;
use super::claim::{few_rounds, second_name, sentence, verdict};
use super::cost::{Costs, EventsCounted};
use super::cost_table::{self, Medium};
use super::point::Key;
use super::words::{
    cell, noun, nums, spaces, spread, unit, Align, Cv, GateValue, GroupValue, Long, Pct, PointsOf,
    Units, ICOUNT, WIDTH,
};
use crate::render::{columns, plural, wrap, Clean, Clip, Dec, Line, Signed};
use crate::sys::out::Out;

/// The text report. `given`: the cost lines of its one comparison,
/// summed by the caller (ab, which shows them elsewhere too); else each
/// comparison's are summed here, once.
pub fn text(r: &Analysis, given: Option<&Costs>, out: &mut Out) {
    let a = r.args;
    let mut head = Line::new();
    let _ = write!(
        head,
        "uring-repro compare: {} point(s), gate {}, {}",
        a.n,
        GateValue(a.gate),
        if a.drop_first {
            "first round of each point dropped"
        } else {
            "every round counted"
        }
    );
    wrap(out, head.as_str(), 0, 2, WIDTH);
    let _ = writeln!(
        out,
        "  #  label         rounds{:>14}     cv%  checks  file",
        if r.icount() {
            "insn/pair"
        } else {
            "ns/pair mean"
        }
    );
    for i in 0..a.n {
        let s = r.sample(i);
        nums(out, 3, &[(i + 1) as f64], 0);
        out.bytes(b"  ");
        cell(out, 12, Align::Left, format_args!("{}", Clean(a.label(i))));
        nums(out, 7, &[s.s.n as f64], 0);
        nums(out, 14, &[s.mean], 3);
        nums(out, 8, &[spread(&s.s).1], 3);
        out.bytes(if r.points[i].valid() {
            b"  pass    "
        } else {
            b"  FAIL    "
        });
        cell(out, 16, Align::Last, format_args!("{}", Clean(a.file(i))));
        out.bytes(b"\n");
    }
    out.bytes(b"  #      median         min         max          sd  kernel\n");
    for i in 0..a.n {
        let s = &r.sample(i).s;
        nums(out, 3, &[(i + 1) as f64], 0);
        nums(out, 12, &[s.median, s.min, s.max, spread(s).0], 3);
        let kernel = r.points[i].tag(Key::Kernel);
        if !kernel.is_empty() {
            out.bytes(b"  ");
            cell(out, 19, Align::Last, format_args!("{}", Clean(kernel)));
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
                if p.run_passed { "" } else { ", run FAIL" }
            );
        }
    }
    for c in r.cmps() {
        comparison(r, c, out);
        match given {
            Some(costs) => cost_table::section(r, c, costs, "pair", Medium::Text, out),
            None => {
                let costs = Costs::of(r, c);
                cost_table::section(r, c, &costs, "pair", Medium::Text, out);
            }
        }
    }
    // The paragraph: composed whole, then wrapped.
    let mut para = Long::new();
    paragraph(r, &mut para);
    out.bytes(b"\nTo paste:\n\n");
    wrap(out, para.as_str(), 0, 0, WIDTH);
}

fn comparison(r: &Analysis, c: &Comparison, out: &mut Out) {
    let (ctl, test) = (&r.groups()[c.base], &r.groups()[c.test]);
    let _ = writeln!(out, "\n{} vs {}", Clean(test.label()), Clean(ctl.label()));
    let sides = [
        (ctl, c.control, "control", c.boots.0),
        (test, c.value, "test", c.boots.1),
    ];
    for (g, v, role, boots) in sides {
        out.bytes(b"  ");
        cell(out, 14, Align::Left, format_args!("{}", Clean(g.label())));
        nums(out, 12, &[v], 3);
        let points = GroupValue { points: g.k, boots };
        let _ = writeln!(out, " {}  {role}, {points}", unit(r.icount()).short);
    }
    let some_shared = c.boots != (ctl.k, test.k);
    // Both intervals; the verdict uses the wider (see `Intervals`).
    let (w, b) = (&c.iv.within, &c.iv.between);
    let same = c.reasons & Reason::NoChange.bit() != 0;
    let none = if same { "  (no change)" } else { "" };
    let _ = writeln!(out, "  change          {}{none}", Pct(c.change));
    // Each interval: its ends (or why it has none) and what it rests on.
    let mut within = Long::new();
    let _ = if w.low.is_nan() {
        write!(within, "n/a ({})", few_rounds(r))
    } else if w.exact() {
        write!(
            within,
            "{} exact (no spread)\nevery round alike, {} vs {} rounds",
            Pct(w.low),
            c.rounds.1,
            c.rounds.0
        )
    } else {
        write!(
            within,
            "{} .. {}  95% CI\nWelch, df {}, {} vs {} rounds",
            Pct(w.low),
            Pct(w.high),
            Dec(w.df, 1),
            c.rounds.1,
            c.rounds.0,
        )
    };
    field(out, "within-point", within.as_str());
    let mut between = Long::new();
    let _ = if b.low.is_nan() {
        write!(
            between,
            "n/a (one {} per label): the claim rests\non the within-point interval only",
            noun(some_shared)
        )
    } else if b.exact() {
        write!(
            between,
            "{} exact (no spread)\nidentical across {} vs {}",
            Pct(b.low),
            c.boots.1,
            Units(c.boots.0, true)
        )
    } else {
        write!(
            between,
            "{} .. {}  95% CI\nWelch, df {}, {} vs {}",
            Pct(b.low),
            Pct(b.high),
            Dec(b.df, 1),
            c.boots.1,
            Units(c.boots.0, some_shared)
        )
    };
    field(out, "between-point", between.as_str());
    if let Gate::Insn(_) = r.args.gate {
        let short = unit(r.icount()).short;
        let mut per = Long::new();
        let _ = write!(
            per,
            "{} {short}, beyond a control spread\nof {} (its boots' values, largest minus smallest)",
            Signed(c.delta, 3),
            Dec(c.spread, 3)
        );
        if c.test_spread > c.spread {
            let _ = write!(
                per,
                "\nand the test's of {}, the larger, which the gate took",
                Dec(c.test_spread, 3)
            );
        }
        field(out, "per pair", per.as_str());
        let mut paired = Long::new();
        paired_interval(r, c, &mut paired, false);
        field(out, "round by round", paired.as_str());
    }
    for g in [ctl, test] {
        for &i in g.points() {
            if let Some(m) = r.shared(i) {
                // Up to 16 points: wrapped, as every line.
                let mut line = Line::new();
                let _ = write!(line, "{} (counted once)", PointsOf(m, false));
                out.bytes(b"  one boot        ");
                wrap(out, line.as_str(), 18, 18, WIDTH);
            }
        }
    }
    let _ = writeln!(
        out,
        "  {:<16}{}\n  \
         control drift   {}  (last {} vs first)\n  \
         test drift      {}\n  \
         max CV          {}",
        second_name(r),
        Pct(c.second),
        Pct(c.drift),
        noun(c.boots.0 != ctl.k),
        Pct(c.test_drift),
        Cv(c.max_cv)
    );
    out.bytes(b"  verdict         ");
    let sep = "\n                  ";
    verdict(r, c, out, sep, sep);
    out.bytes(b"\n");
}

/// The change's interval round by round (`Comparison::paired`), its ends
/// and what it rests on: two lines of a field (`sentence` false), or the
/// words of a sentence.
pub(super) fn paired_interval(r: &Analysis, c: &Comparison, w: &mut dyn Write, sentence: bool) {
    let p = &c.paired;
    let k = c.rounds.1 / c.boots.1.max(1);
    let (sep, open, close) = if sentence {
        (", ", "(", ")")
    } else {
        ("\n", "", "")
    };
    let _ = if c.has(Reason::Unpaired) {
        w.write_str("n/a (the points' rounds differ in number)")
    } else if p.low.is_nan() {
        write!(w, "n/a ({})", few_rounds(r))
    } else if p.low == p.high {
        write!(
            w,
            "{} exact {open}no spread{sep}every round's change alike, {k} rounds{close}",
            Signed(p.low, 3)
        )
    } else {
        let to = if sentence { " to " } else { " .. " };
        let ci = if sentence { "95% CI" } else { " 95% CI" };
        write!(
            w,
            "{}{to}{} {open}{ci}{sep}Student's t, df {}, {k} rounds paired{close}",
            Signed(p.low, 3),
            Signed(p.high, 3),
            Dec(p.df, 0)
        )
    };
}

/// A field of a comparison: its name in the first 18 columns, then its
/// lines (`text`, split at `\n`) from column 18, each as it is where it
/// fits WIDTH, else wrapped there: a figure of many digits never passes
/// the edge.
fn field(out: &mut Out, name: &str, text: &str) {
    let _ = write!(out, "  {name:<16}");
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            spaces(out, 18);
        }
        if 18 + columns(line) <= WIDTH {
            let _ = writeln!(out, "{line}");
        } else {
            wrap(out, line, 18, 18, WIDTH);
        }
    }
}

/// The paragraph to paste (unwrapped).
fn paragraph(r: &Analysis, w: &mut dyn Write) {
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
    let id = |i: usize| r.points[i].boot();
    let n = r.points.len();
    let distinct = n > 1 && (0..n).all(|i| id(i).is_some() && (0..i).all(|j| id(j) != id(i)));
    let _ = w.write_str(", one run per point");
    if distinct {
        let _ = w.write_str(", each on its own boot (distinct boot ids)");
    }
    if r.args.drop_first {
        let _ = w.write_str(", first round of each point dropped");
    }
    let _ = w.write_str(".");
    if r.icount() {
        let _ = write!(w, " The points were {ICOUNT}.");
    }
    for g in r.groups() {
        for &i in g.points() {
            if let (Some(m), Some(b)) = (r.shared(i), id(i)) {
                let _ = write!(
                    w,
                    " {} share a boot ({}): counted once between points.",
                    PointsOf(m, true),
                    b.head()
                );
            }
        }
    }
    for i in 0..n {
        let (p, s) = (&r.points[i], r.sample(i));
        let _ = write!(
            w,
            " Point {} ({}): {} {} over {} round{}, CV {}",
            i + 1,
            Clean(r.args.label(i)),
            Dec(s.mean, 3),
            unit(r.icount()).prose,
            s.s.n,
            plural(s.s.n),
            Cv(spread(&s.s).1)
        );
        let kernel = p.tag(Key::Kernel);
        if !kernel.is_empty() {
            let _ = write!(w, ", kernel {}", Clip::new(kernel, 64));
        }
        // A boot id's first group is enough to tell boots apart.
        if let Some(b) = p.boot() {
            let _ = write!(w, ", boot {}", b.head());
        }
        let _ = w.write_str(if p.valid() {
            "."
        } else {
            ", FAILED its checks."
        });
    }
    for c in r.cmps() {
        let _ = w.write_str(" ");
        sentence(r, c, w);
    }
}

/// TSV columns of `--tsv`, one row per comparison.
pub const TSV_HEADER: &str = "implementation\tprofile\tcontrol\ttest\tcontrol_points\t\
test_points\tcontrol_means\ttest_means\tcontrol_value\ttest_value\tchange_pct\t\
within_ci95_low_pct\twithin_ci95_high_pct\twithin_df\tcontrol_rounds\ttest_rounds\t\
between_ci95_low_pct\tbetween_ci95_high_pct\tbetween_df\tall_rounds_pct\t\
drop_first_pct\tcontrol_drift_pct\ttest_drift_pct\tmax_cv_pct\tgate_pct\tcvs_pct\tbasis\t\
confirmed\treasons\tcontrol_boots\ttest_boots\ttimebase\tcontrol_kernel_locked\t\
test_kernel_locked\tkernel_locked_change\tgate_insn\tdelta\tcontrol_spread\tpaired_ci95_low\t\
paired_ci95_high\tpaired_df\tevents\tevents_moved";

/// The result summary as TSV.
pub fn tsv(r: &Analysis, out: &mut Out) {
    let _ = writeln!(out, "{TSV_HEADER}");
    let profile = r.profile();
    for c in r.cmps() {
        let (ctl, test) = (&r.groups()[c.base], &r.groups()[c.test]);
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
                let sep = if j == 0 { "\t" } else { "," };
                let _ = write!(out, "{sep}{}", Dec(r.sample(i).mean, 6));
            }
        }
        let (all, drop_first) = if r.args.drop_first {
            (c.second, c.change)
        } else {
            (c.change, c.second)
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
                r.args.gate.pct(),
            ],
            6,
        );
        for (j, &i) in ctl.points().iter().chain(test.points()).enumerate() {
            let sep = if j == 0 { "\t" } else { "," };
            let _ = write!(out, "{sep}{}", Na(spread(&r.sample(i).s).1, 6));
        }
        let basis = if r.args.drop_first {
            "drop-first"
        } else {
            "all"
        };
        let _ = write!(out, "\t{basis}\t");
        if c.reasons == 0 {
            let _ = out.write_str("yes\t-");
        } else {
            let _ = out.write_str("no\t");
            for (k, why) in Reason::of(c.reasons).enumerate() {
                let _ = write!(out, "{}{}", if k == 0 { "" } else { "," }, code(why));
            }
        }
        let timebase = if r.icount() { "icount" } else { "wall" };
        let _ = write!(out, "\t{}\t{}\t{timebase}", c.boots.0, c.boots.1);
        let [control, test] = locked(r, c);
        let change = match (control, test) {
            (Some(a), Some(b)) => b - a,
            _ => f64::NAN,
        };
        let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
        tsv_nums(out, &[nan(control), nan(test), change], 6);
        let p = &c.paired;
        let insn = r.args.gate.insn();
        tsv_nums(out, &[insn, c.delta, c.spread, p.low, p.high, p.df], 6);
        tsv_events(&Costs::of(r, c), out);
        out.bytes(b"\n");
    }
}

/// The events' columns: each event `NAME:CONTROL:TEST` (per pair), and the
/// names of those that moved (`-`: none), or `NA` in both where the points
/// did not all count the same events.
fn tsv_events(costs: &Costs, out: &mut Out) {
    let (t, ev) = (&costs.sum, &costs.sum.events);
    if costs.table != Some(Ok(())) || ev.status() != EventsCounted::Counted {
        out.bytes(b"\tNA\tNA");
        return;
    }
    for k in 0..ev.n {
        let sep = if k == 0 { "\t" } else { "," };
        let [c, v] = ev.v[k];
        let _ = write!(
            out,
            "{sep}{}:{}:{}",
            Clean(ev.names[k]),
            Dec(c, 6),
            Dec(v, 6)
        );
    }
    let moved = ev.moved_bits(t.threshold);
    out.bytes(if moved == 0 { b"\t-" } else { b"\t" });
    for (j, k) in (0..ev.n).filter(|k| moved & 1 << k != 0).enumerate() {
        let sep = if j == 0 { "" } else { "," };
        let _ = write!(out, "{sep}{}", Clean(ev.names[k]));
    }
}

/// The kernel's locked instructions per pair of comparison `c`'s sides
/// (`Analysis::locked`): None for a side not every point of which counted
/// them.
fn locked(r: &Analysis, c: &Comparison) -> [Option<f64>; 2] {
    [c.base, c.test].map(|g| r.locked(g).map(|l| l.kernel))
}

/// A reason as the TSV codes it.
fn code(r: Reason) -> &'static str {
    match r {
        Reason::UnderGate => "under_gate",
        Reason::SecondSign => "second_sign",
        Reason::SecondUnderGate => "second_under_gate",
        Reason::FailedChecks => "failed_checks",
        Reason::Drift => "drift",
        Reason::NoDrift => "no_drift",
        Reason::FewRounds => "few_rounds",
        Reason::SpansZero => "ci_includes_zero",
        Reason::NoChange => "no_change",
        Reason::Unpaired => "unpaired",
    }
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

/// Each number after a tab, with `decimals` (`NA` for NaN).
fn tsv_nums(out: &mut Out, vs: &[f64], decimals: u32) {
    for &v in vs {
        let _ = write!(out, "\t{}", Na(v, decimals));
    }
}
