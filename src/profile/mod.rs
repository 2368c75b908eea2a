//! The workloads, and the one driver that runs them all.
//!
//! - `wait_wake.rs`: s0, the report's cycle (start reading here);
//!   `wait_cancel.rs` c0, `waitv_wake.rs` v0, `batch.rs` z0 e0 n0,
//!   `lifecycle.rs` l0, `pollwake/` the poll-wakeup workload.
//! - `shape.rs`: what each cycle submits and must get back.
//! - `driver.rs`: warm-ups and rounds of cycles, the rows, the ledger.
//! - `run.rs`: a run from CPU choice to verdict; `contract.rs`: `describe`.

mod batch;
mod collect;
pub mod contract;
mod driver;
mod futex;
mod inject;
mod lifecycle;
mod output;
mod pollwake;
mod run;
mod setup;
mod shape;
mod wait_cancel;
mod wait_wake;
mod waitv_wake;
mod witnessed;

use core::fmt::Write;

pub use driver::Outcome;
pub use run::{choose_cpu, run, run_point};
pub use shape::{shape, Shape};

use crate::check::{Counter, Ledger, TOTALS};
use crate::config::{RunConfig, DEFAULT_SLOTS, WAITV_GROUPS};
use crate::cpu::Choice;
use crate::facts::Facts;
use crate::ring::Ring;
use crate::sys::clock::{Clock, ClockSource};
use crate::sys::uapi::*;

/// The workloads (`--profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileId {
    /// s0: 32 FUTEX_WAIT then 32 FUTEX_WAKE per cycle.
    WaitWake,
    /// c0: 32 FUTEX_WAIT then 32 ASYNC_CANCEL by user_data.
    WaitCancel,
    /// v0: 8 FUTEX_WAITV of 8 words, 8 WAKE at index 3, 8 check WAKE.
    WaitvWake,
    /// z0: 32 FUTEX_WAKE on words nobody waits on.
    ZeroWake,
    /// e0: 32 FUTEX_WAIT whose expected value differs from the word.
    Mismatch,
    /// n0: 32 NOP.
    Nop,
    /// l0: ring setup, one s0 cycle, close with a populated futex cache.
    Lifecycle,
    /// MSG_RING bursts into rings in no epoll set, an idle epoll set, and
    /// one a waiter thread polls.
    Pollwake,
}

/// A profile's names: short, long, and the formal reproducer's (banner,
/// TSV, describe); and its line in `--help`.
pub struct Names {
    pub short: &'static str,
    pub long: &'static str,
    pub formal: &'static str,
    pub help: &'static str,
}

impl ProfileId {
    pub const ALL: [ProfileId; 8] = [
        ProfileId::WaitWake,
        ProfileId::WaitCancel,
        ProfileId::WaitvWake,
        ProfileId::ZeroWake,
        ProfileId::Mismatch,
        ProfileId::Nop,
        ProfileId::Lifecycle,
        ProfileId::Pollwake,
    ];

    pub fn names(self) -> Names {
        let (short, long, formal, help) = match self {
            ProfileId::WaitWake => (
                "s0",
                "wait-wake",
                "s0_wait_wake",
                "32 FUTEX_WAIT, 32 FUTEX_WAKE (wait res 0, wake res 1)",
            ),
            ProfileId::WaitCancel => (
                "c0",
                "wait-cancel",
                "c0_wait_cancel",
                "32 FUTEX_WAIT, 32 ASYNC_CANCEL by user_data (-ECANCELED, 1)",
            ),
            ProfileId::WaitvWake => (
                "v0",
                "waitv-wake",
                "v0_waitv_wake",
                "8 WAITV x 8 words, WAKE index 3 (res 3, 1), check WAKE (0)",
            ),
            ProfileId::ZeroWake => (
                "z0",
                "zero-wake",
                "z0_zero_wake",
                "32 FUTEX_WAKE nobody waits on (res 0)",
            ),
            ProfileId::Mismatch => (
                "e0",
                "mismatch",
                "e0_mismatch",
                "32 FUTEX_WAIT on a changed value (res -EAGAIN)",
            ),
            ProfileId::Nop => ("n0", "nop", "n0_nop", "32 NOP (res 0)"),
            ProfileId::Lifecycle => (
                "l0",
                "lifecycle",
                "l0_lifecycle",
                "ring setup, one s0 cycle, close; stays 200 ms at the end",
            ),
            ProfileId::Pollwake => (
                "pollwake",
                "poll-wake",
                "pollwake",
                "MSG_RING bursts into rings in no epoll set, an idle epoll set \
                 and one a waiter thread polls: the poll-wakeup cost (docs/pollwake.md)",
            ),
        };
        Names {
            short,
            long,
            formal,
            help,
        }
    }

    /// The formal reproducer's name (banner, TSV `profile`, describe).
    pub fn formal_name(self) -> &'static str {
        self.names().formal
    }

    /// The profile a short, long or formal name means.
    pub fn parse(s: &[u8]) -> Option<ProfileId> {
        Self::ALL.into_iter().find(|p| {
            let n = p.names();
            [n.short, n.long, n.formal]
                .iter()
                .any(|n| n.as_bytes() == s)
        })
    }

    /// Whether `--shared` applies (the workload waits or wakes on futex
    /// words whose scope the maintainers' patches distinguish).
    pub fn has_futex_scope(self) -> bool {
        !matches!(
            self,
            ProfileId::Nop | ProfileId::Lifecycle | ProfileId::Pollwake
        )
    }

    /// Requests per cycle unless `--slots` says otherwise (v0: groups).
    pub fn default_slots(self) -> u32 {
        match self {
            ProfileId::WaitvWake => WAITV_GROUPS,
            _ => DEFAULT_SLOTS,
        }
    }

    /// The shape a run with `cfg` gives it (pollwake: a burst per cycle).
    pub fn shape(self, cfg: &RunConfig) -> Shape {
        match self {
            ProfileId::Pollwake => shape(self, cfg.burst),
            _ => shape(self, cfg.slots),
        }
    }

    /// Opcodes it needs, with their UAPI names, for the probe.
    pub fn opcodes(self) -> &'static [(u8, &'static str)] {
        const WAIT: (u8, &str) = (IORING_OP_FUTEX_WAIT, "IORING_OP_FUTEX_WAIT");
        const WAKE: (u8, &str) = (IORING_OP_FUTEX_WAKE, "IORING_OP_FUTEX_WAKE");
        const WAITV: (u8, &str) = (IORING_OP_FUTEX_WAITV, "IORING_OP_FUTEX_WAITV");
        const CANCEL: (u8, &str) = (IORING_OP_ASYNC_CANCEL, "IORING_OP_ASYNC_CANCEL");
        const NOP: (u8, &str) = (IORING_OP_NOP, "IORING_OP_NOP");
        const MSG_RING: (u8, &str) = (IORING_OP_MSG_RING, "IORING_OP_MSG_RING");
        match self {
            ProfileId::WaitWake | ProfileId::Lifecycle => &[WAIT, WAKE],
            ProfileId::WaitCancel => &[WAIT, CANCEL],
            ProfileId::WaitvWake => &[WAITV, WAKE],
            ProfileId::ZeroWake => &[WAKE],
            ProfileId::Mismatch => &[WAIT],
            ProfileId::Nop => &[NOP],
            ProfileId::Pollwake => &[MSG_RING, NOP],
        }
    }
}

/// What a cycle returns: the nanoseconds of its timed span, and whether it
/// was clean.
pub type Timed = (u64, bool);

/// What the banner, the summary and the verdict know of a run besides the
/// workload itself.
pub struct RunInfo<'r> {
    pub id: ProfileId,
    pub cfg: &'r RunConfig<'r>,
    pub shape: Shape,
    pub cpu: Choice,
    pub clock: ClockSource,
    pub facts: &'r Facts,
    /// io_uring_params of the run's ring, as the banner states them.
    pub ring_entries: u32,
    pub cq_entries: u32,
    pub features: u32,
    /// SHA-256 of the run's contract (`describe`): `input_sha256`.
    pub input_sha256: [u8; 32],
    /// `--witness`: `on` or `unavailable`, and what records (`events`,
    /// `events+functions`, `none`); None: not asked for.
    pub witness: Option<(&'static str, &'static str)>,
}

/// One workload: how a cycle runs and is checked, and what its output
/// says beyond the rows every workload prints. The defaults are the futex
/// workloads' output (the C standalone's table); pollwake has its own.
pub trait Workload {
    /// The row sets each round prints, in order: one plain table (`""`),
    /// or tagged rows (pollwake's modes: the rows' first column).
    fn series(&self) -> &'static [&'static str] {
        &[""]
    }

    /// The series the next cycles run (`series()` index), before each share.
    fn select(&mut self, _series: usize) {}

    /// Pairs (the unit of ns/pair) one cycle performs.
    fn pairs_per_cycle(&self) -> u64;

    /// Runs cycle `seq` on the run's ring (every failure is counted in
    /// `ledger`).
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed;

    /// At the end of every round's share: what the kernel reports of the
    /// rings the workload keeps beside the run's ring.
    fn account(&mut self, _ledger: &mut Ledger, _seq: u32) {}

    /// Once after the last round (l0 lingers; pollwake joins its waiter).
    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) {}

    /// Every banner line but the first, the facts included.
    fn banner(&self, w: &mut dyn Write, run: &RunInfo) {
        output::contract_banner(w, run);
    }

    /// The lines between the last row and the checks line.
    fn summary(&self, w: &mut dyn Write, o: &Outcome) {
        output::table_summary(w, o, self.pairs_per_cycle());
    }

    /// The checks line's totals, and the failure classes of the
    /// workload's own (`report::checks` puts the shared ones between).
    fn checks(&self) -> [&'static [Counter]; 2] {
        [&TOTALS, &[]]
    }

    /// The stderr line of a failed run.
    fn cause(&self, w: &mut dyn Write, o: &Outcome) {
        output::failed_cycle(w, o);
    }
}

/// Every workload, by value (no heap; one per run, so the variants' sizes
/// do not matter).
#[allow(clippy::large_enum_variant)]
pub enum Work {
    WaitWake(wait_wake::WaitWake),
    WaitCancel(wait_cancel::WaitCancel),
    WaitvWake(waitv_wake::WaitvWake),
    Batch(batch::Batch),
    Lifecycle(lifecycle::Lifecycle),
    Pollwake(pollwake::Pollwake),
}

impl Work {
    pub fn get(&mut self) -> &mut dyn Workload {
        match self {
            Work::WaitWake(w) => w,
            Work::WaitCancel(w) => w,
            Work::WaitvWake(w) => w,
            Work::Batch(w) => w,
            Work::Lifecycle(w) => w,
            Work::Pollwake(w) => w,
        }
    }
}

#[cfg(test)]
mod tests;
