//! g0: stress-ng's io-uring stressor, its shape made a measurement: one
//! ring set up with IORING_SETUP_COOP_TASKRUN | DEFER_TASKRUN |
//! SINGLE_ISSUER (the stressor's flags), one request in flight at a time
//! (each its own io_uring_enter, to_submit 1 and min_complete 1, as the
//! stressor submits), a fixed mix of opcodes on a small file. Per cycle,
//! one of each, in this order (MIX), on a memfd (shmem: tmpfs's file):
//!
//! | request | what | res |
//! |---|---|---|
//! | WRITE | a 512-byte block of this cycle at offset 0 | 512 |
//! | READ | 512 bytes at offset 0 (must be that block) | 512 |
//! | FSYNC | the whole file | 0 |
//! | NOP | | 0 |
//! | FALLOCATE | bytes 0..4096, mode 0: the size grows to 4096 | 0 |
//! | FADVISE | bytes 0..4096, POSIX_FADV_WILLNEED | 0 |
//! | MADVISE | one page of this process, MADV_NORMAL | 0 |
//! | STATX | the file (AT_EMPTY_PATH), STATX_SIZE: size 4096, a regular file | 0 |
//! | SYNC_FILE_RANGE | bytes 0..4096, flags 0 | 0 |
//! | FTRUNCATE | back to 2048 bytes, as the next cycle finds it | 0 |
//!
//! Where each runs: FSYNC, FALLOCATE, MADVISE, STATX, SYNC_FILE_RANGE and
//! FTRUNCATE always in io-wq (their preps set REQ_F_FORCE_ASYNC); FADVISE
//! in io-wq with WILLNEED (NORMAL, RANDOM and SEQUENTIAL run inline:
//! advise.c, io_fadvise_force_async; the stressor asks NORMAL, so its
//! FADVISE runs inline); NOP inline. READ and WRITE could run inline, but
//! shmem is not FMODE_NOWAIT (on 6.12, and on 6.18: seen here as one
//! io_uring_queue_async_work per READ and per WRITE), so io_read and
//! io_write get -EAGAIN at issue and go to io-wq too: nine of the ten
//! requests of a cycle are punted, each to the one worker that runs them
//! all (bounded work: a regular file's, or none), each completion handed
//! back to the submitter as task work (DEFER_TASKRUN) and posted when its
//! io_uring_enter waits. The figure is per request of the mix: a punt, a
//! worker woken and sleeping again, and the submitter woken, per request.
//!
//! Unlike the stressor: the order is fixed (its `--io-uring-rand` off), the
//! file is not reopened each pass, CLOSE, READV, WRITEV and the xattr
//! opcodes are left out (each would need its own state: a dup'ed fd, the
//! xattrs tmpfs may lack), and the run's thread is SCHED_BATCH with its
//! workers bound to its CPU (parts/iowq.rs: a repeatable figure; the
//! stressor runs SCHED_OTHER on any CPU). A kernel built without
//! CONFIG_ADVISE_SYSCALLS ends MADVISE with -EOPNOTSUPP though the probe
//! lists it (io_uring/advise.c builds its body only with it; FADVISE's
//! vfs_fadvise is always built, seen on 6.12 without it): the set-up asks
//! FADVISE and MADVISE once each, and such a kernel is a skip naming the
//! one refused.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked; then (untimed) the block read back and the statx fields.

use core::ffi::CStr;

use crate::check::{tag, Counter, Fail, Kind, Ledger};
use crate::exit::{self, Exit};
use crate::ops;
use crate::profile::parts::collect::{self, Batch};
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::iowq;
use crate::profile::parts::process::GiveBack;
use crate::profile::parts::setup::{self, CyclePlan, Step};
use crate::profile::vocabulary::{
    Fault, Function, Names, OwnRing, Profile, RowSet, RunOptions, Shape,
};
use crate::profile::vocabulary::{Timed, Workload, FADVISE, FALLOCATE, FSYNC, FTRUNCATE};
use crate::profile::vocabulary::{MADVISE, NOP, READ, STATX, SYNC_FILE_RANGE, WRITE};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::memory::Mapping;
use crate::sys::uapi::*;
use crate::sys::{self, Errno, Fd};

/// The ring: the stressor's flags.
const RING: OwnRing = OwnRing {
    flags: IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
    names: "COOP_TASKRUN|DEFER_TASKRUN|SINGLE_ISSUER",
    sq_thread_idle_ms: 0,
};

/// One cycle: each request of the mix, in order, and its res.
const MIX: [(Kind, i32); 10] = [
    (Kind::Write, BLOCK as i32),
    (Kind::Read, BLOCK as i32),
    (Kind::Fsync, 0),
    (Kind::Nop, 0),
    (Kind::Fallocate, 0),
    (Kind::Fadvise, 0),
    (Kind::Madvise, 0),
    (Kind::Statx, 0),
    (Kind::SyncRange, 0),
    (Kind::Ftruncate, 0),
];

/// The block each cycle writes and reads (the stressor's block size).
const BLOCK: u32 = 512;
/// The file's size between cycles, and after FALLOCATE.
const FILE_BYTES: u64 = 2048;
const GROWN: u64 = 4096;
/// The page MADVISE names.
const PAGE: usize = 4096;
/// Where the buffers lie in their mapping: the block written, the block
/// read, the struct statx; then, a page in, the page MADVISE names.
const READ_AT: usize = BLOCK as usize;
const STATX_AT: usize = 2 * BLOCK as usize;

/// g0: the stress-ng io-uring shape.
pub static G0: Profile = Profile {
    names: Names {
        short: "g0",
        long: "op-mix",
        formal: "g0_op_mix",
        help: "stress-ng's mix: 10 opcodes one at a time, DEFER_TASKRUN",
    },
    per: "request of the mix",
    opcodes: &[
        WRITE,
        READ,
        FSYNC,
        NOP,
        FALLOCATE,
        FADVISE,
        MADVISE,
        STATX,
        SYNC_FILE_RANGE,
        FTRUNCATE,
    ],
    options: RunOptions {
        default_slots: MIX.len() as u32,
        max_slots: MIX.len() as u32,
        takes: &[],
        futex_words: false,
        own_ring: Some(RING),
    },
    shape: |_| shape(),
    series: &[RowSet::only(
        "g0_op_mix",
        "io_uring one request at a time through an opcode mix, DEFER_TASKRUN, shmem",
    )],
    punted: &PUNTED,
    // Every punted request once in a worker (io_uring.c), and each file
    // operation's `.issue` once, there (sync.c, advise.c, statx.c,
    // truncate.c).
    functions: &[
        Function::per_request("io_wq_submit_work", &PUNTED),
        Function::per_request("io_fsync", &[Kind::Fsync]),
        Function::per_request("io_fallocate", &[Kind::Fallocate]),
        Function::per_request("io_fadvise", &[Kind::Fadvise]),
        Function::per_request("io_madvise", &[Kind::Madvise]),
        Function::per_request("io_statx", &[Kind::Statx]),
        Function::per_request("io_sync_file_range", &[Kind::SyncRange]),
        Function::per_request("io_ftruncate", &[Kind::Ftruncate]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, run_ring, ledger, then| {
        let ring = setup::own_ring(&RING, s.cpu.cpu(), s.cfg.timeout_ns())?;
        let policy = iowq::prepare(&ring, s.cpu.cpu(), [iowq::BOUNDED_WORKERS, 0])?;
        let mut g0 = OpMix::new(CyclePlan::of(s), ring)?;
        g0.policy = Some(policy);
        // Its FADVISE starts the worker, under the policy.
        g0.advice_taken()?;
        iowq::start_workers(&mut g0, run_ring, ledger, iowq::Start::OneCycle)?;
        then(&mut g0, run_ring, ledger)
    },
};

/// The requests that run in io-wq: all but the NOP.
const PUNTED: [Kind; 9] = [
    Kind::Write,
    Kind::Read,
    Kind::Fsync,
    Kind::Fallocate,
    Kind::Fadvise,
    Kind::Madvise,
    Kind::Statx,
    Kind::SyncRange,
    Kind::Ftruncate,
];

/// The checks line's totals: all CQEs, the io-wq ones', the NOPs'.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("punted_cqes", |l| PUNTED.iter().map(|&k| l.kind(k)).sum()),
    ("nop_cqes", |l| l.kind(Kind::Nop)),
];

/// A cycle: one request of each kind of the mix, each with its res.
pub fn shape() -> Shape {
    MIX.iter()
        .fold(Shape::new(MIX.len() as u32), |s, &(k, res)| {
            s.with(k, 1, res)
        })
}

/// The memfd's name (in /proc/self/fd).
const FILE_NAME: &CStr = c"uring-repro-g0";

pub struct OpMix {
    p: CyclePlan,
    /// The ring the cycles run on (the run's ring stays idle).
    ring: Ring,
    f: Files,
    /// The policy the run's thread had before the set-up, given back in
    /// `finish` (None: the tests' cycles, which do not change it).
    policy: Option<GiveBack>,
}

/// What the requests name: the file, and the memory they read and write.
struct Files {
    file: Fd,
    /// The blocks, the struct statx, the page MADVISE names.
    buf: Mapping,
}

impl OpMix {
    /// The memfd and the buffers, for cycles of `p` on `ring`.
    fn new(p: CyclePlan, ring: Ring) -> Result<OpMix, Exit> {
        let failed = |what| move |e| setup::step_failed(Step::run(what), e);
        let file = sys::memfd(FILE_NAME).map_err(failed("memfd_create"))?;
        let buf = Mapping::anonymous(2 * PAGE).map_err(failed("mapping the buffers"))?;
        Ok(OpMix {
            p,
            ring,
            f: Files { file, buf },
            policy: None,
        })
    }

    /// FADVISE and MADVISE once each (untimed, before anything counts):
    /// a kernel that lists one in its probe but ends it -EOPNOTSUPP
    /// (MADVISE without CONFIG_ADVISE_SYSCALLS) cannot run g0: a skip.
    /// Any other result than 0 fails the set-up.
    fn advice_taken(&mut self) -> Result<(), Exit> {
        for (kind, name) in [(Kind::Fadvise, FADVISE.1), (Kind::Madvise, MADVISE.1)] {
            let sqe = self.f.sqe(kind, tag(iowq::START_SEQ, kind, 0));
            let ring = &mut self.ring;
            let asked = ring.push_batch(1, |_| sqe) && ring.submit_and_wait(1, 1) == Ok(1);
            let mut res = None;
            ring.drain(1, |c| res = Some(c.res));
            match res.filter(|_| asked) {
                Some(0) => continue,
                Some(r) if r == -Errno::EOPNOTSUPP.0 => {
                    return Err(Exit::new(
                        exit::SKIP,
                        format_args!(
                            "kernel lacks {name}: it ends -EOPNOTSUPP (built without \
                             CONFIG_ADVISE_SYSCALLS)"
                        ),
                    ))
                }
                Some(r) => {
                    return Err(Exit::new(
                        exit::FAIL,
                        format_args!("set-up: {name} once: res {r}, not 0"),
                    ))
                }
                None => {
                    return Err(Exit::new(
                        exit::FAIL,
                        format_args!(
                            "set-up: {name} once: no CQE (not submitted, or the wait expired)"
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

impl Files {
    /// A pointer `off` bytes into the buffers. Panics past them.
    fn at(&self, off: usize) -> *mut u8 {
        assert!(off < self.buf.len());
        // SAFETY: off is inside the mapping.
        unsafe { self.buf.ptr().add(off) }
    }

    fn statx(&self) -> *mut Statx {
        self.at(STATX_AT) as *mut Statx
    }

    /// Request `kind` of the mix (MIX), its user_data `user_data`.
    #[inline(always)]
    fn sqe(&self, kind: Kind, user_data: u64) -> IoUringSqe {
        let fd = self.file.raw();
        match kind {
            Kind::Write => ops::write_at(fd, self.at(0), BLOCK, 0, user_data),
            Kind::Read => ops::read_at(fd, self.at(READ_AT), BLOCK, 0, user_data),
            Kind::Fsync => ops::fsync(fd, user_data),
            Kind::Fallocate => ops::fallocate(fd, 0, GROWN, user_data),
            Kind::Fadvise => ops::fadvise(fd, 0, GROWN as u32, POSIX_FADV_WILLNEED, user_data),
            Kind::Madvise => ops::madvise(self.at(PAGE), PAGE as u32, MADV_NORMAL, user_data),
            Kind::Statx => ops::statx_fd(fd, STATX_SIZE, self.statx(), user_data),
            Kind::SyncRange => ops::sync_file_range(fd, 0, GROWN as u32, user_data),
            Kind::Ftruncate => ops::ftruncate(fd, FILE_BYTES, user_data),
            // Kind::Nop: the mix has no other kind.
            _ => ops::nop(user_data),
        }
    }

    /// Byte `i` of cycle `seq`'s block.
    fn byte(seq: u32, i: usize) -> u8 {
        (seq.wrapping_mul(31).wrapping_add(i as u32) % 251) as u8
    }

    /// Before a cycle: its block to write, and a struct statx no STATX
    /// wrote (no mask, no size, no type).
    fn prepare(&self, seq: u32) {
        for i in 0..BLOCK as usize {
            // SAFETY: inside the block written, which only this thread
            // touches between cycles.
            unsafe { self.at(i).write(Self::byte(seq, i)) };
        }
        // SAFETY: the struct statx lies in the mapping; no request is in
        // flight between cycles.
        unsafe {
            let st = &mut *self.statx();
            (st.stx_mask, st.stx_size, st.stx_mode) = (0, u64::MAX, 0);
        }
    }

    /// What the requests did besides their CQEs: the READ got this cycle's
    /// block, and the STATX says a regular file of GROWN bytes. Each that
    /// did not is a bad result of its request.
    fn done_right(&self, seq: u32, ledger: &mut Ledger) -> bool {
        // SAFETY: both blocks lie in the mapping, and no request is in
        // flight after the cycle's CQEs.
        let (sent, got) = unsafe {
            (
                core::slice::from_raw_parts(self.at(0), BLOCK as usize),
                core::slice::from_raw_parts(self.at(READ_AT), BLOCK as usize),
            )
        };
        // SAFETY: as above; the kernel wrote it during the cycle.
        let st = unsafe { *self.statx() };
        let sane = st.stx_mask & STATX_SIZE != 0
            && st.stx_size == GROWN
            && st.stx_mode & S_IFMT == S_IFREG;
        let mut ok = true;
        for (right, kind, res) in [
            (sent == got, Kind::Read, BLOCK as i32),
            (sane, Kind::Statx, 0),
        ] {
            if !right {
                ok = false;
                let cqe = IoUringCqe {
                    user_data: tag(seq, kind, 0),
                    res,
                    flags: 0,
                };
                let what = if kind == Kind::Read {
                    "bad_data"
                } else {
                    "bad_statx"
                };
                ledger.fail(Fail::BadResult, what, seq, Some(&cqe));
            }
        }
        ok
    }
}

impl Workload for OpMix {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, _run: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, ring, f) = (&self.p, &mut self.ring, &self.f);
        f.prepare(seq);
        let mut c = Cycle::start(seq, &p.plan, clock);
        for (kind, _) in MIX {
            let request = |_| f.sqe(kind, tag(seq, kind, 0));
            c.one_batch(ring, ledger, Batch::new(kind, 1, request));
        }
        let ns = c.stop(clock, p.inject_ns);
        c.verify(|| f.done_right(seq, ledger));
        (ns, c.finish(ledger))
    }

    /// What the kernel reports of g0's ring (the run's is idle).
    fn account(&mut self, ledger: &mut Ledger, seq: u32) {
        collect::account(&mut self.ring, ledger, seq);
    }

    /// Before the summary: a policy not given back fails this run.
    fn finish(&mut self, _ring: &mut Ring, _ledger: &mut Ledger) -> Result<(), Fault> {
        self.policy.as_mut().map_or(Ok(()), GiveBack::give_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Plan;
    use crate::profile::tests::live::live_plan;

    /// g0's ring, workers bound to this thread's CPU, and its plan; None
    /// after a loud SKIP.
    fn live() -> Option<(Ring, OpMix)> {
        let (run, p) = live_plan(&G0, G0.options.default_slots)?;
        let ring = match setup::own_ring(&RING, sys::getcpu().unwrap(), 2_000_000_000) {
            Ok(r) => r,
            Err(e) => {
                crate::testing::skip(&format!("g0's ring: {}", e.cause()));
                return None;
            }
        };
        let Ok(g0) = OpMix::new(p, ring) else {
            panic!("the memfd or the buffers failed")
        };
        Some((run, g0))
    }

    /// The mix runs clean on this kernel, FADVISE and MADVISE taken (a
    /// kernel with CONFIG_ADVISE_SYSCALLS), each CQE its request's; and
    /// the results are the kernel's: told READ returns 511, it is a bad
    /// result showing the 512 it read, and the rest stay right.
    #[test]
    fn the_mix_runs_clean_and_its_results_are_checked() {
        let Some((mut run, mut g0)) = live() else {
            return;
        };
        assert!(g0.advice_taken().is_ok());
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..3 {
            assert!(g0.cycle(&mut run, &clock, &mut l, seq).1, "{l:?}");
        }
        for (k, _) in MIX {
            assert_eq!((l.requests(k), l.kind(k)), (3, 3), "{k:?}");
        }
        let mut wrong = shape();
        wrong.expect[Kind::Read as usize].res = 511;
        g0.p.plan = Plan::new(&wrong.expect);
        let mut l = Ledger::default();
        assert!(!g0.cycle(&mut run, &clock, &mut l, 3).1);
        assert_eq!((l.count(Fail::BadResult), l.kind(Kind::Statx)), (1, 1));
        let c = l.first.unwrap().cqe.unwrap();
        assert_eq!((c.user_data, c.res), (tag(3, Kind::Read, 0), 512));
        let mut l = Ledger::default();
        g0.account(&mut l, 4);
        assert!(l.passed(), "{l:?}");
    }

    /// What the CQEs cannot show: a READ that got another block than the
    /// cycle's (a stale one, one byte off), a STATX that says another
    /// size, another type, or left its mask empty; each a bad result of
    /// its request, named.
    #[test]
    fn the_block_read_and_the_statx_fields_are_checked() {
        let Some((_, g0)) = live() else {
            return;
        };
        let f = &g0.f;
        let set = |size: u64, mode: u16, mask: u32, off: Option<usize>| {
            f.prepare(7);
            // SAFETY: the test alone touches the buffers.
            unsafe {
                core::ptr::copy_nonoverlapping(f.at(0), f.at(READ_AT), BLOCK as usize);
                if let Some(i) = off {
                    *f.at(READ_AT + i) ^= 1;
                }
                let st = &mut *f.statx();
                (st.stx_size, st.stx_mode, st.stx_mask) = (size, mode, mask);
            }
        };
        let right = (GROWN, S_IFREG | 0o600, 0x7ff);
        set(right.0, right.1, right.2, None);
        let mut l = Ledger::default();
        assert!(f.done_right(7, &mut l) && l.passed());
        for (size, mode, mask, off, what, kind) in [
            (GROWN, right.1, right.2, Some(511), "bad_data", Kind::Read),
            (FILE_BYTES, right.1, right.2, None, "bad_statx", Kind::Statx),
            (GROWN, 0o020600, right.2, None, "bad_statx", Kind::Statx),
            (GROWN, right.1, 0, None, "bad_statx", Kind::Statx),
        ] {
            set(size, mode, mask, off);
            let mut l = Ledger::default();
            assert!(!f.done_right(7, &mut l), "{what} {size} {mode:o} {mask}");
            let first = l.first.unwrap();
            assert_eq!(
                (first.what, first.cqe.unwrap().user_data),
                (what, tag(7, kind, 0))
            );
            assert_eq!(l.failures(), 1);
        }
        // A block of another cycle: cycle 8's read back in cycle 7.
        set(right.0, right.1, right.2, None);
        let stale = f.at(READ_AT);
        for i in 0..BLOCK as usize {
            // SAFETY: as above.
            unsafe { stale.add(i).write(Files::byte(8, i)) };
        }
        let mut l = Ledger::default();
        assert!(!f.done_right(7, &mut l));
        assert_eq!((l.first.unwrap().what, l.failures()), ("bad_data", 1));
    }
}
