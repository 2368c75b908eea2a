//! SIGINT and SIGTERM, caught so an interrupted run still reports the rounds
//! it finished and closes its rings itself (exit 130). The handler only
//! stores the signal number; the round driver reads it between cycles,
//! outside every timed span, and stops.
//!
//! No SA_RESTART: a bounded wait the signal lands in returns EINTR, so the
//! run stops promptly. Every wait already handles EINTR.
//!
//! Every other signal that would end the process can still remove a file
//! that must not outlive it half-written (`RemovedOnFatal`: initramfs's
//! partial archive), and then ends it as it would have.

use core::ffi::{c_char, CStr};
use core::marker::PhantomData;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

#[cfg(not(target_arch = "riscv64"))]
use super::arch;
use super::arch::{nr, syscall2, syscall4};
#[cfg(not(target_arch = "riscv64"))]
use super::uapi::SA_RESTORER;
use super::uapi::{KernelSigaction, SA_RESETHAND, SIGSET_BYTES};
use super::{Errno, SysResult};

pub const SIGINT: u32 = 2;
pub const SIGTERM: u32 = 15;
/// A write to a pipe nobody reads, and a write past RLIMIT_FSIZE (the
/// same numbers on every arch built here).
pub const SIGPIPE: u32 = 13;
pub const SIGXFSZ: u32 = 25;
/// The handler value that ignores a signal.
const SIG_IGN: usize = 1;

/// The signals whose default action ends the process (signal(7): Term or
/// Core) that `RemovedOnFatal` catches: all but SIGKILL (which cannot be
/// caught), SIGINT and SIGTERM (caught as interrupts) and SIGPIPE and
/// SIGXFSZ (ignored: a write fails instead). SIGHUP SIGQUIT SIGILL
/// SIGTRAP SIGABRT SIGBUS SIGFPE SIGUSR1 SIGSEGV SIGUSR2 SIGALRM SIGSTKFLT
/// SIGXCPU SIGVTALRM SIGPROF SIGIO SIGPWR SIGSYS (the same numbers on
/// every arch built here), then every real-time signal, 32..=64.
pub const FATAL: [u32; 18] = [
    1, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 16, 24, 26, 27, 29, 30, 31,
];
pub const REALTIME: core::ops::RangeInclusive<u32> = 32..=64;

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
    install_with(sig, handler, 0)
}

/// `install` with sa_flags `flags` besides SA_RESTORER.
fn install_with(sig: u32, handler: extern "C" fn(i32), flags: u64) -> SysResult<()> {
    let act = KernelSigaction {
        handler: handler as *const () as usize,
        #[cfg(not(target_arch = "riscv64"))]
        flags: flags | SA_RESTORER,
        #[cfg(not(target_arch = "riscv64"))]
        restorer: arch::restore_rt as *const () as usize,
        #[cfg(target_arch = "riscv64")]
        flags,
        mask: 0,
    };
    action(sig, Some(&act), None)
}

/// The file a fatal signal removes before the process ends; null: none.
static DOOMED: AtomicPtr<c_char> = AtomicPtr::new(core::ptr::null_mut());

/// Removes the file armed, if any, then has `sig` end the process as it
/// would have: SA_RESETHAND made its action the default again on entry,
/// and the signal sent again waits (blocked while its handler runs) until
/// this returns. A fault (SIGSEGV from a bad access) ends it the same way,
/// before its instruction runs again. unlink and kill are raw system
/// calls: async-signal-safe.
extern "C" fn on_fatal(sig: i32) {
    let path = DOOMED.load(Ordering::Relaxed);
    if !path.is_null() {
        // SAFETY: armed from a live &CStr by RemovedOnFatal, disarmed
        // before that string ends.
        let _ = super::unlink(unsafe { CStr::from_ptr(path) });
    }
    let _ = raise(sig as u32);
}

/// While it lives, every signal that would end the process (`FATAL`,
/// `REALTIME`) first removes its file. SIGINT and SIGTERM are the
/// caller's, to stop between two writes (`catch_interrupts`); SIGKILL
/// cannot be caught.
pub struct RemovedOnFatal<'p>(PhantomData<&'p CStr>);

impl<'p> RemovedOnFatal<'p> {
    /// Runs `create`, which makes the file `path`, with every fatal signal
    /// held back, and arms its removal once it exists: no signal can end
    /// the process between the two, and none removes a file of that name
    /// that `create` did not make. A signal held meanwhile arrives after,
    /// and removes the file. The error is `create`'s: rt_sigaction and
    /// rt_sigprocmask cannot fail for these signals (were one to, that
    /// signal would keep its default action).
    pub fn create<T>(
        path: &'p CStr,
        create: impl FnOnce() -> SysResult<T>,
    ) -> SysResult<(T, RemovedOnFatal<'p>)> {
        let mut held = 0u64;
        for sig in FATAL.into_iter().chain(REALTIME) {
            let _ = install_with(sig, on_fatal, SA_RESETHAND);
            held |= 1 << (sig - 1);
        }
        let before = mask(SIG_BLOCK, held);
        let made = create();
        if made.is_ok() {
            DOOMED.store(path.as_ptr() as *mut c_char, Ordering::Relaxed);
        }
        if let Ok(before) = before {
            let _ = mask(SIG_SETMASK, before);
        }
        made.map(|t| (t, RemovedOnFatal(PhantomData)))
    }
}

impl Drop for RemovedOnFatal<'_> {
    fn drop(&mut self) {
        DOOMED.store(core::ptr::null_mut(), Ordering::Relaxed);
    }
}

/// rt_sigprocmask's `how`.
const SIG_BLOCK: usize = 0;
const SIG_SETMASK: usize = 2;

/// rt_sigprocmask(how, &set, &old): the mask before.
fn mask(how: usize, set: u64) -> SysResult<u64> {
    let mut old = 0u64;
    // SAFETY: set and old are sigset_t-sized (SIGSET_BYTES), readable and
    // writable.
    let raw = unsafe {
        syscall4(
            nr::RT_SIGPROCMASK,
            how,
            &set as *const u64 as usize,
            &mut old as *mut u64 as usize,
            SIGSET_BYTES,
        )
    };
    Errno::result(raw).map(|_| old)
}

/// kill(getpid(), sig).
fn raise(sig: u32) -> SysResult<()> {
    let pid = super::getpid() as usize;
    // SAFETY: kill takes no memory.
    let raw = unsafe { syscall2(nr::KILL, pid, sig as usize) };
    Errno::result(raw).map(|_| ())
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
