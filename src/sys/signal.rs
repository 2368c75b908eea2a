//! SIGINT and SIGTERM, caught so an interrupted run still reports the rounds
//! it finished and closes its rings itself (exit 130). The handler only
//! stores the signal number; the round driver reads it between cycles,
//! outside every timed span, and stops.
//!
//! No SA_RESTART: a bounded wait the signal lands in returns EINTR, so the
//! run stops promptly. Every wait already handles EINTR.

use core::sync::atomic::{AtomicU32, Ordering};

#[cfg(not(target_arch = "riscv64"))]
use super::arch;
use super::arch::{nr, syscall4};
#[cfg(not(target_arch = "riscv64"))]
use super::uapi::SA_RESTORER;
use super::uapi::{KernelSigaction, SIGSET_BYTES};
use super::{Errno, SysResult};

pub const SIGINT: u32 = 2;
pub const SIGTERM: u32 = 15;
/// A write to a pipe nobody reads, and a write past RLIMIT_FSIZE (the
/// same numbers on every arch built here).
pub const SIGPIPE: u32 = 13;
pub const SIGXFSZ: u32 = 25;
/// The handler value that ignores a signal.
const SIG_IGN: usize = 1;

/// The last SIGINT or SIGTERM caught, 0 while none. Plain loads and stores
/// only: they are async-signal-safe, and a read-modify-write atomic would
/// need libc's outline-atomics helpers on aarch64.
static CAUGHT: AtomicU32 = AtomicU32::new(0);

extern "C" fn on_interrupt(sig: i32) {
    CAUGHT.store(sig as u32, Ordering::Relaxed);
}

/// Catches SIGINT and SIGTERM from now on (`run` and `selftest` only).
pub fn catch_interrupts() -> SysResult<()> {
    install(SIGINT, on_interrupt)?;
    install(SIGTERM, on_interrupt)
}

/// Ignores the signals a failed write raises, SIGPIPE and SIGXFSZ: the
/// write then fails with EPIPE or EFBIG (past `ulimit -f`), and the writer
/// ends as it chooses (exit 141 for a closed pipe; a file it was writing
/// removed) instead of being killed with the file cut short.
pub fn ignore_write_signals() -> SysResult<()> {
    let act = KernelSigaction {
        handler: SIG_IGN,
        ..KernelSigaction::default()
    };
    action(SIGPIPE, Some(&act), None)?;
    action(SIGXFSZ, Some(&act), None)
}

/// The signal caught so far (SIGINT or SIGTERM), 0 when none: one relaxed
/// load, for the round driver.
#[inline(always)]
pub fn caught() -> u32 {
    CAUGHT.load(Ordering::Relaxed)
}

/// `SIGINT`, `SIGTERM` (the signals caught here).
pub fn name(sig: u32) -> &'static str {
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// Runs `handler` on `sig`, returning through our rt_sigreturn trampoline
/// (on riscv64 through the vDSO's, the only one its kernel uses), with no
/// signal blocked meanwhile but `sig` itself.
pub fn install(sig: u32, handler: extern "C" fn(i32)) -> SysResult<()> {
    let act = KernelSigaction {
        handler: handler as *const () as usize,
        #[cfg(not(target_arch = "riscv64"))]
        flags: SA_RESTORER,
        #[cfg(not(target_arch = "riscv64"))]
        restorer: arch::restore_rt as *const () as usize,
        #[cfg(target_arch = "riscv64")]
        flags: 0,
        mask: 0,
    };
    action(sig, Some(&act), None)
}

/// rt_sigaction(sig, act, old): sets and/or reads `sig`'s action.
fn action(
    sig: u32,
    act: Option<&KernelSigaction>,
    old: Option<&mut KernelSigaction>,
) -> SysResult<()> {
    let act = act.map_or(0, |a| a as *const KernelSigaction as usize);
    let old = old.map_or(0, |o| o as *mut KernelSigaction as usize);
    // SAFETY: act (if any) is a readable and old (if any) a writable struct
    // sigaction as the kernel lays it out (uapi.rs asserts the layout); the
    // handler and restorer stay valid for the process's life.
    let raw = unsafe { syscall4(nr::RT_SIGACTION, sig as usize, act, old, SIGSET_BYTES) };
    Errno::result(raw).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGUSR2: u32 = 12;
    static SEEN: AtomicU32 = AtomicU32::new(0);

    extern "C" fn on_usr2(sig: i32) {
        SEEN.store(sig as u32, Ordering::Relaxed);
    }

    #[test]
    fn the_kernel_reads_our_sigaction_layout() {
        #[cfg(not(target_arch = "riscv64"))]
        {
            assert_eq!(core::mem::size_of::<KernelSigaction>(), 32);
            assert_eq!(core::mem::offset_of!(KernelSigaction, flags), 8);
            assert_eq!(core::mem::offset_of!(KernelSigaction, restorer), 16);
            assert_eq!(core::mem::offset_of!(KernelSigaction, mask), 24);
        }
        #[cfg(target_arch = "riscv64")]
        {
            assert_eq!(core::mem::size_of::<KernelSigaction>(), 24);
            assert_eq!(core::mem::offset_of!(KernelSigaction, flags), 8);
            assert_eq!(core::mem::offset_of!(KernelSigaction, mask), 16);
        }
        // SIGUSR2, not SIGINT: this test process shares its actions with
        // every other test (and CAUGHT with the run tests).
        install(SIGUSR2, on_usr2).unwrap();
        // Read back: the kernel kept each field where we put it.
        let mut old = KernelSigaction::default();
        action(SIGUSR2, None, Some(&mut old)).unwrap();
        assert_eq!(old.handler, on_usr2 as *const () as usize);
        #[cfg(not(target_arch = "riscv64"))]
        {
            assert_eq!(old.restorer, arch::restore_rt as *const () as usize);
            assert_eq!(old.flags & SA_RESTORER, SA_RESTORER);
        }
        // Nothing blocked: a mask read from the wrong offset would not be 0.
        assert_eq!(old.mask, 0);
        // Delivered: the handler runs and returns through the trampoline
        // (a wrong one would crash this process).
        let status = std::process::Command::new("kill")
            .args(["-USR2", &std::process::id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        for _ in 0..1000 {
            if SEEN.load(Ordering::Relaxed) == SIGUSR2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(SEEN.load(Ordering::Relaxed), SIGUSR2);
        assert_eq!(caught(), 0, "SIGUSR2 is not an interrupt");
        assert_eq!((name(SIGINT), name(SIGTERM)), ("SIGINT", "SIGTERM"));
    }

    #[test]
    fn a_bad_signal_number_is_an_error() {
        assert_eq!(install(0, on_usr2), Err(Errno::EINVAL));
        assert_eq!(install(65, on_usr2), Err(Errno::EINVAL));
    }
}
