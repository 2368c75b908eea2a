//! One saved point, read once: every FILE of `compare`, `--bisect` and
//! `report` is one run on one boot, and this is the one reader of it. Its
//! text is read line by line into one `Point`: what the run states about
//! itself (uring-repro's banner lines and `# key=value` fact lines, or
//! the columns of a TSV's first row: docs/output.md), its rows summed up
//! (table.rs), its `# witness: ` lines and its checks line.
//!
//! - uring-repro's stdout: the banner `# uring-repro VERSION key=value...`
//!   and the contract line after it, fact lines, the table, `#` summary
//!   lines, the witness lines, the checks line;
//! - the C standalone's stdout: the table alone; it states nothing;
//! - a TSV (ours, or the formal C reproducer's): its columns state what
//!   they name (the formal tool's `input_sha256` hashes another tool's
//!   input, so it is not read, nor is a version it does not write); its
//!   `#` lines are comments.
//!
//! A value written `unknown` (the run could not read it) or empty is not
//! stated. Only a whole run is a point: an interrupted one is refused,
//! whatever it measured (on stdout, a `partial` row instead of the mean
//! row, a `# interrupted: N of M rounds` line or a checks line ending
//! `-> INTERRUPTED`; in our TSV, a row of phase `interrupted`, or, with no
//! such row (the run was killed), rounds that all passed but fall short of
//! the `rounds_planned` column). So is our stdout without its `# checks:`
//! line, and a TSV of a smoke or trace run. A run that failed stops early
//! as well, but it is a point, an invalid one.

use core::ops::Range;

mod boot_id;
mod cost_lines;
mod keys;
mod series;

pub use super::table::{Format, Refusal, Sample, ALL, MAX_ROUNDS, REST};
pub use boot_id::BootId;
pub use cost_lines::{
    events_of, fnv, Cost, Count, CountRoom, MAX_EVENTS, MAX_FUNCTIONS, TOO_MANY_FUNCTIONS,
};
pub use keys::{Key, KEYS};
pub use series::Series;

use super::table::{
    mean_row, numbers, refuse, round_row, uint, Detail, Modes, PointRow, Rounds, Table,
};
use cost_lines::{Reader, COST_PREFIX};
use keys::{LINE_KEYS, ONE_RUN};
use series::{MAX_SERIES_LINES, SERIES_PREFIX};

/// Most `# witness: ` lines kept of one point.
pub const MAX_WITNESS: usize = 8;

/// One result file: one boot, one run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point<'t> {
    pub format: Format,
    /// Each key's value as the point writes it (slices of its text), by
    /// `Key`; read them through `tag` and `get`.
    values: [Option<&'t [u8]>; KEYS.len()],
    /// The profile of the rows read, where the rows name it: a pollwake
    /// table's mode (`pollwake_idle`, where the banner says `pollwake`).
    rows_profile: Option<&'t [u8]>,
    /// Its `# witness: ` lines, without the `# `.
    witness: [&'t [u8]; MAX_WITNESS],
    n_witness: usize,
    /// The boot it ran on, where it states one.
    boot: Option<BootId>,
    /// Its contract line, the banner's second (`key=value` words, without
    /// the `# `): every option of the run that can change a figure.
    contract: Option<&'t [u8]>,
    /// Its `# series:` lines.
    series: [Series<'t>; MAX_SERIES_LINES],
    n_series: usize,
    /// Its `# checks: ` line, without the `# `.
    pub checks: Option<&'t [u8]>,
    /// What its `# cost: ` lines (docs/cost.md) count for the series its
    /// rows are of, read once: what cost.rs diffs.
    pub cost: Cost<'t>,
    /// Pairs per round (of the rounds that passed; 0 when none did).
    pub pairs: u64,
    /// Rounds with semantic_pass 0.
    pub failed_rounds: u32,
    /// False when the run's own verdict (a stdout mean row) says it failed.
    pub run_passed: bool,
    /// All rounds, and all but the first (drop-first: NaN mean for 1 round).
    pub s: [Sample; 2],
    /// Every measured round's figure, in order (`load` keeps them: the
    /// change round by round pairs them across points).
    pub rounds: &'t [f64],
}

impl<'t> Point<'t> {
    /// A point that states nothing yet. Not inlined: the default is 1 KB
    /// of stores, and three places start a point.
    #[inline(never)]
    pub fn empty() -> Point<'t> {
        Point::default()
    }

    /// `key` as written, empty when the point does not write it: what is
    /// echoed and matched as it is (a kernel release, a boot id).
    pub fn tag(&self, key: Key) -> &'t [u8] {
        self.values[key as usize].unwrap_or(b"")
    }

    /// What the point states for `key`: not `unknown` (a fact the run
    /// could not read), not empty. Not inlined: nine callers each had
    /// their own copy of the two tests.
    #[inline(never)]
    pub fn get(&self, key: Key) -> Option<&'t [u8]> {
        self.values[key as usize].filter(|v| !v.is_empty() && *v != b"unknown")
    }

    /// The boot it ran on: None where it states none (it is then a boot
    /// of its own).
    pub fn boot(&self) -> Option<BootId> {
        self.boot
    }

    /// The `key=value` words of its contract line (none: it has none, as
    /// a TSV or the C tools' files).
    pub fn contract(&self) -> impl Iterator<Item = (&'t [u8], &'t [u8])> {
        let words = self.contract.unwrap_or(b"").split(|&b| b == b' ');
        words.filter_map(key_value)
    }

    /// It has a contract line.
    pub fn has_contract(&self) -> bool {
        self.contract.is_some()
    }

    /// It states none of the keys (the C standalone).
    pub fn states_nothing(&self) -> bool {
        KEYS.iter().all(|k| self.get(k.0).is_none())
    }

    /// The profile its rows are of (pollwake's: the mode read), as written.
    pub fn profile(&self) -> &'t [u8] {
        self.rows_profile.unwrap_or(self.tag(Key::Profile))
    }

    /// Its `# series:` lines: what each series of its table is.
    pub fn series(&self) -> &[Series<'t>] {
        &self.series[..self.n_series]
    }

    /// What the series its rows are of is, when it says.
    pub fn rows_series(&self) -> Option<&Series<'t>> {
        self.series().iter().find(|s| s.name == self.profile())
    }

    /// Its `# witness: ` lines, without the `# `.
    pub fn witness(&self) -> &[&'t [u8]] {
        &self.witness[..self.n_witness]
    }

    /// Timed on QEMU TCG's instruction clock: its figures are guest
    /// instructions per pair, not time.
    pub fn icount(&self) -> bool {
        self.tag(Key::Timebase) == b"icount"
    }

    /// Every row passed its checks.
    pub fn valid(&self) -> bool {
        self.failed_rounds == 0 && self.run_passed
    }

    /// The same point, run on boot number `n` (tests).
    #[cfg(test)]
    pub fn on_boot(mut self, n: u128) -> Self {
        self.boot = Some(BootId::numbered(n));
        self
    }

    /// What a `#` line of our stdout states (`second`: it follows the
    /// banner, so it is the contract line): the banner's and the contract
    /// line's `key=value` words (the banner's first word is the version),
    /// a fact line's `# key=value`, a witness line.
    fn note(&mut self, line: &'t [u8], second: bool) {
        if let Some(w) = line.strip_prefix(b"# witness: ") {
            // The clean-up line (`removed INSTANCE tracing=off`) names this
            // run's PID: it is housekeeping, not the kernel's account.
            if self.n_witness < MAX_WITNESS && !w.is_empty() && !w.starts_with(b"removed ") {
                self.witness[self.n_witness] = &line[2..];
                self.n_witness += 1;
            }
        } else if line.starts_with(b"# checks: ") {
            self.checks = Some(&line[2..]);
        }
        let words = if let Some(rest) = banner(line) {
            self.values[Key::Version as usize] = rest.split(|&b| b == b' ').next();
            rest
        } else if second {
            let words = line.strip_prefix(b"# ").unwrap_or(b"");
            self.contract = Some(words);
            words
        } else {
            if let Some((key, value)) = line.strip_prefix(b"# ").and_then(key_value) {
                self.set(LINE_KEYS..KEYS.len(), key, value);
            }
            return;
        };
        for (key, value) in words.split(|&b| b == b' ').filter_map(key_value) {
            self.set(0..LINE_KEYS, key, value);
        }
    }

    /// A `# series:` line (`rest`: after its prefix), line `no`.
    fn add_series(&mut self, rest: &'t [u8], no: usize) -> Result<(), Refusal<'t>> {
        let s = series::Series::parse(rest).map_err(|why| refuse(no, why, b""))?;
        if self.n_series == MAX_SERIES_LINES {
            return Err(refuse(no, "more than 8 series lines", b""));
        }
        self.series[self.n_series] = s;
        self.n_series += 1;
        Ok(())
    }

    /// `value` for the key whose stdout word is `key`, among `KEYS[keys]`.
    fn set(&mut self, keys: Range<usize>, key: &[u8], value: &'t [u8]) {
        let start = keys.start;
        if let Some(i) = KEYS[keys].iter().position(|k| k.1.as_bytes() == key) {
            self.values[start + i] = Some(value);
        }
    }

    /// What a TSV row states in `columns` (by `Key`): the first row that
    /// counts states it for the point; every row, the `ONE_RUN` keys alike.
    fn columns(
        &mut self,
        row: &PointRow<'t>,
        first: bool,
        columns: &KeyColumns,
    ) -> Result<(), Refusal<'t>> {
        for (k, col) in columns.iter().enumerate() {
            let Some(v) = col.map(|c| row.at(c)) else {
                continue;
            };
            if first {
                // A TSV has the column always; 0 is what a banner leaves out.
                let zero = k == Key::InjectNs as usize && v == b"0";
                self.values[k] = if zero { None } else { Some(v) };
            }
        }
        for (key, why) in ONE_RUN {
            if let Some(v) = columns[key as usize].map(|c| row.at(c)) {
                // Boot ids are read as ids (BootId): letter case and blanks
                // say nothing; what is no boot id is refused after.
                let ids = |w: &[u8]| BootId::parse(w).ok();
                let same = match key {
                    Key::BootId => ids(self.tag(key)) == ids(v),
                    _ => self.tag(key) == v,
                };
                if !first && !same {
                    return Err(row.refuse(why, v));
                }
            }
        }
        Ok(())
    }
}

/// The TSV column of each key (by `Key`), where the header has it.
type KeyColumns = [Option<usize>; KEYS.len()];

/// Why a table of several series was read without `--mode`.
const SEVERAL: &str = "a table of several modes: pick one with --mode";

/// The series a table of several contributes, picked by `--mode`
/// (`mode`: the series' name, the one cli found for the mode word; `no`:
/// the header's line): the one a series line names so or, of a point
/// without series lines (an older one), the rows of that name. None: no
/// `--mode`, and no series lines to name the modes by (the rows will).
fn pick<'t: 's, 's>(
    p: &Point<'t>,
    mode: Option<&'s [u8]>,
    no: usize,
) -> Result<Option<&'s [u8]>, Refusal<'t>> {
    let mut modes = Modes::default();
    for m in p.series().iter().filter_map(|s| s.mode) {
        modes.add(m);
    }
    let refused = |why| Refusal {
        line: no,
        why,
        detail: Detail::Modes(modes),
    };
    let stated = |name: &[u8]| p.n_series == 0 || p.series().iter().any(|s| s.name == name);
    match mode {
        Some(name) if stated(name) => Ok(Some(name)),
        Some(_) => Err(refused("no such mode in this table: pick one with --mode")),
        None if p.n_series == 0 => Ok(None),
        None => Err(refused(SEVERAL)),
    }
}

/// Reads one saved point. `values` is scratch space for its rounds; `room`
/// takes its cost counts; `mode` picks the series a table of several
/// contributes (`--mode`; None otherwise). Not inlined: inlined into its
/// caller, the Point (1.5 KiB) was copied there a piece at a time, 2 KB of
/// moves; returned from a call it is built in place.
#[inline(never)]
pub fn read<'t>(
    text: &'t [u8],
    values: &mut [f64; MAX_ROUNDS],
    room: &mut CountRoom<'t>,
    mode: Option<&[u8]>,
) -> Result<Point<'t>, Refusal<'t>> {
    let mut p = Point::empty();
    let mut cost = Reader::default();
    // A table of several series: its header's line and (without series
    // lines) the modes its rows name.
    let (mut header, mut rows_modes) = (0, Modes::default());
    let (mut table, mut banner_seen, mut after_banner) = (None, false, false);
    let mut columns: KeyColumns = [None; KEYS.len()];
    let mut rounds = Rounds::new(values);
    // The run's own verdict, once its mean row is read; whether it says it
    // was interrupted.
    let (mut verdict, mut cut) = (None, false);
    for (no, line) in lines(text) {
        if line[0] == b'#' {
            let is = banner(line).is_some();
            if is && (banner_seen || table.is_some()) {
                return Err(refuse(no, "a second run banner (one run per file)", b""));
            }
            // Only our stdout's `#` lines state anything (before the
            // header, any file's might: see below).
            if table
                .as_ref()
                .is_none_or(|t: &Table| t.format == Format::Stdout)
            {
                if let Some(rest) = line.strip_prefix(COST_PREFIX) {
                    // The series the rows are of: the one picked, or the banner's.
                    let pick = table.as_ref().and_then(|t: &Table| t.pick);
                    let profile = p.tag(Key::Profile);
                    let ours = |s: &[u8]| s == pick.unwrap_or(profile);
                    cost.line(rest, no, &ours, room);
                } else if let Some(rest) = line.strip_prefix(SERIES_PREFIX) {
                    p.add_series(rest, no)?;
                } else {
                    p.note(line, after_banner);
                }
            }
            (after_banner, banner_seen) = (is, banner_seen || is);
            cut |= line.starts_with(b"# interrupted: ") || line.ends_with(b"-> INTERRUPTED");
            continue;
        }
        after_banner = false;
        let Some(t) = &mut table else {
            let mut t = Table::new(no, line, banner_seen)?;
            if t.modes {
                (t.pick, header) = (pick(&p, mode, no)?, no);
            } else if mode.is_some() {
                return Err(refuse(
                    no,
                    "--mode applies to a table of several modes only",
                    b"",
                ));
            }
            if t.format != Format::Stdout {
                // A TSV's `#` lines are comments; the standalone states nothing.
                (p, cost) = (Point::empty(), Reader::default());
            }
            if t.format.tsv() {
                let formal = t.format == Format::Formal;
                for (col, k) in columns.iter_mut().zip(KEYS) {
                    let foreign = formal && matches!(k.0, Key::Sha | Key::Version);
                    if !k.2.is_empty() && !foreign {
                        *col = t.column(k.2.as_bytes());
                    }
                }
            }
            table = Some(t);
            continue;
        };
        if t.modes {
            // Its first column is the row's series: PROFILE_MODE.
            let series = line.split(|&b| b == b'\t').next().unwrap_or(b"");
            let profile = p.tag(Key::Profile);
            let m = series
                .strip_prefix(profile)
                .and_then(|m| m.strip_prefix(b"_"));
            rows_modes.add(m.unwrap_or(series));
        }
        let Some(row) = t.row(no, line)? else {
            continue;
        };
        if t.modes {
            p.rows_profile = Some(row.at(0));
        }
        if row.cut {
            // The TSV trailer carries the plan too.
            p.columns(&row, rounds.n == 0, &columns)?;
            cut = true;
            continue;
        }
        let v = numbers(&row)?;
        if row.mean {
            verdict = Some(mean_row(&rounds, &row, &v)?);
            continue;
        }
        round_row(&row, &v)?;
        p.columns(&row, rounds.n == 0, &columns)?;
        rounds.add(&row, &v)?;
    }
    let Some(table) = table else {
        let why = match lines(text).next() {
            Some(_) => "no result header (only comments)",
            None => "empty file",
        };
        return Err(refuse(0, why, b""));
    };
    if table.modes && (table.pick.is_none() || rounds.n == 0 && !cut) {
        let why = match table.pick {
            None => SEVERAL,
            Some(_) => "no rows of this mode in the table: pick one with --mode",
        };
        return Err(Refusal {
            line: header,
            why,
            detail: Detail::Modes(rows_modes),
        });
    }
    if let Some(phase) = table.unmeasured {
        return Err(refuse(
            0,
            "not a measured point (a smoke or trace run)",
            phase,
        ));
    }
    // A boot id is read as the UUID it is; what states none is none.
    let id = p.values[Key::BootId as usize].unwrap_or(b"");
    p.boot = BootId::parse(id).map_err(|()| refuse(0, boot_id::NOT_A_BOOT_ID, id))?;
    if p.boot.is_none() {
        p.values[Key::BootId as usize] = None;
    }
    let timebase = p.values[Key::Timebase as usize];
    if let Some(t) = timebase.filter(|&t| t != b"wall" && t != b"icount") {
        return Err(refuse(0, "timebase is neither wall nor icount", t));
    }
    let planned = match p.values[Key::Rounds as usize] {
        Some(m) => {
            Some(uint(m).ok_or(refuse(0, "the planned rounds are not a whole number", m))?)
        }
        None => None,
    };
    // A killed run leaves no trailer: passing rounds short of the plan.
    let short =
        table.format.tsv() && rounds.failed == 0 && planned.is_some_and(|m| (rounds.n as u64) < m);
    if cut || short {
        return Err(Refusal {
            line: 0,
            why: "interrupted run",
            detail: Detail::Rounds {
                done: rounds.n as u32, // at most MAX_ROUNDS
                planned: p.values[Key::Rounds as usize].unwrap_or(b"?"),
            },
        });
    }
    if rounds.n == 0 {
        return Err(refuse(0, "no measured rounds", b""));
    }
    if verdict.is_none() && !table.format.tsv() {
        return Err(refuse(0, "no mean row (was the run cut short?)", b""));
    }
    // Every `#` line of our stdout went through `note`, which keeps the checks line.
    if table.format == Format::Stdout && p.checks.is_none() {
        return Err(refuse(0, "incomplete run: no checks line", b""));
    }
    p.format = table.format;
    p.run_passed = verdict.unwrap_or(true);
    (p.pairs, p.failed_rounds, p.s) = (rounds.per_round, rounds.failed, rounds.samples());
    // The cost lines count every measured round's pairs.
    p.cost = cost.finish(p.pairs.saturating_mul(rounds.n as u64), room);
    Ok(p)
}

/// The `# series:` lines of a point's text, each read (or why it is out of
/// its format), in order: what a table of several series holds, before any
/// of it is picked.
pub fn series_lines(text: &[u8]) -> impl Iterator<Item = Result<Series<'_>, &'static str>> {
    lines(text)
        .filter_map(|(_, l)| l.strip_prefix(SERIES_PREFIX))
        .map(Series::parse)
}

/// The rest of the run banner `# uring-repro ...` after its prefix.
fn banner(line: &[u8]) -> Option<&[u8]> {
    line.strip_prefix(b"# uring-repro ")
        .filter(|rest| !rest.is_empty())
}

/// `key=value` split at the first `=`.
pub(super) fn key_value(word: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = word.iter().position(|&b| b == b'=')?;
    Some((&word[..i], &word[i + 1..]))
}

/// The lines that are not blank, numbered from 1, without a trailing `\r`.
fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    text.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.is_empty())
}
#[cfg(test)]
mod tests;
