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

pub use super::table::{Format, Refusal, Sample, ALL, MAX_ROUNDS, REST};

use super::table::{mean_row, numbers, refuse, round_row, uint, PointRow, Rounds, Table};

/// What a point states about its run, by index into `KEYS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Version,
    Profile,
    Mode,
    Kernel,
    BootId,
    Cpu,
    CpuChoice,
    Clock,
    Timebase,
    InjectNs,
    Witness,
    RingEntries,
    CqEntries,
    Slots,
    Cycles,
    Warmups,
    Rounds,
    Futex,
    Timeout,
    Sha,
    Machine,
    Preempt,
    PreemptSource,
    CpuModel,
    Governor,
    Turbo,
    Smt,
}

/// Every key's stdout word (the name stderr uses too) and its TSV column
/// (empty: no TSV carries it), each beside its `Key`, in `Key` order (the
/// const assert below holds every row to its place). The banner's keys
/// stand among its words; the fact lines (`machine` on) are one key a
/// line.
pub const KEYS: [(Key, &str, &str); 27] = [
    (Key::Version, "version", "tool_version"),
    (Key::Profile, "profile", "profile"),
    (Key::Mode, "mode", "mode"),
    (Key::Kernel, "kernel", "kernel_release"),
    (Key::BootId, "boot_id", "boot_id"),
    (Key::Cpu, "cpu", "cpu"),
    (Key::CpuChoice, "cpu_choice", ""),
    (Key::Clock, "clock", "clock_source"),
    (Key::Timebase, "timebase", "timebase"),
    (Key::InjectNs, "inject_ns", "inject_ns"),
    (Key::Witness, "witness", "witness"),
    (Key::RingEntries, "ring_entries", "ring_entries"),
    (Key::CqEntries, "cq_entries", ""),
    (Key::Slots, "slots", "slots"),
    (Key::Cycles, "cycles", "cycles"),
    (Key::Warmups, "warmups", ""),
    (Key::Rounds, "rounds", "rounds_planned"),
    (Key::Futex, "futex", "futex_scope"),
    (Key::Timeout, "timeout_s", ""),
    (Key::Sha, "input_sha256", "input_sha256"),
    (Key::Machine, "machine", "machine"),
    (Key::Preempt, "preempt", "preempt"),
    (Key::PreemptSource, "preempt_source", "preempt_source"),
    (Key::CpuModel, "cpu_model", "cpu_model"),
    (Key::Governor, "governor", "governor"),
    (Key::Turbo, "turbo", "turbo"),
    (Key::Smt, "smt", "smt"),
];

// Row i names Key number i, and every Key has its row: a key added to
// one and not the other, or out of order, fails to build.
const _: () = {
    let mut i = 0;
    while i < KEYS.len() {
        assert!(KEYS[i].0 as usize == i);
        i += 1;
    }
    assert!(Key::Smt as usize + 1 == KEYS.len());
};

impl Key {
    /// Its word in our stdout: `kernel` of `kernel=6.15.0`.
    pub fn name(self) -> &'static str {
        KEYS[self as usize].1
    }
}

/// Where the one-a-line keys start in `KEYS`: the banner has those before.
const LINE_KEYS: usize = Key::Machine as usize;

/// What makes a TSV one run: every row says the same for these keys.
const ONE_RUN: [(Key, &str); 5] = [
    (Key::Profile, "mixed profiles in one point"),
    (Key::Kernel, "mixed kernel releases in one point"),
    (
        Key::BootId,
        "mixed boot ids in one point (one boot per file)",
    ),
    (Key::Rounds, "mixed rounds_planned in one point"),
    (Key::Timebase, "mixed timebases in one point"),
];

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
    /// Its `# checks: ` line, without the `# `.
    pub checks: Option<&'t [u8]>,
    /// Its text, whole, when it has `# cost: ` lines (docs/cost.md): read
    /// by cost.rs when a comparison diffs them.
    pub cost: Option<&'t [u8]>,
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
    /// `key` as written, empty when the point does not write it: what is
    /// echoed and matched as it is (a kernel release, a boot id).
    pub fn tag(&self, key: Key) -> &'t [u8] {
        self.values[key as usize].unwrap_or(b"")
    }

    /// What the point states for `key`: not `unknown` (a fact the run
    /// could not read), not empty.
    pub fn get(&self, key: Key) -> Option<&'t [u8]> {
        self.values[key as usize].filter(|v| !v.is_empty() && *v != b"unknown")
    }

    /// It states none of the keys (the C standalone).
    pub fn states_nothing(&self) -> bool {
        KEYS.iter().all(|k| self.get(k.0).is_none())
    }

    /// The profile its rows are of (pollwake's: the mode read), as written.
    pub fn profile(&self) -> &'t [u8] {
        self.rows_profile.unwrap_or(self.tag(Key::Profile))
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

    /// The same point, stating `value` for `key` (tests).
    #[cfg(test)]
    pub fn with(mut self, key: Key, value: &'t [u8]) -> Self {
        self.values[key as usize] = Some(value);
        self
    }

    /// What a `#` line of our stdout states (`second`: it follows the
    /// banner, so it is the contract line): the banner's and the contract
    /// line's `key=value` words (the banner's first word is the version),
    /// a fact line's `# key=value`, a witness line, a cost line (`text`:
    /// the point's).
    fn note(&mut self, line: &'t [u8], second: bool, text: &'t [u8]) {
        if line.starts_with(b"# cost: ") {
            self.cost = Some(text);
            return;
        }
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
            line.strip_prefix(b"# ").unwrap_or(b"")
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
                if !first && self.tag(key) != v {
                    return Err(row.refuse(why, v));
                }
            }
        }
        Ok(())
    }
}

/// The TSV column of each key (by `Key`), where the header has it.
type KeyColumns = [Option<usize>; KEYS.len()];

/// Reads one saved point. `values` is scratch space for its rounds; `only`
/// is the profile whose rows a pollwake table contributes (from `--mode`;
/// None otherwise).
pub fn read<'t>(
    text: &'t [u8],
    values: &mut [f64; MAX_ROUNDS],
    only: Option<&[u8]>,
) -> Result<Point<'t>, Refusal<'t>> {
    let mut p = Point::default();
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
                p.note(line, after_banner, text);
            }
            (after_banner, banner_seen) = (is, banner_seen || is);
            cut |= line.starts_with(b"# interrupted: ") || line.ends_with(b"-> INTERRUPTED");
            continue;
        }
        after_banner = false;
        let Some(t) = &mut table else {
            let t = Table::new(no, line, banner_seen, only)?;
            if t.format != Format::Stdout {
                // A TSV's `#` lines are comments; the standalone states nothing.
                p = Point::default();
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
        let Some(row) = t.row(no, line)? else {
            continue;
        };
        if t.only.is_some() {
            // pollwake's table: its first column is the row's profile.
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
    if let Some(phase) = table.unmeasured {
        return Err(refuse(
            0,
            "not a measured point (a smoke or trace run)",
            phase,
        ));
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
            done: Some(rounds.n as u32), // at most MAX_ROUNDS
            ..refuse(
                0,
                "interrupted run",
                p.values[Key::Rounds as usize].unwrap_or(b"?"),
            )
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
    Ok(p)
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
mod tests {
    use super::*;

    fn read_str<'t>(s: &'t str, only: Option<&[u8]>) -> Result<Point<'t>, Refusal<'t>> {
        read(s.as_bytes(), &mut [0.0; MAX_ROUNDS], only)
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
    fn our_stdout_hand_computed() {
        let p = read_str(OURS, None).unwrap();
        assert_eq!(p.format, Format::Stdout);
        assert_eq!(p.profile(), b"s0_wait_wake");
        assert_eq!(p.tag(Key::Kernel), b"6.18.0-test");
        assert_eq!(p.tag(Key::BootId), b"aaaa-bbbb");
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
        assert_eq!(p.checks, Some(&b"checks: cqes=98304 -> PASS"[..]));
    }

    #[test]
    fn standalone_stdout_and_weighted_mean() {
        // No banner: the C standalone. A failed round of fewer pairs: the
        // mean weighs by pairs, the pairs check skips it, the point is invalid.
        let s = "round\tpairs\tns_per_pair\tsemantic_pass\r\n0\t100\t10.000000\t1\r\n\
                 1\t300\t20.000000\t0\r\n2\t100\t30.000000\t1\r\n\r\nmean\t500\t20.000000\t1\r\n";
        let p = read_str(s, None).unwrap();
        assert_eq!(p.format, Format::Standalone);
        assert_eq!(p.profile(), b"");
        assert!(p.states_nothing());
        // (10*100 + 20*300 + 30*100) / 500 = 20; drop-first 9000/400 = 22.5.
        assert_eq!(p.s[ALL].mean, 20.0);
        assert_eq!(p.s[REST].mean, 22.5);
        assert_eq!(p.s[ALL].s.mean, 20.0);
        assert_eq!((p.pairs, p.failed_rounds), (100, 1));
        assert!(!p.valid());
        // The run's own verdict (mean row) counts too.
        let s = "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\t1.5\t1\nmean\t64\t1.5\t0\n";
        let p = read_str(s, None).unwrap();
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
        // The rows' profile is the mode's; the banner's is the run's.
        let p = read_str(s, Some(b"pollwake_idle")).unwrap();
        assert_eq!(p.profile(), b"pollwake_idle");
        assert_eq!(p.get(Key::Profile), Some(&b"pollwake"[..]));
        assert_eq!((p.s[ALL].mean, p.s[REST].mean, p.pairs), (4.0, 5.0, 64));
        assert_eq!((p.failed_rounds, p.run_passed), (1, false));
        assert_eq!(p.tag(Key::BootId), b"b1");
    }

    /// The published child point as the formal C reproducer's TSV: three
    /// warm-up rows, 15 measured ones.
    const FORMAL: &str = include_str!("../../tests/fixtures/published/child.tsv");

    #[test]
    fn formal_tsv_measured_rows_only_and_ours() {
        // A warm-up row with nonsense in a column we read is skipped whole.
        let s = FORMAL.replacen("\twarmup\t", "\twarmup\tx", 1);
        let p = read_str(&s, None).unwrap();
        assert_eq!(p.format, Format::Formal);
        assert_eq!((p.s[ALL].s.n, p.pairs), (15, 16384));
        assert_eq!(p.get(Key::Kernel), Some(&b"6.15.0-synthetic-child"[..]));
        assert_eq!(p.tag(Key::BootId), b"0c0c0c0c-0000-4000-8000-000000000002");
        assert_eq!(p.profile(), b"s0_wait_wake");
        assert!((p.s[ALL].mean - 196.647).abs() < 1e-6, "{}", p.s[ALL].mean);
        assert!(p.valid());
        // The formal tool's hash is of its own input: not read.
        assert_eq!(p.get(Key::Slots), Some(&b"32"[..]));
        assert_eq!((p.get(Key::Sha), p.get(Key::Warmups)), (None, None));
        // Ours: the same with a tool_version column, whose hash is read.
        let version = |(i, l)| {
            let cell = if i > 0 { "0.1.0" } else { "tool_version" };
            format!("{l}\t{cell}\n")
        };
        let s: String = FORMAL.lines().enumerate().map(version).collect();
        let q = read_str(&s, None).unwrap();
        assert_eq!((q.format, q.s), (Format::Tsv, p.s));
        assert!(q.get(Key::Sha).is_some());
        assert_eq!(q.get(Key::Version), Some(&b"0.1.0"[..]));
    }

    const STDOUT: &str = include_str!("../../tests/fixtures/published/child.txt");

    #[test]
    fn banner_contract_line_and_fact_lines() {
        let p = read_str(STDOUT, None).unwrap();
        let get = |k| p.get(k).map(|v| core::str::from_utf8(v).unwrap());
        assert_eq!(get(Key::Version), Some("0.1.0"));
        assert_eq!(get(Key::Kernel), Some("6.15.0-synthetic-child"));
        assert_eq!(get(Key::Cpu), Some("2"));
        assert_eq!(get(Key::CqEntries), Some("128"));
        assert_eq!(get(Key::Timeout), Some("2"));
        assert_eq!(
            get(Key::CpuModel),
            Some("12th Gen Intel(R) Core(TM) i7-12700KF")
        );
        assert_eq!(get(Key::Turbo), Some("off"));
        // `unknown` is not a fact, though it is written; a banner without
        // inject_ns injects none.
        assert_eq!((get(Key::Smt), get(Key::InjectNs)), (None, None));
        assert_eq!(p.tag(Key::Smt), b"unknown");
        assert_eq!(get(Key::Witness), None);
        assert_eq!(p.checks, Some(&b"checks: synthetic -> PASS"[..]));
        let w = STDOUT.replace(
            "# checks:",
            "# witness: events FUTEX_WAIT=512 -> MATCH\n\
             # witness: removed /sys/kernel/tracing/instances/uring-repro-7 tracing=off\n# checks:",
        );
        let p = read_str(&w, None).unwrap();
        assert_eq!(
            p.witness(),
            [&b"witness: events FUTEX_WAIT=512 -> MATCH"[..]]
        );
        // A TSV's `#` lines are comments: a banner there states nothing.
        let s = format!(
            "{}{FORMAL}",
            STDOUT.lines().take(6).collect::<Vec<_>>().join("\n") + "\n"
        );
        let p = read_str(&s, None).unwrap();
        assert_eq!((p.format, p.get(Key::CqEntries)), (Format::Formal, None));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut v = [0.0; MAX_ROUNDS];
        let pieces: [&[u8]; 12] = [
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
            b"# machine=x\n# witness: y\n# checks: z\n",
        ];
        for junk in [
            "",
            "#\n",
            "schema_version\n",
            "a\tphase\nx\n",
            "a\tphase\n1\tmeasured\t9\n",
        ] {
            assert!(read(junk.as_bytes(), &mut v, None).is_err(), "{junk}");
        }
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = [a, b, c].concat();
                    for select in [None, Some(&b"pollwake_none"[..])] {
                        let _ = read(&text, &mut v, select);
                    }
                }
            }
        }
    }
}
