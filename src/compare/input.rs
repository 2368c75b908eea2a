//! Result files -> one `Point` each. Five formats, told apart by their
//! header (never guessed):
//!
//! - uring-repro's stdout: a `# uring-repro ` banner (profile=, kernel=,
//!   boot_id=) and other `#` lines, the table `round pairs ns_per_pair
//!   semantic_pass`, its `mean` row, `#` summary lines;
//! - the C standalone's stdout: the same table, no banner;
//! - pollwake's stdout: the same table after a `profile` column, one set
//!   of rows and mean row per mode; `--mode` picks the mode read;
//! - uring-repro's `--tsv` file and the formal C reproducer's TSV: a header
//!   starting `schema_version`, columns found by name; ours has a
//!   `tool_version` column, the formal one does not. Only rows whose phase
//!   is `measured` count, and ns_per_pair must agree with timed_ns / pairs.
//!
//! Only a whole run is a point. An interrupted one is refused, whatever it
//! measured: on stdout, a `partial` row instead of the mean row, a
//! `# interrupted: N of M rounds` line or a checks line ending
//! `-> INTERRUPTED`; in our TSV, a row of phase `interrupted`, or, with no
//! such row (the run was killed), rounds that all passed but fall short of
//! the `rounds_planned` column. So is our stdout without its `# checks:`
//! line, and a TSV of a smoke or trace run. A run that failed stops early
//! as well, but it is a point, an invalid one.
//!
//! All are one tab-separated table with a header, so one reader reads them
//! (`#` lines are comments, blank lines and a trailing `\r` are ignored);
//! then every row passes the checks in turn, and the first that fails is
//! the file's error. Numbers are plain decimals (`180.078890`).

use crate::stats::{summarize, Summary};

/// Most bytes `compare` reads, all files together (a TSV of 4096 rounds is
/// ~1 MiB with 250-byte rows; the contract's 15 rounds take 1 KiB on stdout).
pub const MAX_INPUT_BYTES: usize = 4 << 20;
/// Most measured rounds in one point (a run's `--rounds` limit).
pub const MAX_ROUNDS: usize = crate::config::MAX_ROUNDS as usize;
/// Most columns of a row.
pub const MAX_COLS: usize = 64;

/// The stdout table's header (ours and the C standalone's).
pub const TABLE_HEADER: &[u8] = b"round\tpairs\tns_per_pair\tsemantic_pass";
/// pollwake's table: the same columns after the row's profile.
pub const MODE_TABLE_HEADER: &[u8] = b"profile\tround\tpairs\tns_per_pair\tsemantic_pass";
/// The `--mode` names and the profile each selects in a pollwake table.
pub const MODES: [(&str, &str); 4] = [
    ("none", "pollwake_none"),
    ("idle", "pollwake_idle"),
    ("waiter", "pollwake_waiter"),
    ("none_aa", "pollwake_none_aa"),
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Stdout,
    Tsv,
    Standalone,
    Formal,
}

impl Format {
    /// The tool that wrote it.
    pub fn tool(self) -> &'static str {
        match self {
            Format::Stdout | Format::Tsv => "uring-repro",
            Format::Standalone => "the C standalone",
            Format::Formal => "the formal C reproducer",
        }
    }

    /// A TSV (else a stdout table, which ends with its mean row).
    fn tsv(self) -> bool {
        matches!(self, Format::Tsv | Format::Formal)
    }
}

/// Indices into `Point::tags`.
pub const PROFILE: usize = 0;
pub const KERNEL: usize = 1;
pub const BOOT_ID: usize = 2;
/// The rounds the run planned: the banner's `rounds=` (stdout) or the
/// `rounds_planned` column (our TSV), as written.
pub const PLANNED: usize = 3;
/// What the run's clock counted: `wall` (time) or `icount` (guest
/// instructions, under QEMU TCG's instruction clock); the banner's
/// `timebase=` or the `timebase` column. A file that does not say is wall
/// time.
pub const TIMEBASE: usize = 4;

/// A point's rounds summarized: `mean` is weighted by pairs (total ns over
/// total pairs); the rest (median, spread, CV) treats rounds alike.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    pub mean: f64,
    pub s: Summary,
}

/// Indices into `Point::s`: every round, every round but the first.
pub const ALL: usize = 0;
pub const REST: usize = 1;

/// Profile, kernel release, boot id, rounds planned, timebase (indexed by
/// PROFILE, KERNEL, BOOT_ID, PLANNED, TIMEBASE).
type Tags<'t> = [Option<&'t [u8]>; 5];

/// One result file: one boot, one run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point<'t> {
    pub format: Format,
    /// Profile, kernel release, boot id, rounds planned, timebase: slices
    /// of the input, None when it does not carry them (read them through
    /// `tag`).
    pub tags: Tags<'t>,
    /// Pairs per round (of the rounds that passed; 0 when none did).
    pub pairs: u64,
    /// Rounds with semantic_pass 0.
    pub failed_rounds: u32,
    /// False when the run's own verdict (a stdout mean row) says it failed.
    pub run_passed: bool,
    /// All rounds, and all but the first (drop-first: NaN mean for 1 round).
    pub s: [Sample; 2],
}

impl<'t> Point<'t> {
    /// Tag `i` (PROFILE, KERNEL, BOOT_ID, PLANNED, TIMEBASE), empty when
    /// unknown.
    pub fn tag(&self, i: usize) -> &'t [u8] {
        self.tags[i].unwrap_or(b"")
    }

    /// Timed on QEMU TCG's instruction clock: its figures are guest
    /// instructions per pair, not time.
    pub fn icount(&self) -> bool {
        self.tags[TIMEBASE] == Some(b"icount")
    }

    /// Every row passed its checks.
    pub fn valid(&self) -> bool {
        self.failed_rounds == 0 && self.run_passed
    }
}

/// Why a file cannot be used: line (1-based; 0 = the whole file), the
/// reason, and the offending text (possibly empty); for an interrupted run,
/// `done` is the rounds it completed and `text` the rounds it planned (as
/// written, `?` when it does not say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bad<'t> {
    pub line: usize,
    pub why: &'static str,
    pub text: &'t [u8],
    pub done: Option<u32>,
}

/// A value read from the file, or why the file cannot be used.
type Parsed<'t, T> = Result<T, Bad<'t>>;

pub fn bad<'t>(line: usize, why: &'static str, text: &'t [u8]) -> Bad<'t> {
    Bad {
        line,
        why,
        text,
        done: None,
    }
}

/// Parses one result file into `p`. `values` is scratch space for the
/// rounds. `select` is the profile whose rows a pollwake table contributes
/// (from `--mode`; None otherwise).
pub fn parse<'t>(
    text: &'t [u8],
    values: &mut [f64; MAX_ROUNDS],
    p: &mut Point<'t>,
    select: Option<&[u8]>,
) -> Result<(), Bad<'t>> {
    *p = Point::default();
    let (mut table, mut banner, mut after_banner) = (None, false, false);
    let mut rounds = Rounds {
        values,
        ..Rounds::default()
    };
    // The run's own verdict, once its mean row is read; whether it says it
    // was interrupted; whether its checks line was read.
    let (mut verdict, mut cut, mut checks) = (None, false, false);
    for (no, line) in lines(text) {
        if line[0] == b'#' {
            let late = banner || table.is_some();
            after_banner = run_banner(no, line, late, after_banner, &mut p.tags)?;
            banner |= after_banner;
            checks |= line.starts_with(b"# checks: ");
            cut |= line.starts_with(b"# interrupted: ") || line.ends_with(b"-> INTERRUPTED");
            continue;
        }
        after_banner = false;
        let Some(t) = &mut table else {
            table = Some(Table::new(no, line, banner, select)?);
            continue;
        };
        let Some(row) = t.row(no, line)? else {
            continue;
        };
        if row.cut {
            // The TSV trailer carries the plan too.
            same_tags(&row, rounds.n == 0, &mut p.tags)?;
            cut = true;
            continue;
        }
        let v = numbers(&row)?;
        if row.mean {
            verdict = Some(mean_row(&rounds, &row, &v)?);
            continue;
        }
        round_row(&row, &v)?;
        same_tags(&row, rounds.n == 0, &mut p.tags)?;
        if rounds.n == MAX_ROUNDS {
            return Err(row.bad("more than 4096 rounds in one point", b""));
        }
        same_pairs(p, &row, &v)?;
        rounds.add(&row, &v)?;
    }
    let Some(table) = table else {
        let why = match lines(text).next() {
            Some(_) => "no result header (only comments)",
            None => "empty file",
        };
        return Err(bad(0, why, b""));
    };
    if let Some(phase) = table.unmeasured {
        return Err(bad(0, "not a measured point (a smoke or trace run)", phase));
    }
    if let Some(t) = p.tags[TIMEBASE].filter(|&t| t != b"wall" && t != b"icount") {
        return Err(bad(0, "timebase is neither wall nor icount", t));
    }
    let planned = match p.tags[PLANNED] {
        Some(m) => Some(uint(m).ok_or(bad(0, "the planned rounds are not a whole number", m))?),
        None => None,
    };
    // A killed run leaves no trailer: passing rounds short of the plan.
    let short = table.format.tsv()
        && p.failed_rounds == 0
        && planned.is_some_and(|m| (rounds.n as u64) < m);
    if cut || short {
        return Err(Bad {
            done: Some(rounds.n as u32), // at most MAX_ROUNDS
            ..bad(0, "interrupted run", p.tags[PLANNED].unwrap_or(b"?"))
        });
    }
    if rounds.n == 0 {
        return Err(bad(0, "no measured rounds", b""));
    }
    if verdict.is_none() && !table.format.tsv() {
        return Err(bad(0, "no mean row (was the run cut short?)", b""));
    }
    if table.format == Format::Stdout && !checks {
        return Err(bad(0, "incomplete run: no checks line", b""));
    }
    (p.format, p.run_passed) = (table.format, verdict.unwrap_or(true));
    p.s = rounds.samples();
    Ok(())
}

/// The lines that are not blank, numbered from 1, without a trailing `\r`.
fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    text.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.is_empty())
}

/// Whether a `#` line is the run banner, whose `profile=`, `kernel=`,
/// `boot_id=` and `timebase=` go to `tags`, as does the next line's
/// `rounds=` (`second`: this line follows the banner). `late`: a banner or
/// the header came before.
fn run_banner<'t>(
    no: usize,
    line: &'t [u8],
    late: bool,
    second: bool,
    tags: &mut Tags<'t>,
) -> Parsed<'t, bool> {
    let banner = b"# uring-repro ";
    let is = line.len() > banner.len() && line.starts_with(banner);
    if !is && !second {
        return Ok(false);
    }
    if is && late {
        return Err(bad(no, "a second run banner (one run per file)", b""));
    }
    for word in line.split(|&b| b == b' ') {
        let keys = ["profile=", "kernel=", "boot_id=", "rounds=", "timebase="];
        for (tag, key) in tags.iter_mut().zip(keys) {
            if let Some(value) = word.strip_prefix(key.as_bytes()) {
                *tag = Some(value);
            }
        }
    }
    Ok(is)
}

// Step 1: the format, from the header.

/// Where the columns compare reads are. The stdout tables have the first
/// four; a TSV must have phase and timed_ns too; the tags are optional.
#[derive(Clone, Copy)]
struct Columns {
    round: usize,
    pairs: usize,
    ns_per_pair: usize,
    pass: usize,
    phase: Option<usize>,
    timed_ns: Option<usize>,
    tags: [Option<usize>; 5],
}

/// The table, as its header describes it, and how far it is read.
struct Table<'t, 's> {
    header: &'t [u8],
    /// Its cells: every row has as many.
    width: usize,
    col: Columns,
    format: Format,
    /// In a pollwake table, the profile whose rows count.
    only: Option<&'s [u8]>,
    /// The mean row was read: the table is over.
    ended: bool,
    /// The phase of a `smoke` or `trace` row, once one is read.
    unmeasured: Option<&'t [u8]>,
}

impl<'t, 's> Table<'t, 's> {
    /// What the header says the file is (`banner`: after a run banner;
    /// `only`: the `--mode` profile).
    fn new(no: usize, header: &'t [u8], banner: bool, only: Option<&'s [u8]>) -> Parsed<'t, Self> {
        let tsv = header.len() > 15 && header.starts_with(b"schema_version\t");
        let modes = header == MODE_TABLE_HEADER;
        // What the file is comes first: `--mode` on junk is junk.
        if !tsv && !modes && header != TABLE_HEADER {
            return Err(bad(
                no,
                "not a result of uring-repro, the C standalone or the formal C reproducer",
                excerpt(header),
            ));
        }
        if modes != only.is_some() {
            let why = if modes {
                "a pollwake table holds several modes: pick one with --mode none|idle|waiter|none_aa"
            } else {
                "--mode applies to pollwake results only"
            };
            return Err(bad(no, why, b""));
        }
        let h = Cells::of(header);
        if h.n > MAX_COLS {
            return Err(bad(no, "more than 64 columns", b""));
        }
        let find = |name: &[u8]| h.at[..h.n].iter().position(|&c| c == name);
        let need =
            |name: &'static [u8]| find(name).ok_or(bad(no, "the TSV header lacks a column", name));
        let col = Columns {
            round: need(b"round")?,
            pairs: need(b"pairs")?,
            ns_per_pair: need(b"ns_per_pair")?,
            pass: need(b"semantic_pass")?,
            phase: if tsv { Some(need(b"phase")?) } else { None },
            timed_ns: if tsv { Some(need(b"timed_ns")?) } else { None },
            tags: [
                find(b"profile"),
                find(b"kernel_release"),
                find(b"boot_id"),
                find(b"rounds_planned"),
                find(b"timebase"),
            ],
        };
        let format = match (tsv, find(b"tool_version").is_some(), banner) {
            (true, true, _) => Format::Tsv,
            (true, false, _) => Format::Formal,
            (false, _, true) => Format::Stdout,
            (false, _, false) => Format::Standalone,
        };
        Ok(Table {
            header,
            width: h.n,
            col,
            format,
            only,
            ended: false,
            unmeasured: None,
        })
    }

    // Step 2: the one reader of the table's rows.

    /// Line `no` as a row, if it counts (pollwake: of the mode read; TSV:
    /// of the measured phase). A second header is an error anywhere (in a
    /// pollwake table too, where it is no row of another mode); after the
    /// mean row, so is any row.
    fn row(&mut self, no: usize, line: &'t [u8]) -> Parsed<'t, Option<Row<'t>>> {
        if line == self.header {
            return Err(bad(no, "a second table header (one run per file)", b""));
        }
        let (cs, c) = (Cells::of(line), self.col);
        let same_width = cs.n == self.width;
        // Every index was found in the header, which has at most MAX_COLS.
        let at = |i: usize| cs.at[i];
        if self.only.is_some() && same_width && c.tags[PROFILE].map(at) != self.only {
            return Ok(None);
        }
        if self.ended {
            return Err(bad(no, "data after the mean row", excerpt(line)));
        }
        if !same_width {
            return Err(bad(no, "not as many cells as the header has", b""));
        }
        let round = at(c.round);
        let cut = match c.phase.map(at) {
            None => round == b"partial",
            Some(b"measured") => false,
            Some(b"interrupted") => true,
            Some(phase) => {
                // Rows of a smoke or trace run say so: no point at all.
                if phase == b"smoke" || phase == b"trace" {
                    self.unmeasured = Some(phase);
                }
                return Ok(None);
            }
        };
        // A stdout table ends with its mean row, or `partial` in its place.
        self.ended = c.phase.is_none() && (cut || round == b"mean");
        Ok(Some(Row {
            no,
            round,
            pairs: at(c.pairs),
            ns_per_pair: at(c.ns_per_pair),
            pass: at(c.pass),
            timed_ns: c.timed_ns.map(at),
            tags: c.tags.map(|t| t.map(at)),
            mean: self.ended && !cut,
            cut,
        }))
    }
}

/// A row's cells (their count checked, not yet their values).
struct Row<'t> {
    no: usize,
    round: &'t [u8],
    pairs: &'t [u8],
    ns_per_pair: &'t [u8],
    pass: &'t [u8],
    timed_ns: Option<&'t [u8]>,
    tags: [Option<&'t [u8]>; 5],
    /// The mean row, which ends a stdout table.
    mean: bool,
    /// The run was interrupted: a stdout `partial` row (in place of the
    /// mean row) or our TSV's `interrupted` trailer.
    cut: bool,
}

impl<'t> Row<'t> {
    fn bad(&self, why: &'static str, text: &'t [u8]) -> Bad<'t> {
        bad(self.no, why, text)
    }
}

/// A line's tab-separated cells (the first MAX_COLS) and how many it has.
struct Cells<'t> {
    at: [&'t [u8]; MAX_COLS],
    n: usize,
}

impl<'t> Cells<'t> {
    fn of(line: &'t [u8]) -> Self {
        let mut c = Cells {
            at: [b""; MAX_COLS],
            n: 0,
        };
        for cell in line.split(|&b| b == b'\t') {
            if c.n < MAX_COLS {
                c.at[c.n] = cell;
            }
            c.n += 1;
        }
        c
    }
}

/// The start of a line, to quote: 40 bytes, less the bytes of a UTF-8
/// character the cut would split.
fn excerpt(line: &[u8]) -> &[u8] {
    let mut n = line.len().min(40);
    for _ in 0..3 {
        if n < line.len() && n > 0 && line[n] & 0xc0 == 0x80 {
            n -= 1;
        }
    }
    &line[..n]
}

// Step 3: the checks, in the order a row meets them.

/// A row's values, each of the right form.
struct Numbers {
    pairs: u64,
    ns_per_pair: f64,
    pass: bool,
}

fn numbers<'t>(row: &Row<'t>) -> Parsed<'t, Numbers> {
    let not_positive = "ns_per_pair is not a positive decimal number";
    Ok(Numbers {
        pairs: uint(row.pairs).ok_or(row.bad("pairs is not a whole number", row.pairs))?,
        ns_per_pair: decimal(row.ns_per_pair)
            .filter(|&v| v > 0.0)
            .ok_or(row.bad(not_positive, row.ns_per_pair))?,
        pass: match row.pass {
            b"1" => true,
            b"0" => false,
            s => return Err(row.bad("semantic_pass is not 0 or 1", s)),
        },
    })
}

/// The mean row sums up the rounds above it; returns its verdict.
fn mean_row<'t>(rounds: &Rounds, row: &Row<'t>, v: &Numbers) -> Parsed<'t, bool> {
    if rounds.n == 0 {
        return Err(row.bad("a mean row without rounds", b""));
    }
    if v.pairs != rounds.pairs {
        return Err(row.bad("mean row pairs are not the rounds' sum", row.pairs));
    }
    // Six printed decimals on each side: 1e-5 is far above rounding.
    if (v.ns_per_pair - rounds.mean()).abs() > 1e-5 + 1e-9 * v.ns_per_pair {
        return Err(row.bad("mean row disagrees with the rounds", row.ns_per_pair));
    }
    Ok(v.pass)
}

/// A round is numbered, and a TSV's ns_per_pair is its timed_ns / pairs.
fn round_row<'t>(row: &Row<'t>, v: &Numbers) -> Parsed<'t, ()> {
    uint(row.round).ok_or(row.bad("round is not a whole number", row.round))?;
    let Some(timed_ns) = row.timed_ns else {
        return Ok(());
    };
    let ns = uint(timed_ns).ok_or(row.bad("timed_ns is not a whole number", timed_ns))?;
    // To the printed precision of ns_per_pair.
    if (v.ns_per_pair - ns as f64 / v.pairs as f64).abs() > 1e-4 * v.ns_per_pair + 1e-6 {
        return Err(row.bad("ns_per_pair is not timed_ns / pairs", row.ns_per_pair));
    }
    Ok(())
}

/// A point is one run: the tags of its first round hold for every round.
fn same_tags<'t>(row: &Row<'t>, first: bool, tags: &mut Tags<'t>) -> Parsed<'t, ()> {
    const WHY: [&str; 5] = [
        "mixed profiles in one point",
        "mixed kernel releases in one point",
        "mixed boot ids in one point (one boot per file)",
        "mixed rounds_planned in one point",
        "mixed timebases in one point",
    ];
    for (t, (tag, got)) in tags.iter_mut().zip(row.tags).enumerate() {
        match got {
            Some(v) if first => *tag = Some(v),
            Some(v) if tag.unwrap_or(b"") != v => return Err(row.bad(WHY[t], v)),
            _ => {}
        }
    }
    Ok(())
}

/// Every passing round runs the same pairs; a failed round may be cut
/// short, so its pairs say nothing (it is counted instead).
fn same_pairs<'t>(p: &mut Point, row: &Row<'t>, v: &Numbers) -> Parsed<'t, ()> {
    if v.pairs == 0 {
        return Err(row.bad("a round of 0 pairs", row.pairs));
    }
    if !v.pass {
        p.failed_rounds += 1;
    } else if p.pairs == 0 {
        p.pairs = v.pairs;
    } else if v.pairs != p.pairs {
        return Err(row.bad("pairs per round differ within one point", row.pairs));
    }
    Ok(())
}

/// The rounds read: their ns/pair for the summary, sums for the mean
/// (ns = ns/pair * pairs), the first round's share for drop-first.
#[derive(Default)]
struct Rounds<'v> {
    values: &'v mut [f64],
    n: usize,
    ns: f64,
    pairs: u64,
    first_ns: f64,
    first_pairs: u64,
}

impl Rounds<'_> {
    fn mean(&self) -> f64 {
        self.ns / self.pairs as f64
    }

    fn add<'t>(&mut self, row: &Row<'t>, v: &Numbers) -> Parsed<'t, ()> {
        // Checked: a wrapped sum would pass the mean row's check and skew
        // the mean (no real run comes near: 4096 x 6.4e8 pairs).
        let Some(total) = self.pairs.checked_add(v.pairs) else {
            return Err(row.bad("the rounds' pairs overflow a 64-bit count", row.pairs));
        };
        let ns = v.ns_per_pair * v.pairs as f64;
        if self.n == 0 {
            (self.first_ns, self.first_pairs) = (ns, v.pairs);
        }
        self.values[self.n] = v.ns_per_pair; // parse saw to the room
        (self.n, self.ns, self.pairs) = (self.n + 1, self.ns + ns, total);
        Ok(())
    }

    /// All rounds, and all but the first (of at least one).
    fn samples(&self) -> [Sample; 2] {
        let rest = (self.ns - self.first_ns) / (self.pairs - self.first_pairs) as f64;
        let (all, but_first) = (&self.values[..self.n], &self.values[1..self.n]);
        let sample = |mean, v| Sample {
            mean,
            s: summarize(v),
        };
        [sample(self.mean(), all), sample(rest, but_first)]
    }
}

// Numbers, parsed as bytes.

/// A decimal integer (at most 19 digits).
fn uint(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |v, &d| v * 10 + (d - b'0') as u64))
}

/// A non-negative plain decimal, `123` or `123.456`; digits past the 18th
/// significant one are ignored (far below any printed precision).
pub fn decimal(s: &[u8]) -> Option<f64> {
    let dot = s.iter().position(|&b| b == b'.').unwrap_or(s.len());
    let (mut m, mut scale, mut sig) = (0u64, 1f64, 0);
    for (i, &d) in s.iter().enumerate() {
        if i == dot {
            continue;
        }
        if !d.is_ascii_digit() {
            return None;
        }
        if sig == 18 {
            if i < dot {
                return None; // an integer part this long is no ns/pair
            }
            continue;
        }
        m = m * 10 + (d - b'0') as u64;
        sig += (m != 0) as u32;
        if i > dot {
            scale *= 10.0;
        }
    }
    // Digits on both sides of a dot, if there is one.
    if dot == 0 || dot + 1 == s.len() {
        return None;
    }
    Some(m as f64 / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str<'t>(s: &'t str, select: Option<&[u8]>) -> Result<Point<'t>, Bad<'t>> {
        let mut p = Point::default();
        parse(s.as_bytes(), &mut [0.0; MAX_ROUNDS], &mut p, select).map(|()| p)
    }

    const OURS: &str = "\
# uring-repro 0.1.0 profile=s0_wait_wake kernel=6.18.0-test boot_id=aaaa-bbbb cpu=2 clock=vdso
# ring_entries=64 cq_entries=128 slots=32 cycles=512 warmups=3 rounds=3 futex=private
round\tpairs\tns_per_pair\tsemantic_pass
0\t16384\t181.000000\t1
1\t16384\t179.000000\t1
2\t16384\t180.500000\t1
mean\t49152\t180.166667\t1
# median=180.500000 min=179.000000 max=181.000000 cv=0.573%
# per_cycle_ns_per_pair: p50=180.000 p90=181.000 p99=182.000 p99.9=190.000 max=200.000 cycles=1536
# checks: cqes=98304 -> PASS
";

    #[test]
    fn decimals_and_integers() {
        assert_eq!(decimal(b"180.078890"), Some(180.07889));
        assert_eq!(decimal(b"180"), Some(180.0));
        assert_eq!(decimal(b"0.5"), Some(0.5));
        assert_eq!(decimal(b"007.25"), Some(7.25));
        assert_eq!(decimal(b"1.0000000000000000000001"), Some(1.0));
        for junk in [
            "", ".5", "5.", "-1", "+1", "1e3", "nan", "1.2.3", " 1", "1,5",
        ] {
            assert_eq!(decimal(junk.as_bytes()), None, "{junk}");
        }
        assert_eq!(decimal(b"1234567890123456789012"), None);
        assert_eq!(uint(b"16384"), Some(16384));
        assert_eq!(uint(b"9999999999999999999"), Some(10u64.pow(19) - 1));
        assert_eq!(uint(b"18446744073709551616"), None);
        assert_eq!(uint(b"1.0"), None);
    }

    #[test]
    fn our_stdout_hand_computed() {
        let p = parse_str(OURS, None).unwrap();
        assert_eq!(p.format, Format::Stdout);
        assert_eq!(p.tag(PROFILE), b"s0_wait_wake");
        assert_eq!(p.tag(KERNEL), b"6.18.0-test");
        assert_eq!(p.tag(BOOT_ID), b"aaaa-bbbb");
        assert_eq!((p.pairs, p.failed_rounds, p.run_passed), (16384, 0, true));
        // 181, 179, 180.5: mean 540.5/3, sd sqrt(((5/6)^2+(7/6)^2... by hand:
        // deviations +5/6, -7/6, +1/3; squares 25/36 + 49/36 + 4/36 = 78/36;
        // sample variance 39/36; drop-first 179, 180.5: mean 179.75, sd 1.5/sqrt2.
        let (all, rest) = (&p.s[ALL], &p.s[REST]);
        assert!((all.mean - 540.5 / 3.0).abs() < 1e-12);
        assert_eq!(all.s.n, 3);
        assert_eq!((all.s.median, all.s.min, all.s.max), (180.5, 179.0, 181.0));
        assert!((all.s.stddev - (39.0f64 / 36.0).sqrt()).abs() < 1e-12);
        assert!((all.s.cv_pct - (39.0f64 / 36.0).sqrt() / (540.5 / 3.0) * 100.0).abs() < 1e-12);
        assert_eq!(rest.s.n, 2);
        assert!((rest.mean - 179.75).abs() < 1e-12);
        assert!((rest.s.stddev - 1.5 / 2f64.sqrt()).abs() < 1e-12);
        assert!(p.valid());
    }

    #[test]
    fn standalone_stdout_and_weighted_mean() {
        // No banner: the C standalone. A failed round of fewer pairs: the
        // mean weighs by pairs, the pairs check skips it, the point is invalid.
        let s = "round\tpairs\tns_per_pair\tsemantic_pass\r\n0\t100\t10.000000\t1\r\n\
                 1\t300\t20.000000\t0\r\n2\t100\t30.000000\t1\r\n\r\nmean\t500\t20.000000\t1\r\n";
        let p = parse_str(s, None).unwrap();
        assert_eq!(p.format, Format::Standalone);
        assert_eq!(p.tag(PROFILE), b"");
        // (10*100 + 20*300 + 30*100) / 500 = 20; drop-first 9000/400 = 22.5.
        assert_eq!(p.s[ALL].mean, 20.0);
        assert_eq!(p.s[REST].mean, 22.5);
        assert_eq!(p.s[ALL].s.mean, 20.0);
        assert_eq!((p.pairs, p.failed_rounds), (100, 1));
        assert!(!p.valid());
        // The run's own verdict (mean row) counts too.
        let s = "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\t1.5\t1\nmean\t64\t1.5\t0\n";
        let p = parse_str(s, None).unwrap();
        assert!(!p.run_passed && !p.valid());
        // One round: no drop-first.
        assert!(p.s[REST].mean.is_nan() && p.s[REST].s.n == 0);
    }

    #[test]
    fn pollwake_table_one_mode_at_a_time() {
        let s = "# uring-repro 0.1.0 profile=pollwake kernel=6.1.0 boot_id=b1\n\
                 profile\tround\tpairs\tns_per_pair\tsemantic_pass\n\
                 pollwake_none\t0\t64\t1.000000\t1\npollwake_idle\t0\t64\t3.000000\t1\n\
                 pollwake_none\t1\t64\t2.000000\t1\npollwake_idle\t1\t64\t5.000000\t0\n\
                 pollwake_none\tmean\t128\t1.500000\t1\npollwake_idle\tmean\t128\t4.000000\t0\n\
                 # checks: cqes=512 -> FAIL\n";
        // The rows' profile wins over the banner's; the failed round counts.
        let p = parse_str(s, Some(b"pollwake_idle")).unwrap();
        assert_eq!(p.tag(PROFILE), b"pollwake_idle");
        assert_eq!((p.s[ALL].mean, p.s[REST].mean, p.pairs), (4.0, 5.0, 64));
        assert_eq!((p.failed_rounds, p.run_passed), (1, false));
        assert_eq!(p.tag(BOOT_ID), b"b1");
    }

    /// The published child point as the formal C reproducer's TSV: three
    /// warm-up rows, 15 measured ones.
    const FORMAL: &str = include_str!("../../tests/fixtures/published/child.tsv");

    #[test]
    fn formal_tsv_measured_rows_only_and_ours() {
        // A warm-up row with nonsense in a column we read is skipped whole.
        let s = FORMAL.replacen("\twarmup\t", "\twarmup\tx", 1);
        let p = parse_str(&s, None).unwrap();
        assert_eq!(p.format, Format::Formal);
        assert_eq!((p.s[ALL].s.n, p.pairs), (15, 16384));
        assert_eq!(p.tag(KERNEL), b"6.15.0-synthetic-child");
        assert_eq!(p.tag(BOOT_ID), b"0c0c0c0c-0000-4000-8000-000000000002");
        assert_eq!(p.tag(PROFILE), b"s0_wait_wake");
        assert!((p.s[ALL].mean - 196.647).abs() < 1e-6, "{}", p.s[ALL].mean);
        assert!(p.valid());
        // Ours: the same with a tool_version column.
        let version = |(i, l)| format!("{l}\t{}\n", ["tool_version", "0.1.0"][(i > 0) as usize]);
        let s: String = FORMAL.lines().enumerate().map(version).collect();
        let q = parse_str(&s, None).unwrap();
        assert_eq!((q.format, q.s), (Format::Tsv, p.s));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut v = [0.0; MAX_ROUNDS];
        let pieces: [&[u8]; 11] = [
            b"round\tpairs\tns_per_pair\tsemantic_pass\n",
            b"0\t64\t1.0\t1\n",
            b"mean\t64\t1.0\t1\n",
            b"\xff\xfe\t\t\n",
            b"# uring-repro x\n",
            b"schema_version\tphase\tpairs\tns_per_pair\tsemantic_pass\ttimed_ns\tround\n",
            b"1\tmeasured\t64\t1.0\t1\t64\t0\n",
            b"profile\tround\tpairs\tns_per_pair\tsemantic_pass\n",
            b"pollwake_none\tmean\t64\t1.0\t1\n",
            b"\r\n",
            b"\t",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = [a, b, c].concat();
                    for select in [None, Some(&b"pollwake_none"[..])] {
                        let _ = parse(&text, &mut v, &mut Point::default(), select);
                    }
                }
            }
        }
    }
}
