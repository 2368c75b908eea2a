//! ab's rows: what each is (an item of the first suite, and each series of
//! its points: pollwake's modes), read once from the suites (their
//! `suite.txt`: how each boot ended each item) and the first point of each
//! item (its `# series:` lines, and its `# cost: method` line's events:
//! the table's); and a row as judged for a pair of steps (pair.rs): its
//! figures, its events and its verdict.

use core::fmt::{self, Write};

use super::super::analysis::{Comparison, Reason};
use super::super::point::{events_of, series_lines, Series, MAX_EVENTS};
use super::{Spec, MAX_BOOTS};
use crate::exit::{self, Exit};
use crate::render::{Clean, Text};
use crate::suite::MAX_ITEMS;
use crate::sys::{self, CPath};

/// Most rows: every item, and a row per mode of a table of several.
pub const MAX_ROWS: usize = 4 * MAX_ITEMS;

/// The longest item name, and series name, kept.
pub const NAME: usize = 32;

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
    /// The step was not measured (a series' step not built or booted).
    NotMeasured,
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
            Verdict::NotMeasured => "not-measured",
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
    /// Its events, where every point counted the table's (`EventNames`).
    pub events: Option<EventFigures>,
}

/// A row's events: entries per pair of each side (control, test), in the
/// order of the table's events, and those that moved (bits): by one entry
/// a cycle or more (docs/ab.md, "The gate").
#[derive(Clone, Copy, Debug, Default)]
pub struct EventFigures {
    pub v: [[f64; 2]; MAX_EVENTS],
    pub moved: u32,
}

/// The longest event name kept.
pub const EVENT_NAME: usize = 64;

/// The events of the table: those the first point that counted any names
/// in its method line (`events=`), in its order.
#[derive(Clone, Copy, Default)]
pub struct EventNames {
    names: [Text<EVENT_NAME>; MAX_EVENTS],
    pub n: usize,
}

impl EventNames {
    /// The names of `list` (colon-separated), the first MAX_EVENTS.
    fn of(list: &[u8]) -> EventNames {
        let mut e = EventNames::default();
        for (kept, name) in e.names.iter_mut().zip(list.split(|&b| b == b':')) {
            kept.push_with(&mut |room| copy(room, name));
            e.n += 1;
        }
        e
    }

    pub fn name(&self, k: usize) -> &[u8] {
        self.names[k].as_bytes()
    }

    /// Whether `names` are these, in this order.
    pub fn are(&self, names: &[&[u8]]) -> bool {
        names.len() == self.n && names.iter().enumerate().all(|(k, n)| *n == self.name(k))
    }
}

/// One row of the table.
#[derive(Clone, Copy, Default)]
pub struct Row {
    pub item: Text<NAME>,
    pub mode: Text<NAME>,
    /// The name of its series in a table of several (`pollwake_idle`: what
    /// compare's `--mode` picks), empty for an item's only series.
    pub series: Text<NAME>,
    /// What one figure is per (its series line's `per=`), and the workload
    /// in kernel words (`about=`); empty when no point states them.
    pub unit: Text<64>,
    pub about: Text<96>,
    pub verdict: Verdict,
    pub figures: Option<Figures>,
    /// How the item ended on each boot, in order (of the steps judged).
    pub ended: [Ended; MAX_BOOTS],
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
    pub fn why(&self, spec: &Spec, boots: &[usize], w: &mut dyn Write) -> fmt::Result {
        if self.verdict == Verdict::Error {
            return write!(w, "compare exit {}: its points cannot be read", self.error);
        }
        if self.verdict == Verdict::NotMeasured {
            return w.write_str("not_measured");
        }
        let Some(f) = &self.figures else {
            return self.endings(spec, boots, w);
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
    fn endings(&self, spec: &Spec, boots: &[usize], w: &mut dyn Write) -> fmt::Result {
        for (k, &b) in boots.iter().enumerate() {
            let sep = if k == 0 { "" } else { ", " };
            let label = spec.labels[b];
            let before = boots[..k].iter().any(|&a| spec.labels[a] == label);
            let again = if before { " again" } else { "" };
            write!(w, "{sep}{}{again} {}", Clean(label), self.ended[b].word())?;
        }
        Ok(())
    }

    /// Its name as a file's (`s0:shared` s0-shared, `pollwake/idle`
    /// pollwake-idle): no tool reads `s0:shared.txt` as a host name.
    pub fn file(&self) -> FileName<'_> {
        FileName(self)
    }

    /// Its events that moved (bits; 0 without event figures).
    pub fn events_moved(&self) -> u32 {
        self.figures.and_then(|f| f.events).map_or(0, |e| e.moved)
    }

    /// A change: it moved, its item's outcome changed, or its events moved
    /// (ab's exit 1).
    pub fn changed(&self) -> bool {
        matches!(self.verdict, Verdict::Moved | Verdict::OutcomeChanged) || self.events_moved() != 0
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
pub fn point_path(dir: &[u8], item: &[u8]) -> Result<CPath, Exit> {
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

/// The rows every pair of steps is judged on: an item of the first suite
/// and a series of its points each, with how each boot ended the item;
/// their figures and verdicts unset.
pub struct Keys {
    pub rows: [Row; MAX_ROWS],
    pub n: usize,
    /// The events of the table (none when no point counted any).
    pub events: EventNames,
}

impl Keys {
    /// Read from the suites of `spec`'s boots.
    pub fn read(spec: &Spec) -> Result<Keys, Exit> {
        let mut keys = Keys {
            rows: [Row::default(); MAX_ROWS],
            n: 0,
            events: EventNames::default(),
        };
        let first = Suite::read(spec.dirs[0])?;
        // Each boot's suite, read once; the first's items are the rows'.
        let mut ended = [[Ended::None; MAX_BOOTS]; MAX_ITEMS];
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
        for i in 0..k {
            let item = items[i].as_bytes();
            let mut modes = Modes::default();
            modes.of(spec, item)?;
            if keys.events.n == 0 && !modes.events.as_bytes().is_empty() {
                keys.events = EventNames::of(modes.events.as_bytes());
            }
            for m in 0..modes.n.max(1) {
                let Some(row) = keys.rows.get_mut(keys.n) else {
                    break;
                };
                row.item.push_with(&mut |room| copy(room, item));
                row.ended = ended[i];
                if let Some(s) = (m < modes.n).then(|| &modes.series[m]) {
                    row.mode
                        .push_with(&mut |room| copy(room, s.mode.as_bytes()));
                    row.series
                        .push_with(&mut |room| copy(room, s.name.as_bytes()));
                }
                if let Some((unit, about)) = modes.unit(m) {
                    row.unit.push_with(&mut |room| copy(room, unit));
                    row.about.push_with(&mut |room| copy(room, about));
                }
                keys.n += 1;
            }
        }
        Ok(keys)
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows[..self.n]
    }
}

pub fn copy(room: &mut [u8], b: &[u8]) -> usize {
    let n = b.len().min(room.len());
    room[..n].copy_from_slice(&b[..n]);
    n
}

/// A row whose item did not pass on every boot of a pair (`boots`): what
/// the endings say.
pub fn by_endings(spec: &Spec, boots: &[usize], ended: &[Ended; MAX_BOOTS]) -> Verdict {
    let label = |b: usize| spec.labels[b];
    // A label's boots that ended it differently: its kernel is unsteady.
    let unsteady = boots.iter().enumerate().any(|(k, &i)| {
        boots[..k]
            .iter()
            .any(|&j| label(j) == label(i) && ended[j] != ended[i])
    });
    let first = ended[boots[0]];
    if unsteady {
        Verdict::BaseUnsteady
    } else if boots.iter().any(|&b| ended[b] != first) {
        Verdict::OutcomeChanged
    } else if first == Ended::Skip {
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
    /// The events its method line names (`events=`), colon-separated.
    events: Text<{ MAX_EVENTS * (EVENT_NAME + 1) }>,
}

/// A series line's name, mode, unit and words, kept past the point's text.
#[derive(Clone, Copy, Default)]
struct OwnedSeries {
    name: Text<NAME>,
    mode: Text<NAME>,
    per: Text<64>,
    about: Text<96>,
}

impl Modes {
    /// The series of `item`'s first point among the boots.
    fn of(&mut self, spec: &Spec, item: &[u8]) -> Result<(), Exit> {
        let mut text = [0u8; 16384];
        for b in 0..spec.n {
            let path = point_path(spec.dirs[b], item)?;
            // The series lines come first, the method line after the
            // checks: the point's head is enough.
            let Ok(head) = read_head(&path, &mut text) else {
                continue;
            };
            if head.is_empty() {
                continue;
            }
            for s in series_lines(head).flatten() {
                self.keep(&s);
            }
            let method = head
                .split(|&b| b == b'\n')
                .find_map(|l| l.strip_prefix(b"# cost: method "));
            if let Some(list) = method.and_then(events_of) {
                self.events.push_with(&mut |room| copy(room, list));
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
