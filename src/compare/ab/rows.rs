//! ab's rows: the suites read (their `suite.txt`), each item and series of
//! the first suite judged, second label against the first, with compare's
//! own reader, analysis and gate; its compare text and, when it moved, its
//! draft written on the way, and the table of where its cost went kept
//! for ab.txt (`sections`).

use core::fmt::{self, Write};

use super::super::analysis::{Analysis, Comparison, Reason};
use super::super::args::{Args, Gate, MAX_POINTS};
use super::super::cost::Costs;
use super::super::cost_table::{self, Medium};
use super::super::load::Inputs;
use super::super::mail::{self, Draft};
use super::super::point::{series_lines, Series};
use super::super::text;
use super::super::words::Long;
use super::{File, Spec};
use crate::exit::{self, Exit};
use crate::render::{Clean, Text};
use crate::suite::MAX_ITEMS;
use crate::sys::out::Out;
use crate::sys::{self, CPath};

/// Most rows: every item, and a row per mode of a table of several.
pub const MAX_ROWS: usize = 4 * MAX_ITEMS;

/// The longest item name, and series name, kept.
const NAME: usize = 32;

/// How an item ended in one boot, as its suite's line says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ended {
    Pass,
    Skip,
    Fail,
    Interrupted,
    NotRun,
    /// The boot's suite has no line for it.
    #[default]
    None,
}

impl Ended {
    pub fn word(self) -> &'static str {
        match self {
            Ended::Pass => "pass",
            Ended::Skip => "skip",
            Ended::Fail => "fail",
            Ended::Interrupted => "interrupted",
            Ended::NotRun => "not-run",
            Ended::None => "none",
        }
    }

    /// `exit=CODE WORD[: cause]` or `not run`, after the item's name.
    fn of(rest: &[u8]) -> Ended {
        if rest == b"not run" {
            return Ended::NotRun;
        }
        let word = rest.split(|&b| b == b' ').nth(1).unwrap_or(b"");
        match word.strip_suffix(b":").unwrap_or(word) {
            b"pass" => Ended::Pass,
            b"skip" => Ended::Skip,
            b"interrupted" => Ended::Interrupted,
            _ => Ended::Fail,
        }
    }
}

/// A row's verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verdict {
    Moved,
    #[default]
    Unmoved,
    /// Figures, and no verdict: too few rounds, rounds that cannot be
    /// paired, a point that failed its checks.
    Unjudged,
    /// Its points could not be read (compare's error is on stderr).
    Error,
    /// The item ran on one side and not on the other.
    OutcomeChanged,
    /// The base's boots ended it differently.
    BaseUnsteady,
    Skipped,
    Failed,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Moved => "moved",
            Verdict::Unmoved => "unmoved",
            Verdict::Unjudged => "unjudged",
            Verdict::Error => "error",
            Verdict::OutcomeChanged => "outcome-changed",
            Verdict::BaseUnsteady => "base-unsteady",
            Verdict::Skipped => "skipped",
            Verdict::Failed => "failed",
        }
    }

    /// A verdict the figures gave (moved or not, or that they could not).
    pub fn judged(self) -> bool {
        matches!(self, Verdict::Moved | Verdict::Unmoved)
    }
}

/// A row's figures, per pair (`Comparison`'s, test against control), and
/// the locked instructions of each side where every point counted them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figures {
    pub c: Comparison,
    pub locked: [Option<f64>; 2],
}

/// One row of the table.
#[derive(Clone, Copy, Default)]
pub struct Row {
    item: Text<NAME>,
    mode: Text<NAME>,
    /// What one figure is per (its series line's `per=`), and the workload
    /// in kernel words (`about=`); empty when no point states them.
    pub unit: Text<64>,
    pub about: Text<96>,
    pub verdict: Verdict,
    pub figures: Option<Figures>,
    /// How the item ended on each boot, in order.
    pub ended: [Ended; MAX_POINTS],
    /// Its compare could not read its points: the exit code.
    pub error: i32,
}

impl Row {
    /// `ITEM` or `ITEM/MODE`.
    pub fn name(&self) -> RowName<'_> {
        RowName(self)
    }

    /// Why it did not move: `-` for a row that moved, else `no_change`,
    /// `interval_includes_zero`, `under_gate`, what kept it from a verdict,
    /// or (no figures) how the item ended on each boot.
    pub fn why(&self, spec: &Spec, w: &mut dyn Write) -> fmt::Result {
        if self.verdict == Verdict::Error {
            return write!(w, "compare exit {}: its points cannot be read", self.error);
        }
        let Some(f) = &self.figures else {
            return self.endings(spec, w);
        };
        let c = &f.c;
        w.write_str(if self.verdict == Verdict::Moved {
            "-"
        } else if c.has(Reason::FewRounds) {
            "few_rounds"
        } else if c.has(Reason::Unpaired) {
            "unpaired"
        } else if c.has(Reason::FailedChecks) {
            "failed_checks"
        } else if c.has(Reason::NoChange) {
            "no_change"
        } else if c.has(Reason::SpansZero) {
            "interval_includes_zero"
        } else {
            "under_gate"
        })
    }

    /// `base pass, head skip, base again pass`: each boot's label (`again`
    /// after one given before) and how the item ended there.
    fn endings(&self, spec: &Spec, w: &mut dyn Write) -> fmt::Result {
        for i in 0..spec.n {
            let sep = if i == 0 { "" } else { ", " };
            let again = if spec.labels[..i].contains(&spec.labels[i]) {
                " again"
            } else {
                ""
            };
            let word = self.ended[i].word();
            write!(w, "{sep}{}{again} {word}", Clean(spec.labels[i]))?;
        }
        Ok(())
    }

    /// Its name as a file's (`s0:shared` s0-shared, `pollwake/idle`
    /// pollwake-idle): no tool reads `s0:shared.txt` as a host name.
    pub fn file(&self) -> FileName<'_> {
        FileName(self)
    }
}

/// `ITEM` or `ITEM/MODE`.
pub struct RowName<'r>(&'r Row);

impl fmt::Display for RowName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Clean(self.0.item.as_bytes()))?;
        if !self.0.mode.as_bytes().is_empty() {
            write!(f, "/{}", Clean(self.0.mode.as_bytes()))?;
        }
        Ok(())
    }
}

/// A row's name with `:` and `/` as `-`.
pub struct FileName<'r>(&'r Row);

impl fmt::Display for FileName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut name = Text::<{ 2 * NAME + 1 }>::new();
        let _ = write!(name, "{}", self.0.name());
        for &b in name.as_bytes() {
            f.write_char(if b == b':' || b == b'/' {
                '-'
            } else {
                b as char
            })?;
        }
        Ok(())
    }
}

/// An item's point in a suite's directory: `DIR/ITEM.txt`, `:` as `-`.
fn point_path(dir: &[u8], item: &[u8]) -> Result<CPath, Exit> {
    let mut name = Text::<NAME>::new();
    for &b in item {
        let _ = name.write_char(if b == b':' { '-' } else { b as char });
    }
    CPath::concat(&[dir, b"/", name.as_bytes(), b".txt"])
        .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {}: {bad}", Clean(dir))))
}

/// A suite's lines, read once: each item's name and how it ended.
struct Suite {
    text: [u8; 16384],
    len: usize,
}

impl Suite {
    /// DIR/suite.txt, or why not (a usage error: no suite there).
    fn read(dir: &[u8]) -> Result<Suite, Exit> {
        let mut s = Suite {
            text: [0; 16384],
            len: 0,
        };
        let path = CPath::concat(&[dir, b"/suite.txt"])
            .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {}: {bad}", Clean(dir))))?;
        let cannot = |e: &dyn fmt::Display| {
            Exit::new(
                exit::USAGE,
                format_args!("ab: {}/suite.txt: cannot read: {e}", Clean(dir)),
            )
        };
        let room = s.text.len();
        match sys::read_file(&path, &mut s.text) {
            Ok(t) if t.len() < room => s.len = t.len(),
            Ok(_) => return Err(cannot(&"longer than a suite's lines")),
            Err(e) => return Err(cannot(&e)),
        }
        if s.items().next().is_none() {
            return Err(cannot(&"no line per item (# suite: K/N ITEM ...)"));
        }
        Ok(s)
    }

    /// Each item's name, and the rest of its line (`exit=0 pass`).
    fn items(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.text[..self.len]
            .split(|&b| b == b'\n')
            .filter_map(|l| {
                let rest = l.strip_prefix(b"# suite: ")?;
                let (place, rest) = split(rest);
                let (k, n) = split_at(place, b'/');
                let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
                if !digits(k) || !digits(n) {
                    return None;
                }
                let (item, ended) = split(rest);
                (!item.is_empty() && !ended.is_empty()).then_some((item, ended))
            })
    }

    /// How `item` ended in this boot.
    fn ended(&self, item: &[u8]) -> Ended {
        self.items()
            .find(|&(i, _)| i == item)
            .map_or(Ended::None, |(_, rest)| Ended::of(rest))
    }
}

/// The text before the first space, and after it.
fn split(s: &[u8]) -> (&[u8], &[u8]) {
    split_at(s, b' ')
}

fn split_at(s: &[u8], at: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == at) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, b""),
    }
}

/// Every row of the table, judged, into `rows`; how many. Compare's text of
/// each row goes to DIR/compare, the draft of each that moved to DIR/mail,
/// the table of where its cost went to `sections`.
pub fn judge_all(
    spec: &Spec,
    dir: &[u8],
    rows: &mut [Row; MAX_ROWS],
    sections: &mut Out,
) -> Result<(usize, usize), Exit> {
    let mut n = 0;
    let mut drafts = 0;
    let first = Suite::read(spec.dirs[0])?;
    // Each boot's suite, read once; the first's items are the rows'.
    let mut ended = [[Ended::None; MAX_POINTS]; MAX_ITEMS];
    let mut items = [Text::<NAME>::new(); MAX_ITEMS];
    let mut k = 0;
    for ((item, _), kept) in first.items().zip(items.iter_mut()) {
        kept.push_with(&mut |room| copy(room, item));
        k += 1;
    }
    for (b, suite) in spec.dirs[..spec.n].iter().enumerate() {
        let suite = Suite::read(suite)?;
        for (e, item) in ended.iter_mut().zip(&items[..k]) {
            e[b] = suite.ended(item.as_bytes());
        }
    }
    let mut log = File::create(dir, b"mail/report.log")?;
    for i in 0..k {
        let item = items[i].as_bytes();
        let mut modes = Modes::default();
        modes.of(spec, item)?;
        for m in 0..modes.n.max(1) {
            if n == MAX_ROWS {
                break;
            }
            let row = &mut rows[n];
            row.item = Text::new();
            row.item.push_with(&mut |room| copy(room, item));
            row.ended = ended[i];
            let series = (m < modes.n).then(|| &modes.series[m]);
            if let Some(s) = series {
                row.mode.push_with(&mut |room| copy(room, s.mode()));
            }
            if let Some((unit, about)) = modes.unit(m) {
                row.unit.push_with(&mut |room| copy(room, unit));
                row.about.push_with(&mut |room| copy(room, about));
            }
            let all_passed = row.ended[..spec.n].iter().all(|&e| e == Ended::Pass);
            if all_passed {
                let name = series.map(|s| s.name());
                if judge_row(spec, dir, row, name, sections, &mut log.out)? {
                    drafts += 1;
                }
            } else {
                row.verdict = by_endings(spec, &row.ended);
            }
            n += 1;
        }
    }
    log.close()?;
    Ok((n, drafts))
}

fn copy(room: &mut [u8], b: &[u8]) -> usize {
    let n = b.len().min(room.len());
    room[..n].copy_from_slice(&b[..n]);
    n
}

/// A row whose item did not pass on every boot: what the endings say.
fn by_endings(spec: &Spec, ended: &[Ended; MAX_POINTS]) -> Verdict {
    let labels = &spec.labels[..spec.n];
    // A label's boots that ended it differently: its kernel is unsteady.
    let unsteady =
        (0..spec.n).any(|i| (0..i).any(|j| labels[j] == labels[i] && ended[j] != ended[i]));
    if unsteady {
        Verdict::BaseUnsteady
    } else if ended[..spec.n].iter().any(|&e| e != ended[0]) {
        Verdict::OutcomeChanged
    } else if ended[0] == Ended::Skip {
        Verdict::Skipped
    } else {
        Verdict::Failed
    }
}

/// The series of an item's points (pollwake's modes), from the first of
/// its points there is: a row each where they name a mode.
#[derive(Default)]
struct Modes {
    series: [OwnedSeries; 8],
    n: usize,
    /// The item's only series, where it has one (its name and mode empty).
    only: OwnedSeries,
}

/// A series line's name, mode, unit and words, kept past the point's text.
#[derive(Clone, Copy, Default)]
struct OwnedSeries {
    name: Text<NAME>,
    mode: Text<NAME>,
    per: Text<64>,
    about: Text<96>,
}

impl OwnedSeries {
    fn name(&self) -> &[u8] {
        self.name.as_bytes()
    }
    fn mode(&self) -> &[u8] {
        self.mode.as_bytes()
    }
}

impl Modes {
    /// The series of `item`'s first point among the boots.
    fn of(&mut self, spec: &Spec, item: &[u8]) -> Result<(), Exit> {
        let mut text = [0u8; 8192];
        for b in 0..spec.n {
            let path = point_path(spec.dirs[b], item)?;
            // The series lines come first: the point's head is enough.
            let Ok(head) = read_head(&path, &mut text) else {
                continue;
            };
            if head.is_empty() {
                continue;
            }
            for s in series_lines(head).flatten() {
                self.keep(&s);
            }
            return Ok(());
        }
        Ok(())
    }

    fn keep(&mut self, s: &Series) {
        let o = match s.mode {
            None => &mut self.only,
            Some(_) if self.n == self.series.len() => return,
            Some(mode) => {
                self.n += 1;
                let o = &mut self.series[self.n - 1];
                o.name.push_with(&mut |room| copy(room, s.name));
                o.mode.push_with(&mut |room| copy(room, mode));
                o
            }
        };
        (o.per, o.about) = (Text::new(), Text::new());
        o.per.push_with(&mut |room| copy(room, s.per));
        o.about.push_with(&mut |room| copy(room, s.about));
    }

    /// The unit and words of row `m` (its mode's, or the only series').
    fn unit(&self, m: usize) -> Option<(&[u8], &[u8])> {
        let s = if m < self.n {
            &self.series[m]
        } else {
            &self.only
        };
        let (u, a) = (s.per.as_bytes(), s.about.as_bytes());
        (!u.is_empty()).then_some((u, a))
    }
}

/// As much of the file as `buf` holds.
fn read_head<'b>(path: &CPath, buf: &'b mut [u8]) -> sys::SysResult<&'b [u8]> {
    let fd = sys::open(path, crate::sys::uapi::O_RDONLY, 0)?;
    let mut n = 0;
    while n < buf.len() {
        match sys::read(fd.raw(), &mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(&buf[..n])
}

/// The paths of one row's points, as compare's FILE arguments
/// (`base-1/s0.txt`), and the labels.
struct Files {
    names: [u8; 4096],
    at: [(usize, usize); MAX_POINTS],
}

impl Files {
    fn of(spec: &Spec, item: &[u8]) -> Files {
        let mut f = Files {
            names: [0; 4096],
            at: [(0, 0); MAX_POINTS],
        };
        let mut end = 0;
        for b in 0..spec.n {
            let start = end;
            for part in [spec.dirs[b], b"/", item, b".txt"] {
                for &c in part {
                    if end < f.names.len() {
                        f.names[end] = if c == b':' && part == item { b'-' } else { c };
                        end += 1;
                    }
                }
            }
            f.at[b] = (start, end);
        }
        f
    }

    fn name(&self, b: usize) -> &[u8] {
        let (s, e) = self.at[b];
        &self.names[s..e]
    }
}

/// Judges one row whose item passed on every boot: its points read (of
/// series `series` of a table of several), analysed at the gate, its
/// compare text written, and when it moved its draft and where its cost
/// went. True when a draft was written.
fn judge_row(
    spec: &Spec,
    dir: &[u8],
    row: &mut Row,
    series: Option<&[u8]>,
    sections: &mut Out,
    log: &mut Out,
) -> Result<bool, Exit> {
    let files = Files::of(spec, row.item.as_bytes());
    let mut a = Args {
        gate: Gate::Insn(spec.gate),
        mode: series,
        ..Args::default()
    };
    for b in 0..spec.n {
        a.labels[b] = Some(spec.labels[b]);
        a.files[b] = Some(files.name(b));
    }
    a.n = spec.n;
    let mut inputs = Inputs::map(&a).map_err(|s| Exit::printed(s.code))?;
    let pts = match inputs.read(&a) {
        Ok(pts) => pts,
        Err(stopped) => {
            // compare's own line is on stderr.
            (row.verdict, row.error) = (Verdict::Error, stopped.code);
            return Ok(false);
        }
    };
    let an = Analysis::of(&a, &pts);
    let c = an.cmps()[0];
    row.figures = Some(Figures {
        c,
        locked: [c.base, c.test].map(|g| an.locked(g).map(|l| l.kernel)),
    });
    row.verdict = if c.reasons == 0 {
        Verdict::Moved
    } else if c.unjudged() {
        Verdict::Unjudged
    } else {
        Verdict::Unmoved
    };
    let costs = Costs::of(&an, &c);
    let mut name = Text::<{ 2 * NAME + 16 }>::new();
    let _ = write!(name, "compare/{}.txt", row.file());
    let mut f = File::create(dir, name.as_bytes())?;
    text::text(&an, Some(&costs), &mut f.out);
    f.close()?;
    if row.verdict != Verdict::Moved {
        return Ok(false);
    }
    // ab.txt's table of where the cost went.
    let _ = write!(
        sections,
        "\n{}: where the cost went (compare/{}.txt)\n",
        row.name(),
        row.file()
    );
    cost_table::section(&an, &c, &costs, "pair", Medium::Rows, sections);
    draft(spec, dir, row, &an, &costs, &files, log)?;
    Ok(true)
}

/// The draft of a row that moved, mail/ROW.txt, as `report` makes it with
/// the same gate from the same points (its command line, quoted in it, is
/// that one); what it leaves out goes to report.log.
fn draft(
    spec: &Spec,
    dir: &[u8],
    row: &Row,
    an: &Analysis,
    costs: &Costs,
    files: &Files,
    log: &mut Out,
) -> Result<(), Exit> {
    let d = Draft {
        introduced: spec.introduced,
        parent: spec.parent,
        ..Draft::default()
    };
    // The report command line that makes this draft from these points,
    // as the draft quotes it: LABEL=FILE as compare read them.
    let mut labelled = [Text::<{ 2 * NAME + 64 }>::new(); MAX_POINTS];
    for (b, l) in labelled.iter_mut().enumerate().take(spec.n) {
        for part in [spec.labels[b], b"=", files.name(b)] {
            l.push_with(&mut |room| copy(room, part));
        }
    }
    let mut argv = Words::default();
    argv.push(&[b"report", b"--gate-insn", spec.gate_text]);
    if !row.mode.as_bytes().is_empty() {
        argv.push(&[b"--mode", row.mode.as_bytes()]);
    }
    if let Some(sha) = spec.introduced {
        argv.push(&[b"--introduced", sha]);
    }
    if let Some(sha) = spec.parent {
        argv.push(&[b"--parent", sha]);
    }
    for l in &labelled[..spec.n] {
        argv.push(&[l.as_bytes()]);
    }
    let mut name = Text::<{ 2 * NAME + 16 }>::new();
    let _ = write!(name, "mail/{}.txt", row.file());
    let mut f = File::create(dir, name.as_bytes())?;
    let mut left_out = Long::new();
    let mut words = argv.w[..argv.n].iter().copied();
    mail::write(an, &d, Some(costs), &mut words, &mut f.out, &mut left_out);
    f.close()?;
    if !left_out.as_bytes().is_empty() {
        let _ = writeln!(log, "{}: {left_out}", row.name());
    }
    Ok(())
}

/// A command line's words.
#[derive(Default)]
struct Words<'w> {
    w: [&'w [u8]; 8 + MAX_POINTS],
    n: usize,
}

impl<'w> Words<'w> {
    fn push(&mut self, words: &[&'w [u8]]) {
        for &w in words {
            if self.n < self.w.len() {
                self.w[self.n] = w;
                self.n += 1;
            }
        }
    }
}
