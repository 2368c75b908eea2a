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

use super::banner::{Facts, F, FACTS};
use super::input::{Format, Point, ALL, BOOT_ID, KERNEL, PROFILE};
use super::output::{self, cell, nums, Cv, Pct, PointsOf, LEFT, RIGHT, WIDTH};
use super::{analyse, with_points, Args, Comparison, Group, Reason, MAX_POINTS, NO_GROUP};
use crate::exit::{self, fail};
use crate::report::{self, Bytes, Clean, Clip, Dec, Text};
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

/// Each workload in kernel words (a subject a maintainer recognises), and
/// what one of its figures is per, by the profile's formal name.
const WORKLOADS: [(&str, &str, &str); 11] = [
    ("s0_wait_wake", "io_uring futex WAIT/WAKE", "WAIT/WAKE pair"),
    (
        "c0_wait_cancel",
        "io_uring futex WAIT/cancel",
        "WAIT/ASYNC_CANCEL pair",
    ),
    (
        "v0_waitv_wake",
        "io_uring FUTEX_WAITV/WAKE",
        "WAITV/WAKE pair",
    ),
    ("z0_zero_wake", "io_uring FUTEX_WAKE, no waiter", "WAKE"),
    ("e0_mismatch", "io_uring FUTEX_WAIT -EAGAIN", "WAIT"),
    ("n0_nop", "io_uring NOP", "NOP"),
    (
        "l0_lifecycle",
        "io_uring ring setup to exit",
        "ring, setup to close",
    ),
    (
        "pollwake_none",
        "io_uring MSG_RING, no poller",
        "MSG_RING completion",
    ),
    (
        "pollwake_idle",
        "io_uring poll wakeup, idle epoll",
        "MSG_RING completion",
    ),
    (
        "pollwake_waiter",
        "io_uring poll wakeup, epoll waiter",
        "MSG_RING completion",
    ),
    (
        "pollwake_none_aa",
        "io_uring MSG_RING, A/A control",
        "MSG_RING completion",
    ),
];

/// Longest title `#regzbot title: ` takes within 72 columns.
const MAX_REGZBOT_TITLE: usize = 56;

/// Most characters of a fact the draft states (a kernel release's limit,
/// and the contract hash's length); a longer one is cut and ends `...`.
const MAX_FACT: usize = 64;

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
    /// Every point, as bits.
    all: u32,
}

/// Runs `report`; `argv` is the command line after the program name, to
/// quote in the draft. Returns the exit code.
pub fn main(a: &Args, d: &Draft, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) -> i32 {
    with_points(a, &mut |pts, fs| {
        let (mut gs, mut cmps) = ([NO_GROUP; MAX_POINTS], [Comparison::default(); MAX_POINTS]);
        let ng = analyse(a, pts, &mut gs, &mut cmps);
        let m = Mail {
            a,
            d,
            pts,
            fs,
            gs: &gs[..ng],
            cmps: &cmps[1.min(ng)..ng],
            all: (1u32 << a.n) - 1,
        };
        m.write(&mut *argv, out);
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

/// A word as the shell reads it back: as is when plain; in `$'...'` with
/// `Clean`'s escapes (bash's) when it holds what `Clean` escapes; else in
/// single quotes (a quote inside as `'\''`).
struct Shell<'b>(&'b [u8]);

impl fmt::Display for Shell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = |&b: &u8| b.is_ascii_alphanumeric() || b"_-./=:,+@%^".contains(&b);
        if !self.0.is_empty() && self.0.iter().all(plain) {
            return Bytes(self.0).fmt(f);
        }
        if report::needs_escape(self.0) {
            f.write_str("$'")?;
            report::escape(f, self.0, true)?;
            return f.write_str("'");
        }
        f.write_str("'")?;
        for (i, part) in self.0.split(|&b| b == b'\'').enumerate() {
            if i > 0 {
                f.write_str("'\\''")?;
            }
            Bytes(part).fmt(f)?;
        }
        f.write_str("'")
    }
}

/// Wraps a composed paragraph to WIDTH (continued at `indent`), a blank
/// line after it unless `alone`.
fn emit(out: &mut Out, p: &Para, indent: usize, alone: bool) {
    report::wrap(out, p.as_str(), 0, indent, WIDTH);
    if !alone {
        out.bytes(b"\n");
    }
}

/// A command line as the draft shows it: words indented 2, continued with
/// ` \` and indent 4, so that every line fits WIDTH. A word too long for a
/// line is split with the shell's own line continuation (a backslash at the
/// end of the line, the word going on at column 0; a quote is closed before
/// it and opened again after), so the lines pasted into a shell give back
/// the very words.
#[derive(Default)]
struct CommandLine {
    col: usize,
}

impl CommandLine {
    /// Each word of `words`, a NUL after each (no argument holds one: a
    /// quoted word keeps its blanks).
    fn words(&mut self, out: &mut Out, words: &Para) {
        for word in words.as_str().split('\0').filter(|w| !w.is_empty()) {
            self.word(out, word);
        }
    }

    /// One word, as `Shell` wrote it.
    fn word(&mut self, out: &mut Out, word: &str) {
        let (sep, at): (&str, usize) = match self.col {
            0 => ("  ", 2),
            c if c + 1 + word.chars().count() + 2 > WIDTH => (" \\\n    ", 4),
            c => (" ", c + 1),
        };
        out.bytes(sep.as_bytes());
        self.col = at;
        // Where the word is: outside quotes, in '...' or in $'...'.
        let (mut quote, mut rest) = ("", word);
        while let Some(c) = rest.chars().next() {
            // The unit not to split: an escape is whole, `$'` too.
            let len = match (quote, c) {
                ("", '$') if rest.starts_with("$'") => 2,
                ("", '\\') => 2,
                ("$'", '\\') => match rest.as_bytes().get(1) {
                    Some(b'x') => 4,
                    Some(b'u') => 6,
                    _ => 2,
                },
                _ => c.len_utf8(),
            };
            // An escape is ASCII: `len` is always a boundary (else one char).
            let (unit, after) = rest
                .split_at_checked(len)
                .unwrap_or_else(|| rest.split_at_checked(c.len_utf8()).unwrap_or((rest, "")));
            // Room for the unit and a closing `'\` after it.
            if self.col + unit.chars().count() + 2 > WIDTH {
                let close = if quote.is_empty() { "\\\n" } else { "'\\\n" };
                out.bytes(close.as_bytes());
                out.bytes(quote.as_bytes());
                self.col = quote.len();
            }
            out.bytes(unit.as_bytes());
            self.col += unit.chars().count();
            quote = match (quote, unit) {
                ("", "'") => "'",
                ("", "$'") => "$'",
                (_, "'") => "",
                (q, _) => q,
            };
            rest = after;
        }
    }

    fn end(self, out: &mut Out) {
        out.bytes(b"\n");
    }
}

/// `s` unless there is one.
fn plural(n: u32) -> &'static str {
    ["s", ""][(n == 1) as usize]
}

impl<'r, 'a> Mail<'r, 'a> {
    /// compare's view of the same points, for what it formats.
    fn report(&self) -> output::Report<'_, 'a> {
        output::Report {
            args: self.a,
            points: self.pts,
            groups: self.gs,
            cmps: self.cmps,
        }
    }

    /// The points were timed on QEMU TCG's instruction clock.
    fn icount(&self) -> bool {
        self.pts.first().is_some_and(Point::icount)
    }

    fn unit(&self) -> output::Unit {
        self.report().unit()
    }

    /// The points for which `p` holds, as bits.
    fn mask(&self, p: &dyn Fn(usize) -> bool) -> u32 {
        (0..self.a.n).fold(0, |m, i| m | (p(i) as u32) << i)
    }

    /// The value of `f` the points that state it agree on, and which
    /// points those are; None when no point states it or they differ.
    fn common(&self, f: F) -> Option<(&'r [u8], u32)> {
        let v = self.fs.iter().find_map(|x| x.get(f))?;
        let differs = self.fs.iter().any(|x| x.get(f).is_some_and(|w| w != v));
        let says = self.mask(&|i| self.fs[i].get(f).is_some());
        (!differs).then_some((v, says))
    }

    /// The value every point states for `f` alike: what a claim about all
    /// of them may say.
    fn every(&self, f: F) -> Option<&'r [u8]> {
        self.common(f).filter(|c| c.1 == self.all).map(|c| c.0)
    }

    /// `before`, `f`'s value, `after`, and the points that state it when
    /// not all do; nothing when `f` has no common value.
    fn clause(&self, p: &mut Para, before: &str, f: F, after: &str) {
        let Some((v, says)) = self.common(f) else {
            return;
        };
        let v = match (f, v) {
            (F::Clock, b"vdso") => &b"the vDSO"[..],
            (F::Clock, b"syscall") => b"clock_gettime(2)",
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
                ["their", "its"][(bad.count_ones() == 1) as usize]
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

    /// The workload in kernel words and what a figure is per (`pair` when
    /// the points do not name a workload this draft knows).
    fn workload_words(&self) -> (Option<&'static str>, &'static str) {
        let known = self.profile().and_then(|p| {
            WORKLOADS
                .iter()
                .find(|w| w.0.as_bytes() == p)
                .map(|w| (w.1, w.2))
        });
        known.map_or((None, "pair"), |(name, per)| (Some(name), per))
    }

    /// The profile every point's rows are of (pollwake's: the mode read,
    /// `pollwake_idle`, where the banner says `pollwake`), if every point
    /// states it.
    fn profile(&self) -> Option<&'r [u8]> {
        let p = self.pts.first()?.tag(PROFILE);
        let all = self.pts.iter().all(|q| q.tag(PROFILE) == p);
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
        let mut t = Text::<128>::new();
        match (self.workload_words().0, self.profile()) {
            (Some(name), _) => {
                let _ = write!(t, "{name} ");
            }
            (None, Some(p)) => {
                let _ = write!(t, "{} ", Clip::new(p, 24));
            }
            (None, None) => {}
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
            let kernel = self.pts[i].tag(KERNEL);
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
            let _ = p.write_str([";", "."][(i + 1 == n) as usize]);
        }
        // Points of one boot count once: the control's value is over boots.
        let boots = self.cmps.first().map_or(ctl.k, |c| c.boots.0);
        let what = ["point", "boot"][(boots != ctl.k) as usize];
        let _ = write!(
            p,
            " The control is {} ({}{what}{}); every other label is compared with it.",
            Clean(ctl.label()),
            ["the mean of its ", "its one ", "the midpoint of its 2 "][boots.min(3) % 3],
            ["s", ""][(boots == 1) as usize]
        );
        emit(out, &p, 0, false);
        // Boots: the points sharing point i's boot id, as bits.
        let id = |i: usize| self.pts[i].tag(BOOT_ID);
        let same = |i: usize| self.mask(&|j| !id(i).is_empty() && id(j) == id(i));
        let mut p = Para::new();
        let _ = p.write_str("One run per point;");
        for (k, g) in self.gs.iter().enumerate() {
            let members = self.mask(&|i| g.points().contains(&i));
            let known = self.mask(&|i| members & 1 << i != 0 && !id(i).is_empty());
            // A boot is counted at its first point in the group.
            let boots =
                self.mask(&|i| known & 1 << i != 0 && same(i) & members & ((1 << i) - 1) == 0);
            let (kn, b) = (known.count_ones(), boots.count_ones());
            let _ = write!(
                p,
                " {}: {} point{}",
                Clean(g.label()),
                g.k,
                plural(g.k as u32)
            );
            let _ = match kn {
                0 => p.write_str(", no boot_id"),
                _ => write!(p, " on {b} boot{}", plural(b)),
            };
            if kn != 0 && kn < g.k as u32 {
                let _ = write!(p, " ({} without boot_id)", g.k as u32 - kn);
            }
            let _ = p.write_str([",", "."][(k + 1 == self.gs.len()) as usize]);
        }
        let mut shared = false;
        for i in 0..n {
            let s = same(i);
            // Each shared boot id once, at its first point.
            if s.count_ones() > 1 && s.trailing_zeros() as usize == i {
                shared = true;
                let _ = write!(
                    p,
                    " WARNING: {} share boot_id {}: they are not a fresh boot each, and \
                     count once in the between-point interval.",
                    PointsOf(s, false),
                    Clip::head(id(i), 8)
                );
            }
        }
        let unknown = self.mask(&|i| id(i).is_empty());
        if unknown != 0 {
            let one = (unknown.count_ones() == 1) as usize;
            let _ = write!(
                p,
                " {} state{} no boot_id: whether {} a fresh boot is not known.",
                PointsOf(unknown, true),
                ["", "s"][one],
                ["they were each", "it was"][one]
            );
        } else if !shared {
            let _ = p.write_str(" Each point was a fresh boot (distinct boot_ids");
            for i in 0..n {
                let _ = write!(p, " {}", Clip::head(id(i), 8));
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
            let _ = write!(p, "{} {tool}", [",", ""][(i == 0) as usize]);
            if mine != self.all {
                let _ = write!(p, " ({})", PointsOf(mine, false));
            }
        }
        // (text before, fact, text after): one no point states (or the
        // points disagree on) is left out whole.
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
            let skip = match f {
                F::Mode => self.common(f).is_some_and(|c| c.0 == b"point"),
                F::PreemptSource => self.common(F::Preempt).is_none(),
                _ => false,
            };
            if !skip {
                self.clause(&mut p, before, f, after);
            }
        }
        if self.every(F::Witness) == Some(b"on") {
            let _ = p.write_str(", the kernel witness on");
        }
        let _ = p.write_str(".");
        if self.icount() {
            let _ = write!(p, " The points were {}.", output::ICOUNT);
        }
        let none = self.mask(&|i| self.fs[i].v.iter().all(Option::is_none));
        if none != 0 {
            let one = (none.count_ones() == 1) as usize;
            let _ = write!(
                p,
                " {} state{} none of this.",
                PointsOf(none, true),
                ["", "s"][one]
            );
        }
        emit(out, &p, 0, false);
    }

    /// Per point: label, rounds, ns/pair, CV, change vs the control.
    fn table(&self, out: &mut Out) {
        let control = self.cmps.first().map_or(f64::NAN, |c| c.control);
        let (icount, unit, per) = (self.icount(), self.unit(), self.workload_words().1);
        let mut p = Para::new();
        let what = ["ns", "guest instructions"][icount as usize];
        let _ = write!(p, "Results, {what} per {per}");
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
            cell(out, 12, LEFT, format_args!("{}", Clean(self.a.label(i))));
            nums(out, 8, &[s.s.n as f64], 0);
            nums(out, 11, &[s.mean], 3);
            cell(
                out,
                8,
                RIGHT,
                format_args!("{}", Cv(output::spread(&s.s).1)),
            );
            let pct = crate::stats::pct_change(s.mean, control);
            cell(out, 12, RIGHT, format_args!("{}", Pct(pct)));
            out.bytes([&b"  FAILED\n"[..], b"\n"][pt.valid() as usize]);
        }
        out.bytes(b"\n");
    }

    /// Per test label compare's sentence (change, intervals, drop-first,
    /// drift, max CV, verdict), the verdict worded as a claim limited to
    /// what was measured.
    fn results(&self, out: &mut Out) {
        let r = self.report();
        for c in self.cmps {
            let mut p = Para::new();
            output::sentence(&r, c, &mut p);
            if c.reasons != 0 {
                let _ = if output::clear_under_gate(c) {
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
                (F::Profile, " in the ", " workload"),
                (F::Futex, " with ", " futexes"),
                (F::Cpu, ", on CPU ", ""),
                (F::CpuModel, " of one ", ""),
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
        let ours = self
            .pts
            .iter()
            .all(|p| matches!(p.format, Format::Stdout | Format::Tsv));
        let which = [
            "their tool's checks (semantic_pass 1)",
            "the CQE, result, timeout, overflow, outstanding-request and CPU checks",
        ][ours as usize];
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
            for word in self.fs[i].checks.unwrap_or(b"").split(|&b| b == b' ') {
                let Some(eq) = word.iter().position(|&b| b == b'=') else {
                    continue;
                };
                if !word[..eq].ends_with(b"cqes") && &word[eq + 1..] != b"0" {
                    let _ = write!(p, "{sep}{}", Clean(word));
                    sep = " ";
                }
            }
            let _ = p.write_str([");", ";"][(sep == " (") as usize]);
        }
        let _ = p.write_str(" these points are not evidence.");
        emit(out, &p, 0, false);
    }

    /// The points' `# witness: ` lines: once when every point has the same,
    /// else per point.
    fn witness(&self, out: &mut Out) {
        let has = self.mask(&|i| self.fs[i].n_witness > 0);
        let same = self.fs.iter().all(|f| f.witness() == self.fs[0].witness());
        for (i, f) in self.fs.iter().enumerate() {
            if f.n_witness == 0 || (same && i > 0) {
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
            for line in f.witness() {
                let mut p = Para::new();
                let _ = write!(p, "{}", Clean(line));
                out.bytes(b"  ");
                report::wrap(out, p.as_str(), 2, 4, WIDTH);
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

    /// The run's command line from the banner facts, the tool and its
    /// contract, this command line, the links.
    fn reproduce(&self, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("To reproduce, boot each kernel");
        if self.icount() {
            let _ = p.write_str(" under QEMU TCG with -icount shift=0 (as the points were)");
        }
        let _ = p.write_str(" and run there");
        if let Some((v, _)) = self.common(F::Version) {
            let _ = write!(p, " (uring-repro {}", Clean(v));
            if let Some((h, _)) = self.common(F::Sha) {
                let _ = write!(p, ", contract sha256 {}", Clean(h));
            }
            let _ = p.write_str(")");
        }
        let _ = p.write_str(":");
        emit(out, &p, 0, false);
        let mut c = Para::new();
        let _ = c.write_str("uring-repro\0run\0");
        // The run's options: only what every point states alike (a value
        // some points state is not the others' command).
        if let Some(v) = self.every(F::Profile) {
            // A profile's short name is its formal name up to the first `_`.
            let short = v.split(|&b| b == b'_').next().unwrap_or(v);
            let _ = write!(c, "--profile\0{}\0", Shell(short));
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
            if let Some(v) = self.every(f) {
                let _ = write!(c, "{opt}\0{}\0", Shell(v));
            }
        }
        for (f, on, opt) in [
            (F::Futex, &b"shared"[..], "--shared\0"),
            (F::Witness, b"on", "--witness\0"),
        ] {
            if self.every(f) == Some(on) {
                let _ = c.write_str(opt);
            }
        }
        let _ = c.write_str(">\0point.txt");
        let mut line = CommandLine::default();
        line.words(out, &c);
        line.end(out);
        out.bytes(b"\nThis draft was made with:\n\n");
        let mut line = CommandLine::default();
        line.word(out, "uring-repro");
        for arg in argv {
            // Room for a whole path, every byte of it escaped.
            let mut w = Text::<16400>::new();
            let _ = write!(w, "{}", Shell(arg));
            line.word(out, w.as_str());
        }
        line.end(out);
        if self.d.n_links > 0 {
            out.bytes(b"\n");
        }
        for l in self.d.links[..self.d.n_links].iter().flatten() {
            let _ = writeln!(out, "Link: {}", Clean(l));
        }
    }

    /// One stderr line naming every fact the draft would state that some
    /// point does not, or on which they disagree (nothing when none).
    fn missing(&self) {
        let mut p = Para::new();
        for f in USED {
            let lacks = self.mask(&|i| self.fs[i].get(f).is_none());
            // A kernel and a boot are the point's own: they differ.
            let own = matches!(f, F::Kernel | F::BootId);
            let differs = !own && lacks != self.all && self.common(f).is_none();
            if lacks == 0 && !differs {
                continue;
            }
            let sep = [", ", ""][p.as_bytes().is_empty() as usize];
            let _ = write!(p, "{sep}{} (", FACTS[f as usize].0);
            let _ = match (differs, lacks == self.all) {
                (true, _) => p.write_str("the points differ)"),
                (_, true) => p.write_str("no point)"),
                _ => write!(p, "not in {})", PointsOf(lacks, false)),
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
