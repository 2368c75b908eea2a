//! `suite`: several workloads in one process, one after another, each
//! printing the whole point `run --profile P` prints with the same options:
//! each item is `profile::run` itself, so everything a run does from its
//! start to its verdict happens once per item, in the item's point.
//!
//! stdout, split before each `# uring-repro ` banner line, is one point per
//! item that ran. Around the points:
//!
//! ```text
//! # suite: 1/3 s0                  before each item's point
//! ...                              its point, as `run` prints it
//! # suite: 1/3 s0 exit=0 pass      after the last item, one line per item
//! # suite: 2/3 c0 exit=4 skip: kernel lacks IORING_OP_ASYNC_CANCEL (14) ...
//! # suite: 3/3 n0 exit=1 fail: FAIL: bad_result in cycle 1: ...
//! # suite: items=3 passed=1 failed=1 skipped=1 interrupted=0 not_run=0 exit=1
//! ```
//!
//! An item that skips (the kernel cannot run it) or fails does not stop the
//! next one (but one that could not give back what it changed of the
//! process, its thread's CPUs or policy, fails every item after it, each
//! naming why: profile's run.rs); SIGINT or SIGTERM stops the suite at once
//! (the item it cut short ends its point as `run` does; the items after it
//! are `not run`), and a lost stdout write ends it (nobody reads the rest).
//! Exit codes: 130 interrupted; else 1 when an item neither passed nor
//! skipped; else 4 when every item skipped; else 0 (every item that ran
//! passed: the skips are named on their lines).

use core::fmt::{self, Write};

use crate::config::RunConfig;
use crate::exit::{self, Exit};
use crate::profile::{self, ProfileId};
use crate::render::Line;
use crate::sys::clock::Clock;
use crate::sys::out::Out;
use crate::sys::{signal, CPU_SET_BYTES};

/// Most items a suite holds: every workload in each of its futex scopes
/// (an item given twice is refused).
pub const MAX_ITEMS: usize = 2 * ProfileId::ALL.len();

/// One item: a workload, and the run it gets (`run --profile P`, with
/// `--shared` for its shared variant, and the suite's options P takes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item<'a> {
    pub id: ProfileId,
    pub cfg: RunConfig<'a>,
}

impl Item<'_> {
    /// Its name on the suite's lines: the short name, and `:shared` for
    /// the shared-futex variant (`s0:shared`), however it was typed.
    pub fn label(&self) -> impl fmt::Display {
        Label(self.id.names().short, self.cfg.shared)
    }
}

struct Label(&'static str, bool);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let variant = if self.1 { ":shared" } else { "" };
        write!(f, "{}{variant}", self.0)
    }
}

/// The items, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Suite<'a> {
    items: [Item<'a>; MAX_ITEMS],
    n: usize,
}

impl Default for Suite<'_> {
    fn default() -> Self {
        let item = Item {
            id: ProfileId::S0,
            cfg: RunConfig::default(),
        };
        Suite {
            items: [item; MAX_ITEMS],
            n: 0,
        }
    }
}

/// An item the suite holds already.
#[derive(Debug, PartialEq, Eq)]
pub struct Again;

impl<'a> Suite<'a> {
    /// Adds workload `id` (its shared variant when `shared`) with the
    /// default run; Err when it is in the suite already.
    pub fn push(&mut self, id: ProfileId, shared: bool) -> Result<(), Again> {
        let same = |i: &Item| i.id == id && i.cfg.shared == shared;
        if self.items().iter().any(same) {
            return Err(Again);
        }
        // Every other variant fits: MAX_ITEMS counts them all.
        let slot = self.items.get_mut(self.n).ok_or(Again)?;
        *slot = Item {
            id,
            cfg: RunConfig {
                shared,
                ..RunConfig::default()
            },
        };
        self.n += 1;
        Ok(())
    }

    pub fn items(&self) -> &[Item<'a>] {
        &self.items[..self.n]
    }

    pub fn items_mut(&mut self) -> &mut [Item<'a>] {
        &mut self.items[..self.n]
    }
}

/// Runs every item of `suite` on `out`, as above.
pub fn run(suite: &Suite, clock: &Clock, out: &mut Out) -> Exit {
    // A CPU no item can have is a usage error before the first item (every
    // item has the suite's --cpu), as it is before anything of a run.
    let mut allowed = [0u8; CPU_SET_BYTES];
    if let Some(item) = suite.items().first() {
        if let Err(e) = profile::choose_cpu(item.cfg.cpu, &mut allowed) {
            return e;
        }
    }
    sequence(suite, out, &mut |item, out| {
        profile::run(item.id, &item.cfg, clock, out)
    })
}

/// The items one after another, each by `run`, with the suite's lines
/// around their points; returns the suite's exit.
fn sequence(suite: &Suite, out: &mut Out, run: &mut dyn FnMut(&Item, &mut Out) -> Exit) -> Exit {
    let items = suite.items();
    let n = items.len();
    // How each item ended; None: not run.
    let mut ends: [Option<End>; MAX_ITEMS] = [None; MAX_ITEMS];
    for (k, item) in items.iter().enumerate() {
        // Caught as an item ended: the next one does not start.
        if signal::caught() != 0 {
            break;
        }
        let _ = writeln!(out, "# suite: {}/{n} {}", k + 1, item.label());
        out.flush();
        if out.broken() {
            return lost(&ends, None);
        }
        let e = run(item, out);
        if out.broken() {
            return lost(&ends, Some(e));
        }
        let stop = e.code == exit::INTERRUPTED;
        ends[k] = Some(End {
            code: e.code,
            cause: e.cause(),
        });
        if stop {
            break;
        }
    }
    summary(out, items, &ends)
}

/// How an item ended: its exit's code and a copy of its cause (the next
/// item's exit takes the place the cause is kept in: `exit::Exit`).
#[derive(Clone, Copy)]
struct End {
    code: i32,
    cause: Line,
}

/// How many items ended how.
#[derive(Default)]
struct EndCounts {
    passed: usize,
    failed: usize,
    skipped: usize,
    interrupted: usize,
    not_run: usize,
}

impl EndCounts {
    fn of(ends: &[Option<End>]) -> EndCounts {
        let mut t = EndCounts::default();
        for e in ends {
            let count = match e.as_ref().map(|e| e.code) {
                None => &mut t.not_run,
                Some(exit::PASS) => &mut t.passed,
                Some(exit::SKIP) => &mut t.skipped,
                Some(exit::INTERRUPTED) => &mut t.interrupted,
                Some(_) => &mut t.failed,
            };
            *count += 1;
        }
        t
    }
}

/// The word an item's line gives its exit.
fn word(code: i32) -> &'static str {
    match code {
        exit::PASS => "pass",
        exit::SKIP => "skip",
        exit::INTERRUPTED => "interrupted",
        _ => "fail",
    }
}

/// One line per item and the counts, on `out`; the suite's exit.
fn summary(out: &mut Out, items: &[Item], ends: &[Option<End>]) -> Exit {
    let n = items.len();
    for (k, (item, end)) in items.iter().zip(ends).enumerate() {
        let _ = write!(out, "# suite: {}/{n} {}", k + 1, item.label());
        let _ = match end {
            None => writeln!(out, " not run"),
            Some(e) => {
                let _ = write!(out, " exit={} {}", e.code, word(e.code));
                let cause = e.cause.as_bytes();
                if e.code == exit::INTERRUPTED || cause.is_empty() {
                    writeln!(out)
                } else {
                    writeln!(out, ": {}", e.cause)
                }
            }
        };
    }
    let t = EndCounts::of(&ends[..n]);
    let e = verdict(items, ends, &t);
    let _ = writeln!(
        out,
        "# suite: items={n} passed={} failed={} skipped={} interrupted={} not_run={} exit={}",
        t.passed, t.failed, t.skipped, t.interrupted, t.not_run, e.code
    );
    out.flush();
    e
}

/// The suite's exit from its items' (`t`: how many ended how): interrupted, else
/// failed when one failed, else skipped when all did, else passed.
fn verdict(items: &[Item], ends: &[Option<End>], t: &EndCounts) -> Exit {
    let caught = signal::caught();
    if t.interrupted > 0 || caught != 0 {
        // The signal the item ended by, or the one caught as an item ended.
        let ended = ends.iter().flatten().find(|e| e.code == exit::INTERRUPTED);
        return match ended {
            Some(e) => Exit::new(exit::INTERRUPTED, format_args!("{}", e.cause)),
            None => Exit::new(
                exit::INTERRUPTED,
                format_args!("interrupted by {}", signal::name(caught)),
            ),
        };
    }
    if t.failed > 0 {
        let mut e = Exit::new(
            exit::FAIL,
            format_args!("suite: {} of {} failed:", t.failed, items.len()),
        );
        for (item, _) in items.iter().zip(ends).filter(|(_, e)| failed(e)) {
            let _ = write!(e, " {}", item.label());
        }
        let _ = write!(e, " (see stdout)");
        return e;
    }
    if t.skipped == items.len() {
        let first = ends.iter().flatten().next().map(|e| &e.cause);
        let cause = first.map_or(Line::new(), |c| *c);
        return Exit::new(
            exit::SKIP,
            format_args!("suite: every item skipped: {cause}"),
        );
    }
    Exit::pass()
}

/// The item ran and neither passed nor skipped (nor was interrupted).
fn failed(end: &Option<End>) -> bool {
    end.as_ref()
        .is_some_and(|e| ![exit::PASS, exit::SKIP, exit::INTERRUPTED].contains(&e.code))
}

/// stdout lost a write (`e`: the exit of the item it lost it in, None:
/// lost before the item started): the rest would be written for nobody, so
/// the suite ends here, with no summary. Its exit is the item's (which
/// tells the lost write as `run` tells it), or a failure of an earlier
/// item's, which the lost write's line then follows (`Exit::with_stdout`).
fn lost(ends: &[Option<End>], e: Option<Exit>) -> Exit {
    if ends.iter().any(failed) {
        let n = ends.iter().filter(|e| failed(e)).count();
        return Exit::new(
            exit::FAIL,
            format_args!("suite: {n} failed before stdout was lost"),
        );
    }
    e.unwrap_or_else(Exit::pass)
}

#[cfg(test)]
mod tests;
