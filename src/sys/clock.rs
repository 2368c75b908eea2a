//! CLOCK_MONOTONIC_RAW read through the vDSO (as glibc does), so the timed loop
//! makes no clock syscall; a syscall fallback when there is no vDSO (valgrind
//! hides it, for one). The output names the source: `clock=vdso|syscall`.

use super::uapi::{KernelTimespec, CLOCK_MONOTONIC_RAW};
use super::{arch, clock_gettime_syscall, vdso};

type VdsoClockGettime = unsafe extern "C" fn(i32, *mut KernelTimespec) -> i32;

/// Where the time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    Vdso,
    Syscall,
}

impl ClockSource {
    pub fn name(self) -> &'static str {
        match self {
            ClockSource::Vdso => "vdso",
            ClockSource::Syscall => "syscall",
        }
    }
}

/// A monotonic raw clock in nanoseconds.
#[derive(Clone, Copy)]
pub struct Clock {
    vdso: Option<VdsoClockGettime>,
}

impl Clock {
    /// Looks the vDSO function up from the AT_SYSINFO_EHDR value (0 = none)
    /// and keeps it only if it works for CLOCK_MONOTONIC_RAW.
    ///
    /// # Safety
    /// `vdso_base` must be 0 or this process's AT_SYSINFO_EHDR.
    pub unsafe fn new(vdso_base: usize) -> Clock {
        let (name, version) = arch::VDSO_CLOCK_GETTIME;
        // SAFETY: forwarded contract on vdso_base.
        let addr = unsafe { vdso::lookup(vdso_base, name, version) };
        let vdso = addr.map(|a| {
            // SAFETY: the symbol is the vDSO's clock_gettime, which has this C ABI.
            unsafe { core::mem::transmute::<usize, VdsoClockGettime>(a) }
        });
        let clock = Clock { vdso };
        if let Some(f) = vdso {
            let mut ts = KernelTimespec::default();
            // SAFETY: ts is writable; f is clock_gettime from the vDSO.
            if unsafe { f(CLOCK_MONOTONIC_RAW, &mut ts) } != 0 {
                return Clock { vdso: None };
            }
        }
        clock
    }

    /// The syscall-only clock (a set-up's untimed pass, tests).
    pub fn syscall() -> Clock {
        Clock { vdso: None }
    }

    pub fn source(&self) -> ClockSource {
        if self.vdso.is_some() {
            ClockSource::Vdso
        } else {
            ClockSource::Syscall
        }
    }

    /// Nanoseconds of CLOCK_MONOTONIC_RAW (0 if the clock cannot be read,
    /// which `new` already ruled out for the vDSO and the kernel never does).
    #[inline(always)]
    pub fn now_ns(&self) -> u64 {
        let mut ts = KernelTimespec::default();
        match self.vdso {
            // SAFETY: ts is writable; f is the vDSO's clock_gettime.
            Some(f) => unsafe {
                f(CLOCK_MONOTONIC_RAW, &mut ts);
            },
            None => {
                let _ = clock_gettime_syscall(CLOCK_MONOTONIC_RAW, &mut ts);
            }
        }
        (ts.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(ts.tv_nsec as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syscall_clock_advances() {
        let c = Clock::syscall();
        let a = c.now_ns();
        let b = c.now_ns();
        assert!(a > 0 && b >= a);
        assert_eq!(c.source(), ClockSource::Syscall);
    }

    #[test]
    fn no_vdso_base_means_syscall() {
        // SAFETY: 0 is the documented "no vDSO" value.
        let c = unsafe { Clock::new(0) };
        assert_eq!(c.source(), ClockSource::Syscall);
    }
}
