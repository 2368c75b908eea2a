//! A series: more than two steps (scripts/ab.sh `--series`, `--each`),
//! each judged against the step before it (pair.rs), and the series as a
//! whole (its last step against its first). Into DIR: ab.txt (also on
//! stdout), each step's table under its heading, then the matrix (a row per
//! row, a column per step, the change where the row moved); series.tsv,
//! every step's rows with the step's columns first; compare/LABEL/ and
//! mail/LABEL/, each step's texts and drafts; mail/series.txt, the reply on
//! the series, patch by patch.

use core::fmt::{self, Write};

use super::pair::{self, Boots, Outputs, Pair};
use super::provenance::{self, Provenance};
use super::rows::{Keys, Row, Verdict, MAX_ROWS};
use super::table::{self, Both, Plus};
use super::{File, Spec, MAX_STEPS};
use crate::compare::words::WIDTH;
use crate::exit::{self, Exit};
use crate::render::{wrap, Clean, Dec, Text};
use crate::sys::out::Out;
use crate::sys::{self, CPath};

/// Steps a block of the matrix shows: within 72 columns with the profile's
/// column and the total's.
pub const STEPS_A_BLOCK: usize = 8;

/// What a step's heading and the mail say of it: `--steps FILE`'s line for
/// its label, `LABEL<TAB>ID<TAB>SUBJECT[<TAB>WHY]` (ID a commit, or a
/// patch's file name; WHY, why the step has no boot: it was not measured),
/// written by scripts/ab.sh.
pub struct StepsInfo {
    text: [u8; 16384],
    len: usize,
}

impl StepsInfo {
    /// The file at `path`, or none.
    pub fn read(path: Option<&[u8]>) -> Result<StepsInfo, Exit> {
        let mut s = StepsInfo {
            text: [0; 16384],
            len: 0,
        };
        let Some(path) = path else {
            return Ok(s);
        };
        let cannot = |e: &dyn fmt::Display| {
            Exit::new(
                exit::USAGE,
                format_args!("ab: --steps {}: cannot read: {e}", Clean(path)),
            )
        };
        let p = CPath::new(path).map_err(|bad| cannot(&bad))?;
        let room = s.text.len();
        match sys::read_file(&p, &mut s.text) {
            Ok(t) if t.len() < room => s.len = t.len(),
            Ok(_) => return Err(cannot(&"longer than 16 KiB")),
            Err(e) => return Err(cannot(&e)),
        }
        Ok(s)
    }

    /// Each line's fields: label, id, subject, why not measured.
    fn lines(&self) -> impl Iterator<Item = [&[u8]; 4]> {
        self.text[..self.len]
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|line| {
                let mut f = line.splitn(4, |&b| b == b'\t');
                [(); 4].map(|_| f.next().unwrap_or(b""))
            })
    }

    /// The id and subject of the step labelled `label` (empty when not
    /// said).
    pub fn of(&self, label: &[u8]) -> (&[u8], &[u8]) {
        self.lines()
            .find(|f| f[0] == label)
            .map_or((b"", b""), |f| (f[1], f[2]))
    }

    /// Why the step labelled `label` was not measured (empty: it was).
    pub fn why(&self, label: &[u8]) -> &[u8] {
        self.lines().find(|f| f[0] == label).map_or(b"", |f| f[3])
    }

    /// The commit a step is, when its id is one (7 to 40 hex digits).
    pub fn commit(&self, label: &[u8]) -> Option<&[u8]> {
        let id = self.of(label).0;
        let hex = (7..=40).contains(&id.len()) && id.iter().all(u8::is_ascii_hexdigit);
        hex.then_some(id)
    }
}

/// The steps of a run, in order: the steps file's where it lists them (a
/// step not measured among them, without boots), else the boots' labels;
/// each with its place among the boots' steps (`Spec::step`), if measured.
pub struct Order<'a> {
    label: [&'a [u8]; MAX_STEPS],
    at: [Option<usize>; MAX_STEPS],
    pub n: usize,
}

impl<'a> Order<'a> {
    pub fn of(spec: &'a Spec, info: &'a StepsInfo) -> Result<Order<'a>, Exit> {
        let mut o = Order {
            label: [b""; MAX_STEPS],
            at: [None; MAX_STEPS],
            n: 0,
        };
        let bad = |label: &[u8], why: &str| {
            Exit::new(
                exit::USAGE,
                format_args!("ab: --steps: {}: {why}", Clean(label)),
            )
        };
        // The file's order where it names every step booted; else the
        // boots' (the file then only says what each is).
        let listed = info.lines().next().is_some()
            && spec
                .steps()
                .all(|label| info.lines().any(|f| f[0] == label));
        let mut push = |label: &'a [u8]| -> Result<(), Exit> {
            if o.n == MAX_STEPS {
                return Err(bad(label, "more steps than a series has (16)"));
            }
            o.label[o.n] = label;
            o.at[o.n] = spec.steps().position(|l| l == label);
            o.n += 1;
            Ok(())
        };
        if listed {
            for [label, _, _, why] in info.lines() {
                let booted = spec.steps().any(|l| l == label);
                if !booted && why.is_empty() {
                    return Err(bad(
                        label,
                        "no boot, and no word of why it was not measured",
                    ));
                }
                push(label)?;
            }
        } else {
            for label in spec.steps() {
                push(label)?;
            }
            if let Some([label, ..]) = info.lines().find(|f| !spec.steps().any(|l| l == f[0])) {
                return Err(bad(
                    label,
                    "no boot, and the steps listed leave out a step booted",
                ));
            }
        }
        if o.at[0].is_none() {
            return Err(bad(
                o.label[0],
                "the first step was not measured: nothing to hold the series against",
            ));
        }
        Ok(o)
    }

    pub fn label(&self, k: usize) -> &'a [u8] {
        self.label[k]
    }

    /// Step `k`'s place among the boots' steps, if it was measured.
    pub fn at(&self, k: usize) -> Option<usize> {
        self.at[k]
    }

    /// The last step measured, before `k`.
    fn before(&self, k: usize) -> usize {
        (0..k).rev().find(|&j| self.at[j].is_some()).unwrap_or(0)
    }
}

/// What the matrix keeps of a row for a step.
#[derive(Clone, Copy, Default)]
struct Cell {
    verdict: Verdict,
    delta: f64,
    pct: f64,
    locked: Option<f64>,
}

impl Cell {
    fn of(r: &Row) -> Cell {
        let f = r.figures.as_ref();
        Cell {
            verdict: r.verdict,
            delta: f.map_or(f64::NAN, |f| f.c.delta),
            pct: f.map_or(f64::NAN, |f| f.c.change),
            locked: f.and_then(|f| f.locked[0].zip(f.locked[1]).map(|(b, h)| h - b)),
        }
    }
}

/// A change in at most 5 columns, its sign always: `+1.99`, `+58.0`,
/// `-204`, `+1234`; what it cannot be said in, `big`.
struct Short(f64);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (v, a) = (self.0, self.0.abs());
        let d = if a < 9.995 {
            2
        } else if a < 99.95 {
            1
        } else if a < 9999.5 {
            0
        } else {
            return f.write_str(if v < 0.0 { "-big" } else { "+big" });
        };
        let sign = if v < 0.0 { "-" } else { "+" };
        write!(f, "{sign}{}", Dec(a, d))
    }
}

/// A cell of the matrix: the change where the row moved, `x` where the
/// item's outcome changed, `-` where it could not be judged, blank where it
/// did not move.
struct Mark(Cell);

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.verdict {
            Verdict::Moved => Short(self.0.delta).fmt(f),
            Verdict::Unmoved => Ok(()),
            Verdict::OutcomeChanged => f.write_str("x"),
            Verdict::NotMeasured => f.write_str("!"),
            _ => f.write_str("-"),
        }
    }
}

/// Every pair of the series judged and written; the exit.
pub fn judge(
    spec: &Spec,
    info: &StepsInfo,
    order: &Order,
    prov: &Provenance,
    dir: &[u8],
    keys: &Keys,
    stdout: &mut Out,
) -> Result<Exit, Exit> {
    let n = order.n;
    let mut cells = [[Cell::default(); MAX_ROWS]; MAX_STEPS];
    let mut total = [Cell::default(); MAX_ROWS];
    let mut rows = [Row::default(); MAX_ROWS];
    let mut txt = File::create(dir, b"ab.txt")?;
    let mut tsv = File::create(dir, b"series.tsv")?;
    let mut log = File::create(dir, b"mail/report.log")?;
    tsv.out.bytes(b"step\tlabel\tid\tsubject\t");
    table::tsv_header(&keys.events, &mut tsv.out);
    {
        let mut both = Both::new(&mut txt.out, stdout);
        provenance::warning(spec, prov, &mut both);
    }
    let (mut moved, mut unjudged, mut drafts) = (0, 0, 0);
    for (k, step_cells) in cells.iter_mut().enumerate().take(n).skip(1) {
        let label = order.label(k);
        let (id, subject) = info.of(label);
        let Some(test) = order.at(k) else {
            // Not measured: named, and the next step is held against the
            // one before it.
            let mut both = Both::new(&mut txt.out, stdout);
            heading(info, order, k, &mut both);
            let why = info.why(label);
            let mut p = Text::<512>::new();
            let _ = write!(p, "Not measured: {}.", Clean(why));
            wrap(&mut both, p.as_str(), 0, 0, WIDTH);
            let _ = both.write_str("\n");
            for (i, r) in keys.rows().iter().enumerate() {
                let mut r = *r;
                r.verdict = Verdict::NotMeasured;
                step_columns(&mut tsv.out, k, label, id, subject);
                table::tsv_row(spec, &[], &r, &keys.events, &mut tsv.out);
                step_cells[i] = Cell::of(&r);
            }
            unjudged += 1;
            continue;
        };
        let base = order.at(order.before(k)).unwrap_or(0);
        let pair = Pair { base, test };
        // compare/LABEL/ and mail/LABEL/: the step's texts and drafts.
        let mut prefix = Text::<64>::new();
        prefix.push_with(&mut |room| super::rows::copy(room, label));
        let _ = prefix.write_str("/");
        for sub in [&b"compare/"[..], b"mail/"] {
            let path = CPath::concat(&[dir, b"/", sub, label])
                .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {bad}")))?;
            sys::mkdir(&path, 0o777).map_err(|e| {
                Exit::new(
                    exit::USAGE,
                    format_args!("ab: {}{}: {e}", Clean(sub), Clean(label)),
                )
            })?;
        }
        let spool = sys::memfd(c"ab-sections")
            .map_err(|e| Exit::new(exit::USAGE, format_args!("ab: no memory file: {e}")))?;
        let mut sections = Out::new(spool.raw());
        let mut out = Outputs {
            prefix: prefix.as_bytes(),
            sections: &mut sections,
            log: &mut log.out,
            commits: [info.commit(spec.step(base)), info.commit(label)],
        };
        drafts += pair::judge(spec, dir, keys, pair, Some(&mut out), &mut rows)?;
        sections.flush();
        let rows = &rows[..keys.n];
        let boots = Boots::of(spec, pair);
        let mut both = Both::new(&mut txt.out, stdout);
        heading(info, order, k, &mut both);
        table::table(spec, pair, boots.all(), rows, &keys.events, prov, &mut both);
        both.copy(&spool);
        let _ = both.write_str("\n");
        for (i, r) in rows.iter().enumerate() {
            step_columns(&mut tsv.out, k, label, id, subject);
            table::tsv_row(spec, boots.all(), r, &keys.events, &mut tsv.out);
            step_cells[i] = Cell::of(r);
            match r.verdict {
                _ if r.changed() => moved += 1,
                Verdict::Unmoved => {}
                _ => unjudged += 1,
            }
        }
    }
    // The series as a whole: its last step measured against its first.
    let whole = Pair {
        base: order.at(0).unwrap_or(0),
        test: order.at(order.before(n)).unwrap_or(0),
    };
    pair::judge(spec, dir, keys, whole, None, &mut rows)?;
    for (t, r) in total.iter_mut().zip(&rows[..keys.n]) {
        *t = Cell::of(r);
    }
    let mut both = Both::new(&mut txt.out, stdout);
    matrix(info, order, keys, &cells, &total, &mut both);
    tsv.close()?;
    txt.close()?;
    log.close()?;
    let mut mail = File::create(dir, b"mail/series.txt")?;
    reply(spec, info, order, keys, &cells, &total, &mut mail.out);
    mail.close()?;
    if let Some(e) = provenance::failed(spec, prov) {
        return Ok(e);
    }
    Ok(if moved > 0 {
        Exit::new(
            exit::FAIL,
            format_args!(
                "ab: {moved} row(s) of the series' steps moved or changed outcome; {drafts} \
                 draft(s) in mail/, the series' reply in mail/series.txt"
            ),
        )
    } else if unjudged > 0 {
        Exit::new(
            exit::CANNOT_JUDGE,
            format_args!(
                "ab: no row of the series moved, but {unjudged} could not be judged (or a step \
                 was not measured)"
            ),
        )
    } else {
        Exit::pass()
    })
}

/// A line of series.tsv's first columns: the step, its label, id and
/// subject.
fn step_columns(out: &mut Out, k: usize, label: &[u8], id: &[u8], subject: &[u8]) {
    let _ = write!(
        out,
        "{k}\t{}\t{}\t{}\t",
        Clean(label),
        Clean(id),
        Clean(subject)
    );
}

/// `step K/N: LABEL (ID): SUBJECT`, and what the step is compared with.
fn heading(info: &StepsInfo, order: &Order, k: usize, w: &mut dyn Write) {
    let label = order.label(k);
    let (id, subject) = info.of(label);
    let mut h = Text::<512>::new();
    let _ = write!(h, "step {k}/{}: {}", order.n - 1, Clean(label));
    if !id.is_empty() && id != label {
        let _ = write!(h, " ({})", Clean(id));
    }
    if !subject.is_empty() {
        let _ = write!(h, ": {}", Clean(subject));
    }
    if order.at(k).is_some() {
        let _ = write!(h, ", against {}:", Clean(order.label(order.before(k))));
    }
    wrap(w, h.as_str(), 0, 2, WIDTH);
    let _ = w.write_str("\n");
}

/// The matrix: a row per row, a column per step (its change where it
/// moved), the whole series' last; in blocks of STEPS_A_BLOCK steps (the
/// total in the last), so every line keeps within 72 columns.
fn matrix(
    info: &StepsInfo,
    order: &Order,
    keys: &Keys,
    cells: &[[Cell; MAX_ROWS]; MAX_STEPS],
    total: &[Cell; MAX_ROWS],
    w: &mut dyn Write,
) {
    let n = order.n;
    let para = "The series, step by step: the change each step made, in guest \
                instructions per op against the step measured before it, where the row \
                moved (blank: it did not; x: its item's outcome changed; -: it could not \
                be judged; !: the step was not measured), and the whole series' (its \
                last step measured against its first). Wider than 8 steps, the matrix \
                folds into blocks of 8 steps, the total in the last.";
    wrap(w, para, 0, 0, WIDTH);
    let mut first = 1;
    while first < n {
        let last = (first + STEPS_A_BLOCK).min(n);
        let with_total = last == n;
        let mut line = Text::<128>::new();
        let _ = write!(line, "{:<16}", "profile");
        for k in first..last {
            let _ = write!(line, " {k:>5}");
        }
        if with_total {
            let _ = line.write_str("   total");
        }
        let _ = writeln!(w, "\n{}", line.as_str().trim_end());
        for (i, r) in keys.rows().iter().enumerate() {
            let mut name = Text::<64>::new();
            let _ = write!(name, "{}", r.name());
            let mut line = Text::<128>::new();
            let _ = write!(line, "{:<16}", name.as_str());
            for c in cells[first..last].iter().map(|step| &step[i]) {
                let mut t = Text::<16>::new();
                let _ = write!(t, "{}", Mark(*c));
                let _ = write!(line, " {:>5}", t.as_str());
            }
            if with_total {
                let mut t = Text::<16>::new();
                let _ = write!(t, "{}", Mark(total[i]));
                let _ = write!(line, "  {:>6}", t.as_str());
            }
            let _ = writeln!(w, "{}", line.as_str().trim_end());
        }
        first = last;
    }
    let _ = w.write_str("\n");
    for k in 1..n {
        let label = order.label(k);
        let (id, subject) = info.of(label);
        let mut l = Text::<512>::new();
        let _ = write!(l, "{k:>3}: {}", Clean(label));
        if !id.is_empty() && id != label {
            let _ = write!(l, " ({})", Clean(id));
        }
        if !subject.is_empty() {
            let _ = write!(l, " {}", Clean(subject));
        }
        if order.at(k).is_none() {
            let _ = write!(l, " (not measured: {})", Clean(info.why(label)));
        }
        wrap(w, l.as_str(), 0, 7, WIDTH);
    }
}

/// The reply on the series, patch by patch: what was measured and how,
/// the matrix, and for each patch the rows it moved, by how much.
fn reply(
    spec: &Spec,
    info: &StepsInfo,
    order: &Order,
    keys: &Keys,
    cells: &[[Cell; MAX_ROWS]; MAX_STEPS],
    total: &[Cell; MAX_ROWS],
    out: &mut Out,
) {
    let n = order.n;
    let mut p = Text::<2048>::new();
    match spec.re {
        Some(re) => {
            let _ = write!(p, "Subject: Re: {}", Clean(re));
        }
        None => {
            let _ = write!(
                p,
                "Subject: Re: [PATCH 0/{}] the series, measured patch by patch",
                n - 1
            );
        }
    }
    wrap(out, p.as_str(), 0, 1, WIDTH);
    let _ = out.write_str("\n");
    let mut p = Text::<2048>::new();
    let _ = write!(
        p,
        "Measured with uring-repro, patch by patch, each kernel against the one before \
         it, on QEMU's instruction clock (-icount shift=0), where every figure is guest \
         instructions per op, user and kernel, exact: the same image gives the same \
         figures on every boot. {} rows, every io_uring path the tool measures (one \
         row per profile and mode). A row moved when its change was at least {} \
         instructions per op beyond the base's spread and its 95% interval round by \
         round excluded 0.",
        keys.n,
        Clean(spec.gate_text)
    );
    wrap(out, p.as_str(), 0, 0, WIDTH);
    let _ = out.write_str("\n");
    matrix(info, order, keys, cells, total, out);
    let _ = out.write_str("\n");
    for (k, step_cells) in cells.iter().enumerate().take(n).skip(1) {
        let label = order.label(k);
        let (id, subject) = info.of(label);
        let mut p = Text::<4096>::new();
        let _ = write!(p, "[{k}/{}] {}", n - 1, Clean(label));
        if !subject.is_empty() {
            let _ = write!(p, " {}", Clean(subject));
        }
        if !id.is_empty() && id != label {
            let _ = write!(p, " ({})", Clean(id));
        }
        let _ = p.write_str(": ");
        if order.at(k).is_none() {
            let _ = write!(
                p,
                "not measured: {}; the step after it is held against the one before it.",
                Clean(info.why(label))
            );
            wrap(out, p.as_str(), 0, 2, WIDTH);
            let _ = out.write_str("\n");
            continue;
        }
        let (mut said, mut quiet) = (0, 0);
        for (i, r) in keys.rows().iter().enumerate() {
            let c = &step_cells[i];
            match c.verdict {
                Verdict::Moved => {
                    let sep = if said == 0 { "moved " } else { ", " };
                    let _ = write!(
                        p,
                        "{sep}{} {} ({}%",
                        r.name(),
                        Short(c.delta),
                        Plus(c.pct, 3)
                    );
                    if let Some(l) = c.locked.filter(|l| l.abs() >= 0.5) {
                        let _ = write!(p, ", {} locked", Short(l));
                    }
                    let _ = p.write_str(")");
                    said += 1;
                }
                Verdict::Unmoved => quiet += 1,
                v => {
                    let sep = if said == 0 { "" } else { ", " };
                    let _ = write!(p, "{sep}{} {}", r.name(), v.word());
                    said += 1;
                }
            }
        }
        let _ = match (said, quiet) {
            (0, _) => write!(p, "moved none of the {} rows.", keys.n),
            (_, 0) => p.write_str("."),
            (_, 1) => p.write_str("; the other row did not move."),
            _ => write!(p, "; the other {quiet} rows did not move."),
        };
        wrap(out, p.as_str(), 0, 2, WIDTH);
        let _ = out.write_str("\n");
    }
    let _ = writeln!(
        out,
        "Each step's table, with the kernel functions that moved and the\n\
         drafts of its rows that moved: ab.txt, mail/LABEL/; every figure:\n\
         series.tsv. The same table from the same points:\n"
    );
    let mut c = Text::<2048>::new();
    let _ = write!(c, "uring-repro ab --gate-insn {}", Clean(spec.gate_text));
    if spec.exact {
        let _ = c.write_str(" --exact");
    }
    if let Some(f) = spec.steps_file {
        let _ = write!(c, " --steps {}", Clean(f));
    }
    for b in 0..spec.n {
        let _ = write!(c, " {}={}", Clean(spec.labels[b]), Clean(spec.dirs[b]));
    }
    let _ = out.write_str("  ");
    wrap(out, c.as_str(), 2, 4, WIDTH);
}
