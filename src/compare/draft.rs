//! `uring-repro report [--gate PCT] [--mode M] [--introduced SHA]
//! [--parent SHA] [--title TEXT] [--link URL]... LABEL=FILE...`: the
//! regression mail, drafted from the points (docs/report.md).
//!
//! The inputs, labels and maths are compare's (`with_points`, `analyse`):
//! the first label is the control, every other label is compared with it.
//! Every sentence of the draft is made of facts the files state (their
//! banners, fact lines, rows, witness and checks lines) or the command line
//! gives; a fact the draft would state but some point does not is left out
//! (for that point) and named once, on one stderr line. A point that failed
//! its checks marks the draft NOT EVIDENCE at the top and makes the exit 1.
//! Plain text, no line over 72 columns.

use core::fmt::{self, Write};

use super::banner::{self, Facts, F, FACTS};
use super::input::{Format, Point, ALL, BOOT_ID, KERNEL};
use super::output::{Pct, REASONS, WIDTH};
use super::{analyse, with_points, Args, Comparison, Group, MAX_POINTS, NO_GROUP};
use crate::exit::{self, fail};
use crate::report::{self, Bytes, Dec, Text};
use crate::sys::out::Out;

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

/// A paragraph, composed whole and then wrapped (16 points' facts fit).
type Para = Text<8192>;

/// The facts the draft states, named on stderr where a point lacks them.
const USED: [F; 21] = [
    F::Version,
    F::Profile,
    F::Kernel,
    F::BootId,
    F::Cpu,
    F::Clock,
    F::RingEntries,
    F::CqEntries,
    F::Slots,
    F::Cycles,
    F::Warmups,
    F::Rounds,
    F::Futex,
    F::Timeout,
    F::Sha,
    F::Machine,
    F::CpuModel,
    F::Preempt,
    F::Turbo,
    F::Smt,
    F::Governor,
];

struct Mail<'r, 'a> {
    a: &'r Args<'a>,
    d: &'r Draft<'a>,
    pts: &'r [Point<'r>],
    fs: &'r [Facts<'r>],
    gs: &'r [Group<'a>],
    cmps: &'r [Comparison],
}

/// Runs `report`; `argv` is the command line after the program name, to
/// quote in the draft. Returns the exit code.
pub fn main<'x>(a: &Args, d: &Draft, argv: impl Iterator<Item = &'x [u8]>, out: &mut Out) -> i32 {
    with_points(a, |pts, texts| {
        let mut fs = [Facts::default(); MAX_POINTS];
        for (i, (f, t)) in fs.iter_mut().zip(texts).enumerate() {
            *f = banner::read(t, pts[i].format);
        }
        let (mut gs, mut cmps) = ([NO_GROUP; MAX_POINTS], [Comparison::default(); MAX_POINTS]);
        let ng = analyse(a, pts, &mut gs, &mut cmps);
        let m = Mail {
            a,
            d,
            pts,
            fs: &fs[..a.n],
            gs: &gs[..ng],
            cmps: &cmps[1.min(ng)..ng],
        };
        m.write(argv, out);
        out.flush();
        m.missing();
        let bad = pts.iter().filter(|p| !p.valid()).count();
        if bad > 0 {
            return fail(
                exit::FAIL,
                format_args!(
                    "report: {bad} point(s) failed their checks: the draft is NOT EVIDENCE"
                ),
            );
        }
        exit::PASS
    })
}

/// Wraps a composed paragraph to WIDTH, a blank line after it.
fn emit(out: &mut Out, p: &Para, indent: usize) {
    report::wrap(out, p.as_str(), 0, indent, WIDTH);
    out.bytes(b"\n");
}

/// `1`, `1 and 3`, `1, 2 and 3`: the points whose bit is set.
struct Nums(u32);

impl fmt::Display for Nums {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.count_ones();
        let mut k = 0;
        for i in 0..32 {
            if self.0 & (1 << i) != 0 {
                k += 1;
                let sep = match k {
                    1 => "",
                    _ if k == n => " and ",
                    _ => ", ",
                };
                write!(f, "{sep}{}", i + 1)?;
            }
        }
        Ok(())
    }
}

/// `point 1` or `points 1 and 3` (`Point`... to start a sentence).
struct PointsOf(u32, bool);

impl fmt::Display for PointsOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = ["s", ""][(self.0.count_ones() == 1) as usize];
        let p = ["p", "P"][self.1 as usize];
        write!(f, "{p}oint{s} {}", Nums(self.0))
    }
}

/// A word as the shell reads it back: as is when plain, else in single
/// quotes (a quote inside as `'\''`).
struct Shell<'b>(&'b [u8]);

impl fmt::Display for Shell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = |&b: &u8| b.is_ascii_alphanumeric() || b"_-./=:,+@%^".contains(&b);
        if !self.0.is_empty() && self.0.iter().all(plain) {
            return Bytes(self.0).fmt(f);
        }
        f.write_str("'")?;
        for part in self.0.split(|&b| b == b'\'').enumerate() {
            if part.0 > 0 {
                f.write_str("'\\''")?;
            }
            Bytes(part.1).fmt(f)?;
        }
        f.write_str("'")
    }
}

/// A command line's words, indented 2, continued with ` \` and indent 4
/// so that every line fits WIDTH.
fn command(out: &mut Out, words: &str) {
    let mut col = 0;
    for word in words.split(' ').filter(|w| !w.is_empty()) {
        if col == 0 {
            out.bytes(b"  ");
            col = 2;
        } else if col + 1 + word.len() + 2 > WIDTH {
            out.bytes(b" \\\n    ");
            col = 4;
        } else {
            out.bytes(b" ");
            col += 1;
        }
        out.bytes(word.as_bytes());
        col += word.len();
    }
    out.bytes(b"\n\n");
}

impl<'r> Mail<'r, '_> {
    /// The one value every point that states `f` gives (None when none
    /// does or they differ).
    fn common(&self, f: F) -> Option<&'r [u8]> {
        let mut vs = self.fs.iter().filter_map(|x| x.get(f));
        let v = vs.next()?;
        vs.all(|w| w == v).then_some(v)
    }

    /// The one value every point states for `f` (None when one does not,
    /// or they differ): what a claim about all of them may say.
    fn every(&self, f: F) -> Option<&'r [u8]> {
        let v = self.common(f)?;
        self.fs.iter().all(|x| x.get(f).is_some()).then_some(v)
    }

    /// Every point, as bits.
    fn all(&self) -> u32 {
        (1u32 << self.a.n) - 1
    }

    /// Writes `f` as the points state it: the value when the points that
    /// state it agree (returns which points they are), else each value with
    /// its points (`x (point 1); y (points 2 and 3)`, returns every point);
    /// None when no point states it.
    fn fact(&self, w: &mut dyn Write, f: F) -> Option<u32> {
        if let Some(v) = self.common(f) {
            let _ = write!(w, "{}", Bytes(v));
            return Some(self.mask(|x| x.get(f).is_some()));
        }
        let mut first = true;
        for (i, x) in self.fs.iter().enumerate() {
            let Some(v) = x.get(f) else { continue };
            // Each distinct value once, at its first point.
            if self.fs[..i].iter().any(|y| y.get(f) == Some(v)) {
                continue;
            }
            let mask = self.mask(|y| y.get(f) == Some(v));
            let sep = ["; ", ""][first as usize];
            let _ = write!(w, "{sep}{} ({})", Bytes(v), PointsOf(mask, false));
            first = false;
        }
        (!first).then_some(self.all())
    }

    /// The points whose facts satisfy `p`, as bits.
    fn mask(&self, p: impl Fn(&Facts) -> bool) -> u32 {
        let mut m = 0;
        for (i, f) in self.fs.iter().enumerate() {
            m |= (p(f) as u32) << i;
        }
        m
    }

    fn failed(&self) -> u32 {
        let mut m = 0;
        for (i, p) in self.pts.iter().enumerate() {
            m |= (!p.valid() as u32) << i;
        }
        m
    }

    /// Every point is uring-repro's (its checks are the ones named).
    fn ours(&self) -> bool {
        self.pts
            .iter()
            .all(|p| matches!(p.format, Format::Stdout | Format::Tsv))
    }

    fn write<'x>(&self, argv: impl Iterator<Item = &'x [u8]>, out: &mut Out) {
        let bad = self.failed();
        if bad != 0 {
            let mut p = Para::new();
            let _ = write!(
                p,
                "NOT EVIDENCE: {} failed {} checks (see below); this draft is no regression report.",
                PointsOf(bad, false),
                ["their", "its"][(bad.count_ones() == 1) as usize]
            );
            emit(out, &p, 0);
        }
        self.subject(out);
        self.compared(out);
        self.workload(out);
        self.table(out);
        for c in self.cmps {
            self.result(c, out);
        }
        self.checks(out);
        self.witness(out);
        self.regzbot(out);
        self.reproduce(argv, out);
    }

    /// The title: --title, else the profile, the first change and the
    /// introducing commit (its first 12 digits).
    fn title(&self, w: &mut dyn Write) {
        if let Some(t) = self.d.title {
            let _ = write!(w, "{}", Bytes(t));
            return;
        }
        if let Some(p) = self.every(F::Profile) {
            let _ = write!(w, "{} ", Bytes(p));
        }
        if let Some(c) = self.cmps.first() {
            let _ = write!(w, "{} ns/pair", Pct(c.change));
        }
        if let Some(sha) = self.d.introduced {
            let _ = write!(w, " at {}", Bytes(&sha[..sha.len().min(12)]));
        }
    }

    fn subject(&self, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("Subject: [REGRESSION] ");
        self.title(&mut p);
        emit(out, &p, 1);
    }

    /// What was compared: each point's label, kernel and commit; the
    /// control; boots per label; whether each point was a fresh boot.
    fn compared(&self, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("Compared, in the order run:");
        for i in 0..self.a.n {
            let label = self.a.label(i);
            let _ = write!(p, " point {}, {}", i + 1, Bytes(label));
            if let Some(k) = self.fs[i].get(F::Kernel).or(self.pts[i].tags[KERNEL]) {
                let _ = write!(p, ", kernel {}", Bytes(k));
            }
            let sha = if label == self.gs[0].label() {
                self.d.parent
            } else if self.gs.get(1).is_some_and(|g| g.label() == label) {
                self.d.introduced
            } else {
                None
            };
            if let Some(s) = sha {
                let _ = write!(p, ", commit {}", Bytes(s));
            }
            let _ = p.write_str([";", "."][(i + 1 == self.a.n) as usize]);
        }
        let ctl = &self.gs[0];
        let _ = write!(
            p,
            " The control is {} ({}); every other label is compared with it.",
            Bytes(ctl.label()),
            match ctl.k {
                1 => "its one point",
                2 => "the midpoint of its 2 points",
                _ => "the mean of its points",
            }
        );
        emit(out, &p, 0);
        let mut p = Para::new();
        let _ = p.write_str("One run per point;");
        let id = |i: usize| self.pts[i].tag(BOOT_ID);
        for (k, g) in self.gs.iter().enumerate() {
            let ids = g.points().iter().filter(|&&i| !id(i).is_empty());
            let boots = ids
                .clone()
                .enumerate()
                .filter(|&(j, &i)| ids.clone().take(j).all(|&h| id(h) != id(i)))
                .count();
            let s = |n: usize| ["s", ""][(n == 1) as usize];
            let (k_, known) = (g.k, ids.count());
            let _ = write!(p, " {}: {k_} point{}", Bytes(g.label()), s(k_));
            let _ = match known {
                0 => p.write_str(", no boot_id"),
                _ if known < k_ => write!(
                    p,
                    " on {boots} boot{} ({} without boot_id)",
                    s(boots),
                    k_ - known
                ),
                _ => write!(p, " on {boots} boot{}", s(boots)),
            };
            let _ = p.write_str([",", "."][(k + 1 == self.gs.len()) as usize]);
        }
        let n = self.a.n;
        let unknown = (0..n).fold(0u32, |m, i| m | ((id(i).is_empty() as u32) << i));
        let mut shared = false;
        for i in 0..n {
            let same = (0..n).fold(0u32, |m, j| m | ((id(j) == id(i)) as u32) << j);
            // Each shared id once, at its first point.
            if !id(i).is_empty() && same.count_ones() > 1 && same.trailing_zeros() as usize == i {
                shared = true;
                let _ = write!(
                    p,
                    " WARNING: {} share boot_id {}: they are not a fresh boot each, and the \
                     between-point interval misses the noise between boots.",
                    PointsOf(same, false),
                    Bytes(&id(i)[..id(i).len().min(8)])
                );
            }
        }
        if unknown != 0 {
            let _ = write!(
                p,
                " {} state{} no boot_id: whether {} a fresh boot is not known.",
                PointsOf(unknown, true),
                ["", "s"][(unknown.count_ones() == 1) as usize],
                ["they were each", "it was"][(unknown.count_ones() == 1) as usize]
            );
        } else if !shared {
            let _ = p.write_str(" Each point was a fresh boot (distinct boot_ids");
            for i in 0..n {
                let _ = write!(p, " {}", Bytes(&id(i)[..id(i).len().min(8)]));
            }
            let _ = p.write_str(").");
        }
        emit(out, &p, 0);
    }

    /// The workload in words, from the banner facts.
    fn workload(&self, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("Workload, as the points state it:");
        let tool = |i: usize| self.pts[i].format.tool();
        for i in 0..self.a.n {
            if (0..i).any(|j| tool(j) == tool(i)) {
                continue;
            }
            let _ = write!(p, "{} {}", [",", ""][(i == 0) as usize], tool(i));
            let mine = (0..self.a.n).fold(0u32, |m, j| m | ((tool(j) == tool(i)) as u32) << j);
            if mine != self.all() {
                let _ = write!(p, " ({})", PointsOf(mine, false));
            }
        }
        // Clauses: (text before, fact, text after); one no point states is
        // left out whole, one only some points state says which.
        let clauses: [(&str, F, &str); 23] = [
            (", version ", F::Version, ""),
            (", profile ", F::Profile, ""),
            (", mode ", F::Mode, ""),
            (", contract sha256 ", F::Sha, ""),
            (", one ring of ", F::RingEntries, " SQ entries"),
            (" and ", F::CqEntries, " CQ entries"),
            (", ", F::Slots, " requests a cycle"),
            (", ", F::Cycles, " cycles a round"),
            (", ", F::Rounds, " measured rounds"),
            (" after ", F::Warmups, " untimed warm-up rounds"),
            (", ", F::Futex, " futexes"),
            (", every io_uring wait bounded at ", F::Timeout, " s"),
            (", the process pinned to CPU ", F::Cpu, ""),
            (" (cpu_choice ", F::CpuChoice, ")"),
            (", a ", F::CpuModel, ""),
            (" (", F::Machine, ")"),
            (", turbo ", F::Turbo, ""),
            (", SMT ", F::Smt, ""),
            (", governor ", F::Governor, ""),
            (", preempt ", F::Preempt, ""),
            (" (from ", F::PreemptSource, ")"),
            (", CLOCK_MONOTONIC_RAW read through ", F::Clock, ""),
            (
                ", a positive control: ",
                F::InjectNs,
                " ns injected per pair",
            ),
        ];
        for (before, f, after) in clauses {
            let mut v = Para::new();
            let skip = match f {
                F::Mode => self.common(f) == Some(b"point"),
                F::PreemptSource => self.common(F::Preempt).is_none(),
                _ => false,
            };
            let Some(m) = self.fact(&mut v, f).filter(|_| !skip) else {
                continue;
            };
            let v = match (f, v.as_bytes()) {
                (F::Clock, b"vdso") => "the vDSO",
                (F::Clock, b"syscall") => "clock_gettime(2)",
                _ => v.as_str(),
            };
            let _ = write!(p, "{before}{v}{after}");
            if m != self.all() {
                let _ = write!(p, " ({})", PointsOf(m, false));
            }
        }
        if self.every(F::Witness) == Some(b"on") {
            let _ = p.write_str(", the kernel witness on");
        }
        let _ = p.write_str(".");
        let none = self.mask(|f| f.v.iter().all(Option::is_none));
        if none != 0 {
            let _ = write!(
                p,
                " {} state{} none of this.",
                PointsOf(none, true),
                ["", "s"][(none.count_ones() == 1) as usize]
            );
        }
        emit(out, &p, 0);
    }

    /// Per point: label, rounds, ns/pair, CV, change vs the control.
    fn table(&self, out: &mut Out) {
        let ctl = &self.gs[0];
        let mut p = Para::new();
        let control = self.cmps.first().map_or(f64::NAN, |c| c.control);
        let _ = write!(
            p,
            "Results, ns per WAIT/WAKE pair (each point's mean over its rounds), against \
             the control {} at {} ns/pair:",
            Bytes(ctl.label()),
            Dec(control, 3)
        );
        emit(out, &p, 0);
        out.bytes(b"   #  label         rounds    ns/pair      CV  vs control\n");
        for (i, pt) in self.pts.iter().enumerate() {
            let s = &pt.s[ALL];
            let mut l = Para::new();
            let pct = crate::stats::pct_change(s.mean, control);
            cell(&mut l, 4, format_args!("{}", i + 1));
            l.write_left(12, format_args!("  {}", Bytes(self.a.label(i))));
            cell(&mut l, 8, format_args!("{}", s.s.n));
            cell(&mut l, 11, format_args!("{}", Dec(s.mean, 3)));
            cell(&mut l, 8, format_args!("{}%", Dec(s.s.cv_pct, 3)));
            cell(&mut l, 12, format_args!("{}", Pct(pct)));
            let _ = l.write_str(["  FAILED", ""][pt.valid() as usize]);
            let _ = writeln!(out, "{}", l.as_str().trim_end());
        }
        out.bytes(b"\n");
    }

    /// One label against the control: change, drop-first, drift, max CV,
    /// the intervals, and the verdict worded as a claim.
    fn result(&self, c: &Comparison, out: &mut Out) {
        let (ctl, test) = (&self.gs[0], &self.gs[c.test]);
        let mut p = Para::new();
        let _ = write!(
            p,
            "{} vs {}: {} ({} {} ns/pair vs {}); drop-first {}; control drift {} (its last point vs its first); max CV {}%.",
            Bytes(test.label()),
            Bytes(ctl.label()),
            Pct(c.change),
            Bytes(test.label()),
            Dec(c.value, 3),
            Dec(c.control, 3),
            Pct(c.second),
            Pct(c.drift),
            Dec(c.max_cv, 3)
        );
        let (wi, b) = (&c.iv.within, &c.iv.between);
        if !wi.low.is_nan() {
            let _ = write!(
                p,
                " 95% interval of the change: within points {} to {} (Welch over rounds, {} vs {} rounds)",
                Pct(wi.low),
                Pct(wi.high),
                c.rounds.1,
                c.rounds.0
            );
            let _ = match b.low.is_nan() {
                true => p.write_str("; between points n/a (one point per label)."),
                false => write!(
                    p,
                    "; between points {} to {} (Welch over point means, {} vs {} points).",
                    Pct(b.low),
                    Pct(b.high),
                    test.k,
                    ctl.k
                ),
            };
        }
        emit(out, &p, 0);
        let mut p = Para::new();
        let gate = Dec(self.a.gate, 3);
        if c.reasons == 0 {
            let _ = write!(
                p,
                "Verdict at the preregistered {gate}% gate: CONFIRMED. The claim is \
                 limited to what was measured: {}'s ns/pair is {} against {}'s",
                Bytes(test.label()),
                Pct(c.change),
                Bytes(ctl.label())
            );
            if let Some(v) = self.every(F::Profile) {
                let _ = write!(p, " in the {} workload", Bytes(v));
            }
            if let Some(v) = self.every(F::Futex) {
                let _ = write!(p, " with {} futexes", Bytes(v));
            }
            if let Some(v) = self.every(F::Cpu) {
                let _ = write!(p, ", on CPU {}", Bytes(v));
            }
            if let Some(v) = self.every(F::CpuModel) {
                let _ = write!(p, " of one {}", Bytes(v));
            }
            let _ = p.write_str(
                ", with these kernels; other workloads, futex scopes, CPUs and machines \
                 were not measured here.",
            );
        } else {
            let _ = write!(
                p,
                "Verdict at the preregistered {gate}% gate: NOT CONFIRMED ("
            );
            let mut sep = "";
            for (i, why) in REASONS[0].iter().enumerate() {
                if c.reasons & (1 << i) != 0 {
                    let _ = write!(p, "{sep}{why}");
                    sep = "; ";
                }
            }
            let _ = p.write_str("): no regression is claimed from these points.");
        }
        emit(out, &p, 0);
    }

    /// Every timing row's verdict, counted from the files.
    fn checks(&self, out: &mut Out) {
        let rows: usize = self.pts.iter().map(|p| p.s[ALL].s.n).sum();
        let mut p = Para::new();
        let bad = self.failed();
        let which = if self.ours() {
            "the CQE, result, timeout, overflow, outstanding-request and CPU checks"
        } else {
            "their tool's checks (semantic_pass 1)"
        };
        if bad == 0 {
            let _ = write!(p, "All {rows} timing rows passed {which}.");
            emit(out, &p, 0);
            return;
        }
        let _ = write!(p, "Not every timing row passed {which}:");
        for (i, pt) in self.pts.iter().enumerate() {
            if pt.valid() {
                continue;
            }
            let _ = write!(
                p,
                " point {} ({}): {} of {} rows failed",
                i + 1,
                Bytes(self.a.label(i)),
                pt.failed_rounds,
                pt.s[ALL].s.n
            );
            if !pt.run_passed {
                let _ = p.write_str(", and the run's own end-of-run checks failed");
            }
            // The checks line's counters that are not 0 (CQE totals aside).
            if let Some(line) = self.fs[i].checks {
                let mut sep = " (";
                for word in line.split(|&b| b == b' ') {
                    let Some(eq) = word.iter().position(|&b| b == b'=') else {
                        continue;
                    };
                    if !word[..eq].ends_with(b"cqes") && &word[eq + 1..] != b"0" {
                        let _ = write!(p, "{sep}{}", Bytes(word));
                        sep = " ";
                    }
                }
                if sep == " " {
                    let _ = p.write_str(")");
                }
            }
            let _ = p.write_str(";");
        }
        let _ = p.write_str(" these points are not evidence.");
        emit(out, &p, 0);
    }

    /// The points' `# witness: ` lines: once when every point has the same,
    /// else per point.
    fn witness(&self, out: &mut Out) {
        let has = self.mask(|f| f.n_witness > 0);
        if has == 0 {
            return;
        }
        let first = self.fs.iter().find(|f| f.n_witness > 0);
        let same = self
            .fs
            .iter()
            .all(|f| Some(f.witness()) == first.map(Facts::witness));
        for (i, f) in self.fs.iter().enumerate() {
            if f.n_witness == 0 || (same && i > 0) {
                continue;
            }
            let mut p = Para::new();
            let _ = match same {
                true => write!(p, "The kernel's own counts (the same on every point):"),
                false => write!(
                    p,
                    "The kernel's own counts, point {} ({}):",
                    i + 1,
                    Bytes(self.a.label(i))
                ),
            };
            emit_line(out, &p);
            for line in f.witness() {
                let mut p = Para::new();
                let _ = write!(p, "{}", Bytes(line));
                out.bytes(b"  ");
                report::wrap(out, p.as_str(), 2, 4, WIDTH);
            }
            out.bytes(b"\n");
        }
        let without = !has & self.all();
        if without != 0 {
            let mut p = Para::new();
            let _ = write!(p, "{} carry no witness lines.", PointsOf(without, true));
            emit(out, &p, 0);
        }
    }

    fn regzbot(&self, out: &mut Out) {
        let Some(sha) = self.d.introduced else {
            return;
        };
        let mut p = Para::new();
        self.title(&mut p);
        let _ = writeln!(
            out,
            "#regzbot introduced: {}\n#regzbot title: {p}\n",
            Bytes(sha)
        );
    }

    /// The run's command line from the banner facts, the tool and its
    /// contract, this command line, the links.
    fn reproduce<'x>(&self, argv: impl Iterator<Item = &'x [u8]>, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("To reproduce, boot each kernel and run there");
        let mut v = Para::new();
        if self.fact(&mut v, F::Version).is_some() {
            let _ = write!(p, " (uring-repro {v}");
            let mut h = Para::new();
            if self.fact(&mut h, F::Sha).is_some() {
                let _ = write!(p, ", contract sha256 {h}");
            }
            let _ = p.write_str(")");
        }
        let _ = p.write_str(":");
        emit_line(out, &p);
        out.bytes(b"\n");
        let mut c = Para::new();
        let _ = c.write_str("uring-repro run");
        if let Some(v) = self.common(F::Profile) {
            // A profile's short name is its formal name up to the first `_`.
            let short = v.split(|&b| b == b'_').next().unwrap_or(v);
            let _ = write!(c, " --profile {}", Shell(short));
        }
        for (f, opt) in [
            (F::Cpu, "--cpu"),
            (F::Slots, "--slots"),
            (F::Cycles, "--cycles"),
            (F::Rounds, "--rounds"),
            (F::Warmups, "--warmups"),
            (F::Timeout, "--timeout"),
            (F::InjectNs, "--inject-ns"),
        ] {
            if let Some(v) = self.common(f) {
                let _ = write!(c, " {opt} {}", Shell(v));
            }
        }
        if self.common(F::Futex) == Some(b"shared") {
            let _ = c.write_str(" --shared");
        }
        if self.common(F::Witness) == Some(b"on") {
            let _ = c.write_str(" --witness");
        }
        let _ = c.write_str(" > point.txt");
        command(out, c.as_str());
        let _ = writeln!(out, "This draft was made with:\n");
        let mut c = Para::new();
        let _ = c.write_str("uring-repro");
        for arg in argv {
            let _ = write!(c, " {}", Shell(arg));
        }
        command(out, c.as_str());
        for l in self.d.links[..self.d.n_links].iter().flatten() {
            let _ = writeln!(out, "Link: {}", Bytes(l));
        }
    }

    /// One stderr line naming every fact the draft would state that some
    /// point does not (nothing when all do).
    fn missing(&self) {
        let mut p = Para::new();
        let all = self.all();
        for f in USED {
            let lacks = self.mask(|x| x.get(f).is_none());
            if lacks == 0 {
                continue;
            }
            let sep = [", ", ""][p.as_bytes().is_empty() as usize];
            let _ = match lacks == all {
                true => write!(p, "{sep}{} (no point)", FACTS[f as usize].0),
                false => write!(
                    p,
                    "{sep}{} (not in {})",
                    FACTS[f as usize].0,
                    PointsOf(lacks, false)
                ),
            };
        }
        if !p.as_bytes().is_empty() {
            fail(
                0,
                format_args!("report: left out of the draft, not stated: {p}"),
            );
        }
    }
}

/// `args` right-aligned in a column of `width` (wider text as is).
fn cell(l: &mut Para, width: usize, args: fmt::Arguments<'_>) {
    let mut t = Text::<64>::new();
    let _ = t.write_fmt(args);
    let _ = write!(l, "{:>width$}", t.as_str());
}

trait Left {
    /// `args` left-aligned, padded to `width` after a 2-column gap.
    fn write_left(&mut self, width: usize, args: fmt::Arguments<'_>);
}

impl Left for Para {
    fn write_left(&mut self, width: usize, args: fmt::Arguments<'_>) {
        let mut t = Text::<64>::new();
        let _ = t.write_fmt(args);
        let _ = write!(self, "{:<w$}", t.as_str(), w = width + 2);
    }
}

/// A paragraph that stands alone on its lines (no blank line after it).
fn emit_line(out: &mut Out, p: &Para) {
    report::wrap(out, p.as_str(), 0, 0, WIDTH);
}
