//! pollwake: what a ring pays per completion when its fd sits in an epoll
//! set, and whether a poller can miss a completion (lost wakeup).
//!
//! Every commit of a CQE to a ring whose fd is in an epoll set calls
//! `__wake_up()` on the ring's poll wait queue (`io_poll_wq_wake` ->
//! `ep_poll_callback` under the epoll lock), even when the poller was
//! already woken and has not run yet. A proposed fix ("io_uring: skip
//! redundant poll wakeups") was not merged because it could lose wakeups.
//! This workload measures the cost directly and watches for lost wakeups.
//!
//! Completion source: a "source" ring sends `burst` IORING_OP_MSG_RING data
//! messages to a target ring in one io_uring_enter; each message is its own
//! commit on the target (N poll wakes per enter; the untimed eventfd pass
//! proves the commit count on this kernel). Modes, each with its own target
//! ring (a ring once polled keeps paying), run in this order every round:
//! - `none`: the target is in no epoll set (and was never polled);
//! - `idle`: the target is in an epoll set (level-triggered EPOLLIN) that
//!   nobody waits on; after each burst, outside the timed span,
//!   epoll_pwait(0) must report exactly one EPOLLIN;
//! - `waiter`: a second thread sleeps in epoll_pwait on the target, takes
//!   the CQEs when woken and hands them to the producer (futex);
//! - `none_aa`: a second `none` ring, the A/A control (noise floor).
//!
//! Timed span of a burst: queue the N messages, one io_uring_enter that
//! submits and waits for their N source CQEs, validate them (with
//! DEFER_TASKRUN: the owner's io_uring_enter that posts the target CQEs);
//! then, after the untimed gap where `idle` polls, collect and validate the
//! N target CQEs (`waiter`: wait until the waiter handed them over).
//!
//! user_data: `seq << 16 | kind << 8 | index` as in check.rs; the target
//! CQE's res is `value(seq, index)`, so a stale or misrouted CQE is caught.

mod run;
pub mod waiter;

pub use run::run;

use core::cell::UnsafeCell;
use core::mem::{ManuallyDrop, MaybeUninit};
use core::sync::atomic::{AtomicU32, Ordering};

use self::waiter::{Shared, Watchdog, EXITED, FAILED, STARTING};
use crate::app::{CQ_ENTRIES, RING_ENTRIES};
use crate::check::Ledger;
use crate::ops;
use crate::ring::{Memory, Ring, SetupError};
use crate::rt::thread::Thread;
use crate::sys::clock::Clock;
use crate::sys::epoll::{self, EpollEvent, EPOLLIN, EPOLL_CTL_ADD};
use crate::sys::futex::{self, ETIMEDOUT};
use crate::sys::uapi::*;
use crate::sys::{self, Errno, Fd, SysResult};

/// Messages per burst (`--burst`): the report's 32 slots.
pub const DEFAULT_BURST: u32 = 32;
/// At most one CQE bitmap word (and the waiter's copy buffer).
pub const MAX_BURST: u32 = waiter::MAX_BURST as u32;
/// Bound on each of the waiter's epoll_pwait calls.
pub const WATCHDOG_MS: i32 = 1000;
/// Extra time a late callback gets before a wakeup is called lost.
pub const GRACE_MS: i32 = 100;
/// Tries (each a short sleep) to see the waiter asleep before a burst.
const PARK_TRIES: u32 = 200;
const PARK_SLEEP_NS: u64 = 50_000;
/// waiter on another CPU: how long the producer spins for the handover
/// before it sleeps on the futex.
const SPIN_NS: u64 = 200_000;
/// Extra bounded waits for a short CQ before a timeout is counted.
const MAX_EXTRA_WAITS: u32 = 4;

/// user_data kinds (the `kind` byte; check::Kind uses 0..=4).
const SOURCE: u8 = 0x10;
const TARGET: u8 = 0x11;
const STOP: u8 = 0x12;
const NOP: u8 = 0x13;
/// epoll data of the watched ring.
const TOKEN: u64 = 0x706f_6c6c;

#[inline(always)]
const fn tag(seq: u32, kind: u8, i: u32) -> u64 {
    ((seq as u64) << 16) | ((kind as u64) << 8) | i as u64
}

/// The `len` (target res) of message `i` of burst `seq`: unique per burst
/// and index, below 2^31.
#[inline(always)]
const fn value(seq: u32, i: u32) -> u32 {
    ((seq & 0x7f_ffff) << 8) | i
}

/// `--ring-flags`: setup flags of every ring the run creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingFlags {
    None,
    SingleIssuer,
    /// DEFER_TASKRUN (the kernel requires SINGLE_ISSUER with it).
    DeferTaskrun,
}

impl RingFlags {
    pub const ALL: [(RingFlags, &'static str); 3] = [
        (RingFlags::None, "none"),
        (RingFlags::SingleIssuer, "single-issuer"),
        (RingFlags::DeferTaskrun, "defer-taskrun"),
    ];

    pub fn parse(s: &[u8]) -> Option<RingFlags> {
        Self::ALL.iter().find(|f| f.1.as_bytes() == s).map(|f| f.0)
    }
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|f| f.0 == self).map_or("?", |f| f.1)
    }
    pub fn setup(self) -> u32 {
        match self {
            RingFlags::None => 0,
            RingFlags::SingleIssuer => IORING_SETUP_SINGLE_ISSUER,
            RingFlags::DeferTaskrun => IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        }
    }
    fn deferred(self) -> bool {
        self == RingFlags::DeferTaskrun
    }
}

/// The modes, in the order each round runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    None,
    Idle,
    Waiter,
    NoneAa,
}

pub const MODES: [Mode; 4] = [Mode::None, Mode::Idle, Mode::Waiter, Mode::NoneAa];

impl Mode {
    /// The profile column of its rows.
    pub fn profile(self) -> &'static str {
        match self {
            Mode::None => "pollwake_none",
            Mode::Idle => "pollwake_idle",
            Mode::Waiter => "pollwake_waiter",
            Mode::NoneAa => "pollwake_none_aa",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Idle => "idle",
            Mode::Waiter => "waiter",
            Mode::NoneAa => "none_aa",
        }
    }
}

/// The run's shape (from the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub burst: u32,
    pub flags: RingFlags,
    pub waiter_cpu: u32,
    /// The producer's CPU: a waiter elsewhere is awaited spinning first.
    pub cpu: u32,
    pub dog: Watchdog,
    /// Bound on io_uring and handshake waits.
    pub timeout_ns: u64,
}

/// Checks beyond the CQE ledger; every field but the info ones fails the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PollChecks {
    /// CQEs of timed bursts (warm-ups included), per side.
    pub source_cqes: u64,
    pub target_cqes: u64,
    /// idle: epoll_pwait(0) did not return exactly one (EPOLLIN, token).
    pub epoll_bad: u64,
    pub lost_wakeups: u64,
    /// waiter: an event other than (EPOLLIN, token).
    pub bad_events: u64,
    /// The waiter failed to start, failed, or could not be joined.
    pub waiter_errors: u64,
    /// waiter: not asleep in epoll_pwait before a burst after every retry.
    pub not_parked: u64,
    /// The eventfd pass saw other commit counts than expected.
    pub eventfd_bad: u64,
    // -- information, not checks --
    pub late_wakeups: u64,
    pub empty_wakes: u64,
    pub park_retries: u64,
}

impl PollChecks {
    pub fn failures(&self) -> u64 {
        self.epoll_bad
            + self.lost_wakeups
            + self.bad_events
            + self.waiter_errors
            + self.not_parked
            + self.eventfd_bad
    }
}

/// Validates the CQEs of one side of one burst: tag, once each, res, flags.
struct Tally {
    seq: u32,
    kind: u8,
    n: u32,
    seen: u64,
    got: u32,
}

impl Tally {
    fn new(seq: u32, kind: u8, n: u32) -> Tally {
        Tally {
            seq,
            kind,
            n,
            seen: 0,
            got: 0,
        }
    }

    /// One call per CQE in every mode alike (outlined: binary size).
    #[inline(never)]
    fn observe(&mut self, c: &IoUringCqe, l: &mut Ledger) {
        l.cqes += 1;
        let i = (c.user_data & 0xff) as u32;
        if c.user_data >> 8 != ((self.seq as u64) << 8 | self.kind as u64) || i >= self.n {
            return bad(l, Bad::Tag, self.seq, c);
        }
        if self.seen & (1 << i) != 0 {
            return bad(l, Bad::Duplicate, self.seq, c);
        }
        self.seen |= 1 << i;
        self.got += 1;
        let want = if self.kind == TARGET {
            value(self.seq, i) as i32
        } else {
            0
        };
        if c.res != want {
            bad(l, Bad::Result, self.seq, c);
        }
        if c.flags != 0 {
            bad(l, Bad::Flags, self.seq, c);
        }
    }

    fn finish(&self, l: &mut Ledger) {
        if self.got < self.n {
            l.missing += (self.n - self.got) as u64;
            l.note("missing", self.seq, None);
        }
    }
}

#[derive(Clone, Copy)]
enum Bad {
    Tag,
    Duplicate,
    Result,
    Flags,
}

/// Counts a bad CQE and notes the first.
#[cold]
#[inline(never)]
fn bad(l: &mut Ledger, why: Bad, seq: u32, c: &IoUringCqe) {
    let (n, what) = match why {
        Bad::Tag => (&mut l.unknown_tags, "unknown_tag"),
        Bad::Duplicate => (&mut l.duplicates, "duplicate"),
        Bad::Result => (&mut l.bad_results, "bad_result"),
        Bad::Flags => (&mut l.bad_flags, "bad_flags"),
    };
    *n += 1;
    l.note(what, seq, Some(c));
}

/// Drains `t.n` CQEs of `ring` into `t`, waiting (bounded) for missing ones.
fn collect(ring: &mut Ring, t: &mut Tally, l: &mut Ledger) {
    let n = t.n;
    let mut got = ring.drain(n, |c| t.observe(c, l));
    let mut tries = 0;
    while got < n && tries < MAX_EXTRA_WAITS {
        tries += 1;
        match ring.submit_and_wait(0, n - got) {
            Ok(_) | Err(Errno::EINTR) | Err(Errno::ETIME) => {}
            Err(_) => {
                l.submit_errors += 1;
                l.note("enter_error", t.seq, None);
                break;
            }
        }
        got += ring.drain(n - got, |c| t.observe(c, l));
    }
    if got < n {
        l.timeouts += 1;
        l.note("timeout", t.seq, None);
    }
    t.finish(l);
}

/// DEFER_TASKRUN: MSG_RING only queues task work on the target; the owner's
/// io_uring_enter(GETEVENTS, min_complete = n) runs it (up to
/// max(20, n) items a pass) and posts the CQEs in one commit. A zero
/// timeout: it never sleeps, even if a waiter took CQEs meanwhile.
#[inline(always)]
fn flush_deferred(fd: i32, n: u32) -> SysResult<()> {
    let ts = KernelTimespec::default();
    let arg = IoUringGeteventsArg {
        ts: &ts as *const KernelTimespec as u64,
        ..Default::default()
    };
    // SAFETY: arg is a valid io_uring_getevents_arg whose ts outlives the call.
    let r = unsafe {
        sys::io_uring_enter(
            fd,
            0,
            n,
            IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
            &arg as *const IoUringGeteventsArg as usize,
            core::mem::size_of::<IoUringGeteventsArg>(),
        )
    };
    match r {
        Ok(_) | Err(Errno::ETIME) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The index in `Pollwake::rings` of a mode's target (not `waiter`'s).
fn ring_of(m: Mode) -> usize {
    match m {
        Mode::None => 1,
        Mode::Idle => 2,
        _ => 3,
    }
}

/// `N` rings with the run's flags and wait bound: all of them or none.
#[inline(never)]
fn new_rings<const N: usize>(o: &Options) -> Result<[Ring; N], SetupError> {
    let mut v = [const { MaybeUninit::<Ring>::uninit() }; N];
    for k in 0..N {
        match Ring::new(RING_ENTRIES, CQ_ENTRIES, o.flags.setup()) {
            Ok(r) => {
                v[k].write(r).set_wait_timeout_ns(o.timeout_ns);
            }
            Err(e) => {
                for r in &mut v[..k] {
                    // SAFETY: the first k were written above; each dropped once.
                    unsafe { r.assume_init_drop() };
                }
                return Err(e);
            }
        }
    }
    // SAFETY: every element was written in the loop above.
    Ok(v.map(|r| unsafe { r.assume_init() }))
}

/// Adds a ring's end-of-run state to the ledger.
fn end_state(ring: &Ring, l: &mut Ledger) {
    let before = l.failures();
    l.sq_dropped += ring.sq_dropped() as u64;
    l.cq_overflow += ring.cq_overflow() as u64;
    if ring.sq_flags() & IORING_SQ_CQ_OVERFLOW != 0 {
        l.cq_overflow += 1;
    }
    l.outstanding += ring.sq_outstanding() as u64 + ring.cq_ready() as u64;
    if l.failures() != before {
        l.note("end_of_run_state", 0, None);
    }
}

/// The waiter's shared page: `Shared` with the waiter's target ring in it,
/// so neither moves while the thread runs. The ring is dropped only once
/// the thread is known gone; a thread that cannot be joined keeps both.
struct Handoff {
    mem: ManuallyDrop<Memory>,
    thread: Option<Thread>,
    ring_fd: i32,
}

/// The waiter's ring lives right after `Shared` in the same mapping.
#[repr(C)]
struct Page {
    sh: Shared,
    ring: UnsafeCell<ManuallyDrop<Ring>>,
}

impl Handoff {
    #[inline(never)]
    fn new(mem: Memory, ring: Ring, epfd: i32, o: &Options) -> Handoff {
        let ring_fd = ring.fd();
        let page = mem.ptr() as *mut Page;
        // SAFETY: a fresh zeroed mapping large enough for a Page, page-aligned.
        unsafe {
            page.write(Page {
                sh: Shared {
                    ring: core::ptr::null_mut(),
                    epfd,
                    token: TOKEN,
                    burst: o.burst,
                    cpu: o.waiter_cpu,
                    dog: o.dog,
                    stop: AtomicU32::new(0),
                    state: AtomicU32::new(STARTING),
                    error: AtomicU32::new(0),
                    seen: AtomicU32::new(0),
                    burst_wakes: AtomicU32::new(0),
                    wakes: AtomicU32::new(0),
                    empty_wakes: AtomicU32::new(0),
                    lost: AtomicU32::new(0),
                    late: AtomicU32::new(0),
                    bad_events: AtomicU32::new(0),
                    migrated: AtomicU32::new(0),
                    cqes: UnsafeCell::new([IoUringCqe::default(); waiter::MAX_BURST]),
                },
                ring: UnsafeCell::new(ManuallyDrop::new(ring)),
            });
            (*page).sh.ring = &mut **(*page).ring.get() as *mut Ring;
        }
        Handoff {
            mem: ManuallyDrop::new(mem),
            thread: None,
            ring_fd,
        }
    }

    fn sh(&self) -> &Shared {
        // SAFETY: the page holds an initialised Page for our whole life.
        unsafe { &(*(self.mem.ptr() as *const Page)).sh }
    }

    /// The ring, for the producer; None while the waiter may be using it.
    fn ring(&mut self) -> Option<&mut Ring> {
        if self.thread.as_ref().is_some_and(|t| !t.exited()) {
            return None;
        }
        // SAFETY: no thread uses the ring now; &mut self is exclusive.
        Some(unsafe { &mut **(*(self.mem.ptr() as *mut Page)).ring.get() })
    }

    /// Starts the waiter; Err(errno or FAIL_PIN) when it cannot run.
    fn start(&mut self, timeout_ns: u64) -> Result<(), u32> {
        // SAFETY: the Page stays mapped until the thread is joined (Drop
        // leaks it otherwise) and the producer leaves the ring alone.
        let t = unsafe { waiter::start(self.sh(), timeout_ns) }.map_err(|e| e.0 as u32)?;
        self.thread = Some(t);
        match self.sh().state.load(Ordering::Acquire) {
            waiter::READY => Ok(()),
            FAILED => Err(self.sh().error.load(Ordering::Relaxed)),
            _ => Err(ETIMEDOUT.0 as u32),
        }
    }

    /// Asks the waiter to stop and joins it; true when it is gone.
    fn join(&mut self, timeout_ns: u64) -> bool {
        self.sh().stop.store(1, Ordering::Release);
        match &mut self.thread {
            Some(t) => t.join(timeout_ns),
            None => true,
        }
    }
}

impl Drop for Handoff {
    fn drop(&mut self) {
        if !self.join(5_000_000_000) {
            // A live thread may still touch the page: leak it (and the
            // thread's stack, see Thread's Drop); exit ends them all.
            return;
        }
        // SAFETY: the thread is gone (or never ran): nobody else uses the
        // ring or the page, and each is dropped exactly once.
        unsafe {
            ManuallyDrop::drop(&mut *(*(self.mem.ptr() as *mut Page)).ring.get());
            ManuallyDrop::drop(&mut self.mem);
        }
    }
}

/// What the eventfd pass saw (counts after the send and after the flush).
/// `[n, 0]`: every MSG_RING post is its own commit (always so without
/// DEFER_TASKRUN; with it on 6.1, where the ring's owner posts directly).
/// `[1, 1]`: DEFER_TASKRUN on 6.12 and 6.18: the messages are queued as task
/// work on the target (one signal when the queue goes non-empty) and the
/// owner's io_uring_enter posts them in one commit. Anything else fails.
fn commit_shape(counts: &[u64; 3], n: u32, deferred: bool) -> Option<&'static str> {
    match [counts[0], counts[1]] {
        [c, 0] if c == n as u64 => Some("a commit per message"),
        [1, 1] if deferred => Some("queued as task work, one commit at the owner's flush"),
        _ => None,
    }
}

/// Waiter wake-ups per burst: counts of 0..=8, then 9 or more.
const HIST: usize = 10;

/// The workload: the source ring, one target ring per mode, the epoll sets.
pub struct Pollwake {
    o: Options,
    /// The source ring, then the targets of none, idle and none_aa (the
    /// waiter's target lives in `handoff`).
    rings: [Ring; 4],
    ep_idle: Fd,
    // The waiter's epoll fd must outlive the waiter: Handoff (which joins)
    // is declared first, so it drops first.
    handoff: Handoff,
    _ep_waiter: Fd,
    stat: Option<Fd>,
    /// Bursts the waiter has handed over so far.
    handed: u32,
    pub checks: PollChecks,
    /// idle: ns of the untimed epoll_pwait(0) gap; none: the same empty gap.
    pub gap_ns: [u64; 4],
    pub gap_bursts: [u64; 4],
    pub wake_hist: [u64; HIST],
    /// The mode of the first failure, for the one-line diagnosis.
    pub first_mode: Option<Mode>,
}

/// Why the workload could not be set up (the exit code is SKIP).
pub enum SetupFail {
    Ring(SetupError),
    Sys(&'static str, Errno),
}

impl Pollwake {
    #[inline(never)]
    pub fn new(o: Options) -> Result<Pollwake, SetupFail> {
        let sys = |what| move |e| SetupFail::Sys(what, e);
        // Every fallible step that does not need the rings comes first, so
        // a failure has little to tear down (binary size).
        let ep_idle = epoll::epoll_create1().map_err(sys("epoll_create1"))?;
        let ep_waiter = epoll::epoll_create1().map_err(sys("epoll_create1"))?;
        let page = Memory::new(core::mem::size_of::<Page>()).map_err(sys("mmap"))?;
        let rings = new_rings::<4>(&o).map_err(SetupFail::Ring)?;
        let [waiter_ring] = new_rings::<1>(&o).map_err(SetupFail::Ring)?;
        for (ep, fd) in [
            (&ep_idle, rings[ring_of(Mode::Idle)].fd()),
            (&ep_waiter, waiter_ring.fd()),
        ] {
            epoll::epoll_ctl(ep.raw(), EPOLL_CTL_ADD, fd, EPOLLIN, TOKEN)
                .map_err(sys("epoll_ctl"))?;
        }
        let handoff = Handoff::new(page, waiter_ring, ep_waiter.raw(), &o);
        Ok(Pollwake {
            o,
            rings,
            ep_idle,
            handoff,
            _ep_waiter: ep_waiter,
            stat: None,
            handed: 0,
            checks: PollChecks::default(),
            gap_ns: [0; 4],
            gap_bursts: [0; 4],
            wake_hist: [0; HIST],
            first_mode: None,
        })
    }

    pub fn source(&self) -> &Ring {
        &self.rings[0]
    }

    /// Starts the waiter thread (bounded); opens its /proc stat for the
    /// asleep-before-each-burst check (skipped when /proc is missing).
    #[inline(never)]
    pub fn start_waiter(&mut self) -> Result<(), u32> {
        self.handoff.start(self.o.timeout_ns)?;
        let tid = self.handoff.thread.as_ref().map_or(0, |t| t.tid());
        let mut path = [0u8; 48];
        self.stat = sys::open(task_stat_path(tid, &mut path), O_RDONLY, 0).ok();
        Ok(())
    }

    pub fn parked_check(&self) -> bool {
        self.stat.is_some()
    }

    fn target_fd(&self, m: Mode) -> i32 {
        match m {
            Mode::Waiter => self.handoff.ring_fd,
            _ => self.rings[ring_of(m)].fd(),
        }
    }

    /// Queues `n` messages to `fd` and submits them with one enter, then
    /// validates their source CQEs. False when the submission failed.
    #[inline(never)]
    fn send(&mut self, fd: i32, seq: u32, n: u32, l: &mut Ledger) -> bool {
        for i in 0..n {
            self.rings[0].push(&ops::msg_ring_data(
                fd,
                value(seq, i),
                tag(seq, TARGET, i),
                tag(seq, SOURCE, i),
            ));
        }
        if !super::submit_ok(self.rings[0].submit_and_wait(n, n), n, l, seq) {
            return false;
        }
        let mut t = Tally::new(seq, SOURCE, n);
        collect(&mut self.rings[0], &mut t, l);
        true
    }

    /// Runs burst `seq` in mode `m`: (timed ns, clean).
    #[inline(never)]
    pub fn burst(&mut self, m: Mode, seq: u32, clock: &Clock, l: &mut Ledger) -> (u64, bool) {
        let n = self.o.burst;
        let before = l.failures() + self.checks.failures();
        if m == Mode::Waiter {
            self.wait_parked(seq, l);
        }
        let fd = self.target_fd(m);
        let t0 = clock.now_ns();
        let mut ok = self.send(fd, seq, n, l);
        if ok && self.o.flags.deferred() && flush_deferred(fd, n).is_err() {
            l.submit_errors += 1;
            l.note("flush_error", seq, None);
            ok = false;
        }
        let t1 = clock.now_ns();
        if ok && m == Mode::Idle {
            self.idle_check(seq, l);
        }
        let t2 = clock.now_ns();
        let mut t = Tally::new(seq, TARGET, n);
        if ok {
            match m {
                Mode::Waiter => self.take_handed(&mut t, clock, l),
                _ => collect(&mut self.rings[ring_of(m)], &mut t, l),
            }
        }
        let t3 = clock.now_ns();
        self.checks.source_cqes += n as u64;
        self.checks.target_cqes += t.got as u64;
        self.gap_ns[m as usize] += t2.wrapping_sub(t1);
        self.gap_bursts[m as usize] += 1;
        let clean = ok && l.failures() + self.checks.failures() == before;
        if !clean && self.first_mode.is_none() {
            self.first_mode = Some(m);
        }
        (t1.wrapping_sub(t0) + t3.wrapping_sub(t2), clean)
    }

    /// idle, untimed: the epoll set must report the ring exactly once.
    #[inline(never)]
    fn idle_check(&mut self, seq: u32, l: &mut Ledger) {
        let mut ev = [EpollEvent::default(); 2];
        let r = epoll::epoll_pwait(self.ep_idle.raw(), &mut ev, 0);
        let (events, data) = (ev[0].events, ev[0].data);
        if r != Ok(1) || events != EPOLLIN || data != TOKEN {
            self.checks.epoll_bad += 1;
            l.note("idle_epoll", seq, None);
        }
    }

    /// waiter: waits (bounded) until the waiter handed the burst over, then
    /// validates its copy of the CQEs.
    #[inline(never)]
    fn take_handed(&mut self, t: &mut Tally, clock: &Clock, l: &mut Ledger) {
        let want = self.handed.wrapping_add(1);
        let sh = self.handoff.sh();
        let bound =
            (self.o.dog.timeout_ms + self.o.dog.grace_ms) as u64 * 1_000_000 + self.o.timeout_ns;
        // A waiter on another CPU runs meanwhile: spin a little first, so
        // the span holds its wakeup, not also ours from futex sleep.
        if self.o.waiter_cpu != self.o.cpu {
            let t0 = clock.now_ns();
            while sh.seen.load(Ordering::Acquire) != want
                && clock.now_ns().wrapping_sub(t0) < SPIN_NS
            {
                core::hint::spin_loop();
            }
        }
        let mut done = false;
        for _ in 0..64 {
            let v = sh.seen.load(Ordering::Acquire);
            if v == want {
                done = true;
                break;
            }
            if sh.state.load(Ordering::Acquire) >= EXITED
                || futex::wait(&sh.seen, v, bound, true) == Err(ETIMEDOUT)
            {
                break;
            }
        }
        self.checks.lost_wakeups = sh.lost.load(Ordering::Relaxed) as u64;
        self.checks.bad_events = sh.bad_events.load(Ordering::Relaxed) as u64;
        if !done {
            self.checks.waiter_errors += 1;
            l.timeouts += 1;
            l.note("waiter_timeout", t.seq, None);
            return;
        }
        self.handed = want;
        let wakes = sh.burst_wakes.load(Ordering::Relaxed) as usize;
        self.wake_hist[wakes.min(HIST - 1)] += 1;
        // SAFETY: the waiter wrote the copy before releasing `seen`, and
        // writes it again only after our next burst.
        let cqes = unsafe { &*sh.cqes.get() };
        for c in &cqes[..t.n as usize] {
            t.observe(c, l);
        }
        t.finish(l);
    }

    /// waiter, untimed: before a burst, the waiter must be asleep (state S
    /// in /proc: its only sleep is epoll_pwait), else the burst would not
    /// measure a wakeup. Sleeps briefly so a waiter on this CPU can get there.
    #[inline(never)]
    fn wait_parked(&mut self, seq: u32, l: &mut Ledger) {
        let Some(fd) = &self.stat else { return };
        let nap = AtomicU32::new(0);
        for k in 0..PARK_TRIES {
            let mut buf = [0u8; 256];
            let state = match sys::pread(fd.raw(), &mut buf, 0) {
                Ok(len) => task_state(&buf[..len]),
                Err(_) => None,
            };
            if state == Some(b'S') {
                self.checks.park_retries += k as u64;
                return;
            }
            let _ = futex::wait(&nap, 0, PARK_SLEEP_NS, true);
        }
        self.checks.not_parked += 1;
        l.note("waiter_not_asleep", seq, None);
    }

    /// The untimed eventfd pass on a ring of its own: returns the eventfd
    /// counts (after the send, after the DEFER_TASKRUN flush, after `n`
    /// NOPs in one enter) and counts a mismatch with what this kernel
    /// documents (see docs/pollwake.md).
    #[inline(never)]
    pub fn eventfd_pass(&mut self, l: &mut Ledger) -> Result<[u64; 3], SetupFail> {
        let n = self.o.burst;
        let [mut ring] = new_rings::<1>(&self.o).map_err(SetupFail::Ring)?;
        let efd = epoll::eventfd().map_err(|e| SetupFail::Sys("eventfd2", e))?;
        let raw = efd.raw();
        // SAFETY: arg points to one i32, the eventfd.
        unsafe {
            sys::io_uring_register(
                ring.fd(),
                IORING_REGISTER_EVENTFD,
                &raw as *const i32 as usize,
                1,
            )
        }
        .map_err(|e| SetupFail::Sys("IORING_REGISTER_EVENTFD", e))?;
        let take = || epoll::eventfd_take(raw).unwrap_or(u64::MAX);
        let mut counts = [0u64; 3];
        if self.send(ring.fd(), 0, n, l) {
            counts[0] = take();
            if self.o.flags.deferred() {
                let _ = flush_deferred(ring.fd(), n);
            }
            counts[1] = take();
            collect(&mut ring, &mut Tally::new(0, TARGET, n), l);
        }
        for i in 0..n {
            ring.push(&ops::nop(tag(0, NOP, i)));
        }
        if super::submit_ok(ring.submit_and_wait(n, n), n, l, 0) {
            collect(&mut ring, &mut Tally::new(0, NOP, n), l);
        }
        counts[2] = take();
        if commit_shape(&counts, n, self.o.flags.deferred()).is_none() {
            self.checks.eventfd_bad += 1;
            l.note("eventfd_commits", 0, None);
        }
        end_state(&ring, l);
        Ok(counts)
    }

    /// Stops and joins the waiter (a stop message wakes it), then adds
    /// every ring's end-of-run state to the ledger.
    pub fn finish(&mut self, l: &mut Ledger) {
        let sh = self.handoff.sh();
        let started = self.handoff.thread.is_some();
        sh.stop.store(1, Ordering::Release);
        let fd = self.handoff.ring_fd;
        let mut sent = false;
        let src = &mut self.rings[0];
        if started && src.push(&ops::msg_ring_data(fd, 0, tag(0, STOP, 0), tag(0, STOP, 1))) {
            sent = src.submit_and_wait(1, 1) == Ok(1);
            src.drain(1, |c| {
                l.cqes += 1;
                if c.user_data != tag(0, STOP, 1) || c.res != 0 || c.flags != 0 {
                    l.bad_results += 1;
                    l.note("stop_message", 0, Some(c));
                }
            });
            if sent && self.o.flags.deferred() {
                let _ = flush_deferred(fd, 1);
            }
        }
        let bound = 2 * (self.o.dog.timeout_ms + self.o.dog.grace_ms) as u64 * 1_000_000
            + self.o.timeout_ns;
        if !self.handoff.join(bound) {
            self.checks.waiter_errors += 1;
            l.note("waiter_not_joined", 0, None);
        }
        let sh = self.handoff.sh();
        if sh.state.load(Ordering::Acquire) == FAILED {
            self.checks.waiter_errors += 1;
            l.note("waiter_failed", 0, None);
        }
        l.migrations += sh.migrated.load(Ordering::Relaxed) as u64;
        self.checks.lost_wakeups = sh.lost.load(Ordering::Relaxed) as u64;
        self.checks.bad_events = sh.bad_events.load(Ordering::Relaxed) as u64;
        self.checks.late_wakeups = sh.late.load(Ordering::Relaxed) as u64;
        self.checks.empty_wakes = sh.empty_wakes.load(Ordering::Relaxed) as u64;
        if let Some(ring) = self.handoff.ring() {
            // The stop message is the one CQE the waiter leaves behind.
            let mut stops = 0;
            ring.drain(CQ_ENTRIES, |c| {
                l.cqes += 1;
                if c.user_data == tag(0, STOP, 0) && c.res == 0 && c.flags == 0 {
                    stops += 1;
                } else {
                    l.outstanding += 1;
                    l.note("leftover_cqe", 0, Some(c));
                }
            });
            if stops != sent as u32 {
                l.missing += 1;
                l.note("stop_message_missing", 0, None);
            }
            end_state(ring, l);
        }
        for r in &self.rings {
            end_state(r, l);
        }
    }

    /// The waiter's failure code, if it failed (errno, or FAIL_PIN).
    pub fn waiter_error(&self) -> Option<u32> {
        let sh = self.handoff.sh();
        (sh.state.load(Ordering::Acquire) == FAILED).then(|| sh.error.load(Ordering::Relaxed))
    }
}

/// `/proc/self/task/TID/stat` with its NUL, written into `buf`.
pub fn task_stat_path(tid: u32, buf: &mut [u8; 48]) -> &[u8] {
    let mut len = 0;
    let mut put = |b: &[u8]| {
        buf[len..len + b.len()].copy_from_slice(b);
        len += b.len();
    };
    put(b"/proc/self/task/");
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut v = tid;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(&digits[k..]);
    put(b"/stat\0");
    &buf[..len]
}

/// The state letter of a /proc/PID/stat line ("tid (comm) S ..."); comm may
/// hold spaces and parentheses, so look after the last ')'.
pub fn task_state(stat: &[u8]) -> Option<u8> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    stat.get(close + 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cqe(user_data: u64, res: i32, flags: u32) -> IoUringCqe {
        IoUringCqe {
            user_data,
            res,
            flags,
        }
    }

    #[test]
    fn tags_and_values_are_distinct_per_burst_and_index() {
        assert_eq!(tag(7, TARGET, 3), 7 << 16 | 0x11 << 8 | 3);
        assert_ne!(value(1, 2), value(2, 2));
        assert_ne!(value(1, 2), value(1, 3));
        assert!(
            value(u32::MAX, 63) < 1 << 31,
            "res must stay a positive i32"
        );
    }

    #[test]
    fn tally_accepts_a_clean_burst_in_any_order() {
        let mut l = Ledger::default();
        let mut t = Tally::new(5, TARGET, 4);
        for i in [2, 0, 3, 1] {
            t.observe(&cqe(tag(5, TARGET, i), value(5, i) as i32, 0), &mut l);
        }
        t.finish(&mut l);
        assert!(l.passed(), "{l:?}");
        assert_eq!((l.cqes, t.got), (4, 4));
    }

    #[test]
    fn tally_counts_every_kind_of_bad_cqe() {
        let mut l = Ledger::default();
        let mut t = Tally::new(5, TARGET, 4);
        t.observe(&cqe(tag(5, TARGET, 0), value(5, 0) as i32, 0), &mut l);
        t.observe(&cqe(tag(5, TARGET, 0), value(5, 0) as i32, 0), &mut l); // duplicate
        t.observe(&cqe(tag(4, TARGET, 1), value(4, 1) as i32, 0), &mut l); // stale burst
        t.observe(&cqe(tag(5, SOURCE, 1), 0, 0), &mut l); // wrong side
        t.observe(&cqe(tag(5, TARGET, 4), 0, 0), &mut l); // index >= n
        t.observe(&cqe(tag(5, TARGET, 1), value(5, 2) as i32, 0), &mut l); // res
        t.observe(&cqe(tag(5, TARGET, 2), value(5, 2) as i32, 2), &mut l); // flags
        t.finish(&mut l); // index 3 never came
        assert_eq!(
            (
                l.duplicates,
                l.unknown_tags,
                l.bad_results,
                l.bad_flags,
                l.missing
            ),
            (1, 3, 1, 1, 1)
        );
        assert_eq!(l.first.unwrap().what, "duplicate");
        // Source CQEs must report res 0.
        let mut l = Ledger::default();
        let mut s = Tally::new(9, SOURCE, 1);
        s.observe(&cqe(tag(9, SOURCE, 0), -22, 0), &mut l);
        assert_eq!(l.bad_results, 1);
    }

    #[test]
    fn eventfd_commit_shapes() {
        assert_eq!(
            commit_shape(&[32, 0, 1], 32, false),
            Some("a commit per message")
        );
        assert_eq!(
            commit_shape(&[32, 0, 1], 32, true),
            Some("a commit per message")
        );
        assert!(commit_shape(&[1, 1, 1], 32, true)
            .unwrap()
            .starts_with("queued"));
        // Batched commits without DEFER_TASKRUN would void the premise.
        assert_eq!(commit_shape(&[1, 1, 1], 32, false), None);
        assert_eq!(commit_shape(&[31, 0, 1], 32, false), None);
        assert_eq!(commit_shape(&[1, 0, 1], 32, true), None);
    }

    #[test]
    fn task_state_and_path() {
        assert_eq!(task_state(b"123 (a b) c) S 1 2 3"), Some(b'S'));
        assert_eq!(task_state(b"9 (uring-repro) R 0"), Some(b'R'));
        assert_eq!(task_state(b"garbage"), None);
        assert_eq!(task_state(b"1 (x)"), None);
        let mut buf = [0u8; 48];
        assert_eq!(
            task_stat_path(4096, &mut buf),
            b"/proc/self/task/4096/stat\0"
        );
        assert_eq!(task_stat_path(0, &mut buf), b"/proc/self/task/0/stat\0");
        assert_eq!(
            task_stat_path(u32::MAX, &mut buf),
            b"/proc/self/task/4294967295/stat\0"
        );
    }

    #[test]
    fn ring_flags_names_round_trip() {
        for (f, name) in RingFlags::ALL {
            assert_eq!(RingFlags::parse(name.as_bytes()), Some(f));
            assert_eq!(f.name(), name);
        }
        assert_eq!(RingFlags::parse(b"defer"), None);
        assert_eq!(RingFlags::DeferTaskrun.setup(), 0x3000);
        assert_eq!(RingFlags::SingleIssuer.setup(), 0x1000);
    }

    fn options(flags: RingFlags, dog_ms: i32) -> Options {
        Options {
            burst: 8,
            flags,
            waiter_cpu: sys::getcpu().unwrap(),
            cpu: 0,
            dog: Watchdog {
                timeout_ms: dog_ms,
                grace_ms: 20,
            },
            timeout_ns: 1_000_000_000,
        }
    }

    /// Sends `n` messages of burst `seq` from `src` to `fd` and checks the
    /// source side.
    fn send_burst(src: &mut Ring, fd: i32, seq: u32, n: u32) {
        for i in 0..n {
            assert!(src.push(&ops::msg_ring_data(
                fd,
                value(seq, i),
                tag(seq, TARGET, i),
                tag(seq, SOURCE, i)
            )));
        }
        assert_eq!(src.submit_and_wait(n, n), Ok(n as usize));
        let mut l = Ledger::default();
        collect(src, &mut Tally::new(seq, SOURCE, n), &mut l);
        assert!(l.passed(), "{l:?}");
    }

    /// Waits up to 5 s for the waiter to hand over burst `want`.
    fn wait_seen(sh: &Shared, want: u32) -> bool {
        for _ in 0..100 {
            let v = sh.seen.load(Ordering::Acquire);
            if v == want {
                return true;
            }
            let _ = futex::wait(&sh.seen, v, 50_000_000, true);
        }
        false
    }

    /// The real waiter thread against a real missed wakeup: its epoll set
    /// holds the target ring with an empty event mask, so the kernel's
    /// callback ignores every commit; the CQ fills and nothing wakes the
    /// waiter. The watchdog must count exactly one lost wakeup and still
    /// hand the burst over; a normal set must count none.
    fn waiter_against(mask: u32) -> (u32, u32, u32) {
        let o = options(RingFlags::None, 150);
        let [mut src, tgt] = match new_rings::<2>(&o) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("SKIP: io_uring unavailable: {e:?}");
                return (u32::MAX, 0, 0);
            }
        };
        let ep = epoll::epoll_create1().unwrap();
        epoll::epoll_ctl(ep.raw(), EPOLL_CTL_ADD, tgt.fd(), mask, TOKEN).unwrap();
        let page = Memory::new(core::mem::size_of::<Page>()).unwrap();
        let mut h = Handoff::new(page, tgt, ep.raw(), &o);
        h.start(1_000_000_000).expect("waiter starts");
        let fd = h.ring_fd;
        send_burst(&mut src, fd, 3, o.burst);
        assert!(
            wait_seen(h.sh(), 1),
            "the waiter never handed the burst over"
        );
        let sh = h.sh();
        // SAFETY: seen was acquired; the waiter is back in epoll_pwait.
        let copy = unsafe { &*sh.cqes.get() };
        let mut l = Ledger::default();
        let mut t = Tally::new(3, TARGET, o.burst);
        for c in &copy[..o.burst as usize] {
            t.observe(c, &mut l);
        }
        t.finish(&mut l);
        assert!(l.passed(), "{l:?}");
        let got = (
            sh.lost.load(Ordering::Relaxed),
            sh.burst_wakes.load(Ordering::Relaxed),
            sh.late.load(Ordering::Relaxed),
        );
        assert!(h.join(2_000_000_000), "the waiter did not stop");
        assert_eq!(h.sh().state.load(Ordering::Acquire), EXITED);
        assert_eq!(h.ring().unwrap().cq_ready(), 0);
        got
    }

    #[test]
    fn live_missed_wakeup_is_counted_by_the_watchdog() {
        let (lost, wakes, late) = waiter_against(0);
        if lost == u32::MAX {
            return;
        }
        assert_eq!((lost, wakes, late), (1, 0, 0));
    }

    #[test]
    fn live_wakeup_is_not_lost() {
        let (lost, wakes, late) = waiter_against(EPOLLIN);
        if lost == u32::MAX {
            return;
        }
        assert_eq!((lost, late), (0, 0));
        assert!(wakes >= 1, "woken {wakes} times");
    }

    #[test]
    fn a_lost_wakeup_fails_the_burst_and_the_run_still_ends() {
        // The whole workload, with the waiter's epoll interest switched off
        // after set-up (EPOLL_CTL_MOD to an empty mask): the burst must
        // come back unclean with exactly one lost wakeup, and finish() must
        // still stop and join the waiter and leave no CQE behind.
        let mut o = options(RingFlags::None, 150);
        o.cpu = o.waiter_cpu;
        let mut pw = match Pollwake::new(o) {
            Ok(p) => p,
            Err(_) => {
                eprintln!("SKIP: io_uring or epoll unavailable");
                return;
            }
        };
        let mut l = Ledger::default();
        pw.start_waiter().expect("waiter starts");
        let clock = Clock::syscall();
        let (_, clean) = pw.burst(Mode::Waiter, 1, &clock, &mut l);
        assert!(clean, "a normal burst first: {l:?} {:?}", pw.checks);
        epoll::epoll_ctl(
            pw._ep_waiter.raw(),
            epoll::EPOLL_CTL_MOD,
            pw.handoff.ring_fd,
            0,
            TOKEN,
        )
        .unwrap();
        let (_, clean) = pw.burst(Mode::Waiter, 2, &clock, &mut l);
        assert!(!clean);
        assert_eq!(pw.checks.lost_wakeups, 1);
        assert_eq!(pw.checks.failures(), 1);
        assert!(l.passed(), "the CQEs themselves were fine: {l:?}");
        assert_eq!(pw.first_mode, Some(Mode::Waiter));
        // The stop message cannot wake a waiter that is not interested any
        // more; the watchdog's bound ends its wait and finish() joins it.
        pw.finish(&mut l);
        assert_eq!(pw.checks.waiter_errors, 0, "{:?}", pw.checks);
        assert_eq!((l.outstanding, l.missing), (0, 0), "{l:?}");
        assert_eq!(pw.wake_hist[0] + pw.wake_hist[1], 2);
    }

    #[test]
    fn stop_wakes_a_waiter_that_never_saw_a_burst() {
        // The join must not depend on the watchdog: a stop message posts a
        // CQE, the waiter wakes, sees `stop` and leaves the CQE behind.
        let o = options(RingFlags::None, 60_000);
        let Ok([mut src, tgt]) = new_rings::<2>(&o) else {
            eprintln!("SKIP: io_uring unavailable");
            return;
        };
        let ep = epoll::epoll_create1().unwrap();
        epoll::epoll_ctl(ep.raw(), EPOLL_CTL_ADD, tgt.fd(), EPOLLIN, TOKEN).unwrap();
        let page = Memory::new(core::mem::size_of::<Page>()).unwrap();
        let mut h = Handoff::new(page, tgt, ep.raw(), &o);
        h.start(1_000_000_000).expect("waiter starts");
        h.sh().stop.store(1, Ordering::Release);
        assert!(src.push(&ops::msg_ring_data(h.ring_fd, 0, tag(0, STOP, 0), 1)));
        assert_eq!(src.submit_and_wait(1, 1), Ok(1));
        assert!(
            h.join(5_000_000_000),
            "the stop message did not end the waiter"
        );
        assert_eq!(h.ring().unwrap().cq_ready(), 1);
    }
}
