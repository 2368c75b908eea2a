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

/// The command line of `compare`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Args<'a> {
    pub gate: f64,
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
}

impl Default for Args<'_> {
    fn default() -> Self {
        Args {
            gate: crate::config::DEFAULT_GATE_PCT as f64,
            tsv: false,
            drop_first: false,
            mode: None,
            bisect: false,
            labels: [None; MAX_POINTS],
            files: [None; MAX_POINTS],
            n: 0,
            plain: false,
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
    pub fn unusable(&self, i: usize) -> i32 {
        if self.bisect && self.label(i) == b"new" {
            exit::BISECT_SKIP
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
}
