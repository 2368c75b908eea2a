//! b0: io-wq work that blocks in its worker. Where a0's NOPs each run and
//! end in a worker, each of b0's requests puts its worker to sleep with
//! the work in hand, and a wakeup from outside io_uring ends it: the
//! scheduler's part of io-wq (a worker that blocks, io_wq_worker_sleeping;
//! one woken, io_wq_worker_running; the CQE posted from the worker and the
//! submitter woken by it) is the cost.
//!
//! The request: IORING_OP_SPLICE of 16 bytes from an empty pipe into
//! another, with IOSQE_ASYNC (its prep forces io-wq anyway:
//! REQ_F_FORCE_ASYNC). Unlike a READ, whose worker issues it non-blocking
//! when its file can be polled (a pipe can) and arms a poll on -EAGAIN,
//! SPLICE has no poll flags (io_uring/opdef.c), so io_wq_submit_work issues
//! it blocking, and do_splice sleeps in pipe_wait_readable (ipipe_prep)
//! until the pipe holds data. A pipe is not a regular file, so the work is
//! unbound (IO_WQ_WORK_UNBOUND): the unbound workers run it.
//!
//! One cycle, `slots` (32) of each, a pair of pipes per request:
//! 1. (untimed) the 16-byte records of this cycle, as r0's (stream.rs);
//! 2. the timed span starts;
//! 3. per request: one SPLICE (IOSQE_ASYNC) from pipe A_i into pipe B_i,
//!    one io_uring_enter that submits it (io_wq_enqueue wakes a free
//!    worker), then sched_yield, the gate: the worker runs, takes the
//!    SPLICE, finds A_i empty and sleeps; only then does the next request
//!    go in (and wake the next free worker: the one woken before is busy,
//!    off the free list);
//! 4. one WRITE of request i's record into each A_i, one io_uring_enter that
//!    submits them and waits for all 2 x slots CQEs: each WRITE completes
//!    inline (a pipe with room, FMODE_NOWAIT) and wakes its worker; the
//!    submitter sleeps; each worker moves its 16 bytes into B_i, posts its
//!    CQE and goes idle; the last CQE wakes the submitter;
//! 5. the timed span ends once every CQE is checked: WRITE 16, SPLICE 16;
//! 6. (untimed) one READ of 16 bytes from each B_i, one enter: each res 16,
//!    and each record read back byte for byte (a record of another cycle or
//!    index, or one cut short, is a bad result of its READ).
//!
//! The gate, and why it is a sched_yield: the run's thread and its workers
//! are SCHED_BATCH (parts/iowq.rs), so the wakeup of a worker never
//! preempts the submitter, and without a gate every WRITE would land before
//! any worker ran: each SPLICE would find its data and never sleep (on 6.18
//! without the gate 1 of 400 SPLICEs slept in the pipe, with it 399 to 400
//! of 400, counted from sched_switch stack traces on this development
//! box's busy CPU). sched_yield puts the submitter behind the woken worker,
//! which then runs until it sleeps (nothing preempts it), and the
//! submitter runs next. Its cost, in every figure: one system call and the
//! two context switches (submitter to worker, worker to submitter) the
//! request costs anyway. Neither a wait for CQEs (nothing completes) nor
//! a timed wait does it: an io_uring_enter or a futex wait with a timeout
//! of 0 never sleeps, and one that sleeps longer than the worker runs
//! leaves the CPU idle, which the figure would count. One enter per
//! request: a batch of them wakes the same free worker once per enqueue
//! (io_wq_activate_free_worker wakes the free list's first, which stays on
//! it until it runs), so only one would sleep in its SPLICE and the others
//! would wait in the queue behind it.
//!
//! The workers: unbound workers at most `slots` (IORING_REGISTER_IOWQ_MAX_
//! WORKERS), bound to the run's CPU, started by the set-up's cycles (a
//! SPLICE that finds no free worker starts one, and one left queued behind
//! a worker that had not run yet gets one when that worker sleeps) until a
//! cycle starts none (parts/iowq.rs: every worker there, the limit
//! reached); in the rounds each request finds a free one and no worker is
//! made (`create_io_worker`, 0 hits: its witness says so; a worker made in
//! the rounds would go unseen by the witness).
//!
//! The gate leaves a SPLICE that does not sleep a right result (16, the
//! bytes): only its path differs. The witness shows it: `pipe_wait_readable`
//! once per SPLICE.

use super::stream::{Records, RECORD_BYTES};
use crate::check::{tag, Counter, Kind, Ledger, MAX_PER_KIND};
use crate::exit::Exit;
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::iowq;
use crate::profile::parts::process::GiveBack;
use crate::profile::parts::setup::{self, CyclePlan, Step};
use crate::profile::vocabulary::{
    Fault, Function, Hits, Names, Profile, RowSet, RunOptions, Shape,
};
use crate::profile::vocabulary::{Timed, Workload, READ, SPLICE, WRITE};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IOSQE_ASYNC;
use crate::sys::{self, pair, Fd};

/// b0: SPLICEs that sleep in their io-wq workers until WRITEs wake them.
pub static B0: Profile = Profile {
    names: Names {
        short: "b0",
        long: "iowq-block",
        formal: "b0_iowq_block",
        help: "32 SPLICE, each asleep in an io-wq worker, 32 WRITE (16)",
    },
    per: "SPLICE asleep in an io-wq worker",
    opcodes: &[SPLICE, WRITE, READ],
    options: RunOptions::SLOTS,
    shape: |cfg| shape(cfg.slots),
    series: &[RowSet::only(
        "b0_iowq_block",
        "io_uring io-wq work that blocks, SPLICE from an empty pipe",
    )],
    punted: &[Kind::Splice],
    // Per SPLICE: prepared and issued (splice.c), run by a worker
    // (io_uring.c), asleep once in the pipe (fs/pipe.c); per WRITE and
    // READ their `.issue` (rw.c), inline; no worker made in the rounds.
    functions: &[
        Function::per_request("io_splice_prep", &[Kind::Splice]),
        Function::per_request("io_splice", &[Kind::Splice]),
        Function::per_request("io_wq_submit_work", &[Kind::Splice]),
        Function::per_request("pipe_wait_readable", &[Kind::Splice]),
        Function::per_request("io_write", &[Kind::Write]),
        Function::per_request("io_read", &[Kind::Read]),
        Function {
            name: "create_io_worker",
            hits: Hits::Never,
        },
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| {
        // Unbound workers, one per request.
        let policy = Some(iowq::prepare(ring, s.cpu.cpu(), [0, s.shape.slots])?);
        let mut b0 = IowqBlock::new(CyclePlan::of(s), policy)?;
        iowq::start_workers(&mut b0, ring, ledger, iowq::Start::UntilSteady)?;
        then(&mut b0, ring, ledger)
    },
};

/// The checks line's totals.
const TOTALS: [Counter; 4] = [
    ("cqes", |l| l.cqes),
    ("splice_cqes", |l| l.kind(Kind::Splice)),
    ("write_cqes", |l| l.kind(Kind::Write)),
    ("read_cqes", |l| l.kind(Kind::Read)),
];

/// `slots` SPLICEs, WRITEs and READs, each of a whole record.
pub fn shape(slots: u32) -> Shape {
    let len = RECORD_BYTES as i32;
    Shape::new(slots)
        .with(Kind::Splice, slots, len)
        .with(Kind::Write, slots, len)
        .with(Kind::Read, slots, len)
}

/// A request's two pipes: A, which its SPLICE reads and its WRITE fills,
/// and B, which its SPLICE fills and its READ empties; each (read end,
/// write end).
struct Pipes {
    a: (Fd, Fd),
    b: (Fd, Fd),
}

pub struct IowqBlock {
    p: CyclePlan,
    records: Records,
    pipes: [Option<Pipes>; MAX_PER_KIND as usize],
    /// The policy the run's thread had before the set-up, given back in
    /// `finish` (None: the tests' cycles, which do not change it).
    policy: Option<GiveBack>,
}

impl IowqBlock {
    /// `p.slots` pairs of pipes and the records' buffers.
    fn new(p: CyclePlan, policy: Option<GiveBack>) -> Result<IowqBlock, Exit> {
        let pipe = || pair::pipe().map_err(|e| setup::step_failed(Step::run("pipe2"), e));
        let mut pipes = [const { None }; MAX_PER_KIND as usize];
        for slot in pipes.iter_mut().take(p.slots as usize) {
            *slot = Some(Pipes {
                a: pipe()?,
                b: pipe()?,
            });
        }
        Ok(IowqBlock {
            p,
            records: Records::new()?,
            pipes,
            policy,
        })
    }

    /// Request `i`'s fds: A's read and write ends, B's read and write ends
    /// (-1, EBADF in a CQE, past the `slots` opened).
    #[inline(always)]
    fn fds(&self, i: u32) -> [i32; 4] {
        self.pipes[i as usize].as_ref().map_or([-1; 4], |p| {
            [p.a.0.raw(), p.a.1.raw(), p.b.0.raw(), p.b.1.raw()]
        })
    }
}

impl Workload for IowqBlock {
    /// Cycle `seq` (see the module docs), a symbol of its own (perf
    /// annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, r) = (&self.p, &self.records);
        let n = p.slots;
        r.fill(seq, n);
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.each_then(
            ring,
            ledger,
            Batch::new(Kind::Splice, n, |i| {
                let [a_rx, _, _, b_tx] = self.fds(i);
                let splice = ops::splice(a_rx, b_tx, RECORD_BYTES, tag(seq, Kind::Splice, i));
                ops::with_flags(splice, IOSQE_ASYNC)
            }),
            sys::sched_yield,
            Batch::new(Kind::Write, n, |i| {
                let a_tx = self.fds(i)[1];
                ops::write(a_tx, r.sent(i), RECORD_BYTES, tag(seq, Kind::Write, i))
            }),
        );
        let ns = c.stop(clock, p.inject_ns);
        // Untimed: empty each B, whose bytes must be the record.
        c.one_batch(
            ring,
            ledger,
            Batch::new(Kind::Read, n, |i| {
                let b_rx = self.fds(i)[2];
                ops::read(b_rx, r.received(i), RECORD_BYTES, tag(seq, Kind::Read, i))
            }),
        );
        c.verify(|| r.check(seq, n, Kind::Read, ledger));
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
    use crate::check::{Fail, Plan, Returned};
    use crate::profile::tests::live::{live_plan, refusing_ring};
    use crate::sys::Errno;

    /// b0 runs clean on this kernel, each SPLICE moving its record (its
    /// workers bound to this thread's CPU, one per request); and the
    /// results are the kernel's: told to expect 15 bytes, every SPLICE is a
    /// bad result showing the 16 it moved.
    #[test]
    fn splices_run_clean_and_their_results_are_checked() {
        let Some((mut ring, p)) = live_plan(&B0, 8) else {
            return;
        };
        let cpu = sys::getcpu().unwrap();
        assert!(iowq::bind_workers(&ring, cpu, [0, 8]).is_ok());
        let Ok(mut b0) = IowqBlock::new(p, None) else {
            panic!("the pipes or their buffers failed")
        };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..3 {
            assert!(b0.cycle(&mut ring, &clock, &mut l, seq).1, "{l:?}");
        }
        for k in [Kind::Splice, Kind::Write, Kind::Read] {
            assert_eq!((l.requests(k), l.kind(k)), (24, 24), "{k:?}");
        }
        let mut wrong = shape(8);
        wrong.expect[Kind::Splice as usize].res = 15;
        b0.p.plan = Plan::new(&wrong.expect);
        let mut l = Ledger::default();
        assert!(!b0.cycle(&mut ring, &clock, &mut l, 3).1);
        assert_eq!((l.count(Fail::BadResult), l.kind(Kind::Write)), (8, 8));
        assert_eq!(l.first.unwrap().cqe.unwrap().res, 16);
    }

    /// A byte left in a pipe before a cycle (B_5 not empty) comes back in
    /// front of READ 5's record: its bytes are wrong, blamed on READ 5.
    #[test]
    fn a_byte_left_in_a_pipe_is_caught_on_its_read() {
        let Some((mut ring, p)) = live_plan(&B0, 8) else {
            return;
        };
        let Ok(mut b0) = IowqBlock::new(p, None) else {
            panic!("the pipes or their buffers failed")
        };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        assert!(b0.cycle(&mut ring, &clock, &mut l, 0).1, "{l:?}");
        assert_eq!(sys::write(b0.fds(5)[3], b"x"), Ok(1));
        assert!(!b0.cycle(&mut ring, &clock, &mut l, 1).1);
        let f = l.first.unwrap();
        assert_eq!(
            (f.what, f.cqe.unwrap().user_data),
            ("bad_data", tag(1, Kind::Read, 5))
        );
    }

    /// A first SPLICE the kernel refuses (a ring disabled: EBADFD) ends the
    /// cycle: that one request is left in the SQ, nothing after it is
    /// pushed, and every expected CQE is missing.
    #[test]
    fn a_refused_splice_ends_the_cycle_with_nothing_pushed_after_it() {
        let Some(mut ring) = refusing_ring() else {
            return;
        };
        let p = CyclePlan::new(&shape(4), 0);
        let Ok(mut b0) = IowqBlock::new(p, None) else {
            panic!("the pipes or their buffers failed")
        };
        let mut l = Ledger::default();
        assert!(!b0.cycle(&mut ring, &Clock::syscall(), &mut l, 7).1);
        assert_eq!(ring.state().outstanding, 1);
        assert_eq!(
            (l.count(Fail::SubmitError), l.count(Fail::Missing)),
            (1, 12)
        );
        let call = l.first.unwrap().call.unwrap();
        assert_eq!(call.ret, Returned::Errno(Errno(77)));
    }
}
