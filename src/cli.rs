//! Command line -> typed `Command`. Every error names the argument it is
//! about; nothing here can panic on any input.

use core::fmt;

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

/// Limits (the output arrays and ring sizes are built for these).
pub const MAX_ROUNDS: u32 = 4096;
pub const MAX_CYCLES: u32 = 10_000_000;
pub const MAX_WARMUPS: u32 = 1000;
pub const MAX_SLOTS: u32 = 64;
pub const MAX_TIMEOUT_S: u32 = 3600;

/// Workloads (`--profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileId {
    /// s0: 32 FUTEX_WAIT then 32 FUTEX_WAKE per cycle.
    WaitWake,
}

impl ProfileId {
    /// (short name, long name, formal name) of every profile.
    pub const ALL: [(ProfileId, &'static str, &'static str, &'static str); 1] =
        [(ProfileId::WaitWake, "s0", "wait-wake", "s0_wait_wake")];

    pub fn formal_name(self) -> &'static str {
        Self::ALL.iter().find(|p| p.0 == self).map_or("?", |p| p.3)
    }

    fn parse(s: &[u8]) -> Option<ProfileId> {
        Self::ALL
            .iter()
            .find(|p| s == p.1.as_bytes() || s == p.2.as_bytes() || s == p.3.as_bytes())
            .map(|p| p.0)
    }
}

/// A run's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig {
    pub profile: ProfileId,
    pub smoke: bool,
    pub cpu: Option<u32>,
    pub rounds: u32,
    pub cycles: u32,
    pub warmups: u32,
    pub slots: u32,
    pub timeout_s: u32,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            profile: ProfileId::WaitWake,
            smoke: false,
            cpu: None,
            rounds: DEFAULT_ROUNDS,
            cycles: DEFAULT_CYCLES,
            warmups: DEFAULT_WARMUPS,
            slots: DEFAULT_SLOTS,
            timeout_s: DEFAULT_TIMEOUT_S,
        }
    }
}

/// What the command line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Run(RunConfig),
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
}

impl fmt::Display for UsageError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arg = ArgText(self);
        match self.why {
            Why::UnknownOption => write!(f, "{arg}: unknown option (see --help)"),
            Why::UnknownCommand => write!(f, "{arg}: unknown command (see --help)"),
            Why::MissingValue => write!(f, "{arg}: needs a value"),
            Why::NotANumber => write!(f, "{arg}: not a decimal number"),
            Why::OutOfRange(lo, hi) => write!(f, "{arg}: out of range ({lo}..={hi})"),
            Why::Duplicate => write!(f, "{arg}: given more than once"),
            Why::UnknownProfile => write!(f, "{arg}: unknown profile (see --help)"),
            Why::UnexpectedValue => write!(f, "{arg}: takes no value"),
        }
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

/// Options that take a value, with the (lo, hi) range of numeric ones.
const VALUE_OPTIONS: [(&str, u32, u32); 7] = [
    ("--cpu", 0, crate::cpu::MAX_CPU),
    ("--rounds", 1, MAX_ROUNDS),
    ("--cycles", 1, MAX_CYCLES),
    ("--warmups", 0, MAX_WARMUPS),
    ("--slots", 1, MAX_SLOTS),
    ("--timeout", 1, MAX_TIMEOUT_S),
    ("--profile", 0, 0),
];

/// Parses argv[1..].
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Command, UsageError<'a>> {
    let mut args = args.into_iter().peekable();
    let mut cfg = RunConfig::default();
    // Which options were given explicitly (bit per VALUE_OPTIONS entry, + smoke).
    let mut given = 0u32;
    const SMOKE_BIT: u32 = 1 << 31;
    if let Some(&first) = args.peek() {
        if !first.starts_with(b"-") {
            args.next();
            if first == b"compare" {
                return Ok(Command::Compare);
            }
            if first != b"run" {
                return Err(UsageError {
                    arg: first,
                    value: None,
                    why: Why::UnknownCommand,
                });
            }
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
        match name {
            b"--help" | b"-h" | b"--version" | b"--smoke" => {
                if inline.is_some() {
                    return Err(err(Why::UnexpectedValue));
                }
                match name {
                    b"--help" | b"-h" => return Ok(Command::Help),
                    b"--version" => return Ok(Command::Version),
                    _ => {
                        if given & SMOKE_BIT != 0 {
                            return Err(err(Why::Duplicate));
                        }
                        given |= SMOKE_BIT;
                        cfg.smoke = true;
                    }
                }
                continue;
            }
            _ => {}
        }
        let Some(idx) = VALUE_OPTIONS.iter().position(|o| o.0.as_bytes() == name) else {
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
        let (_, lo, hi) = VALUE_OPTIONS[idx];
        match name {
            b"--profile" => {
                cfg.profile = ProfileId::parse(value).ok_or(verr(Why::UnknownProfile))?
            }
            _ => {
                let v = number(value, lo, hi).map_err(verr)?;
                match name {
                    b"--cpu" => cfg.cpu = Some(v),
                    b"--rounds" => cfg.rounds = v,
                    b"--cycles" => cfg.cycles = v,
                    b"--warmups" => cfg.warmups = v,
                    b"--slots" => cfg.slots = v,
                    _ => cfg.timeout_s = v,
                }
            }
        }
    }
    if cfg.smoke {
        // --smoke sets the shape; explicit options still win.
        if given & (1 << 1) == 0 {
            cfg.rounds = SMOKE_ROUNDS;
        }
        if given & (1 << 2) == 0 {
            cfg.cycles = SMOKE_CYCLES;
        }
        if given & (1 << 3) == 0 {
            cfg.warmups = 0;
        }
    }
    Ok(Command::Run(cfg))
}

/// `--help` text: every option with its default.
pub const HELP: &str = "\
usage: uring-repro [run] [options]
       uring-repro compare [--gate PCT] [--tsv] [--drop-first] [LABEL=]FILE...
       uring-repro --help | --version

Reproduces the io_uring futex WAIT->WAKE microbenchmark behind the regression
report on Linux commit 079afb081c42 and validates every completion.

options (defaults are the report's contract):
  --profile P     workload: s0 | wait-wake                  (default s0)
  --smoke         2 cycles, 1 round, no warm-up (explicit options still win)
  --cpu N         CPU to pin to            (default 2, else the highest allowed)
  --rounds N      measured rounds, 1..=4096                 (default 15)
  --cycles N      cycles per round, 1..=10000000            (default 512)
  --warmups N     untimed warm-up rounds, 0..=1000          (default 3)
  --slots N       WAIT/WAKE pairs per cycle, 1..=64         (default 32)
  --timeout SECS  bound on every io_uring wait, 1..=3600    (default 2)
  --help          this text
  --version       the version

Options take their value as `--opt N` or `--opt=N`.

compare: FILEs are saved runs (stdout or --tsv of uring-repro, the C
standalone's stdout, the formal C reproducer's TSV), one per boot. Three
plain files are the A B A sandwich; LABEL=FILE groups longer series, the
first label is the control. --gate PCT (default 5), --tsv (summary as TSV),
--drop-first (drop each point's first round in the main figures).

exit: 0 pass, 1 check failed, 2 usage, 4 cannot run here (skip)
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&'static str]) -> Result<Command, UsageError<'static>> {
        parse(args.iter().map(|s| s.as_bytes()))
    }

    fn cfg(args: &[&'static str]) -> RunConfig {
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
    }

    #[test]
    fn smoke_shape_and_overrides() {
        let c = cfg(&["--smoke"]);
        assert_eq!((c.rounds, c.cycles, c.warmups, c.smoke), (1, 2, 0, true));
        let c = cfg(&["--cycles", "5", "--smoke"]);
        assert_eq!((c.rounds, c.cycles, c.warmups), (1, 5, 0));
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
        ] {
            assert!(HELP.contains(o), "{o}");
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
}
