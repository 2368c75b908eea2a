//! The command line of `compare`, `compare --bisect` and `report` (the
//! options table in cli/ fills it), and the one place that knows which
//! exit code an unusable input gives under each: every reader and judge of
//! points asks it here.

use crate::exit;

/// Most files one compare reads.
pub const MAX_POINTS: usize = 16;
/// Longest label.
pub const MAX_LABEL: usize = 12;

/// The command line of `compare`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Args<'a> {
    pub gate: f64,
    pub tsv: bool,
    pub drop_first: bool,
    /// `--mode M`: the series of a table of several (pollwake's) every
    /// point is read for, by the mode word its `# series:` line states.
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
