//! Dispatch: argv -> command -> run, suite, describe, selftest, compare,
//! report, calibrate, initramfs or points -> exit code. Every non-zero exit writes one stderr line
//! naming its cause (a closed stdout under a command that passed aside:
//! nobody is listening). A write stdout lost is told after every command,
//! whatever its verdict (`Exit::with_stdout`).

use core::fmt::Write;

use crate::cli::{self, Command};
use crate::config::{HostBootId, RunConfig, Timebase, VERSION};
use crate::exit::{self, Exit};
use crate::initramfs::{self, args, boot_id};
use crate::profile::contract::Contract;
use crate::profile::{self, ProfileId};
use crate::render::Clean;
use crate::rt::{pid1, StartInfo};
use crate::sys::clock::Clock;
use crate::sys::out::Out;
use crate::sys::uapi::AT_SYSINFO_EHDR;
use crate::sys::{signal, CPU_SET_BYTES};
use crate::{calibrate, compare, points, selftest, suite, tsv};

/// The process's entry point after `_start`; returns the exit code.
pub fn main(start: &StartInfo) -> i32 {
    // A write to a closed pipe or past `ulimit -f` must fail (EPIPE,
    // EFBIG), not kill the process with a file cut short. rt_sigaction
    // cannot fail for these two; if it did, the default actions stay.
    let _ = signal::ignore_write_signals();
    let mut out = Out::new(1);
    let mut baked = [0u8; args::FILE_MAX + 1];
    let mut id_file = [0u8; boot_id::FILE_LEN + 1];
    let archived = boot_id::read(pid1::is_init(), &mut id_file);
    let mut given = start.args().peekable();
    if pid1::is_init() {
        // Not arguments: they never stand for the baked ones either.
        cli::skip_kernel_words(&mut given, &mut out);
    }
    // compare --bisect speaks git bisect run's language, where 1 is "bad".
    let mut bisect = false;
    let verdict = match args::argv(given, pid1::is_init(), &mut baked) {
        Ok(argv) => command(argv, start, archived, &mut out, &mut bisect),
        Err(e) => e,
    };
    // Every command's output, whatever its verdict: a write lost here
    // is told too.
    out.flush();
    verdict.with_stdout(out.error(), bisect).report()
}

/// Parses `argv` and runs the command it names, its output on `out`;
/// `archived` is the boot id the initramfs gave (boot_id.rs); `bisect` is
/// set for `compare --bisect`.
fn command<'a>(
    argv: impl Iterator<Item = &'a [u8]>,
    start: &StartInfo,
    archived: Archived<'a>,
    out: &mut Out,
    bisect: &mut bool,
) -> Exit {
    match cli::parse(argv) {
        Ok(Command::Help) => {
            cli::help(out);
            Exit::pass()
        }
        Ok(Command::Version) => {
            let _ = writeln!(out, "uring-repro {VERSION}");
            Exit::pass()
        }
        Ok(Command::Compare(args)) => {
            *bisect = args.bisect;
            Exit::printed(compare::main(&args, out))
        }
        Ok(Command::Ab(spec)) => compare::ab(&spec, out),
        Ok(Command::AbChecked) => Exit::pass(),
        Ok(Command::Report(args, draft)) => {
            Exit::printed(compare::report(&args, &draft, &mut start.args(), out))
        }
        Ok(Command::Run(id, cfg)) => match environment(start, archived, cfg) {
            Ok(cfg) => {
                catch_interrupts();
                let e = profile::run(id, &cfg, &clock(start), out);
                if let Some(path) = cfg.tsv.filter(|_| pid1::is_init()) {
                    tsv::echo_if_volatile(path, out);
                }
                e
            }
            Err(e) => e,
        },
        Ok(Command::Suite(mut s)) => {
            for item in s.items_mut() {
                match environment(start, archived, item.cfg) {
                    Ok(cfg) => item.cfg = cfg,
                    Err(e) => return e,
                }
            }
            catch_interrupts();
            suite::run(&s, &clock(start), out)
        }
        Ok(Command::Initramfs(spec)) => {
            // Caught so that an interrupted archive leaves no partial file.
            catch_interrupts();
            initramfs::write(&spec)
        }
        Ok(Command::Points(args)) => {
            // Caught so that an interrupted point leaves no partial file.
            catch_interrupts();
            points::main(&args, out)
        }
        Ok(Command::Describe(id, cfg)) => describe(id, &cfg, out),
        Ok(Command::Calibrate(id, cfg, pct)) => match environment(start, archived, cfg) {
            Ok(cfg) => {
                catch_interrupts();
                calibrate::run(id, &cfg, pct, &clock(start), out)
            }
            Err(e) => e,
        },
        Ok(Command::Selftest(cfg)) => {
            catch_interrupts();
            Exit::printed(selftest::run(&cfg, &clock(start), out))
        }
        Err(e) => {
            // Under `git bisect run` a usage error must stop the bisect,
            // not mark the commit bad.
            let bisect = e.command() == Some("compare") && start.args().any(|a| a == b"--bisect");
            let code = if bisect {
                exit::BISECT_STOP
            } else {
                exit::USAGE
            };
            Exit::new(code, format_args!("{e}"))
        }
    }
}

/// From here on SIGINT and SIGTERM end a run after its current cycle, with
/// the finished rounds reported (exit 130), a suite with that run, and
/// `initramfs` after its
/// current write, its partial file removed. rt_sigaction cannot fail for
/// these two; if it did, a signal would end the process by its default
/// action, as before.
fn catch_interrupts() {
    let _ = signal::catch_interrupts();
}

/// What the initramfs says of the boot's identity (boot_id.rs).
type Archived<'a> = Result<Option<HostBootId<'a>>, boot_id::Unusable>;

/// `cfg` measured as the environment says: on the timebase it names
/// (`URING_REPRO_TIMEBASE`, wall unless it says icount), on the boot its
/// host named (`URING_REPRO_BOOT_ID` if set, else the initramfs's
/// `/uring-repro.boot_id`, `archived`, if it has one). A value of either
/// that cannot be one is a usage error naming it.
fn environment<'a>(
    start: &StartInfo,
    archived: Archived<'a>,
    mut cfg: RunConfig<'a>,
) -> Result<RunConfig<'a>, Exit> {
    cfg.timebase = Timebase::from_env(start.env()).map_err(|value| {
        let name = Timebase::ENV;
        let value = Clean(value);
        Exit::new(
            exit::USAGE,
            format_args!("{name}={value}: unknown timebase (wall or icount)"),
        )
    })?;
    let (file, len) = (HostBootId::FILE, HostBootId::LEN);
    cfg.boot_id = match HostBootId::from_env(start.env()) {
        Ok(None) => archived.map_err(|why| match why {
            boot_id::Unusable::Unreadable(e) => {
                Exit::new(exit::USAGE, format_args!("{file}: cannot be read: {e}"))
            }
            boot_id::Unusable::NotAnId => Exit::new(
                exit::USAGE,
                format_args!("{file}: not a boot id ({len} characters, a UUID, and a newline)"),
            ),
        })?,
        given => given.map_err(|value| {
            let name = HostBootId::ENV;
            let value = Clean(value);
            Exit::new(
                exit::USAGE,
                format_args!("{name}={value}: not a boot id ({len} characters, a UUID)"),
            )
        })?,
    };
    Ok(cfg)
}

/// The run's clock: the vDSO's when the kernel maps one.
fn clock(start: &StartInfo) -> Clock {
    // SAFETY: the value is this process's AT_SYSINFO_EHDR (or 0).
    unsafe { Clock::new(start.auxv(AT_SYSINFO_EHDR).unwrap_or(0)) }
}

/// `describe`: the contract of the run these options make, as JSON.
fn describe(id: ProfileId, cfg: &RunConfig, out: &mut Out) -> Exit {
    let mut allowed = [0u8; CPU_SET_BYTES];
    match profile::choose_cpu(cfg.cpu, &mut allowed) {
        Ok(c) => {
            let contract = Contract {
                id,
                cfg,
                cpu: c.cpu(),
            };
            out.bytes(contract.json().as_bytes());
            Exit::pass()
        }
        Err(e) => e,
    }
}
