//! The options table: one row per option (perf bench's `OPT_UINTEGER`
//! shape: name, value and range, where it applies, what it sets, help).
//! It drives the parser, every range check and `--help` alike.

use core::fmt::Write;

use super::{Parsed, Why};
use crate::compare;
use crate::config::*;
use crate::exit;
use crate::fmt::{self, Line};
use crate::profile::ProfileId;

/// The commands, as bits of `Opt::commands`.
pub const RUN: u8 = 1;
pub const DESCRIBE: u8 = 2;
pub const SELFTEST: u8 = 4;
pub const COMPARE: u8 = 8;
pub const CALIBRATE: u8 = 16;
/// `initramfs`: its own options and every option of `run` (parsed as `run`).
pub const INITRAMFS: u8 = 32;
pub const REPORT: u8 = 64;

/// The profiles an option applies to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum For {
    Any,
    /// Every profile but pollwake.
    Futex,
    Pollwake,
}

/// What follows an option, and what it sets.
#[derive(Clone, Copy)]
pub enum Value {
    Flag(fn(&mut Parsed)),
    /// `--smoke` or `--trace`: the run's shape (one of them at most).
    Shape(Mode),
    /// A decimal number in `lo..=hi`, named `meta` in the help.
    Number {
        meta: &'static str,
        lo: u32,
        hi: u32,
        set: fn(&mut Parsed, u32),
    },
    /// A flag that may carry a word inline only (`--opt` or `--opt=WORD`),
    /// shown as `--opt[=meta]`.
    Choice {
        meta: &'static str,
        set: fn(&mut Parsed, Option<&[u8]>) -> Result<(), Why>,
    },
    /// A word, named `meta` in the help.
    Text {
        meta: &'static str,
        set: for<'a> fn(&mut Parsed<'a>, &'a [u8]) -> Result<(), Why>,
    },
}

/// The default `--help` shows for an option.
#[derive(Clone, Copy)]
pub enum Shown {
    None,
    /// A number, and what follows it.
    Num(u32, &'static str),
    Word(&'static str),
}

pub struct Opt {
    pub name: &'static str,
    pub value: Value,
    pub commands: u8,
    pub profiles: For,
    /// One line; `{}` stands for the range of a number.
    pub help: &'static str,
    pub default: Shown,
}

const fn opt(
    name: &'static str,
    value: Value,
    commands: u8,
    profiles: For,
    help: &'static str,
    default: Shown,
) -> Opt {
    Opt {
        name,
        value,
        commands,
        profiles,
        help,
        default,
    }
}

const fn num(meta: &'static str, lo: u32, hi: u32, set: fn(&mut Parsed, u32)) -> Value {
    Value::Number { meta, lo, hi, set }
}

const fn text(
    meta: &'static str,
    set: for<'a> fn(&mut Parsed<'a>, &'a [u8]) -> Result<(), Why>,
) -> Value {
    Value::Text { meta, set }
}

fn profile(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.profile = ProfileId::parse(v).ok_or(Why::UnknownProfile)?;
    Ok(())
}

fn tsv<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.cfg.tsv = Some(v).filter(|v| !v.is_empty());
    p.cfg.tsv.map(|_| ()).ok_or(Why::MissingValue)
}

fn output<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.initramfs.out = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

fn init<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.initramfs.init = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

fn witness(p: &mut Parsed, v: Option<&[u8]>) -> Result<(), Why> {
    p.cfg.witness = match v {
        None => Witness::Required,
        Some(b"optional") => Witness::Optional,
        Some(_) => return Err(Why::UnknownWitness),
    };
    Ok(())
}

fn ring_flags(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.cfg.ring_flags = RingFlags::parse(v).ok_or(Why::UnknownRingFlags)?;
    Ok(())
}

/// A percentage in (0, 100] of at most 3 decimals: `--gate`, `--inject-pct`.
fn percent(v: &[u8]) -> Result<f64, Why> {
    compare::percent(v).ok_or(Why::Gate)
}

fn inject_pct(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.inject_pct = percent(v)?;
    Ok(())
}

fn gate(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.compare.gate = percent(v)?;
    Ok(())
}

fn commit(v: &[u8]) -> Result<Option<&[u8]>, Why> {
    let hex = (7..=40).contains(&v.len()) && v.iter().all(u8::is_ascii_hexdigit);
    hex.then_some(Some(v)).ok_or(Why::Commit)
}

fn title<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let ok =
        (1..=compare::MAX_TITLE).contains(&v.len()) && v.iter().all(|b| (b' '..=b'~').contains(b));
    p.draft.title = ok.then_some(v).ok_or(Why::Title)?.into();
    Ok(())
}

fn link<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let ok =
        (1..=compare::MAX_LINK).contains(&v.len()) && v.iter().all(|b| (b'!'..=b'~').contains(b));
    let d = &mut p.draft;
    if d.n_links == compare::MAX_LINKS {
        return Err(Why::Files("at most 4 links"));
    }
    d.links[d.n_links] = Some(ok.then_some(v).ok_or(Why::Link)?);
    d.n_links += 1;
    Ok(())
}

/// A mode word; which modes there are, the points' series lines say.
fn mode<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let word = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_';
    let ok = (1..=32).contains(&v.len()) && v.iter().all(word);
    p.compare.mode = Some(ok.then_some(v).ok_or(Why::PollwakeMode)?);
    Ok(())
}

const RUNS: u8 = RUN | DESCRIBE;
/// What shapes a point: `run`, `describe` and the points of `calibrate`.
const POINTS: u8 = RUN | DESCRIBE | CALIBRATE;
const ALL: u8 = RUN | DESCRIBE | SELFTEST | CALIBRATE;
use For::{Any, Futex, Pollwake};
use Shown::{Num, Word};

/// Every option, in `--help` order. `--help`/`-h` and `--version` are the
/// parser's own (they end it wherever they stand).
#[rustfmt::skip]
pub const OPTIONS: [Opt; 29] = [
    opt("--profile", text("P", profile), POINTS, Any,
        "workload, see above", Word("s0")),
    opt("--smoke", Value::Shape(Mode::Smoke), POINTS, Any,
        "2 cycles, 1 round, no warm-up (explicit options still win)", Shown::None),
    opt("--trace", Value::Shape(Mode::Trace), RUNS, Any,
        "16 cycles, 1 round, no warm-up: a window with ftrace markers", Shown::None),
    opt("--cpu", num("N", 0, MAX_CPU, |p, v| p.cfg.cpu = Some(v)), ALL, Any,
        "CPU to pin to", Num(DEFAULT_CPU, ", else the highest allowed")),
    opt("--rounds", num("N", 1, MAX_ROUNDS, |p, v| p.cfg.rounds = v), POINTS, Any,
        "measured rounds, {}", Num(DEFAULT_ROUNDS, "")),
    opt("--cycles", num("N", 1, MAX_CYCLES, |p, v| p.cfg.cycles = v), POINTS, Any,
        "cycles per round, {}", Num(DEFAULT_CYCLES, "")),
    opt("--warmups", num("N", 0, MAX_WARMUPS, |p, v| p.cfg.warmups = v), POINTS, Any,
        "untimed warm-up rounds, {}", Num(DEFAULT_WARMUPS, "")),
    opt("--slots", num("N", 1, MAX_SLOTS, |p, v| p.cfg.slots = v), POINTS, Futex,
        "requests a cycle, {}; v0: groups, 1..=8", Num(DEFAULT_SLOTS, "; v0 8")),
    opt("--shared", Value::Flag(|p| p.cfg.shared = true), POINTS, Futex,
        "no FUTEX2_PRIVATE, memory still private (s0 c0 v0 z0 e0)", Shown::None),
    opt("--timeout", num("SECS", 1, MAX_TIMEOUT_S, |p, v| p.cfg.timeout_s = v), ALL, Any,
        "bound on every io_uring wait in seconds, {}", Num(DEFAULT_TIMEOUT_S, "")),
    opt("--tsv", text("FILE", tsv), RUN, Futex,
        "also the formal TSV rows, to FILE (never overwritten)", Shown::None),
    opt("--inject-ns", num("N", 0, MAX_INJECT_NS, |p, v| p.cfg.inject_ns = v), RUNS, Any,
        "positive control: N ns more per pair, {}", Num(0, "")),
    opt("--witness", Value::Choice { meta: "optional", set: witness }, RUN, Any,
        "the kernel's own counts: ftrace events, functions", Shown::None),
    opt("--burst", num("N", 1, MAX_BURST, |p, v| p.cfg.burst = v), POINTS, Pollwake,
        "MSG_RING messages per burst, {}", Num(DEFAULT_BURST, "")),
    opt("--waiter-cpu", num("N", 0, MAX_CPU, |p, v| p.cfg.waiter_cpu = Some(v)), POINTS, Pollwake,
        "CPU of the waiter thread", Word("--cpu's")),
    opt("--ring-flags", text("F", ring_flags), POINTS, Pollwake,
        "none | single-issuer | defer-taskrun", Word("none")),
    opt("--inject-pct", text("PCT", inject_pct), CALIBRATE, Any,
        "B's injected change, 0 < PCT <= 100", Num(DEFAULT_GATE_PCT, ", the gate")),
    opt("--gate", text("PCT", gate), COMPARE | REPORT, Any,
        "the preregistered gate, 0 < PCT <= 100", Num(DEFAULT_GATE_PCT, "")),
    opt("--drop-first", Value::Flag(|p| p.compare.drop_first = true), COMPARE, Any,
        "figures without each point's first round", Word("all rounds")),
    opt("--tsv", Value::Flag(|p| p.compare.tsv = true), COMPARE, Any,
        "the result summary as TSV instead of text", Shown::None),
    opt("--mode", text("M", mode), COMPARE | REPORT, Any,
        "pollwake results: the mode compared, none|idle|waiter|none_aa", Shown::None),
    opt("--bisect", Value::Flag(|p| p.compare.bisect = true), COMPARE, Any,
        "git bisect run: judge new= against good= and bad=", Shown::None),
    opt("--introduced", text("SHA", |p, v| { p.draft.introduced = commit(v)?; Ok(()) }),
        REPORT, Any, "the commit the regression is claimed for, the test's", Shown::None),
    opt("--parent", text("SHA", |p, v| { p.draft.parent = commit(v)?; Ok(()) }), REPORT, Any,
        "the control's commit", Shown::None),
    opt("--title", text("TEXT", title), REPORT, Any,
        "the subject, at most 50 characters", Word("derived")),
    opt("--link", text("URL", link), REPORT, Any,
        "a Link: line, at most 66 characters; up to 4", Shown::None),
    opt("--", Value::Flag(|p| p.files_only = true), COMPARE | REPORT, Any,
        "every argument after it is a FILE", Shown::None),
    opt("-o", text("FILE", output), INITRAMFS, Any,
        "the cpio to write, required (never overwritten)", Shown::None),
    opt("--init", text("PATH", init), INITRAMFS, Any,
        "the /init to embed", Word("/proc/self/exe")),
];

/// What `--help` says above and between the option lists.
const USAGE: &str = "\
usage: uring-repro [run] [options]       measure (the default command)
       uring-repro describe [options]  the contract they run, as JSON
       uring-repro selftest [--cpu N] [--timeout SECS]
                                       every workload's smoke (TAP 13)
       uring-repro compare [--gate PCT] [--tsv] [--drop-first] [--mode M]
                           [LABEL=]FILE...
                                       saved runs: the A B A sandwich, series
       uring-repro compare --bisect [--gate PCT] [--mode M]
                           good=FILE... bad=FILE... new=FILE
                                       one git bisect run step: 0 1 125 128
       uring-repro calibrate [options] [--inject-pct PCT]
                                       positive control: can this box see it?
       uring-repro initramfs -o FILE [--init PATH] [options]
                                       a bootable cpio: /init runs the options
       uring-repro report [--gate PCT] [--mode M] [--introduced SHA]
                          [--parent SHA] [--title TEXT] [--link URL]...
                          LABEL=FILE...
                                       the regression mail, drafted
       uring-repro --help | --version

Reproduces the io_uring futex WAIT->WAKE microbenchmark behind the regression
report on Linux commit 079afb081c42 and validates every completion.
";

const COMPARE_TEXT: &str = "FILEs are saved runs, one per boot (stdout or --tsv \
    of uring-repro, the C standalone's stdout, the formal C reproducer's TSV, at most 16). \
    Three plain FILEs are the A B A sandwich; LABEL=FILE points with one label form a \
    group, each label compared with the first one (docs/compare.md):";

const REPORT_TEXT: &str = "compare's FILEs and labels, the first label the control; \
    prints a plain-text mail draft of at most 72 columns: the points, the workload from \
    their banners, the table, the verdict as a claim, the checks, witness, `#regzbot` and \
    how to reproduce. A fact a point does not state is left out and named on stderr; \
    exit 1 when a point failed its checks (the draft says NOT EVIDENCE; docs/report.md):";

const CALIBRATE_TEXT: &str = "six points A B A B A B in one process, with the run \
    options (not --trace, --tsv, --inject-ns); B spins PCT% of A's mean more per pair. \
    Prints the A/A noise floor, B vs A with its 95% CI, and one `# calibrate:` line; \
    exit 0 when the CI holds the injected change and excludes 0 (docs/calibrate.md):";

const INITRAMFS_TEXT: &str = "writes FILE, an uncompressed newc cpio: /init (this \
    binary, or --init's, such as another architecture's build), /dev/console, /proc, /sys \
    and /uring-repro.args, the options (checked as run checks them) one a line. Booted \
    with nothing after `--` on the kernel command line, /init runs those; arguments after \
    `--` win (README: Boot a kernel into a point):";

/// The commands with options of their own, in --help's order: what each
/// does (wrapped after its name, then its options follow).
const SECTIONS: [(&str, &str, u8); 4] = [
    ("compare", COMPARE_TEXT, COMPARE),
    ("calibrate", CALIBRATE_TEXT, CALIBRATE),
    ("initramfs", INITRAMFS_TEXT, INITRAMFS),
    ("report", REPORT_TEXT, REPORT),
];

/// Where help text wraps.
const WIDTH: usize = 80;
/// Where an item's text starts, and its default (from there).
const INDENT: usize = 18;
const DEFAULT_AT: usize = 42;

/// `  LEFT  text`, the text starting at `indent` (on the next line when
/// LEFT is wider) and wrapped at WIDTH.
fn item(w: &mut dyn Write, left: &str, text: &str, indent: usize) {
    let _ = write!(w, "  {left}");
    if 2 + left.len() >= indent {
        let _ = write!(w, "\n{:indent$}", "");
    } else {
        let _ = write!(w, "{:1$}", "", indent - 2 - left.len());
    }
    fmt::wrap(w, text, indent, indent, WIDTH);
}

/// An option's line: its name and value, its help (the range filled in),
/// and its default in a column of its own.
fn option(w: &mut dyn Write, o: &Opt) {
    let mut left = Line::new();
    let mut text = Line::new();
    let _ = match o.value {
        Value::Flag(_) | Value::Shape(_) => write!(left, "{}", o.name),
        Value::Number { meta, .. } | Value::Text { meta, .. } => write!(left, "{} {meta}", o.name),
        Value::Choice { meta, .. } => write!(left, "{}[={meta}]", o.name),
    };
    let (before, after) = o.help.split_once("{}").unwrap_or((o.help, ""));
    let _ = text.write_str(before);
    if let (Value::Number { lo, hi, .. }, true) = (o.value, o.help.contains("{}")) {
        let _ = write!(text, "{lo}..={hi}");
    }
    let _ = text.write_str(after);
    let mut default = Line::new();
    let _ = match o.default {
        Shown::None => Ok(()),
        Shown::Num(n, more) => write!(default, "(default {n}{more})"),
        Shown::Word(s) => write!(default, "(default {s})"),
    };
    // The default in its column where it fits, else after the help, else
    // on a line of its own. (Every option's help fits one line.)
    let (len, dlen) = (text.as_bytes().len(), default.as_bytes().len());
    // A name and value as wide as the column: the help on the next line.
    let _ = match left.as_bytes().len() >= INDENT - 2 {
        true => write!(w, "  {}\n{:INDENT$}{text}", left.as_str(), ""),
        false => write!(w, "  {:<1$}{text}", left.as_str(), INDENT - 2),
    };
    let _ = if dlen == 0 {
        writeln!(w)
    } else if INDENT + len.max(DEFAULT_AT) + dlen <= WIDTH {
        writeln!(
            w,
            "{:1$}{default}",
            "",
            DEFAULT_AT.saturating_sub(len).max(1)
        )
    } else if INDENT + len + 1 + dlen <= WIDTH {
        writeln!(w, " {default}")
    } else {
        writeln!(w, "\n{:1$}{default}", "", WIDTH - dlen)
    };
}

/// The options of `commands` for `profiles`, in table order.
fn options(w: &mut dyn Write, commands: u8, profiles: &[For]) {
    for o in OPTIONS.iter().filter(|o| o.commands & commands != 0) {
        if profiles.contains(&o.profiles) && o.name != "--" {
            option(w, o);
        }
    }
}

/// `--help`: every command, profile, option with its range and default,
/// and every exit code.
pub fn help(w: &mut dyn Write) {
    let _ = writeln!(w, "{USAGE}\nprofiles (--profile, short or long name):");
    for id in ProfileId::ALL {
        let n = id.names();
        let mut left = Line::new();
        let _ = write!(left, "{} {}", n.short, n.long);
        item(w, left.as_str(), n.help, INDENT);
    }
    let _ = writeln!(w, "\noptions (defaults are the report's contract):");
    options(w, RUN | DESCRIBE, &[For::Any, For::Futex]);
    item(w, "--help", "this text", INDENT);
    item(w, "--version", "the version", INDENT);
    let _ = writeln!(w, "\npollwake only:");
    options(w, RUN, &[For::Pollwake]);
    for (name, text, command) in SECTIONS {
        let _ = write!(w, "\n{name}: ");
        fmt::wrap(w, text, name.len() + 2, 0, WIDTH);
        options(w, command, &[For::Any]);
    }
    let _ = writeln!(
        w,
        "\nOptions take their value as `--opt N` or `--opt=N`.\n\nexit codes:"
    );
    for (code, meaning) in exit::MEANINGS {
        let mut left = Line::new();
        let _ = write!(left, "{code}");
        item(w, left.as_str(), meaning, 8);
    }
}
