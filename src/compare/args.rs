//! The command line of `compare`, `compare --bisect` and `report` (the
//! options table in cli/ fills it), and the one place that knows which
//! exit code an unusable input gives under each: every reader and judge of
//! points asks it here.

use crate::decimal;
use crate::exit;

/// Most files one compare reads.
pub const MAX_POINTS: usize = 16;
/// Longest label.
pub const MAX_LABEL: usize = 12;

/// A percentage as `--gate` (and calibrate's `--inject-pct`) takes it: in
/// (0, 100], of at most three decimals. Every change and gate is printed
/// with three, so the gate printed is the gate applied: `--gate 1e-10`
/// is no decimal, `0.0000000001` has more decimals than any figure shows
/// (it was printed `the 0.000% gate`), and `1.2345` would be printed as
/// 1.235 while a change of 1.2347 passed it.
pub fn percent(v: &[u8]) -> Option<f64> {
    let pct = decimal::decimal(v, 3).ok();
    pct.filter(|&p| p > 0.0 && p <= 100.0)
}

/// What a change must reach to be CONFIRMED: compare's gate in % (for
/// time, and by default), or, for points that count instructions (QEMU's
/// instruction clock), a gate in instructions per pair (`--gate-insn`:
/// ab's gate, docs/ab.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gate {
    /// `--gate PCT`: |change| and |drop-first change| at least PCT% of
    /// the control's value, of one sign, the control's drift under it,
    /// the wider of the two intervals clear of 0.
    Pct(f64),
    /// `--gate-insn INSN`: |change| at least INSN instructions per pair
    /// beyond the spread of the control's boots, and its 95% interval
    /// round by round (each round of the test against the same round of
    /// the control) clear of 0.
    Insn(f64),
}

impl Gate {
    /// The gate in %, NaN for a gate in instructions.
    pub fn pct(self) -> f64 {
        match self {
            Gate::Pct(p) => p,
            Gate::Insn(_) => f64::NAN,
        }
    }

    /// The gate in instructions per pair, NaN for a gate in %.
    pub fn insn(self) -> f64 {
        match self {
            Gate::Pct(_) => f64::NAN,
            Gate::Insn(i) => i,
        }
    }
}

/// An instruction gate as `--gate-insn` takes it: a plain decimal above 0
/// of at most three decimals (a figure is printed with three) and at most
/// a million instructions per pair.
pub fn instructions(v: &[u8]) -> Option<f64> {
    let insn = decimal::decimal(v, 3).ok();
    insn.filter(|&i| i > 0.0 && i <= 1e6)
}

/// The command line of `compare`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Args<'a> {
    pub gate: Gate,
    pub tsv: bool,
    pub drop_first: bool,
    /// `--mode M`: the series of a table of several (pollwake's) every
    /// point is read for, by its name (`pollwake_idle`: cli finds it for
    /// the word `idle` among the profiles' series).
    pub mode: Option<&'a [u8]>,
    /// `--bisect`: classify the `new=` point against `good=` and `bad=`.
    pub bisect: bool,
    /// Labels (set for every point after parsing) and file names; read
    /// them through `label(i)` and `file(i)`.
    pub labels: [Option<&'a [u8]>; MAX_POINTS],
    pub files: [Option<&'a [u8]>; MAX_POINTS],
    pub n: usize,
    /// The files came without labels (`A B A`: the outer two are the
    /// parents of a sandwich, each its own boot).
    pub plain: bool,
    /// ab's: a kernel built byte for byte as the one of another label has
    /// that label's very points (kept, and reused rather than booted
    /// again), so a point under two labels is the same kernel on both
    /// sides (no change), not one boot counted twice.
    pub same_image: bool,
}

impl Default for Args<'_> {
    fn default() -> Self {
        Args {
            gate: Gate::Pct(crate::config::DEFAULT_GATE_PCT as f64),
            tsv: false,
            drop_first: false,
            mode: None,
            bisect: false,
            labels: [None; MAX_POINTS],
            files: [None; MAX_POINTS],
            n: 0,
            plain: false,
            same_image: false,
        }
    }
}

impl<'a> Args<'a> {
    pub fn label(&self, i: usize) -> &'a [u8] {
        self.labels[i].unwrap_or(b"")
    }

    pub fn file(&self, i: usize) -> &'a [u8] {
        self.files[i].unwrap_or(b"")
    }

    /// The exit code when file `i` cannot be used: a usage error, or under
    /// `--bisect` (git bisect run's language) 125 for the new point (this
    /// commit cannot be judged) and 128 for a reference (stop the bisect).
    /// Not inlined: ten refusals had their own copy of the label lookup.
    #[inline(never)]
    pub fn unusable(&self, i: usize) -> i32 {
        if self.bisect && self.label(i) == b"new" {
            exit::CANNOT_JUDGE
        } else {
            self.refused()
        }
    }

    /// The exit code when the inputs together cannot be used (one point
    /// counted twice, no memory to read them, references that cannot
    /// decide): a usage error, or under `--bisect` 128 (stop the bisect:
    /// the references or the step are wrong, whatever the new commit).
    pub fn refused(&self) -> i32 {
        if self.bisect {
            exit::BISECT_STOP
        } else {
            exit::USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_is_printed_as_it_is_applied() {
        for (v, pct) in [
            ("5", 5.0),
            ("0.001", 0.001),
            ("2.5", 2.5),
            ("100", 100.0),
            ("12.345", 12.345),
        ] {
            assert_eq!(percent(v.as_bytes()), Some(pct), "{v}");
        }
        for v in [
            "0",
            "0.000",
            "0.0004",
            "0.0000000001",
            "1e-10",
            "1.2345",
            "100.001",
            "-1",
            "",
        ] {
            assert_eq!(percent(v.as_bytes()), None, "{v}");
        }
    }

    #[test]
    fn an_instruction_gate_is_printed_as_it_is_applied() {
        for (v, insn) in [("0.5", 0.5), ("2", 2.0), ("0.001", 0.001), ("1000000", 1e6)] {
            assert_eq!(instructions(v.as_bytes()), Some(insn), "{v}");
        }
        for v in [
            "0",
            "0.0004",
            "1.2345",
            "1000000.5",
            "-1",
            ".5",
            "5.",
            "",
            "1e3",
        ] {
            assert_eq!(instructions(v.as_bytes()), None, "{v}");
        }
    }
}
