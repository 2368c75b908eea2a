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
//!   the text says whether they did.
//! - Listed by name: the functions that moved by one instruction a cycle or
//!   more (code on the measured path runs once a cycle or more; the timer
//!   tick's work, spread by the rounds' length, moves by far less), biggest
//!   first, at most MAX_ROWS; the rest in one row. Then the kernel's total,
//!   the user instructions (the series line's), both together (what was
//!   counted), and the point's own change (what was timed), which differ by
//!   what the windows hold outside the spans (docs/cost.md), the time the
//!   vCPU idles inside them (no instruction) and the clock's rounding.
//!
//! Nothing is printed when no point of a comparison carries cost lines.
//! When some do, a point without them, lines that do not follow the format
//! or do not fit their point (other pairs, rounds, counting method; another
//! System.map under one label) make one line saying why in place of the
//! table: the lines are an annex a script wrote after the run, so the point
//! itself is compared as always, but no table is better than a wrong one.
//!
//! Limits (no heap): MAX_FUNCTIONS names a comparison, in a fixed hash
//! table (SLOTS, 160 KiB of stack).

use core::fmt::{self, Write};

use super::analysis::{boots, Analysis, Comparison};
use super::point::{Key, Point, ALL};
use super::table::uint;
use super::words::{cell, nums, Long, RIGHT, WIDTH};
use super::MAX_POINTS;
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
/// The series line's words read, in `Lines::num` order.
const SERIES_KEYS: [&[u8]; 3] = [b"pairs", b"user", b"kernel"];
const PAIRS: usize = 0;
const USER: usize = 1;
const KERNEL: usize = 2;

/// Why there is no table: the point (`at`), the line (0: the whole
/// point), the reason, the offending text, and the point it was held
/// against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Not<'t> {
    pub at: usize,
    pub line: usize,
    pub why: &'static str,
    pub text: &'t [u8],
    pub other: Option<usize>,
}

fn not<'t>(at: usize, line: usize, why: &'static str, text: &'t [u8]) -> Not<'t> {
    Not {
        at,
        line,
        why,
        text,
        other: None,
    }
}

/// One point's lines of one series, as read and checked by `read`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lines<'t> {
    /// The method line up to its `map_sha256=`'s value, and that value.
    pub method: &'t [u8],
    pub map: &'t [u8],
    /// The series line (after `# cost: `), its number, and its
    /// `SERIES_KEYS` values.
    pub series: &'t [u8],
    pub line: usize,
    pub num: [u64; 3],
    /// FNV-1a of the series' lines: equal for identical lines.
    pub digest: u64,
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

/// The value of `key=` among the words of `line` (empty: none).
fn val<'t>(mut line: &'t [u8], key: &[u8]) -> &'t [u8] {
    while !line.is_empty() {
        let w = cut(&mut line, b' ');
        if let Some(v) = w.strip_prefix(key).and_then(|v| v.strip_prefix(b"=")) {
            return v;
        }
    }
    b""
}

/// Reads point `at`'s cost lines (`tail`: the text from the first one on,
/// numbered from `no`) of `series`, handing `each` every function and its
/// instructions. The format (docs/cost.md): one method line ending in
/// `map_sha256=`; one series line with whole `pairs=` (above 0), `user=`
/// and `kernel=`; after it, its `fn SERIES PER_PAIR INSNS FUNCTION` lines,
/// whose INSNS add up to its `kernel=` (PER_PAIR, INSNS / pairs with 3
/// decimals, is not read: INSNS is the exact figure).
pub fn read<'t>(
    at: usize,
    (mut no, mut tail): (usize, &'t [u8]),
    series: &'t [u8],
    each: &mut dyn FnMut(&'t [u8], u64) -> Result<(), &'static str>,
) -> Result<Lines<'t>, Not<'t>> {
    let mut l = Lines {
        digest: FNV0,
        ..Lines::default()
    };
    let (first, mut sum) = (no, 0);
    while !tail.is_empty() {
        let line = cut(&mut tail, b'\n');
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        no += 1;
        let Some(mut w) = line.strip_prefix(COST) else {
            continue;
        };
        let rest = w;
        let (kind, name) = (cut(&mut w, b' '), cut(&mut w, b' '));
        let why = match kind {
            b"method" if !l.method.is_empty() => "a second cost method line",
            b"method" => {
                l.map = val(rest, b"map_sha256");
                l.method = &rest[..rest.len() - l.map.len()];
                match l.method.ends_with(b" map_sha256=") && !l.map.is_empty() {
                    true => continue,
                    false => "a cost method line not ending in map_sha256=HASH",
                }
            }
            b"series" | b"fn" if name != series => continue,
            b"series" if l.line != 0 => "a second cost series line for one series",
            b"series" => {
                for (k, key) in SERIES_KEYS.iter().enumerate() {
                    l.num[k] = uint(val(rest, key)).unwrap_or(0);
                }
                (l.series, l.line) = (rest, no - 1);
                l.digest = fnv(l.digest, line);
                match l.num[PAIRS] {
                    0 => "a cost series line without whole pairs=, user= and kernel=",
                    _ => continue,
                }
            }
            b"fn" if l.line == 0 => "a cost fn line before its series line",
            b"fn" => {
                let _per_pair = cut(&mut w, b' ');
                let (insns, f) = (uint(cut(&mut w, b' ')), cut(&mut w, b' '));
                l.digest = fnv(l.digest, line);
                match (insns, f.is_empty() || !w.is_empty()) {
                    (Some(n), false) => {
                        sum += n;
                        match each(f, n) {
                            Ok(()) => continue,
                            Err(why) => why,
                        }
                    }
                    _ => "not a cost fn line: `fn SERIES PER_PAIR INSNS FUNCTION`",
                }
            }
            _ => "not a cost line: its first word is none of method, series, fn",
        };
        return Err(not(at, no - 1, why, rest));
    }
    let why = match () {
        _ if l.method.is_empty() => "no cost method line",
        _ if l.line == 0 => "no cost series line for the profile compared",
        _ if sum != l.num[KERNEL] => "its fn lines do not add up to its kernel=",
        _ => return Ok(l),
    };
    Err(not(at, l.line.max(first), why, l.series))
}

/// A function in the hash table: its name, its figure per side (control,
/// test: instructions per pair, the label's mean), the sides that name it
/// (bits), and the last point that did (+1: a point names it once).
#[derive(Clone, Copy)]
struct Slot<'t> {
    name: &'t [u8],
    v: [f64; 2],
    sides: u8,
    last: u8,
}

const FREE: Slot<'static> = Slot {
    name: b"",
    v: [0.0; 2],
    sides: 0,
    last: 0,
};

/// One row of the table: a function, the control's figure, the change,
/// and the sides that name it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<'t> {
    pub name: &'t [u8],
    pub control: f64,
    pub change: f64,
    pub sides: u8,
}

/// A comparison's cost lines, subtracted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diff<'t> {
    /// The functions listed, biggest change first (ties: in byte order).
    pub rows: [Row<'t>; MAX_ROWS],
    pub n: usize,
    /// Functions named, and those that moved by `threshold` or more.
    pub functions: usize,
    pub moved: usize,
    /// One instruction a cycle, per pair (0: the points state no cycles).
    pub threshold: f64,
    /// Per side (control, test), instructions per pair: the kernel's, the
    /// user's (the series lines'), and the point's own value (all rounds).
    pub kernel: [f64; 2],
    pub user: [f64; 2],
    pub point: [f64; 2],
    /// Per side: boots, and whether its points' lines are all identical.
    pub boots: [usize; 2],
    pub alike: [bool; 2],
}

/// `c`'s cost lines subtracted: None when no point of it carries any, or
/// why there is no table.
#[inline(never)]
pub fn diff<'t>(an: &Analysis<'t, '_>, c: &Comparison) -> Option<Result<Diff<'t>, Not<'t>>> {
    let (pts, gs) = (an.points, an.groups());
    let sides = [&gs[0], &gs[c.test]];
    if !sides
        .iter()
        .any(|g| g.points().iter().any(|&i| pts[i].cost.is_some()))
    {
        return None;
    }
    let mut slots = [FREE; SLOTS];
    let mut d = Diff {
        rows: [Row {
            name: b"",
            control: 0.0,
            change: 0.0,
            sides: 0,
        }; MAX_ROWS],
        n: 0,
        functions: 0,
        moved: 0,
        threshold: 0.0,
        kernel: [0.0; 2],
        user: [0.0; 2],
        point: [0.0; 2],
        boots: [0; 2],
        alike: [true; 2],
    };
    // The first point's method, which every point's must be, and each
    // label's first point's map and digest, which its others' must be.
    let mut method = (MAX_POINTS, &b""[..]);
    for (side, g) in sides.into_iter().enumerate() {
        let b = boots(pts, g, ALL);
        (d.point[side], d.boots[side]) = (b.value(), b.k);
        let mut label = (MAX_POINTS, &b""[..], 0);
        for (j, &i) in g.points().iter().enumerate() {
            let p: &Point<'t> = &pts[i];
            let Some(tail) = p.cost else {
                let why = "no # cost: lines (boot-point.sh --cost adds them)";
                return Some(Err(not(i, 0, why, b"")));
            };
            // Its weight in the label's value, per pair of its rows.
            let (w, pairs) = (b.weight(j), p.pairs * p.s[ALL].s.n as u64);
            let per = w / pairs.max(1) as f64;
            let functions = &mut d.functions;
            let mut add = |name: &'t [u8], insns: u64| {
                let mut at = fnv(FNV0, name) as usize % SLOTS;
                while slots[at].sides != 0 && slots[at].name != name {
                    at = (at + 1) % SLOTS;
                }
                let s = &mut slots[at];
                if s.sides == 0 {
                    if *functions == MAX_FUNCTIONS {
                        return Err("more functions than compare's limit, 3072, at");
                    }
                    (s.name, *functions) = (name, *functions + 1);
                } else if s.last == i as u8 + 1 {
                    return Err("a function named twice in one series");
                }
                (s.sides, s.last) = (s.sides | 1 << side, i as u8 + 1);
                s.v[side] += per * insns as f64;
                Ok(())
            };
            let l = match read(i, tail, p.profile(), &mut add) {
                Ok(l) => l,
                Err(n) => return Some(Err(n)),
            };
            // The lines must be this point's, of one method, one System.map
            // a label.
            let why = match () {
                _ if l.num[PAIRS] != pairs => {
                    let why = "its pairs= are not the point's rows' (another run's lines?)";
                    return Some(Err(not(i, l.line, why, l.series)));
                }
                _ if method.0 < MAX_POINTS && l.method != method.1 => {
                    Some((method.0, "its # cost: method differs from"))
                }
                _ if label.0 < MAX_POINTS && l.map != label.1 => Some((
                    label.0,
                    "under one label, its # cost: lines name another System.map than",
                )),
                _ => None,
            };
            if let Some((k, why)) = why {
                return Some(Err(Not {
                    other: Some(k),
                    ..not(i, 0, why, b"")
                }));
            }
            if method.0 == MAX_POINTS {
                method = (i, l.method);
            }
            match label.0 {
                MAX_POINTS => label = (i, l.map, l.digest),
                _ => d.alike[side] &= label.2 == l.digest,
            }
            d.kernel[side] += per * l.num[KERNEL] as f64;
            d.user[side] += per * l.num[USER] as f64;
        }
    }
    Some(Ok(d.rank(&slots, &pts[sides[0].points()[0]])))
}

impl<'t> Diff<'t> {
    /// The rows: the functions that moved by one instruction a cycle or
    /// more (a cycle's pairs from `p`'s rows and its `cycles=`; its round
    /// when it states none), biggest first, ties in byte order.
    fn rank(mut self, slots: &[Slot<'t>], p: &Point) -> Self {
        // A point that states no cycles: its round is one.
        let cycles = p.get(Key::Cycles).and_then(uint).unwrap_or(1);
        self.threshold = cycles as f64 / p.pairs.max(1) as f64;
        for s in slots.iter().filter(|s| s.sides != 0) {
            let change = s.v[1] - s.v[0];
            // Less than a cycle's instruction, but for the float's last bits.
            if change == 0.0 || change.abs() < self.threshold * (1.0 - 1e-9) {
                continue;
            }
            self.moved += 1;
            let r = Row {
                name: s.name,
                control: s.v[0],
                change,
                sides: s.sides,
            };
            let (a, rows) = (change.abs(), &self.rows[..self.n]);
            let at = rows
                .iter()
                .position(|x| a > x.change.abs() || (a == x.change.abs() && r.name < x.name))
                .unwrap_or(self.n);
            if at < MAX_ROWS {
                self.rows.copy_within(at..MAX_ROWS - 1, at + 1);
                self.rows[at] = r;
                self.n = (self.n + 1).min(MAX_ROWS);
            }
        }
        self
    }

    /// The functions listed, their changes together.
    fn listed(&self) -> f64 {
        self.rows[..self.n].iter().map(|r| r.change).sum()
    }
}

/// The table of `d` (`labels`: control's, test's), rows and sentences,
/// no line over WIDTH.
pub fn write(d: &Diff, labels: [&[u8]; 2], out: &mut Out) {
    cell(out, 14, RIGHT, format_args!("{}", Clean(labels[0])));
    out.bytes(b"      change  kernel function\n");
    for r in &d.rows[..d.n] {
        let (only, a, b) = match r.sides {
            3 => (&b""[..], "", ""),
            s => (labels[s as usize - 1], " (", " only)"),
        };
        let args = format_args!("{}{a}{}{b}", Clean(r.name), Clean(only));
        row(out, r.sides & 1 == 0, r.control, r.change, args);
    }
    let (k, u, p) = (d.kernel, d.user, d.point);
    let n = d.functions - d.n;
    if n > 0 {
        let control = k[0] - d.rows.iter().map(|r| r.control).sum::<f64>();
        let args = format_args!("{n} other function{}", plural(n));
        row(out, false, control, k[1] - k[0] - d.listed(), args);
    }
    let counted = [k[0] + u[0], k[1] + u[1]];
    for (v, what) in [
        (k, "kernel, all functions"),
        (u, "user"),
        (counted, "counted (kernel + user)"),
        (p, "the point (timed)"),
    ] {
        row(out, false, v[0], v[1] - v[0], format_args!("{what}"));
    }
    let (m, change, timed) = (d.moved, counted[1] - counted[0], p[1] - p[0]);
    let mut s = Long::new();
    let _ = match m {
        0 => s.write_str("No function"),
        _ => write!(s, "{m} function{}", plural(m)),
    };
    let _ = write!(
        s,
        " moved by one instruction a cycle ({} a pair) or more",
        Dec(d.threshold, 3)
    );
    let listed = match m > d.n {
        true => "; the listed, the most",
        false => ", all listed",
    };
    if m > 0 {
        let _ = write!(
            s,
            "{listed}: {} of the {} counted",
            Signed(d.listed(), 3),
            Signed(change, 3)
        );
    }
    let _ = write!(
        s,
        ". The point (timed) moved {}; counted minus timed: {} a pair (the clock reads around \
         the spans, counted, not timed; the vCPU idle in them, timed, not counted; the clock's \
         rounding).",
        Signed(timed, 3),
        Signed(change - timed, 3)
    );
    if d.boots != [1, 1] {
        let (a, label, b) = match d.alike {
            [true, true] => (", identical within each label.", &b""[..], ""),
            [false, false] => ("; they differ within each label.", &b""[..], ""),
            [a, _] => ("; ", labels[a as usize], "'s differ."),
        };
        let _ = write!(
            s,
            " A label's figures are the mean of its boots' lines ({} vs {} boots){a}{}{b}",
            d.boots[1],
            d.boots[0],
            Clean(label)
        );
    }
    out.bytes(b"  ");
    wrap(out, s.as_str(), 2, 2, WIDTH);
}

/// One row: the control's figure (`-` when `absent`: it names no such
/// function), the change, and `text`, wrapped from column 28.
fn row(out: &mut Out, absent: bool, control: f64, change: f64, text: fmt::Arguments) {
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
    let Some(d) = diff(an, c) else {
        return;
    };
    let labels = [an.groups()[0].label(), an.groups()[c.test].label()];
    if !mail {
        out.bytes(b"\n");
    }
    // A heading, or on stderr the middle of a sentence.
    let w = if mail && d.is_err() { 'w' } else { 'W' };
    let mut p = Long::new();
    let _ = write!(
        p,
        "{w}here the cost went, {} against {}",
        Clean(labels[1]),
        Clean(labels[0])
    );
    let n = match d {
        Ok(d) => {
            let _ = write!(
                p,
                ": instructions per {what} by kernel function, counted inside the timed spans \
                 by a QEMU TCG plugin (the points' # cost: lines):"
            );
            wrap(out, p.as_str(), 0, 0, WIDTH);
            if mail {
                out.bytes(b"\n");
            }
            write(&d, labels, out);
            if mail {
                out.bytes(b"\n");
            }
            return;
        }
        Err(n) => n,
    };
    // As compare's errors name a file: `FILE:LINE: why: `text``.
    let a = an.args;
    let _ = write!(p, ": no table, {}", Clean(a.file(n.at)));
    if n.line > 0 {
        let _ = write!(p, ":{}", n.line);
    }
    let _ = write!(p, ": {}", n.why);
    if !n.text.is_empty() {
        let _ = write!(p, ": `{}`", Clean(n.text));
    }
    if let Some(k) = n.other {
        let _ = write!(p, " {}'s", Clean(a.file(k)));
    }
    match mail {
        true => crate::exit::warn(format_args!("report: {p}")),
        false => wrap(out, p.as_str(), 0, 2, WIDTH),
    }
}

#[cfg(test)]
mod tests;
