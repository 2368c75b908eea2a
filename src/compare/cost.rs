//! Where the cost went: two labels' `# cost: ` lines (docs/cost.md: the
//! instructions a QEMU TCG plugin counted inside the timed spans, per
//! kernel function, exact) subtracted function by function, for compare's
//! text and the mail (docs/compare.md, "Where the cost went").
//!
//! - The series diffed is the profile compared: the points' rows (a
//!   pollwake mode's with `--mode`), so the table explains the change the
//!   comparison states.
//! - A label's figure for a function is the mean of its boots' (points of
//!   one boot first averaged), as its value is the mean of its boots'
//!   values (`Boots`); a function a point does not name counts 0 there.
//!   Boots of one kernel give identical lines under the instruction clock:
//!   the text says when they did not.
//! - Listed by name: the functions that moved by one instruction a cycle or
//!   more (code on the measured path runs once a cycle or more; the timer
//!   tick's work, spread by the rounds' length, moves by far less), biggest
//!   first (ties in byte order), at most MAX_ROWS; the rest in one row.
//!   Then the kernel's total, the user instructions (the series line's),
//!   both together (what was counted), and the point's own change (what
//!   was timed), which differ by what the windows hold outside the spans
//!   (docs/cost.md), the time the vCPU idles inside them (no instruction)
//!   and the clock's rounding.
//!
//! Nothing is printed when no point of a comparison carries cost lines.
//! When some do, a point without them, lines that do not follow the format
//! or do not fit their point (other pairs; another System.map under one
//! label) make one line saying why in place of the table: the lines are an
//! annex a script wrote after the run, so the point itself is compared as
//! always, but no table is better than a wrong one.
//!
//! Limits (no heap): MAX_FUNCTIONS names a comparison, in a fixed hash
//! table (`Sum`: SLOTS slots, 160 KiB of stack).

use core::fmt::Write;

use super::analysis::{boots, Analysis, Comparison};
use super::point::{Key, ALL};
use super::table::uint;
use super::words::{cell, nums, Long, RIGHT, WIDTH};
use crate::fmt::{plural, wrap, Clean, Dec, Signed};
use crate::sys::out::Out;

/// Most distinct functions in one comparison's lines (a tiny kernel's s0
/// names 606, pollwake's waiter mode 757).
pub const MAX_FUNCTIONS: usize = 3072;
/// The hash table's slots: a quarter stays free, so a probe ends soon.
const SLOTS: usize = 4096;
/// Most functions listed by name; the others are one row.
pub const MAX_ROWS: usize = 12;

/// The prefix of every cost line.
const COST: &[u8] = b"# cost: ";
/// A line that is not one of docs/cost.md's: a series line without whole
/// `pairs=`, `user=` and `kernel=`, a `fn` line not `fn SERIES PER_PAIR
/// INSNS FUNCTION`, a first word none of `method`, `series`, `fn`.
const FORMAT: &str = "a cost line out of docs/cost.md's format";

/// Why there is no table: the point (`at`), the line (0: the whole
/// point), the reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Not {
    pub at: usize,
    pub line: usize,
    pub why: &'static str,
}

/// A function: its name, its figure per side (control, test: instructions
/// per pair, the label's mean) and the sides that name it (bits).
#[derive(Clone, Copy)]
pub struct Slot<'t> {
    pub name: &'t [u8],
    pub v: [f64; 2],
    pub sides: u8,
}

impl Slot<'_> {
    /// Its change, test minus control.
    pub fn change(&self) -> f64 {
        self.v[1] - self.v[0]
    }
}

/// A comparison's cost lines, summed per side: every function in a fixed
/// hash table, and the totals, per side (control, test), in instructions
/// per pair.
pub struct Sum<'t> {
    pub slots: [Slot<'t>; SLOTS],
    /// Functions named.
    pub functions: usize,
    /// The kernel's and the user's (the series lines'), and the point's own
    /// value (every round, as the lines count).
    pub kernel: [f64; 2],
    pub user: [f64; 2],
    pub point: [f64; 2],
    /// Whether the points of a side have identical lines.
    pub alike: [bool; 2],
    /// One instruction a cycle, per pair: what a function moves by to be
    /// listed.
    pub threshold: f64,
}

impl<'t> Sum<'t> {
    pub const fn new() -> Self {
        const FREE: Slot<'static> = Slot {
            name: b"",
            v: [0.0; 2],
            sides: 0,
        };
        Sum {
            slots: [FREE; SLOTS],
            functions: 0,
            kernel: [0.0; 2],
            user: [0.0; 2],
            point: [0.0; 2],
            alike: [true; 2],
            threshold: 0.0,
        }
    }

    /// `insns` of function `name` on `side`, weighing `per`; why not, when
    /// the table is full.
    fn add(&mut self, name: &'t [u8], insns: u64, side: usize, per: f64) -> &'static str {
        let mut i = fnv(FNV0, name) as usize % SLOTS;
        while self.slots[i].sides != 0 && !same(self.slots[i].name, name) {
            i = (i + 1) % SLOTS;
        }
        let s = &mut self.slots[i];
        if s.sides == 0 {
            if self.functions == MAX_FUNCTIONS {
                return "over compare's limit of 3072 functions at";
            }
            (s.name, self.functions) = (name, self.functions + 1);
        }
        s.sides |= 1 << side;
        s.v[side] += per * f(insns);
        ""
    }

    /// The functions that moved by `threshold` or more.
    fn moved(&self) -> impl Iterator<Item = &Slot<'t>> {
        let t = self.threshold * (1.0 - 1e-9); // but for the float's last bits
        self.slots
            .iter()
            .filter(move |s| s.sides != 0 && s.change() != 0.0 && s.change().abs() >= t)
    }

    /// The function listed after `last` (None: the first): the one that
    /// moved most, ties in byte order of the name.
    pub fn next(&self, last: Option<&Slot<'t>>) -> Option<&Slot<'t>> {
        self.moved()
            .filter(|s| last.is_none_or(|l| ahead(l, s)))
            .fold(None, |best: Option<&Slot>, s| match best {
                Some(b) if !ahead(s, b) => best,
                _ => Some(s),
            })
    }
}

/// `a` is listed before `b`: it moved more, or as much and its name comes
/// first in byte order.
#[inline(never)]
fn ahead(a: &Slot, b: &Slot) -> bool {
    let (x, y) = (a.change().abs(), b.change().abs());
    x > y || (x == y && a.name < b.name)
}

impl Default for Sum<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// A count as a float, through i64: every count here is far below 2^63,
/// and x86_64 converts a signed integer in one instruction.
fn f(n: u64) -> f64 {
    n as i64 as f64
}

/// A word of at most 8 bytes as a number, its bytes in order from the
/// lowest (0: a longer one): matched against the kinds of line as numbers,
/// where byte strings would each be compared byte by byte.
fn word(w: &[u8]) -> u64 {
    match w.len() {
        0..=8 => w.iter().rev().fold(0, |k, &b| k << 8 | b as u64),
        _ => 0,
    }
}
const METHOD: u64 = u64::from_le_bytes(*b"method\0\0");
const SERIES: u64 = u64::from_le_bytes(*b"series\0\0");
const FN: u64 = u64::from_le_bytes(*b"fn\0\0\0\0\0\0");

/// `a == b`, in one place (the crate's `bcmp` is inlined at every
/// comparison of byte strings otherwise).
#[inline(never)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// FNV-1a, 64 bits, of `b` after `h`.
fn fnv(mut h: u64, b: &[u8]) -> u64 {
    for &c in b {
        h = (h ^ c as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}
const FNV0: u64 = 0xcbf2_9ce4_8422_2325;

/// The text of `s` up to the first `sep` (all of it when there is none),
/// which `s` then starts after.
#[inline(never)]
fn cut<'t>(s: &mut &'t [u8], sep: u8) -> &'t [u8] {
    let at = s.iter().position(|&b| b == sep).unwrap_or(s.len());
    let head = &s[..at];
    *s = s.get(at + 1..).unwrap_or(b"");
    head
}

/// The whole number of `key=` among the words of `line`.
fn val(mut line: &[u8], key: &[u8]) -> Option<u64> {
    while !line.is_empty() {
        let w = cut(&mut line, b' ');
        if let Some(v) = w.strip_prefix(key).and_then(|v| v.strip_prefix(b"=")) {
            return uint(v);
        }
    }
    None
}

/// Sums comparison `c`'s cost lines into `t`: None when no point of it
/// carries any, else whether they could be, or why not.
///
/// Each point's lines are read as docs/cost.md writes them: a method line;
/// a series line for the profile compared, with whole `pairs=` (the
/// point's rows' pairs), `user=` and `kernel=`; its `fn SERIES PER_PAIR
/// INSNS FUNCTION` lines, whose INSNS add up to its `kernel=` (so a line
/// lost, added or named twice is caught; PER_PAIR, INSNS / pairs with 3
/// decimals, is not read: INSNS is the exact figure). Lines of other
/// series are passed over. The points of one label must have one method
/// line: its `map_sha256=` names the System.map (one label, one kernel
/// build).
pub fn sum<'t>(an: &Analysis<'t, '_>, c: &Comparison, t: &mut Sum<'t>) -> Option<Result<(), Not>> {
    let (pts, gs) = (an.points, an.groups());
    let sides = [&gs[0], &gs[c.test]];
    if !sides
        .iter()
        .any(|g| g.points().iter().any(|&i| pts[i].cost.is_some()))
    {
        return None;
    }
    // A cycle's pairs: the rows' pairs a round over the cycles a round (a
    // point that states no cycles: its round is one).
    let p0 = &pts[sides[0].points()[0]];
    let cycles = p0.get(Key::Cycles).and_then(uint).unwrap_or(1);
    t.threshold = f(cycles) / f(p0.pairs.max(1));
    // Each label's first point's method line and digest of its series.
    for (side, g) in sides.into_iter().enumerate() {
        let b = boots(pts, g, ALL);
        t.point[side] = b.value();
        let (mut label, mut digest0) = (&b""[..], 0);
        'points: for (j, &i) in g.points().iter().enumerate() {
            let p = &pts[i];
            let (line, why) = 'bad: {
                let (Some(mut tail), mut no) = (p.cost, 0) else {
                    break 'bad (0, "no # cost: lines (boot-point.sh --cost adds them)");
                };
                // Its weight in its side's figures, per pair of its rows.
                let pairs = p.pairs * p.s[ALL].s.n as u64;
                let per = b.weight(j) / f(pairs.max(1));
                let (mut method, mut series, mut digest) = (&b""[..], &b""[..], FNV0);
                let (mut at, mut sum, mut kernel, mut user) = (0, 0, None, None);
                while !tail.is_empty() {
                    let line = cut(&mut tail, b'\n');
                    no += 1;
                    let Some(mut w) = line.strip_prefix(COST) else {
                        continue;
                    };
                    let rest = w;
                    let (kind, name) = (cut(&mut w, b' '), cut(&mut w, b' '));
                    let why = match word(kind) {
                        METHOD => {
                            method = rest;
                            continue;
                        }
                        SERIES | FN if !same(name, p.profile()) => continue,
                        SERIES => {
                            (series, at, digest) = (rest, no, fnv(digest, line));
                            (kernel, user) = (val(rest, b"kernel"), val(rest, b"user"));
                            match (val(rest, b"pairs"), kernel.and(user)) {
                                (Some(n), Some(_)) if n == pairs => continue,
                                (Some(_), Some(_)) => "pairs= not its rows' (another run's lines?)",
                                _ => FORMAT,
                            }
                        }
                        FN => {
                            cut(&mut w, b' '); // PER_PAIR
                            let (insns, f) = (uint(cut(&mut w, b' ')), cut(&mut w, b' '));
                            digest = fnv(digest, line);
                            match insns {
                                Some(n) if !f.is_empty() && w.is_empty() => {
                                    sum += n;
                                    match t.add(f, n, side, per) {
                                        "" => continue,
                                        why => why,
                                    }
                                }
                                _ => FORMAT,
                            }
                        }
                        _ => FORMAT,
                    };
                    break 'bad (no, why);
                }
                let (kernel, user) = (kernel.unwrap_or(0), user.unwrap_or(0));
                match () {
                    _ if method.is_empty() || series.is_empty() => {
                        break 'bad (0, "no method line, or no series line for this profile")
                    }
                    _ if sum != kernel => {
                        break 'bad (at, "its fn lines do not add up to its kernel=")
                    }
                    _ => {}
                }
                // One kernel a label: one method line, its System.map's hash
                // in it.
                if label.is_empty() {
                    (label, digest0) = (method, digest);
                } else if !same(label, method) {
                    break 'bad (0, "another System.map than its label's first point");
                }
                t.alike[side] &= digest0 == digest;
                t.kernel[side] += per * f(kernel);
                t.user[side] += per * f(user);
                continue 'points;
            };
            return Some(Err(Not { at: i, line, why }));
        }
    }
    Some(Ok(()))
}

/// The table of `t` (`labels`: control's, test's), rows and sentences,
/// no line over WIDTH.
pub fn write(t: &Sum, labels: [&[u8]; 2], out: &mut Out) {
    cell(out, 14, RIGHT, format_args!("{}", Clean(labels[0])));
    out.bytes(b"      change  kernel function\n");
    // Every function that moved, the most first: the first MAX_ROWS listed.
    let (mut last, mut m, mut listed) = (None, 0, [0.0; 2]);
    while let Some(s) = t.next(last) {
        if m < MAX_ROWS {
            let (only, a, b) = match s.sides {
                3 => (&b""[..], "", ""),
                x => (labels[x as usize - 1], " (", " only)"),
            };
            let args = format_args!("{}{a}{}{b}", Clean(s.name), Clean(only));
            row(out, s.sides & 1 == 0, s.v[0], s.change(), args);
            listed = [listed[0] + s.v[0], listed[1] + s.change()];
        }
        (last, m) = (Some(s), m + 1);
    }
    let n = m.min(MAX_ROWS);
    let (k, u, p) = (t.kernel, t.user, t.point);
    if n > 0 {
        row(
            out,
            false,
            listed[0],
            listed[1],
            format_args!("the {n} listed"),
        );
    }
    let others = t.functions - n;
    let args = format_args!("{others} other function{}", plural(others));
    row(out, false, k[0] - listed[0], k[1] - k[0] - listed[1], args);
    let counted = [k[0] + u[0], k[1] + u[1]];
    for (v, what) in [
        (k, "kernel, all functions"),
        (u, "user"),
        (counted, "counted (kernel + user)"),
        (p, "the point (timed)"),
    ] {
        row(out, false, v[0], v[1] - v[0], format_args!("{what}"));
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

/// One row: the control's figure (`-` when `absent`: it names no such
/// function), the change, and `text`, wrapped from column 28.
fn row(out: &mut Out, absent: bool, control: f64, change: f64, text: core::fmt::Arguments) {
    match absent {
        false => nums(out, 14, &[control], 3),
        true => cell(out, 14, RIGHT, format_args!("-")),
    }
    cell(out, 12, RIGHT, format_args!("{}", Signed(change, 3)));
    out.bytes(b"  ");
    let mut t = Long::new();
    let _ = t.write_fmt(text);
    wrap(out, t.as_str(), 28, 30, WIDTH);
}

/// Where the cost went in comparison `c`, after `what` (the unit, `pair`
/// or the mail's workload's): a lead and the table on `out`, or why
/// there is none (on `out`, or the mail's on stderr). Nothing when no
/// point of `c` carries cost lines.
pub fn section(an: &Analysis, c: &Comparison, what: &str, mail: bool, out: &mut Out) {
    let mut t = Sum::new();
    let Some(r) = sum(an, c, &mut t) else {
        return;
    };
    let labels = [an.groups()[0].label(), an.groups()[c.test].label()];
    if !mail {
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
            write(&t, labels, out);
            if mail {
                out.bytes(b"\n");
            }
            return;
        }
        Err(n) => n,
    };
    // As compare's errors name a file: `FILE:LINE: why`.
    let (file, line) = (Clean(an.args.file(n.at)), super::load::LineNo(n.line));
    let _ = write!(p, ": no table, {file}{line}: {}", n.why);
    match mail {
        true => crate::exit::warn(format_args!("report: {p}")),
        false => wrap(out, p.as_str(), 0, 2, WIDTH),
    }
}

#[cfg(test)]
mod tests;
