//! ab's table, rendered from its rows: ab.tsv (a header line and a row per
//! row, six decimals, `NA` where there is no figure; with events, a
//! column of those that moved and three per event), and ab.txt, for
//! people, also on stdout: the table (three decimals; under a row whose
//! events moved, those events), how the verdict is reached, whether the
//! base's boots agreed, the rows not compared, and for each row that
//! moved the table of where its cost went.

use core::fmt::{self, Write};

use super::pair::Pair;
use super::provenance::{self, Provenance};
use super::rows::{EventNames, Row, Verdict};
use super::{File, Spec};
use crate::compare::analysis::Comparison;
use crate::compare::words::WIDTH;
use crate::exit::Exit;
use crate::render::{wrap, Clean, Dec, Text};
use crate::sys::out::Out;
use crate::sys::{self, Fd};

/// The columns of ab.tsv, in order.
pub const TSV_HEADER: &str = "profile\tunit\tbase\thead\tdelta\tdelta_pct\tlocked_base\t\
locked_head\tlocked_delta\tverdict\tbase_spread\tdelta_low\tdelta_high\twhy\tabout";

/// A figure with `d` decimals, `NA` for none (NaN).
struct Na(f64, u32);

impl fmt::Display for Na {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_nan() {
            f.write_str("NA")
        } else {
            Dec(self.0, self.1).fmt(f)
        }
    }
}

/// A change with its sign always (`+0.000`, `-0.000` for a change that
/// rounds to 0 from below), as the table has always printed it.
pub struct Plus(pub f64, pub u32);

impl fmt::Display for Plus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0.0 { "-" } else { "+" };
        write!(f, "{sign}{}", Dec(self.0.abs(), self.1))
    }
}

/// A row's unit, `NA` where no point states it.
struct Unit<'r>(&'r Row);

impl fmt::Display for Unit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.unit.as_bytes() {
            b"" => f.write_str("NA"),
            u => Clean(u).fmt(f),
        }
    }
}

/// ab.tsv: its header and a line per row.
pub fn tsv(
    spec: &Spec,
    boots: &[usize],
    dir: &[u8],
    rows: &[Row],
    events: &EventNames,
) -> Result<(), Exit> {
    let mut f = File::create(dir, b"ab.tsv")?;
    tsv_header(events, &mut f.out);
    for r in rows {
        tsv_row(spec, boots, r, events, &mut f.out);
    }
    f.close()
}

/// The header's columns (after series.tsv's step columns): TSV_HEADER,
/// and with events `events_moved` and each event's `ev_NAME_base`,
/// `ev_NAME_head`, `ev_NAME_delta`.
pub fn tsv_header(events: &EventNames, out: &mut Out) {
    let _ = write!(out, "{TSV_HEADER}");
    if events.n > 0 {
        out.bytes(b"\tevents_moved");
    }
    for k in 0..events.n {
        let name = Clean(events.name(k));
        let _ = write!(out, "\tev_{name}_base\tev_{name}_head\tev_{name}_delta");
    }
    out.bytes(b"\n");
}

/// A row's line of ab.tsv (and of series.tsv, after the step's columns).
pub fn tsv_row(spec: &Spec, boots: &[usize], r: &Row, events: &EventNames, out: &mut Out) {
    let _ = write!(out, "{}\t{}", r.name(), Unit(r));
    let nan = f64::NAN;
    let (figures, verdict) = match &r.figures {
        Some(fg) => {
            let c = &fg.c;
            let [lb, lh] = fg.locked;
            let ld = match (lb, lh) {
                (Some(b), Some(h)) => h - b,
                _ => nan,
            };
            let p = &c.paired;
            (
                [
                    c.control,
                    c.value,
                    c.delta,
                    c.change,
                    lb.unwrap_or(nan),
                    lh.unwrap_or(nan),
                    ld,
                ],
                [c.spread, p.low, p.high],
            )
        }
        None => ([nan; 7], [nan; 3]),
    };
    for v in figures {
        let _ = write!(out, "\t{}", Na(v, 6));
    }
    let _ = write!(out, "\t{}", r.verdict.word());
    for v in verdict {
        let _ = write!(out, "\t{}", Na(v, 6));
    }
    out.bytes(b"\t");
    let _ = r.why(spec, boots, out);
    let _ = match r.about.as_bytes() {
        b"" => write!(out, "\tNA"),
        a => write!(out, "\t{}", Clean(a)),
    };
    if events.n > 0 {
        let ev = r.figures.and_then(|f| f.events);
        out.bytes(match ev {
            None => b"\tNA",
            Some(e) if e.moved == 0 => b"\t-",
            Some(_) => b"\t",
        });
        moved_names(r, events, ",", out);
        for k in 0..events.n {
            let [b, h] = ev.map_or([nan; 2], |e| e.v[k]);
            let _ = write!(out, "\t{}\t{}\t{}", Na(b, 6), Na(h, 6), Na(h - b, 6));
        }
    }
    out.bytes(b"\n");
}

/// The names of row `r`'s events that moved, `sep` between them.
fn moved_names(r: &Row, events: &EventNames, sep: &str, w: &mut dyn Write) {
    let moved = r.events_moved();
    for (j, k) in (0..events.n).filter(|k| moved & 1 << k != 0).enumerate() {
        let _ = write!(
            w,
            "{}{}",
            if j == 0 { "" } else { sep },
            Clean(events.name(k))
        );
    }
}

/// Under a row whose events moved: each, and its change per op; said to
/// be the events alone where the instructions did not move.
fn events_line(r: &Row, events: &EventNames, w: &mut dyn Write) {
    let Some(e) = r.figures.and_then(|f| f.events).filter(|e| e.moved != 0) else {
        return;
    };
    let mut t = Text::<1024>::new();
    let _ = t.write_str(if r.verdict == Verdict::Moved {
        "events:"
    } else {
        "events moved, the instructions not:"
    });
    let moved = (0..events.n).filter(|k| e.moved & 1 << k != 0);
    for (j, k) in moved.enumerate() {
        let [b, h] = e.v[k];
        let sep = if j == 0 { "" } else { "," };
        let _ = write!(t, "{sep} {} {}/op", Clean(events.name(k)), Plus(h - b, 3));
    }
    let _ = w.write_str("    ");
    wrap(w, t.as_str(), 4, 6, WIDTH);
}

/// Two writers at once: ab.txt and stdout.
pub struct Both<'o> {
    file: &'o mut Out,
    stdout: &'o mut Out,
}

impl<'o> Both<'o> {
    pub fn new(file: &'o mut Out, stdout: &'o mut Out) -> Self {
        Both { file, stdout }
    }

    /// What `spool` (a file, from its start) holds, on both.
    pub fn copy(&mut self, spool: &Fd) {
        let mut buf = [0u8; 4096];
        let mut at = 0u64;
        while let Ok(n) = sys::pread(spool.raw(), &mut buf, at) {
            if n == 0 {
                break;
            }
            self.file.bytes(&buf[..n]);
            self.stdout.bytes(&buf[..n]);
            at += n as u64;
        }
    }
}

impl Write for Both<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.file.bytes(s.as_bytes());
        self.stdout.bytes(s.as_bytes());
        Ok(())
    }
}

/// One line of the table: `%-16s %11s %11s %10s %9s  %7s %7s %7s  %-8s %s`.
fn line(w: &mut dyn Write, cells: [&dyn fmt::Display; 10]) {
    let mut c = [Text::<64>::new(); 10];
    for (t, v) in c.iter_mut().zip(cells) {
        let _ = write!(t, "{v}");
    }
    let s = |i: usize| c[i].as_str();
    let _ = writeln!(
        w,
        "{:<16} {:>11} {:>11} {:>10} {:>9}  {:>7} {:>7} {:>7}  {:<8} {}",
        s(0),
        s(1),
        s(2),
        s(3),
        s(4),
        s(5),
        s(6),
        s(7),
        s(8),
        s(9)
    );
}

/// A figure for the table, `-` for none.
struct Cell(Option<f64>, u32, bool);

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("-"),
            Some(v) if v.is_nan() => f.write_str("-"),
            Some(v) if self.2 => Plus(v, self.1).fmt(f),
            Some(v) => Dec(v, self.1).fmt(f),
        }
    }
}

/// A pair's table for people: the rows (three decimals), how the verdict
/// is reached, whether the base's boots agreed, the rows not compared.
pub fn table(
    spec: &Spec,
    pair: Pair,
    boots: &[usize],
    rows: &[Row],
    events: &EventNames,
    prov: &Provenance,
    w: &mut dyn Write,
) {
    let _ = writeln!(
        w,
        "{:<16} {:>11} {:>11} {:>10} {:>9}  locked instructions",
        "", "", "", "", ""
    );
    line(
        w,
        [
            &"profile",
            &"base",
            &"head",
            &"delta",
            &"delta %",
            &"base",
            &"head",
            &"delta",
            &"verdict",
            &"unit (per)",
        ],
    );
    let (base, head) = (spec.step(pair.base), spec.step(pair.test));
    let base_boots = boots.iter().filter(|&&b| spec.labels[b] == base).count();
    let head_boots = boots.iter().filter(|&&b| spec.labels[b] == head).count();
    let (base, head) = (Clean(base), Clean(head));
    let (mut spread, mut head_spread, mut locked, mut other) = (false, false, false, false);
    for r in rows {
        let f = r.figures.as_ref();
        let c = f.map(|f| f.c);
        let lb = f.and_then(|f| f.locked[0]);
        let lh = f.and_then(|f| f.locked[1]);
        let ld = lb.zip(lh).map(|(b, h)| h - b);
        locked |= lb.is_some() && lh.is_some();
        spread |= c.is_some_and(|c| c.spread > 0.0);
        head_spread |= c.is_some_and(|c| c.test_spread > 0.0);
        other |= !r.verdict.judged();
        let mut pct = Text::<32>::new();
        let _ = match c {
            Some(c) if !c.change.is_nan() => write!(pct, "{}%", Plus(c.change, 3)),
            _ => pct.write_str("-"),
        };
        line(
            w,
            [
                &r.name(),
                &Cell(c.map(|c| c.control), 3, false),
                &Cell(c.map(|c| c.value), 3, false),
                &Cell(c.map(|c| c.delta), 3, true),
                &pct.as_str(),
                &Cell(lb, 3, false),
                &Cell(lh, 3, false),
                &Cell(ld, 3, true),
                &r.verdict.word(),
                &Unit(r),
            ],
        );
        events_line(r, events, w);
    }
    // Whose boots' spread counts: the base's, or the larger of either
    // side's where the head's boots differ too (a step's draws).
    let mut whose = Text::<96>::new();
    let _ = match head_spread {
        false => write!(whose, "the {base} boots' spread"),
        true => write!(
            whose,
            "the larger spread of the {base} boots\nand of the {head} boots"
        ),
    };
    let _ = write!(
        w,
        "\nmoved: |delta| >= {} instructions per pair beyond {}, and\n\
         its 95% interval round by round (each round of {head} against the same\n\
         round of {base}) excludes 0 (docs/ab.md, \"The gate\"). Figures: guest\n\
         instructions per pair, on QEMU's instruction clock.\n",
        Clean(spec.gate_text),
        whose.as_str()
    );
    let with_events = rows
        .iter()
        .any(|r| r.figures.is_some_and(|f| f.events.is_some()));
    if with_events {
        let _ = writeln!(
            w,
            "events: entries into the kernel functions the counter watched, per op, that\n\
             changed by half an entry a cycle or more (exact counts: the ticks' work changes\n\
             them by far less); a row whose events moved is a change (exit 1) whatever its\n\
             verdict."
        );
    }
    if base_boots > 1 {
        if spread {
            boots_differ(w, rows, base_boots, base, |c| c.spread);
        } else {
            let two = how_many(base_boots);
            let _ = writeln!(w, "The {two}{base} boots agree exactly in every row.");
        }
    }
    // The head's boots, where they differ (a step's draws; boots again
    // with --recheck agree, and are said to below).
    if head_spread {
        boots_differ(w, rows, head_boots, head, |c| c.test_spread);
    }
    provenance::notes(spec, prov, [pair.base, pair.test], w);
    if !locked {
        let _ = writeln!(
            w,
            "Locked instructions: not counted (no point carries them: boot-point.sh --cost \
             counts them)."
        );
    }
    if other {
        let _ = w.write_str("Not compared:");
        for r in rows.iter().filter(|r| !r.verdict.judged()) {
            let _ = write!(w, "\n  {}: {} (", r.name(), r.verdict.word());
            let _ = r.why(spec, boots, w);
            let _ = w.write_str(")");
        }
        let _ = writeln!(w);
    }
}

/// "The two base boots", "the three p1 boots" (a step's draws): a count in
/// words, up to eight, a step's most.
fn how_many(boots: usize) -> &'static str {
    const HOW_MANY: [&str; 9] = [
        "", "", "two ", "three ", "four ", "five ", "six ", "seven ", "eight ",
    ];
    HOW_MANY.get(boots).copied().unwrap_or("")
}

/// The rows whose `boots` of the step `who` differ, by `spread` of each.
fn boots_differ(
    w: &mut dyn Write,
    rows: &[Row],
    boots: usize,
    who: impl fmt::Display,
    spread: impl Fn(&Comparison) -> f64,
) {
    let two = how_many(boots);
    let _ = write!(w, "The {two}{who} boots differ:");
    for r in rows {
        if let Some(f) = r.figures.as_ref().filter(|f| spread(&f.c) > 0.0) {
            let _ = write!(
                w,
                "\n  {}: the {two}{who} boots differ by {} (the verdict took it in)",
                r.name(),
                Dec(spread(&f.c), 6)
            );
        }
    }
    let _ = writeln!(w);
}
