//! q0: submission by the kernel's SQ thread (IORING_SETUP_SQPOLL). The
//! cycle's ring is one of its own, set up with SQPOLL | SQ_AFF (the run's
//! sizes, 64 and CQ 128): a kernel thread of the process (iou-sqp-PID)
//! polls its SQ and submits what it finds there, so the application
//! submits without a system call. Per cycle, `slots` (32) IORING_OP_NOP
//! written to the SQ and its tail published (a release store), then one
//! io_uring_enter, which submits nothing (to_submit 0) and waits for the
//! 32 CQEs: the SQ thread takes the NOPs (io_sq_thread ->
//! __io_sq_thread -> io_submit_sqes), each completes inline with res 0,
//! and the CQEs wake the waiter. When the SQ thread went to sleep (it
//! polled `sq_thread_idle_ms` without finding work and set
//! IORING_SQ_NEED_WAKEUP, read after a full fence: ring.rs), the same
//! enter carries IORING_ENTER_SQ_WAKEUP and wakes it; the cycles that had
//! to are counted (`# sq_thread:` after the summary).
//!
//! Where the SQ thread runs (SQ_AFF, sq_thread_cpu): the lowest online CPU
//! but the run's, so that it polls while the run's thread runs, as SQPOLL
//! is meant to be used; on a box of one CPU, the run's own, which they
//! share (parts/setup.rs; the contract states it, `sq_thread_cpu=`, beside
//! the run's `cpu=`). Shared, each cycle is the scheduler's: the run's
//! thread sleeps in its wait, the SQ thread runs, submits, and keeps
//! polling until the scheduler takes the CPU from it (its slice used, or
//! its idle time over), and only then does the woken run's thread go on.
//! Apart, the figure holds no context switch in the steady state: the SQ
//! thread never sleeps between cycles, and the waiter is woken across
//! CPUs. (Not under QEMU's TCG, which runs its vCPUs in turn on one
//! thread: there the polling SQ thread's vCPU runs until QEMU switches,
//! and the figure is QEMU's.)
//!
//! Its idle time: 1000 ms (SQ_THREAD_IDLE_MS, the kernel's own default,
//! named), longer than any pause of a run between its cycles (a row
//! printed, a round's end), so the figure is the polling path, and the
//! wakeup path is the exception the `# sq_thread:` line counts (the set-up
//! leaves the thread polling: the first cycle finds it awake).
//!
//! Since 5.11 SQPOLL needs no privilege (before: CAP_SYS_ADMIN); a kernel
//! (or an LSM) that refuses the flags is a skip naming them. A run whose SQ
//! thread is on another CPU cannot be witnessed: the witness follows the
//! run's CPU alone.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked.

use core::fmt::Write;

use super::batch;
use crate::check::{tag, Counter, Kind, Ledger};
use crate::ops;
use crate::profile::parts::collect::{self, Batch};
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::process;
use crate::profile::parts::setup::{self, CyclePlan};
use crate::profile::vocabulary::{Fault, Names, OwnRing, Profile, RowSet, RunOptions, Shape};
use crate::profile::vocabulary::{Timed, Workload, NOP};
use crate::ring::Ring;
use crate::sys;
use crate::sys::clock::Clock;
use crate::sys::uapi::{IORING_SETUP_SQPOLL, IORING_SETUP_SQ_AFF};

/// How long the SQ thread polls without work before it sleeps (see the
/// module docs).
pub const SQ_THREAD_IDLE_MS: u32 = 1000;

/// q0's ring.
const RING: OwnRing = OwnRing {
    flags: IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF,
    names: "SQPOLL|SQ_AFF",
    sq_thread_idle_ms: SQ_THREAD_IDLE_MS,
};

/// q0: NOPs the SQ thread submits.
pub static Q0: Profile = Profile {
    names: Names {
        short: "q0",
        long: "sqpoll",
        formal: "q0_sqpoll",
        help: "32 NOP submitted by the SQ thread (SQPOLL) (res 0)",
    },
    per: "NOP submitted by the SQ thread",
    opcodes: &[NOP],
    options: RunOptions {
        own_ring: Some(RING),
        ..RunOptions::SLOTS
    },
    shape: |cfg| Shape::new(cfg.slots).with(Kind::Nop, cfg.slots, 0),
    series: &[RowSet::only(
        "q0_sqpoll",
        "io_uring SQPOLL submission by the SQ thread, NOP",
    )],
    punted: &[],
    // NOP's, once per NOP, in the SQ thread.
    functions: &batch::NOP_FUNCTIONS,
    totals: &TOTALS,
    failures: &[],
    start: |s, run_ring, ledger, then| {
        let ring = setup::own_ring(&RING, s.cpu.cpu(), s.cfg.timeout_ns())?;
        let mut q0 = Sqpoll::new(CyclePlan::of(s), ring);
        then(&mut q0, run_ring, ledger)
    },
};

/// Most milliseconds `finish` waits for the SQ thread to leave.
const MAX_EXIT_WAIT_MS: u32 = 2000;

/// Most times a round's end yields the CPU to the SQ thread so that it
/// publishes its SQ head (`Sqpoll::account`).
const MAX_SETTLE_YIELDS: u32 = 10_000;

/// The checks line's totals.
const TOTALS: [Counter; 2] = [("cqes", |l| l.cqes), ("nop_cqes", |l| l.kind(Kind::Nop))];

pub struct Sqpoll {
    p: CyclePlan,
    /// The SQPOLL ring the cycles run on (the run's ring stays idle);
    /// None once `finish` has closed it.
    ring: Option<Ring>,
    /// Cycles run, and those whose enter had to wake the SQ thread.
    cycles: u64,
    woken: u64,
}

impl Sqpoll {
    fn new(p: CyclePlan, ring: Ring) -> Sqpoll {
        Sqpoll {
            p,
            ring: Some(ring),
            cycles: 0,
            woken: 0,
        }
    }
}

impl Workload for Sqpoll {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, _run: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, ring) = (&self.p, &mut self.ring);
        let Some(ring) = ring else {
            return (0, false);
        };
        let mut c = Cycle::start(seq, &p.plan, clock);
        let nops = Batch::new(Kind::Nop, p.slots, |i| ops::nop(tag(seq, Kind::Nop, i)));
        let woke = c.polled(ring, ledger, nops);
        let ns = c.stop(clock, p.inject_ns);
        self.cycles += 1;
        self.woken += woke as u64;
        (ns, c.finish(ledger))
    }

    /// What the kernel reports of the SQPOLL ring (the run's is idle),
    /// once the SQ thread has moved its SQ head past what it took: it posts
    /// a batch's CQEs before it publishes that head (`Ring::sq_unconsumed`),
    /// and on a shared CPU the woken run's thread may get there first. It
    /// is given the CPU until it has (at most MAX_SETTLE_YIELDS times);
    /// what it still holds then is counted in flight.
    fn account(&mut self, ledger: &mut Ledger, seq: u32) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        for _ in 0..MAX_SETTLE_YIELDS {
            if ring.sq_unconsumed() == 0 {
                break;
            }
            sys::sched_yield();
        }
        collect::account(ring, ledger, seq);
    }

    /// Closes the SQPOLL ring and waits until its SQ thread has left (the
    /// ring's teardown stops it, in a kernel worker: io_ring_exit_work),
    /// at most MAX_EXIT_WAIT_MS: it polls for up to its idle time until
    /// then, and a suite's next item would share the box with it (on two
    /// vCPUs under QEMU's instruction clock g0 after q0 spread its rounds
    /// over 90%, 0.5% alone).
    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) -> Result<(), Fault> {
        let before = process::threads();
        drop(self.ring.take());
        for _ in 0..MAX_EXIT_WAIT_MS {
            if before.is_none() || process::threads() < before {
                break;
            }
            sys::sleep_ns(1_000_000);
        }
        Ok(())
    }

    /// How many cycles had to wake the SQ thread.
    fn remarks(&self, w: &mut dyn Write) {
        let _ = writeln!(
            w,
            "# sq_thread: woken_cycles={} cycles={}",
            self.woken, self.cycles
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Fail, Plan};
    use crate::profile::tests::live::live_plan;

    /// An SQPOLL ring on this thread's CPU whose SQ thread sleeps after
    /// `idle_ms` without work; None after a loud SKIP.
    fn polled_ring(idle_ms: u32) -> Option<(Ring, CyclePlan)> {
        let (_, p) = live_plan(&Q0, 8)?;
        let own = OwnRing {
            sq_thread_idle_ms: idle_ms,
            ..RING
        };
        match setup::own_ring(&own, sys::getcpu().unwrap(), 2_000_000_000) {
            Ok(ring) => Some((ring, p)),
            Err(e) => {
                crate::testing::skip(&format!("SQPOLL: {}", e.cause()));
                None
            }
        }
    }

    /// The SQ thread takes the NOPs, each ends with res 0; one that has
    /// slept past its idle time (1 ms here) sets IORING_SQ_NEED_WAKEUP,
    /// and the next cycle's enter wakes it (and is counted), its NOPs as
    /// clean. And the results are the kernel's: told to expect 1, each NOP
    /// is a bad result showing its 0.
    #[test]
    fn a_sleeping_sq_thread_is_woken_and_its_nops_are_checked() {
        let Some((ring, p)) = polled_ring(1) else {
            return;
        };
        let mut q0 = Sqpoll::new(p, ring);
        let Some(mut run) = crate::profile::tests::live::live_ring(&Q0) else {
            return;
        };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        // The first cycle may find it asleep already (a busy box).
        assert!(q0.cycle(&mut run, &clock, &mut l, 0).1, "{l:?}");
        let woken = q0.woken;
        sys::sleep_ns(50_000_000);
        assert!(
            q0.ring.as_ref().unwrap().sq_thread_sleeps(),
            "asleep after 50 ms idle"
        );
        assert!(q0.cycle(&mut run, &clock, &mut l, 1).1, "{l:?}");
        assert_eq!((q0.woken, q0.cycles), (woken + 1, 2));
        assert_eq!((l.requests(Kind::Nop), l.kind(Kind::Nop)), (16, 16));
        let mut out = String::new();
        q0.remarks(&mut out);
        let line = format!("# sq_thread: woken_cycles={} cycles=2\n", woken + 1);
        assert_eq!(out, line);
        q0.p.plan = Plan::new(&Shape::new(8).with(Kind::Nop, 8, 1).expect);
        let mut l = Ledger::default();
        assert!(!q0.cycle(&mut run, &clock, &mut l, 2).1);
        assert_eq!((l.count(Fail::BadResult), l.count(Fail::Missing)), (8, 0));
        assert_eq!(l.first.unwrap().cqe.unwrap().res, 0);
        // Nothing left behind in the SQPOLL ring, which `finish` closes.
        let mut l = Ledger::default();
        q0.account(&mut l, 3);
        assert!(l.passed(), "{l:?}");
        assert!(q0.finish(&mut run, &mut l).is_ok() && q0.ring.is_none());
    }
}
