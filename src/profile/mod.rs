//! The workloads, and the one driver that runs them all.
//!
//! - One file per workload holds all of it: its `Profile` and its
//!   `Workload` (the cycle). `wait_wake.rs`: s0, the report's cycle (start
//!   reading here); `wait_cancel.rs` c0, `waitv_wake.rs` v0, `batch.rs` z0
//!   e0 n0, `lifecycle.rs` l0, `pollwake/` the poll-wakeup workload; then
//!   a workload per hot path of io_uring: `nop_async.rs` a0 (the io-wq
//!   punt), `rw_pipe.rs` r0 (READ/WRITE), `poll_add.rs` p0 (a poll woken),
//!   `timeout_count.rs` t0, `msg_ring.rs` m0, `send_recv.rs` u0 (the net
//!   path), `link_chain.rs` k0 (IOSQE_IO_LINK); `stream.rs` is r0's and
//!   u0's cycle.
//! - A new workload is a new file, its `mod` line and its line in
//!   `ProfileId::ALL`, and nothing else: the command line, `--help`, the
//!   banner, `describe`, the witness and selftest read its `Profile`, and
//!   compare, report and the mail its point's `# series:` lines. The file
//!   holds a `static` `Profile` (every field is required: its names and
//!   help line, what a figure is per, the opcodes to probe, its slots, the
//!   options it takes beyond every workload's, whether it has futex words,
//!   its shape, its series in kernel words, its kernel functions with the
//!   hits each must show, its checks line's counters, its set-up) and a
//!   `Workload` whose `cycle` runs one cycle, most simply with
//!   `cycle.rs`'s frame. (A new opcode is more: its encoder in ops.rs, its
//!   request `Kind` in check.rs, its kernel name in witnessed.rs.)
//! - `shape.rs`: the form of what a cycle submits and must get back;
//!   `cycle.rs`: the frame of a cycle made of batches (every workload's
//!   but l0's and pollwake's), `collect.rs` what it does with each;
//!   `setup.rs`: the rings a run sets up, and `CyclePlan`, what a
//!   workload keeps of its shape.
//! - `driver.rs`: warm-ups and rounds of cycles, the rows, the ledger.
//! - `run.rs`: a run from CPU choice to verdict; `output.rs`: the banner;
//!   `contract.rs`: the contract (`describe`, `input_sha256`);
//!   `witnessed.rs`: the witness.

mod batch;
mod collect;
pub mod contract;
mod cycle;
mod driver;
mod futex;
mod inject;
mod lifecycle;
mod link_chain;
mod msg_ring;
mod nop_async;
mod output;
mod poll_add;
mod pollwake;
mod run;
mod rw_pipe;
mod send_recv;
mod setup;
mod shape;
mod span;
mod stream;
mod timeout_count;
mod wait_cancel;
mod wait_wake;
mod waitv_wake;
mod witnessed;

use core::fmt::{self, Write};

pub use driver::{Outcome, Rows};
pub use run::{choose_cpu, run, run_point};
pub use shape::Shape;

use crate::check::{Counter, Kind, Ledger};
use crate::config::RunConfig;
use crate::cpu::Choice;
use crate::exit::Exit;
use crate::facts::Facts;
use crate::ring::Ring;
use crate::sys::clock::{Clock, ClockSource};
use crate::sys::uapi::*;
use crate::sys::CpuSet;

/// What a workload is, before any of it runs: everything the rest of the
/// tool knows of it. Each workload's own file holds its `Profile`;
/// `ProfileId::ALL` lists them. Nothing else names a workload: the command
/// line, `--help`, the banner, `describe`, the witness and selftest read
/// these fields, and compare learns what it needs from the banner's
/// `# series:` lines.
pub struct Profile {
    pub names: Names,
    /// What one figure of its table is per: `per=` of its `# series:`
    /// lines ("WAIT/WAKE pair").
    pub per: &'static str,
    /// Probed before anything runs: a missing one is a skip naming it.
    pub opcodes: &'static [Opcode],
    /// Requests per cycle unless `--slots` says otherwise, and the most
    /// `--slots` may ask (v0: WAITV groups, 1..=8).
    pub default_slots: u32,
    pub max_slots: u32,
    /// The run options it takes beyond those every workload takes.
    pub takes: &'static [Takes],
    /// It maps futex words, whose scope its banner and contract state
    /// (`futex=`): private, or shared where it takes `--shared`.
    pub futex_words: bool,
    /// What one cycle of a run with these options submits and must get
    /// back (pollwake: a burst).
    pub shape: fn(&RunConfig) -> Shape,
    /// The row sets each round prints, in that order (at most
    /// `MAX_SERIES`): one plain table, or rows tagged by series (pollwake's
    /// modes).
    pub series: &'static [Series],
    /// Its requests of these kinds are punted to io-wq (IOSQE_ASYNC): the
    /// witness expects one `io_uring_queue_async_work` event of each, and
    /// none of any other.
    pub punted: &'static [Kind],
    /// Its kernel functions, for the witness, each with the hits it must
    /// show.
    pub functions: &'static [Function],
    /// Its checks line (`render::checks`): the totals (CQEs in all, then
    /// by kind), and after the failure classes every workload shows, the
    /// classes of its own (pollwake's).
    pub totals: &'static [Counter],
    pub failures: &'static [Counter],
    /// Sets it up on the run's ring and runs the rest of the run with it.
    pub start: Start,
}

/// A run option only some workloads take (`Profile::takes`); every other
/// run option applies to every workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// `--slots`: requests of the main kind per cycle.
    Slots,
    /// `--shared`: futex words without FUTEX2_PRIVATE.
    Shared,
    /// `--tsv`: the formal reproducer's rows, one row a round.
    Tsv,
    /// `--burst`, `--waiter-cpu`, `--ring-flags`: pollwake's.
    Burst,
    WaiterCpu,
    RingFlags,
}

/// One row set of a workload's table, a share of every round.
pub struct Series {
    /// The name its rows have: the workload's formal name for its only
    /// series, else the rows' first column (`pollwake_idle`).
    pub name: &'static str,
    /// The `compare --mode` word that selects it among several (None: the
    /// workload's only series).
    pub mode: Option<&'static str>,
    /// The workload in kernel words, a subject a maintainer recognises
    /// ("io_uring futex WAIT/WAKE"): `about=` of its `# series:` line.
    pub about: &'static str,
}

impl Series {
    /// A workload's only series: its formal name, in kernel words.
    pub const fn only(name: &'static str, about: &'static str) -> Series {
        Series {
            name,
            mode: None,
            about,
        }
    }
}

/// A kernel function the witness counts, and the hits it must show.
pub struct Function {
    pub name: &'static str,
    pub hits: Hits,
}

/// The hits a kernel function must show in the rounds a ledger counts:
/// from the requests submitted and the CQEs checked, never a constant.
pub enum Hits {
    /// Once per request of these kinds the kernel accepted.
    PerRequest(&'static [Kind]),
    /// Once per checked CQE of this kind.
    PerCqe(Kind),
    /// Never: the workload's requests do not reach it.
    Never,
}

impl Function {
    /// `name`, hit once per request of `kinds`.
    pub const fn per_request(name: &'static str, kinds: &'static [Kind]) -> Function {
        Function {
            name,
            hits: Hits::PerRequest(kinds),
        }
    }

    /// The hits the rounds `l` counts must give it.
    pub fn hits(&self, l: &Ledger) -> u64 {
        match self.hits {
            Hits::PerRequest(kinds) => kinds.iter().map(|&k| l.requests(k)).sum(),
            Hits::PerCqe(k) => l.kind(k),
            Hits::Never => 0,
        }
    }
}

/// A profile's names: short, long, and the formal reproducer's (banner,
/// TSV, describe); and its line in `--help`.
pub struct Names {
    pub short: &'static str,
    pub long: &'static str,
    pub formal: &'static str,
    pub help: &'static str,
}

/// An opcode a workload needs, and its UAPI name.
pub type Opcode = (u8, &'static str);

pub const FUTEX_WAIT: Opcode = (IORING_OP_FUTEX_WAIT, "IORING_OP_FUTEX_WAIT");
pub const FUTEX_WAKE: Opcode = (IORING_OP_FUTEX_WAKE, "IORING_OP_FUTEX_WAKE");
pub const FUTEX_WAITV: Opcode = (IORING_OP_FUTEX_WAITV, "IORING_OP_FUTEX_WAITV");
pub const ASYNC_CANCEL: Opcode = (IORING_OP_ASYNC_CANCEL, "IORING_OP_ASYNC_CANCEL");
pub const NOP: Opcode = (IORING_OP_NOP, "IORING_OP_NOP");
pub const MSG_RING: Opcode = (IORING_OP_MSG_RING, "IORING_OP_MSG_RING");
pub const READ: Opcode = (IORING_OP_READ, "IORING_OP_READ");
pub const WRITE: Opcode = (IORING_OP_WRITE, "IORING_OP_WRITE");
pub const POLL_ADD: Opcode = (IORING_OP_POLL_ADD, "IORING_OP_POLL_ADD");
pub const TIMEOUT: Opcode = (IORING_OP_TIMEOUT, "IORING_OP_TIMEOUT");
pub const SEND: Opcode = (IORING_OP_SEND, "IORING_OP_SEND");
pub const RECV: Opcode = (IORING_OP_RECV, "IORING_OP_RECV");

/// The workload a run runs (`--profile`): one of `ALL`.
#[derive(Clone, Copy)]
pub struct ProfileId(&'static Profile);

impl ProfileId {
    /// Every workload, in the order `--help` and `selftest` list them.
    pub const ALL: [ProfileId; 15] = [
        ProfileId(&wait_wake::S0),
        ProfileId(&wait_cancel::C0),
        ProfileId(&waitv_wake::V0),
        ProfileId(&batch::Z0),
        ProfileId(&batch::E0),
        ProfileId(&batch::N0),
        ProfileId(&lifecycle::L0),
        ProfileId(&pollwake::POLLWAKE),
        ProfileId(&nop_async::A0),
        ProfileId(&rw_pipe::R0),
        ProfileId(&poll_add::P0),
        ProfileId(&timeout_count::T0),
        ProfileId(&msg_ring::M0),
        ProfileId(&send_recv::U0),
        ProfileId(&link_chain::K0),
    ];
    /// The report's workload, the default.
    pub const S0: ProfileId = ProfileId(&wait_wake::S0);

    /// Everything the workload is.
    pub fn profile(self) -> &'static Profile {
        self.0
    }

    pub fn names(self) -> &'static Names {
        &self.0.names
    }

    /// The formal reproducer's name (banner, TSV `profile`, describe).
    pub fn formal_name(self) -> &'static str {
        self.0.names.formal
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

    /// Whether it takes run option `t`.
    pub fn takes(self, t: Takes) -> bool {
        self.0.takes.contains(&t)
    }

    /// Requests per cycle unless `--slots` says otherwise (v0: groups).
    pub fn default_slots(self) -> u32 {
        self.0.default_slots
    }

    /// Its rows are tagged by series (a table of several: pollwake's).
    pub fn tagged(self) -> bool {
        self.0.series.len() > 1
    }

    /// The shape a run with `cfg` gives it.
    pub fn shape(self, cfg: &RunConfig) -> Shape {
        (self.0.shape)(cfg)
    }

    /// Every workload in `ALL`'s order, each followed by its shared-futex
    /// variant where it takes `--shared`: (workload, shared).
    pub fn variants() -> impl Iterator<Item = (ProfileId, bool)> {
        let scopes = |id: ProfileId| {
            [(id, false), (id, true)]
                .into_iter()
                .take(1 + id.takes(Takes::Shared) as usize)
        };
        Self::ALL.into_iter().flat_map(scopes)
    }
}

/// Two ids are the same when they name the same workload.
impl PartialEq for ProfileId {
    fn eq(&self, other: &ProfileId) -> bool {
        self.formal_name() == other.formal_name()
    }
}

impl Eq for ProfileId {}

impl fmt::Debug for ProfileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.formal_name())
    }
}

/// What a workload's set-up is given, besides the run's ring.
pub struct SetUp<'s> {
    pub cfg: &'s RunConfig<'s>,
    /// What a cycle submits and must get back, `Profile::shape` of `cfg`.
    pub shape: Shape,
    pub cpu: Choice,
    /// The CPUs this process may use.
    pub allowed: &'s CpuSet,
}

/// A workload's set-up: every reason it cannot start is an `Err` (an exit
/// code and one line); once it stands, it runs `Then` with the workload,
/// the run's ring and the ledger of what the set-up checked, and returns
/// what that returns. The workload lives in the set-up's frame (no heap).
pub type Start = fn(&SetUp, &mut Ring, &mut Ledger, Then) -> Result<Exit, Exit>;

/// The rest of a run, once its workload stands.
pub type Then<'t> =
    &'t mut dyn FnMut(&mut dyn Workload, &mut Ring, &mut Ledger) -> Result<Exit, Exit>;

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

impl RunInfo<'_> {
    /// The run's contract.
    pub fn contract(&self) -> contract::Contract<'_, '_> {
        contract::Contract {
            id: self.id,
            cfg: self.cfg,
            cpu: self.cpu.cpu(),
        }
    }
}

/// One workload: how a cycle runs and is checked, and what its output
/// says beyond the rows every workload prints. The defaults are the futex
/// workloads' output (the C standalone's table); pollwake has its own.
pub trait Workload {
    /// The series the next cycles run (`Profile::series` index), before
    /// each share.
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

    /// The banner lines, the facts included.
    fn banner(&self, w: &mut dyn Write, run: &RunInfo) {
        output::banner(w, run, &|_| {});
    }

    /// The lines between the last row and the checks line.
    fn summary(&self, w: &mut dyn Write, o: &Outcome) {
        output::table_summary(w, o, self.pairs_per_cycle());
    }

    /// The stderr line of a failed run.
    fn cause(&self, w: &mut dyn Write, o: &Outcome) {
        output::failed_cycle(w, o);
    }
}

#[cfg(test)]
mod tests;
