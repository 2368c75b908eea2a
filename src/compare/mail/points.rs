//! What was compared and the workload, as the points state them: each
//! point's label, kernel and commit, the control, boots per label and
//! whether each point was a fresh boot; then the workload in words from
//! the banners and fact lines.

use core::fmt::Write;

use super::{emit, Mail, Para, MAX_FACT};
use crate::compare::args::MAX_POINTS;
use crate::compare::point::Key;
use crate::compare::words::{self, article, noun, PointsOf};
use crate::render::{plural, Clean, Clip};
use crate::sys::out::Out;

impl Mail<'_, '_> {
    /// What was compared: each point's label, kernel and commit; the
    /// control; boots per label; whether each point was a fresh boot.
    pub(super) fn compared(&self, out: &mut Out) {
        let (n, ctl) = (self.a.n, &self.gs[0]);
        let mut p = Para::new();
        let _ = p.write_str("Compared, in the order run:");
        for i in 0..n {
            let label = self.a.label(i);
            let _ = write!(p, " point {}, {}", i + 1, Clean(label));
            let kernel = self.pts[i].tag(Key::Kernel);
            if !kernel.is_empty() {
                let _ = write!(p, ", kernel {}", Clip::new(kernel, MAX_FACT));
            }
            let sha = match self.gs.iter().position(|g| g.label() == label) {
                Some(0) => self.d.parent,
                Some(1) => self.d.introduced,
                _ => None,
            };
            if let Some(s) = sha {
                let _ = write!(p, ", commit {}", Clean(s));
            }
            let _ = p.write_str(if i + 1 == n { "." } else { ";" });
        }
        if self.d.steps {
            self.steps_order(&mut p);
        } else {
            // Points of one boot count once: the control's value is over boots.
            let boots = self.cmps.first().map_or(ctl.k, |c| c.boots.0);
            let value = match boots {
                1 => "its one",
                2 => "the midpoint of its 2",
                _ => "the mean of its",
            };
            let _ = write!(
                p,
                " The control is {} ({value} {}{}); every other label is compared with it.",
                Clean(ctl.label()),
                noun(boots != ctl.k),
                plural(boots)
            );
        }
        emit(out, &p, 0, false);
        // Per point, the points that share its boot id (itself too), as
        // bits; none for a point that states no boot id.
        let id = |i: usize| self.pts[i].boot();
        let mut same = [0u32; MAX_POINTS];
        for (i, s) in same.iter_mut().enumerate().take(n) {
            if id(i).is_some() {
                *s = self.mask(&|j| id(j) == id(i));
            }
        }
        let mut p = Para::new();
        let _ = p.write_str("One run per point;");
        for (k, g) in self.gs.iter().enumerate() {
            let members = g.points().iter().fold(0u32, |m, &i| m | 1 << i);
            let known = g.points().iter().filter(|&&i| same[i] != 0).count();
            // A boot is counted at its first point in the group.
            let first = |i: usize| same[i] & members & ((1 << i) - 1) == 0;
            let b = g
                .points()
                .iter()
                .filter(|&&i| same[i] != 0 && first(i))
                .count();
            let _ = write!(p, " {}: {} point{}", Clean(g.label()), g.k, plural(g.k));
            let _ = match known {
                0 => p.write_str(", no boot_id"),
                _ => write!(p, " on {b} boot{}", plural(b)),
            };
            if known != 0 && known < g.k {
                let _ = write!(p, " ({} without boot_id)", g.k - known);
            }
            let _ = p.write_str(if k + 1 == self.gs.len() { "." } else { "," });
        }
        let mut shared = false;
        for (i, &s) in same.iter().enumerate().take(n) {
            // Each shared boot id once, at its first point.
            let Some(b) = id(i).filter(|_| s.count_ones() > 1 && s.trailing_zeros() as usize == i)
            else {
                continue;
            };
            shared = true;
            let _ = write!(
                p,
                " WARNING: {} share boot_id {}: they are not a fresh boot each, and \
                 count once in the between-point interval.",
                PointsOf(s, false),
                b.head()
            );
        }
        let unknown = self.mask(&|i| id(i).is_none());
        if unknown != 0 {
            let one = unknown.count_ones() == 1;
            let _ = write!(
                p,
                " {} {} no boot_id: whether {} a fresh boot is not known.",
                PointsOf(unknown, true),
                if one { "states" } else { "state" },
                if one { "it was" } else { "they were each" }
            );
        } else if !shared {
            let _ = p.write_str(" Each point was a fresh boot (distinct boot_ids");
            for b in (0..n).filter_map(id) {
                let _ = write!(p, " {}", b.head());
            }
            let _ = p.write_str(").");
        }
        emit(out, &p, 0, false);
    }

    /// The workload in words, from the banner facts.
    pub(super) fn workload(&self, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("Workload, as the points state it:");
        for i in 0..self.a.n {
            let tool = self.pts[i].format.tool();
            let mine = self.mask(&|j| self.pts[j].format.tool() == tool);
            // Each tool once, at its first point.
            if mine.trailing_zeros() as usize != i {
                continue;
            }
            let _ = write!(p, "{} {tool}", if i == 0 { "" } else { "," });
            if mine != self.all {
                let _ = write!(p, " ({})", PointsOf(mine, false));
            }
        }
        // One no point states (or the points disagree on) is left out whole.
        for c in CLAUSES {
            let skip = match c.key {
                Key::Mode => self.common(c.key).is_some_and(|c| c.0 == b"point"),
                Key::PreemptSource => self.common(Key::Preempt).is_none(),
                _ => false,
            };
            if !skip {
                self.clause(&mut p, &c);
            }
        }
        if self.every(Key::Witness) == Some(b"on") {
            let _ = p.write_str(", the kernel witness on");
        }
        let _ = p.write_str(".");
        if self.an.icount() {
            let _ = write!(p, " The points were {}.", words::ICOUNT);
        }
        let none = self.mask(&|i| self.pts[i].states_nothing());
        if none != 0 {
            let one = none.count_ones() == 1;
            let _ = write!(
                p,
                " {} {} none of this.",
                PointsOf(none, true),
                if one { "states" } else { "state" }
            );
        }
        emit(out, &p, 0, false);
    }

    /// What clause `c` says of its fact, and the points that state it when
    /// not all do; nothing when the fact has no common value.
    fn clause(&self, p: &mut Para, c: &Clause) {
        let Some((v, says)) = self.common(c.key) else {
            return;
        };
        let v = match (c.key, v) {
            (Key::Clock, b"vdso") => &b"the vDSO"[..],
            (Key::Clock, b"syscall") => b"clock_gettime(2)",
            _ => v,
        };
        let article = if c.article { article(v) } else { "" };
        let after = if v == b"1" { c.after_one } else { c.after };
        let _ = write!(p, "{}{article}{}{after}", c.before, Clip::new(v, MAX_FACT));
        if says != self.all {
            let _ = write!(p, " ({})", PointsOf(says, false));
        }
    }
}

/// How the workload paragraph says a fact: the words before and after its
/// value, after a value of 1 the singular's (`1 untimed warm-up round`);
/// with `article`, `a` or `an` before it, as its first sound asks (`an
/// AMD EPYC`).
pub(super) struct Clause {
    pub before: &'static str,
    pub key: Key,
    pub after: &'static str,
    pub after_one: &'static str,
    pub article: bool,
}

/// A fact said as it is, between `before` and `after`.
const fn fact(before: &'static str, key: Key, after: &'static str) -> Clause {
    count(before, key, after, after)
}

/// A count, the thing it counts in the singular after 1.
const fn count(before: &'static str, key: Key, one: &'static str, many: &'static str) -> Clause {
    Clause {
        before,
        key,
        after: many,
        after_one: one,
        article: false,
    }
}

/// The workload's facts in the order the paragraph says them.
const CLAUSES: [Clause; 23] = [
    fact(", version ", Key::Version, ""),
    fact(", profile ", Key::Profile, ""),
    fact(", mode ", Key::Mode, ""),
    fact(", contract sha256 ", Key::Sha, ""),
    count(
        ", one ring of ",
        Key::RingEntries,
        " SQ entry",
        " SQ entries",
    ),
    count(" and ", Key::CqEntries, " CQ entry", " CQ entries"),
    count(", ", Key::Slots, " request a cycle", " requests a cycle"),
    count(", ", Key::Cycles, " cycle a round", " cycles a round"),
    count(", ", Key::Rounds, " measured round", " measured rounds"),
    count(
        " after ",
        Key::Warmups,
        " untimed warm-up round",
        " untimed warm-up rounds",
    ),
    fact(", ", Key::Futex, " futexes"),
    fact(", every io_uring wait bounded at ", Key::Timeout, " s"),
    fact(", the process pinned to CPU ", Key::Cpu, ""),
    fact(" (cpu_choice ", Key::CpuChoice, ")"),
    Clause {
        article: true,
        ..fact(", ", Key::CpuModel, "")
    },
    fact(" (", Key::Machine, ")"),
    fact(", turbo ", Key::Turbo, ""),
    fact(", SMT ", Key::Smt, ""),
    fact(", governor ", Key::Governor, ""),
    fact(", preempt ", Key::Preempt, ""),
    fact(" (from ", Key::PreemptSource, ")"),
    fact(", CLOCK_MONOTONIC_RAW read through ", Key::Clock, ""),
    fact(
        ", a positive control: ",
        Key::InjectNs,
        " ns injected per pair",
    ),
];
