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
//!   and the clock's rounding.
//! - Nothing is printed when no point of a comparison carries cost lines.

use core::fmt::Write;

use super::analysis::{Analysis, Comparison};
use super::cost::{sum, Sum};
use super::words::{cell, figure, nums, Align, Figure, LineNo, Long, WIDTH};
use crate::fmt::{plural, wrap, Clean, Dec};
use crate::sys::out::Out;

/// Most functions listed by name; the others are one row.
pub const MAX_ROWS: usize = 12;

/// Where a section goes: compare's text (after a blank line; why there is
/// no table in its place) or the mail (a blank line after it; why there
/// is no table on stderr).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    Text,
    Mail,
}

/// The table of `t` (`labels`: control's, test's), rows and sentences,
/// no line over WIDTH.
fn table(t: &Sum, labels: [&[u8]; 2], out: &mut Out) {
    cell(out, 14, Align::Right, format_args!("{}", Clean(labels[0])));
    out.bytes(b"      change  kernel function\n");
    // Every function that moved, the most first: the first MAX_ROWS listed.
    let (mut last, mut m, mut listed) = (None, 0, [0.0; 2]);
    while let Some(s) = t.next(last) {
        if m < MAX_ROWS {
            let mut name = Long::new();
            let _ = write!(name, "{}", Clean(s.name));
            if let Some(side) = s.only() {
                let _ = write!(name, " ({} only)", Clean(labels[side]));
            }
            // A function the control does not name has no figure there.
            let control = (s.only() != Some(1)).then_some(s.v[0]);
            row(out, control, s.change(), name.as_str());
            listed = [listed[0] + s.v[0], listed[1] + s.change()];
        }
        (last, m) = (Some(s), m + 1);
    }
    let n = m.min(MAX_ROWS);
    let (k, u, p) = (t.kernel, t.user, t.point);
    let mut what = Long::new();
    if n > 0 {
        let _ = write!(what, "the {n} listed");
        row(out, Some(listed[0]), listed[1], what.as_str());
    }
    let others = t.functions - n;
    let mut what = Long::new();
    let _ = write!(what, "{others} other function{}", plural(others));
    row(
        out,
        Some(k[0] - listed[0]),
        k[1] - k[0] - listed[1],
        what.as_str(),
    );
    let counted = [k[0] + u[0], k[1] + u[1]];
    for (v, what) in [
        (k, "kernel, all functions"),
        (u, "user"),
        (counted, "counted (kernel + user)"),
        (p, "the point (timed)"),
    ] {
        row(out, Some(v[0]), v[1] - v[0], what);
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
    if t.alike != [true, true] {
        let _ = s.write_str(" The boots of a label differ in their lines.");
    }
    out.bytes(b"  ");
    wrap(out, s.as_str(), 2, 2, WIDTH);
}

/// One row: the control's figure (`-` for None: it names no such
/// function), the change, and `text`, wrapped from column 28.
fn row(out: &mut Out, control: Option<f64>, change: f64, text: &str) {
    match control {
        Some(v) => nums(out, 14, &[v], 3),
        None => cell(out, 14, Align::Right, format_args!("-")),
    }
    let signed = Figure {
        signed: true,
        ..Figure::plain(3)
    };
    figure(out, 12, change, signed);
    out.bytes(b"  ");
    wrap(out, text, 28, 30, WIDTH);
}

/// Where the cost went in comparison `c`, after `what` (the unit, `pair`
/// or the mail's workload's): a lead and the table on `out`, or why
/// there is none. Nothing when no point of `c` carries cost lines.
pub fn section(an: &Analysis, c: &Comparison, what: &str, medium: Medium, out: &mut Out) {
    let mut t = Sum::new();
    let Some(r) = sum(an, c, &mut t) else {
        return;
    };
    let labels = [an.groups()[0].label(), an.groups()[c.test].label()];
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
            table(&t, labels, out);
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
    }
}
