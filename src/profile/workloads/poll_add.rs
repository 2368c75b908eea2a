//! p0: the poll path, woken. Per cycle, on `slots` (32) eventfds whose
//! counters are 0: one one-shot IORING_OP_POLL_ADD (POLLIN) per eventfd,
//! one io_uring_enter: each finds its eventfd not ready and waits on its
//! queue (io_poll_add -> __io_arm_poll_handler); then one IORING_OP_WRITE
//! of the value 1 per eventfd, one io_uring_enter that submits them and
//! waits for both: each write (res 8) wakes its poll (eventfd_write ->
//! io_poll_wake), which completes in task work with the mask the eventfd
//! reports, res POLLIN. A pair is a POLL_ADD and the WRITE that wakes it.
//!
//! Then, untimed, one IORING_OP_READ per eventfd (res 8, the value 1, so
//! each write counted once) empties the counters: the next cycle's polls
//! find nothing ready again, and take the wake path, not the fast path of
//! an fd ready when polled.
//!
//! Eventfds, not pipes: an eventfd's write is the lightest wake an fd has
//! (a counter and wake_up_locked_poll), so the pair is the poll path.
//!
//! Timed span: from before the first POLL_ADD is written to after the
//! last POLL_ADD and WRITE CQEs are checked.

use crate::check::{tag, Counter, Fail, Kind, Ledger, MAX_PER_KIND};
use crate::exit::Exit;
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::setup::{self, CyclePlan, Step};
use crate::profile::vocabulary::{
    Function, Hits, Names, Profile, RowSet, RunOptions, Shape, Timed, Workload,
};
use crate::profile::vocabulary::{POLL_ADD, READ, WRITE};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::epoll;
use crate::sys::memory::Mapping;
use crate::sys::uapi::{IoUringCqe, POLLIN};
use crate::sys::Fd;

/// p0: POLL_ADD on eventfds, woken by WRITEs to them.
pub static P0: Profile = Profile {
    names: Names {
        short: "p0",
        long: "poll-add",
        formal: "p0_poll_add",
        help: "32 POLL_ADD on eventfds, the WRITEs that wake them (POLLIN, 8)",
    },
    per: "POLL_ADD woken by a WRITE",
    opcodes: &[POLL_ADD, WRITE, READ],
    options: RunOptions::SLOTS,
    shape: |cfg| {
        let n = cfg.slots;
        Shape::new(n)
            .with(Kind::Poll, n, POLLIN as i32)
            .with(Kind::Write, n, VALUE_BYTES as i32)
            .with(Kind::Read, n, VALUE_BYTES as i32)
    },
    series: &[RowSet::only(
        "p0_poll_add",
        "io_uring POLL_ADD wakeup, eventfd",
    )],
    punted: &[],
    // POLL_ADD's `.prep` and `.issue` (io_uring/poll.c) once per SQE; the
    // wake once per POLL_ADD, the write that wakes it finding it queued;
    // its task work once per POLL_ADD CQE.
    functions: &[
        Function::per_request("io_poll_add_prep", &[Kind::Poll]),
        Function::per_request("io_poll_add", &[Kind::Poll]),
        Function::per_request("io_poll_wake", &[Kind::Poll]),
        Function {
            name: "io_poll_task_func",
            hits: Hits::PerCqe(Kind::Poll),
        },
        Function::per_request("io_write", &[Kind::Write]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut PollAdd::new(CyclePlan::of(s))?, ring, ledger),
};

/// What each WRITE adds to its eventfd's counter, and what its READ must
/// find there.
const WRITTEN: u64 = 1;
/// Bytes an eventfd read or write moves: one u64.
const VALUE_BYTES: u32 = 8;

/// The checks line's totals.
const TOTALS: [Counter; 4] = [
    ("cqes", |l| l.cqes),
    ("poll_cqes", |l| l.kind(Kind::Poll)),
    ("write_cqes", |l| l.kind(Kind::Write)),
    ("read_cqes", |l| l.kind(Kind::Read)),
];

pub struct PollAdd {
    p: CyclePlan,
    /// One eventfd per request (`slots` of them).
    fds: [Option<Fd>; MAX_PER_KIND as usize],
    /// WRITTEN, which every WRITE sends, then a u64 per READ.
    values: Mapping,
}

impl PollAdd {
    /// `p.slots` eventfds and the buffers.
    pub fn new(p: CyclePlan) -> Result<PollAdd, Exit> {
        let failed = |what| move |e| setup::step_failed(Step::run(what), e);
        let values = Mapping::anonymous((1 + MAX_PER_KIND as usize) * VALUE_BYTES as usize)
            .map_err(failed("mapping the buffers"))?;
        // SAFETY: the mapping is page-aligned and holds the u64.
        unsafe { (values.ptr() as *mut u64).write(WRITTEN) };
        let mut fds = [const { None }; MAX_PER_KIND as usize];
        for fd in fds.iter_mut().take(p.slots as usize) {
            *fd = Some(epoll::eventfd().map_err(failed("eventfd2"))?);
        }
        Ok(PollAdd { p, fds, values })
    }

    /// Eventfd `i` (-1, EBADF in its CQE, past the `slots` set up).
    #[inline(always)]
    fn fd(&self, i: u32) -> i32 {
        self.fds[i as usize].as_ref().map_or(-1, |f| f.raw())
    }

    /// Where READ `i` puts the counter it takes. Panics unless
    /// i < MAX_PER_KIND.
    #[inline(always)]
    fn taken(&self, i: u32) -> *mut u8 {
        assert!(i < MAX_PER_KIND);
        // SAFETY: 1 + i < 1 + MAX_PER_KIND u64s: inside the mapping.
        unsafe {
            self.values
                .ptr()
                .add((1 + i as usize) * VALUE_BYTES as usize)
        }
    }

    /// Whether each of the first `n` READs took the value WRITTEN; each
    /// that did not is a bad result of that READ.
    fn counted_once(&self, seq: u32, n: u32, ledger: &mut Ledger) -> bool {
        let mut ok = true;
        for i in 0..n {
            // SAFETY: `taken(i)` is a u64 of the mapping, aligned (8 * k).
            let got = unsafe { (self.taken(i) as *const u64).read() };
            if got != WRITTEN {
                ok = false;
                let cqe = IoUringCqe {
                    user_data: tag(seq, Kind::Read, i),
                    res: VALUE_BYTES as i32,
                    flags: 0,
                };
                ledger.fail(Fail::BadResult, "bad_data", seq, Some(&cqe));
            }
        }
        ok
    }
}

impl Workload for PollAdd {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let p = &self.p;
        let (n, one) = (p.slots, self.values.ptr() as *const u8);
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(Kind::Poll, n, |i| {
                ops::poll_add(self.fd(i), POLLIN, tag(seq, Kind::Poll, i))
            }),
            Batch::new(Kind::Write, n, |i| {
                ops::write(self.fd(i), one, VALUE_BYTES, tag(seq, Kind::Write, i))
            }),
        );
        let ns = c.stop(clock, p.inject_ns);
        // Untimed: empty the counters, each of which must hold 1.
        c.one_batch(
            ring,
            ledger,
            Batch::new(Kind::Read, n, |i| {
                ops::read(
                    self.fd(i),
                    self.taken(i),
                    VALUE_BYTES,
                    tag(seq, Kind::Read, i),
                )
            }),
        );
        c.verify(|| self.counted_once(seq, n, ledger));
        (ns, c.finish(ledger))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Plan;
    use crate::profile::tests::live::{live_plan, shape};
    use crate::sys;

    /// p0 runs clean, and its checks see what its CQEs alone cannot: an
    /// eventfd made ready before its poll (the poll takes the fast path,
    /// res POLLIN all the same) ends the cycle with a counter of 2, which
    /// its READ takes: a bad result of READ 7. The cycle then stops (a
    /// run ends at its first unclean cycle). And the mask is the kernel's:
    /// told to expect POLLIN | POLLRDNORM, every poll shows the POLLIN it got.
    #[test]
    fn an_eventfd_ready_before_its_poll_is_caught() {
        let Some((mut ring, p)) = live_plan(&P0, 16) else {
            return;
        };
        let Ok(mut p0) = PollAdd::new(p) else {
            panic!("eventfds or buffers failed")
        };
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..2 {
            assert!(p0.cycle(&mut ring, &clock, &mut l, seq).1, "{l:?}");
        }
        assert_eq!((l.kind(Kind::Poll), l.kind(Kind::Read)), (32, 32));
        assert_eq!(sys::write(p0.fd(7), &1u64.to_ne_bytes()), Ok(8));
        let (_, ok) = p0.cycle(&mut ring, &clock, &mut l, 2);
        assert!(!ok);
        let f = l.first.unwrap();
        assert_eq!(
            (f.what, f.cqe.unwrap().user_data),
            ("bad_data", tag(2, Kind::Read, 7))
        );
        assert_eq!(l.failures(), 1, "{l:?}");

        let mut s = shape(&P0, 16);
        s.expect[Kind::Poll as usize].res = 0x41;
        p0.p.plan = Plan::new(&s.expect);
        let mut l = Ledger::default();
        let (_, ok) = p0.cycle(&mut ring, &clock, &mut l, 3);
        assert!(!ok);
        assert_eq!(l.count(Fail::BadResult), 16);
        assert_eq!(l.first.unwrap().cqe.unwrap().res, POLLIN as i32);
    }
}
