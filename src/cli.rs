//! Command line -> typed `Command`. Every error names the argument it is
//! about; nothing here can panic on any input.

use core::fmt;

use crate::profile::pollwake::{self, RingFlags};
use crate::report::Bytes;

/// The report's contract (DESIGN.md §1): the defaults of a run.
pub const DEFAULT_ROUNDS: u32 = 15;
pub const DEFAULT_CYCLES: u32 = 512;
pub const DEFAULT_WARMUPS: u32 = 3;
pub const DEFAULT_SLOTS: u32 = 32;
pub const DEFAULT_TIMEOUT_S: u32 = 2;
/// `--smoke`: 2 cycles, 1 round, no warm-up.
pub const SMOKE_CYCLES: u32 = 2;
pub const SMOKE_ROUNDS: u32 = 1;
/// `--trace`: 16 cycles in one round, no warm-up, for ftrace/bpftrace.
pub const TRACE_CYCLES: u32 = 16;

/// Limits (the output arrays and ring sizes are built for these).
pub const MAX_ROUNDS: u32 = 4096;
pub const MAX_CYCLES: u32 = 10_000_000;
pub const MAX_WARMUPS: u32 = 1000;
pub const MAX_SLOTS: u32 = 64;
pub const MAX_TIMEOUT_S: u32 = 3600;
/// v0's shape: 8 FUTEX_WAITV groups of 8 words (64 cells); `--slots` sets
/// the group count, 1..=8.
pub const WAITV_GROUPS: u32 = 8;

/// Workloads (`--profile`).
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
    /// MSG_RING bursts into rings polled by nobody, an idle epoll set, a
    /// waiter thread (docs/pollwake.md).
    Pollwake,
}

impl ProfileId {
    /// (id, short name, long name, formal name) of every profile.
    pub const ALL: [(ProfileId, &'static str, &'static str, &'static str); 8] = [
        (ProfileId::WaitWake, "s0", "wait-wake", "s0_wait_wake"),
        (ProfileId::WaitCancel, "c0", "wait-cancel", "c0_wait_cancel"),
        (ProfileId::WaitvWake, "v0", "waitv-wake", "v0_waitv_wake"),
        (ProfileId::ZeroWake, "z0", "zero-wake", "z0_zero_wake"),
        (ProfileId::Mismatch, "e0", "mismatch", "e0_mismatch"),
        (ProfileId::Nop, "n0", "nop", "n0_nop"),
        (ProfileId::Lifecycle, "l0", "lifecycle", "l0_lifecycle"),
        (ProfileId::Pollwake, "pollwake", "poll-wake", "pollwake"),
    ];

    /// The formal reproducer's name (TSV `profile`, banner, describe).
    pub fn formal_name(self) -> &'static str {
        Self::ALL.iter().find(|p| p.0 == self).map_or("?", |p| p.3)
    }

    /// Whether `--shared` applies (the workload waits or wakes on futex
    /// words whose scope the maintainers' patches distinguish).
    pub fn has_futex_scope(self) -> bool {
        !matches!(
            self,
            ProfileId::Nop | ProfileId::Lifecycle | ProfileId::Pollwake
        )
    }

    fn parse(s: &[u8]) -> Option<ProfileId> {
        // black_box keeps this a loop: unrolled over 7 profiles x 3 names
        // it costs over 1 KiB of binary for a once-per-run lookup.
        let all: &[_] = core::hint::black_box(&Self::ALL[..]);
        all.iter()
            .find(|p| s == p.1.as_bytes() || s == p.2.as_bytes() || s == p.3.as_bytes())
            .map(|p| p.0)
    }
}

/// What kind of run: the published point, a quick smoke, or a trace window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Point,
    Smoke,
    Trace,
}

impl Mode {
    /// The TSV `mode` value.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Point => "point",
            Mode::Smoke => "smoke",
            Mode::Trace => "trace",
        }
    }
}

/// A run's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig<'a> {
    pub profile: ProfileId,
    pub mode: Mode,
    pub cpu: Option<u32>,
    pub rounds: u32,
    pub cycles: u32,
    pub warmups: u32,
    /// Requests per cycle (v0: WAITV groups).
    pub slots: u32,
    /// Futex words without FUTEX2_PRIVATE (`--shared`).
    pub shared: bool,
    pub timeout_s: u32,
    /// `--tsv FILE`, as typed (no NUL).
    pub tsv: Option<&'a [u8]>,
    /// pollwake: messages per burst, the waiter's CPU, every ring's flags.
    pub burst: u32,
    pub waiter_cpu: Option<u32>,
    pub ring_flags: RingFlags,
}

impl Default for RunConfig<'_> {
    fn default() -> Self {
        RunConfig {
            profile: ProfileId::WaitWake,
            mode: Mode::Point,
            cpu: None,
            rounds: DEFAULT_ROUNDS,
            cycles: DEFAULT_CYCLES,
            warmups: DEFAULT_WARMUPS,
            slots: DEFAULT_SLOTS,
            shared: false,
            timeout_s: DEFAULT_TIMEOUT_S,
            tsv: None,
            burst: pollwake::DEFAULT_BURST,
            waiter_cpu: None,
            ring_flags: RingFlags::None,
        }
    }
}

impl RunConfig<'_> {
    /// The configuration of `selftest`'s smoke of `profile` in one scope.
    pub fn smoke(&self, profile: ProfileId, shared: bool) -> Self {
        RunConfig {
            profile,
            mode: Mode::Smoke,
            cpu: self.cpu,
            rounds: SMOKE_ROUNDS,
            cycles: SMOKE_CYCLES,
            warmups: 0,
            slots: if profile == ProfileId::WaitvWake {
                WAITV_GROUPS
            } else {
                DEFAULT_SLOTS
            },
            shared,
            timeout_s: self.timeout_s,
            ..RunConfig::default()
        }
    }

    /// `private` or `shared` (banner, TSV, describe).
    pub fn futex_scope(&self) -> &'static str {
        if self.shared {
            "shared"
        } else {
            "private"
        }
    }
}

/// What the command line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Run(RunConfig<'a>),
    /// `describe`: the JSON contract of the run these options would make.
    Describe(RunConfig<'a>),
    /// `selftest`: every profile's smoke; only --cpu and --timeout apply.
    Selftest(RunConfig<'a>),
    /// `compare ...`: its own arguments follow (parsed by `compare`).
    Compare,
    Help,
    Version,
}

/// A usage error: the argument and what is wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsageError<'a> {
    /// The argument as typed (`--rounds=0`, or `--rounds` when the value
    /// came as the next argument).
    pub arg: &'a [u8],
    /// The separate value (`0` of `--rounds 0`), if that is what is wrong.
    pub value: Option<&'a [u8]>,
    pub why: Why,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    UnknownOption,
    UnknownCommand,
    MissingValue,
    NotANumber,
    OutOfRange(u64, u64),
    Duplicate,
    UnknownProfile,
    UnexpectedValue,
    /// --smoke with --trace.
    Conflict,
    /// The option does not apply to this profile (formal name).
    NotForProfile(&'static str),
    /// The option does not apply to this command.
    NotForCommand(&'static str),
    UnknownRingFlags,
}

impl fmt::Display for UsageError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", ArgText(self))?;
        let text = match self.why {
            Why::OutOfRange(lo, hi) => return write!(f, "out of range ({lo}..={hi})"),
            Why::NotForProfile(p) => return write!(f, "does not apply to profile {p}"),
            Why::NotForCommand(c) => return write!(f, "does not apply to {c}"),
            Why::UnknownOption => "unknown option (see --help)",
            Why::UnknownCommand => "unknown command (see --help)",
            Why::MissingValue => "needs a value",
            Why::NotANumber => "not a decimal number",
            Why::Duplicate => "given more than once",
            Why::UnknownProfile => "unknown profile (see --help)",
            Why::UnexpectedValue => "takes no value",
            Why::Conflict => "--smoke and --trace exclude each other",
            Why::UnknownRingFlags => "unknown ring flags (none, single-issuer, defer-taskrun)",
        };
        f.write_str(text)
    }
}

/// The offending argument as typed: `--rounds 0` or `--rounds=0`.
struct ArgText<'e, 'a>(&'e UsageError<'a>);

impl fmt::Display for ArgText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Bytes(self.0.arg))?;
        if let Some(v) = self.0.value {
            write!(f, " {}", Bytes(v))?;
        }
        Ok(())
    }
}

/// Parses a decimal u32 in lo..=hi.
fn number(s: &[u8], lo: u32, hi: u32) -> Result<u32, Why> {
    if s.is_empty() || s.len() > 20 || !s.iter().all(u8::is_ascii_digit) {
        return Err(Why::NotANumber);
    }
    let v = s.iter().fold(0u64, |v, &d| {
        v.saturating_mul(10).saturating_add((d - b'0') as u64)
    });
    if v < lo as u64 || v > hi as u64 {
        return Err(Why::OutOfRange(lo as u64, hi as u64));
    }
    Ok(v as u32)
}

/// Every option: its name and, for numeric ones, the (lo, hi) range. The
/// index of each is its bit in `given`; from SMOKE on they take no value.
const OPTIONS: [(&str, u32, u32); 14] = [
    ("--cpu", 0, crate::cpu::MAX_CPU),
    ("--rounds", 1, MAX_ROUNDS),
    ("--cycles", 1, MAX_CYCLES),
    ("--warmups", 0, MAX_WARMUPS),
    ("--slots", 1, MAX_SLOTS),
    ("--timeout", 1, MAX_TIMEOUT_S),
    ("--profile", 0, 0),
    ("--tsv", 0, 0),
    ("--burst", 1, pollwake::MAX_BURST),
    ("--waiter-cpu", 0, crate::cpu::MAX_CPU),
    ("--ring-flags", 0, 0),
    ("--smoke", 0, 0),
    ("--trace", 0, 0),
    ("--shared", 0, 0),
];
const CPU: usize = 0;
const ROUNDS: usize = 1;
const CYCLES: usize = 2;
const WARMUPS: usize = 3;
const SLOTS: usize = 4;
const TIMEOUT: usize = 5;
const PROFILE: usize = 6;
const TSV: usize = 7;
const BURST: usize = 8;
const WAITER_CPU: usize = 9;
const RING_FLAGS: usize = 10;
const SMOKE: usize = 11;
const TRACE: usize = 12;
const SHARED: usize = 13;
/// Options only pollwake takes, and the ones it does not.
const POLLWAKE_ONLY: u32 = 1 << BURST | 1 << WAITER_CPU | 1 << RING_FLAGS;
const NOT_POLLWAKE: u32 = 1 << SLOTS | 1 << TSV | 1 << TRACE | 1 << SHARED;

/// Parses argv[1..].
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Command<'a>, UsageError<'a>> {
    let mut args = args.into_iter().peekable();
    let mut cfg = RunConfig::default();
    // Which options were given explicitly (bit = index in OPTIONS).
    let mut given = 0u32;
    // `--slots` as typed, to name it if it does not fit v0.
    let mut slots_arg: (&[u8], Option<&[u8]>) = (b"--slots", None);
    // The argument that set each option, to name it in a later error.
    let mut typed: [&[u8]; OPTIONS.len()] = [b""; OPTIONS.len()];
    let mut command: Option<&'static str> = None;
    if let Some(&first) = args.peek() {
        if !first.starts_with(b"-") {
            args.next();
            command = match first {
                b"compare" => return Ok(Command::Compare),
                b"run" => None,
                b"describe" => Some("describe"),
                b"selftest" => Some("selftest"),
                _ => {
                    return Err(UsageError {
                        arg: first,
                        value: None,
                        why: Why::UnknownCommand,
                    })
                }
            };
        }
    }
    while let Some(arg) = args.next() {
        let err = |why| UsageError {
            arg,
            value: None,
            why,
        };
        let (name, inline) = match arg.iter().position(|&b| b == b'=') {
            Some(i) if arg.starts_with(b"--") => (&arg[..i], Some(&arg[i + 1..])),
            _ => (arg, None),
        };
        if matches!(name, b"--help" | b"-h" | b"--version") {
            if inline.is_some() {
                return Err(err(Why::UnexpectedValue));
            }
            return Ok(if name == b"--version" {
                Command::Version
            } else {
                Command::Help
            });
        }
        // black_box: a rolled lookup, not one inlined compare per option.
        let options = core::hint::black_box(&OPTIONS[..]);
        let Some(idx) = options.iter().position(|o| o.0.as_bytes() == name) else {
            return Err(err(if arg.starts_with(b"-") {
                Why::UnknownOption
            } else {
                Why::UnknownCommand
            }));
        };
        if given & (1 << idx) != 0 {
            return Err(err(Why::Duplicate));
        }
        given |= 1 << idx;
        typed[idx] = arg;
        // selftest chooses every run parameter itself; describe writes no file.
        let allowed = match command {
            Some("selftest") => idx == CPU || idx == TIMEOUT,
            Some(_) => idx != TSV,
            None => true,
        };
        if !allowed {
            return Err(err(Why::NotForCommand(command.unwrap_or("run"))));
        }
        if idx >= SMOKE {
            if inline.is_some() {
                return Err(err(Why::UnexpectedValue));
            }
            match idx {
                SHARED => cfg.shared = true,
                _ if cfg.mode != Mode::Point => return Err(err(Why::Conflict)),
                SMOKE => cfg.mode = Mode::Smoke,
                _ => cfg.mode = Mode::Trace,
            }
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => args.next().ok_or(err(Why::MissingValue))?,
        };
        // Report value errors against "--opt value" as the user typed it.
        let verr = |why| UsageError {
            arg,
            value: inline.is_none().then_some(value),
            why,
        };
        let (_, lo, hi) = OPTIONS[idx];
        match idx {
            PROFILE => cfg.profile = ProfileId::parse(value).ok_or(verr(Why::UnknownProfile))?,
            TSV if value.is_empty() => return Err(verr(Why::MissingValue)),
            TSV => cfg.tsv = Some(value),
            RING_FLAGS => {
                cfg.ring_flags = RingFlags::parse(value).ok_or(verr(Why::UnknownRingFlags))?
            }
            _ => {
                let v = number(value, lo, hi).map_err(verr)?;
                match idx {
                    CPU => cfg.cpu = Some(v),
                    ROUNDS => cfg.rounds = v,
                    CYCLES => cfg.cycles = v,
                    WARMUPS => cfg.warmups = v,
                    SLOTS => {
                        cfg.slots = v;
                        slots_arg = (arg, inline.is_none().then_some(value));
                    }
                    BURST => cfg.burst = v,
                    WAITER_CPU => cfg.waiter_cpu = Some(v),
                    _ => cfg.timeout_s = v,
                }
            }
        }
    }
    let shape = match cfg.mode {
        Mode::Point => None,
        Mode::Smoke => Some(SMOKE_CYCLES),
        Mode::Trace => Some(TRACE_CYCLES),
    };
    if let Some(cycles) = shape {
        // --smoke/--trace set the shape; explicit options still win.
        if given & (1 << ROUNDS) == 0 {
            cfg.rounds = SMOKE_ROUNDS;
        }
        if given & (1 << CYCLES) == 0 {
            cfg.cycles = cycles;
        }
        if given & (1 << WARMUPS) == 0 {
            cfg.warmups = 0;
        }
    }
    if cfg.profile == ProfileId::WaitvWake {
        if given & (1 << SLOTS) == 0 {
            cfg.slots = WAITV_GROUPS;
        } else if cfg.slots > WAITV_GROUPS {
            return Err(UsageError {
                arg: slots_arg.0,
                value: slots_arg.1,
                why: Why::OutOfRange(1, WAITV_GROUPS as u64),
            });
        }
    }
    let stray = if cfg.profile == ProfileId::Pollwake {
        given & NOT_POLLWAKE
    } else {
        given & POLLWAKE_ONLY
    };
    if stray != 0 {
        return Err(UsageError {
            arg: typed[stray.trailing_zeros() as usize],
            value: None,
            why: Why::NotForProfile(cfg.profile.formal_name()),
        });
    }
    if cfg.profile == ProfileId::Pollwake && command.is_some() {
        return Err(UsageError {
            arg: typed[PROFILE],
            value: None,
            why: Why::NotForCommand(command.unwrap_or("run")),
        });
    }
    if cfg.shared && !cfg.profile.has_futex_scope() {
        return Err(UsageError {
            arg: b"--shared",
            value: None,
            why: Why::NotForProfile(cfg.profile.formal_name()),
        });
    }
    Ok(match command {
        Some("describe") => Command::Describe(cfg),
        Some(_) => Command::Selftest(cfg),
        None => Command::Run(cfg),
    })
}

/// `--help` text: every option with its default.
pub const HELP: &str = "\
usage: uring-repro [run] [options]
       uring-repro describe [options]    the contract these options run, as JSON
       uring-repro selftest [--cpu N] [--timeout SECS]
                                         every profile's smoke, both futex scopes, TAP 13
       uring-repro compare [--gate PCT] [--tsv] [--drop-first] [--mode M] [LABEL=]FILE...
       uring-repro --help | --version

Reproduces the io_uring futex WAIT->WAKE microbenchmark behind the regression
report on Linux commit 079afb081c42 and validates every completion.

profiles (--profile, short or long name):
  s0 wait-wake    32 FUTEX_WAIT, 32 FUTEX_WAKE (wait res 0, wake res 1)
  c0 wait-cancel  32 FUTEX_WAIT, 32 ASYNC_CANCEL by user_data (-ECANCELED, 1)
  v0 waitv-wake   8 FUTEX_WAITV x 8 words, WAKE index 3 (res 3, 1), check WAKE (0)
  z0 zero-wake    32 FUTEX_WAKE nobody waits on (res 0)
  e0 mismatch     32 FUTEX_WAIT on a changed value (res -EAGAIN)
  n0 nop          32 NOP (res 0)
  l0 lifecycle    ring setup, one s0 cycle, close; stays 200 ms at the end
  pollwake poll-wake
                  MSG_RING bursts into rings in no epoll set, an idle epoll set
                  and one a waiter thread polls: the poll-wakeup cost (docs/pollwake.md)

options (defaults are the report's contract):
  --profile P     workload, see above                       (default s0)
  --smoke         2 cycles, 1 round, no warm-up (explicit options still win)
  --trace         16 cycles, 1 round, no warm-up; PID and ftrace markers around it
  --cpu N         CPU to pin to            (default 2, else the highest allowed)
  --rounds N      measured rounds, 1..=4096                 (default 15)
  --cycles N      cycles per round, 1..=10000000            (default 512)
  --warmups N     untimed warm-up rounds, 0..=1000          (default 3)
  --slots N       requests per cycle, 1..=64 (v0: groups, 1..=8) (default 32; v0 8)
  --shared        futex words without FUTEX2_PRIVATE (s0 c0 v0 z0 e0)
  --timeout SECS  bound on every io_uring wait, 1..=3600    (default 2)
  --tsv FILE      also write the formal TSV rows to FILE (created, never overwritten)
  --help          this text
  --version       the version

compare (docs/compare.md): FILEs are saved runs, one per boot (stdout or --tsv
of uring-repro, the C standalone's stdout, the formal C reproducer's TSV).
Three plain FILEs are the A B A sandwich; LABEL=FILE points with one label form
a group, each label compared with the first one:
  --gate PCT      the preregistered gate, 0 < PCT <= 100    (default 5)
  --drop-first    main figures without each point's first round (default: with)
  --tsv           the result summary as TSV instead of text
  --mode M        pollwake results: the mode compared, none|idle|waiter|none_aa

pollwake only:
  --burst N       MSG_RING messages per burst, 1..=64       (default 32)
  --waiter-cpu N  CPU of the waiter thread                  (default: --cpu's)
  --ring-flags F  none | single-issuer | defer-taskrun      (default none)

Options take their value as `--opt N` or `--opt=N`.

exit: 0 pass, 1 check failed, 2 usage, 4 cannot run here (skip), 130 interrupted
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&'static str]) -> Result<Command<'static>, UsageError<'static>> {
        parse(args.iter().map(|s| s.as_bytes()))
    }

    fn cfg(args: &[&'static str]) -> RunConfig<'static> {
        match p(args) {
            Ok(Command::Run(c)) => c,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn why(args: &[&'static str]) -> (String, Why) {
        let e = p(args).unwrap_err();
        (ArgText(&e).to_string(), e.why)
    }

    #[test]
    fn defaults_are_the_contract() {
        let c = cfg(&[]);
        assert_eq!(c, RunConfig::default());
        assert_eq!(
            (c.rounds, c.cycles, c.warmups, c.slots, c.timeout_s),
            (15, 512, 3, 32, 2)
        );
        assert_eq!(c.cpu, None);
        assert_eq!(cfg(&["run"]), c);
    }

    #[test]
    fn compare_takes_the_rest() {
        assert_eq!(p(&["compare", "--bogus", "a"]), Ok(Command::Compare));
        assert_eq!(p(&["compare"]), Ok(Command::Compare));
        assert!(HELP.contains("compare [--gate PCT]"));
        assert!(HELP.contains("--mode M") && HELP.contains("(default 5)"));
    }

    #[test]
    fn smoke_shape_and_overrides() {
        let c = cfg(&["--smoke"]);
        assert_eq!(
            (c.rounds, c.cycles, c.warmups, c.mode),
            (1, 2, 0, Mode::Smoke)
        );
        let c = cfg(&["--cycles", "5", "--smoke"]);
        assert_eq!((c.rounds, c.cycles, c.warmups), (1, 5, 0));
        let c = cfg(&["--trace", "--profile", "l0"]);
        assert_eq!(
            (c.rounds, c.cycles, c.warmups, c.mode),
            (1, 16, 0, Mode::Trace)
        );
        assert_eq!(cfg(&["--trace", "--rounds=2"]).rounds, 2);
        assert_eq!(cfg(&[]).mode, Mode::Point);
    }

    #[test]
    fn every_profile_by_every_name() {
        for (id, short, long, formal) in ProfileId::ALL {
            for name in [short, long, formal] {
                let c = parse([b"--profile".as_slice(), name.as_bytes()]);
                assert!(
                    matches!(c, Ok(Command::Run(c)) if c.profile == id),
                    "{name}"
                );
            }
            assert_eq!(id.formal_name(), formal);
        }
        assert_eq!(cfg(&["--profile=c0"]).profile, ProfileId::WaitCancel);
        assert_eq!(cfg(&["--profile", "nop"]).profile, ProfileId::Nop);
    }

    #[test]
    fn waitv_slots_are_groups() {
        let c = cfg(&["--profile", "v0"]);
        assert_eq!(c.slots, WAITV_GROUPS);
        assert_eq!(cfg(&["--slots", "3", "--profile", "v0"]).slots, 3);
        assert_eq!(
            why(&["--slots", "9", "--profile", "v0"]),
            ("--slots 9".into(), Why::OutOfRange(1, 8))
        );
        assert_eq!(
            why(&["--profile=v0", "--slots=64"]),
            ("--slots=64".into(), Why::OutOfRange(1, 8))
        );
        assert_eq!(cfg(&["--profile", "s0"]).slots, 32);
    }

    #[test]
    fn shared_scope_only_where_it_means_something() {
        for (id, short, _, formal) in ProfileId::ALL {
            let r = parse([b"--shared".as_slice(), b"--profile", short.as_bytes()]);
            match r {
                Ok(Command::Run(c)) => {
                    assert!(c.shared && id.has_futex_scope(), "{short}");
                    assert_eq!(c.futex_scope(), "shared");
                }
                Err(e) => {
                    assert!(!id.has_futex_scope(), "{short}");
                    assert_eq!(e.why, Why::NotForProfile(formal));
                    assert_eq!(
                        e.to_string(),
                        format!("--shared: does not apply to profile {formal}")
                    );
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(cfg(&[]).futex_scope(), "private");
        assert!(!ProfileId::Nop.has_futex_scope() && !ProfileId::Lifecycle.has_futex_scope());
    }

    #[test]
    fn tsv_describe_selftest() {
        assert_eq!(cfg(&["--tsv", "a.tsv"]).tsv, Some(b"a.tsv".as_slice()));
        assert_eq!(cfg(&["--tsv=b"]).tsv, Some(b"b".as_slice()));
        assert_eq!(why(&["--tsv="]), ("--tsv=".into(), Why::MissingValue));
        assert_eq!(why(&["--tsv"]), ("--tsv".into(), Why::MissingValue));
        match p(&["describe", "--profile", "v0", "--smoke"]) {
            Ok(Command::Describe(c)) => {
                assert_eq!(
                    (c.profile, c.mode, c.slots),
                    (ProfileId::WaitvWake, Mode::Smoke, 8)
                )
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            why(&["describe", "--tsv", "x"]),
            ("--tsv".into(), Why::NotForCommand("describe"))
        );
        match p(&["selftest", "--cpu", "1", "--timeout=3"]) {
            Ok(Command::Selftest(c)) => assert_eq!((c.cpu, c.timeout_s), (Some(1), 3)),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            p(&["selftest"]),
            Ok(Command::Selftest(RunConfig::default()))
        );
        assert_eq!(
            why(&["selftest", "--smoke"]),
            ("--smoke".into(), Why::NotForCommand("selftest"))
        );
        assert_eq!(
            why(&["selftest", "--profile", "s0"]),
            ("--profile".into(), Why::NotForCommand("selftest"))
        );
        assert_eq!(
            why(&["--smoke", "--trace"]),
            ("--trace".into(), Why::Conflict)
        );
        assert_eq!(
            why(&["--shared=1"]),
            ("--shared=1".into(), Why::UnexpectedValue)
        );
        assert_eq!(
            why(&["--shared", "--shared"]),
            ("--shared".into(), Why::Duplicate)
        );
    }

    #[test]
    fn selftest_smoke_config() {
        let base = cfg(&["--cpu", "1", "--timeout", "5", "--rounds", "9"]);
        let s = base.smoke(ProfileId::WaitvWake, true);
        assert_eq!(
            (
                s.mode,
                s.rounds,
                s.cycles,
                s.warmups,
                s.slots,
                s.shared,
                s.cpu,
                s.timeout_s
            ),
            (Mode::Smoke, 1, 2, 0, 8, true, Some(1), 5)
        );
        assert_eq!(base.smoke(ProfileId::WaitWake, false).slots, 32);
    }

    #[test]
    fn values_both_forms() {
        let c = cfg(&[
            "run",
            "--cpu=1",
            "--rounds",
            "7",
            "--slots=64",
            "--timeout",
            "9",
        ]);
        assert_eq!((c.cpu, c.rounds, c.slots, c.timeout_s), (Some(1), 7, 64, 9));
        assert_eq!(
            cfg(&["--profile", "wait-wake"]).profile,
            ProfileId::WaitWake
        );
        assert_eq!(
            cfg(&["--profile=s0_wait_wake"]).profile,
            ProfileId::WaitWake
        );
    }

    #[test]
    fn help_and_version() {
        assert_eq!(p(&["--help"]), Ok(Command::Help));
        assert_eq!(p(&["-h"]), Ok(Command::Help));
        assert_eq!(p(&["run", "--version"]), Ok(Command::Version));
        for o in [
            "--profile",
            "--smoke",
            "--cpu",
            "--rounds",
            "--cycles",
            "--warmups",
            "--slots",
            "--shared",
            "--trace",
            "--tsv",
            "--timeout",
            "describe",
            "selftest",
        ] {
            assert!(HELP.contains(o), "{o}");
        }
        for (_, short, long, _) in ProfileId::ALL {
            let line = format!("\n  {short} {long}");
            let at = HELP.find(&line).unwrap_or_else(|| panic!("{short}"));
            let next = HELP.as_bytes()[at + line.len()];
            assert!(next == b' ' || next == b'\n', "{short}");
        }
    }

    #[test]
    fn every_error_names_its_argument() {
        assert_eq!(why(&["--bogus"]), ("--bogus".into(), Why::UnknownOption));
        assert_eq!(why(&["bench"]), ("bench".into(), Why::UnknownCommand));
        assert_eq!(
            why(&["run", "extra"]),
            ("extra".into(), Why::UnknownCommand)
        );
        assert_eq!(why(&["--rounds"]), ("--rounds".into(), Why::MissingValue));
        assert_eq!(
            why(&["--rounds", "x1"]),
            ("--rounds x1".into(), Why::NotANumber)
        );
        assert_eq!(
            why(&["--rounds", "-1"]),
            ("--rounds -1".into(), Why::NotANumber)
        );
        assert_eq!(why(&["--rounds="]), ("--rounds=".into(), Why::NotANumber));
        assert_eq!(
            why(&["--rounds", "0"]),
            ("--rounds 0".into(), Why::OutOfRange(1, 4096))
        );
        assert_eq!(
            why(&["--rounds=4097"]),
            ("--rounds=4097".into(), Why::OutOfRange(1, 4096))
        );
        assert_eq!(
            why(&["--slots", "65"]),
            ("--slots 65".into(), Why::OutOfRange(1, 64))
        );
        assert_eq!(
            why(&["--slots", "0"]),
            ("--slots 0".into(), Why::OutOfRange(1, 64))
        );
        assert_eq!(
            why(&["--timeout", "0"]),
            ("--timeout 0".into(), Why::OutOfRange(1, 3600))
        );
        assert_eq!(
            why(&["--cpu", "1024"]),
            ("--cpu 1024".into(), Why::OutOfRange(0, 1023))
        );
        assert_eq!(
            why(&["--cycles", "99999999999999999999999"]),
            ("--cycles 99999999999999999999999".into(), Why::NotANumber)
        );
        assert_eq!(
            why(&["--cycles", "18446744073709551616"]),
            (
                "--cycles 18446744073709551616".into(),
                Why::OutOfRange(1, MAX_CYCLES as u64)
            )
        );
        assert_eq!(
            why(&["--cpu", "1", "--cpu", "1"]),
            ("--cpu".into(), Why::Duplicate)
        );
        assert_eq!(
            why(&["--smoke", "--smoke"]),
            ("--smoke".into(), Why::Duplicate)
        );
        assert_eq!(
            why(&["--smoke=1"]),
            ("--smoke=1".into(), Why::UnexpectedValue)
        );
        assert_eq!(
            why(&["--profile", "zz"]),
            ("--profile zz".into(), Why::UnknownProfile)
        );
        assert_eq!(
            why(&["--cpu", "\u{e9}"]),
            ("--cpu \u{e9}".into(), Why::NotANumber)
        );
    }

    #[test]
    fn error_messages_read_well() {
        let e = p(&["--rounds", "0"]).unwrap_err();
        assert_eq!(e.to_string(), "--rounds 0: out of range (1..=4096)");
        let e = p(&["--bogus"]).unwrap_err();
        assert_eq!(e.to_string(), "--bogus: unknown option (see --help)");
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let junk: [&[u8]; 8] = [
            b"",
            b"=",
            b"--=",
            b"-",
            b"--",
            b"\xff\xfe",
            b"--cpu=\xff",
            b"run",
        ];
        for a in junk {
            for b in junk {
                let _ = parse([a, b]);
            }
        }
    }

    #[test]
    fn pollwake_options() {
        let c = cfg(&[
            "--profile",
            "pollwake",
            "--burst",
            "5",
            "--waiter-cpu=1",
            "--ring-flags",
            "defer-taskrun",
            "--smoke",
        ]);
        assert_eq!(c.profile, ProfileId::Pollwake);
        assert_eq!((c.burst, c.waiter_cpu), (5, Some(1)));
        assert_eq!(c.ring_flags, RingFlags::DeferTaskrun);
        assert_eq!((c.rounds, c.cycles, c.warmups), (1, 2, 0));
        let d = cfg(&["--profile=poll-wake"]);
        assert_eq!(
            (d.burst, d.waiter_cpu, d.ring_flags),
            (32, None, RingFlags::None)
        );
        for (args, arg) in [
            (&["--profile", "pollwake", "--slots", "3"][..], "--slots"),
            (&["--profile", "pollwake", "--shared"][..], "--shared"),
            (&["--profile", "pollwake", "--trace"][..], "--trace"),
            (&["--tsv", "x", "--profile", "pollwake"][..], "--tsv"),
            (&["--ring-flags=none"][..], "--ring-flags=none"),
            (&["--profile", "s0", "--burst", "4"][..], "--burst"),
        ] {
            let e = p(args).unwrap_err();
            assert_eq!(String::from_utf8_lossy(e.arg), arg, "{args:?}");
            assert!(matches!(e.why, Why::NotForProfile(_)), "{args:?}");
        }
        assert_eq!(
            why(&["--profile", "pollwake", "--ring-flags", "x"]),
            ("--ring-flags x".into(), Why::UnknownRingFlags)
        );
        let e = p(&["describe", "--profile", "pollwake"]).unwrap_err();
        assert!(matches!(e.why, Why::NotForCommand("describe")));
    }
}
