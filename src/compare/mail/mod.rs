//! `uring-repro report [--gate PCT] [--mode M] [--introduced SHA]
//! [--parent SHA] [--title TEXT] [--link URL]... LABEL=FILE...`: the
//! regression mail, drafted from the points (docs/report.md); with
//! `--steps [--re SUBJECT]`, the reply on a fix series, each label a step
//! (steps.rs).
//!
//! The inputs, labels and maths are compare's (load.rs, `Analysis`): the
//! first label is the control, every other label is compared with it.
//! Every sentence of the draft is made of facts the files state (their
//! banners, fact lines, rows, witness and checks lines) or the command line
//! gives; a fact the draft would state but some point does not is left out
//! (for that point) and named once, on one stderr line. A point that failed
//! its checks marks the draft NOT EVIDENCE at the top and makes the exit 1.
//! Plain text, no line over 72 columns. The paragraphs, in the order the
//! draft has them (`Mail::write`), are `Mail`'s methods, one file a
//! concern: the Subject and regzbot lines, what it claims (subject.rs);
//! what was compared and the workload (points.rs); the figures and their
//! verdict (results.rs); the steps of a series (steps.rs); how to
//! reproduce (reproduce.rs).

use core::fmt::Write;

use super::analysis::{Analysis, Comparison, Group};
use super::args::Args;
use super::cost::Costs;
use super::load::{Inputs, Stopped};
use super::point::{Key, Point, Series};
use super::words::{self, Long, PointsOf, WIDTH};
use crate::exit;
use crate::render::wrap;
use crate::sys::out::Out;

mod points;
mod reproduce;
mod results;
mod steps;
mod subject;

/// Most `--link`s.
pub const MAX_LINKS: usize = 4;
/// Longest `--title`: `Subject: [REGRESSION] ` and it fit 72 columns
/// (behind a longer tag the Subject folds, as a mail header does).
pub const MAX_TITLE: usize = 50;
/// Longest `--link` URL: `Link: ` and it fit 72 columns.
pub const MAX_LINK: usize = 66;
/// Longest `--re` subject (a patch's subject line; the Subject folds).
pub const MAX_RE: usize = 128;

/// What the command line adds to compare's arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draft<'a> {
    /// The commit the regression is claimed for (the first test label's).
    pub introduced: Option<&'a [u8]>,
    /// The control's commit.
    pub parent: Option<&'a [u8]>,
    pub title: Option<&'a [u8]>,
    pub links: [Option<&'a [u8]>; MAX_LINKS],
    pub n_links: usize,
    /// `--steps`: the labels are the steps of a fix series, in order; the
    /// draft is its reply (steps.rs).
    pub steps: bool,
    /// `--re`: the subject of the patch the steps' draft replies to.
    pub re: Option<&'a [u8]>,
}

impl Draft<'_> {
    /// Why these options do not make one draft (a usage error), if they
    /// do not: `--steps` names its steps by label and is no regression
    /// report, `--re` is its reply's subject.
    pub fn refused(&self, a: &Args) -> Option<&'static str> {
        if self.steps && a.plain {
            Some("--steps names each step: LABEL=FILE")
        } else if self.steps && (self.introduced.is_some() || self.parent.is_some()) {
            Some("--introduced and --parent are the regression mail's, not --steps'")
        } else if self.re.is_some() && !self.steps {
            Some("--re is the subject a --steps draft replies to")
        } else if self.re.is_some() && self.title.is_some() {
            Some("--re and --title both make the Subject: give one")
        } else {
            None
        }
    }
}

/// Most characters of a fact the draft states (a kernel release's limit,
/// and the contract hash's length); a longer one is cut and ends `...`.
const MAX_FACT: usize = 64;

/// A paragraph, composed whole and then wrapped.
type Para = Long;

/// The facts the draft states, named on stderr where a point lacks them.
const USED: [Key; 21] = [
    Key::Version,
    Key::Profile,
    Key::Kernel,
    Key::BootId,
    Key::Cpu,
    Key::Clock,
    Key::RingEntries,
    Key::CqEntries,
    Key::Slots,
    Key::Cycles,
    Key::Warmups,
    Key::Rounds,
    Key::Futex,
    Key::Timeout,
    Key::Sha,
    Key::Machine,
    Key::CpuModel,
    Key::Preempt,
    Key::Turbo,
    Key::Smt,
    Key::Governor,
];

struct Mail<'r, 'a> {
    an: &'r Analysis<'r, 'a>,
    /// The cost lines of the draft's one comparison, summed by the caller
    /// (ab, which shows them elsewhere too); else each comparison's are
    /// summed where the draft shows them.
    costs: Option<&'r Costs<'r>>,
    a: &'r Args<'a>,
    d: &'r Draft<'a>,
    pts: &'r [Point<'r>],
    gs: &'r [Group<'a>],
    /// Every other label against the control; with `--steps`, each step
    /// against the one before it.
    cmps: &'r [Comparison],
    /// Every point, as bits.
    all: u32,
}

/// Runs `report`; `argv` is the command line after the program name, to
/// quote in the draft. Returns the exit code.
pub fn main(a: &Args, d: &Draft, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) -> i32 {
    draft(a, d, argv, out).unwrap_or_else(|stopped| stopped.code)
}

/// `report`: the points read, analysed and drafted; its exit code, or
/// where it stopped.
fn draft(
    a: &Args,
    d: &Draft,
    argv: &mut dyn Iterator<Item = &[u8]>,
    out: &mut Out,
) -> Result<i32, Stopped> {
    let mut inputs = Inputs::map(a)?;
    let pts = inputs.read(a)?;
    let an = Analysis::of(a, &pts);
    let mut left_out = Long::new();
    write(&an, d, None, argv, out, &mut left_out);
    out.flush();
    if !left_out.as_bytes().is_empty() {
        exit::warn(format_args!("report: {left_out}"));
    }
    Ok(pts.checked("report", "the draft is NOT EVIDENCE"))
}

/// The draft of analysis `an` (its points, its command line's `Args`) and
/// `d`, on `out`; `costs`, the cost lines of its one comparison when the
/// caller summed them; `argv`, the `report` command line the draft quotes.
/// What it would state and some point does not is named in `left_out`
/// (empty when nothing is left out).
pub fn write(
    an: &Analysis,
    d: &Draft,
    costs: Option<&Costs>,
    argv: &mut dyn Iterator<Item = &[u8]>,
    out: &mut Out,
    left_out: &mut Long,
) {
    let a = an.args;
    let m = Mail {
        an,
        costs,
        a,
        d,
        pts: an.points,
        gs: an.groups(),
        // The steps of a series: each against the one before it.
        cmps: if d.steps { an.steps() } else { an.cmps() },
        all: (1u32 << a.n) - 1,
    };
    m.write(argv, out);
    m.missing(left_out);
}

/// Wraps a composed paragraph to WIDTH (continued at `indent`), a blank
/// line after it unless `alone`.
fn emit(out: &mut Out, p: &Para, indent: usize, alone: bool) {
    wrap(out, p.as_str(), 0, indent, WIDTH);
    if !alone {
        out.bytes(b"\n");
    }
}

impl<'r, 'a> Mail<'r, 'a> {
    fn unit(&self) -> words::Unit {
        words::unit(self.an.icount())
    }

    /// The points for which `p` holds, as bits.
    fn mask(&self, p: &dyn Fn(usize) -> bool) -> u32 {
        (0..self.a.n).fold(0, |m, i| m | (p(i) as u32) << i)
    }

    /// The value of `f` the points that state it agree on, and which
    /// points those are; None when no point states it or they differ.
    fn common(&self, f: Key) -> Option<(&'r [u8], u32)> {
        let v = self.pts.iter().find_map(|x| x.get(f))?;
        let differs = self.pts.iter().any(|x| x.get(f).is_some_and(|w| w != v));
        let says = self.mask(&|i| self.pts[i].get(f).is_some());
        (!differs).then_some((v, says))
    }

    /// The value every point states for `f` alike: what a claim about all
    /// of them may say.
    fn every(&self, f: Key) -> Option<&'r [u8]> {
        self.common(f).filter(|c| c.1 == self.all).map(|c| c.0)
    }

    fn write(&self, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) {
        let bad = self.mask(&|i| !self.pts[i].valid());
        if bad != 0 {
            let mut p = Para::new();
            let _ = write!(
                p,
                "NOT EVIDENCE: {} failed {} checks (see below); {}.",
                PointsOf(bad, false),
                if bad.count_ones() == 1 {
                    "its"
                } else {
                    "their"
                },
                if self.d.steps {
                    "no step of theirs, and no change against one, is evidence"
                } else {
                    "this draft is no regression report"
                }
            );
            emit(out, &p, 0, false);
        }
        self.subject(out);
        self.compared(out);
        self.workload(out);
        if self.d.steps {
            self.steps_table(out);
            self.results(out);
            self.steps_overall(out);
        } else {
            self.table(out);
            self.results(out);
        }
        self.checks(bad, out);
        self.witness(out);
        self.cost(out);
        if !self.d.steps {
            self.regzbot(out);
        }
        self.reproduce(argv, out);
    }

    /// What the series every point's rows are of is, as every point
    /// states it alike (`# series:` lines); None when some point does not
    /// state it (older points, the C tools') or they differ.
    fn series(&self) -> Option<&'r Series<'r>> {
        let first = self.pts.first()?.rows_series()?;
        let alike = self.pts.iter().all(|p| p.rows_series() == Some(first));
        alike.then_some(first)
    }

    /// What one figure is per: the series' unit, else a pair.
    fn per(&self) -> &'r [u8] {
        self.series().map_or(b"pair", |s| s.per)
    }

    /// The profile every point's rows are of (pollwake's: the mode read,
    /// `pollwake_idle`, where the banner says `pollwake`), if every point
    /// states it.
    fn profile(&self) -> Option<&'r [u8]> {
        let p = self.pts.first()?.profile();
        let all = self.pts.iter().all(|q| q.profile() == p);
        (all && !p.is_empty()).then_some(p)
    }

    /// Every fact the draft would state that some point does not, or on
    /// which they disagree, named in `p` (nothing when none): the keys it
    /// uses, and the workload the `# series:` lines state.
    fn missing(&self, p: &mut Para) {
        let name = |p: &mut Para, what: &str, lacks: u32, differs: bool| {
            if lacks == 0 && !differs {
                return;
            }
            let sep = if p.as_bytes().is_empty() {
                "left out of the draft, not stated: "
            } else {
                ", "
            };
            let _ = write!(p, "{sep}{what} (");
            let _ = if differs {
                p.write_str("the points differ)")
            } else if lacks == self.all {
                p.write_str("no point)")
            } else {
                write!(p, "not in {})", PointsOf(lacks, false))
            };
        };
        for f in USED {
            let lacks = self.mask(&|i| self.pts[i].get(f).is_none());
            // A kernel and a boot are the point's own: they differ.
            let own = matches!(f, Key::Kernel | Key::BootId);
            let differs = !own && lacks != self.all && self.common(f).is_none();
            name(p, f.name(), lacks, differs);
        }
        let lacks = self.mask(&|i| self.pts[i].rows_series().is_none());
        let differs = lacks == 0 && self.series().is_none();
        name(p, "series", lacks, differs);
    }
}
