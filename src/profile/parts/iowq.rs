//! What the workloads whose requests run in io-wq share (a0, b0, g0): the
//! process's io-wq workers bound to the run's CPU and limited in number,
//! the run's thread under SCHED_BATCH while it runs, and an untimed cycle
//! in the set-up that starts the workers.
//!
//! The workers: bound to the run's CPU (IORING_REGISTER_IOWQ_AFF), so that
//! one CPU does all of the run's work, as in every workload; at most as
//! many as the workload names (IORING_REGISTER_IOWQ_MAX_WORKERS), so the
//! figure does not depend on how many CPUs the box has. Both settings
//! belong to the process's io-wq, not to the ring: they outlive the run's
//! ring and are not given back (unlike the policy): they shape io-wq work
//! alone, and every run of a workload sets them alike.
//!
//! SCHED_BATCH: the run's thread takes it before the set-up's cycle, so
//! the workers that cycle starts inherit it: a wakeup then never preempts
//! the running thread, and every cycle runs the same way (the submitter
//! goes on until it waits; a worker runs until it blocks or is done).
//! Under SCHED_OTHER whether a wakeup preempted depended on where the
//! scheduler's deadlines stood, which drifts: under QEMU's instruction clock
//! a0's rounds of one point spread over 7.3% (cv 2.1%; under SCHED_BATCH
//! 0.09%). The policy is given back in the workload's `finish`, or the run
//! fails naming it.
//!
//! The set-up's cycles (`start_workers`): checked like any (their CQEs
//! count, in no round), so the rounds, the witness's window included, begin
//! with the workers there, and the witness follows them from its start
//! (they are threads of the process, but not forks: one started in the
//! rounds would go unseen, its completions missing from the witness's
//! count).

use core::fmt::Write;

use crate::check::Ledger;
use crate::cpu;
use crate::exit::{self, Exit};
use crate::profile::parts::process::{self, Before, GiveBack};
use crate::profile::parts::setup::{self, Step};
use crate::profile::vocabulary::Workload;
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::{self, Errno};

/// Most io-wq workers for bounded work (a NOP's, a regular file's): what
/// the kernel allows on a box of one CPU (4 per CPU online, tctx.c's
/// io_init_wq_offload).
pub const BOUNDED_WORKERS: u32 = 4;

/// Binds the io-wq workers of this process to `cpu`, at most `limits`
/// (bounded, unbounded; 0 leaves one as it is). A kernel that lacks either
/// register call (EINVAL) cannot run the workload: a skip.
pub fn bind_workers(ring: &Ring, cpu: u32, limits: [u32; 2]) -> Result<(), Exit> {
    let lacks = |what, e| match e {
        Errno::EINVAL => Exit::new(exit::SKIP, format_args!("kernel lacks {what}: {e}")),
        e => setup::step_failed(Step::run(what), e),
    };
    ring.register_iowq_affinity(&cpu::only(cpu))
        .map_err(|e| lacks("IORING_REGISTER_IOWQ_AFF", e))?;
    ring.register_iowq_max_workers(limits)
        .map_err(|e| lacks("IORING_REGISTER_IOWQ_MAX_WORKERS", e))
}

/// Puts the run's thread under SCHED_BATCH (see the module docs); what it
/// had before is given back by the workload's `finish`, or when dropped (a
/// set-up that failed after this). A policy not given back fails the run:
/// the workload's next run, or r0 after it in a suite, would measure under
/// SCHED_BATCH.
fn batched() -> Result<GiveBack, Exit> {
    let failed = |e| setup::step_failed(Step::run("sched_setscheduler(SCHED_BATCH)"), e);
    let before = sys::sched_getscheduler().map_err(failed)?;
    sys::sched_setscheduler(sys::SCHED_BATCH).map_err(failed)?;
    Ok(GiveBack::new(Before::Policy(before)))
}

/// The set-up every io-wq workload makes before its workers start: its
/// workers bound to `cpu`, at most `limits` (`bind_workers`), and the run's
/// thread under SCHED_BATCH, which they inherit (`batched`): what it had
/// before, to give back.
pub fn prepare(ring: &Ring, cpu: u32, limits: [u32; 2]) -> Result<GiveBack, Exit> {
    bind_workers(ring, cpu, limits)?;
    batched()
}

/// The sequence number of the set-up's first cycle (the rounds count up
/// from 0; each later set-up cycle one below).
pub const START_SEQ: u32 = u32::MAX;

/// Most untimed cycles `start_workers` runs until one starts no worker.
const MAX_START_CYCLES: u32 = 8;

/// How many cycles of the set-up start the workers: one (each request
/// that finds no free worker starts one: a0's NOPs), or as many as it
/// takes until a cycle starts none (b0: a SPLICE whose worker had not run
/// yet when the next was queued leaves that one queued, and a worker is
/// started for it later, when one sleeps; until every worker is there, a
/// cycle may start more), at most MAX_START_CYCLES.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    OneCycle,
    UntilSteady,
}

/// Runs the untimed cycles of `w` that start its io-wq workers (see the
/// module docs and `Start`), their CQEs counted in `ledger` but in no
/// round. A cycle that failed fails the set-up, naming its first failure.
/// The threads of the process tell whether a cycle started a worker
/// (/proc/self/task; where it cannot be read, one cycle is all).
pub fn start_workers(
    w: &mut dyn Workload,
    ring: &mut Ring,
    ledger: &mut Ledger,
    start: Start,
) -> Result<(), Exit> {
    let mut threads = process::threads();
    for k in 0..MAX_START_CYCLES {
        let mut pass = Ledger::default();
        w.cycle(ring, &Clock::syscall(), &mut pass, START_SEQ - k);
        ledger.absorb_untimed(&pass);
        if let Some(f) = pass.first {
            let mut e = Exit::new(
                exit::FAIL,
                format_args!(
                    "set-up: the cycle that starts the io-wq workers failed: {}",
                    f.what
                ),
            );
            if let Some(call) = f.call {
                let _ = write!(e, ": {call}");
            }
            return Err(e);
        }
        let now = process::threads();
        if start == Start::OneCycle || now.is_none() || now == threads {
            break;
        }
        threads = now;
    }
    Ok(())
}
