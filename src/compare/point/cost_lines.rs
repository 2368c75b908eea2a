//! A point's `# cost: ` lines (docs/cost.md), read once into typed values
//! as the point is read: the method line, and for the series the point's
//! rows are of, its series line, its `fn` lines, when the counter counted
//! locked instructions its `locked` lines, and when it counted events (the
//! method line's `events=`) its `event` lines, one per event in that
//! order. Lines of other series are passed over.
//!
//! The lines are an annex a script wrote after the run: lines that do not
//! follow the format, or do not fit their point, make the point's `Cost`
//! `Unusable` (the first fault, with its line) and the point is read as
//! ever; compare says why there is no table in its place.
//!
//! Every count is a whole number of at most 2^63 - 1 (no run counts
//! near that many instructions: 2^63 are some 90 years of a 3 GHz core),
//! so that it is exact as a figure's operand and a table shows it whole;
//! sums are checked: a `fn` line lost, added or named twice, or counts
//! that add up to `kernel=` only past 2^64, are caught.

use core::mem::MaybeUninit;

use crate::decimal::{self, Refused};

/// The prefix of every cost line.
pub const COST_PREFIX: &[u8] = b"# cost: ";

/// Most `fn` lines (and, apart, most `locked` lines) one series of one
/// point may have: compare's limit of functions in one comparison.
pub const MAX_FUNCTIONS: usize = 3072;

/// Most events one point may count (`event` lines of a series).
pub const MAX_EVENTS: usize = 16;

/// The largest count a line may state.
const MAX_COUNT: u64 = i64::MAX as u64;

/// A line that is not one of docs/cost.md's.
pub const FORMAT: &str = "a cost line out of docs/cost.md's format";
const TOO_MANY: &str = "a count above 2^63 - 1 (no run counts so many)";
const NO_METHOD_OR_SERIES: &str = "no method line, or no series line for this profile";
const OTHER_PAIRS: &str = "pairs= not its rows' (another run's lines?)";
const FN_SUM: &str = "its fn lines do not add up to its kernel=";
const LOCKED_SUM: &str = "its locked lines do not add up to its kernel_locked=";
const TWICE: &str = "a function named twice in its series";
const LOCKED_FN: &str = "a locked count above its function's fn count";
const EVENTS: &str = "its event lines are not its method line's events=";
const TOO_MANY_EVENTS: &str = "more than 16 events";
/// More than MAX_FUNCTIONS functions, in one point's series or in one
/// comparison (compare/cost.rs).
pub const TOO_MANY_FUNCTIONS: &str = "over compare's limit of 3072 functions at";
const _: () = assert!(MAX_FUNCTIONS == 3072, "TOO_MANY_FUNCTIONS states the limit");

/// One function's count: its name, the instructions counted in it (all
/// of them, or the locked ones), and the line that states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count<'t> {
    pub name: &'t [u8],
    pub count: u64,
    pub line: usize,
}

/// A series line's totals, instructions inside its windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Its rows' pairs (the mean row's).
    pub pairs: u64,
    pub user: u64,
    pub kernel: u64,
    /// The locked instructions, when the method line says they were
    /// counted (`locked=x86-lock`); None: not counted (never 0).
    pub locked: Option<LockedTotals>,
}

/// A series' locked instructions: an x86 instruction with a LOCK prefix,
/// or XCHG with a memory operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockedTotals {
    pub user: u64,
    pub kernel: u64,
}

/// One cost line, after its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostLine<'t> {
    /// `method WORDS`: how the lines were made; `map_sha256=` names the
    /// System.map, `locked=x86-lock` says locked instructions were counted.
    Method { words: &'t [u8], locked: bool },
    /// `series NAME key=value...`.
    Series { name: &'t [u8], totals: Totals },
    /// `fn SERIES PER_PAIR COUNT FUNCTION` (PER_PAIR, COUNT / pairs with 3
    /// decimals, is not read: COUNT is the exact figure).
    Fn { series: &'t [u8], count: Count<'t> },
    /// `locked SERIES PER_PAIR COUNT FUNCTION`, the same of locked ones.
    Locked { series: &'t [u8], count: Count<'t> },
    /// `event SERIES PER_PAIR COUNT EVENT`: the entries into function
    /// EVENT.
    Event { series: &'t [u8], count: Count<'t> },
}

impl<'t> CostLine<'t> {
    /// Line `no` (`rest`: what follows the prefix), or why it is none.
    pub fn parse(rest: &'t [u8], no: usize) -> Result<CostLine<'t>, &'static str> {
        let mut words = rest.split(|&b| b == b' ');
        let (kind, name) = (words.next().unwrap_or(b""), words.next().unwrap_or(b""));
        if kind == b"method" {
            let locked = rest.split(|&b| b == b' ').any(|w| w == b"locked=x86-lock");
            return Ok(CostLine::Method {
                words: rest,
                locked,
            });
        }
        if name.is_empty() {
            return Err(FORMAT);
        }
        match kind {
            b"series" => Ok(CostLine::Series {
                name,
                totals: totals(rest)?,
            }),
            b"fn" | b"locked" | b"event" => {
                let (_per_pair, count) = (words.next(), words.next().unwrap_or(b""));
                let function = words.next().unwrap_or(b"");
                if function.is_empty() || words.next().is_some() {
                    return Err(FORMAT);
                }
                let count = Count {
                    name: function,
                    count: whole(count)?,
                    line: no,
                };
                Ok(match kind {
                    b"fn" => CostLine::Fn {
                        series: name,
                        count,
                    },
                    b"locked" => CostLine::Locked {
                        series: name,
                        count,
                    },
                    _ => CostLine::Event {
                        series: name,
                        count,
                    },
                })
            }
            _ => Err(FORMAT),
        }
    }
}

/// The series a line (after its prefix) is of: its second word, when its
/// first is a kind of line that has one.
fn series_of(rest: &[u8]) -> Option<&[u8]> {
    let mut words = rest.split(|&b| b == b' ');
    match words.next()? {
        b"series" | b"fn" | b"locked" | b"event" => words.next().filter(|n| !n.is_empty()),
        _ => None,
    }
}

/// A count: a whole number of at most MAX_COUNT.
fn whole(v: &[u8]) -> Result<u64, &'static str> {
    match decimal::whole(v, decimal::UNBOUNDED) {
        Ok(n) if n <= MAX_COUNT => Ok(n),
        Ok(_) | Err(Refused::TooLarge) => Err(TOO_MANY),
        Err(_) => Err(FORMAT),
    }
}

/// The totals of a series line (its words after the name): whole
/// `pairs=`, `user=` and `kernel=`, and `user_locked=` with
/// `kernel_locked=` or neither; other words are not read.
fn totals(line: &[u8]) -> Result<Totals, &'static str> {
    let get = |key: &[u8]| {
        let value = line
            .split(|&b| b == b' ')
            .find_map(|w| w.strip_prefix(key)?.strip_prefix(b"="));
        value.map(whole).transpose()
    };
    let (Some(pairs), Some(user), Some(kernel)) = (get(b"pairs")?, get(b"user")?, get(b"kernel")?)
    else {
        return Err(FORMAT);
    };
    let locked = match (get(b"user_locked")?, get(b"kernel_locked")?) {
        (Some(user), Some(kernel)) => Some(LockedTotals { user, kernel }),
        (None, None) => None,
        _ => return Err(FORMAT),
    };
    Ok(Totals {
        pairs,
        user,
        kernel,
        locked,
    })
}

/// What a point's cost lines give for the series its rows are of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cost<'t> {
    /// No cost line.
    #[default]
    Absent,
    /// Lines that cannot be diffed: the line (0: the whole point) and why.
    Unusable {
        line: usize,
        why: &'static str,
    },
    Counted(Counted<'t>),
}

/// The cost lines of one series of a point, checked: complete, of this
/// point's rows, each function once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted<'t> {
    /// The method line's words (one label, one kernel build: its points'
    /// method lines are the same).
    pub method: &'t [u8],
    /// The series line's number and totals.
    pub line: usize,
    pub totals: Totals,
    /// Its `fn` lines' counts, as the lines give them.
    pub functions: &'t [Count<'t>],
    /// Its `locked` lines' counts (empty when not counted: see
    /// `Totals::locked`).
    pub locked: &'t [Count<'t>],
    /// Its `event` lines' counts, in the method line's order; None when
    /// its counter counted no events (not counted, never 0).
    pub events: Option<&'t [Count<'t>]>,
}

/// The events a method line says were counted (its `events=`, names
/// separated by colons), None when it says none.
pub fn events_of(method: &[u8]) -> Option<&[u8]> {
    let mut words = method.split(|&b| b == b' ');
    words
        .find_map(|w| w.strip_prefix(b"events="))
        .filter(|l| !l.is_empty())
}

/// Room for the counts of the points of one command line, handed out as
/// each point is read (no heap: load.rs maps it).
pub struct CountRoom<'t> {
    free: &'t mut [MaybeUninit<Count<'t>>],
}

impl<'t> CountRoom<'t> {
    /// Room enough: MAX_FUNCTIONS `fn` and as many `locked` counts, and
    /// MAX_EVENTS `event` counts, for each point read.
    pub fn new(free: &'t mut [MaybeUninit<Count<'t>>]) -> Self {
        CountRoom { free }
    }

    /// Counts a point needs at most.
    pub const PER_POINT: usize = 2 * MAX_FUNCTIONS + MAX_EVENTS;

    /// Room for `points` points, kept for good (tests: a few points).
    #[cfg(test)]
    pub fn kept(points: usize) -> CountRoom<'t> {
        let room = vec![MaybeUninit::uninit(); points * Self::PER_POINT];
        CountRoom::new(Box::leak(room.into_boxed_slice()))
    }

    /// Where the `i`th count of the point being read goes (none left:
    /// over the limit).
    fn slot(&mut self, i: usize) -> Result<&mut MaybeUninit<Count<'t>>, &'static str> {
        self.free.get_mut(i).ok_or(TOO_MANY_FUNCTIONS)
    }

    /// The first `n` counts written, taken out of the room for good.
    fn take(&mut self, n: usize) -> &'t [Count<'t>] {
        let (head, tail) = core::mem::take(&mut self.free).split_at_mut(n);
        self.free = tail;
        // SAFETY: `Reader` wrote `head[..n]` (`push` before counting one),
        // and MaybeUninit<T> has T's layout; the room is borrowed for 't.
        unsafe { core::slice::from_raw_parts(head.as_ptr().cast::<Count<'t>>(), n) }
    }
}

/// The cost lines of one point as they come: what `Cost` the point gets.
#[derive(Default)]
pub struct Reader<'t> {
    /// A cost line was read.
    seen: bool,
    /// The first fault, once seen: the rest is passed over.
    fault: Option<(usize, &'static str)>,
    method: Option<(&'t [u8], bool)>,
    series: Option<(usize, Totals)>,
    /// Counts written to the room: `fn` lines, then `locked` lines, then
    /// `event` lines, and the line of the first `locked` one and of the
    /// first `event` one.
    functions: usize,
    locked: usize,
    first_locked: usize,
    events: usize,
    first_event: usize,
}

impl<'t> Reader<'t> {
    /// Line `no`, a cost line (`rest`: after the prefix); `ours` tells
    /// whether a series is the one the point's rows are of.
    pub fn line(
        &mut self,
        rest: &'t [u8],
        no: usize,
        ours: &dyn Fn(&[u8]) -> bool,
        room: &mut CountRoom<'t>,
    ) {
        self.seen = true;
        if self.fault.is_some() {
            return;
        }
        if let Err(why) = self.take_line(rest, no, ours, room) {
            self.fault = Some((no, why));
        }
    }

    fn take_line(
        &mut self,
        rest: &'t [u8],
        no: usize,
        ours: &dyn Fn(&[u8]) -> bool,
        room: &mut CountRoom<'t>,
    ) -> Result<(), &'static str> {
        // Lines of other series are passed over, whatever they hold.
        if series_of(rest).is_some_and(|s| !ours(s)) {
            return Ok(());
        }
        match CostLine::parse(rest, no)? {
            CostLine::Method { words, locked } => self.method = Some((words, locked)),
            CostLine::Series { totals, .. } if self.series.is_none() => {
                self.series = Some((no, totals))
            }
            // A second series line of one series.
            CostLine::Series { .. } => return Err(FORMAT),
            CostLine::Fn { count, .. } if self.locked == 0 && self.events == 0 => {
                if self.functions == MAX_FUNCTIONS {
                    return Err(TOO_MANY_FUNCTIONS);
                }
                room.slot(self.functions)?.write(count);
                self.functions += 1;
            }
            // A series' `locked` lines come after its `fn` lines, its
            // `event` lines after both.
            CostLine::Fn { .. } => return Err(FORMAT),
            CostLine::Locked { .. } if self.events > 0 => return Err(FORMAT),
            CostLine::Locked { count, .. } => {
                if self.locked == MAX_FUNCTIONS {
                    return Err(TOO_MANY_FUNCTIONS);
                }
                if self.locked == 0 {
                    self.first_locked = no;
                }
                room.slot(self.functions + self.locked)?.write(count);
                self.locked += 1;
            }
            CostLine::Event { count, .. } => {
                if self.events == MAX_EVENTS {
                    return Err(TOO_MANY_EVENTS);
                }
                if self.events == 0 {
                    self.first_event = no;
                }
                room.slot(self.functions + self.locked + self.events)?
                    .write(count);
                self.events += 1;
            }
        }
        Ok(())
    }

    /// The point's `Cost`, its lines all read and its rows' `pairs` known
    /// (pairs a round times rounds): the counts taken from the room when
    /// they can be diffed.
    pub fn finish(self, pairs: u64, room: &mut CountRoom<'t>) -> Cost<'t> {
        let unusable = |line, why| Cost::Unusable { line, why };
        if let Some((line, why)) = self.fault {
            return unusable(line, why);
        }
        if !self.seen {
            return Cost::Absent;
        }
        let (Some((method, locked)), Some((line, totals))) = (self.method, self.series) else {
            return unusable(0, NO_METHOD_OR_SERIES);
        };
        if locked != totals.locked.is_some() {
            return unusable(line, FORMAT);
        }
        if !locked && self.locked > 0 {
            return unusable(self.first_locked, FORMAT);
        }
        if totals.pairs != pairs {
            return unusable(line, OTHER_PAIRS);
        }
        let all = room.take(self.functions + self.locked + self.events);
        let (functions, rest) = all.split_at(self.functions);
        let (locked_counts, event_counts) = rest.split_at(self.locked);
        // The event lines are the method line's events, each once, in its
        // order (or there are neither).
        let events = match events_of(method) {
            None if self.events == 0 => None,
            None => return unusable(self.first_event, EVENTS),
            Some(list) => {
                let mut names = list.split(|&b| b == b':');
                let listed = event_counts.iter().all(|c| names.next() == Some(c.name));
                if !listed || names.next().is_some() {
                    return unusable(
                        if self.events > 0 {
                            self.first_event
                        } else {
                            line
                        },
                        EVENTS,
                    );
                }
                Some(event_counts)
            }
        };
        if sum(functions) != Some(totals.kernel) {
            return unusable(line, FN_SUM);
        }
        if let Some(l) = totals.locked {
            if sum(locked_counts) != Some(l.kernel) {
                return unusable(line, LOCKED_SUM);
            }
        }
        let names = match (ByName::of(functions), ByName::of(locked_counts)) {
            (Err(twice), _) | (_, Err(twice)) => return unusable(twice, TWICE),
            (Ok(names), Ok(_)) => names,
        };
        if let Err(twice) = ByName::of(event_counts) {
            return unusable(twice, TWICE);
        }
        if let Some(line) = locked_beyond(&names, locked_counts) {
            return unusable(line, LOCKED_FN);
        }
        Cost::Counted(Counted {
            method,
            line,
            totals,
            functions,
            locked: locked_counts,
            events,
        })
    }
}

/// The counts added up, None past 2^64.
fn sum(counts: &[Count]) -> Option<u64> {
    counts.iter().try_fold(0u64, |s, c| s.checked_add(c.count))
}

/// Counts by name: a fixed hash table of twice MAX_FUNCTIONS slots, so
/// a probe ends soon.
struct ByName<'c, 't> {
    counts: &'c [Count<'t>],
    /// Index + 1 of the count in each slot; 0: free.
    slots: [u16; 2 * MAX_FUNCTIONS],
}

impl<'c, 't> ByName<'c, 't> {
    /// `counts` by name, or the line of the first count whose name an
    /// earlier one has.
    fn of(counts: &'c [Count<'t>]) -> Result<Self, usize> {
        let mut names = ByName {
            counts,
            slots: [0; 2 * MAX_FUNCTIONS],
        };
        for (k, c) in counts.iter().enumerate() {
            match names.find(c.name) {
                (_, Some(_)) => return Err(c.line),
                (i, None) => names.slots[i] = k as u16 + 1,
            }
        }
        Ok(names)
    }

    /// The slot of `name`, and its count when it has one.
    fn find(&self, name: &[u8]) -> (usize, Option<&'c Count<'t>>) {
        let mut i = fnv(name) as usize % self.slots.len();
        while self.slots[i] != 0 {
            let c = &self.counts[self.slots[i] as usize - 1];
            if c.name == name {
                return (i, Some(c));
            }
            i = (i + 1) % self.slots.len();
        }
        (i, None)
    }
}

/// The line of the first `locked` count above its function's `fn` count
/// (none: no fn line), a locked instruction being one of its function's.
fn locked_beyond(functions: &ByName, locked: &[Count]) -> Option<usize> {
    let within = |l: &Count| functions.find(l.name).1.is_some_and(|f| l.count <= f.count);
    locked.iter().find(|l| !within(l)).map(|l| l.line)
}

/// FNV-1a, 64 bits.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &c| {
        (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
