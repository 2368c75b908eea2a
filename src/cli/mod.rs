//! Command line -> typed `Command`, through the one table of options
//! (options.rs) that also writes `--help`. Every error names the argument
//! it is about; nothing here can panic on any input.

mod options;
mod suite;

use core::fmt;

pub use options::help;
use options::{
    Value, AB, CALIBRATE, COMPARE, DESCRIBE, INITRAMFS, OPTIONS, POINTS, REPORT, RUN, SELFTEST,
    SUITE,
};

use crate::compare::{self, MAX_LABEL, MAX_POINTS};
use crate::config::{Mode, RunConfig, DEFAULT_GATE_PCT, SMOKE_CYCLES, SMOKE_ROUNDS, TRACE_CYCLES};
use crate::decimal::{self, Refused};
use crate::initramfs::{self, args::ARGS_MAX};
use crate::points;
use crate::profile::{ProfileId, Takes};
use crate::render::Clean;
use crate::suite::Suite;

/// What the command line asks for (parsed once: its size does not matter).
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Command<'a> {
    Run(ProfileId, RunConfig<'a>),
    /// `describe`: the JSON contract of the run these options would make.
    Describe(ProfileId, RunConfig<'a>),
    /// `selftest`: every profile's smoke; only --cpu and --timeout apply.
    Selftest(RunConfig<'a>),
    Compare(compare::Args<'a>),
    /// `report`: compare's points and what the mail adds.
    Report(compare::Args<'a>, compare::Draft<'a>),
    /// `calibrate`: the points' options, and B's injected change in %.
    Calibrate(ProfileId, RunConfig<'a>, f64),
    /// `initramfs`: the archive to write, the run options checked.
    Initramfs(initramfs::Spec<'a>),
    /// `suite`: several workloads' points, one after another.
    Suite(Suite<'a>),
    /// `ab`: scripts/ab.sh's boots in, its table out.
    Ab(compare::AbSpec<'a>),
    /// `ab --check -- RUN-OPTIONS`: they can be judged.
    AbChecked,
    /// `points`: a boot's console, and where its point goes.
    Points(points::Args<'a>),
    Help,
    Version,
}

/// A usage error: the argument as typed and what is wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsageError<'a> {
    /// The command the arguments are for, as its bit (`RUN`, `COMPARE`,
    /// ...): see `command`.
    command: u16,
    /// The argument as typed (`--rounds=0`, or `--rounds` when the value
    /// came as the next argument); empty for the command line as a whole.
    pub arg: &'a [u8],
    /// The separate value (`0` of `--rounds 0`), if that is what is wrong.
    pub value: Option<&'a [u8]>,
    pub why: Why,
    /// The suite item whose run the error is about (`v0`), if one is.
    pub item: Option<&'static str>,
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
    /// compare's --gate.
    Gate,
    /// compare's --mode: not a mode of any table of several series.
    UnknownMode,
    /// --witness=WORD other than optional.
    UnknownWitness,
    /// compare's FILE arguments.
    Files(&'static str),
    /// initramfs: the run options cannot be baked, or -o is missing.
    Initramfs(&'static str),
    /// report's --introduced and --parent.
    Commit,
    /// report's --title and --link: what fits the draft's 72 columns.
    Title,
    Link,
    /// A word after `--help` or `--version` (which end the command line).
    After(&'static str),
    /// suite: a run option of `run` that a suite does not take, and why.
    NotForSuite(&'static str),
    /// suite: an option only some workloads take (`OPTIONS` index), and no
    /// item's takes it.
    NoItemTakes(usize),
    /// suite: an item of `--profiles` that names no item.
    Item(&'static str),
    /// suite: `P:shared` of a workload that does not take `--shared`.
    NoSharedVariant,
    /// suite: an item of `--profiles` that names no workload.
    UnknownItem,
    /// points: a value or the command line as a whole, and why.
    Points(&'static str),
}

impl UsageError<'_> {
    /// `compare`, `calibrate`, `initramfs` or `report` for their errors
    /// (they say so first).
    pub fn command(&self) -> Option<&'static str> {
        match self.command {
            COMPARE => Some("compare"),
            CALIBRATE => Some("calibrate"),
            INITRAMFS => Some("initramfs"),
            REPORT => Some("report"),
            SUITE => Some("suite"),
            AB => Some("ab"),
            POINTS => Some("points"),
            _ => None,
        }
    }
}

impl fmt::Display for UsageError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.command() {
            write!(f, "{c}: ")?;
        }
        if !self.arg.is_empty() {
            write!(f, "{}", Clean(self.arg))?;
            if let Some(v) = self.value {
                write!(f, " {}", Clean(v))?;
            }
            f.write_str(": ")?;
        }
        why(f, self.why)?;
        match self.item {
            Some(item) => write!(f, " for {item}"),
            None => Ok(()),
        }
    }
}

/// What is wrong, in words.
fn why(f: &mut fmt::Formatter<'_>, why: Why) -> fmt::Result {
    let text = match why {
        Why::OutOfRange(lo, hi) => return write!(f, "out of range ({lo}..={hi})"),
        Why::NotForProfile(p) => return write!(f, "does not apply to profile {p}"),
        Why::NotForCommand(c) => return write!(f, "does not apply to {c}"),
        Why::After(o) => return write!(f, "unexpected after {o} (which ends the command line)"),
        Why::UnknownMode => return unknown_mode(f),
        Why::NotForSuite(hint) => return write!(f, "does not apply to suite: {hint}"),
        Why::NoItemTakes(i) => {
            f.write_str("no profile of the suite takes it (taken by ")?;
            options::takers(f, &OPTIONS[i]);
            return f.write_str(")");
        }
        Why::UnknownItem => {
            f.write_str("unknown profile (the profiles:")?;
            for id in ProfileId::ALL {
                write!(f, " {}", id.names().short)?;
            }
            return f.write_str("; P:shared where P takes --shared)");
        }
        Why::NoSharedVariant => {
            f.write_str("no shared variant (P:shared is for a profile that takes --shared:")?;
            for id in ProfileId::ALL.iter().filter(|id| id.takes(Takes::Shared)) {
                write!(f, " {}", id.names().short)?;
            }
            return f.write_str(")");
        }
        Why::UnknownOption => "unknown option (see --help)",
        Why::UnknownCommand => "unknown command (see --help)",
        Why::MissingValue => "needs a value",
        Why::NotANumber => "not a decimal number",
        Why::Duplicate => "given more than once",
        Why::UnknownProfile => "unknown profile (see --help)",
        Why::UnexpectedValue => "takes no value",
        Why::Conflict => "--smoke and --trace exclude each other",
        Why::UnknownRingFlags => "unknown ring flags (none, single-issuer, defer-taskrun)",
        Why::Gate => "needs a percentage in (0, 100], at most 3 decimals",
        Why::UnknownWitness => "takes no value but optional (--witness or --witness=optional)",
        Why::Files(why) | Why::Initramfs(why) | Why::Item(why) | Why::Points(why) => why,
        Why::Commit => "needs a commit id: 7 to 40 hex digits",
        Why::Title => "needs 1 to 50 printable ASCII characters (the Subject line fits 72)",
        Why::Link => "needs a URL of 1 to 66 characters, no blanks (a line fits 72)",
    };
    f.write_str(text)
}

/// `--mode`'s error: the modes there are (`needs a pollwake mode: none,
/// idle, waiter or none_aa`), from every table of several series.
fn unknown_mode(f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("needs")?;
    for (k, id) in ProfileId::ALL
        .into_iter()
        .filter(|id| id.tagged())
        .enumerate()
    {
        let sep = if k == 0 { "" } else { ";" };
        write!(f, "{sep} a {} mode:", id.formal_name())?;
        let modes = id.profile().series.iter().filter_map(|s| s.mode);
        let n = modes.clone().count();
        for (i, m) in modes.enumerate() {
            let sep = match i {
                0 => " ",
                _ if i + 1 == n => " or ",
                _ => ", ",
            };
            write!(f, "{sep}{m}")?;
        }
    }
    Ok(())
}

/// What the options set while the arguments are read.
pub struct Parsed<'a> {
    profile: ProfileId,
    cfg: RunConfig<'a>,
    /// `--smoke` or `--trace`.
    mode: Option<Mode>,
    compare: compare::Args<'a>,
    draft: compare::Draft<'a>,
    /// After compare's `--`: every argument is a FILE.
    files_only: bool,
    /// calibrate's `--inject-pct`.
    inject_pct: f64,
    /// initramfs's `-o`, `--init` and `--boot-id`, and the run options to bake.
    initramfs: Bake<'a>,
    /// suite's `--profiles`: the items, as typed.
    profiles: Option<&'a [u8]>,
    /// ab's gate and output.
    ab: compare::AbSpec<'a>,
    /// points' options.
    points: points::Args<'a>,
}

/// What `initramfs` collects while the arguments are read.
#[derive(Clone, Copy)]
struct Bake<'a> {
    out: Option<&'a [u8]>,
    init: Option<&'a [u8]>,
    boot_id: Option<&'a [u8]>,
    args: [&'a [u8]; ARGS_MAX],
    n: usize,
}

impl<'a> Bake<'a> {
    /// Keeps `arg` for the archive's arguments file.
    fn push(&mut self, arg: &'a [u8]) -> Result<(), Why> {
        if arg.contains(&b'\n') {
            return Err(Why::Initramfs(initramfs::args::Bad::Newline.text()));
        }
        let slot = self
            .args
            .get_mut(self.n)
            .ok_or(Why::Initramfs(initramfs::args::Bad::TooMany.text()))?;
        *slot = arg;
        self.n += 1;
        Ok(())
    }
}

/// How an option of the table was typed: the argument, and its separate
/// value (None: the option was not given).
type Typed<'a> = Option<(&'a [u8], Option<&'a [u8]>)>;

/// The command words and their bits.
const COMMANDS: [(&str, u16); 10] = [
    ("run", RUN),
    ("describe", DESCRIBE),
    ("selftest", SELFTEST),
    ("compare", COMPARE),
    ("calibrate", CALIBRATE),
    ("initramfs", INITRAMFS),
    ("report", REPORT),
    ("suite", SUITE),
    ("ab", AB),
    ("points", POINTS),
];

fn command_name(bit: u16) -> &'static str {
    COMMANDS.iter().find(|c| c.1 == bit).map_or("run", |c| c.0)
}

/// Parses a decimal u32 in lo..=hi: up to 20 digits are a number, one
/// past u64 out of range as any other.
fn number(s: &[u8], lo: u32, hi: u32) -> Result<u32, Why> {
    let range = Why::OutOfRange(lo as u64, hi as u64);
    let v = match decimal::whole(s, 20) {
        Ok(v) => v,
        Err(Refused::TooLarge) => return Err(range),
        Err(_) => return Err(Why::NotANumber),
    };
    if v < lo as u64 || v > hi as u64 {
        return Err(range);
    }
    Ok(v as u32)
}

/// As `/init` of a fresh boot, the arguments start with every bare word of
/// the kernel command line the kernel did not know (`nokaslr`), before the
/// words after its `--`. The leading words that are neither a command nor
/// an option are those: skipped here, each named on `w` as
/// `# ignored kernel parameter: WORD`.
pub fn skip_kernel_words<'a, I: Iterator<Item = &'a [u8]>>(
    args: &mut core::iter::Peekable<I>,
    w: &mut dyn fmt::Write,
) {
    let ours = |a: &&[u8]| a.starts_with(b"-") || COMMANDS.iter().any(|c| c.0.as_bytes() == *a);
    while let Some(word) = args.next_if(|a| !ours(a)) {
        let _ = writeln!(w, "# ignored kernel parameter: {}", Clean(word));
    }
}

/// Parses argv[1..].
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Command<'a>, UsageError<'a>> {
    parse_words(&mut args.into_iter())
}

/// `parse` of words from any iterator, through one body: argv, a suite
/// item's run and `ab --check`'s words come from three kinds of iterator,
/// and a body for each kind would be three copies of the whole parser.
fn parse_words<'a>(
    args: &mut dyn Iterator<Item = &'a [u8]>,
) -> Result<Command<'a>, UsageError<'a>> {
    let mut args = args.peekable();
    let mut command = RUN;
    if let Some(&word) = args.peek().filter(|w| !w.starts_with(b"-")) {
        args.next();
        command = match COMMANDS.iter().find(|c| c.0.as_bytes() == word) {
            Some(c) => c.1,
            None => return Err(error(RUN, word, None, Why::UnknownCommand)),
        };
    }
    let mut p = Parsed {
        profile: ProfileId::S0,
        cfg: RunConfig::default(),
        mode: None,
        compare: compare::Args::default(),
        draft: compare::Draft::default(),
        files_only: false,
        inject_pct: DEFAULT_GATE_PCT as f64,
        initramfs: Bake {
            out: None,
            init: None,
            boot_id: None,
            args: [b""; ARGS_MAX],
            n: 0,
        },
        profiles: None,
        ab: compare::AbSpec::default(),
        points: points::Args::default(),
    };
    // What initramfs bakes: a run, or a suite after the word `suite`.
    let mut baked = RUN;
    let mut typed: [Typed; OPTIONS.len()] = [None; OPTIONS.len()];
    while let Some(arg) = args.next() {
        // initramfs takes the baked command's options as well as its own.
        let takes = if command == INITRAMFS {
            baked | INITRAMFS
        } else {
            command
        };
        let is_option = arg.len() > 1 && arg[0] == b'-';
        if command == AB && p.ab.check && arg == b"--" {
            return ab_check(args);
        }
        if command == AB && !is_option {
            ab_boot(&mut p.ab, arg).map_err(|why| error(command, arg, None, why))?;
            continue;
        }
        if command & (COMPARE | REPORT) != 0 && (p.files_only || !is_option) {
            file(&mut p.compare, arg).map_err(|why| error(command, arg, None, why))?;
            continue;
        }
        let err = |why| error(command, arg, None, why);
        let (name, inline) = match arg.iter().position(|&b| b == b'=') {
            Some(i) if arg.starts_with(b"--") => (&arg[..i], Some(&arg[i + 1..])),
            _ => (arg, None),
        };
        if matches!(name, b"--help" | b"-h" | b"--version") {
            if inline.is_some() {
                return Err(err(Why::UnexpectedValue));
            }
            // Among the options an archive bakes it would end the booted
            // command line, not this one: nothing would run there.
            if command == INITRAMFS && (baked == SUITE || p.initramfs.n > 0) {
                return Err(err(Why::Initramfs(
                    "not a run option to bake (it ends a command line: nothing would run)",
                )));
            }
            let (what, done) = match name {
                b"--version" => ("--version", Command::Version),
                _ => ("--help", Command::Help),
            };
            if let Some(extra) = args.next() {
                return Err(error(command, extra, None, Why::After(what)));
            }
            return Ok(done);
        }
        if command == INITRAMFS && arg == b"suite" {
            if baked == SUITE || p.initramfs.n > 0 {
                return Err(err(Why::Initramfs(
                    "comes once, before the options it bakes",
                )));
            }
            baked = SUITE;
            p.initramfs.push(arg).map_err(err)?;
            continue;
        }
        let named = |o: &&options::Opt| o.name.as_bytes() == name;
        let Some(idx) = OPTIONS
            .iter()
            .position(|o| named(&o) && o.commands & takes != 0)
        else {
            return Err(err(if OPTIONS.iter().any(|o| named(&o)) {
                if takes & SUITE != 0 {
                    suite::not_for_suite(name)
                } else {
                    Why::NotForCommand(command_name(command))
                }
            } else if arg.starts_with(b"-") {
                Why::UnknownOption
            } else {
                Why::UnknownCommand
            }));
        };
        if typed[idx].is_some() && OPTIONS[idx].name != "--link" {
            return Err(err(Why::Duplicate));
        }
        let takes_value = matches!(
            OPTIONS[idx].value,
            Value::Number { .. } | Value::Text { .. }
        );
        let choice = matches!(OPTIONS[idx].value, Value::Choice { .. });
        let value = match inline {
            Some(v) if takes_value || choice => Some(v),
            Some(_) => return Err(err(Why::UnexpectedValue)),
            None if takes_value => Some(args.next().ok_or(err(Why::MissingValue))?),
            None => None,
        };
        let separate = if inline.is_none() { value } else { None };
        typed[idx] = Some((arg, separate));
        if command == INITRAMFS && OPTIONS[idx].commands & INITRAMFS == 0 {
            // A run option: baked as typed, its separate value a line of its own.
            for a in [Some(arg), separate].into_iter().flatten() {
                p.initramfs.push(a).map_err(err)?;
            }
        }
        let verr = |why| error(command, arg, separate, why);
        match OPTIONS[idx].value {
            Value::Flag(set) => set(&mut p),
            Value::Mode(_) if p.mode.is_some() => return Err(err(Why::Conflict)),
            Value::Mode(mode) => p.mode = Some(mode),
            Value::Number { lo, hi, set, .. } => {
                set(&mut p, number(value.unwrap_or(b""), lo, hi).map_err(verr)?)
            }
            Value::Text { set, .. } => set(&mut p, value.unwrap_or(b"")).map_err(verr)?,
            Value::Choice { set, .. } => set(&mut p, value).map_err(verr)?,
        }
    }
    let given = |name: &str| {
        OPTIONS
            .iter()
            .zip(&typed)
            .any(|(o, t)| o.name == name && t.is_some())
    };
    if given("--gate") && given("--gate-insn") {
        let why = Why::Files("--gate and --gate-insn are two gates: give one");
        return Err(error(command, b"", None, why));
    }
    if command == COMPARE {
        return compare_args(COMPARE, p.compare).map(Command::Compare);
    }
    if command == AB {
        return ab_spec(p);
    }
    if command == REPORT {
        let a = compare_args(REPORT, p.compare)?;
        if (1..a.n).all(|i| a.labels[i] == a.labels[0]) {
            let why = Why::Files("needs a control and a label to compare with it");
            return Err(error(REPORT, b"", None, why));
        }
        if let Some(why) = p.draft.refused(&a) {
            return Err(error(REPORT, b"", None, Why::Files(why)));
        }
        return Ok(Command::Report(a, p.draft));
    }
    if command == POINTS {
        return points_args(p.points).map(Command::Points);
    }
    if command == SUITE || baked == SUITE {
        let s = suite::items(command, p.profiles, &typed)?;
        if command == SUITE {
            return Ok(Command::Suite(s));
        }
        return initramfs_spec(p.initramfs);
    }
    run_config(command, p, &typed)
}

fn error<'a>(command: u16, arg: &'a [u8], value: Option<&'a [u8]>, why: Why) -> UsageError<'a> {
    UsageError {
        command,
        arg,
        value,
        why,
        item: None,
    }
}

/// The run a `run`, `describe` or `selftest` command line describes:
/// --smoke/--trace set the mode, and its rounds, cycles and warm-ups where
/// those are not given; `--slots` is at most the workload's most (v0's
/// groups); the workload must take every option given.
fn run_config<'a>(
    command: u16,
    mut p: Parsed<'a>,
    typed: &[Typed<'a>; OPTIONS.len()],
) -> Result<Command<'a>, UsageError<'a>> {
    let given = |name: &str| {
        let i = OPTIONS
            .iter()
            .position(|o| o.name == name && o.commands & RUN != 0);
        i.and_then(|i| typed[i])
    };
    let cfg = &mut p.cfg;
    if let Some(mode) = p.mode {
        cfg.mode = mode;
        let cycles = if mode == Mode::Smoke {
            SMOKE_CYCLES
        } else {
            TRACE_CYCLES
        };
        for (name, v, default) in [
            ("--rounds", &mut cfg.rounds, SMOKE_ROUNDS),
            ("--cycles", &mut cfg.cycles, cycles),
            ("--warmups", &mut cfg.warmups, 0),
        ] {
            if given(name).is_none() {
                *v = default;
            }
        }
    }
    let id = p.profile;
    let max_slots = id.profile().options.max_slots;
    match given("--slots") {
        None => cfg.slots = id.default_slots(),
        Some((arg, value)) if cfg.slots > max_slots => {
            let why = Why::OutOfRange(1, max_slots as u64);
            return Err(error(command, arg, value, why));
        }
        Some(_) => {}
    }
    let not_for_profile = Why::NotForProfile(id.formal_name());
    for (o, t) in OPTIONS.iter().zip(typed) {
        if let Some((arg, _)) = t {
            if !options::takes(id, o) {
                return Err(error(command, arg, None, not_for_profile));
            }
        }
    }
    if command == INITRAMFS {
        return initramfs_spec(p.initramfs);
    }
    Ok(match command {
        DESCRIBE => Command::Describe(id, p.cfg),
        SELFTEST => Command::Selftest(p.cfg),
        CALIBRATE => Command::Calibrate(id, p.cfg, p.inject_pct),
        _ => Command::Run(id, p.cfg),
    })
}

/// initramfs's archive: -o given, the run options fit the arguments file.
fn initramfs_spec(b: Bake<'_>) -> Result<Command<'_>, UsageError<'_>> {
    let whole = |why| error(INITRAMFS, b"", None, Why::Initramfs(why));
    let out = b.out.ok_or(whole("-o FILE is required (see --help)"))?;
    let args = &b.args[..b.n.min(ARGS_MAX)];
    if let Err(bad) = initramfs::args::check(args) {
        // Each argument was checked as it came: what is left is their sum.
        return Err(whole(bad.text()));
    }
    Ok(Command::Initramfs(initramfs::Spec {
        out,
        init: b.init.unwrap_or(initramfs::DEFAULT_INIT),
        boot_id: b.boot_id,
        args: b.args,
        n: b.n,
    }))
}

/// `ab --check -- RUN-OPTIONS`: the run options of scripts/ab.sh's boots,
/// checked before anything is built: a suite's (as `suite` checks them,
/// so every usage error names what was typed), and of two rounds or more,
/// as ab's verdict pairs the head's rounds with the base's (`Gate::Insn`).
/// `--help` and `--version` end a command line rather than baking into
/// one: not run options.
fn ab_check<'a>(rest: impl Iterator<Item = &'a [u8]>) -> Result<Command<'a>, UsageError<'a>> {
    let mut words: [&[u8]; 64] = [b""; 64];
    let mut n = 1;
    words[0] = b"suite";
    for w in rest {
        let name = w.split(|&b| b == b'=').next().unwrap_or(w);
        if matches!(name, b"--help" | b"-h" | b"--version") {
            let why = Why::Files("not a run option: it ends a command line, nothing is booted");
            return Err(error(AB, w, None, why));
        }
        if n == words.len() {
            return Err(error(
                AB,
                w,
                None,
                Why::Files("more run options than a boot takes"),
            ));
        }
        (words[n], n) = (w, n + 1);
    }
    let Command::Suite(s) = parse(words[..n].iter().copied())? else {
        return Err(error(
            AB,
            b"",
            None,
            Why::Files("not the options of a suite"),
        ));
    };
    if s.items().iter().any(|i| i.cfg.rounds < 2) {
        // The words that made it one round: --rounds (and its value), else
        // --smoke or --trace.
        let given = &words[1..n];
        let at = given.iter().rposition(|w| w.starts_with(b"--rounds"));
        let at = at.or(given
            .iter()
            .rposition(|w| *w == b"--smoke" || *w == b"--trace"));
        let (arg, value) = match at {
            Some(i) => (
                given[i],
                given.get(i + 1).filter(|_| given[i] == b"--rounds"),
            ),
            None => (&b"--rounds"[..], None),
        };
        let why = Why::Files(
            "ab's verdict needs 2 rounds or more (each round of the head is paired with the \
             same round of the base)",
        );
        return Err(error(AB, arg, value.copied(), why));
    }
    Ok(Command::AbChecked)
}

/// ab's command line: every SUITE labelled, two labels at least, at most
/// MAX_STEPS of them and MAX_STEP_BOOTS boots of each.
fn ab_spec(p: Parsed<'_>) -> Result<Command<'_>, UsageError<'_>> {
    let mut spec = p.ab;
    let whole = |why| error(AB, b"", None, Why::Files(why));
    if spec.n == 0 {
        return Err(whole("needs LABEL=SUITE for each boot (see --help)"));
    }
    if (1..spec.n).all(|i| spec.labels[i] == spec.labels[0]) {
        return Err(whole("needs a base and a label to compare with it"));
    }
    if spec.steps().count() > compare::AB_MAX_STEPS {
        return Err(whole("more than 16 labels (steps)"));
    }
    if spec.steps().any(|l| {
        spec.labels[..spec.n].iter().filter(|&&m| m == l).count() > compare::AB_MAX_STEP_BOOTS
    }) {
        return Err(whole("more than 8 boots of one label"));
    }
    (spec.introduced, spec.parent) = (p.draft.introduced, p.draft.parent);
    spec.re = p.draft.re;
    Ok(Command::Ab(spec))
}

/// One `LABEL=SUITE` of ab.
fn ab_boot<'a>(spec: &mut compare::AbSpec<'a>, arg: &'a [u8]) -> Result<(), Why> {
    if spec.n == compare::AB_MAX_BOOTS {
        return Err(Why::Files("more than 32 boots"));
    }
    let Some(i) = arg.iter().position(|&b| b == b'=') else {
        return Err(Why::Files(
            "a boot is LABEL=SUITE (its directory of points)",
        ));
    };
    let (label, dir) = (&arg[..i], &arg[i + 1..]);
    if !label_ok(label) {
        return Err(Why::Files(
            "a label is 1-12 of A-Z a-z 0-9 _ . + - (write ./FILE for a path)",
        ));
    }
    if dir.is_empty() {
        return Err(Why::Files("no directory name"));
    }
    (spec.labels[spec.n], spec.dirs[spec.n]) = (label, dir);
    spec.n += 1;
    Ok(())
}

/// points' options, checked whole: a console and a path; a map only for
/// counts.
fn points_args(a: points::Args<'_>) -> Result<points::Args<'_>, UsageError<'_>> {
    let whole = |why| error(POINTS, b"", None, Why::Points(why));
    if a.console.is_none() || a.out.is_none() {
        return Err(whole(
            "--console FILE and -o PATH are required (see --help)",
        ));
    }
    if a.map.is_some() && a.counts.is_none() {
        return Err(whole("--map checks the counts: it needs --counts"));
    }
    Ok(a)
}

fn label_ok(l: &[u8]) -> bool {
    !l.is_empty()
        && l.len() <= MAX_LABEL
        && l.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_.+-".contains(&b))
}

/// One `[LABEL=]FILE` of compare: LABEL=FILE when what precedes the first
/// '=' has no '/'; every file labelled or none.
fn file<'a>(a: &mut compare::Args<'a>, arg: &'a [u8]) -> Result<(), Why> {
    if a.n == MAX_POINTS {
        return Err(Why::Files("more than 16 files"));
    }
    let (label, file) = match arg.iter().position(|&b| b == b'=') {
        Some(i) if !arg[..i].contains(&b'/') => (Some(&arg[..i]), &arg[i + 1..]),
        _ => (None, arg),
    };
    if label.is_some_and(|l| !label_ok(l)) {
        return Err(Why::Files(
            "a label is 1-12 of A-Z a-z 0-9 _ . + - (write ./FILE for a path)",
        ));
    }
    if file.is_empty() {
        return Err(Why::Files("no file name"));
    }
    if a.n > 0 && a.labels[0].is_some() != label.is_some() {
        return Err(Why::Files("label every file or none"));
    }
    a.labels[a.n] = label;
    a.files[a.n] = Some(file);
    a.n += 1;
    Ok(())
}

/// compare's arguments, checked whole: at least one file; plain files are
/// the sandwich's `A B A` (or `A B`, `A`); `--bisect` takes `good=` and
/// `bad=` points and one `new=`.
fn compare_args(
    command: u16,
    mut a: compare::Args<'_>,
) -> Result<compare::Args<'_>, UsageError<'_>> {
    let whole = |why| error(command, b"", None, Why::Files(why));
    if a.n == 0 {
        return Err(whole("needs at least one result file (see --help)"));
    }
    if a.bisect {
        if a.tsv || a.drop_first {
            return Err(whole("--bisect takes neither --tsv nor --drop-first"));
        }
        if matches!(a.gate, compare::Gate::Insn(_)) {
            return Err(whole(
                "--bisect judges at a gate in % (--gate), not --gate-insn",
            ));
        }
        let count = |l: &[u8]| (0..a.n).filter(|&i| a.labels[i] == Some(l)).count();
        let (good, bad, new) = (count(b"good"), count(b"bad"), count(b"new"));
        if good + bad + new != a.n || good == 0 || bad == 0 || new != 1 {
            return Err(whole(
                "--bisect needs good=FILE... bad=FILE... and one new=FILE",
            ));
        }
    }
    if a.labels[0].is_none() {
        if a.n > 3 {
            let why = Why::Files("4 or more plain files: label them (LABEL=FILE)");
            return Err(error(command, a.file(3), None, why));
        }
        let plain: [Option<&[u8]>; 3] = [Some(b"A"), Some(b"B"), Some(b"A")];
        a.labels[..a.n].copy_from_slice(&plain[..a.n]);
        a.plain = true;
    }
    Ok(a)
}

#[cfg(test)]
mod tests;
