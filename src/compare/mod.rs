//! Saved points: what `compare`, `compare --bisect` and `report` read,
//! and what they say. Every FILE is one point, one run on one boot (a
//! run's stdout or its `--tsv` file, or the C tools' output).
//!
//! - point/ reads a point, once (table.rs: its rows); load.rs reads
//!   every FILE of a command line into one buffer and checks them against
//!   each other (one workload, one contract, each boot counted once);
//! - analysis.rs is the maths: the labels' groups and boots, each label
//!   against the control, the change's two 95% intervals, the verdict;
//! - `compare` (`main`, below) prints the analysis as text, or `--tsv`
//!   (text.rs); `compare --bisect` (bisect.rs) is one `git bisect run`
//!   step; `report` (mail/) drafts the regression mail, or the reply on
//!   a fix series (`--steps`);
//! - cost.rs: where the cost went, the points' `# cost:` lines (kernel
//!   instructions per function, counted by a QEMU TCG plugin, and the
//!   locked ones) diffed per function, for compare's text and the mail.
//!
//! Limits (no heap): 16 points, labels of 12 bytes, 4 MiB of input in all,
//! 4096 rounds a point. Exit: 0 analysed (whatever the verdict), 1 a point
//! failed its checks, 2 usage or unusable input (`FILE:LINE: reason`);
//! `--bisect` speaks git bisect run's language instead (bisect.rs).

mod ab;
mod analysis;
mod args;
mod bisect;
mod claim;
mod cost;
mod cost_table;
mod load;
mod mail;
mod point;
mod table;
mod text;
mod words;

pub use ab::{main as ab, Spec as AbSpec};
pub use analysis::{intervals, Interval, Intervals};
pub use args::{instructions, percent, Args, Gate, MAX_LABEL, MAX_POINTS};
pub use mail::{main as report, Draft, MAX_LINK, MAX_LINKS, MAX_RE, MAX_TITLE};

use crate::sys::out::Out;
use analysis::Analysis;
use load::{Inputs, Stopped};

/// Runs `compare` with its parsed arguments; returns the exit code.
pub fn main(a: &Args, out: &mut Out) -> i32 {
    compare(a, out).unwrap_or_else(|stopped| stopped.code)
}

/// `compare`: the points read, then judged (`--bisect`) or analysed and
/// printed; its exit code, or where it stopped.
fn compare(a: &Args, out: &mut Out) -> Result<i32, Stopped> {
    let mut inputs = Inputs::map(a)?;
    let pts = inputs.read(a)?;
    if a.bisect {
        return Ok(bisect::step(a, &pts, out));
    }
    let an = Analysis::of(a, &pts);
    if a.tsv {
        text::tsv(&an, out);
    } else {
        text::text(&an, None, out);
    }
    out.flush();
    Ok(pts.checked("compare", "not evidence (see the table)"))
}
