//! One pair of steps judged: for every row, the points of the boots of the
//! two steps read with compare's reader (the earlier step the control),
//! analysed at the gate in instructions (`Gate::Insn`): its figures and its
//! verdict, and its events; compare's text of the row written on the way
//! and, when it moved, its draft and the table of where its cost went
//! (`Outputs`; the table too when its events alone moved).

use core::fmt::Write;

use super::super::analysis::Analysis;
use super::super::args::{Args, Gate, MAX_POINTS};
use super::super::cost::{Costs, EventsCounted};
use super::super::cost_table::{self, Medium};
use super::super::load::Inputs;
use super::super::mail::{self, Draft};
use super::super::text;
use super::super::words::Long;
use super::rows::{
    by_endings, copy, Ended, EventFigures, EventNames, Figures, Keys, Row, Verdict, MAX_ROWS, NAME,
};
use super::{File, Spec};
use crate::exit::Exit;
use crate::render::Text;
use crate::sys::out::Out;

/// A pair of steps, by their places among the steps: the base (the
/// control) and the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub base: usize,
    pub test: usize,
}

/// The boots of a pair's steps, in the order given.
#[derive(Clone, Copy)]
pub struct Boots {
    pub at: [usize; MAX_POINTS],
    pub n: usize,
}

impl Boots {
    pub fn of(spec: &Spec, pair: Pair) -> Boots {
        let mut b = Boots {
            at: [0; MAX_POINTS],
            n: 0,
        };
        for i in 0..spec.n {
            let step = spec.step_of(i);
            if (step == pair.base || step == pair.test) && b.n < MAX_POINTS {
                (b.at[b.n], b.n) = (i, b.n + 1);
            }
        }
        b
    }

    pub fn all(&self) -> &[usize] {
        &self.at[..self.n]
    }
}

/// Where a pair's files go: compare's text and the draft of a row under
/// `compare/PREFIX` and `mail/PREFIX`, the tables of where the cost went
/// into `sections`, what the drafts leave out into `log`.
pub struct Outputs<'o> {
    pub prefix: &'o [u8],
    pub sections: &'o mut Out,
    pub log: &'o mut Out,
    /// The commits of the base and of the test, where they are ones: the
    /// drafts' `--parent` and `--introduced`.
    pub commits: [Option<&'o [u8]>; 2],
}

/// Every row of `keys` judged for `pair`, into `rows`; how many drafts
/// were written. Without `out`, the figures and verdicts alone.
pub fn judge(
    spec: &Spec,
    dir: &[u8],
    keys: &Keys,
    pair: Pair,
    mut out: Option<&mut Outputs>,
    rows: &mut [Row; MAX_ROWS],
) -> Result<usize, Exit> {
    let boots = Boots::of(spec, pair);
    let mut drafts = 0;
    for (row, key) in rows.iter_mut().zip(keys.rows()) {
        *row = *key;
        let passed = boots.all().iter().all(|&b| row.ended[b] == Ended::Pass);
        if !passed {
            row.verdict = by_endings(spec, boots.all(), &row.ended);
        } else if judge_row(spec, dir, &boots, &keys.events, row, out.as_deref_mut())? {
            drafts += 1;
        }
    }
    Ok(drafts)
}

/// The paths of one row's points, as compare's FILE arguments
/// (`base-1/s0.txt`), of each boot of the pair in order.
struct Files {
    names: [u8; 4096],
    at: [(usize, usize); MAX_POINTS],
}

impl Files {
    fn of(spec: &Spec, boots: &Boots, item: &[u8]) -> Files {
        let mut f = Files {
            names: [0; 4096],
            at: [(0, 0); MAX_POINTS],
        };
        let mut end = 0;
        for (k, &b) in boots.all().iter().enumerate() {
            let start = end;
            for part in [spec.dirs[b], b"/", item, b".txt"] {
                for &c in part {
                    if end < f.names.len() {
                        f.names[end] = if c == b':' && part == item { b'-' } else { c };
                        end += 1;
                    }
                }
            }
            f.at[k] = (start, end);
        }
        f
    }

    fn name(&self, b: usize) -> &[u8] {
        let (s, e) = self.at[b];
        &self.names[s..e]
    }
}

/// Judges one row whose item passed on every boot of the pair: its points
/// read (of its series in a table of several), analysed at the gate; with
/// `out`, its compare text written, and when it moved its draft and where
/// its cost went. True when a draft was written.
fn judge_row(
    spec: &Spec,
    dir: &[u8],
    boots: &Boots,
    events: &EventNames,
    row: &mut Row,
    out: Option<&mut Outputs>,
) -> Result<bool, Exit> {
    let files = Files::of(spec, boots, row.item.as_bytes());
    let series = row.series;
    let mut a = Args {
        gate: Gate::Insn(spec.gate),
        same_image: true,
        mode: (!series.as_bytes().is_empty()).then(|| series.as_bytes()),
        ..Args::default()
    };
    for (k, &b) in boots.all().iter().enumerate() {
        a.labels[k] = Some(spec.labels[b]);
        a.files[k] = Some(files.name(k));
    }
    a.n = boots.n;
    let mut inputs = Inputs::map(&a).map_err(|s| Exit::printed(s.code))?;
    let pts = match inputs.read(&a) {
        Ok(pts) => pts,
        Err(stopped) => {
            // compare's own line is on stderr.
            (row.verdict, row.error) = (Verdict::Error, stopped.code);
            return Ok(false);
        }
    };
    let an = Analysis::of(&a, &pts);
    let c = an.cmps()[0];
    let costs = Costs::of(&an, &c);
    // Its events, where its points counted the table's.
    let (t, ev) = (&costs.sum, &costs.sum.events);
    let counted = costs.table == Some(Ok(())) && ev.status() == EventsCounted::Counted;
    row.figures = Some(Figures {
        c,
        locked: [c.base, c.test].map(|g| an.locked(g).map(|l| l.kernel)),
        events: (counted && events.are(&ev.names[..ev.n])).then(|| EventFigures {
            v: ev.v,
            moved: ev.moved_bits(t.threshold),
        }),
    });
    row.verdict = if c.reasons == 0 {
        Verdict::Moved
    } else if c.unjudged() {
        Verdict::Unjudged
    } else {
        Verdict::Unmoved
    };
    let Some(out) = out else {
        return Ok(false);
    };
    let prefix = crate::render::Bytes(out.prefix);
    let mut name = Text::<{ 2 * NAME + 64 }>::new();
    let _ = write!(name, "compare/{prefix}{}.txt", row.file());
    let mut f = File::create(dir, name.as_bytes())?;
    text::text(&an, Some(&costs), &mut f.out);
    f.close()?;
    if row.verdict != Verdict::Moved && row.events_moved() == 0 {
        return Ok(false);
    }
    // ab.txt's table of where the cost went.
    let _ = write!(
        out.sections,
        "\n{}: where the cost went (compare/{prefix}{}.txt)\n",
        row.name(),
        row.file()
    );
    cost_table::section(&an, &c, &costs, "pair", Medium::Rows, out.sections);
    // A draft for a row that moved; one whose events alone moved has none
    // (report's verdict is the instructions').
    if row.verdict != Verdict::Moved {
        return Ok(false);
    }
    draft(spec, dir, row, &an, &costs, &files, boots, out)?;
    Ok(true)
}

/// The draft of a row that moved, mail/ROW.txt, as `report` makes it with
/// the same gate from the same points (its command line, quoted in it, is
/// that one); what it leaves out goes to report.log.
#[allow(clippy::too_many_arguments)]
fn draft(
    spec: &Spec,
    dir: &[u8],
    row: &Row,
    an: &Analysis,
    costs: &Costs,
    files: &Files,
    boots: &Boots,
    out: &mut Outputs,
) -> Result<(), Exit> {
    let [parent, introduced] = out.commits;
    let d = Draft {
        introduced,
        parent,
        ..Draft::default()
    };
    // The report command line that makes this draft from these points,
    // as the draft quotes it: LABEL=FILE as compare read them.
    let mut labelled = [Text::<{ 2 * NAME + 64 }>::new(); MAX_POINTS];
    for (k, (l, &b)) in labelled.iter_mut().zip(boots.all()).enumerate() {
        for part in [spec.labels[b], b"=", files.name(k)] {
            l.push_with(&mut |room| copy(room, part));
        }
    }
    let mut argv = Words::default();
    argv.push(&[b"report", b"--gate-insn", spec.gate_text]);
    if !row.mode.as_bytes().is_empty() {
        argv.push(&[b"--mode", row.mode.as_bytes()]);
    }
    if let Some(sha) = introduced {
        argv.push(&[b"--introduced", sha]);
    }
    if let Some(sha) = parent {
        argv.push(&[b"--parent", sha]);
    }
    for l in &labelled[..boots.n] {
        argv.push(&[l.as_bytes()]);
    }
    let mut name = Text::<{ 2 * NAME + 64 }>::new();
    let _ = write!(
        name,
        "mail/{}{}.txt",
        crate::render::Bytes(out.prefix),
        row.file()
    );
    let mut f = File::create(dir, name.as_bytes())?;
    let mut left_out = Long::new();
    let mut words = argv.w[..argv.n].iter().copied();
    mail::write(an, &d, Some(costs), &mut words, &mut f.out, &mut left_out);
    f.close()?;
    if !left_out.as_bytes().is_empty() {
        let prefix = crate::render::Bytes(out.prefix);
        let _ = writeln!(out.log, "{prefix}{}: {left_out}", row.name());
    }
    Ok(())
}

/// A command line's words.
#[derive(Default)]
struct Words<'w> {
    w: [&'w [u8]; 8 + MAX_POINTS],
    n: usize,
}

impl<'w> Words<'w> {
    fn push(&mut self, words: &[&'w [u8]]) {
        for &w in words {
            if self.n < self.w.len() {
                self.w[self.n] = w;
                self.n += 1;
            }
        }
    }
}
