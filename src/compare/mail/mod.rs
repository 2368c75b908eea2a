//! `uring-repro report [--gate PCT] [--mode M] [--introduced SHA]
//! [--parent SHA] [--title TEXT] [--link URL]... LABEL=FILE...`: the
//! regression mail, drafted from the points (docs/report.md).
//!
//! The inputs, labels and maths are compare's (load.rs, `Analysis`): the
//! first label is the control, every other label is compared with it.
//! Every sentence of the draft is made of facts the files state (their
//! banners, fact lines, rows, witness and checks lines) or the command line
//! gives; a fact the draft would state but some point does not is left out
//! (for that point) and named once, on one stderr line. A point that failed
//! its checks marks the draft NOT EVIDENCE at the top and makes the exit 1.
//! Plain text, no line over 72 columns. The paragraphs, in the order the
//! draft has them, are `Mail`'s methods here, but for how to reproduce
//! (reproduce.rs: the command lines, quoted for the shell).

use core::fmt::Write;

use super::analysis::{Analysis, Comparison, Group, Reason};
use super::args::{Args, MAX_POINTS};
use super::claim;
use super::cost_table::{self, Medium};
use super::load::Inputs;
use super::point::{key_value, Key, Point, Series, ALL};
use super::words::{self, cell, noun, nums, Align, Cv, Long, Pct, PointsOf, WIDTH};
use crate::exit;
use crate::fmt::{plural, wrap, Clean, Clip, Dec, Line};
use crate::sys::out::Out;

mod reproduce;

/// Most `--link`s.
pub const MAX_LINKS: usize = 4;
/// Longest `--title`: `Subject: [REGRESSION] ` and it fit 72 columns.
pub const MAX_TITLE: usize = 50;
/// Longest `--link` URL: `Link: ` and it fit 72 columns.
pub const MAX_LINK: usize = 66;

/// What the command line adds to compare's arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draft<'a> {
    /// The commit the regression is claimed for (the first test label's).
    pub introduced: Option<&'a [u8]>,
    /// The control's commit.
    pub parent: Option<&'a [u8]>,
    pub title: Option<&'a [u8]>,
    pub links: [Option<&'a [u8]>; MAX_LINKS],
    pub n_links: usize,
}

/// Longest title `#regzbot title: ` takes within 72 columns.
const MAX_REGZBOT_TITLE: usize = 56;

/// Most characters of a fact the draft states (a kernel release's limit,
/// and the contract hash's length); a longer one is cut and ends `...`.
const MAX_FACT: usize = 64;

/// A paragraph, composed whole and then wrapped.
type Para = Long;

/// The facts the draft states, named on stderr where a point lacks them.
const USED: [Key; 21] = [
    Key::Version,
    Key::Profile,
    Key::Kernel,
    Key::BootId,
    Key::Cpu,
    Key::Clock,
    Key::RingEntries,
    Key::CqEntries,
    Key::Slots,
    Key::Cycles,
    Key::Warmups,
    Key::Rounds,
    Key::Futex,
    Key::Timeout,
    Key::Sha,
    Key::Machine,
    Key::CpuModel,
    Key::Preempt,
    Key::Turbo,
    Key::Smt,
    Key::Governor,
];

struct Mail<'r, 'a> {
    an: &'r Analysis<'r, 'a>,
    a: &'r Args<'a>,
    d: &'r Draft<'a>,
    pts: &'r [Point<'r>],
    gs: &'r [Group<'a>],
    cmps: &'r [Comparison],
    /// Every point, as bits.
    all: u32,
}

/// Runs `report`; `argv` is the command line after the program name, to
/// quote in the draft. Returns the exit code.
pub fn main(a: &Args, d: &Draft, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) -> i32 {
    let mut inputs = match Inputs::map(a) {
        Ok(inputs) => inputs,
        Err(stopped) => return stopped.code,
    };
    let pts = match inputs.read(a) {
        Ok(pts) => pts,
        Err(stopped) => return stopped.code,
    };
    let an = Analysis::of(a, &pts);
    let m = Mail {
        an: &an,
        a,
        d,
        pts: &pts,
        gs: an.groups(),
        cmps: an.cmps(),
        all: (1u32 << a.n) - 1,
    };
    m.write(argv, out);
    out.flush();
    m.missing();
    pts.checked("report", "the draft is NOT EVIDENCE")
}

/// Wraps a composed paragraph to WIDTH (continued at `indent`), a blank
/// line after it unless `alone`.
fn emit(out: &mut Out, p: &Para, indent: usize, alone: bool) {
    wrap(out, p.as_str(), 0, indent, WIDTH);
    if !alone {
        out.bytes(b"\n");
    }
}

impl<'r, 'a> Mail<'r, 'a> {
    fn unit(&self) -> words::Unit {
        words::unit(self.an.icount())
    }

    /// The points for which `p` holds, as bits.
    fn mask(&self, p: &dyn Fn(usize) -> bool) -> u32 {
        (0..self.a.n).fold(0, |m, i| m | (p(i) as u32) << i)
    }

    /// The value of `f` the points that state it agree on, and which
    /// points those are; None when no point states it or they differ.
    fn common(&self, f: Key) -> Option<(&'r [u8], u32)> {
        let v = self.pts.iter().find_map(|x| x.get(f))?;
        let differs = self.pts.iter().any(|x| x.get(f).is_some_and(|w| w != v));
        let says = self.mask(&|i| self.pts[i].get(f).is_some());
        (!differs).then_some((v, says))
    }

    /// The value every point states for `f` alike: what a claim about all
    /// of them may say.
    fn every(&self, f: Key) -> Option<&'r [u8]> {
        self.common(f).filter(|c| c.1 == self.all).map(|c| c.0)
    }

    /// `before`, `f`'s value, `after`, and the points that state it when
    /// not all do; nothing when `f` has no common value.
    fn clause(&self, p: &mut Para, before: &str, f: Key, after: &str) {
        let Some((v, says)) = self.common(f) else {
            return;
        };
        let v = match (f, v) {
            (Key::Clock, b"vdso") => &b"the vDSO"[..],
            (Key::Clock, b"syscall") => b"clock_gettime(2)",
            _ => v,
        };
        let _ = write!(p, "{before}{}{after}", Clip::new(v, MAX_FACT));
        if says != self.all {
            let _ = write!(p, " ({})", PointsOf(says, false));
        }
    }

    fn write(&self, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) {
        let bad = self.mask(&|i| !self.pts[i].valid());
        if bad != 0 {
            let mut p = Para::new();
            let _ = write!(
                p,
                "NOT EVIDENCE: {} failed {} checks (see below); this draft is no regression report.",
                PointsOf(bad, false),
                if bad.count_ones() == 1 { "its" } else { "their" }
            );
            emit(out, &p, 0, false);
        }
        let mut p = Para::new();
        let _ = p.write_str("Subject: [REGRESSION] ");
        self.title(&mut p);
        emit(out, &p, 1, false);
        self.compared(out);
        self.workload(out);
        self.table(out);
        self.results(out);
        self.checks(bad, out);
        self.witness(out);
        self.cost(out);
        if let Some(sha) = self.d.introduced {
            let mut p = Para::new();
            self.title(&mut p);
            let _ = writeln!(
                out,
                "#regzbot introduced: {}\n#regzbot title: {p}\n",
                Clean(sha)
            );
        }
        self.reproduce(argv, out);
    }

    /// What the series every point's rows are of is, as every point
    /// states it alike (`# series:` lines); None when some point does not
    /// state it (older points, the C tools') or they differ.
    fn series(&self) -> Option<&'r Series<'r>> {
        let first = self.pts.first()?.rows_series()?;
        let alike = self.pts.iter().all(|p| p.rows_series() == Some(first));
        alike.then_some(first)
    }

    /// What one figure is per: the series' unit, else a pair.
    fn per(&self) -> &'r [u8] {
        self.series().map_or(b"pair", |s| s.per)
    }

    /// The profile every point's rows are of (pollwake's: the mode read,
    /// `pollwake_idle`, where the banner says `pollwake`), if every point
    /// states it.
    fn profile(&self) -> Option<&'r [u8]> {
        let p = self.pts.first()?.profile();
        let all = self.pts.iter().all(|q| q.profile() == p);
        (all && !p.is_empty()).then_some(p)
    }

    /// The title: --title, else the workload in kernel words, the first
    /// change and the introducing commit (its first 12 digits; left out
    /// when the title would not fit the regzbot line).
    fn title(&self, w: &mut Para) {
        if let Some(t) = self.d.title {
            let _ = write!(w, "{}", Clean(t));
            return;
        }
        let mut t = Line::new();
        if let Some(s) = self.series() {
            let _ = write!(t, "{} ", Clip::new(s.about, MAX_FACT));
        } else if let Some(p) = self.profile() {
            let _ = write!(t, "{} ", Clip::new(p, 24));
        }
        if let Some(c) = self.cmps.first() {
            let _ = write!(t, "{}", Pct(c.change));
        }
        if let Some(sha) = self.d.introduced {
            let at = 4 + sha.len().min(12);
            if t.as_str().chars().count() + at <= MAX_REGZBOT_TITLE {
                let _ = write!(t, " at {}", Clip::head(sha, 12));
            }
        }
        let _ = w.write_str(t.as_str());
    }

    /// What was compared: each point's label, kernel and commit; the
    /// control; boots per label; whether each point was a fresh boot.
    fn compared(&self, out: &mut Out) {
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
    fn workload(&self, out: &mut Out) {
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

    /// Per point: label, rounds, ns/pair, CV, change vs the control.
    fn table(&self, out: &mut Out) {
        let control = self.cmps.first().map_or(f64::NAN, |c| c.control);
        let (icount, unit) = (self.an.icount(), self.unit());
        let mut p = Para::new();
        let what = if icount { "guest instructions" } else { "ns" };
        let _ = write!(p, "Results, {what} per {}", Clean(self.per()));
        if icount {
            let _ = p.write_str(" under QEMU TCG icount, not time");
        }
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
            cell(
                out,
                8,
                Align::Right,
                format_args!("{}", Cv(words::spread(&s.s).1)),
            );
            let pct = crate::stats::pct_change(s.mean, control);
            cell(out, 12, Align::Right, format_args!("{}", Pct(pct)));
            out.bytes(if pt.valid() { b"\n" } else { b"  FAILED\n" });
        }
        out.bytes(b"\n");
    }

    /// Per test label compare's sentence (change, intervals, drop-first,
    /// drift, max CV, verdict), the verdict worded as a claim limited to
    /// what was measured.
    fn results(&self, out: &mut Out) {
        let r = self.an;
        for c in self.cmps {
            let mut p = Para::new();
            claim::sentence(r, c, &mut p);
            if c.reasons != 0 {
                let _ = if c.clear_under_gate() {
                    write!(
                        p,
                        " The change is clear of zero but under the {}% gate: no regression \
                         is claimed at this gate.",
                        Dec(self.a.gate, 3)
                    )
                } else if c.reasons & Reason::NoChange.bit() != 0 {
                    p.write_str(" The values are identical: no change, no regression.")
                } else {
                    p.write_str(" No regression is claimed from these points.")
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
                Clean(self.gs[0].label())
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
            let _ = p.write_str(
                ", with these kernels; other workloads, futex scopes, CPUs and machines \
                 were not measured here.",
            );
            emit(out, &p, 0, false);
        }
    }

    /// Every timing row's verdict, counted from the files.
    fn checks(&self, bad: u32, out: &mut Out) {
        let rows: usize = self.pts.iter().map(|p| p.s[ALL].s.n).sum();
        let mut p = Para::new();
        let ours = self.pts.iter().all(|p| p.format.ours());
        let which = match ours {
            true => "the CQE, result, timeout, overflow, outstanding-request and CPU checks",
            false => "their tool's checks (semantic_pass 1)",
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
    fn witness(&self, out: &mut Out) {
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
            let _ = match same {
                true => p.write_str("The kernel's own counts (the same on every point):"),
                false => write!(
                    p,
                    "The kernel's own counts, point {} ({}):",
                    i + 1,
                    Clean(self.a.label(i))
                ),
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
    fn cost(&self, out: &mut Out) {
        let mut per = Line::new();
        let _ = write!(per, "{}", Clean(self.per()));
        for c in self.cmps {
            cost_table::section(self.an, c, per.as_str(), Medium::Mail, out);
        }
    }

    /// One stderr line naming every fact the draft would state that some
    /// point does not, or on which they disagree (nothing when none): the
    /// keys it uses, and the workload the `# series:` lines state.
    fn missing(&self) {
        let mut p = Para::new();
        let name = |p: &mut Para, what: &str, lacks: u32, differs: bool| {
            if lacks == 0 && !differs {
                return;
            }
            let sep = if p.as_bytes().is_empty() { "" } else { ", " };
            let _ = write!(p, "{sep}{what} (");
            let _ = if differs {
                p.write_str("the points differ)")
            } else if lacks == self.all {
                p.write_str("no point)")
            } else {
                write!(p, "not in {})", PointsOf(lacks, false))
            };
        };
        for f in USED {
            let lacks = self.mask(&|i| self.pts[i].get(f).is_none());
            // A kernel and a boot are the point's own: they differ.
            let own = matches!(f, Key::Kernel | Key::BootId);
            let differs = !own && lacks != self.all && self.common(f).is_none();
            name(&mut p, f.name(), lacks, differs);
        }
        let lacks = self.mask(&|i| self.pts[i].rows_series().is_none());
        let differs = lacks == 0 && self.series().is_none();
        name(&mut p, "series", lacks, differs);
        if !p.as_bytes().is_empty() {
            exit::warn(format_args!(
                "report: left out of the draft, not stated: {p}"
            ));
        }
    }
}
