//! a0: the io-wq punt, the microbenchmark of the io-wq locking work
//! (millions of NOPs with IOSQE_ASYNC). Per cycle, `slots` (32)
//! IORING_OP_NOP with IOSQE_ASYNC, submitted and waited for by one
//! io_uring_enter: none is issued inline; each is queued to the task's
//! io-wq (io_queue_iowq -> io_wq_enqueue), an io-wq worker runs it
//! (io_wq_submit_work -> io_nop) and posts its CQE (io_req_complete_post).
//! Every NOP must end with res 0.
//!
//! The workers: bound to the run's CPU (IORING_REGISTER_IOWQ_AFF), so that
//! one CPU does all of the run's work, as in every workload; at most
//! IOWQ_WORKERS of them (IORING_REGISTER_IOWQ_MAX_WORKERS), the kernel's
//! own limit on a box of one CPU, so the figure does not depend on how many
//! CPUs the box has. A NOP with IOSQE_ASYNC is bounded, concurrent work
//! (REQ_F_FORCE_ASYNC): each one that finds no free worker starts one, up
//! to the limit, so the first warm-up cycle starts them all, and they stay
//! (a worker leaves after 5 s idle; a run never idles that long). Both
//! settings belong to the process's io-wq, not to the ring: they outlive
//! the run's ring, and are not given back (unlike the policy below): they
//! shape io-wq work alone, which no other workload makes, and every a0 run
//! sets them alike, so no later point of the process differs. The set-up
//! runs one untimed cycle, so the workers are there before the rounds (and
//! the witness follows them: they are threads of the process, but not
//! forks).
//!
//! The run's thread is SCHED_BATCH while a0 runs (its policy given back in
//! `finish`, or the run fails naming it), and its workers, started in the
//! set-up, inherit it: a wakeup then never preempts the running thread, so
//! every cycle runs the same way: the submitter queues all its NOPs, then
//! sleeps in its wait; a worker runs them all, then sleeps; the submitter
//! takes the CQEs. Under SCHED_OTHER whether each wakeup of the worker
//! preempted the submitter depended on where the scheduler's deadlines
//! stood, which drifts: under QEMU's instruction clock the rounds of one
//! point spread over 7.3% (cv 2.1%; under SCHED_BATCH 0.09%).
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked; the workers' instructions inside it are the punt's.

use core::fmt::Write;

use crate::check::{tag, Counter, Kind, Ledger};
use crate::config::{DEFAULT_SLOTS, MAX_SLOTS};
use crate::cpu;
use crate::exit::{self, Exit};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::process::{Before, GiveBack};
use crate::profile::parts::setup::{self, CyclePlan, Step};
use crate::profile::vocabulary::{Fault, Function, Names, Profile, RowSet, Shape};
use crate::profile::vocabulary::{Takes, Timed, Workload, NOP};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IOSQE_ASYNC;
use crate::sys::{self, Errno};

/// a0: NOPs every one of which an io-wq worker runs.
pub static A0: Profile = Profile {
    names: Names {
        short: "a0",
        long: "nop-async",
        formal: "a0_nop_async",
        help: "32 NOP with IOSQE_ASYNC, each run by io-wq (res 0)",
    },
    per: "NOP run by io-wq",
    opcodes: &[NOP],
    default_slots: DEFAULT_SLOTS,
    max_slots: MAX_SLOTS,
    takes: &[Takes::Slots],
    futex_words: false,
    shape: |cfg| Shape::new(cfg.slots).with(Kind::Nop, cfg.slots, 0),
    series: &[RowSet::only(
        "a0_nop_async",
        "io_uring io-wq punt, NOP with IOSQE_ASYNC",
    )],
    punted: &[Kind::Nop],
    // Once per NOP each: queued (io_uring.c), enqueued and run (io-wq.c,
    // io_uring.c), issued (nop.c).
    functions: &[
        Function::per_request("io_nop_prep", &[Kind::Nop]),
        Function::per_request("io_queue_iowq", &[Kind::Nop]),
        Function::per_request("io_wq_enqueue", &[Kind::Nop]),
        Function::per_request("io_wq_submit_work", &[Kind::Nop]),
        Function::per_request("io_nop", &[Kind::Nop]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        bind_workers(ring, s.cpu.cpu())?;
        // Before the workers start: they inherit it.
        let policy = Some(batched()?);
        let p = CyclePlan::of(s);
        let mut a0 = NopAsync { p, policy };
        a0.start_workers(ring, ledger)?;
        then(&mut a0, ring, ledger)
    },
};

/// Most io-wq workers for bounded work: what the kernel allows on a box
/// of one CPU (4 per CPU online, tctx.c's io_init_wq_offload).
pub const IOWQ_WORKERS: u32 = 4;

/// The checks line's totals.
const TOTALS: [Counter; 2] = [("cqes", |l| l.cqes), ("nop_cqes", |l| l.kind(Kind::Nop))];

/// Binds the io-wq workers of this process to `cpu`, IOWQ_WORKERS at most.
/// A kernel that lacks either register call (EINVAL) cannot run a0: a skip.
fn bind_workers(ring: &Ring, cpu: u32) -> Result<(), Exit> {
    let lacks = |what, e| match e {
        Errno::EINVAL => Exit::new(exit::SKIP, format_args!("kernel lacks {what}: {e}")),
        e => setup::step_failed(Step::run(what), e),
    };
    ring.register_iowq_affinity(&cpu::only(cpu))
        .map_err(|e| lacks("IORING_REGISTER_IOWQ_AFF", e))?;
    ring.register_iowq_max_workers(IOWQ_WORKERS)
        .map_err(|e| lacks("IORING_REGISTER_IOWQ_MAX_WORKERS", e))
}

/// Puts the run's thread under SCHED_BATCH (see the module docs); what it
/// had before is given back in `finish`, or when dropped (a set-up that
/// failed after this). A policy not given back fails the run: a0's next
/// run, or r0 after it in a suite, would measure under SCHED_BATCH.
fn batched() -> Result<GiveBack, Exit> {
    let failed = |e| setup::step_failed(Step::run("sched_setscheduler(SCHED_BATCH)"), e);
    let before = sys::sched_getscheduler().map_err(failed)?;
    sys::sched_setscheduler(sys::SCHED_BATCH).map_err(failed)?;
    Ok(GiveBack::new(Before::Policy(before)))
}

/// The sequence number of the set-up's cycle (the rounds count up from 0).
const START_SEQ: u32 = u32::MAX;

pub struct NopAsync {
    p: CyclePlan,
    /// The policy the run's thread had before the set-up, given back in
    /// `finish` (None: the tests' cycles, which do not change it).
    policy: Option<GiveBack>,
}

impl NopAsync {
    /// Starts the workers in the set-up, with one untimed cycle checked
    /// like any (its CQEs count, in no round): the rounds, the witness's
    /// window included, begin with the workers there, and the witness
    /// follows them from its start. A cycle that failed fails the set-up,
    /// naming its first failure.
    fn start_workers(&mut self, ring: &mut Ring, ledger: &mut Ledger) -> Result<(), Exit> {
        let mut pass = Ledger::default();
        self.cycle(ring, &Clock::syscall(), &mut pass, START_SEQ);
        ledger.absorb_untimed(&pass);
        let Some(f) = pass.first else {
            return Ok(());
        };
        let mut e = Exit::new(
            exit::FAIL,
            format_args!(
                "set-up: the cycle that starts the io-wq workers failed: {}",
                f.what
            ),
        );
        if let Some(call) = f.call {
            let _ = write!(e.cause, ": {call}");
        }
        Err(e)
    }
}

impl Workload for NopAsync {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let p = &self.p;
        let mut c = Cycle::start(seq, &p.plan, clock);
        let nops = Batch::new(Kind::Nop, p.slots, |i| {
            ops::with_flags(ops::nop(tag(seq, Kind::Nop, i)), IOSQE_ASYNC)
        });
        c.one_batch(ring, ledger, nops);
        let ns = c.stop(clock, p.inject_ns);
        (ns, c.finish(ledger))
    }

    /// Before the summary: a policy not given back fails this run.
    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) -> Result<(), Fault> {
        self.policy.as_mut().map_or(Ok(()), GiveBack::give_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Fail, Plan};
    use crate::profile::tests::live::{live_plan, refusing_ring, shape};

    /// A set-up whose cycle fails (here: a ring whose every enter fails,
    /// EBADFD) fails, naming the failure and the call.
    #[test]
    fn a_failed_set_up_cycle_fails_the_set_up() {
        let Some(mut ring) = refusing_ring() else {
            return;
        };
        let shape = shape(&A0, 32);
        let mut a0 = NopAsync {
            p: CyclePlan::new(&shape, 0),
            policy: None,
        };
        let mut l = Ledger::default();
        let Err(e) = a0.start_workers(&mut ring, &mut l) else {
            panic!("the set-up passed")
        };
        let why = "set-up: the cycle that starts the io-wq workers failed: submit_error: \
                   io_uring_enter: EBADFD (77)";
        assert_eq!((e.code, e.cause.as_str()), (exit::FAIL, why));
        assert!(!l.passed());
    }

    /// NOPs punted to io-wq end as they do inline, res 0, and the check
    /// compares with what the workers really post: told to expect 1, every
    /// NOP of the cycle is a bad result showing the 0 it got.
    #[test]
    fn punted_nops_run_clean_and_their_results_are_checked() {
        let Some((mut ring, p)) = live_plan(&A0, 32) else {
            return;
        };
        assert!(bind_workers(&ring, crate::sys::getcpu().unwrap()).is_ok());
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        let mut a0 = NopAsync { p, policy: None };
        for seq in 0..3 {
            let (_, ok) = a0.cycle(&mut ring, &clock, &mut l, seq);
            assert!(ok, "{l:?}");
        }
        assert_eq!((l.requests(Kind::Nop), l.kind(Kind::Nop)), (96, 96));
        a0.p.plan = Plan::new(&Shape::new(32).with(Kind::Nop, 32, 1).expect);
        let mut l = Ledger::default();
        let (_, ok) = a0.cycle(&mut ring, &clock, &mut l, 3);
        assert!(!ok);
        assert_eq!((l.count(Fail::BadResult), l.count(Fail::Missing)), (32, 0));
        assert_eq!(l.first.unwrap().cqe.unwrap().res, 0);
    }
}
