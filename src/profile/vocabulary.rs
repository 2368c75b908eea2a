//! The words every workload and the round machinery share: what a workload
//! is (`Profile`, its `Names`, the options it `Takes`, its series (each a
//! `RowSet`), the kernel `Function`s the witness counts), what one of its
//! cycles submits and must get back (`Shape`), how it is set up and run
//! (`SetUp`, `Start`, the `Workload` trait), what its rounds produced
//! (`Outcome`), and a fault of the run's own (`Fault`). A leaf: it names
//! no other file of profile/, so a workload and the machinery can both
//! import it without importing each other.

use core::fmt::{self, Write};

use crate::check::{Counter, Expect, Kind, Ledger, KINDS};
use crate::config::{RunConfig, DEFAULT_SLOTS, MAX_ROUNDS, MAX_SLOTS};
use crate::cpu::Choice;
use crate::exit::Exit;
use crate::hist::Histogram;
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::*;
use crate::sys::{self, CpuSet, Errno};

/// What a workload is, before any of it runs: everything the rest of the
/// tool knows of it. Each workload's own file holds its `Profile`;
/// `ProfileId::ALL` lists them. Nothing else names a workload: the command
/// line, `--help`, the banner, `describe`, the witness and selftest read
/// these fields, and compare learns what it needs from the banner's
/// `# series:` lines.
///
/// In the order written (repr(C)): rustc's own order put `options` last,
/// past the short displacements, and the command line's reads of it cost
/// 55 bytes of code.
#[repr(C)]
pub struct Profile {
    pub names: Names,
    /// What one figure of its table is per: `per=` of its `# series:`
    /// lines ("WAIT/WAKE pair").
    pub per: &'static str,
    /// Probed before anything runs: a missing one is a skip naming it.
    pub opcodes: &'static [Opcode],
    /// The run options it takes, and the ring and futex words it runs on.
    pub options: RunOptions,
    /// What one cycle of a run with these options submits and must get
    /// back (pollwake: a burst).
    pub shape: fn(&RunConfig) -> Shape,
    /// The row sets each round prints, in that order (at most
    /// `MAX_SERIES`): one plain table, or rows tagged by series (pollwake's
    /// modes).
    pub series: &'static [RowSet],
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

/// The run options a workload takes, and what its run sets up beside its
/// requests (futex words, a ring of its own), which its contract states.
pub struct RunOptions {
    /// Requests per cycle unless `--slots` says otherwise, and the most
    /// `--slots` may ask (v0: WAITV groups, 1..=8).
    pub default_slots: u32,
    pub max_slots: u32,
    /// The run options it takes beyond those every workload takes.
    pub takes: &'static [Takes],
    /// It maps futex words, whose scope its banner and contract state
    /// (`futex=`): private, or shared where it takes `--shared`.
    pub futex_words: bool,
    /// The ring its cycles run on in place of the run's, which its
    /// contract states (q0's SQPOLL ring, g0's DEFER_TASKRUN ring); None:
    /// the run's own.
    pub own_ring: Option<OwnRing>,
}

impl RunOptions {
    /// Most workloads': `--slots` alone (DEFAULT_SLOTS requests a cycle,
    /// at most MAX_SLOTS), no futex words, the run's own ring.
    pub const SLOTS: RunOptions = RunOptions {
        default_slots: DEFAULT_SLOTS,
        max_slots: MAX_SLOTS,
        takes: &[Takes::Slots],
        futex_words: false,
        own_ring: None,
    };
    /// The futex workloads': futex words, `--slots`, `--shared` and
    /// `--tsv` (the formal reproducer's rows).
    pub const FUTEX: RunOptions = RunOptions {
        takes: &[Takes::Slots, Takes::Shared, Takes::Tsv],
        futex_words: true,
        ..RunOptions::SLOTS
    };
}

/// A ring a workload sets up for its cycles in place of the run's: the
/// io_uring_setup flags it adds to CQSIZE, their names as its contract
/// states them (`setup_flags=`), and with IORING_SETUP_SQPOLL its SQ
/// thread's idle time (`sq_thread_idle_ms=`; its CPU, `sq_thread_cpu=`, is
/// parts/setup.rs's choice). Its sizes are the run's ring's (64, CQ 128).
pub struct OwnRing {
    pub flags: u32,
    pub names: &'static str,
    pub sq_thread_idle_ms: u32,
}

impl OwnRing {
    /// It has an SQ thread (IORING_SETUP_SQPOLL).
    pub fn polled(&self) -> bool {
        self.flags & IORING_SETUP_SQPOLL != 0
    }
}

/// A run option only some workloads take (`RunOptions::takes`); every other
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
pub struct RowSet {
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

impl RowSet {
    /// A workload's only series: its formal name, in kernel words.
    pub const fn only(name: &'static str, about: &'static str) -> RowSet {
        RowSet {
            name,
            mode: None,
            about,
        }
    }
}

/// Most series a workload has (pollwake's four modes): what the cost markers
/// can name.
pub const MAX_SERIES: usize = sys::COST_SERIES;

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
pub const SPLICE: Opcode = (IORING_OP_SPLICE, "IORING_OP_SPLICE");
pub const FSYNC: Opcode = (IORING_OP_FSYNC, "IORING_OP_FSYNC");
pub const FALLOCATE: Opcode = (IORING_OP_FALLOCATE, "IORING_OP_FALLOCATE");
pub const FADVISE: Opcode = (IORING_OP_FADVISE, "IORING_OP_FADVISE");
pub const MADVISE: Opcode = (IORING_OP_MADVISE, "IORING_OP_MADVISE");
pub const STATX: Opcode = (IORING_OP_STATX, "IORING_OP_STATX");
pub const FTRUNCATE: Opcode = (IORING_OP_FTRUNCATE, "IORING_OP_FTRUNCATE");
pub const SYNC_FILE_RANGE: Opcode = (IORING_OP_SYNC_FILE_RANGE, "IORING_OP_SYNC_FILE_RANGE");

// What one cycle of a workload submits and must get back: the checks,
// `describe` and the TSV all read it from the workload's `Profile::shape`.
//
// Results the live kernel gives (6.18; the live tests of profile/ and
// tests/workloads.rs check them):
// - FUTEX_WAIT: 0 when woken, -EAGAIN (-11) when the word differs from the
//   expected value, -ECANCELED (-125) when cancelled.
// - FUTEX_WAKE: the number of waiters woken (0 when nobody waits).
// - FUTEX_WAITV: the index of the entry that was woken (3 for v0).
// - ASYNC_CANCEL by user_data of a pending futex wait: 1 (the one request
//   it found and cancelled); -ENOENT (-2) when nothing matches.
// - NOP: 0.

/// -ECANCELED: a FUTEX_WAIT ended by ASYNC_CANCEL.
pub const RES_CANCELED: i32 = -Errno::ECANCELED.0;
/// -EAGAIN: a FUTEX_WAIT whose word did not hold the expected value.
pub const RES_AGAIN: i32 = -Errno::EAGAIN.0;
/// ASYNC_CANCEL by user_data of one pending futex wait: one request found.
pub const RES_CANCEL_FOUND: i32 = 1;

/// What one cycle of a workload submits and must get back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Requests of the main kind per cycle (v0: FUTEX_WAITV groups).
    pub slots: u32,
    /// Futex words per wait request (v0: 8, everything else 1).
    pub vector_width: u32,
    /// The unit of ns/pair per cycle: WAIT/WAKE (or WAIT/CANCEL, WAITV/WAKE)
    /// pairs; single requests for z0, e0 and n0.
    pub pairs: u64,
    /// The CQEs a cycle must produce, per kind (count and res).
    pub expect: [Expect; KINDS],
}

impl Shape {
    /// `slots` requests (each a pair of ns/pair) of one word each, and no
    /// CQE expected yet.
    pub fn new(slots: u32) -> Shape {
        Shape {
            slots,
            vector_width: 1,
            pairs: slots as u64,
            expect: [Expect::default(); KINDS],
        }
    }

    /// This shape, with `count` CQEs of `kind` a cycle, each with `res`.
    pub fn with(mut self, kind: Kind, count: u32, res: i32) -> Shape {
        self.expect[kind as usize] = Expect { count, res };
        self
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

/// One workload: how a cycle runs and is checked, and whether its output
/// has lines of its own beyond the rows every workload prints.
pub trait Workload {
    /// The series the next cycles run (`Profile::series` index), before
    /// each share.
    fn select(&mut self, _series: usize) {}

    /// Runs cycle `seq` on the run's ring (every failure is counted in
    /// `ledger`).
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed;

    /// At the end of every round's share: what the kernel reports of the
    /// rings the workload keeps beside the run's ring.
    fn account(&mut self, _ledger: &mut Ledger, _seq: u32) {}

    /// Once after the last round (l0 lingers; pollwake joins its waiter),
    /// before the summary: gives back what it changed of the process (a0
    /// its scheduling policy). Err: a fault of its own, which fails the run.
    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) -> Result<(), Fault> {
        Ok(())
    }

    /// Lines of its own after the futex workloads' summary, before the
    /// checks line (q0: how often its SQ thread had to be woken); not
    /// asked of a workload with its own output.
    fn remarks(&self, _w: &mut dyn Write) {}

    /// Its own output around the rows (pollwake's); None: the futex
    /// workloads' output, the C standalone's table.
    fn own_output(&self) -> Option<&dyn OwnOutput> {
        None
    }
}

/// A workload's own output, in place of the C standalone's table around
/// the rows (`Workload::own_output`).
pub trait OwnOutput {
    /// Lines after the banner's contract line (pollwake: its modes).
    fn after_contract_line(&self, w: &mut dyn Write);

    /// Lines after the banner's facts (pollwake: its eventfd pass).
    fn after_banner(&self, w: &mut dyn Write);

    /// The lines between the last row and the checks line.
    fn summary(&self, w: &mut dyn Write, o: &Outcome);

    /// The stderr line of a failed run.
    fn cause(&self, w: &mut dyn Write, o: &Outcome);
}

/// What a run changes of the process it runs in, and gives back when it
/// ends, so that a later run in the same process (a suite's next item,
/// calibrate's next point, selftest's next workload) finds it as this run
/// found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// The thread's CPUs: every run pins it to one (sched_setaffinity).
    Cpus,
    /// The thread's scheduling policy: a0 runs under SCHED_BATCH
    /// (sched_setscheduler).
    Policy,
}

/// A fault of the run's own, not the kernel's io_uring (whose failures
/// the ledger counts): a system call the run needs, so that its point is
/// the point it states, failed. The run fails naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// getcpu failed: whether the run stayed on its CPU is unknown.
    Getcpu(Errno),
    /// What the run changed of its process could not be given back.
    NotGivenBack(Changed, Errno),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Fault::Getcpu(e) => write!(
                f,
                "getcpu failed: {e}: whether the run stayed on its CPU is unknown"
            ),
            Fault::NotGivenBack(Changed::Cpus, e) => write!(
                f,
                "sched_setaffinity failed: {e}: the thread keeps the one CPU the run pinned it to"
            ),
            Fault::NotGivenBack(Changed::Policy, e) => write!(
                f,
                "sched_setscheduler failed: {e}: the thread keeps the policy SCHED_BATCH"
            ),
        }
    }
}

/// The measured rows of one series.
#[derive(Clone)]
pub struct Rows {
    ns_per_pair: [f64; MAX_ROUNDS as usize],
    rounds: usize,
    pub total_ns: u64,
    pub total_pairs: u64,
}

impl Rows {
    pub const fn new() -> Rows {
        Rows {
            ns_per_pair: [0.0; MAX_ROUNDS as usize],
            rounds: 0,
            total_ns: 0,
            total_pairs: 0,
        }
    }

    /// Adds the row of a measured share: `timed_ns` over its `pairs`.
    pub fn add(&mut self, timed_ns: u64, pairs: u64) {
        self.ns_per_pair[self.rounds] = timed_ns as f64 / pairs as f64;
        self.rounds += 1;
        self.total_ns += timed_ns;
        self.total_pairs += pairs;
    }

    /// Each measured round's ns/pair.
    pub fn per_round(&self) -> &[f64] {
        &self.ns_per_pair[..self.rounds]
    }

    /// Measured rounds with a row.
    pub fn rounds(&self) -> u32 {
        self.rounds as u32
    }

    /// The mean row's value: total ns over total pairs.
    pub fn mean(&self) -> f64 {
        self.total_ns as f64 / self.total_pairs.max(1) as f64
    }
}

/// What the rounds produced.
pub struct Outcome {
    pub ledger: Ledger,
    /// The workload's series (`Profile::series`): the row sets of a round.
    pub series: &'static [RowSet],
    /// The pairs one cycle performs (`Shape::pairs`), the unit of ns/pair.
    pub pairs: u64,
    /// Per series, in that order.
    pub rows: [Rows; MAX_SERIES],
    /// Per-cycle ns of the measured shares.
    pub hist: Histogram,
    /// The signal (SIGINT, SIGTERM) that ended the run early; 0: none.
    pub interrupted: u32,
    /// The series whose share failed (the run's first failure is in it).
    pub failed_series: Option<usize>,
    /// stdout failed with rounds still to run: they were not run.
    pub stdout_cut: bool,
    /// The run's own fault, the first (the rounds end at a failed getcpu).
    pub fault: Option<Fault>,
}

impl Outcome {
    /// Nothing of `series` run yet, each cycle `pairs` pairs; `ledger`
    /// holds what the set-up checked already.
    pub fn new(ledger: Ledger, series: &'static [RowSet], pairs: u64) -> Outcome {
        Outcome {
            ledger,
            series,
            pairs,
            rows: [const { Rows::new() }; MAX_SERIES],
            hist: Histogram::default(),
            interrupted: 0,
            failed_series: None,
            stdout_cut: false,
            fault: None,
        }
    }

    /// No check failed, and the run had no fault of its own.
    pub fn passed(&self) -> bool {
        self.ledger.passed() && self.fault.is_none()
    }

    /// Measured rounds every series finished.
    pub fn complete_rounds(&self) -> u32 {
        let rows = self
            .rows
            .iter()
            .take(self.series.len().clamp(1, MAX_SERIES));
        rows.map(Rows::rounds).min().unwrap_or(0)
    }

    /// `mean`, or `partial` when a signal ended the run before its rounds
    /// were done (the row's label on stdout, so it cannot pass for a point).
    pub fn mean_label(&self) -> &'static str {
        if self.interrupted != 0 {
            "partial"
        } else {
            "mean"
        }
    }
}
