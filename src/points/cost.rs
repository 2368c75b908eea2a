//! The `# cost:` lines of one run's point (docs/cost.md): the point gives
//! each series' name, measured rounds and pairs (its mean rows, in the
//! order of the series); the run's section of the cost counter's counts
//! (plugin/cost.c, format 3), its windows and its instructions, all and
//! locked, per series and per function, and its events (the entries into
//! the functions the header names) per series. Everything is checked before a
//! line is written: every consistency check that fails refuses the lines
//! (exit 125, one line saying what), never a short table.
//!
//! Which run of the boot the point is: a run's point, the boot's only
//! run; a suite's item K, the boot's run K (each run starts with the run
//! marker, its section in the counts).
//!
//! The counts are read twice: once to check them, whole, once to write
//! the lines of the run's `fn`, `locked` and `event` lines, which are its
//! section's in its order. Their words are read as numbers as num.rs says.

use core::cmp::Ordering;
use core::fmt::{self, Write};

use super::console::words;
use super::num::{self, Shown};
use crate::exit::{self, Exit};
use crate::render::{Bytes, Clean, Dec, Text};
use table::Table;

/// The decimals of instructions per pair in a line (the exact count is
/// beside it).
const DECIMALS: u32 = 3;

/// Most series of one point (a workload has at most 4), and most series
/// named in one run's section of the counts.
pub(super) const MAX_SERIES: usize = 16;

/// The counts' first line, and an older counter's (no format, or another).
const HEADER: &[u8] = b"# uring-repro cost counts format=3: ";
const OLDER: &[u8] = b"# uring-repro cost counts: ";
const FORMAT: &[u8] = b"# uring-repro cost counts format=";

/// Which run of the boot a point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which<'a> {
    /// A run's point: the boot's only run.
    Only,
    /// A suite's item K (its digits): the boot's run K.
    Item(&'a [u8]),
}

/// The files as messages name them.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub counts: &'a [u8],
    /// The point the lines are for.
    pub point: &'a [u8],
    /// `--map`, when the counts are to be checked against it.
    pub map: Option<&'a [u8]>,
}

/// `points: FILE: WHY`, exit 125.
pub(super) fn refuse(file: &[u8], why: fmt::Arguments) -> Exit {
    let file = Clean(file);
    Exit::new(exit::CANNOT_JUDGE, format_args!("points: {file}: {why}"))
}

/// `key=value` words of `line` from its word `from` (0 the first) on: the
/// value of the last `key=` word, None when there is none.
fn kv<'t>(line: &'t [u8], from: usize, key: &[u8]) -> Option<&'t [u8]> {
    let mut found = None;
    for w in words(line).skip(from) {
        if let Some(eq) = w.iter().position(|&b| b == b'=') {
            if &w[..eq] == key {
                found = Some(&w[eq + 1..]);
            }
        }
    }
    found
}

/// A count as awk held it: None never set (it shows as nothing), else a
/// number.
fn shown(v: Option<f64>) -> impl fmt::Display {
    struct S(Option<f64>);
    impl fmt::Display for S {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            match self.0 {
                Some(v) => Shown(v).fmt(f),
                None => Ok(()),
            }
        }
    }
    S(v)
}

/// The function lines of one kind of one series (`fn`, `locked`).
#[derive(Clone, Copy, Default)]
struct Functions<'t> {
    lines: u32,
    sum: f64,
    /// The last line's count and function.
    last: f64,
    last_name: &'t [u8],
}

/// What the run's section says of one series (by the word that names
/// it: `0`..`3`).
#[derive(Clone, Copy, Default)]
struct Named<'t> {
    key: &'t [u8],
    /// Its series line (the first, when there are two).
    series: Option<&'t [u8]>,
    /// Its window lines: how many, their user and kernel instructions.
    windows: Option<(f64, f64, f64)>,
    /// Its `fn` and `locked` lines.
    functions: [Functions<'t>; 2],
    /// Its `event` lines: how many (each the next event watched).
    events: usize,
}

/// The two kinds of function lines.
const KINDS: [&[u8]; 2] = [b"fn", b"locked"];

/// The first thing found wrong with the run asked for, told once it is
/// known to be the run asked for (and the counts whole).
#[derive(Clone, Copy)]
enum Wrong<'t> {
    NoWindows,
    Unpaired(Option<&'t [u8]>, Option<&'t [u8]>),
    TwoSeriesLines(&'t [u8]),
    NotThePoints(&'t [u8]),
    NoSeriesLine(&'t [u8], &'t [u8]),
    OutOfOrder(&'t [u8], &'t [u8], &'t [u8]),
    /// An `event` line of a series that is not the next event watched.
    OtherEvent(&'t [u8], &'t [u8]),
    Unknown(&'t [u8]),
    TooManySeries,
}

/// One run's `# cost:` lines, checked: what `write` writes.
pub struct Lines<'t> {
    table: Table<'t>,
    /// The run's section of the counts (after its run line).
    section: &'t [u8],
    api: &'t [u8],
    locked: &'t [u8],
    sha: &'t [u8],
    /// The events watched, colon-separated (empty: none).
    events: &'t [u8],
    named: [Named<'t>; MAX_SERIES],
    n_named: usize,
}

/// The counts' state as their lines are read.
struct Reading<'t> {
    /// The events watched, colon-separated (empty: none).
    events: &'t [u8],
    runs: f64,
    /// The run asked for: its number as written; where its section starts.
    run: Option<(&'t [u8], usize)>,
    mine: bool,
    section_end: Option<usize>,
    wrong: Option<Wrong<'t>>,
    named: [Named<'t>; MAX_SERIES],
    n_named: usize,
}

impl<'t> Reading<'t> {
    /// Keeps `w` unless something was already wrong. Not inlined: at
    /// each of its nine callers the keep-the-first (an enum of up to
    /// three slices) was copied inline, on a path a good point never takes.
    #[inline(never)]
    fn wrong(&mut self, w: Wrong<'t>) {
        self.wrong = self.wrong.or(Some(w));
    }

    /// The series named `key`, made when first named.
    fn named(&mut self, key: &'t [u8]) -> Option<&mut Named<'t>> {
        let at = match self.named[..self.n_named].iter().position(|s| s.key == key) {
            Some(at) => at,
            None if self.n_named == MAX_SERIES => {
                self.wrong(Wrong::TooManySeries);
                return None;
            }
            None => {
                self.n_named += 1;
                self.named[self.n_named - 1].key = key;
                self.n_named - 1
            }
        };
        Some(&mut self.named[at])
    }
}

/// The checked lines of the point `point` from the run `which` of
/// `counts` (made, when `map_sha` is given, with that map); or the exit
/// that refuses them.
pub fn check<'t>(
    point: &'t [u8],
    counts: &'t [u8],
    which: Which,
    map_sha: Option<&[u8]>,
    n: &Names,
) -> Result<Lines<'t>, Exit> {
    let table = Table::of(point, n)?;
    let fail = |why: fmt::Arguments| refuse(n.counts, why);
    if counts.is_empty() {
        return Err(fail(format_args!("empty (QEMU did not exit cleanly?)")));
    }
    let header = counts.split(|&b| b == b'\n').next().unwrap_or(b"");
    if header.starts_with(OLDER) {
        let why = "counts of an older counter (no run sections, no locked instructions): \
            boot again with this one";
        return Err(fail(format_args!("{why}")));
    }
    if header.starts_with(FORMAT) && !header.starts_with(HEADER) {
        let format = words(&header[FORMAT.len()..]).next().unwrap_or(b"");
        return Err(fail(format_args!(
            "counts of an older counter (format {}: no events): boot again with this one",
            Clean(format.strip_suffix(b":").unwrap_or(format))
        )));
    }
    if !header.starts_with(HEADER) {
        return Err(fail(format_args!("not the cost counter's output")));
    }
    let (api, locked) = header_words(header);
    if api.is_empty() || locked.is_empty() {
        return Err(fail(format_args!(
            "a header without the plugin API or the locked kind"
        )));
    }
    let mut r = Reading {
        events: b"",
        runs: 0.0,
        run: None,
        mine: false,
        section_end: None,
        wrong: None,
        named: [Named::default(); MAX_SERIES],
        n_named: 0,
    };
    let (mut ended, mut sha, mut stray): (bool, &[u8], &[u8]) = (false, b"", b"");
    let mut watched = None;
    let mut at = header.len() + 1;
    let body = counts.get(at..).unwrap_or(b"");
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    for line in body.split(|&b| b == b'\n').filter(|_| !body.is_empty()) {
        let start = at;
        at += line.len() + 1;
        if ended {
            return Err(fail(format_args!("lines after the end line")));
        }
        let mut f = words(line);
        let (f1, f2) = (f.next().unwrap_or(b""), f.next().unwrap_or(b""));
        match f1 {
            b"map" => {
                sha = kv(line, 1, b"sha256").unwrap_or(b"");
                if map_sha.is_some_and(|want| want != sha) {
                    let map = Clean(n.map.unwrap_or(b""));
                    return Err(fail(format_args!(
                        "made with another System.map (SHA-256 {}), not {map}",
                        Clean(sha)
                    )));
                }
                continue;
            }
            b"events" => {
                let list = kv(line, 1, b"watched").unwrap_or(b"");
                r.events = if list == b"-" { b"" } else { list };
                watched = Some(list);
                continue;
            }
            b"run" => {
                r.runs += 1.0;
                if num::against(f2, r.runs) != Ordering::Equal {
                    return Err(fail(format_args!(
                        "run {} where run {} was due",
                        Clean(f2),
                        Shown(r.runs)
                    )));
                }
                if r.mine {
                    r.section_end = Some(start);
                }
                r.mine = match which {
                    Which::Only => r.runs == 1.0,
                    Which::Item(k) => num::same(f2, k),
                };
                if r.mine {
                    r.run = Some((f2, at));
                    if num::value(kv(line, 2, b"windows").unwrap_or(b"")) == 0.0 {
                        r.wrong(Wrong::NoWindows);
                    }
                    let (u, o) = (kv(line, 2, b"unbalanced"), kv(line, 2, b"open_at_end"));
                    let set = |v: Option<&[u8]>| num::value(v.unwrap_or(b"")) != 0.0;
                    if set(u) || set(o) {
                        r.wrong(Wrong::Unpaired(u, o));
                    }
                }
                continue;
            }
            b"end" => {
                ended = true;
                if r.mine {
                    r.section_end = Some(start);
                }
                let said = kv(line, 1, b"runs");
                if num::value(said.unwrap_or(b"")) != r.runs {
                    return Err(fail(format_args!(
                        "the end line says {} runs, the sections {}",
                        Clean(said.unwrap_or(b"")),
                        Shown(r.runs)
                    )));
                }
                stray = kv(line, 1, b"stray_windows").unwrap_or(b"");
                let threads = kv(line, 1, b"translating_threads").unwrap_or(b"");
                if num::value(threads) > 1.0 {
                    return Err(fail(format_args!(
                        "{} host threads ran the vCPUs at once: the counters, shared, raced \
                         (more than one vCPU under plain TCG?)",
                        Clean(threads)
                    )));
                }
                continue;
            }
            _ if !r.mine => continue,
            _ => {}
        }
        section_line(&mut r, &table, line, f1, f2, &mut f);
    }
    let run = r.run.map_or(&b""[..], |(run, _)| run);
    if !ended {
        return Err(fail(format_args!(
            "no end line (cut short: QEMU did not exit cleanly?)"
        )));
    }
    if sha.is_empty() {
        return Err(fail(format_args!("no map line")));
    }
    if watched.is_none_or(<[u8]>::is_empty) {
        return Err(fail(format_args!("no events line")));
    }
    if r.runs == 0.0 && num::value(stray) > 0.0 {
        return Err(fail(format_args!(
            "{} windows but no run started: a uring-repro without the run marker",
            Clean(stray)
        )));
    }
    if r.runs == 0.0 {
        return Err(fail(format_args!("no uring-repro run under the counter")));
    }
    let runs = Shown(r.runs);
    match which {
        Which::Only if r.runs > 1.0 => {
            return Err(fail(format_args!(
            "{runs} runs: a run's point is the only run of its boot (a suite's items are its runs)"
        )))
        }
        Which::Item(k) if r.run.is_none() => {
            return Err(fail(format_args!(
                "item {} is run {} of the boot, but there are {runs} runs",
                Clean(k),
                Clean(k)
            )))
        }
        _ => {}
    }
    if let Some(w) = r.wrong {
        return Err(fail(format_args!(
            "{}",
            Told {
                w,
                run,
                point: n.point
            }
        )));
    }
    let (section_start, section_end) = (r.run.map_or(0, |(_, s)| s), r.section_end.unwrap_or(0));
    let lines = Lines {
        table,
        section: counts
            .get(section_start..section_end.max(section_start))
            .unwrap_or(b""),
        api,
        locked,
        sha,
        events: r.events,
        named: r.named,
        n_named: r.n_named,
    };
    lines.agree(run, n)?;
    Ok(lines)
}

/// The plugin API and the locked kind the header states: the digits after
/// its last `qemu plugin api `, the word after its last `locked=`.
fn header_words(header: &[u8]) -> (&[u8], &[u8]) {
    let after = |mark: &[u8]| {
        let at = header.windows(mark.len()).rposition(|w| w == mark)?;
        Some(&header[at + mark.len()..])
    };
    let leading =
        |s: &'_ [u8], ok: fn(&u8) -> bool| -> usize { s.iter().take_while(|b| ok(b)).count() };
    let api = after(b"qemu plugin api ").map_or(&b""[..], |s| &s[..leading(s, u8::is_ascii_digit)]);
    let word = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
    let locked = after(b"locked=").map_or(&b""[..], |s| &s[..leading(s, word)]);
    (api, locked)
}

/// One line of the run's section (not a `map`, `run` or `end` line).
fn section_line<'t>(
    r: &mut Reading<'t>,
    table: &Table<'t>,
    line: &'t [u8],
    f1: &'t [u8],
    f2: &'t [u8],
    rest: &mut dyn Iterator<Item = &'t [u8]>,
) {
    match f1 {
        b"window" => {
            let key = kv(line, 2, b"series").unwrap_or(b"");
            let (user, kernel) = (kv(line, 2, b"user"), kv(line, 2, b"kernel"));
            let v = |w: Option<&[u8]>| num::value(w.unwrap_or(b""));
            if let Some(s) = r.named(key) {
                let (n, u, k) = s.windows.unwrap_or((0.0, 0.0, 0.0));
                s.windows = Some((n + 1.0, u + v(user), k + v(kernel)));
            }
        }
        b"series" => {
            let twice = r.named[..r.n_named]
                .iter()
                .any(|s| s.key == f2 && s.series.is_some());
            if twice {
                r.wrong(Wrong::TwoSeriesLines(f2));
            }
            if num::against(f2, table.series().len() as f64) != Ordering::Less {
                r.wrong(Wrong::NotThePoints(f2));
            }
            if let Some(s) = r.named(f2) {
                s.series = s.series.or(Some(line));
            }
        }
        b"fn" | b"locked" => {
            let kind = usize::from(f1 == b"locked");
            let (count, name) = (rest.next().unwrap_or(b""), rest.next().unwrap_or(b""));
            let has_series = r.named[..r.n_named]
                .iter()
                .any(|s| s.key == f2 && s.series.is_some());
            if !has_series {
                r.wrong(Wrong::NoSeriesLine(f1, f2));
            }
            let Some(s) = r.named(f2) else { return };
            let fl = s.functions[kind];
            let after = match num::against(count, fl.last) {
                Ordering::Greater => true,
                Ordering::Equal => num::compare(name, fl.last_name) != Ordering::Greater,
                Ordering::Less => false,
            };
            let s = &mut s.functions[kind];
            (s.lines, s.sum, s.last, s.last_name) = (
                fl.lines + 1,
                fl.sum + num::value(count),
                num::value(count),
                name,
            );
            if fl.lines > 0 && after {
                r.wrong(Wrong::OutOfOrder(f1, f2, name));
            }
        }
        b"event" => {
            let name = rest.nth(1).unwrap_or(b"");
            let events = r.events;
            let Some(s) = r.named(f2) else { return };
            let due = events.split(|&b| b == b':').nth(s.events);
            s.events += 1;
            if events.is_empty() || due != Some(name) {
                r.wrong(Wrong::OtherEvent(f2, name));
            }
        }
        _ => r.wrong(Wrong::Unknown(f1)),
    }
}

/// A `Wrong` in words, with the run it is of and the point.
struct Told<'a> {
    w: Wrong<'a>,
    run: &'a [u8],
    point: &'a [u8],
}

impl fmt::Display for Told<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let run = Clean(self.run);
        write!(f, "run {run}: ")?;
        match self.w {
            Wrong::NoWindows => f.write_str(
                "the counter saw no measured round (the guest binary has no markers: an older \
                 uring-repro, or not an x86_64 build?)",
            ),
            Wrong::Unpaired(u, o) => write!(
                f,
                "the markers did not pair up (unbalanced={} open_at_end={})",
                Clean(u.unwrap_or(b"")),
                Clean(o.unwrap_or(b""))
            ),
            Wrong::TwoSeriesLines(k) => write!(f, "two series lines of series {}", Clean(k)),
            Wrong::NotThePoints(k) => write!(
                f,
                "windows of series {}, which {} does not have",
                Clean(k),
                Clean(self.point)
            ),
            Wrong::NoSeriesLine(word, k) => write!(
                f,
                "a {} line of series {}, which has no series line",
                Clean(word),
                Clean(k)
            ),
            Wrong::OutOfOrder(word, k, name) => write!(
                f,
                "the {} lines of series {} are out of order at {}",
                Clean(word),
                Clean(k),
                Clean(name)
            ),
            Wrong::OtherEvent(k, name) => write!(
                f,
                "an event line of series {} for {}, not the next event the events line watches",
                Clean(k),
                Clean(name)
            ),
            Wrong::Unknown(word) => write!(f, "an unknown line: {}", Clean(word)),
            Wrong::TooManySeries => f.write_str("more than 16 series"),
        }
    }
}

/// The decimal digits of `k` (a series' number), as the counts name it.
fn key(k: usize) -> Text<24> {
    let mut t = Text::new();
    let _ = write!(t, "{k}");
    t
}

impl<'t> Lines<'t> {
    /// What the section says of the point's series `k`.
    fn named(&self, k: usize) -> Option<&Named<'t>> {
        let key = key(k);
        self.named[..self.n_named]
            .iter()
            .find(|s| s.key == key.as_bytes() && s.series.is_some())
    }

    /// Each series of the point against its series line, its windows and
    /// its function lines.
    fn agree(&self, run: &[u8], n: &Names) -> Result<(), Exit> {
        let run = Clean(run);
        for (k, series) in self.table.series().iter().enumerate() {
            let nm = Clean(series.name);
            let fail = |why: fmt::Arguments| refuse(n.counts, format_args!("run {run}: {why}"));
            let Some(s) = self.named(k) else {
                return Err(fail(format_args!("no window of {nm}")));
            };
            let line = s.series.unwrap_or(b"");
            let word = |w: &[u8]| kv(line, 2, w).unwrap_or(b"");
            let v = |w: &[u8]| num::value(word(w));
            if v(b"windows") != series.rounds as f64 {
                return Err(fail(format_args!(
                    "{} windows of {nm}, but {} has {} measured rounds of it",
                    Clean(word(b"windows")),
                    Clean(n.point),
                    series.rounds
                )));
            }
            if series.pairs <= 0.0 {
                return Err(refuse(n.point, format_args!("no mean row for {nm}")));
            }
            let w = s.windows;
            let (wn, wu, wk) = (w.map(|w| w.0), w.map(|w| w.1), w.map(|w| w.2));
            let z = |x: Option<f64>| x.unwrap_or(0.0);
            if z(wn) != v(b"windows") || z(wu) != v(b"user") || z(wk) != v(b"kernel") {
                return Err(fail(format_args!(
                    "the window lines of {nm} are {} adding up to user={} kernel={}, not the series line",
                    shown(wn),
                    shown(wu),
                    shown(wk)
                )));
            }
            let sums: [(&[u8], &[u8]); 2] = [
                (b"functions", b"kernel"),
                (b"locked_functions", b"kernel_locked"),
            ];
            for (kind, (count, total)) in sums.into_iter().enumerate() {
                let fl = s.functions[kind];
                if fl.lines as f64 != v(count) || fl.sum != v(total) {
                    return Err(fail(format_args!(
                        "the {} lines of {nm} are {} adding up to {}, not {} adding up to {}",
                        Clean(KINDS[kind]),
                        fl.lines,
                        Shown(fl.sum),
                        Clean(word(count)),
                        Clean(word(total))
                    )));
                }
            }
            let watched = self.watched();
            if s.events != watched {
                return Err(fail(format_args!(
                    "the event lines of {nm} are {}, not the {watched} events watched",
                    s.events
                )));
            }
        }
        Ok(())
    }

    /// How many events were watched.
    fn watched(&self) -> usize {
        match self.events {
            b"" => 0,
            e => e.split(|&b| b == b':').count(),
        }
    }

    /// Writes the lines: the method line (the events watched its last
    /// word), then each series' line, its `fn` lines, its `locked` lines
    /// and its `event` lines.
    pub fn write(&self, w: &mut dyn Write) -> fmt::Result {
        write!(
            w,
            "# cost: method counter=qemu-tcg-plugin api={} window=timed-spans \
             unit=guest-instructions map_sha256={} locked={}",
            Bytes(self.api),
            Bytes(self.sha),
            Bytes(self.locked)
        )?;
        if !self.events.is_empty() {
            write!(w, " events={}", Bytes(self.events))?;
        }
        w.write_char('\n')?;
        for (k, series) in self.table.series().iter().enumerate() {
            let s = self
                .named(k)
                .map_or(b"" as &[u8], |s| s.series.unwrap_or(b""));
            let word = |key: &[u8]| Bytes(kv(s, 2, key).unwrap_or(b""));
            let per_pair = |key: &[u8]| {
                Dec(
                    num::value(kv(s, 2, key).unwrap_or(b"")) / series.pairs,
                    DECIMALS,
                )
            };
            let whole = |key: &[u8]| num::value(kv(s, 2, key).unwrap_or(b"")) as i64;
            let name = Bytes(series.name);
            writeln!(
                w,
                "# cost: series {name} windows={} pairs={} user={} kernel={} functions={} \
                 user_per_pair={} kernel_per_pair={} user_locked={} kernel_locked={} \
                 kernel_locked_per_pair={}",
                whole(b"windows"),
                Dec(series.pairs, 0),
                word(b"user"),
                word(b"kernel"),
                whole(b"functions"),
                per_pair(b"user"),
                per_pair(b"kernel"),
                word(b"user_locked"),
                word(b"kernel_locked"),
                per_pair(b"kernel_locked"),
            )?;
            let key = key(k);
            for kind in [KINDS[0], KINDS[1], b"event"] {
                for line in self.section.split(|&b| b == b'\n') {
                    let mut f = words(line);
                    if f.next() != Some(kind) || f.next() != Some(key.as_bytes()) {
                        continue;
                    }
                    let (count, function) = (f.next().unwrap_or(b""), f.next().unwrap_or(b""));
                    let pp = Dec(num::value(count) / series.pairs, DECIMALS);
                    let (kind, count, function) = (Bytes(kind), Bytes(count), Bytes(function));
                    writeln!(w, "# cost: {kind} {name} {pp} {count} {function}")?;
                }
            }
        }
        Ok(())
    }
}

mod table;
#[cfg(test)]
mod tests;
