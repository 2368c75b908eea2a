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
//! Completion source: the run's ring sends `burst` IORING_OP_MSG_RING data
//! messages to a target ring in one io_uring_enter; each message is its own
//! commit on the target (N poll wakes per enter; the untimed eventfd pass
//! proves the commit count on this kernel). The modes are the workload's
//! series, each with its own target ring (a ring once polled keeps paying),
//! run in this order every round:
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
//! user_data: `seq << 16 | kind << 8 | index` (check.rs); a target CQE's
//! res is `value(seq, index)`, the len its message sent, so a stale or
//! misrouted CQE is caught.

mod handoff;
mod modes;
mod output;
pub mod waiter;

use core::sync::atomic::{AtomicU32, Ordering};

use self::handoff::{Brief, Handoff};
use self::modes::{slot, Poller, SERIES};
use self::waiter::{Watchdog, EXITED, FAILED, FAIL_PIN};
use super::msg_ring::{self, messages, set_values, shape, value};
use crate::check::{
    self, tag, Counter, CycleCheck, Expect, Fail, Kind, Ledger, Plan, Returned, KINDS,
};
use crate::config::{RingFlags, RunConfig, WATCHDOG_MS};
use crate::cpu;
use crate::exit::{self, Exit};
use crate::ops;
use crate::profile::parts::collect::{account, collect, enter, one_batch, Batch};
use crate::profile::parts::setup::{self, Step, Whose};
use crate::profile::parts::span;
use crate::profile::vocabulary::Workload;
use crate::profile::vocabulary::{
    Fault, Names, OwnOutput, Profile, RunOptions, SetUp, Takes, Timed,
};
use crate::profile::vocabulary::{MSG_RING, NOP};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::epoll::{self, EpollEvent, EPOLLIN, EPOLL_CTL_ADD};
use crate::sys::futex::{self, ETIMEDOUT};
use crate::sys::uapi::O_RDONLY;
use crate::sys::{self, BadPath, CPath, CpuSet, Errno, Fd};

/// pollwake: a burst per cycle (`--burst`), a series per mode.
pub static POLLWAKE: Profile = Profile {
    names: Names {
        short: "pollwake",
        long: "poll-wake",
        formal: "pollwake",
        help: "MSG_RING bursts into rings in no epoll set, an idle epoll set \
               and one a waiter thread polls: the poll-wakeup cost (docs/pollwake.md)",
    },
    per: "MSG_RING completion",
    opcodes: &[MSG_RING, NOP],
    options: RunOptions {
        takes: &[Takes::Burst, Takes::WaiterCpu, Takes::RingFlags],
        ..RunOptions::SLOTS
    },
    shape: |cfg| shape(cfg.burst),
    series: &SERIES,
    punted: &[],
    functions: &msg_ring::FUNCTIONS,
    totals: &TOTALS,
    failures: &FAILURES,
    start: |s, ring, ledger, then| {
        let mut pw = Pollwake::new(s, ring, ledger)?;
        then(&mut pw, ring, ledger)
    },
};

/// Extra time a late callback gets before a wakeup is called lost.
pub const GRACE_MS: i32 = 100;
/// Tries (each a short sleep) to see the waiter asleep before a burst.
const PARK_TRIES: u32 = 200;
const PARK_SLEEP_NS: u64 = 50_000;
/// waiter on another CPU: how long the producer spins for the handover
/// before it sleeps on the futex.
const SPIN_NS: u64 = 200_000;
/// epoll data of the watched rings.
const TOKEN: u64 = 0x706f_6c6c;
/// Sequence numbers of the untimed passes (the rounds count up from 0).
const PASS_SEQ: u32 = u32::MAX - 1;
const STOP_SEQ: u32 = u32::MAX;
/// Waiter wake-ups per burst: counts of 0..=8, then 9 or more.
const HIST: usize = 10;

/// The checks line's totals (the bursts' source and target CQEs) and
/// pollwake's own failure classes.
pub const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("source_cqes", |l| l.kind(Kind::Source)),
    ("target_cqes", |l| l.kind(Kind::Target)),
];
pub const FAILURES: [Counter; 6] = [
    ("epoll_bad", |l| l.count(Fail::EpollBad)),
    ("lost_wakeups", |l| l.count(Fail::LostWakeup)),
    ("bad_events", |l| l.count(Fail::BadEvent)),
    ("waiter_errors", |l| l.count(Fail::WaiterError)),
    ("not_asleep", |l| l.count(Fail::NotAsleep)),
    ("eventfd_bad", |l| l.count(Fail::EventfdBad)),
];
// Every failure class is on pollwake's checks line: the shared ones, then
// these, and no other workload has a class of its own.
const _: () = assert!(check::FAILURES.len() + FAILURES.len() == check::FAILS);

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
    /// `--inject-ns` times the burst: ns each timed burst spins at its end.
    pub inject_ns: u64,
}

/// `--waiter-cpu` (default: the producer's) must be allowed: a usage error
/// otherwise, checked before anything is set up.
pub fn waiter_cpu(cfg: &RunConfig, cpu: u32, allowed: &CpuSet) -> Result<u32, Exit> {
    let w = cfg.waiter_cpu.unwrap_or(cpu);
    if cpu::contains(allowed, w) {
        return Ok(w);
    }
    let set = cpu::Ranges(allowed);
    Err(Exit::new(
        exit::USAGE,
        format_args!("--waiter-cpu {w}: CPU {w} is not online or not allowed (allowed: {set})"),
    ))
}

/// What pollwake sets up beside the run's ring, as a failure names it.
const OWN: Whose = Whose::Own("pollwake");

/// A pollwake set-up step that failed (see `setup`: a failure, naming it).
fn set_up_failed(what: &'static str, e: Errno) -> Exit {
    setup::step_failed(Step::of(OWN, what), e)
}

/// A ring with the run's flags and wait bound.
fn new_ring(o: &Options) -> Result<Ring, Exit> {
    setup::ring(OWN, o.flags, o.timeout_ns)
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

/// Queues `n` messages of burst `seq` from `src` to the ring `fd` and
/// submits them with one enter, then takes their source CQEs into `check`.
/// False when the submission failed.
fn send(src: &mut Ring, fd: i32, seq: u32, n: u32, check: &mut CycleCheck, l: &mut Ledger) -> bool {
    one_batch(src, check, l, seq, messages(fd, seq, n))
}

/// `collect` for the untimed passes (the eventfd pass, the stop): one
/// call, where `collect` itself is inlined into each timed span.
fn collect_untimed(ring: &mut Ring, check: &mut CycleCheck, l: &mut Ledger, n: u32, seq: u32) {
    collect(ring, check, l, n, seq);
}

/// A plan for `n` messages of burst `seq` (and `nops` NOPs), each target
/// CQE expected to carry its own message's value.
fn plan(seq: u32, n: u32, nops: u32) -> Plan {
    let mut e = shape(n).expect;
    e[Kind::Nop as usize] = Expect {
        count: nops,
        res: 0,
    };
    let mut plan = Plan::new(&e);
    set_values(&mut plan, seq, n);
    plan
}

/// The workload. `plan` stands apart from the rest so a burst's check can
/// borrow it while the burst works on the rings.
pub struct Pollwake {
    plan: Plan,
    /// The mode the next bursts run in.
    mode: Poller,
    p: Parts,
}

struct Parts {
    o: Options,
    /// The targets of none, idle and none_aa (the waiter's lives in `handoff`).
    targets: [Ring; 3],
    ep_idle: Fd,
    // The waiter's epoll fd must outlive the waiter: Handoff (which joins)
    // is declared first, so it drops first.
    handoff: Handoff,
    _ep_waiter: Fd,
    /// The waiter's /proc stat, for the asleep-before-a-burst check.
    stat: Option<Fd>,
    /// Bursts the waiter has handed over so far.
    handed: u32,
    /// The waiter's lost wakeups and bad events already in the ledger.
    seen: [u32; 2],
    /// The eventfd pass's counts.
    eventfd: [u64; 3],
    /// Per mode: ns of the untimed gap (idle's epoll_pwait(0)), bursts.
    gap_ns: [u64; 4],
    gap_bursts: [u64; 4],
    wake_hist: [u64; HIST],
    park_retries: u64,
    /// From the waiter at the end: late wakeups, wakes with an empty CQ.
    late: u64,
    empty_wakes: u64,
}

impl Pollwake {
    /// The rings, epoll sets and waiter of a run set up as `s`; `src`
    /// is the run's ring, the source of every message. Runs the untimed
    /// eventfd pass (into `ledger`) and starts the waiter.
    pub fn new(s: &SetUp, src: &mut Ring, ledger: &mut Ledger) -> Result<Pollwake, Exit> {
        let (cfg, cpu) = (s.cfg, s.cpu.cpu());
        let o = Options {
            burst: cfg.burst,
            flags: cfg.ring_flags,
            waiter_cpu: waiter_cpu(cfg, cpu, s.allowed)?,
            cpu,
            dog: Watchdog {
                timeout_ms: WATCHDOG_MS,
                grace_ms: GRACE_MS,
            },
            timeout_ns: cfg.timeout_ns(),
            inject_ns: cfg.inject_ns as u64 * cfg.burst as u64,
        };
        Self::with(o, src, ledger)
    }

    /// `new` with the options given.
    fn with(o: Options, src: &mut Ring, ledger: &mut Ledger) -> Result<Pollwake, Exit> {
        let failed = |what| move |e| set_up_failed(what, e);
        let ep_idle = epoll::epoll_create1().map_err(failed("epoll_create1"))?;
        let ep_waiter = epoll::epoll_create1().map_err(failed("epoll_create1"))?;
        let targets = [new_ring(&o)?, new_ring(&o)?, new_ring(&o)?];
        let waiter_ring = new_ring(&o)?;
        for (ep, fd) in [
            (&ep_idle, targets[slot(Poller::Idle)].fd()),
            (&ep_waiter, waiter_ring.fd()),
        ] {
            epoll::epoll_ctl(ep.raw(), EPOLL_CTL_ADD, fd, EPOLLIN, TOKEN)
                .map_err(failed("epoll_ctl"))?;
        }
        let brief = Brief {
            epfd: ep_waiter.raw(),
            token: TOKEN,
            burst: o.burst,
            cpu: o.waiter_cpu,
            dog: o.dog,
        };
        let handoff = Handoff::new(waiter_ring, brief).map_err(failed("mmap"))?;
        let mut pw = Pollwake {
            plan: plan(0, o.burst, 0),
            mode: Poller::None,
            p: Parts {
                o,
                targets,
                ep_idle,
                handoff,
                _ep_waiter: ep_waiter,
                stat: None,
                handed: 0,
                seen: [0; 2],
                eventfd: [0; 3],
                gap_ns: [0; 4],
                gap_bursts: [0; 4],
                wake_hist: [0; HIST],
                park_retries: 0,
                late: 0,
                empty_wakes: 0,
            },
        };
        let mut pass = Ledger::default();
        pw.p.eventfd = pw.p.eventfd_pass(src, &mut pass)?;
        ledger.absorb_untimed(&pass);
        pw.p.start_waiter()?;
        Ok(pw)
    }

    /// Runs burst `seq` in mode `m`.
    fn burst(
        &mut self,
        m: Poller,
        src: &mut Ring,
        seq: u32,
        clock: &Clock,
        l: &mut Ledger,
    ) -> Timed {
        let p = &mut self.p;
        let n = p.o.burst;
        let before = l.failures();
        if m == Poller::Waiter {
            p.wait_parked(seq, l);
        }
        set_values(&mut self.plan, seq, n);
        let mut check = CycleCheck::new(seq, &self.plan);
        let fd = p.target(m).fd();
        let t0 = span::start(clock);
        let mut ok = send(src, fd, seq, n, &mut check, l);
        if ok && p.o.flags.deferred() {
            // EINTR is no failure: a caught signal ends the run after this
            // burst, and a flush cut short leaves the CQEs to the bounded
            // wait of `collect`, whose enter runs the task work too.
            match p.target(m).run_task_work(n) {
                Ok(()) | Err(Errno::EINTR) => {}
                Err(e) => {
                    let call = enter(Returned::Errno(e));
                    l.fail_call(Fail::SubmitError, "flush_error", seq, call);
                    ok = false;
                }
            }
        }
        let t1 = span::end(clock, 0);
        if ok && m == Poller::Idle {
            p.idle_check(seq, l);
        }
        let t2 = span::start(clock);
        if ok {
            match m {
                Poller::Waiter => p.take_handed(&mut check, clock, l, seq),
                _ => collect(&mut p.targets[slot(m)], &mut check, l, n, seq),
            }
        }
        let t3 = span::end(clock, p.o.inject_ns);
        p.gap_ns[m as usize] += t2.wrapping_sub(t1);
        p.gap_bursts[m as usize] += 1;
        let clean = check.finish(l, before) && ok;
        (t1.wrapping_sub(t0) + t3.wrapping_sub(t2), clean)
    }
}

impl Parts {
    /// Mode `m`'s target ring (the waiter's is shared with the waiter).
    fn target(&self, m: Poller) -> &Ring {
        match m {
            Poller::Waiter => self.handoff.ring(),
            _ => &self.targets[slot(m)],
        }
    }

    /// Starts the waiter thread (bounded); opens its /proc stat for the
    /// asleep-before-each-burst check (skipped when /proc is missing).
    fn start_waiter(&mut self) -> Result<(), Exit> {
        if let Err(code) = self.handoff.start(self.o.timeout_ns) {
            let (exit, e) = match code {
                FAIL_PIN => (exit::USAGE, Errno::EINVAL),
                e => (exit::FAIL, Errno(e as i32)),
            };
            let cpu = self.o.waiter_cpu;
            let why = format_args!("the waiter thread cannot start on CPU {cpu}: {e}");
            return Err(Exit::new(exit, why));
        }
        let path = task_stat_path(self.handoff.tid());
        self.stat = path.ok().and_then(|p| sys::open(&p, O_RDONLY, 0).ok());
        Ok(())
    }

    /// idle, untimed: the epoll set must report the ring exactly once.
    fn idle_check(&mut self, seq: u32, l: &mut Ledger) {
        let mut ev = [EpollEvent::default(); 2];
        let r = epoll::epoll_pwait(self.ep_idle.raw(), &mut ev, 0);
        let (events, data) = (ev[0].events, ev[0].data);
        if r != Ok(1) || events != EPOLLIN || data != TOKEN {
            l.fail(Fail::EpollBad, "idle_epoll", seq, None);
        }
    }

    /// The waiter's lost wakeups and bad events since the last look.
    fn waiter_counts(&mut self, l: &mut Ledger) {
        let sh = self.handoff.sh();
        let now = [
            sh.lost.load(Ordering::Relaxed),
            sh.bad_events.load(Ordering::Relaxed),
        ];
        for (f, k) in [(Fail::LostWakeup, 0), (Fail::BadEvent, 1)] {
            if now[k] != self.seen[k] {
                l.add(f, now[k].wrapping_sub(self.seen[k]) as u64);
                l.note(["lost_wakeup", "waiter_bad_event"][k], 0, None);
            }
        }
        self.seen = now;
    }

    /// waiter: waits (bounded) until the waiter handed the burst over, then
    /// takes its copy of the CQEs into `check`.
    fn take_handed(&mut self, check: &mut CycleCheck, clock: &Clock, l: &mut Ledger, seq: u32) {
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
        if !done {
            self.waiter_counts(l);
            l.add(Fail::WaiterError, 1);
            return l.fail(Fail::Timeout, "waiter_timeout", seq, None);
        }
        self.handed = want;
        let wakes = sh.burst_wakes.load(Ordering::Relaxed) as usize;
        self.wake_hist[wakes.min(HIST - 1)] += 1;
        // SAFETY: the waiter wrote the copy before releasing `seen`, and
        // writes it again only after our next burst.
        let cqes = unsafe { &*sh.cqes.get() };
        let n = self.o.burst;
        for c in &cqes[..n as usize] {
            check.observe(c, l);
        }
        check.add_received(n);
        self.waiter_counts(l);
    }

    /// waiter, untimed: before a burst, the waiter must be asleep (state S
    /// in /proc: its only sleep is epoll_pwait), else the burst would not
    /// measure a wakeup. Sleeps briefly so a waiter on this CPU can get there.
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
                self.park_retries += k as u64;
                return;
            }
            let _ = futex::wait(&nap, 0, PARK_SLEEP_NS, true);
        }
        l.fail(Fail::NotAsleep, "waiter_not_asleep", seq, None);
    }

    /// The untimed eventfd pass on a ring of its own: returns the eventfd
    /// counts (after the send, after the DEFER_TASKRUN flush, after `n`
    /// NOPs in one enter) and counts a mismatch with what this kernel
    /// documents (see docs/pollwake.md).
    fn eventfd_pass(&mut self, src: &mut Ring, l: &mut Ledger) -> Result<[u64; 3], Exit> {
        let (n, seq) = (self.o.burst, PASS_SEQ);
        let mut ring = new_ring(&self.o)?;
        let efd = epoll::eventfd().map_err(|e| set_up_failed("eventfd2", e))?;
        ring.register_eventfd(efd.raw())
            .map_err(|e| set_up_failed("IORING_REGISTER_EVENTFD", e))?;
        let take = || epoll::eventfd_take(efd.raw()).unwrap_or(u64::MAX);
        let plan = plan(seq, n, n);
        let mut check = CycleCheck::new(seq, &plan);
        let mut counts = [0u64; 3];
        if send(src, ring.fd(), seq, n, &mut check, l) {
            counts[0] = take();
            if self.o.flags.deferred() {
                let _ = ring.run_task_work(n);
            }
            counts[1] = take();
            collect_untimed(&mut ring, &mut check, l, n, seq);
        }
        let nops = Batch::new(Kind::Nop, n, |i| ops::nop(tag(seq, Kind::Nop, i)));
        one_batch(&mut ring, &mut check, l, seq, nops);
        counts[2] = take();
        check.finish(l, 0);
        if commit_shape(&counts, n, self.o.flags.deferred()).is_none() {
            l.fail(Fail::EventfdBad, "eventfd_commits", 0, None);
        }
        account(&mut ring, l, seq);
        Ok(counts)
    }

    /// Stops and joins the waiter (a stop message wakes it), takes the stop
    /// message's CQEs, and adds every ring's end state. Err: the waiter's
    /// getcpu at exit failed.
    fn finish(&mut self, src: &mut Ring, l: &mut Ledger) -> Result<(), Fault> {
        let seq = STOP_SEQ;
        let mut e = [Expect::default(); KINDS];
        let stopping = self.handoff.started();
        if stopping {
            e[Kind::Source as usize] = Expect { count: 1, res: 0 };
            e[Kind::Target as usize] = Expect {
                count: 1,
                res: value(seq, 0) as i32,
            };
        }
        let plan = Plan::new(&e);
        let mut check = CycleCheck::new(seq, &plan);
        self.handoff.sh().stop.store(1, Ordering::Release);
        if stopping {
            let fd = self.handoff.ring_fd;
            if send(src, fd, seq, 1, &mut check, l) && self.o.flags.deferred() {
                let _ = self.handoff.ring().run_task_work(1);
            }
        }
        let bound = 2 * (self.o.dog.timeout_ms + self.o.dog.grace_ms) as u64 * 1_000_000
            + self.o.timeout_ns;
        if !self.handoff.join(bound) {
            l.fail(Fail::WaiterError, "waiter_not_joined", 0, None);
        }
        let sh = self.handoff.sh();
        if sh.state.load(Ordering::Acquire) == FAILED {
            l.fail(Fail::WaiterError, "waiter_failed", 0, None);
        }
        if sh.migrated.load(Ordering::Relaxed) != 0 {
            l.fail(Fail::Migration, "waiter_migration", 0, None);
        }
        let getcpu = match sh.getcpu_error.load(Ordering::Relaxed) {
            0 => Ok(()),
            e => Err(Fault::Getcpu(Errno(e as i32))),
        };
        self.late = sh.late.load(Ordering::Relaxed) as u64;
        self.empty_wakes = sh.empty_wakes.load(Ordering::Relaxed) as u64;
        self.waiter_counts(l);
        if let Some(ring) = self.handoff.ring_mut() {
            // The stop message is the one CQE the waiter leaves behind.
            if stopping {
                collect_untimed(ring, &mut check, l, 1, seq);
            }
            account(ring, l, seq);
        }
        check.finish(l, 0);
        for ring in self.targets.iter_mut().chain([src]) {
            account(ring, l, seq);
        }
        getcpu
    }

    /// The waiter's failure code, if it failed (errno, or FAIL_PIN).
    fn waiter_error(&self) -> Option<u32> {
        let sh = self.handoff.sh();
        (sh.state.load(Ordering::Acquire) == FAILED).then(|| sh.error.load(Ordering::Relaxed))
    }
}

impl Workload for Pollwake {
    fn select(&mut self, series: usize) {
        self.mode = Poller::ALL[series];
    }

    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        self.burst(self.mode, ring, seq, clock, ledger)
    }

    fn account(&mut self, ledger: &mut Ledger, seq: u32) {
        // The waiter's ring is its thread's until the end (`finish`).
        for ring in &mut self.p.targets {
            account(ring, ledger, seq);
        }
    }

    fn finish(&mut self, ring: &mut Ring, ledger: &mut Ledger) -> Result<(), Fault> {
        let mut stop = Ledger::default();
        let finished = self.p.finish(ring, &mut stop);
        ledger.absorb_untimed(&stop);
        finished
    }

    /// Its own output: output.rs.
    fn own_output(&self) -> Option<&dyn OwnOutput> {
        Some(self)
    }
}

/// `/proc/self/task/TID/stat`.
pub fn task_stat_path(tid: u32) -> Result<CPath, BadPath> {
    CPath::format(format_args!("/proc/self/task/{tid}/stat"))
}

/// The state letter of a /proc/PID/stat line ("tid (comm) S ..."); comm may
/// hold spaces and parentheses, so look after the last ')'.
pub fn task_state(stat: &[u8]) -> Option<u8> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    stat.get(close + 2).copied()
}

#[cfg(test)]
mod tests;
