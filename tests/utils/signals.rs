//! The signal dispositions of a process a test starts and then signals.
//! A process starts with the signals its parent ignored still ignored, and
//! a shell cannot trap a signal that was ignored when it started (POSIX):
//! `cargo test` run as a background job of a non-interactive shell (SIGINT
//! and SIGQUIT ignored) or under nohup (SIGHUP ignored) would hand that to
//! every script it starts, whose traps would then never run. So a test that
//! signals a process starts it as a terminal's shell does, with these
//! signals at their defaults, whatever the test process inherited.
//!
//! # Safety
//!
//! The dispositions are set in the child between fork and exec
//! (`CommandExt::pre_exec`), with signal(2) from the C library std already
//! links (no crate): a multi-threaded process's child may call only
//! async-signal-safe functions there, and signal() is one (POSIX.1-2008,
//! 2.4.3).

use std::io;
use std::os::raw::c_int;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// A closed terminal; nohup ignores it.
pub const SIGHUP: c_int = 1;
/// Ctrl-C; a non-interactive shell's background job ignores it.
pub const SIGINT: c_int = 2;
/// Ctrl-\; ignored with SIGINT.
pub const SIGQUIT: c_int = 3;
/// kill(1)'s default.
pub const SIGTERM: c_int = 15;

/// The signals a test sends or a shell may have left ignored (the same
/// numbers on every Linux architecture).
const TERMINAL: [c_int; 4] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM];

/// The default action (signal.h's SIG_DFL).
const SIG_DFL: usize = 0;
/// Ignored (SIG_IGN).
const SIG_IGN: usize = 1;
/// signal()'s failure (SIG_ERR, -1).
const SIG_ERR: usize = usize::MAX;

extern "C" {
    /// Sets `signum`'s disposition to `handler` (here only SIG_DFL or
    /// SIG_IGN, never a function); the previous one, or SIG_ERR.
    fn signal(signum: c_int, handler: usize) -> usize;
}

/// `cmd` starts with SIGHUP, SIGINT, SIGQUIT and SIGTERM at their default
/// dispositions, as a terminal's shell starts a command.
pub fn default_signals(cmd: &mut Command) -> &mut Command {
    on_exec(cmd, &TERMINAL, SIG_DFL)
}

/// `cmd` starts with SIGINT ignored, as a non-interactive shell starts a
/// background job (after default_signals, if both are set).
pub fn ignoring_sigint(cmd: &mut Command) -> &mut Command {
    on_exec(cmd, &[SIGINT], SIG_IGN)
}

/// Whether this process ignores SIGINT: its bit (bit 1) in SigIgn, a hex
/// mask in /proc/self/status.
pub fn sigint_ignored() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .expect("a SigIgn line");
    let mask = u64::from_str_radix(mask.trim(), 16).expect("SigIgn in hex");
    mask & (1 << (SIGINT - 1)) != 0
}

/// `sigs` set to `handler` in the child, before exec.
fn on_exec<'a>(cmd: &'a mut Command, sigs: &'static [c_int], handler: usize) -> &'a mut Command {
    // SAFETY: the closure calls only set(), that is signal(), which is
    // async-signal-safe; it allocates nothing (an io::Error from errno does
    // not) and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            for &sig in sigs {
                set(sig, handler)?;
            }
            Ok(())
        })
    }
}

/// signal(sig, handler), its failure as errno's error.
fn set(sig: c_int, handler: usize) -> io::Result<()> {
    // SAFETY: `handler` is SIG_DFL or SIG_IGN, not a function that could
    // run later in a state it does not expect, and `sig` is a signal that
    // may be set (never SIGKILL or SIGSTOP).
    if unsafe { signal(sig, handler) } == SIG_ERR {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
