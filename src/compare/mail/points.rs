//! What was compared and the workload, as the points state them: each
//! point's label, kernel and commit, the control, boots per label and
//! whether each point was a fresh boot; then the workload in words from
//! the banners and fact lines.

use core::fmt::Write;

use super::{emit, Mail, Para, MAX_FACT};
use crate::compare::args::MAX_POINTS;
use crate::compare::point::Key;
use crate::compare::words::{self, noun, PointsOf};
use crate::fmt::{plural, Clean, Clip};
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
        // (text before, fact, text after): one no point states (or the
        // points disagree on) is left out whole.
        let clauses: [(&str, Key, &str); 23] = [
            (", version ", Key::Version, ""),
            (", profile ", Key::Profile, ""),
            (", mode ", Key::Mode, ""),
            (", contract sha256 ", Key::Sha, ""),
            (", one ring of ", Key::RingEntries, " SQ entries"),
            (" and ", Key::CqEntries, " CQ entries"),
            (", ", Key::Slots, " requests a cycle"),
            (", ", Key::Cycles, " cycles a round"),
            (", ", Key::Rounds, " measured rounds"),
            (" after ", Key::Warmups, " untimed warm-up rounds"),
            (", ", Key::Futex, " futexes"),
            (", every io_uring wait bounded at ", Key::Timeout, " s"),
            (", the process pinned to CPU ", Key::Cpu, ""),
            (" (cpu_choice ", Key::CpuChoice, ")"),
            (", a ", Key::CpuModel, ""),
            (" (", Key::Machine, ")"),
            (", turbo ", Key::Turbo, ""),
            (", SMT ", Key::Smt, ""),
            (", governor ", Key::Governor, ""),
            (", preempt ", Key::Preempt, ""),
            (" (from ", Key::PreemptSource, ")"),
            (", CLOCK_MONOTONIC_RAW read through ", Key::Clock, ""),
            (
                ", a positive control: ",
                Key::InjectNs,
                " ns injected per pair",
            ),
        ];
        for (before, f, after) in clauses {
            let skip = match f {
                Key::Mode => self.common(f).is_some_and(|c| c.0 == b"point"),
                Key::PreemptSource => self.common(Key::Preempt).is_none(),
                _ => false,
            };
            if !skip {
                self.clause(&mut p, before, f, after);
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
}
