//! Choosing the CPU to pin to, pinning, and proving the pin held.

use core::fmt;

use crate::config::{DEFAULT_CPU, MAX_CPU};
use crate::sys::{self, CpuSet, Errno, CPU_SET_BYTES};

// The highest CPU a CpuSet can hold is the contract's limit.
const _: () = assert!(MAX_CPU as usize == CPU_SET_BYTES * 8 - 1);

/// How the CPU was chosen (printed in the banner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// `--cpu N`.
    Requested(u32),
    /// The report's CPU 2, online and allowed.
    Default(u32),
    /// CPU 2 was not available: the highest allowed CPU.
    Fallback(u32),
}

impl Choice {
    pub fn cpu(self) -> u32 {
        match self {
            Choice::Requested(c) | Choice::Default(c) | Choice::Fallback(c) => c,
        }
    }
    pub fn how(self) -> &'static str {
        match self {
            Choice::Requested(_) => "requested",
            Choice::Default(_) => "default",
            Choice::Fallback(_) => "fallback-highest-allowed",
        }
    }
}

pub fn contains(set: &CpuSet, cpu: u32) -> bool {
    cpu <= MAX_CPU && set[cpu as usize / 8] & (1 << (cpu % 8)) != 0
}

pub fn only(cpu: u32) -> CpuSet {
    let mut set = [0u8; CPU_SET_BYTES];
    set[cpu as usize / 8] = 1 << (cpu % 8);
    set
}

/// Picks the CPU: the requested one if allowed, else 2 if allowed, else the
/// highest allowed. `Err(cpu)` names a requested CPU that is not allowed.
pub fn choose(requested: Option<u32>, allowed: &CpuSet) -> Result<Choice, u32> {
    if let Some(c) = requested {
        return if contains(allowed, c) {
            Ok(Choice::Requested(c))
        } else {
            Err(c)
        };
    }
    if contains(allowed, DEFAULT_CPU) {
        return Ok(Choice::Default(DEFAULT_CPU));
    }
    (0..=MAX_CPU)
        .rev()
        .find(|&c| contains(allowed, c))
        .map(Choice::Fallback)
        .ok_or(DEFAULT_CPU)
}

/// Why pinning failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinError {
    Set(Errno),
    /// Affinity read back differs from {cpu}.
    NotApplied,
    /// getcpu says we run elsewhere after pinning.
    RunningOn(u32),
    Getcpu(Errno),
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinError::Set(e) => write!(f, "sched_setaffinity failed: {e}"),
            PinError::NotApplied => f.write_str("affinity read back is not exactly that CPU"),
            PinError::RunningOn(c) => write!(f, "still running on CPU {c} after pinning"),
            PinError::Getcpu(e) => write!(f, "getcpu failed: {e}"),
        }
    }
}

/// Pins this thread to `cpu` and verifies it: affinity reads back as exactly
/// {cpu}, and getcpu reports that CPU.
pub fn pin(cpu: u32) -> Result<(), PinError> {
    let want = only(cpu);
    sys::sched_setaffinity(&want).map_err(PinError::Set)?;
    let mut got = [0u8; CPU_SET_BYTES];
    sys::sched_getaffinity(&mut got).map_err(PinError::Set)?;
    if got != want {
        return Err(PinError::NotApplied);
    }
    // The migration happens at the next schedule; the syscall above got us there.
    match sys::getcpu() {
        Ok(c) if c == cpu => Ok(()),
        Ok(c) => Err(PinError::RunningOn(c)),
        Err(e) => Err(PinError::Getcpu(e)),
    }
}

/// Formats a CPU set as ranges: `0-3,6`.
pub struct Ranges<'a>(pub &'a CpuSet);

impl fmt::Display for Ranges<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut c = 0u32;
        while c <= MAX_CPU {
            if !contains(self.0, c) {
                c += 1;
                continue;
            }
            let start = c;
            while c < MAX_CPU && contains(self.0, c + 1) {
                c += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if start == c {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{c}")?;
            }
            c += 1;
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(cpus: &[u32]) -> CpuSet {
        let mut s = [0u8; CPU_SET_BYTES];
        for &c in cpus {
            s[c as usize / 8] |= 1 << (c % 8);
        }
        s
    }

    #[test]
    fn default_is_cpu2_when_allowed() {
        assert_eq!(choose(None, &set(&[0, 1, 2, 3])), Ok(Choice::Default(2)));
    }

    #[test]
    fn fallback_is_highest_allowed() {
        assert_eq!(choose(None, &set(&[0, 1])), Ok(Choice::Fallback(1)));
        assert_eq!(choose(None, &set(&[0, 9, 700])), Ok(Choice::Fallback(700)));
    }

    #[test]
    fn requested_must_be_allowed() {
        assert_eq!(choose(Some(0), &set(&[0, 1])), Ok(Choice::Requested(0)));
        assert_eq!(choose(Some(5), &set(&[0, 1])), Err(5));
        assert_eq!(choose(Some(5000), &set(&[0, 1])), Err(5000));
    }

    #[test]
    fn ranges_format() {
        assert_eq!(
            Ranges(&set(&[0, 1, 2, 3, 6, 8, 9])).to_string(),
            "0-3,6,8-9"
        );
        assert_eq!(Ranges(&set(&[1023])).to_string(), "1023");
        assert_eq!(Ranges(&set(&[])).to_string(), "none");
    }

    #[test]
    fn pin_to_an_allowed_cpu_verifies() {
        let mut allowed = [0u8; CPU_SET_BYTES];
        sys::sched_getaffinity(&mut allowed).unwrap();
        let cpu = match choose(None, &allowed) {
            Ok(c) => c.cpu(),
            Err(_) => panic!("no allowed CPU"),
        };
        // Pin in a throwaway thread so the test harness's threads keep theirs.
        std::thread::spawn(move || pin(cpu).unwrap())
            .join()
            .unwrap();
    }
}
