//! `uring-repro ab [--gate-insn INSN] [--introduced SHA --parent SHA] -o DIR
//! LABEL=SUITE...`: the judge behind scripts/ab.sh (docs/ab.md). Each
//! SUITE is one boot's directory of points, as `boot-point.sh ... -- suite`
//! writes it (`suite.txt`, the suite's line per item, and `ITEM.txt`, a
//! point per item that printed one); the labels are the kernels booted, in
//! the order first given, and a label given again is another boot of its
//! kernel (`base=base-1 head=head base=base-2`: the base booted before and
//! after the head). Every figure and verdict is compare's own: its reader
//! (load.rs), its analysis and its gate in instructions (`Gate::Insn`).
//!
//! A row per item of the first suite, and per series of its points
//! (pollwake's modes: `pollwake/idle`), the second label against the first
//! (rows.rs): its figures, and `moved` or `unmoved`; an item that did not
//! pass on every boot has no figures, only how it ended on each
//! (`outcome-changed`, `base-unsteady`, `skipped`, `failed`). Into DIR, each
//! file made new (none may be there): ab.tsv and ab.txt (table.rs; ab.txt
//! on stdout too), compare/ROW.txt (compare's text of each row's points),
//! mail/ROW.txt (report's draft of each row that moved, at the same gate,
//! so a row that moved is drafted as the change it is) and mail/report.log
//! (what the drafts leave out, not stated by the points).
//!
//! Exit: 0 every row judged and none moved; 1 a row moved, its events
//! moved, or an item's outcome changed; 125 no row moved but some could
//! not be judged (it
//! skipped or failed, the base's boots disagree, its points cannot be read
//! or paired: a table that cannot judge a row does not say 0); 2 usage or
//! unusable input (a suite directory without its suite.txt, DIR's files
//! there already), and when a file of DIR could not be made or written:
//! no table.

mod pair;
mod provenance;
mod rows;
mod series;
mod table;

use core::fmt::Write;

use super::args::MAX_POINTS;
use crate::exit::{self, Exit};
use crate::outfile::{self, NotCreated};
use crate::render::{Clean, Text};
use crate::sys::out::Out;
use crate::sys::{self, CPath, Fd};
use pair::{Boots, Outputs, Pair};
use provenance::Provenance;
use rows::{Keys, Row, Verdict, MAX_ROWS};
use series::{Order, StepsInfo};
use table::Both;

/// The default gate, instructions per pair: the study of docs/ab.md found
/// unrelated changes moving a point by at most 0.22 where its own interval
/// could not tell them from nothing.
pub const DEFAULT_GATE: &[u8] = b"0.5";

/// Most boots: every step of a series (series.rs' MAX_STEPS) booted twice
/// (`--exact`: a point reused, and booted again).
pub const MAX_BOOTS: usize = 2 * MAX_POINTS;

/// Most steps of a series, the base among them.
pub const MAX_STEPS: usize = MAX_POINTS;

/// Most boots of one step: a pair of steps is judged by compare, on at
/// most MAX_POINTS points.
pub const MAX_STEP_BOOTS: usize = MAX_POINTS / 2;

/// The command line of `ab`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec<'a> {
    /// The gate, instructions per pair, and as typed (the drafts quote it).
    pub gate: f64,
    pub gate_text: &'a [u8],
    /// The head's and the base's commits, for the drafts.
    pub introduced: Option<&'a [u8]>,
    pub parent: Option<&'a [u8]>,
    /// -o DIR.
    pub out: Option<&'a [u8]>,
    /// `--check`: only the suite's run options are checked (cli/).
    pub check: bool,
    /// `--exact`: the boots of a step must give the same points, line for
    /// line (provenance.rs); one that does not fails the table (125).
    pub exact: bool,
    /// `--steps FILE`: each step's id and subject (series.rs), and `--re`,
    /// the subject a series' reply answers.
    pub steps_file: Option<&'a [u8]>,
    pub re: Option<&'a [u8]>,
    /// Each boot: its label and its suite's directory, in order.
    pub labels: [&'a [u8]; MAX_BOOTS],
    pub dirs: [&'a [u8]; MAX_BOOTS],
    pub n: usize,
}

impl Default for Spec<'_> {
    fn default() -> Self {
        Spec {
            gate: 0.5,
            gate_text: DEFAULT_GATE,
            introduced: None,
            parent: None,
            out: None,
            check: false,
            exact: false,
            steps_file: None,
            re: None,
            labels: [b""; MAX_BOOTS],
            dirs: [b""; MAX_BOOTS],
            n: 0,
        }
    }
}

impl Spec<'_> {
    /// The steps: each label once, in the order first given.
    pub fn steps(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let labels = &self.labels[..self.n];
        let first = |i: usize| !labels[..i].contains(&labels[i]);
        (0..self.n).filter(move |&i| first(i)).map(|i| labels[i])
    }

    /// Step `k`'s label.
    pub fn step(&self, k: usize) -> &[u8] {
        self.steps().nth(k).unwrap_or(b"")
    }

    /// The step boot `b` is of: its label's place among the steps.
    pub fn step_of(&self, b: usize) -> usize {
        let label = self.labels[b];
        self.steps().position(|l| l == label).unwrap_or(0)
    }
}

/// A file of DIR that could not be made or written: the table is not made
/// (2, whatever the reason: scripts/ab.sh tells a table's 0, 1 and 125 from
/// it).
fn unwritten(name: &[u8], e: NotCreated) -> Exit {
    Exit::new(exit::USAGE, format_args!("ab: {}: {e}", Clean(name)))
}

/// DIR/NAME, made new.
fn create(dir: &[u8], name: &[u8]) -> Result<Fd, Exit> {
    let path = CPath::concat(&[dir, b"/", name])
        .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {}: {bad}", Clean(name))))?;
    outfile::create(&path).map_err(|e| unwritten(name, NotCreated(e)))
}

/// A writer of DIR/NAME, made new; its write errors are told at `close`.
pub(super) struct File<'n> {
    name: &'n [u8],
    _fd: Fd,
    pub out: Out,
}

impl<'n> File<'n> {
    pub fn create(dir: &[u8], name: &'n [u8]) -> Result<File<'n>, Exit> {
        let fd = create(dir, name)?;
        let out = Out::new(fd.raw());
        Ok(File { name, _fd: fd, out })
    }

    /// Flushed; a write that failed is a table not made (2), naming the
    /// file.
    pub fn close(mut self) -> Result<(), Exit> {
        self.out.flush();
        match self.out.error() {
            None => Ok(()),
            Some(e) => Err(Exit::new(
                exit::USAGE,
                format_args!("ab: {}: not written whole: {e}", Clean(self.name)),
            )),
        }
    }
}

/// Runs `ab`; its exit, `out` being stdout.
pub fn main(spec: &Spec, out: &mut Out) -> Exit {
    judge(spec, out).unwrap_or_else(|e| e)
}

fn judge(spec: &Spec, out_stdout: &mut Out) -> Result<Exit, Exit> {
    let dir = spec.out.unwrap_or(b".");
    for sub in [&b"compare"[..], b"mail"] {
        let path = CPath::concat(&[dir, b"/", sub])
            .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: -o: {bad}")))?;
        sys::mkdir(&path, 0o777).map_err(|e| unwritten(sub, NotCreated(e)))?;
    }
    let keys = Keys::read(spec)?;
    let info = StepsInfo::read(spec.steps_file)?;
    let order = Order::of(spec, &info)?;
    let prov = Provenance::read(spec, &keys)?;
    if order.n > 2 {
        return series::judge(spec, &info, &order, &prov, dir, &keys, out_stdout);
    }
    // The tables of where the cost went, kept until the table is printed.
    let spool = sys::memfd(c"ab-sections")
        .map_err(|e| Exit::new(exit::USAGE, format_args!("ab: no memory file: {e}")))?;
    let mut sections = Out::new(spool.raw());
    let mut log = File::create(dir, b"mail/report.log")?;
    let mut rows = [Row::default(); MAX_ROWS];
    let pair = Pair { base: 0, test: 1 };
    let mut out = Outputs {
        prefix: b"",
        sections: &mut sections,
        log: &mut log.out,
        commits: [spec.parent, spec.introduced],
    };
    let drafts = pair::judge(spec, dir, &keys, pair, Some(&mut out), &mut rows)?;
    log.close()?;
    sections.flush();
    if let Some(e) = sections.error() {
        return Err(Exit::new(
            exit::USAGE,
            format_args!("ab: the memory file: {e}"),
        ));
    }
    let rows = &rows[..keys.n];
    let boots = Boots::of(spec, pair);
    table::tsv(spec, boots.all(), dir, rows, &keys.events)?;
    let mut f = File::create(dir, b"ab.txt")?;
    let mut both = Both::new(&mut f.out, out_stdout);
    provenance::warning(spec, &prov, &mut both);
    table::table(
        spec,
        pair,
        boots.all(),
        rows,
        &keys.events,
        &prov,
        &mut both,
    );
    both.copy(&spool);
    f.close()?;
    Ok(provenance::failed(spec, &prov).unwrap_or_else(|| verdict(rows, drafts)))
}

/// The exit of a table: 1 when a row moved, its events moved or an
/// outcome changed, else 125 when a row could not be judged, else 0; its
/// stderr line names the rows.
fn verdict(rows: &[Row], drafts: usize) -> Exit {
    let mut moved = Text::<1024>::new();
    let mut unjudged = Text::<1024>::new();
    let (mut m, mut u) = (0, 0);
    for r in rows {
        let (list, k) = match r.verdict {
            _ if r.changed() => (&mut moved, &mut m),
            Verdict::Unmoved => continue,
            _ => (&mut unjudged, &mut u),
        };
        let sep = if *k == 0 { "" } else { ", " };
        let word = match r.verdict {
            Verdict::Unmoved => "events moved",
            v => v.word(),
        };
        let _ = write!(list, "{sep}{} ({word})", r.name());
        *k += 1;
    }
    if m > 0 {
        return Exit::new(
            exit::FAIL,
            format_args!(
                "ab: {m} row(s) moved or changed outcome: {moved}; {drafts} draft(s) in mail/"
            ),
        );
    }
    if u > 0 {
        return Exit::new(
            exit::CANNOT_JUDGE,
            format_args!("ab: no row moved, but {u} could not be judged: {unjudged}"),
        );
    }
    Exit::pass()
}
