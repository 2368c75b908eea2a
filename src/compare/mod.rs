//! Saved points: what `compare`, `compare --bisect` and `report` read,
//! and what they say. Every FILE is one point, one run on one boot (a
//! run's stdout or its `--tsv` file, or the C tools' output).
//!
//! - point.rs reads a point, once (table.rs: its rows); load.rs reads
//!   every FILE of a command line into one buffer and checks them against
//!   each other (one workload, one contract, each boot counted once);
//! - analysis.rs is the maths: the labels' groups and boots, each label
//!   against the control, the change's two 95% intervals, the verdict;
//! - `compare` (`main`, below) prints the analysis as text, or `--tsv`
//!   (text.rs); `compare --bisect` (bisect.rs) is one `git bisect run`
//!   step; `report` (mail/) drafts the regression mail;
//! - cost.rs: where the cost went, the points' `# cost:` lines (kernel
//!   instructions per function, counted by a QEMU TCG plugin) diffed per
//!   function, for compare's text and the mail.
//!
//! Limits (no heap): 16 points, labels of 12 bytes, 4 MiB of input in all,
//! 4096 rounds a point. Exit: 0 analysed (whatever the verdict), 1 a point
//! failed its checks, 2 usage or unusable input (`FILE:LINE: reason`);
//! `--bisect` speaks git bisect run's language instead (bisect.rs).

mod analysis;
mod bisect;
mod cost;
mod load;
mod mail;
mod point;
mod table;
mod text;
mod words;

pub use analysis::{intervals, Interval, Intervals};
pub use mail::{main as report, Draft, MAX_LINK, MAX_LINKS, MAX_TITLE};
pub use table::decimal;

use crate::exit::{self, fail};
use crate::sys::out::Out;
use analysis::Analysis;
use load::with_points;
use point::Point;

/// Most files one compare reads.
pub const MAX_POINTS: usize = 16;
/// Longest label.
pub const MAX_LABEL: usize = 12;

/// The command line of `compare` (the options table in cli/ fills it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Args<'a> {
    pub gate: f64,
    pub tsv: bool,
    pub drop_first: bool,
    /// `--mode M`: the pollwake profile (`pollwake_M`) every point is read for.
    pub mode: Option<&'static str>,
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
}

/// Runs `compare` with its parsed arguments; returns the exit code.
pub fn main(a: &Args, out: &mut Out) -> i32 {
    with_points(a, &mut |pts| {
        if a.bisect {
            return bisect::step(a, pts, out);
        }
        let an = Analysis::of(a, pts);
        if a.tsv {
            text::tsv(&an, out);
        } else {
            text::text(&an, out);
        }
        out.flush();
        checked(pts, "compare", "not evidence (see the table)")
    })
}

/// Exit 1 when a point failed its checks, saying so (`what` they are
/// then) on stderr; else 0.
fn checked(pts: &[Point], command: &str, what: &str) -> i32 {
    match pts.iter().filter(|p| !p.valid()).count() {
        0 => exit::PASS,
        bad => fail(
            exit::FAIL,
            format_args!("{command}: {bad} point(s) failed their checks: {what}"),
        ),
    }
}
