//! a0: the io-wq punt, the microbenchmark of the io-wq locking work
//! (millions of NOPs with IOSQE_ASYNC). Per cycle, `slots` (32)
//! IORING_OP_NOP with IOSQE_ASYNC, submitted and waited for by one
//! io_uring_enter: none is issued inline; each is queued to the task's
//! io-wq (io_queue_iowq -> io_wq_enqueue), an io-wq worker runs it
//! (io_wq_submit_work -> io_nop) and posts its CQE (io_req_complete_post).
//! Every NOP must end with res 0.
//!
//! The workers, the policy and the set-up's cycle are io-wq workloads'
//! (parts/iowq.rs): bound to the run's CPU, at most BOUNDED_WORKERS of them
//! (the kernel's own limit on a box of one CPU), the run's thread and its
//! workers under SCHED_BATCH, and the workers started by one untimed
//! cycle. A NOP with IOSQE_ASYNC is bounded, concurrent work
//! (REQ_F_FORCE_ASYNC): each one that finds no free worker starts one, up
//! to the limit, so the set-up's cycle starts them all, and they stay (a
//! worker leaves after 5 s idle; a run never idles that long). Under
//! SCHED_BATCH every cycle runs the same way: the submitter queues all its
//! NOPs, then sleeps in its wait; a worker runs them all, then sleeps; the
//! submitter takes the CQEs.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked; the workers' instructions inside it are the punt's.

use crate::check::{tag, Counter, Kind, Ledger};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::iowq;
use crate::profile::parts::process::GiveBack;
use crate::profile::parts::setup::CyclePlan;
use crate::profile::vocabulary::{Fault, Function, Names, Profile, RowSet, RunOptions, Shape};
use crate::profile::vocabulary::{Timed, Workload, NOP};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IOSQE_ASYNC;

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
    options: RunOptions::SLOTS,
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
        let policy = Some(iowq::prepare(
            ring,
            s.cpu.cpu(),
            [iowq::BOUNDED_WORKERS, 0],
        )?);
        let p = CyclePlan::of(s);
        let mut a0 = NopAsync { p, policy };
        iowq::start_workers(&mut a0, ring, ledger, iowq::Start::OneCycle)?;
        then(&mut a0, ring, ledger)
    },
};

/// The checks line's totals.
const TOTALS: [Counter; 2] = [("cqes", |l| l.cqes), ("nop_cqes", |l| l.kind(Kind::Nop))];

pub struct NopAsync {
    p: CyclePlan,
    /// The policy the run's thread had before the set-up, given back in
    /// `finish` (None: the tests' cycles, which do not change it).
    policy: Option<GiveBack>,
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
        c.end(clock, p.inject_ns, ledger)
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
    use crate::exit;
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
        let Err(e) = iowq::start_workers(&mut a0, &mut ring, &mut l, iowq::Start::OneCycle) else {
            panic!("the set-up passed")
        };
        let why = "set-up: the cycle that starts the io-wq workers failed: submit_error: \
                   io_uring_enter: EBADFD (77)";
        assert_eq!((e.code, e.cause().as_str()), (exit::FAIL, why));
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
        let cpu = crate::sys::getcpu().unwrap();
        assert!(iowq::bind_workers(&ring, cpu, [iowq::BOUNDED_WORKERS, 0]).is_ok());
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
