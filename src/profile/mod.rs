//! Workloads. Each profile knows how to run and validate one cycle; the
//! round driver here times cycles and keeps the ledger.

pub mod wait_wake;

use crate::check::{CycleCheck, Ledger};
use crate::hist::Histogram;
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::Errno;

/// Most tries to collect a cycle's missing CQEs (each bounded by the ring's
/// wait timeout), so a broken kernel ends the run instead of hanging it.
const MAX_EXTRA_WAITS: u32 = 4;

/// One workload.
pub trait Profile {
    /// Opcodes it needs, with their UAPI names, for the probe.
    fn opcodes(&self) -> &'static [(u8, &'static str)];
    /// Pairs (the unit of ns/pair) one cycle performs.
    fn pairs_per_cycle(&self) -> u64;
    /// Runs cycle `seq`: returns the nanoseconds of its timed span and
    /// whether it was clean (every failure is counted in `ledger`).
    fn cycle(
        &mut self,
        ring: &mut Ring,
        clock: &Clock,
        ledger: &mut Ledger,
        seq: u32,
    ) -> (u64, bool);
}

/// A round's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub timed_ns: u64,
    pub cycles: u32,
    pub pairs: u64,
    pub passed: bool,
}

/// Runs up to `cycles` cycles, stopping at the first unclean one (the ring
/// state is then unknown, and the run fails anyway).
pub fn run_round<P: Profile>(
    profile: &mut P,
    ring: &mut Ring,
    clock: &Clock,
    ledger: &mut Ledger,
    cycles: u32,
    seq: &mut u32,
) -> Round {
    run_round_into(profile, ring, clock, ledger, cycles, seq, None)
}

/// `run_round`, also counting every timed cycle's nanoseconds in `hist`
/// (after the cycle's closing clock read: outside the timed span).
pub fn run_round_into<P: Profile>(
    profile: &mut P,
    ring: &mut Ring,
    clock: &Clock,
    ledger: &mut Ledger,
    cycles: u32,
    seq: &mut u32,
    mut hist: Option<&mut Histogram>,
) -> Round {
    let mut round = Round {
        passed: true,
        ..Round::default()
    };
    for _ in 0..cycles {
        let (ns, ok) = profile.cycle(ring, clock, ledger, *seq);
        *seq = seq.wrapping_add(1);
        if let Some(h) = hist.as_deref_mut() {
            h.record(ns);
        }
        round.timed_ns += ns;
        round.cycles += 1;
        round.pairs += profile.pairs_per_cycle();
        if !ok {
            round.passed = false;
            break;
        }
    }
    round
}

/// Counts a failed or short submission: `ret` must equal `want`.
#[inline(always)]
pub fn check_submitted(
    ret: Result<usize, Errno>,
    want: u32,
    ledger: &mut Ledger,
    seq: u32,
) -> bool {
    if ret == Ok(want as usize) {
        return true;
    }
    ledger.submit_errors += 1;
    ledger.note("submit_error", seq, None);
    false
}

/// Collects the rest of a cycle's CQEs when the first wait returned short:
/// waits again (bounded), counting a timeout if the kernel never delivers.
/// `got` is how many CQEs the cycle consumed so far.
pub fn wait_rest(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    mut got: u32,
    seq: u32,
) {
    let expected = check.expected();
    let mut tries = 0;
    while got < expected && tries < MAX_EXTRA_WAITS {
        tries += 1;
        match ring.submit_and_wait(0, expected - got) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(Errno::ETIME) => {
                // Take what did arrive (`finish` counts the rest missing).
                ring.drain(expected - got, |c| check.observe(c, ledger));
                ledger.timeouts += 1;
                ledger.note("timeout", seq, None);
                return;
            }
            Err(_) => {
                ledger.submit_errors += 1;
                ledger.note("enter_error", seq, None);
                return;
            }
        }
        got += ring.drain(expected - got, |c| check.observe(c, ledger));
    }
    if got < expected {
        ledger.timeouts += 1;
        ledger.note("timeout", seq, None);
    }
}
