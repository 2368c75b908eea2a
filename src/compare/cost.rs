//! Where the cost went, the figures: two labels' cost counts (docs/cost.md:
//! the instructions a QEMU TCG plugin counted inside the timed spans, per
//! kernel function, exact; point/cost_lines.rs reads them once) summed
//! function by function, per side. cost_table.rs shows them
//! (docs/compare.md, "Where the cost went").
//!
//! - The series summed is the profile compared: the points' rows (a
//!   pollwake mode's with `--mode`), so the figures explain the change
//!   the comparison states.
//! - A label's figure for a function is the mean of its boots' (points of
//!   one boot first averaged), as its value is the mean of its boots'
//!   values (`Boots`); a function a point does not name counts 0 there.
//!   Boots of one kernel give identical lines under the instruction clock:
//!   `Sum::alike` says when they did not.
//! - The functions that moved by one instruction a cycle or more (code on
//!   the measured path runs once a cycle or more; the timer tick's work,
//!   spread by the rounds' length, moves by far less), or by one locked
//!   instruction a cycle, are listed by `Sum::next`, biggest first (ties
//!   in byte order).
//! - Locked instructions (the `locked` lines and the series lines'
//!   `kernel_locked=`, `user_locked=`) are summed as the instructions are,
//!   and shown when every point of both sides counted them (`Locked`): a
//!   point whose counter did not count them has no figure, never 0, so no
//!   change can be taken against it.
//! - Events (the `event` lines: entries into the functions the method
//!   line's `events=` names) are summed per event in the same way, when
//!   every point of both sides counted the same events (`Events`); an
//!   event moved when its change is half an entry a cycle or more: the
//!   measured path enters its functions a whole number of times a cycle,
//!   the tick's work far less than half (docs/ab.md, "The gate").
//!
//! Nothing is summed when no point of a comparison carries cost lines.
//! When some do, a point without them or with lines that cannot be diffed
//! (point/cost_lines.rs: out of format, not of its rows), or points of one
//! label counted with other System.maps, give why there is no table
//! (`NoTable`): the lines are an annex a script wrote after the run, so
//! the point itself is compared as always, but no table is better than a
//! wrong one.
//!
//! Limits (no heap): MAX_FUNCTIONS names a comparison, in a fixed hash
//! table (`Sum`: SLOTS slots, 224 KiB of stack).

use super::analysis::{boots, locked_of, Analysis, Comparison, LockedPerPair};
use super::point::{fnv, Cost, Count, Key, ALL, MAX_EVENTS, MAX_FUNCTIONS, TOO_MANY_FUNCTIONS};
use super::table::uint;

/// The hash table's slots: a quarter stays free, so a probe ends soon.
const SLOTS: usize = 4096;

const NO_LINES: &str = "no # cost: lines (boot-point.sh --cost adds them)";
const OTHER_MAP: &str = "another System.map than its label's first point";

/// Why there is no table: the point (`at`), the line (0: the whole
/// point), the reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoTable {
    pub at: usize,
    pub line: usize,
    pub why: &'static str,
}

/// A function: its name, its figures per side (control, test: per pair,
/// the label's mean), of all its instructions and of its locked ones, and
/// the sides that name it (bits).
#[derive(Clone, Copy)]
pub struct Slot<'t> {
    pub name: &'t [u8],
    pub v: [f64; 2],
    pub locked: [f64; 2],
    pub sides: u8,
}

impl Slot<'_> {
    /// Its change, test minus control.
    pub fn change(&self) -> f64 {
        self.v[1] - self.v[0]
    }

    /// The change of its locked instructions.
    pub fn locked_change(&self) -> f64 {
        self.locked[1] - self.locked[0]
    }

    /// Named by one side only: which (0 control, 1 test).
    pub fn only(&self) -> Option<usize> {
        match self.sides {
            1 => Some(0),
            2 => Some(1),
            _ => None,
        }
    }
}

/// Whether the points of a comparison counted locked instructions (their
/// method lines' `locked=x86-lock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locked {
    /// Every point of both sides did: `Sum` holds their figures.
    Counted,
    /// No point did: not counted, which is no 0.
    NotCounted,
    /// Some did and some did not (points, as bits): there is no change to
    /// take against what was not counted.
    Mixed { counted: u32, not: u32 },
}

/// Whether the points of a comparison counted events, and the same ones
/// (their method lines' `events=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventsCounted {
    /// Every point of both sides counted the same events: `Events` holds
    /// their figures.
    Counted,
    /// No point did.
    NotCounted,
    /// Some did and some did not, or some counted other events than the
    /// first (points, as bits): no change is taken.
    Mixed { counted: u32, not: u32 },
}

/// A comparison's events, per side (control, test), in entries per pair,
/// in the first point's order.
#[derive(Clone, Copy)]
pub struct Events<'t> {
    pub names: [&'t [u8]; MAX_EVENTS],
    pub v: [[f64; 2]; MAX_EVENTS],
    /// Each event's least and most per pair among each side's points:
    /// boots of one image agree exactly, the draws of two vCPUs do not,
    /// and the larger side's spread counts in `moved` as in the
    /// instructions' gate.
    pub range: [[[f64; 2]; 2]; MAX_EVENTS],
    pub n: usize,
    /// The points that counted the events of the first point that counted
    /// any, and those that did not (none, or others), as bits.
    pub counted: u32,
    pub not: u32,
}

impl<'t> Events<'t> {
    pub const fn new() -> Self {
        Events {
            names: [b""; MAX_EVENTS],
            v: [[0.0; 2]; MAX_EVENTS],
            range: [[[f64::INFINITY, f64::NEG_INFINITY]; 2]; MAX_EVENTS],
            n: 0,
            counted: 0,
            not: 0,
        }
    }

    pub fn status(&self) -> EventsCounted {
        match (self.counted, self.not) {
            (_, 0) => EventsCounted::Counted,
            (0, _) => EventsCounted::NotCounted,
            (counted, not) => EventsCounted::Mixed { counted, not },
        }
    }

    /// Point `i`'s events (None: not counted), `per` its weight in its
    /// side's figures per pair, `pairs` its own pairs.
    fn add(&mut self, i: usize, events: Option<&[Count<'t>]>, side: usize, per: f64, pairs: f64) {
        let first = self.counted == 0;
        let same =
            |e: &[Count]| e.len() == self.n && e.iter().zip(&self.names).all(|(c, n)| c.name == *n);
        match events {
            Some(e) if first && e.len() <= MAX_EVENTS => {
                self.n = e.len();
                for (k, c) in e.iter().enumerate() {
                    self.names[k] = c.name;
                }
            }
            Some(e) if same(e) => {}
            _ => {
                self.not |= 1 << i;
                return;
            }
        }
        self.counted |= 1 << i;
        let each = self.v.iter_mut().zip(&mut self.range);
        for ((v, range), c) in each.zip(events.unwrap_or(&[])) {
            v[side] += per * c.count as f64;
            let own = c.count as f64 / pairs;
            let [lo, hi] = range[side];
            range[side] = [lo.min(own), hi.max(own)];
        }
    }

    /// Event `k`'s spread, per pair: the larger of the two sides' (0 for
    /// a side of one point, or of boots that agree).
    pub fn spread(&self, k: usize) -> f64 {
        let of = |[lo, hi]: [f64; 2]| if hi > lo { hi - lo } else { 0.0 };
        of(self.range[k][0]).max(of(self.range[k][1]))
    }

    /// Event `k`'s change, test minus control.
    pub fn change(&self, k: usize) -> f64 {
        self.v[k][1] - self.v[k][0]
    }

    /// Event `k` moved by half of `cycle` (one entry a cycle, per pair)
    /// or more, beyond the larger side's spread.
    pub fn moved(&self, k: usize, cycle: f64) -> bool {
        let d = self.change(k);
        d != 0.0 && d.abs() >= (cycle * 0.5 + self.spread(k)) * (1.0 - 1e-9)
    }

    /// The events that moved, as bits, when every point counted them.
    pub fn moved_bits(&self, cycle: f64) -> u32 {
        if self.status() != EventsCounted::Counted {
            return 0;
        }
        (0..self.n)
            .filter(|&k| self.moved(k, cycle))
            .fold(0, |bits, k| bits | 1 << k)
    }
}

impl Default for Events<'_> {
    fn default() -> Self {
        Self::new()
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
    /// The locked ones, of a side whose every point counted them.
    pub locked_sides: [Option<LockedPerPair>; 2],
    /// The points that counted locked instructions, and those that did
    /// not (bits).
    pub counted: u32,
    pub not_counted: u32,
    /// Whether the points of a side have identical lines.
    pub alike: [bool; 2],
    /// One instruction a cycle, per pair: what a function moves by to be
    /// listed (an event, by half an entry a cycle).
    pub threshold: f64,
    pub events: Events<'t>,
}

impl<'t> Sum<'t> {
    pub const fn new() -> Self {
        const FREE: Slot<'static> = Slot {
            name: b"",
            v: [0.0; 2],
            locked: [0.0; 2],
            sides: 0,
        };
        Sum {
            slots: [FREE; SLOTS],
            functions: 0,
            kernel: [0.0; 2],
            user: [0.0; 2],
            point: [0.0; 2],
            locked_sides: [None; 2],
            counted: 0,
            not_counted: 0,
            alike: [true; 2],
            threshold: 0.0,
            events: Events::new(),
        }
    }

    /// `count` instructions of function `name` on `side` (the locked ones
    /// when `which` says so), weighing `per`; Err when the table is full.
    fn add(
        &mut self,
        name: &'t [u8],
        (count, which): (u64, Instructions),
        side: usize,
        per: f64,
    ) -> Result<(), ()> {
        let mut i = fnv(name) as usize % SLOTS;
        while self.slots[i].sides != 0 && self.slots[i].name != name {
            i = (i + 1) % SLOTS;
        }
        let s = &mut self.slots[i];
        if s.sides == 0 {
            if self.functions == MAX_FUNCTIONS {
                return Err(());
            }
            (s.name, self.functions) = (name, self.functions + 1);
        }
        s.sides |= 1 << side;
        let v = match which {
            Instructions::All => &mut s.v,
            Instructions::Locked => &mut s.locked,
        };
        v[side] += per * count as f64;
        Ok(())
    }

    /// Whether the points of both sides counted locked instructions.
    pub fn locked(&self) -> Locked {
        match (self.counted, self.not_counted) {
            (_, 0) => Locked::Counted,
            (0, _) => Locked::NotCounted,
            (counted, not) => Locked::Mixed { counted, not },
        }
    }

    /// Per side (control, test), the kernel's and the user's locked
    /// instructions per pair; 0 for a side without them, which is shown
    /// only when both sides have them (`Locked::Counted`).
    pub fn locked_figures(&self) -> ([f64; 2], [f64; 2]) {
        let [c, t] = self
            .locked_sides
            .map(|l| l.map_or((0.0, 0.0), |l| (l.kernel, l.user)));
        ([c.0, t.0], [c.1, t.1])
    }

    /// The functions that moved by `threshold` or more, in all their
    /// instructions or in their locked ones.
    fn moved(&self) -> impl Iterator<Item = &Slot<'t>> {
        let t = self.threshold * (1.0 - 1e-9); // but for the float's last bits
        let locked = self.locked() == Locked::Counted;
        let big = move |v: f64| v != 0.0 && v.abs() >= t;
        self.slots
            .iter()
            .filter(move |s| s.sides != 0 && (big(s.change()) || locked && big(s.locked_change())))
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

/// Which of a function's counts a line gives.
#[derive(Clone, Copy)]
enum Instructions {
    All,
    Locked,
}

/// `a` is listed before `b`: it moved more, or as much and its name comes
/// first in byte order.
fn ahead(a: &Slot, b: &Slot) -> bool {
    let (x, y) = (a.change().abs(), b.change().abs());
    x > y || (x == y && a.name < b.name)
}

impl Default for Sum<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// The System.map a method line names (its `map_sha256=`; empty when it
/// names none): one label, one kernel build. Its other words may differ
/// (a counter that counted locked instructions beside one that did not:
/// `Locked` says so).
fn map(method: &[u8]) -> &[u8] {
    let mut words = method.split(|&b| b == b' ');
    words
        .find_map(|w| w.strip_prefix(b"map_sha256="))
        .unwrap_or(b"")
}

/// The same functions with the same counts, in the same order.
fn same_counts(a: &[Count], b: &[Count]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.name == y.name && x.count == y.count)
}

/// A comparison's cost lines summed once (`sum`): what compare's text,
/// the mail and ab's table show of it. `table` is None when no point of
/// the comparison carries cost lines, else whether `sum` holds them or why
/// not.
pub struct Costs<'t> {
    pub table: Option<Result<(), NoTable>>,
    pub sum: Sum<'t>,
}

impl<'t> Costs<'t> {
    /// Comparison `c`'s, summed. Not inlined: its callers (text, mail,
    /// ab, the TSV) would each carry a copy.
    #[inline(never)]
    pub fn of(an: &Analysis<'t, '_>, c: &Comparison) -> Costs<'t> {
        let mut costs = Costs {
            table: None,
            sum: Sum::new(),
        };
        costs.table = sum(an, c, &mut costs.sum);
        costs
    }
}

/// Sums comparison `c`'s cost counts into `t`: None when no point of it
/// carries cost lines, else whether they could be, or why not. The
/// points of one label must name one System.map (`map`).
fn sum<'t>(an: &Analysis<'t, '_>, c: &Comparison, t: &mut Sum<'t>) -> Option<Result<(), NoTable>> {
    let (pts, gs) = (an.points, an.groups());
    let sides = [&gs[c.base], &gs[c.test]];
    let carries = |i: &usize| pts[*i].cost != Cost::Absent;
    if !sides.iter().any(|g| g.points().iter().any(carries)) {
        return None;
    }
    // A cycle's pairs: the rows' pairs a round over the cycles a round (a
    // point that states no cycles: its round is one).
    let p0 = &pts[sides[0].points()[0]];
    let cycles = p0.get(Key::Cycles).and_then(uint).unwrap_or(1);
    t.threshold = cycles as f64 / p0.pairs.max(1) as f64;
    for (side, g) in sides.into_iter().enumerate() {
        let b = boots(pts, g, ALL);
        t.point[side] = b.value();
        let mut first = None;
        for (j, &i) in g.points().iter().enumerate() {
            let no_table = |line, why| Some(Err(NoTable { at: i, line, why }));
            let counted = match pts[i].cost {
                Cost::Absent => return no_table(0, NO_LINES),
                Cost::Unusable { line, why } => return no_table(line, why),
                Cost::Counted(counted) => counted,
            };
            match first {
                None => first = Some(counted),
                Some(f) if map(f.method) != map(counted.method) => return no_table(0, OTHER_MAP),
                Some(f) => {
                    t.alike[side] &= f.totals == counted.totals
                        && same_counts(f.functions, counted.functions)
                        && same_counts(f.locked, counted.locked)
                        && same_counts(f.events.unwrap_or(&[]), counted.events.unwrap_or(&[]))
                }
            }
            // Its weight in its side's figures, per pair of its rows.
            let per = b.weight(j) / counted.totals.pairs.max(1) as f64;
            let all = counted.functions.iter().map(|f| (f, Instructions::All));
            let locked = counted.locked.iter().map(|f| (f, Instructions::Locked));
            for (f, which) in all.chain(locked) {
                if t.add(f.name, (f.count, which), side, per).is_err() {
                    return no_table(f.line, TOO_MANY_FUNCTIONS);
                }
            }
            let pairs = counted.totals.pairs.max(1) as f64;
            t.events.add(i, counted.events, side, per, pairs);
            t.kernel[side] += per * counted.totals.kernel as f64;
            t.user[side] += per * counted.totals.user as f64;
            match counted.totals.locked {
                Some(_) => t.counted |= 1 << i,
                None => t.not_counted |= 1 << i,
            }
        }
        t.locked_sides[side] = locked_of(pts, g);
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests;
