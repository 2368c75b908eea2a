//! The positive control (`--inject-ns`, and calibrate's B points): every
//! timed span ends with a spin of N ns more on the run's own clock, after
//! its last CQE is checked and before the closing clock read. With the
//! vDSO clock the spin makes no syscall, so the kernel sees the same run.

use crate::sys::clock::Clock;

/// Ends a timed span: a reading of `clock`, taken once it has spun
/// `extra_ns` more when a positive control asks for that; with 0, just
/// `now_ns` (one compare more).
#[inline(always)]
pub fn end_ns(clock: &Clock, extra_ns: u64) -> u64 {
    let t = clock.now_ns();
    if extra_ns == 0 {
        return t;
    }
    spin(clock, t, extra_ns)
}

/// Busy-waits on `clock` until `ns` have passed since `from` (one of its
/// readings); returns the last reading. Cold: only a positive control
/// spins.
#[cold]
#[inline(never)]
fn spin(clock: &Clock, from: u64, ns: u64) -> u64 {
    loop {
        let t = clock.now_ns();
        if t.wrapping_sub(from) >= ns {
            return t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_ends_at_least_its_extra_ns_later() {
        let c = Clock::syscall();
        let a = c.now_ns();
        let b = spin(&c, a, 200_000);
        assert!(b - a >= 200_000, "{}", b - a);
        assert!(c.now_ns() >= b);
        let before = c.now_ns();
        let end = end_ns(&c, 300_000);
        assert!(end - before >= 300_000, "{}", end - before);
    }
}
