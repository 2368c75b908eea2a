//! Where the cost went, shown: a comparison's summed cost counts (cost.rs)
//! as a table for compare's text and the mail (docs/compare.md, "Where
//! the cost went"), or the one line that says why there is none.
//!
//! - Listed by name: the functions that moved by one instruction a cycle
//!   or more, biggest first, at most MAX_ROWS; the rest in one row. Then
//!   the kernel's total, the user instructions (the series line's), both
//!   together (what was counted), and the point's own change (what was
//!   timed), which differ by what the windows hold outside the spans
//!   (docs/cost.md), the time the vCPU idles inside them (no instruction)
//!   and the clock's rounding. Then the events that moved (entries into a
//!   watched function, by half an entry a cycle or more: cost.rs), per
//!   pair.
//! - Nothing is printed when no point of a comparison carries cost lines.

use core::fmt::Write;

use super::analysis::{Analysis, Comparison};
use super::cost::{Costs, EventsCounted, Locked, Sum};
use super::words::{cell, figure, nums, Align, Figure, LineNo, Long, PointsOf, WIDTH};
use crate::render::{plural, wrap, Clean, Dec, Signed};
use crate::sys::out::Out;

/// Most functions listed by name; the others are one row.
pub const MAX_ROWS: usize = 12;

/// Where a section goes: compare's text (after a blank line; why there is
/// no table in its place), the mail (a blank line after it; why there is
/// no table on stderr), or ab's table (the rows alone, nothing where
/// there is no table: its row's compare text says why).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    Text,
    Mail,
    Rows,
}

/// The locked column of a row: no such column (the points did not all
/// count locked instructions), no figure (`-`: the point's own value has
/// none), or a change.
#[derive(Clone, Copy)]
enum LockedCell {
    NoColumn,
    NoFigure,
    Change(f64),
}

/// The table of `t` (`labels`: control's, test's), rows and (unless
/// `rows_only`) sentences, no line over WIDTH.
fn table(t: &Sum, labels: [&[u8]; 2], rows_only: bool, out: &mut Out) {
    let locked = t.locked() == Locked::Counted;
    let column = |v: f64| {
        if locked {
            LockedCell::Change(v)
        } else {
            LockedCell::NoColumn
        }
    };
    cell(out, 14, Align::Right, format_args!("{}", Clean(labels[0])));
    out.bytes(if locked {
        b"      change  locked  kernel function\n"
    } else {
        b"      change  kernel function\n"
    });
    // Every function that moved, the most first: the first MAX_ROWS listed
    // (and their sums: the control's, the change, the locked change).
    let (mut last, mut m, mut listed) = (None, 0, [0.0; 3]);
    while let Some(s) = t.next(last) {
        if m < MAX_ROWS {
            let mut name = Long::new();
            let _ = write!(name, "{}", Clean(s.name));
            if let Some(side) = s.only() {
                let _ = write!(name, " ({} only)", Clean(labels[side]));
            }
            // A function the control does not name has no figure there.
            let control = (s.only() != Some(1)).then_some(s.v[0]);
            let lc = s.locked_change();
            row(out, control, s.change(), column(lc), name.as_str());
            listed = [listed[0] + s.v[0], listed[1] + s.change(), listed[2] + lc];
        }
        (last, m) = (Some(s), m + 1);
    }
    let n = m.min(MAX_ROWS);
    let (k, u, p) = (t.kernel, t.user, t.point);
    let (kl, ul) = t.locked_figures();
    let mut what = Long::new();
    if n > 0 {
        let _ = write!(what, "the {n} listed");
        row(
            out,
            Some(listed[0]),
            listed[1],
            column(listed[2]),
            what.as_str(),
        );
    }
    let others = t.functions - n;
    let mut what = Long::new();
    let _ = write!(what, "{others} other function{}", plural(others));
    row(
        out,
        Some(k[0] - listed[0]),
        k[1] - k[0] - listed[1],
        column(kl[1] - kl[0] - listed[2]),
        what.as_str(),
    );
    let counted = [k[0] + u[0], k[1] + u[1]];
    // The point's own value is of all its instructions: no locked figure.
    let point = if locked {
        LockedCell::NoFigure
    } else {
        LockedCell::NoColumn
    };
    for (v, l, what) in [
        (k, column(kl[1] - kl[0]), "kernel, all functions"),
        (u, column(ul[1] - ul[0]), "user"),
        (
            counted,
            column(kl[1] + ul[1] - kl[0] - ul[0]),
            "counted (kernel + user)",
        ),
        (p, point, "the point (timed)"),
    ] {
        row(out, Some(v[0]), v[1] - v[0], l, what);
    }
    let ev = &t.events;
    let moved = ev.moved_bits(t.threshold);
    for k in (0..ev.n).filter(|k| moved & 1 << k != 0) {
        let mut what = Long::new();
        let _ = write!(what, "entries into {}", Clean(ev.names[k]));
        row(out, Some(ev.v[k][0]), ev.change(k), point, what.as_str());
    }
    if rows_only {
        return;
    }
    let mut s = Long::new();
    let _ = write!(
        s,
        "Functions that moved by one instruction a cycle ({} a pair) or more: {m}{}. A \
         label's figures are the mean of its boots' lines. Counted and timed differ by the \
         clock reads around the spans (counted, not timed), the vCPU idle in them (timed, not \
         counted) and the clock's rounding.",
        Dec(t.threshold, 3),
        match m {
            0 => "",
            _ if m > n => ", those listed the most",
            _ => ", all listed",
        }
    );
    locked_sentence(t, labels, &mut s);
    events_sentence(t, labels, &mut s);
    if t.alike != [true, true] {
        let _ = s.write_str(" The boots of a label differ in their lines.");
    }
    out.bytes(b"  ");
    wrap(out, s.as_str(), 2, 2, WIDTH);
}

/// What the table says of locked instructions: what its column is and
/// each side's figure, or that they were not counted (never 0), or why no
/// change is shown when only some points counted them.
fn locked_sentence(t: &Sum, labels: [&[u8]; 2], s: &mut Long) {
    let (l0, l1) = (Clean(labels[0]), Clean(labels[1]));
    let _ = match t.locked() {
        Locked::Counted => {
            let (kl, ul) = t.locked_figures();
            let _ = write!(
                s,
                " The locked column: the change in locked instructions (x86: a LOCK prefix, \
                 or XCHG with memory) per pair, from the same lines; a function whose locked \
                 ones moved by one a cycle counts as moved. The kernel's locked per pair: {l0} \
                 {}, {l1} {}",
                Dec(kl[0], 3),
                Dec(kl[1], 3)
            );
            if ul != [0.0; 2] {
                let _ = write!(
                    s,
                    "; user code's: {l0} {}, {l1} {}",
                    Dec(ul[0], 3),
                    Dec(ul[1], 3)
                );
            }
            s.write_str(".")
        }
        Locked::NotCounted => s.write_str(
            " Locked instructions: not counted (the points' cost lines were made by a counter \
             that did not count them).",
        ),
        Locked::Mixed { counted, not } => write!(
            s,
            " Locked instructions: {} counted them, {} did not, so no change is shown: what was \
             not counted is not 0.",
            PointsOf(counted, false),
            PointsOf(not, false)
        ),
    };
}

/// What the table says of events: how many were watched and moved, and
/// the changes of those that moved by less; or why no change is shown.
/// Nothing when no point counted them.
fn events_sentence(t: &Sum, labels: [&[u8]; 2], s: &mut Long) {
    let ev = &t.events;
    match ev.status() {
        EventsCounted::NotCounted => {}
        EventsCounted::Mixed { counted, not } => {
            let _ = write!(
                s,
                " Events: {} counted {}'s, {} did not or counted others, so no change is \
                 shown.",
                PointsOf(counted, false),
                Clean(labels[0]),
                PointsOf(not, false)
            );
        }
        EventsCounted::Counted => {
            let moved = ev.moved_bits(t.threshold);
            let _ = write!(
                s,
                " Events (entries into kernel functions inside the spans, per pair; docs/cost.md): \
                 {} watched, {} moved by half an entry a cycle or more{}.",
                ev.n,
                moved.count_ones(),
                if moved == 0 { "" } else { " (the entries rows)" }
            );
            let mut less = (0..ev.n).filter(|&k| moved & 1 << k == 0 && ev.change(k) != 0.0);
            if let Some(first) = less.next() {
                let _ = s.write_str(" Changed by less:");
                for (j, k) in core::iter::once(first).chain(less).enumerate() {
                    let sep = if j == 0 { " " } else { ", " };
                    let _ = write!(s, "{sep}{} {}", Clean(ev.names[k]), Signed(ev.change(k), 4));
                }
                let _ = s.write_str(".");
            }
        }
    }
}

/// One row: the control's figure (`-` for None: it names no such
/// function), the change, the locked change, and `text`, wrapped from the
/// column after them.
fn row(out: &mut Out, control: Option<f64>, change: f64, locked: LockedCell, text: &str) {
    match control {
        Some(v) => nums(out, 14, &[v], 3),
        None => cell(out, 14, Align::Right, format_args!("-")),
    }
    let signed = Figure {
        signed: true,
        ..Figure::plain(3)
    };
    figure(out, 12, change, signed);
    let at = match locked {
        LockedCell::NoColumn => 28,
        LockedCell::NoFigure => {
            cell(out, 8, Align::Right, format_args!("-"));
            36
        }
        LockedCell::Change(v) => {
            figure(out, 8, v, signed);
            36
        }
    };
    out.bytes(b"  ");
    wrap(out, text, at, at + 2, WIDTH);
}

/// Where the cost went in comparison `c` (`costs`, its cost lines
/// summed), after `what` (the unit, `pair` or the mail's workload's): a
/// lead and the table on `out`, or why there is none. Nothing when no
/// point of `c` carries cost lines.
pub fn section(
    an: &Analysis,
    c: &Comparison,
    costs: &Costs,
    what: &str,
    medium: Medium,
    out: &mut Out,
) {
    let (Some(r), t) = (costs.table, &costs.sum) else {
        return;
    };
    let labels = [an.groups()[c.base].label(), an.groups()[c.test].label()];
    if medium == Medium::Rows {
        if r.is_ok() {
            table(t, labels, true, out);
        }
        return;
    }
    if medium == Medium::Text {
        out.bytes(b"\n");
    }
    let mut p = Long::new();
    let _ = write!(
        p,
        "Where the cost went, {} against {}",
        Clean(labels[1]),
        Clean(labels[0])
    );
    let n = match r {
        Ok(()) => {
            let _ = write!(
                p,
                ": instructions per {what} by kernel function in the timed spans (the points' # \
                 cost: lines):"
            );
            wrap(out, p.as_str(), 0, 0, WIDTH);
            table(t, labels, false, out);
            if medium == Medium::Mail {
                out.bytes(b"\n");
            }
            return;
        }
        Err(n) => n,
    };
    // As compare's errors name a file: `FILE:LINE: why`.
    let (file, line) = (Clean(an.args.file(n.at)), LineNo(n.line));
    let _ = write!(p, ": no table, {file}{line}: {}", n.why);
    match medium {
        Medium::Mail => crate::exit::warn(format_args!("report: {p}")),
        Medium::Text => wrap(out, p.as_str(), 0, 2, WIDTH),
        Medium::Rows => {}
    }
}
