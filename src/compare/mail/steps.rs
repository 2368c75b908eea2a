//! `report --steps`: the reply a reporter sends on a fix series, drafted
//! from its points. The labels are the steps in the order first given
//! (parent, child, child+fix1, ...), a label's points its boots; each step
//! is compared with the one before it (its sentence, verdict and where the
//! cost went: `Mail::cmps` holds those comparisons) and with the first (a
//! column of the table, and one sentence for the last step).
//!
//! The honesty rules are the regression mail's: a point that failed its
//! checks marks the draft NOT EVIDENCE and every step it is in; a change
//! under the gate says so; locked instructions a step's points did not
//! count have no figure, never 0.

use core::fmt::Write;

use super::{emit, Mail, Para};
use crate::compare::analysis::Reason;
use crate::compare::claim;
use crate::compare::point::Cost;
use crate::compare::words::{cell, figure, nums, Align, Figure, TheGate};
use crate::render::{Clean, Clip};
use crate::sys::out::Out;

/// How a change is written in the tables: signed, three decimals.
const CHANGE: Figure = Figure {
    decimals: 3,
    signed: true,
    pct: false,
};

/// A table's header: `step`, the columns given (name, width), then the
/// changes against the step before and the first.
fn header(out: &mut Out, columns: &[(&str, usize)]) {
    out.bytes(b"  ");
    cell(out, 12, Align::Left, format_args!("step"));
    for &(name, width) in columns.iter().chain(&[("vs before", 12), ("vs first", 12)]) {
        cell(out, width, Align::Right, format_args!("{name}"));
    }
}

impl Mail<'_, '_> {
    /// The Subject's text: `Re: ` and the patch's subject (`--re`), or
    /// `--title`, or what was measured, from the first step to the last.
    pub(super) fn steps_subject(&self, p: &mut Para) {
        let _ = p.write_str("Subject: ");
        if let Some(re) = self.d.re {
            let _ = write!(p, "Re: {}", Clean(re));
            return;
        }
        if self.pts.iter().any(|x| !x.valid()) {
            let _ = p.write_str("[NOT EVIDENCE] ");
        }
        if let Some(t) = self.d.title {
            let _ = write!(p, "{}", Clean(t));
            return;
        }
        if let Some(s) = self.series() {
            let _ = write!(p, "{} ", Clip::new(s.about, 64));
        } else if let Some(x) = self.profile() {
            let _ = write!(p, "{} ", Clip::new(x, 24));
        }
        let (first, last) = (self.gs[0].label(), self.gs[self.gs.len() - 1].label());
        let _ = write!(p, "step by step: {} to {}", Clean(first), Clean(last));
    }

    /// The steps in order, and what each is compared with.
    pub(super) fn steps_order(&self, p: &mut Para) {
        let _ = p.write_str(" The steps, in order:");
        for (k, g) in self.gs.iter().enumerate() {
            let sep = if k == 0 { " " } else { ", " };
            let _ = write!(p, "{sep}{}", Clean(g.label()));
        }
        let _ = p.write_str(
            "; each is compared with the step before it and with the first, a step's value being \
             the mean of its boots'.",
        );
    }

    /// The table of steps: each step's figure, its change against the step
    /// before and against the first, and its verdict; then the locked
    /// instructions where the points counted them.
    pub(super) fn steps_table(&self, out: &mut Out) {
        let unit = self.unit();
        let mut p = Para::new();
        let _ = p.write_str("Steps, ");
        self.figures(&mut p);
        let _ = write!(
            p,
            ", each against the step before it and against the first, {}; the verdict is a \
             step's against the one before it at {}:",
            Clean(self.gs[0].label()),
            TheGate(self.a.gate)
        );
        emit(out, &p, 0, false);
        header(out, &[("boots", 7), (unit.short, 12)]);
        out.bytes(b"  verdict\n");
        let pct = Figure {
            pct: true,
            ..CHANGE
        };
        for k in 0..self.gs.len() {
            // Its value and boots, from its comparison with the step before
            // (the first step's: the control side of the second's).
            let (value, boots) = match k {
                0 => self
                    .cmps
                    .first()
                    .map_or((f64::NAN, 0), |c| (c.control, c.boots.0)),
                _ => (self.cmps[k - 1].value, self.cmps[k - 1].boots.1),
            };
            self.step_cell(k, out);
            nums(out, 7, &[boots as f64], 0);
            nums(out, 12, &[value], 3);
            if k > 0 {
                figure(out, 12, self.cmps[k - 1].change, pct);
                figure(out, 12, self.an.cmps()[k - 1].change, pct);
            }
            let word = self.verdict_word(k);
            if !word.is_empty() {
                let pad = if k == 0 { 26 } else { 2 };
                let _ = write!(out, "{:pad$}{word}", "");
            }
            out.bytes(b"\n");
        }
        out.bytes(b"\n");
        self.steps_locked(out);
    }

    /// A step's label in the first column.
    fn step_cell(&self, k: usize, out: &mut Out) {
        out.bytes(b"  ");
        let label = self.gs[k].label();
        cell(out, 12, Align::Left, format_args!("{}", Clean(label)));
    }

    /// A step's verdict in a word: NOT EVIDENCE when a point of it failed
    /// its checks, else its comparison with the step before (the first
    /// step has none).
    fn verdict_word(&self, k: usize) -> &'static str {
        let failed = self.gs[k].points().iter().any(|&i| !self.pts[i].valid());
        if failed {
            return "NOT EVIDENCE";
        }
        let Some(c) = k.checked_sub(1).map(|j| &self.cmps[j]) else {
            return "";
        };
        if c.reasons & Reason::FailedChecks.bit() != 0 {
            "NOT EVIDENCE"
        } else if c.reasons == 0 {
            "CONFIRMED"
        } else if c.reasons & Reason::NoChange.bit() != 0 {
            "no change"
        } else if c.clear_under_gate() {
            "under gate"
        } else {
            "NOT CONFIRMED"
        }
    }

    /// The kernel's locked instructions per pair of each step, from the
    /// points' cost lines, and their changes; a step whose points did not
    /// all count them has no figure (`-`), and the draft says why.
    fn steps_locked(&self, out: &mut Out) {
        let mut locked = [None; crate::compare::args::MAX_POINTS];
        for (g, l) in locked.iter_mut().enumerate().take(self.gs.len()) {
            *l = self.an.locked(g).map(|l| l.kernel);
        }
        let locked = &locked[..self.gs.len()];
        let mut p = Para::new();
        if locked.iter().all(Option::is_none) {
            let carry = self.pts.iter().any(|x| x.cost != Cost::Absent);
            let _ = p.write_str(if carry {
                "Locked instructions: not counted (the points' cost lines were made by a counter \
                 that did not count them)."
            } else {
                "Locked instructions: not counted (the points carry no # cost: lines)."
            });
            return emit(out, &p, 0, false);
        }
        let _ = write!(
            p,
            "Locked instructions per {} in the kernel (x86: a LOCK prefix, or XCHG with \
             memory), from the points' # cost: lines (a step's, the mean of its boots'):",
            Clean(self.per())
        );
        emit(out, &p, 0, false);
        header(out, &[("locked", 19)]);
        out.bytes(b"\n");
        for (k, l) in locked.iter().enumerate() {
            self.step_cell(k, out);
            match l {
                Some(v) => nums(out, 19, &[*v], 3),
                None => cell(out, 19, Align::Right, format_args!("-")),
            }
            // Against the step before and the first: a figure on both sides.
            for other in [k.checked_sub(1), Some(0)].into_iter().filter(|_| k > 0) {
                match (l, other.and_then(|o| locked[o])) {
                    (Some(v), Some(o)) => figure(out, 12, v - o, CHANGE),
                    _ => cell(out, 12, Align::Right, format_args!("-")),
                }
            }
            out.bytes(b"\n");
        }
        if locked.iter().any(Option::is_none) {
            let mut p = Para::new();
            let _ = p.write_str(
                "A step shown - has no figure: some of its points did not count locked \
                 instructions (not counted, which is not 0) or carry no cost lines that can \
                 be read; no change is taken against it.",
            );
            out.bytes(b"  ");
            crate::render::wrap(out, p.as_str(), 2, 2, crate::compare::words::WIDTH);
        }
        out.bytes(b"\n");
    }

    /// The series as a whole: its last step against its first, when that
    /// is not a step's comparison with the one before.
    pub(super) fn steps_overall(&self, out: &mut Out) {
        let last = self.gs.len() - 1;
        if last < 2 {
            return;
        }
        let c = &self.an.cmps()[last - 1];
        let mut p = Para::new();
        let _ = p.write_str("Over the series, ");
        claim::sentence(self.an, c, &mut p);
        emit(out, &p, 0, false);
    }
}
