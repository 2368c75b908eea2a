//! Result files -> one `Point` each. Four formats, told apart by their
//! header (never guessed); `#` lines are comments everywhere, blank lines
//! and a trailing `\r` are ignored:
//!
//! - uring-repro's stdout: a `# uring-repro ` banner (profile=, kernel=,
//!   boot_id=), then the C standalone's table `round pairs ns_per_pair
//!   semantic_pass` (tab-separated), the `mean` row, `#` summary lines
//!   (DESIGN.md §4);
//! - the published C standalone's stdout: the same table, no banner;
//! - uring-repro's `--tsv` file and the formal C reproducer's TSV: a header
//!   starting `schema_version`, columns found by name; ours has a
//!   `tool_version` column, the formal one does not. Only rows whose phase
//!   is `measured` count, and ns_per_pair must agree with timed_ns / pairs.
//!
//! Both kinds are one tab-separated table with a header, so one loop reads
//! them; numbers are plain decimals (`180.078890`), parsed as bytes.

use crate::stats::{summarize, Summary};

/// Most bytes `compare` reads, all files together (a TSV of 4096 rounds is
/// ~1 MiB with 250-byte rows; the contract's 15 rounds take 1 KiB on stdout).
pub const MAX_INPUT_BYTES: usize = 4 << 20;
/// Most measured rounds in one point (a run's `--rounds` limit).
pub const MAX_ROUNDS: usize = crate::cli::MAX_ROUNDS as usize;
/// Most columns of a row.
pub const MAX_COLS: usize = 64;

/// The stdout table's header (ours and the C standalone's).
pub const TABLE_HEADER: &[u8] = b"round\tpairs\tns_per_pair\tsemantic_pass";
/// pollwake's table: the same columns after the row's profile (one row set
/// per mode, `pollwake_none` ...), read one mode at a time (`--mode`).
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
}

/// Indices into `Point::tags`.
pub const PROFILE: usize = 0;
pub const KERNEL: usize = 1;
pub const BOOT_ID: usize = 2;

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

/// One result file: one boot, one run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point<'t> {
    pub format: Format,
    /// Profile, kernel release, boot id: slices of the input, None when it
    /// does not carry them (read them through `tag`).
    pub tags: [Option<&'t [u8]>; 3],
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
    /// Tag `i` (PROFILE, KERNEL, BOOT_ID), empty when unknown.
    pub fn tag(&self, i: usize) -> &'t [u8] {
        self.tags[i].unwrap_or(b"")
    }

    /// Every row passed its checks.
    pub fn valid(&self) -> bool {
        self.failed_rounds == 0 && self.run_passed
    }
}

/// Why a file cannot be used: line (1-based; 0 = the whole file), the
/// reason, and the offending text (possibly empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bad<'t> {
    pub line: usize,
    pub why: &'static str,
    pub text: &'t [u8],
}

fn bad<'t>(line: usize, why: &'static str, text: &'t [u8]) -> Bad<'t> {
    Bad { line, why, text }
}

/// A decimal integer (at most 19 digits).
#[inline(never)]
fn uint(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |v, &d| v * 10 + (d - b'0') as u64))
}

/// A non-negative plain decimal, `123` or `123.456`; digits past the 18th
/// significant one are ignored (far below any printed precision).
#[inline(never)]
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

/// Lines with their 1-based numbers, `\r\n` tolerated.
fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

/// Byte-string equality, kept out of line: inlined, every comparison with
/// a constant unrolls into a byte-by-byte chain (size matters here).
#[inline(never)]
fn is(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// Cell `i` of a tab-separated row (empty past the end).
#[inline(never)]
fn cell(line: &[u8], i: usize) -> &[u8] {
    line.split(|&b| b == b'\t').nth(i).unwrap_or(b"")
}

/// Where `name` is among a header's cells (ABSENT when it is not).
#[inline(never)]
fn column(header: &[u8], name: &[u8]) -> usize {
    header
        .split(|&b| b == b'\t')
        .position(|c| is(c, name))
        .unwrap_or(ABSENT)
}

/// Columns found by name. The first four make the stdout table; a TSV must
/// also have phase and timed_ns; the rest are optional.
const COLUMNS: [&[u8]; 10] = [
    b"round",
    b"pairs",
    b"ns_per_pair",
    b"semantic_pass",
    b"phase",
    b"timed_ns",
    b"profile",
    b"kernel_release",
    b"boot_id",
    b"tool_version",
];
const ROUND: usize = 0;
const PAIRS: usize = 1;
const NS_PER_PAIR: usize = 2;
const PASS: usize = 3;
const PHASE: usize = 4;
const TIMED_NS: usize = 5;
/// COLUMNS[TAGS + i] fills Point::tags[i].
const TAGS: usize = 6;
const TOOL_VERSION: usize = 9;
const ABSENT: usize = usize::MAX;

/// Rounds as they are read: values for the summary, weighted sums for the
/// mean (ns = ns/pair * pairs), the first round's share for drop-first.
struct Rounds<'v> {
    values: &'v mut [f64; MAX_ROUNDS],
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
}

/// Parses one result file into `p`. `values` is scratch space for the
/// rounds. `select` is the profile whose rows a pollwake table contributes
/// (from `--mode`; None otherwise).
#[inline(never)]
pub fn parse<'t>(
    text: &'t [u8],
    values: &mut [f64; MAX_ROUNDS],
    p: &mut Point<'t>,
    select: Option<&[u8]>,
) -> Result<(), Bad<'t>> {
    *p = Point {
        run_passed: true,
        ..Point::default()
    };
    let mut r = Rounds {
        values,
        n: 0,
        ns: 0.0,
        pairs: 0,
        first_ns: 0.0,
        first_pairs: 0,
    };
    let mut col = [ABSENT; COLUMNS.len()];
    let (mut header, mut ncols, mut banner, mut any) = (&b""[..], 0, false, false);
    // A pollwake table: rows of several profiles, `select` picks one.
    let mut modes = false;
    // Stdout tables end with a mean row: Some(its semantic_pass) once seen.
    let mut mean: Option<bool> = None;
    for (no, line) in lines(text) {
        if line.is_empty() {
            continue;
        }
        any = true;
        if line[0] == b'#' {
            let banner_prefix = b"# uring-repro ";
            if line.len() > banner_prefix.len() && is(&line[..banner_prefix.len()], banner_prefix) {
                if banner || ncols > 0 {
                    return Err(bad(no, "a second run banner (one run per file)", b""));
                }
                banner = true;
                for word in line.split(|&b| b == b' ') {
                    for (i, key) in [&b"profile="[..], b"kernel=", b"boot_id="]
                        .iter()
                        .enumerate()
                    {
                        if word.len() >= key.len() && is(&word[..key.len()], key) {
                            p.tags[i] = Some(&word[key.len()..]);
                        }
                    }
                }
            }
            continue;
        }
        let n = line.split(|&b| b == b'\t').count();
        if ncols == 0 {
            let tsv = line.len() > 15 && is(&line[..15], b"schema_version\t");
            modes = is(line, MODE_TABLE_HEADER);
            if modes && select.is_none() {
                return Err(bad(
                    no,
                    "a pollwake table holds several modes: pick one with --mode none|idle|waiter|none_aa",
                    b"",
                ));
            }
            if !modes && select.is_some() {
                return Err(bad(no, "--mode applies to pollwake results only", b""));
            }
            if !tsv && !modes && !is(line, TABLE_HEADER) {
                return Err(bad(
                    no,
                    "not a result of uring-repro, the C standalone or the formal C reproducer",
                    &line[..line.len().min(40)],
                ));
            }
            if n > MAX_COLS {
                return Err(bad(no, "more than 64 columns", b""));
            }
            for (i, name) in COLUMNS.iter().enumerate() {
                col[i] = column(line, name);
                if i <= TIMED_NS && col[i] == ABSENT && tsv {
                    return Err(bad(no, "the TSV header lacks a column", name));
                }
            }
            p.format = match (tsv, col[TOOL_VERSION] != ABSENT, banner) {
                (true, true, _) => Format::Tsv,
                (true, false, _) => Format::Formal,
                (false, _, true) => Format::Stdout,
                (false, _, false) => Format::Standalone,
            };
            (header, ncols) = (line, n);
            continue;
        }
        if modes && n == ncols && !is(cell(line, col[TAGS]), select.unwrap_or(b"")) {
            continue; // another mode's row
        }
        if mean.is_some() {
            return Err(bad(
                no,
                "data after the mean row",
                &line[..line.len().min(40)],
            ));
        }
        if is(line, header) {
            return Err(bad(no, "a second table header (one run per file)", b""));
        }
        if n != ncols {
            return Err(bad(no, "not as many cells as the header has", b""));
        }
        let c = |i: usize| cell(line, col[i]);
        if col[PHASE] != ABSENT && !is(c(PHASE), b"measured") {
            continue;
        }
        let pairs = uint(c(PAIRS)).ok_or(bad(no, "pairs is not a whole number", c(PAIRS)))?;
        let v = decimal(c(NS_PER_PAIR)).filter(|&v| v > 0.0).ok_or(bad(
            no,
            "ns_per_pair is not a positive decimal number",
            c(NS_PER_PAIR),
        ))?;
        let pass = match c(PASS) {
            b"1" => true,
            b"0" => false,
            s => return Err(bad(no, "semantic_pass is not 0 or 1", s)),
        };
        if col[PHASE] == ABSENT && is(c(ROUND), b"mean") {
            if r.n == 0 {
                return Err(bad(no, "a mean row without rounds", b""));
            }
            if pairs != r.pairs {
                return Err(bad(no, "mean row pairs are not the rounds' sum", c(PAIRS)));
            }
            // Six printed decimals on each side: 1e-5 is far above rounding.
            if (v - r.mean()).abs() > 1e-5 + 1e-9 * v {
                return Err(bad(
                    no,
                    "mean row disagrees with the rounds",
                    c(NS_PER_PAIR),
                ));
            }
            mean = Some(pass);
            continue;
        }
        uint(c(ROUND)).ok_or(bad(no, "round is not a whole number", c(ROUND)))?;
        if col[TIMED_NS] != ABSENT {
            let ns =
                uint(c(TIMED_NS)).ok_or(bad(no, "timed_ns is not a whole number", c(TIMED_NS)))?;
            // The printed ns/pair must be timed_ns / pairs (to its precision).
            if (v - ns as f64 / pairs as f64).abs() > 1e-4 * v + 1e-6 {
                return Err(bad(
                    no,
                    "ns_per_pair is not timed_ns / pairs",
                    c(NS_PER_PAIR),
                ));
            }
        }
        for (t, why) in [
            "mixed profiles in one point",
            "mixed kernel releases in one point",
            "mixed boot ids in one point (one boot per file)",
        ]
        .iter()
        .enumerate()
        {
            if col[TAGS + t] == ABSENT {
                continue;
            }
            let v = c(TAGS + t);
            if r.n == 0 {
                p.tags[t] = Some(v);
            } else if !is(p.tag(t), v) {
                return Err(bad(no, why, v));
            }
        }
        if r.n == MAX_ROUNDS {
            return Err(bad(no, "more than 4096 rounds in one point", b""));
        }
        if pairs == 0 {
            return Err(bad(no, "a round of 0 pairs", c(PAIRS)));
        }
        if !pass {
            // A failed round may be cut short: its pairs say nothing.
            p.failed_rounds += 1;
        } else if p.pairs == 0 {
            p.pairs = pairs;
        } else if pairs != p.pairs {
            return Err(bad(no, "pairs per round differ within one point", c(PAIRS)));
        }
        // Checked: a wrapped sum would pass the mean row's check and skew
        // the mean (no real run comes near: 4096 x 6.4e8 pairs).
        let total = r.pairs.checked_add(pairs).ok_or(bad(
            no,
            "the rounds' pairs overflow a 64-bit count",
            c(PAIRS),
        ))?;
        let ns = v * pairs as f64;
        if r.n == 0 {
            (r.first_ns, r.first_pairs) = (ns, pairs);
        }
        r.values[r.n] = v;
        r.n += 1;
        r.ns += ns;
        r.pairs = total;
    }
    let why = match (ncols, r.n, mean) {
        (0, _, _) if any => "no result header (only comments)",
        (0, _, _) => "empty file",
        (_, 0, _) => "no measured rounds",
        (_, _, None) if col[PHASE] == ABSENT => "no mean row (was the run cut short?)",
        _ => "",
    };
    if !why.is_empty() {
        return Err(bad(0, why, b""));
    }
    p.run_passed = mean.unwrap_or(true);
    p.s[ALL] = Sample {
        mean: r.mean(),
        s: summarize(&r.values[..r.n]),
    };
    p.s[REST] = Sample {
        mean: (r.ns - r.first_ns) / (r.pairs - r.first_pairs) as f64,
        s: summarize(&r.values[1..r.n]),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Point<'_>, (usize, &'static str, String)> {
        let mut v = [0.0; MAX_ROUNDS];
        let mut p = Point::default();
        parse(s.as_bytes(), &mut v, &mut p, None)
            .map_err(|b| (b.line, b.why, String::from_utf8_lossy(b.text).into_owned()))?;
        Ok(p)
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
            &b""[..],
            b".5",
            b"5.",
            b"-1",
            b"+1",
            b"1e3",
            b"nan",
            b"1.2.3",
            b" 1",
            b"1,5",
            b"1234567890123456789012",
        ] {
            assert_eq!(decimal(junk), None, "{}", String::from_utf8_lossy(junk));
        }
        assert_eq!(uint(b"16384"), Some(16384));
        assert_eq!(
            uint(b"9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        assert_eq!(uint(b"18446744073709551616"), None);
        assert_eq!(uint(b"1.0"), None);
    }

    #[test]
    fn our_stdout_hand_computed() {
        let p = parse_str(OURS).unwrap();
        assert_eq!(p.format, Format::Stdout);
        assert_eq!(p.tag(PROFILE), b"s0_wait_wake");
        assert_eq!(p.tag(KERNEL), b"6.18.0-test");
        assert_eq!(p.tag(BOOT_ID), b"aaaa-bbbb");
        assert_eq!((p.pairs, p.failed_rounds, p.run_passed), (16384, 0, true));
        // 181, 179, 180.5: mean 540.5/3, sd sqrt(((5/6)^2+(7/6)^2... by hand:
        // deviations +5/6, -7/6, +1/3; squares 25/36 + 49/36 + 4/36 = 78/36;
        // sample variance 39/36; drop-first 179, 180.5: mean 179.75, sd 1.5/sqrt2.
        assert!((p.s[ALL].mean - 540.5 / 3.0).abs() < 1e-12);
        assert_eq!(p.s[ALL].s.n, 3);
        assert_eq!(
            (p.s[ALL].s.median, p.s[ALL].s.min, p.s[ALL].s.max),
            (180.5, 179.0, 181.0)
        );
        assert!((p.s[ALL].s.stddev - (39.0f64 / 36.0).sqrt()).abs() < 1e-12);
        assert!(
            (p.s[ALL].s.cv_pct - (39.0f64 / 36.0).sqrt() / (540.5 / 3.0) * 100.0).abs() < 1e-12
        );
        assert_eq!(p.s[REST].s.n, 2);
        assert!((p.s[REST].mean - 179.75).abs() < 1e-12);
        assert!((p.s[REST].s.stddev - 1.5 / 2f64.sqrt()).abs() < 1e-12);
        assert!(p.valid());
    }

    #[test]
    fn standalone_stdout_and_weighted_mean() {
        // No banner: the C standalone. A failed round of fewer pairs: the
        // mean weighs by pairs, the pairs check skips it, the point is invalid.
        let s = "round\tpairs\tns_per_pair\tsemantic_pass\r\n\
                 0\t100\t10.000000\t1\r\n\
                 1\t300\t20.000000\t0\r\n\
                 2\t100\t30.000000\t1\r\n\
                 \r\n\
                 mean\t500\t20.000000\t1\r\n";
        let p = parse_str(s).unwrap();
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
        let p = parse_str(s).unwrap();
        assert!(!p.run_passed && !p.valid());
        // One round: no drop-first.
        assert!(p.s[REST].mean.is_nan() && p.s[REST].s.n == 0);
    }

    fn tsv_header(extra: &str) -> String {
        let mut h = String::from(
            "schema_version\tkernel_release\tboot_id\tmode\tprofile\tphase\tround\tring_entries\t\
             slots\tvector_width\tcycles\tpairs\twait_submitted\twake_submitted\tcancel_submitted\t\
             nop_submitted\twait_cqes\twake_cqes\tcancel_cqes\tcheck_cqes\tnop_cqes\tbad_results\t\
             bad_flags\tduplicate_cqes\tunexpected_cqes\ttimeouts\tsq_dropped\tcq_overflow\t\
             outstanding\ttimed_ns\tns_per_pair\tcpu\tsemantic_pass\tinput_sha256\ttrace_enabled",
        );
        h.push_str(extra);
        h
    }

    /// A TSV row: phase, round, boot id, timed_ns, ns_per_pair, pass.
    fn tsv_row(
        phase: &str,
        round: u32,
        boot: &str,
        ns: u64,
        npp: &str,
        pass: u8,
        extra: &str,
    ) -> String {
        format!(
            "1\t6.1.0\t{boot}\tpoint\ts0_wait_wake\t{phase}\t{round}\t64\t32\t0\t512\t16384\t\
             16384\t16384\t0\t0\t16384\t16384\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t{ns}\t{npp}\t2\t\
             {pass}\tabc\t0{extra}"
        )
    }

    #[test]
    fn formal_tsv_measured_rows_only() {
        let mut s = tsv_header("");
        s.push('\n');
        // A warm-up row with nonsense in a column we read is skipped whole.
        s.push_str(&tsv_row("warmup", 0, "b1", 99, "x", 1, ""));
        s.push('\n');
        // 2950365000 / 16384 = 180075.988770...; 2949000000/16384 = 179992.675781
        s.push_str(&tsv_row(
            "measured",
            0,
            "b1",
            2_950_365_000,
            "180075.988770",
            1,
            "",
        ));
        s.push('\n');
        s.push_str(&tsv_row(
            "measured",
            1,
            "b1",
            2_949_000_000,
            "179992.675781",
            1,
            "",
        ));
        s.push('\n');
        let p = parse_str(&s).unwrap();
        assert_eq!(p.format, Format::Formal);
        assert_eq!(p.s[ALL].s.n, 2);
        assert_eq!(p.tag(KERNEL), b"6.1.0");
        assert_eq!(p.tag(BOOT_ID), b"b1");
        assert_eq!(p.tag(PROFILE), b"s0_wait_wake");
        let want = (180_075.988_770 + 179_992.675_781) / 2.0;
        assert!((p.s[ALL].mean - want).abs() < 1e-6);
        assert!(p.valid());
    }

    #[test]
    fn our_tsv_has_extra_columns() {
        let mut s = String::from("# a comment\n");
        s.push_str(&tsv_header("\tfutex_scope\tclock_source\ttool_version"));
        s.push('\n');
        for r in 0..3 {
            s.push_str(&tsv_row(
                "measured",
                r,
                "b2",
                16384 * 200,
                "200.000000",
                1,
                "\tprivate\tvdso\t0.1.0",
            ));
            s.push('\n');
        }
        let p = parse_str(&s).unwrap();
        assert_eq!(p.format, Format::Tsv);
        assert_eq!(
            (p.s[ALL].s.n, p.s[ALL].mean, p.s[ALL].s.cv_pct),
            (3, 200.0, 0.0)
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut v = [0.0; MAX_ROUNDS];
        let pieces: [&[u8]; 9] = [
            b"round\tpairs\tns_per_pair\tsemantic_pass\n",
            b"0\t64\t1.0\t1\n",
            b"mean\t64\t1.0\t1\n",
            b"\xff\xfe\t\t\n",
            b"# uring-repro x\n",
            b"schema_version\tphase\tpairs\tns_per_pair\tsemantic_pass\ttimed_ns\tround\n",
            b"1\tmeasured\t64\t1.0\t1\t64\t0\n",
            b"\r\n",
            b"\t",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = [a, b, c].concat();
                    let _ = parse(&text, &mut v, &mut Point::default(), None);
                }
            }
        }
    }
}
