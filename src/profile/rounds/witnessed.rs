//! A run's witness (`--witness`): opened before the workload's set-up,
//! tracing during the rounds, and after the checks line its lines and its
//! verdict (`RunWitness`). What the kernel must have seen is derived from the
//! run's own counts (the ledger's submitted requests and checked CQEs of
//! the traced rounds), never from constants: warm-ups, rounds and slots
//! all count.
//!
//! The kernel functions each workload names, and the hits each must show,
//! are its `Profile::functions` (the futex ones in futex.rs).

use core::fmt::Write;

use crate::check::{Kind, Ledger, KINDS};
use crate::config::{self, RunConfig};
use crate::exit::{self, Exit};
use crate::profile::parts::setup;
use crate::profile::registry::ProfileId;
use crate::profile::vocabulary::{OwnRing, Profile, Shape};
use crate::profile::workloads::msg_ring;
use crate::render::{self, Bytes, Line};
use crate::sys;
use crate::sys::out::Out;
use crate::tsv::{self, TsvFile};
use crate::witness::{self, Instance, Wanted};

/// The kernel's name of the opcode a kind's requests use (io_uring/opdef.c
/// `.name`); None: no request of its own (pollwake's target CQEs).
fn opcode(k: Kind) -> Option<&'static str> {
    Some(match k {
        Kind::Wait => "FUTEX_WAIT",
        Kind::Waitv => "FUTEX_WAITV",
        Kind::Wake | Kind::Check => "FUTEX_WAKE",
        Kind::Cancel => "ASYNC_CANCEL",
        Kind::Nop | Kind::Link => "NOP",
        Kind::Source => "MSG_RING",
        Kind::Read => "READ",
        Kind::Write => "WRITE",
        Kind::Poll => "POLL_ADD",
        Kind::Timeout => "TIMEOUT",
        Kind::Send => "SEND",
        Kind::Recv => "RECV",
        Kind::Splice => "SPLICE",
        Kind::Fsync => "FSYNC",
        Kind::Fallocate => "FALLOCATE",
        Kind::Fadvise => "FADVISE",
        Kind::Madvise => "MADVISE",
        Kind::Statx => "STATX",
        Kind::Ftruncate => "FTRUNCATE",
        Kind::SyncRange => "SYNC_FILE_RANGE",
        Kind::Target => return None,
    })
}

/// Most events (io_uring) and function hits a run of `profile` with
/// `shape` records in `cycles` cycles in all (every series, warm-ups
/// included).
pub fn bound(profile: &Profile, shape: &Shape, cycles: u64) -> (u64, u64) {
    // One clean cycle: every expected CQE's request submitted and checked
    // (pollwake's target CQEs count as requests too: a bound, not a count).
    let mut one = Ledger::default();
    for k in Kind::ALL {
        let n = shape.expect[k as usize].count as u64;
        one.submitted[k as usize] = n;
        one.kind_cqes[k as usize] = n;
    }
    let requests: u64 = one.submitted.iter().sum();
    let punted: u64 = profile.punted.iter().map(|&k| one.requests(k)).sum();
    let hits: u64 = profile.functions.iter().map(|f| f.hits(&one)).sum();
    // A submission and a completion per request, the punted ones queued
    // to io-wq too, and each function's hits.
    ((2 * requests + punted) * cycles, hits * cycles)
}

/// What the kernel must have seen of the rounds of `profile` (with
/// `shape`) that `l` counts.
pub fn wanted(profile: &Profile, shape: &Shape, l: &Ledger) -> Wanted {
    let mut e = Wanted::default();
    let sub = |k: Kind| l.submitted[k as usize];
    for k in Kind::ALL {
        if let Some(op) = opcode(k) {
            if sub(k) > 0 || shape.expect[k as usize].count > 0 {
                e.submit(op, sub(k));
            }
        }
    }
    // Every CQE consumed was checked against its kind's result, so the
    // kernel's results are the kinds' (pollwake's target CQEs each carry
    // their own message's value). CQEs that failed a check fail the run
    // anyway; they are counted with their kind's expected result here.
    let mut by_kind = [0u64; KINDS];
    by_kind.copy_from_slice(&l.kind_cqes);
    let unchecked = l.cqes - by_kind.iter().sum::<u64>().min(l.cqes);
    for k in Kind::ALL {
        let n = by_kind[k as usize];
        if n == 0 {
            continue;
        }
        if k == Kind::Target {
            // Cycles (bursts) count from seq 0 in the traced rounds.
            let zeros = msg_ring::zero_values(sub(Kind::Source) / shape.slots.max(1) as u64);
            e.result(0, zeros.min(n));
            e.varied(n - zeros.min(n));
        } else {
            e.result(shape.expect[k as usize].res, n);
        }
    }
    if unchecked > 0 {
        e.varied(unchecked);
    }
    e.async_work = profile.punted.iter().map(|&k| sub(k)).sum();
    for f in profile.functions {
        e.function(f.name, f.hits(l));
    }
    e
}

/// The names of a workload's kernel functions (the first MAX_FUNCTIONS:
/// the tests hold every workload to that many).
fn function_names(profile: &Profile) -> FunctionNames {
    let mut names = [""; witness::MAX_FUNCTIONS];
    for (n, f) in names.iter_mut().zip(profile.functions) {
        *n = f.name;
    }
    (names, profile.functions.len().min(witness::MAX_FUNCTIONS))
}

/// A workload's function names, and how many there are.
type FunctionNames = ([&'static str; witness::MAX_FUNCTIONS], usize);

/// What the witness of a run of `id` with `cfg` watches: the most it
/// records in every cycle of every series, warm-ups included, of the
/// functions `names`.
fn watch<'n>(
    id: ProfileId,
    cfg: &RunConfig,
    cpu: u32,
    names: &'n FunctionNames,
) -> witness::Watch<'n> {
    let profile = id.profile();
    let series = profile.series.len() as u64;
    let cycles = (cfg.warmups + cfg.rounds) as u64 * cfg.cycles as u64 * series;
    let (events, function_hits) = bound(profile, &id.shape(cfg), cycles);
    witness::Watch {
        pid: sys::getpid(),
        cpu,
        events,
        function_hits,
        functions: &names.0[..names.1],
    }
}

/// The witness of a run: not asked for, asked for and refused (why), or
/// a live trace instance and what the run's workload must make the kernel
/// record (one per run, by value: no heap).
#[allow(clippy::large_enum_variant)]
pub enum RunWitness {
    Off,
    Unavailable(Line),
    On {
        instance: Instance,
        profile: &'static Profile,
        shape: Shape,
    },
}

impl RunWitness {
    /// `--witness`: the run's trace instance, armed, tracing off, its
    /// buffer sized for every cycle of every series. A run that cannot be
    /// witnessed is a skip naming why (`--witness=optional`: it runs,
    /// unwitnessed, and says so).
    pub fn open(id: ProfileId, cfg: &RunConfig, cpu: u32) -> Result<RunWitness, Exit> {
        if cfg.witness == config::Witness::Off {
            return Ok(RunWitness::Off);
        }
        let names = function_names(id.profile());
        let made = match apart(id.profile(), cpu) {
            Some(why) => Err(why),
            None => Instance::create(&watch(id, cfg, cpu, &names)),
        };
        match made {
            Ok(instance) => Ok(RunWitness::On {
                instance,
                profile: id.profile(),
                shape: id.shape(cfg),
            }),
            Err(why) if cfg.witness == config::Witness::Optional => {
                Ok(RunWitness::Unavailable(why))
            }
            Err(why) => Err(Exit::new(
                exit::SKIP,
                format_args!("--witness: this run cannot be witnessed: {why}"),
            )),
        }
    }

    /// The banner's `witness=` words (None: not asked for).
    pub fn banner(&self) -> Option<(&'static str, &'static str)> {
        match self {
            RunWitness::Off => None,
            RunWitness::Unavailable(_) => Some(("unavailable", "none")),
            RunWitness::On { instance, .. } => Some(("on", instance.sources())),
        }
    }

    /// Tracing on, just before the first round (outside every timed span).
    pub fn start(&mut self) {
        if let RunWitness::On { instance, .. } = self {
            let _ = instance.start();
        }
    }

    /// Tracing off, just after the last round.
    pub fn stop(&mut self) {
        if let RunWitness::On { instance, .. } = self {
            let _ = instance.stop();
        }
    }

    /// The kernel's account of the rounds that `window` counts, settled
    /// before the checks line: judged, the witness's TSV row written (so the
    /// checks line knows whether the `--tsv` file took every row), the
    /// instance removed. Its lines are printed after the checks line
    /// (`Account::print`).
    pub fn settle(
        &mut self,
        window: &Ledger,
        interrupted: bool,
        tsv: Option<(&mut TsvFile, &tsv::Context)>,
    ) -> Account {
        let mut a = Account {
            lines: [const { Text::new() }; 5],
            verdict: Ok(()),
        };
        let [expected, unparsed, events, functions, removal] = &mut a.lines;
        let (i, profile, shape) = match self {
            RunWitness::Off => return a,
            RunWitness::Unavailable(why) => {
                let _ = write!(events, "unavailable: {why}");
                return a;
            }
            RunWitness::On {
                instance,
                profile,
                shape,
            } => (instance, *profile, &*shape),
        };
        a.verdict = if interrupted {
            let _ = write!(events, "not judged: the run was interrupted");
            Ok(())
        } else {
            let e = wanted(profile, shape, window);
            judge(i, &e, [events, functions], [expected, unparsed])
        };
        match i.remove() {
            Ok(()) => {
                let _ = write!(removal, "removed {} tracing=off", Bytes(i.dir()));
            }
            Err(e) => {
                let _ = write!(removal, "NOT removed: {}: {e}", Bytes(i.dir()));
                a.verdict = a
                    .verdict
                    .and(Err("its trace instance could not be removed"));
            }
        }
        if let Some((file, ctx)) = tsv {
            let row = tsv::Row {
                phase: "witness",
                round: 0,
                cycles: 0,
                pairs: 0,
                timed_ns: 0,
                pass: a.verdict.is_ok(),
                counts: &Ledger::default(),
                witness: [events.as_bytes(), functions.as_bytes()],
            };
            file.row(ctx, &row);
        }
        a
    }
}

/// Why a run of `profile` pinned to `cpu` cannot be witnessed, if it
/// cannot: its SQ thread submits on another CPU (q0 on a box of two CPUs
/// or more), where the witness neither sizes a buffer nor expects events.
fn apart(profile: &Profile, cpu: u32) -> Option<Line> {
    let polled = profile
        .options
        .own_ring
        .as_ref()
        .is_some_and(OwnRing::polled);
    let sq = setup::sq_thread_cpu(cpu);
    (polled && sq != cpu).then(|| {
        let mut why = Line::new();
        let _ = write!(
            why,
            "its SQ thread submits on CPU {sq}, and the witness counts CPU {cpu}'s events alone"
        );
        why
    })
}

/// A settled witness: its lines, in the order they are printed (on a
/// mismatch the expected counts and the first trace line not understood,
/// then the events, the functions, the instance's removal; an empty one is
/// not printed), and its verdict. Err: why the kernel's account fails the
/// run.
pub struct Account {
    lines: [Text; 5],
    verdict: Result<(), &'static str>,
}

impl Account {
    /// The witness lines after the checks line; the verdict.
    pub fn print(&self, out: &mut Out) -> Result<(), &'static str> {
        for l in self.lines.iter().filter(|l| !l.as_bytes().is_empty()) {
            let _ = writeln!(out, "# witness: {l}");
        }
        out.flush();
        self.verdict
    }
}

/// A witness line (the events, the functions).
type Text = render::Text<1024>;

/// The kernel's account of the rounds against `e`: the events line and the
/// functions line, and on a mismatch the expected counts and the first
/// trace line not understood (if any). Err: why it fails the run.
fn judge(
    i: &Instance,
    e: &Wanted,
    [events, functions]: [&mut Text; 2],
    [expected, unparsed]: [&mut Text; 2],
) -> Result<(), &'static str> {
    let t = match i.read() {
        Ok(t) => t,
        Err(why) => {
            let _ = write!(events, "events unreadable: {why} -> MISMATCH");
            return Err("the instance's trace could not be read");
        }
    };
    let traced = i.traced();
    let ok_events = witness::events_line(events, &t, e);
    let ok_functions = match &i.functions_refused {
        Some(why) => {
            let _ = write!(functions, "functions unavailable: {why}");
            true
        }
        None => witness::functions_line(functions, &t, e, traced, i.untraced()),
    };
    if ok_events && ok_functions {
        return Ok(());
    }
    witness::expected_line(expected, e, traced);
    if t.unparsed > 0 {
        let first = Bytes(t.first_unparsed());
        let _ = write!(unparsed, "first unparsed line: {first}");
    }
    Err("the kernel's counts differ from the run's (MISMATCH on stdout)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Mode, SMOKE_CYCLES, SMOKE_ROUNDS, TRACE_CYCLES};
    use crate::witness::MAX_BUFFER_KB;

    /// What the kernel must have seen of profile `name`'s rounds that `l`
    /// counts, with the default options.
    fn wanted_of(name: &str, l: &Ledger) -> Wanted {
        let id = ProfileId::parse(name.as_bytes()).unwrap();
        wanted(id.profile(), &id.shape(&RunConfig::default()), l)
    }

    /// A ledger where each of `requests` was submitted and completed.
    fn completed(requests: &[(Kind, u64)]) -> Ledger {
        ledger(requests, requests)
    }

    fn ledger(sub: &[(Kind, u64)], cqes: &[(Kind, u64)]) -> Ledger {
        let mut l = Ledger::default();
        for &(k, n) in sub {
            l.submitted[k as usize] = n;
        }
        for &(k, n) in cqes {
            l.kind_cqes[k as usize] = n;
            l.cqes += n;
        }
        l
    }

    #[test]
    fn s0_trace_expects_what_the_report_counted_by_hand() {
        // --trace: 16 cycles of 32 WAIT + 32 WAKE.
        let l = completed(&[(Kind::Wait, 512), (Kind::Wake, 512)]);
        let e = wanted_of("s0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAIT", 512), ("FUTEX_WAKE", 512)]);
        assert_eq!((e.completions, e.varied), (1024, 0));
        assert_eq!(e.results(), &[(0, 512), (1, 512)]);
        assert_eq!(
            e.functions(),
            &[
                ("io_futex_prep", 1024),
                ("io_futex_wait", 512),
                ("io_futex_wake", 512),
                ("io_futex_complete", 512),
                ("io_req_track_inflight", 1024),
            ]
        );
    }

    #[test]
    fn c0_v0_e0_and_pollwake_expectations() {
        let l = completed(&[(Kind::Wait, 64), (Kind::Cancel, 64)]);
        let e = wanted_of("c0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAIT", 64), ("ASYNC_CANCEL", 64)]);
        assert_eq!(e.results(), &[(-125, 64), (1, 64)]);
        assert_eq!(e.hits("io_futex_wake"), Some(0));
        assert_eq!(e.hits("io_futex_complete"), Some(64));
        assert_eq!(e.hits("io_futex_cancel"), Some(64));
        let l = completed(&[(Kind::Waitv, 8), (Kind::Wake, 8), (Kind::Check, 8)]);
        let e = wanted_of("v0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAKE", 16), ("FUTEX_WAITV", 8)]);
        assert_eq!(e.results(), &[(1, 8), (0, 8), (3, 8)]);
        assert_eq!(e.hits("io_futex_prep"), Some(16));
        assert_eq!(e.hits("io_futexv_complete"), Some(8));
        assert_eq!(e.hits("io_req_track_inflight"), Some(24));
        let l = completed(&[(Kind::Wait, 32)]);
        let e = wanted_of("e0", &l);
        assert_eq!(e.results(), &[(-11, 32)]);
        assert_eq!(e.hits("io_futex_complete"), Some(0));
        let l = ledger(
            &[(Kind::Source, 128)],
            &[(Kind::Source, 128), (Kind::Target, 128)],
        );
        let e = wanted_of("pollwake", &l);
        assert_eq!(e.submits(), &[("MSG_RING", 128)]);
        // Message 0 of burst 0 carries the value 0.
        assert_eq!(e.results(), &[(0, 129)]);
        assert_eq!((e.varied, e.completions), (127, 256));
        assert_eq!(e.hits("io_msg_ring"), Some(128));
    }

    /// What docs/witness.md promises: every profile's `--trace` and
    /// `--smoke` fit the witness's buffer, and the default point of s0 does
    /// not (refused, naming the size: "shorten it").
    #[test]
    fn trace_and_smoke_fit_the_buffer_and_a_point_does_not() {
        let watch_of = |id: ProfileId, mode, rounds, cycles, warmups| {
            let cfg = RunConfig {
                mode,
                rounds,
                cycles,
                warmups,
                slots: id.default_slots(),
                ..RunConfig::default()
            };
            let names = function_names(id.profile());
            let w = watch(id, &cfg, 0, &names);
            (w.events, w.function_hits, w.buffer_kb())
        };
        for id in ProfileId::ALL {
            let trace = watch_of(id, Mode::Trace, 1, TRACE_CYCLES, 0).2;
            let smoke = watch_of(id, Mode::Smoke, SMOKE_ROUNDS, SMOKE_CYCLES, 0).2;
            assert!(
                trace <= MAX_BUFFER_KB && smoke < trace,
                "{id:?}: {trace} {smoke}"
            );
        }
        // pollwake --trace: 4 modes x 16 bursts of 32 messages, each with a
        // source and a target CQE: at most 8,192 events; 4,096 hits, a prep
        // and an issue per message.
        let pw = watch_of(
            ProfileId::parse(b"pollwake").unwrap(),
            Mode::Trace,
            1,
            TRACE_CYCLES,
            0,
        );
        assert_eq!((pw.0, pw.1), (8192, 4096));
        // s0's point: 18 rounds x 512 cycles x 64 requests, a submission
        // and a completion each: 1,179,648 events, about 110 MiB.
        let s0 = watch_of(ProfileId::S0, Mode::Point, 15, 512, 3);
        assert_eq!(s0.0, 1_179_648);
        assert!(s0.2 > MAX_BUFFER_KB);
    }
}
