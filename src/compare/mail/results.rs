//! The draft's figures and what they claim: the table of points, per test
//! label compare's sentence and the claim limited to what was measured,
//! every row's checks, the kernel's own counts (witness lines), where the
//! cost went.

use core::fmt::Write;

use super::{emit, Mail, Para, MAX_FACT};
use crate::compare::analysis::Reason;
use crate::compare::claim;
use crate::compare::cost::Costs;
use crate::compare::cost_table::{self, Medium};
use crate::compare::point::{key_value, Key, ALL};
use crate::compare::words::{
    self, cell, figure, nums, Align, Figure, Pct, PointsOf, TheGate, WIDTH,
};
use crate::render::{wrap, Clean, Clip, Dec, Line};
use crate::sys::out::Out;

impl Mail<'_, '_> {
    /// Per point: label, rounds, ns/pair, CV, change vs the control.
    pub(super) fn table(&self, out: &mut Out) {
        let control = self.cmps.first().map_or(f64::NAN, |c| c.control);
        let unit = self.unit();
        let mut p = Para::new();
        let _ = p.write_str("Results, ");
        self.figures(&mut p);
        let _ = write!(
            p,
            " (each point's mean over its rounds), against the control {} at {} {}:",
            Clean(self.gs[0].label()),
            Dec(control, 3),
            unit.prose
        );
        emit(out, &p, 0, false);
        let _ = writeln!(
            out,
            "   #  label         rounds{:>11}      CV  vs control",
            unit.short
        );
        for (i, pt) in self.pts.iter().enumerate() {
            let s = &pt.s[ALL];
            nums(out, 4, &[(i + 1) as f64], 0);
            out.bytes(b"  ");
            cell(
                out,
                12,
                Align::Left,
                format_args!("{}", Clean(self.a.label(i))),
            );
            nums(out, 8, &[s.s.n as f64], 0);
            nums(out, 11, &[s.mean], 3);
            let cv = Figure {
                decimals: 3,
                signed: false,
                pct: true,
            };
            figure(out, 8, words::spread(&s.s).1, cv);
            let pct = crate::stats::pct_change(s.mean, control);
            figure(out, 12, pct, Figure { signed: true, ..cv });
            out.bytes(if pt.valid() { b"\n" } else { b"  FAILED\n" });
        }
        out.bytes(b"\n");
    }

    /// What a figure is: ns, or guest instructions under QEMU TCG icount,
    /// per what the series lines say.
    pub(super) fn figures(&self, p: &mut Para) {
        let icount = self.an.icount();
        let what = if icount { "guest instructions" } else { "ns" };
        let _ = write!(p, "{what} per {}", Clean(self.per()));
        if icount {
            let _ = p.write_str(" under QEMU TCG icount, not time");
        }
    }

    /// Per test label compare's sentence (change, intervals, drop-first,
    /// drift, max CV, verdict), the verdict worded as a claim limited to
    /// what was measured.
    pub(super) fn results(&self, out: &mut Out) {
        let r = self.an;
        // What is not claimed: a regression, or a step's change.
        let (claimed, none) = if self.d.steps {
            (["no change", "No change"], "")
        } else {
            (["no regression", "No regression"], ", no regression")
        };
        for c in self.cmps {
            let mut p = Para::new();
            claim::sentence(r, c, &mut p);
            if c.reasons != 0 {
                let _ = if c.clear_under_gate() {
                    write!(
                        p,
                        " The change is clear of zero but under {}: {} is claimed at this \
                         gate.",
                        TheGate(self.a.gate),
                        claimed[0]
                    )
                } else if c.reasons & Reason::NoChange.bit() != 0 {
                    write!(p, " The values are identical: no change{none}.")
                } else {
                    write!(p, " {} is claimed from these points.", claimed[1])
                };
                emit(out, &p, 0, false);
                continue;
            }
            let _ = write!(
                p,
                " The claim is limited to what was measured: {}'s {} is {} against {}'s",
                Clean(self.gs[c.test].label()),
                self.unit().prose,
                Pct(c.change),
                Clean(self.gs[c.base].label())
            );
            for (f, before, after) in [
                (Key::Profile, " in the ", " workload"),
                (Key::Futex, " with ", " futexes"),
                (Key::Cpu, ", on CPU ", ""),
                (Key::CpuModel, " of one ", ""),
            ] {
                if let Some(v) = self.every(f) {
                    let _ = write!(p, "{before}{}{after}", Clip::new(v, MAX_FACT));
                }
            }
            // A futex scope is a futex workload's to vary (its points state one).
            let scopes = if self.every(Key::Futex).is_some() {
                " futex scopes,"
            } else {
                ""
            };
            let _ = write!(
                p,
                ", with these kernels; other workloads,{scopes} CPUs and machines were not \
                 measured here."
            );
            emit(out, &p, 0, false);
        }
    }

    /// Every timing row's verdict, counted from the files.
    pub(super) fn checks(&self, bad: u32, out: &mut Out) {
        let rows: usize = self.pts.iter().map(|p| p.s[ALL].s.n).sum();
        let mut p = Para::new();
        let ours = self.pts.iter().all(|p| p.format.ours());
        let which = if ours {
            "the CQE, result, timeout, overflow, outstanding-request and CPU checks"
        } else {
            "their tool's checks (semantic_pass 1)"
        };
        if bad == 0 {
            let _ = write!(p, "All {rows} timing rows passed {which}.");
            return emit(out, &p, 0, false);
        }
        let _ = write!(p, "Not every timing row passed {which}:");
        for (i, pt) in self.pts.iter().enumerate() {
            if bad & 1 << i == 0 {
                continue;
            }
            let _ = write!(
                p,
                " point {} ({}): {} of {} rows failed",
                i + 1,
                Clean(self.a.label(i)),
                pt.failed_rounds,
                pt.s[ALL].s.n
            );
            if !pt.run_passed {
                let _ = p.write_str(", and the run's own end-of-run checks failed");
            }
            // The checks line's counters that are not 0 (CQE totals aside).
            let mut sep = " (";
            for word in pt.checks.unwrap_or(b"").split(|&b| b == b' ') {
                let Some((key, value)) = key_value(word) else {
                    continue;
                };
                if !key.ends_with(b"cqes") && value != b"0" {
                    let _ = write!(p, "{sep}{}", Clean(word));
                    sep = " ";
                }
            }
            // A parenthesis opened, and closed here, when some counter is
            // not 0.
            let _ = p.write_str(if sep == " (" { ";" } else { ");" });
        }
        let _ = p.write_str(" these points are not evidence.");
        emit(out, &p, 0, false);
    }

    /// The points' `# witness: ` lines: once when every point has the same,
    /// else per point.
    pub(super) fn witness(&self, out: &mut Out) {
        let has = self.mask(&|i| !self.pts[i].witness().is_empty());
        let same = self
            .pts
            .iter()
            .all(|p| p.witness() == self.pts[0].witness());
        for (i, pt) in self.pts.iter().enumerate() {
            if pt.witness().is_empty() || (same && i > 0) {
                continue;
            }
            let mut p = Para::new();
            let _ = if same {
                p.write_str("The kernel's own counts (the same on every point):")
            } else {
                write!(
                    p,
                    "The kernel's own counts, point {} ({}):",
                    i + 1,
                    Clean(self.a.label(i))
                )
            };
            emit(out, &p, 0, true);
            for line in pt.witness() {
                let mut p = Para::new();
                let _ = write!(p, "{}", Clean(line));
                out.bytes(b"  ");
                wrap(out, p.as_str(), 2, 4, WIDTH);
            }
            out.bytes(b"\n");
        }
        let without = !has & self.all;
        if has != 0 && without != 0 {
            let mut p = Para::new();
            let _ = write!(p, "{} carry no witness lines.", PointsOf(without, true));
            emit(out, &p, 0, false);
        }
    }

    /// Where the cost went, per test label (cost.rs), when the points
    /// carry cost lines; why there is no table goes to stderr.
    pub(super) fn cost(&self, out: &mut Out) {
        let mut per = Line::new();
        let _ = write!(per, "{}", Clean(self.per()));
        for c in self.cmps {
            let what = per.as_str();
            match self.costs {
                Some(costs) => cost_table::section(self.an, c, costs, what, Medium::Mail, out),
                None => {
                    let costs = Costs::of(self.an, c);
                    cost_table::section(self.an, c, &costs, what, Medium::Mail, out);
                }
            }
        }
    }
}
