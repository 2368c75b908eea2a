//! What a point's text states about its run, for `report`: the words of
//! uring-repro's two banner lines and its `# key=value` fact lines
//! (docs/output.md), or the same facts from the columns of a TSV (its
//! first `measured` row); the run's `# witness: ` lines and its checks
//! line. The C standalone's stdout states none of them; the formal C
//! reproducer's TSV some (its `input_sha256` hashes another tool's input,
//! so it is not read, nor is a version it does not write). A fact written
//! `unknown` (the run could not read it) is not stated either.

use super::input::Format;

/// The facts, by index into `Facts::v` and `FACTS`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum F {
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

/// Every fact's stdout key (the name stderr uses too) and its TSV column
/// (empty: no TSV carries it), in `F` order. The banner's keys stand among
/// its words; the fact lines (`machine` on) are one key a line.
pub const FACTS: [(&str, &str); 27] = [
    ("version", "tool_version"),
    ("profile", "profile"),
    ("mode", "mode"),
    ("kernel", "kernel_release"),
    ("boot_id", "boot_id"),
    ("cpu", "cpu"),
    ("cpu_choice", ""),
    ("clock", "clock_source"),
    ("timebase", "timebase"),
    ("inject_ns", "inject_ns"),
    ("witness", "witness"),
    ("ring_entries", "ring_entries"),
    ("cq_entries", ""),
    ("slots", "slots"),
    ("cycles", "cycles"),
    ("warmups", ""),
    ("rounds", "rounds_planned"),
    ("futex", "futex_scope"),
    ("timeout_s", ""),
    ("input_sha256", "input_sha256"),
    ("machine", "machine"),
    ("preempt", "preempt"),
    ("preempt_source", "preempt_source"),
    ("cpu_model", "cpu_model"),
    ("governor", "governor"),
    ("turbo", "turbo"),
    ("smt", "smt"),
];

/// Where the one-a-line facts start in `FACTS`.
const FACT_LINES: usize = F::Machine as usize;
/// Most `# witness: ` lines kept of one point.
pub const MAX_WITNESS: usize = 8;

/// The facts one point states (slices of its text).
#[derive(Clone, Copy, Default)]
pub struct Facts<'t> {
    pub v: [Option<&'t [u8]>; FACTS.len()],
    /// Its `# witness: ` lines, without the `# `.
    pub witness: [&'t [u8]; MAX_WITNESS],
    pub n_witness: usize,
    /// Its `# checks: ` line, without the `# `.
    pub checks: Option<&'t [u8]>,
}

impl<'t> Facts<'t> {
    pub fn get(&self, f: F) -> Option<&'t [u8]> {
        self.v[f as usize]
    }

    pub fn witness(&self) -> &[&'t [u8]] {
        &self.witness[..self.n_witness]
    }

    fn set(&mut self, i: usize, value: &'t [u8]) {
        if !value.is_empty() && value != b"unknown" {
            self.v[i] = Some(value);
        }
    }
}

/// The lines that are not blank, without a trailing `\r`.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
}

/// The facts of a point's `text`, read as `format` (compare's parser has
/// already accepted the file).
pub fn read(text: &[u8], format: Format) -> Facts<'_> {
    let mut f = Facts::default();
    match format {
        Format::Stdout => stdout(text, &mut f),
        Format::Tsv | Format::Formal => tsv(text, format == Format::Formal, &mut f),
        Format::Standalone => {}
    }
    f
}

fn stdout<'t>(text: &'t [u8], f: &mut Facts<'t>) {
    let banner = b"# uring-repro ";
    let mut second = false;
    for line in lines(text) {
        if let Some(w) = line.strip_prefix(b"# witness: ") {
            // The clean-up line (`removed INSTANCE tracing=off`) names this
            // run's PID: it is housekeeping, not the kernel's account.
            if f.n_witness < MAX_WITNESS && !w.is_empty() && !w.starts_with(b"removed ") {
                f.witness[f.n_witness] = &line[2..];
                f.n_witness += 1;
            }
        } else if line.starts_with(b"# checks: ") {
            f.checks = Some(&line[2..]);
        }
        let words = if let Some(rest) = line.strip_prefix(banner) {
            let version = rest.split(|&b| b == b' ').next().unwrap_or(b"");
            f.set(F::Version as usize, version);
            second = true;
            rest
        } else if second {
            // The contract line follows the first banner line.
            second = false;
            line.strip_prefix(b"# ").unwrap_or(b"")
        } else {
            if let Some((key, value)) = line.strip_prefix(b"# ").and_then(key_value) {
                let at = FACTS[FACT_LINES..]
                    .iter()
                    .position(|k| k.0.as_bytes() == key);
                if let Some(i) = at {
                    f.set(FACT_LINES + i, value);
                }
            }
            continue;
        };
        for (key, value) in words.split(|&b| b == b' ').filter_map(key_value) {
            if let Some(i) = FACTS[..FACT_LINES]
                .iter()
                .position(|k| k.0.as_bytes() == key)
            {
                f.set(i, value);
            }
        }
    }
}

/// `key=value` split at the first `=`.
fn key_value(word: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = word.iter().position(|&b| b == b'=')?;
    Some((&word[..i], &word[i + 1..]))
}

fn tsv<'t>(text: &'t [u8], formal: bool, f: &mut Facts<'t>) {
    let mut rows = lines(text).filter(|l| l[0] != b'#');
    let Some(header) = rows.next() else {
        return;
    };
    let cols = || header.split(|&b| b == b'\t');
    let Some(phase) = cols().position(|c| c == b"phase") else {
        return;
    };
    let measured = rows.find(|r| r.split(|&b| b == b'\t').nth(phase) == Some(b"measured"));
    let Some(row) = measured else {
        return;
    };
    for (name, cell) in cols().zip(row.split(|&b| b == b'\t')) {
        let at = FACTS
            .iter()
            .position(|k| !k.1.is_empty() && k.1.as_bytes() == name);
        match at {
            Some(i) if formal && (i == F::Sha as usize || i == F::Version as usize) => {}
            Some(i) => f.set(i, cell),
            None => {}
        }
    }
    // A TSV has the column always; 0 is what a banner leaves out.
    if f.get(F::InjectNs) == Some(b"0") {
        f.v[F::InjectNs as usize] = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDOUT: &str = include_str!("../../tests/fixtures/published/child.txt");

    #[test]
    fn stdout_banner_and_fact_lines() {
        let f = read(STDOUT.as_bytes(), Format::Stdout);
        let get = |x| f.get(x).map(|v| core::str::from_utf8(v).unwrap());
        assert_eq!(get(F::Version), Some("0.1.0"));
        assert_eq!(get(F::Kernel), Some("6.15.0-synthetic-child"));
        assert_eq!(get(F::Cpu), Some("2"));
        assert_eq!(get(F::CqEntries), Some("128"));
        assert_eq!(get(F::Timeout), Some("2"));
        assert_eq!(
            get(F::CpuModel),
            Some("12th Gen Intel(R) Core(TM) i7-12700KF")
        );
        assert_eq!(get(F::Turbo), Some("off"));
        // `unknown` is not a fact; a banner without inject_ns injects none.
        assert_eq!((get(F::Smt), get(F::InjectNs)), (None, None));
        assert_eq!(get(F::Witness), None);
        assert_eq!(f.checks, Some(&b"checks: synthetic -> PASS"[..]));
        let w = STDOUT.replace(
            "# checks:",
            "# witness: events FUTEX_WAIT=512 -> MATCH\n\
             # witness: removed /sys/kernel/tracing/instances/uring-repro-7 tracing=off\n# checks:",
        );
        let f = read(w.as_bytes(), Format::Stdout);
        assert_eq!(
            f.witness(),
            [&b"witness: events FUTEX_WAIT=512 -> MATCH"[..]]
        );
    }

    #[test]
    fn tsv_columns_and_formal_hash() {
        let formal = include_str!("../../tests/fixtures/published/child.tsv");
        let f = read(formal.as_bytes(), Format::Formal);
        assert_eq!(f.get(F::Kernel), Some(&b"6.15.0-synthetic-child"[..]));
        assert_eq!(f.get(F::Slots), Some(&b"32"[..]));
        assert_eq!((f.get(F::Sha), f.get(F::Warmups)), (None, None));
        let f = read(formal.as_bytes(), Format::Tsv);
        assert!(f.get(F::Sha).is_some());
        let none = read(
            b"round\tpairs\tns_per_pair\tsemantic_pass\n",
            Format::Standalone,
        );
        assert!(none.v.iter().all(Option::is_none));
        // Junk never panics.
        for t in [
            "",
            "#\n",
            "schema_version\n",
            "a\tphase\nx\n",
            "a\tphase\n1\tmeasured\t9\n",
        ] {
            let _ = read(t.as_bytes(), Format::Tsv);
            let _ = read(t.as_bytes(), Format::Stdout);
        }
    }
}
