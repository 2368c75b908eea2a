//! A saved point's table: its header tells the format (never guessed),
//! then each row is checked in turn, the first that fails being the
//! file's error. Every format is one tab-separated table with a header:
//!
//! - uring-repro's stdout and the C standalone's: `round pairs
//!   ns_per_pair semantic_pass`, ended by the `mean` row (`partial` in
//!   its place when the run was interrupted);
//! - a table of several series (pollwake's modes): the same columns after
//!   a `profile` column, the row's series, one set of rows and mean row
//!   per series; the series read is picked (`--mode`);
//! - uring-repro's `--tsv` file and the formal C reproducer's TSV: a
//!   header starting `schema_version`, columns found by name; ours has a
//!   `tool_version` column, the formal one does not. Only rows of phase
//!   `measured` count (`interrupted` is our trailer of a cut run), and a
//!   row's ns_per_pair must agree with its timed_ns / pairs.
//!
//! Numbers are plain decimals (`180.078890`), read as bytes.

use crate::decimal;
use crate::stats::{summarize, Summary};

/// Most measured rounds in one point (a run's `--rounds` limit).
pub const MAX_ROUNDS: usize = crate::config::MAX_ROUNDS as usize;
/// Most columns of a row.
pub const MAX_COLS: usize = 64;

/// The stdout table's header (ours and the C standalone's).
pub const TABLE_HEADER: &[u8] = b"round\tpairs\tns_per_pair\tsemantic_pass";
/// A table of several series: the same columns after the row's series.
pub const MODE_TABLE_HEADER: &[u8] = b"profile\tround\tpairs\tns_per_pair\tsemantic_pass";
/// Most modes named of one table.
pub const MAX_MODES: usize = 8;

/// The modes of a table of several series, to name them
/// (`none|idle|waiter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modes<'t> {
    names: [&'t [u8]; MAX_MODES],
    n: usize,
}

impl<'t> Modes<'t> {
    /// `mode` once (the first MAX_MODES).
    pub fn add(&mut self, mode: &'t [u8]) {
        if self.n < MAX_MODES && !self.names[..self.n].contains(&mode) {
            self.names[self.n] = mode;
            self.n += 1;
        }
    }

    pub fn names(&self) -> &[&'t [u8]] {
        &self.names[..self.n]
    }
}

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

    /// Ours (stdout or `--tsv`), not the C tools'.
    pub fn ours(self) -> bool {
        matches!(self, Format::Stdout | Format::Tsv)
    }

    /// A TSV (else a stdout table, which ends with its mean row).
    pub fn tsv(self) -> bool {
        matches!(self, Format::Tsv | Format::Formal)
    }
}

/// Why a file cannot be used: line (1-based; 0 = the whole file), the
/// reason, and what is shown after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal<'t> {
    pub line: usize,
    pub why: &'static str,
    pub detail: Detail<'t>,
}

/// What a refusal shows after its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail<'t> {
    Nothing,
    /// The offending text, quoted.
    Text(&'t [u8]),
    /// An interrupted run: the rounds it completed, and those it planned
    /// as written (`?` when it does not say).
    Rounds {
        done: u32,
        planned: &'t [u8],
    },
    /// The modes the table holds, to pick from.
    Modes(Modes<'t>),
}

/// Line `line` refused for `why`, `text` quoted after it (when any).
pub fn refuse<'t>(line: usize, why: &'static str, text: &'t [u8]) -> Refusal<'t> {
    let detail = if text.is_empty() {
        Detail::Nothing
    } else {
        Detail::Text(text)
    };
    Refusal { line, why, detail }
}

// Step 1: the format, from the header.

/// Where the columns every table has are: the stdout tables have the
/// first four; a TSV must have phase and timed_ns too.
#[derive(Clone, Copy)]
struct RowColumns {
    round: usize,
    pairs: usize,
    ns_per_pair: usize,
    pass: usize,
    phase: Option<usize>,
    timed_ns: Option<usize>,
}

/// The table, as its header describes it, and how far it is read.
pub struct Table<'t, 's> {
    header: Cells<'t>,
    col: RowColumns,
    pub format: Format,
    /// A table of several series: its rows of the series picked (by its
    /// name, its rows' first cell) count.
    pub modes: bool,
    pub pick: Option<&'s [u8]>,
    /// The mean row was read: the table is over.
    ended: bool,
    /// The phase of a `smoke` or `trace` row, once one is read.
    pub unmeasured: Option<&'t [u8]>,
}

impl<'t, 's> Table<'t, 's> {
    /// What the header says the file is (`banner`: after a run banner);
    /// the series a table of several contributes is picked after.
    pub fn new(no: usize, header: &'t [u8], banner: bool) -> Result<Self, Refusal<'t>> {
        let tsv = header.len() > 15 && header.starts_with(b"schema_version\t");
        let modes = header == MODE_TABLE_HEADER;
        // What the file is comes first: `--mode` on junk is junk.
        if !tsv && !modes && header != TABLE_HEADER {
            return Err(refuse(
                no,
                "not a result of uring-repro, the C standalone or the formal C reproducer",
                excerpt(header),
            ));
        }
        let h = Cells::of(header);
        if h.n > MAX_COLS {
            return Err(refuse(no, "more than 64 columns", b""));
        }
        let need = |name: &'static [u8]| {
            h.find(name)
                .ok_or(refuse(no, "the TSV header lacks a column", name))
        };
        let col = RowColumns {
            round: need(b"round")?,
            pairs: need(b"pairs")?,
            ns_per_pair: need(b"ns_per_pair")?,
            pass: need(b"semantic_pass")?,
            phase: if tsv { Some(need(b"phase")?) } else { None },
            timed_ns: if tsv { Some(need(b"timed_ns")?) } else { None },
        };
        let format = match (tsv, h.find(b"tool_version").is_some(), banner) {
            (true, true, _) => Format::Tsv,
            (true, false, _) => Format::Formal,
            (false, _, true) => Format::Stdout,
            (false, _, false) => Format::Standalone,
        };
        Ok(Table {
            header: h,
            col,
            format,
            modes,
            pick: None,
            ended: false,
            unmeasured: None,
        })
    }

    /// The index of the column named `name` (the first of that name).
    pub fn column(&self, name: &[u8]) -> Option<usize> {
        self.header.find(name)
    }

    // Step 2: the one reader of the table's rows.

    /// Line `no` as a row, if it counts (a table of several series: of the
    /// series picked; TSV: of the measured phase). A second header is an
    /// error anywhere (in a table of several series too, where it is no
    /// row of another one); after the mean row, so is any row.
    pub fn row(&mut self, no: usize, line: &'t [u8]) -> Result<Option<PointRow<'t>>, Refusal<'t>> {
        let header = self.header.line;
        if line == header {
            return Err(refuse(no, "a second table header (one run per file)", b""));
        }
        let (cells, c) = (Cells::of(line), self.col);
        let same_width = cells.n == self.header.n;
        // A table of several series: its first column is the row's series.
        if self.modes && same_width && self.pick != Some(cells.at[0]) {
            return Ok(None);
        }
        if self.ended {
            return Err(refuse(no, "data after the mean row", excerpt(line)));
        }
        if !same_width {
            return Err(refuse(no, "not as many cells as the header has", b""));
        }
        let round = cells.at[c.round];
        let cut = match c.phase.map(|i| cells.at[i]) {
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
        Ok(Some(PointRow {
            no,
            cells,
            col: c,
            mean: self.ended && !cut,
            cut,
        }))
    }
}

/// A row's cells (their count checked, not yet their values).
pub struct PointRow<'t> {
    no: usize,
    cells: Cells<'t>,
    col: RowColumns,
    /// The mean row, which ends a stdout table.
    pub mean: bool,
    /// The run was interrupted: a stdout `partial` row (in place of the
    /// mean row) or our TSV's `interrupted` trailer.
    pub cut: bool,
}

impl<'t> PointRow<'t> {
    pub fn refuse(&self, why: &'static str, text: &'t [u8]) -> Refusal<'t> {
        refuse(self.no, why, text)
    }

    /// The cell in column `i` (a column the header has: every row has as
    /// many cells).
    pub fn at(&self, i: usize) -> &'t [u8] {
        self.cells.at[i]
    }

    fn pairs(&self) -> &'t [u8] {
        self.at(self.col.pairs)
    }

    fn ns_per_pair(&self) -> &'t [u8] {
        self.at(self.col.ns_per_pair)
    }
}

/// A line's tab-separated cells (the first MAX_COLS) and how many it has.
struct Cells<'t> {
    line: &'t [u8],
    at: [&'t [u8]; MAX_COLS],
    n: usize,
}

impl<'t> Cells<'t> {
    fn of(line: &'t [u8]) -> Self {
        let mut c = Cells {
            line,
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

    fn find(&self, name: &[u8]) -> Option<usize> {
        self.at[..self.n.min(MAX_COLS)]
            .iter()
            .position(|&c| c == name)
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
pub struct Numbers {
    pairs: u64,
    ns_per_pair: f64,
    pass: bool,
}

pub fn numbers<'t>(row: &PointRow<'t>) -> Result<Numbers, Refusal<'t>> {
    let not_positive = "ns_per_pair is not a positive decimal number";
    let pass = row.at(row.col.pass);
    Ok(Numbers {
        pairs: uint(row.pairs()).ok_or(row.refuse("pairs is not a whole number", row.pairs()))?,
        ns_per_pair: decimal(row.ns_per_pair())
            .filter(|&v| v > 0.0)
            .ok_or(row.refuse(not_positive, row.ns_per_pair()))?,
        pass: match pass {
            b"1" => true,
            b"0" => false,
            s => return Err(row.refuse("semantic_pass is not 0 or 1", s)),
        },
    })
}

/// The mean row sums up the rounds above it; returns its verdict.
pub fn mean_row<'t>(rounds: &Rounds, row: &PointRow<'t>, v: &Numbers) -> Result<bool, Refusal<'t>> {
    if rounds.n == 0 {
        return Err(row.refuse("a mean row without rounds", b""));
    }
    if v.pairs != rounds.pairs {
        return Err(row.refuse("mean row pairs are not the rounds' sum", row.pairs()));
    }
    // Six printed decimals on each side: 1e-5 is far above rounding.
    if (v.ns_per_pair - rounds.mean()).abs() > 1e-5 + 1e-9 * v.ns_per_pair {
        return Err(row.refuse("mean row disagrees with the rounds", row.ns_per_pair()));
    }
    Ok(v.pass)
}

/// A round is numbered, and a TSV's ns_per_pair is its timed_ns / pairs.
pub fn round_row<'t>(row: &PointRow<'t>, v: &Numbers) -> Result<(), Refusal<'t>> {
    let round = row.at(row.col.round);
    uint(round).ok_or(row.refuse("round is not a whole number", round))?;
    let Some(timed_ns) = row.col.timed_ns.map(|i| row.at(i)) else {
        return Ok(());
    };
    let ns = uint(timed_ns).ok_or(row.refuse("timed_ns is not a whole number", timed_ns))?;
    // To the printed precision of ns_per_pair.
    if (v.ns_per_pair - ns as f64 / v.pairs as f64).abs() > 1e-4 * v.ns_per_pair + 1e-6 {
        return Err(row.refuse("ns_per_pair is not timed_ns / pairs", row.ns_per_pair()));
    }
    Ok(())
}

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

/// The rounds read: their ns/pair for the summary, sums for the mean
/// (ns = ns/pair * pairs), the first round's share for drop-first; the
/// pairs of a round that passed, and the rounds that failed.
#[derive(Default)]
pub struct Rounds<'v> {
    values: &'v mut [f64],
    pub n: usize,
    ns: f64,
    pairs: u64,
    first_ns: f64,
    first_pairs: u64,
    /// Pairs per round (of the rounds that passed; 0 when none did).
    pub per_round: u64,
    /// Rounds with semantic_pass 0.
    pub failed: u32,
}

impl<'v> Rounds<'v> {
    /// None yet; `values` holds their ns/pair.
    pub fn new(values: &'v mut [f64]) -> Self {
        Rounds {
            values,
            ..Rounds::default()
        }
    }

    fn mean(&self) -> f64 {
        self.ns / self.pairs as f64
    }

    /// One more round: within the limit of rounds; of the pairs every
    /// passing round has (a failed round may be cut short, so its pairs
    /// say nothing: it is counted instead); its pairs within a u64.
    pub fn add<'t>(&mut self, row: &PointRow<'t>, v: &Numbers) -> Result<(), Refusal<'t>> {
        if self.n == MAX_ROUNDS {
            return Err(row.refuse("more than 4096 rounds in one point", b""));
        }
        if v.pairs == 0 {
            return Err(row.refuse("a round of 0 pairs", row.pairs()));
        }
        if !v.pass {
            self.failed += 1;
        } else if self.per_round == 0 {
            self.per_round = v.pairs;
        } else if v.pairs != self.per_round {
            return Err(row.refuse("pairs per round differ within one point", row.pairs()));
        }
        // Checked: a wrapped sum would pass the mean row's check and skew
        // the mean (no real run comes near: 4096 x 6.4e8 pairs).
        let Some(total) = self.pairs.checked_add(v.pairs) else {
            return Err(row.refuse("the rounds' pairs overflow a 64-bit count", row.pairs()));
        };
        let ns = v.ns_per_pair * v.pairs as f64;
        if self.n == 0 {
            (self.first_ns, self.first_pairs) = (ns, v.pairs);
        }
        self.values[self.n] = v.ns_per_pair;
        (self.n, self.ns, self.pairs) = (self.n + 1, self.ns + ns, total);
        Ok(())
    }

    /// All rounds, and all but the first (of at least one).
    pub fn samples(&self) -> [Sample; 2] {
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
pub fn uint(s: &[u8]) -> Option<u64> {
    decimal::whole(s, decimal::U64_DIGITS).ok()
}

/// A non-negative plain decimal, `123` or `123.456`; digits past the 18th
/// significant one are ignored (far below any printed precision).
pub fn decimal(s: &[u8]) -> Option<f64> {
    decimal::decimal(s, decimal::UNBOUNDED).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
