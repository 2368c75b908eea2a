//! The `waiter` mode's second thread and its lost-wakeup watchdog.
//!
//! The waiter blocks in epoll_pwait on an epoll set holding only the target
//! ring (level-triggered EPOLLIN). Each time it returns it takes whatever
//! CQEs are ready, until it has the burst's `n`; then it copies them to the
//! producer (who validates them), bumps `seen` and futex-wakes the producer,
//! and goes straight back to epoll_pwait with an empty CQ.
//!
//! Watchdog: every epoll_pwait is bounded by `watchdog_ms`. A timeout while
//! the target CQ holds entries means the kernel posted completions without
//! waking the poller. Before calling it lost the waiter gives a late
//! callback `grace_ms` more (one more bounded epoll_pwait): an event then is
//! a late wakeup, silence is a lost wakeup. Either way it takes the CQEs and
//! carries on, so the run ends normally and reports the count; any lost
//! wakeup fails the run.
//!
//! The loop is written against the small [`Watched`] trait so the watchdog
//! can be tested with a simulated missed wakeup, without a kernel.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::cpu;
use crate::ring::Ring;
use crate::sys::epoll::{self, EpollEvent, EPOLLIN};
use crate::sys::futex;
use crate::sys::thread::{exit_thread, Thread};
use crate::sys::uapi::IoUringCqe;
use crate::sys::{Errno, SysResult};

/// Most CQEs in one burst (and in the copy handed to the producer).
pub const MAX_BURST: usize = 64;

/// What the waiter watches: one epoll set and the target ring's CQ.
pub trait Watched {
    /// One bounded epoll_pwait: the (events, data) of the entry reported,
    /// or None when it timed out.
    fn wait(&mut self, timeout_ms: i32) -> SysResult<Option<(u32, u64)>>;
    /// CQEs posted in the target CQ and not yet taken.
    fn ready(&self) -> u32;
    /// Takes up to `max` CQEs, in CQ order, writing them from `out` on;
    /// returns how many.
    ///
    /// # Safety
    /// `out` is valid for `max` writes, and nobody else reads or writes
    /// there until this returns.
    unsafe fn take(&mut self, out: *mut IoUringCqe, max: u32) -> u32;
    /// The producer asked the waiter to end.
    fn stopping(&self) -> bool;
}

/// The watchdog's two bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchdog {
    /// Bound on each epoll_pwait.
    pub timeout_ms: i32,
    /// Extra wait before a timeout with entries is called a lost wakeup.
    pub grace_ms: i32,
}

/// Counters the waiter keeps over its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WatchStats {
    /// epoll_pwait returns that reported the ring (late ones included).
    pub wakes: u32,
    /// ... of which the CQ held nothing yet (the kernel's comment allows it).
    pub empty_wakes: u32,
    /// Timeouts with CQEs waiting and no event even after the grace period.
    pub lost: u32,
    /// Timeouts with CQEs waiting whose event came within the grace period.
    pub late: u32,
    /// Events other than exactly (EPOLLIN, our token).
    pub bad_events: u32,
}

/// How watching one burst ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstEnd {
    /// All `n` CQEs taken after this many wakeups.
    Burst { wakes: u32 },
    /// The producer asked to stop (CQEs of an unfinished burst stay put).
    Stopped,
}

/// The grace wait after a watchdog period. A signal (Ctrl-C stopping the
/// run) is not a missed wakeup: the wait starts again, a few times at most.
fn grace_wait<W: Watched>(w: &mut W, grace_ms: i32) -> SysResult<Option<(u32, u64)>> {
    for _ in 0..8 {
        match w.wait(grace_ms) {
            Err(Errno::EINTR) => continue,
            r => return r,
        }
    }
    Ok(None)
}

/// Watches for one burst of `n` CQEs (at most MAX_BURST), copying them to
/// `out` in the order taken. Only an epoll_pwait error ends it early.
///
/// `out` is the copy handed to the producer, who may still be reading the
/// previous burst there while this waits; so it stays a raw pointer, and
/// is written only by `take`, once CQEs of this burst are ready (the
/// producer sends a burst only after reading the last one).
///
/// # Safety
/// `out` is valid for MAX_BURST writes; once a CQE of this burst is ready,
/// nobody else reads or writes there until this returns.
pub unsafe fn watch_burst<W: Watched>(
    w: &mut W,
    n: u32,
    dog: Watchdog,
    token: u64,
    out: *mut IoUringCqe,
    st: &mut WatchStats,
) -> SysResult<BurstEnd> {
    let n = n.min(MAX_BURST as u32);
    let (mut got, mut wakes) = (0u32, 0u32);
    while got < n {
        let ev = match w.wait(dog.timeout_ms) {
            Err(Errno::EINTR) => continue,
            r => r?,
        };
        if w.stopping() {
            return Ok(BurstEnd::Stopped);
        }
        let ev = match ev {
            Some(ev) => Some(ev),
            // Nothing posted: the producer is busy elsewhere; keep watching.
            None if w.ready() == 0 => continue,
            // Entries but no event for a whole watchdog period.
            None => match grace_wait(w, dog.grace_ms) {
                Ok(Some(ev)) => {
                    st.late += 1;
                    Some(ev)
                }
                Ok(None) => {
                    st.lost += 1;
                    None
                }
                Err(e) => return Err(e),
            },
        };
        if let Some((events, data)) = ev {
            wakes += 1;
            if events != EPOLLIN || data != token {
                st.bad_events += 1;
            }
            if w.ready() == 0 {
                st.empty_wakes += 1;
            }
        }
        if w.stopping() {
            return Ok(BurstEnd::Stopped);
        }
        if w.ready() != 0 {
            // SAFETY: got < n <= MAX_BURST; a CQE of this burst is ready, so
            // the producer is done reading the copy (the caller's contract).
            got += unsafe { w.take(out.add(got as usize), n - got) };
        }
    }
    st.wakes += wakes;
    Ok(BurstEnd::Burst { wakes })
}

/// Waiter states (`Shared::state`).
pub const STARTING: u32 = 0;
pub const READY: u32 = 1;
pub const EXITED: u32 = 2;
/// Setup or epoll failed: `Shared::error` holds the errno (or FAIL_PIN).
pub const FAILED: u32 = 3;
/// `Shared::error` when pinning failed without an errno (read-back differs).
pub const FAIL_PIN: u32 = 0x1_0000;

/// Memory the producer and the waiter share (in its own mapping, so it never
/// moves). The first block is written before clone and only read after.
#[repr(C)]
pub struct Shared {
    /// The target ring; the waiter reaps its CQ (handoff.rs keeps it).
    pub ring: *const Ring,
    pub epfd: i32,
    pub token: u64,
    pub burst: u32,
    pub cpu: u32,
    pub dog: Watchdog,
    /// Producer -> waiter: end now.
    pub stop: AtomicU32,
    /// Waiter -> producer: STARTING, READY, EXITED, FAILED (futex word).
    pub state: AtomicU32,
    pub error: AtomicU32,
    /// Bursts handed over (futex word).
    pub seen: AtomicU32,
    /// Wakeups of the last burst handed over.
    pub burst_wakes: AtomicU32,
    /// WatchStats published after every burst and at exit.
    pub wakes: AtomicU32,
    pub empty_wakes: AtomicU32,
    pub lost: AtomicU32,
    pub late: AtomicU32,
    pub bad_events: AtomicU32,
    /// The waiter ran on another CPU than `cpu` at start or exit.
    pub migrated: AtomicU32,
    /// The errno of the waiter's getcpu at exit, which failed (0: it did
    /// not): whether it moved is unknown, which is no migration.
    pub getcpu_error: AtomicU32,
    /// The last burst's CQEs: written by the waiter before `seen` is
    /// released, read by the producer after acquiring it.
    pub cqes: UnsafeCell<[IoUringCqe; MAX_BURST]>,
}

impl Shared {
    fn publish(&self, st: &WatchStats) {
        self.wakes.store(st.wakes, Ordering::Relaxed);
        self.empty_wakes.store(st.empty_wakes, Ordering::Relaxed);
        self.lost.store(st.lost, Ordering::Relaxed);
        self.late.store(st.late, Ordering::Relaxed);
        self.bad_events.store(st.bad_events, Ordering::Relaxed);
    }

    fn end(&self, state: u32, error: u32) -> ! {
        self.error.store(error, Ordering::Relaxed);
        self.state.store(state, Ordering::Release);
        let _ = futex::wake(&self.state, 1);
        let _ = futex::wake(&self.seen, 1);
        exit_thread(0)
    }
}

/// The real thing: epoll_pwait on the set, the CQ through the ring.
struct EpollRing<'s> {
    sh: &'s Shared,
}

impl Watched for EpollRing<'_> {
    fn wait(&mut self, timeout_ms: i32) -> SysResult<Option<(u32, u64)>> {
        let mut ev = [EpollEvent::default(); 1];
        Ok(
            match epoll::epoll_pwait(self.sh.epfd, &mut ev, timeout_ms)? {
                0 => None,
                _ => Some((ev[0].events, ev[0].data)),
            },
        )
    }
    fn ready(&self) -> u32 {
        // SAFETY: the ring outlives the thread (handoff.rs); while the waiter
        // runs it alone reaps this CQ.
        unsafe { (*self.sh.ring).cq_ready() }
    }
    unsafe fn take(&mut self, out: *mut IoUringCqe, max: u32) -> u32 {
        let mut k = 0;
        // SAFETY: as in ready().
        let ring = unsafe { &*self.sh.ring };
        ring.drain(max, |c| {
            // SAFETY: drain hands over at most max CQEs; out is ours for
            // max writes (the caller's contract).
            unsafe { out.add(k).write(*c) };
            k += 1;
        })
    }
    fn stopping(&self) -> bool {
        self.sh.stop.load(Ordering::Acquire) != 0
    }
}

/// The waiter thread's body (see the module docs and sys::thread's rules:
/// no TLS, no panics, raw syscalls only).
extern "C" fn waiter_main(arg: usize) -> ! {
    // SAFETY: arg is the Shared the producer keeps alive until join.
    let sh = unsafe { &*(arg as *const Shared) };
    if let Err(e) = cpu::pin(sh.cpu) {
        let code = match e {
            cpu::PinError::Set(e) | cpu::PinError::Getcpu(e) => e.0 as u32,
            _ => FAIL_PIN,
        };
        sh.end(FAILED, code);
    }
    sh.state.store(READY, Ordering::Release);
    let _ = futex::wake(&sh.state, 1);
    let mut w = EpollRing { sh };
    let mut st = WatchStats::default();
    loop {
        let out = sh.cqes.get() as *mut IoUringCqe;
        // SAFETY: the copy holds MAX_BURST CQEs; the producer reads it only
        // between our release of `seen` and its next burst, whose CQEs
        // `take` waits for before it writes.
        match unsafe { watch_burst(&mut w, sh.burst, sh.dog, sh.token, out, &mut st) } {
            Ok(BurstEnd::Burst { wakes }) => {
                sh.publish(&st);
                sh.burst_wakes.store(wakes, Ordering::Relaxed);
                // Only this thread writes `seen`: a plain store, no
                // read-modify-write (on aarch64 those pull in outline-atomics
                // helpers that need libc's getauxval).
                let seen = sh.seen.load(Ordering::Relaxed);
                sh.seen.store(seen.wrapping_add(1), Ordering::Release);
                let _ = futex::wake(&sh.seen, 1);
            }
            Ok(BurstEnd::Stopped) => break,
            Err(e) => {
                sh.publish(&st);
                sh.end(FAILED, e.0 as u32);
            }
        }
    }
    sh.publish(&st);
    match crate::sys::getcpu() {
        Ok(c) if c == sh.cpu => {}
        Ok(_) => sh.migrated.store(1, Ordering::Relaxed),
        Err(e) => sh.getcpu_error.store(e.0 as u32, Ordering::Relaxed),
    }
    sh.end(EXITED, 0)
}

/// Starts the waiter on `sh` and waits (bounded) until it is pinned and
/// about to watch. The caller keeps `sh` and its ring alive until the
/// returned thread has been joined.
///
/// # Safety
/// `sh` lives at a fixed address until join; `sh.ring` is not used by
/// anyone else (beyond its fd) while the thread runs.
pub unsafe fn start(sh: &Shared, timeout_ns: u64) -> Result<Thread, Errno> {
    // SAFETY: waiter_main follows sys::thread's rules; sh outlives it (contract).
    let t = unsafe { Thread::spawn(waiter_main, sh as *const Shared as usize)? };
    for _ in 0..16 {
        if sh.state.load(Ordering::Acquire) != STARTING
            || futex::wait(&sh.state, STARTING, timeout_ns, true) == Err(futex::ETIMEDOUT)
        {
            break;
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted epoll set and CQ: `events[k]` is what the k-th wait
    /// reports; `posts[k]` CQEs appear in the CQ just before it.
    struct Fake {
        events: Vec<Option<(u32, u64)>>,
        posts: Vec<u32>,
        waits: usize,
        timeouts: Vec<i32>,
        cq: u32,
        next: u64,
        stop_after: usize,
        /// Waits (by index) interrupted by a signal: EINTR, no event used.
        intr: Vec<usize>,
    }

    impl Fake {
        fn new(events: Vec<Option<(u32, u64)>>, posts: Vec<u32>) -> Fake {
            Fake {
                events,
                posts,
                waits: 0,
                timeouts: vec![],
                cq: 0,
                next: 0,
                stop_after: usize::MAX,
                intr: vec![],
            }
        }
    }

    impl Watched for Fake {
        fn wait(&mut self, timeout_ms: i32) -> SysResult<Option<(u32, u64)>> {
            let k = self.waits;
            self.waits += 1;
            self.timeouts.push(timeout_ms);
            assert!(k < 50, "watch loop did not end");
            if self.intr.contains(&k) {
                self.intr.retain(|&i| i != k);
                self.waits -= 1; // the next wait takes this one's script
                return Err(Errno::EINTR);
            }
            self.cq += self.posts.get(k).copied().unwrap_or(0);
            Ok(self.events.get(k).copied().flatten())
        }
        fn ready(&self) -> u32 {
            self.cq
        }
        unsafe fn take(&mut self, out: *mut IoUringCqe, max: u32) -> u32 {
            let n = self.cq.min(max);
            for i in 0..n as usize {
                let c = cqe(self.next);
                // SAFETY: i < max (the caller's contract).
                unsafe { out.add(i).write(c) };
                self.next += 1;
            }
            self.cq -= n;
            n
        }
        fn stopping(&self) -> bool {
            self.waits > self.stop_after
        }
    }

    fn cqe(user_data: u64) -> IoUringCqe {
        IoUringCqe {
            user_data,
            ..Default::default()
        }
    }

    const DOG: Watchdog = Watchdog {
        timeout_ms: 1000,
        grace_ms: 100,
    };
    const TOKEN: u64 = 0x77;
    const EV: Option<(u32, u64)> = Some((EPOLLIN, TOKEN));

    fn run(f: &mut Fake, n: u32) -> (SysResult<BurstEnd>, WatchStats, [IoUringCqe; MAX_BURST]) {
        let mut out = [IoUringCqe::default(); MAX_BURST];
        let mut st = WatchStats::default();
        // SAFETY: out holds MAX_BURST CQEs and is this thread's.
        let r = unsafe { watch_burst(f, n, DOG, TOKEN, out.as_mut_ptr(), &mut st) };
        (r, st, out)
    }

    #[test]
    fn one_wakeup_takes_the_whole_burst() {
        let mut f = Fake::new(vec![EV], vec![32]);
        let (r, st, out) = run(&mut f, 32);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 1 }));
        assert_eq!(
            st,
            WatchStats {
                wakes: 1,
                ..Default::default()
            }
        );
        assert_eq!(out[31].user_data, 31);
        assert_eq!(f.timeouts, vec![1000]);
    }

    #[test]
    fn a_burst_arriving_in_pieces_counts_every_wakeup() {
        let mut f = Fake::new(vec![EV, EV, EV], vec![5, 20, 7]);
        let (r, st, _) = run(&mut f, 32);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 3 }));
        assert_eq!((st.wakes, st.lost, st.late), (3, 0, 0));
    }

    #[test]
    fn simulated_missed_wakeup_is_counted_lost_and_the_burst_still_ends() {
        // The kernel posts all 32 CQEs but never reports the ring: the
        // first wait times out with the CQ full, the grace wait too.
        let mut f = Fake::new(vec![None, None], vec![32, 0]);
        let (r, st, out) = run(&mut f, 32);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 0 }));
        assert_eq!((st.lost, st.late, st.wakes), (1, 0, 0));
        assert_eq!(f.timeouts, vec![1000, 100]);
        assert_eq!(out[31].user_data, 31, "the CQEs were still taken");
    }

    #[test]
    fn late_event_within_the_grace_period_is_not_lost() {
        let mut f = Fake::new(vec![None, EV], vec![32, 0]);
        let (r, st, _) = run(&mut f, 32);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 1 }));
        assert_eq!((st.lost, st.late, st.wakes), (0, 1, 1));
    }

    #[test]
    fn a_signal_during_the_grace_wait_is_not_a_lost_wakeup() {
        // Wait 1 (the grace wait) is interrupted once, then the event comes.
        let mut f = Fake::new(vec![None, EV], vec![32, 0]);
        f.intr = vec![1];
        let (r, st, _) = run(&mut f, 32);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 1 }));
        assert_eq!((st.lost, st.late, st.wakes), (0, 1, 1));
        assert_eq!(f.timeouts, vec![1000, 100, 100]);
    }

    #[test]
    fn idle_timeouts_with_an_empty_cq_are_not_lost() {
        let mut f = Fake::new(vec![None, None, None, EV], vec![0, 0, 0, 8]);
        let (r, st, _) = run(&mut f, 8);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 1 }));
        assert_eq!((st.lost, st.late), (0, 0));
        assert_eq!(
            f.timeouts,
            vec![1000; 4],
            "no grace wait when the CQ was empty"
        );
    }

    #[test]
    fn empty_and_foreign_events_are_counted() {
        let mut f = Fake::new(
            vec![EV, Some((EPOLLIN | 0x4, TOKEN)), Some((EPOLLIN, 9))],
            vec![0, 4, 4],
        );
        let (r, st, _) = run(&mut f, 8);
        assert_eq!(r, Ok(BurstEnd::Burst { wakes: 3 }));
        assert_eq!((st.empty_wakes, st.bad_events), (1, 2));
    }

    #[test]
    fn stop_ends_the_watch_without_taking_cqes() {
        let mut f = Fake::new(vec![None, EV], vec![0, 1]);
        f.stop_after = 1;
        let (r, st, _) = run(&mut f, 8);
        assert_eq!(r, Ok(BurstEnd::Stopped));
        assert_eq!(f.cq, 1);
        assert_eq!(st.wakes, 0);
    }

    /// A model of the two loops of the hand-over, on real threads, with the
    /// real `watch_burst` and the real copy type: the producer posts a
    /// burst, waits for `seen`, reads the copy through `&`; the waiter,
    /// meanwhile, is already watching for the next burst. Under Miri
    /// (`cargo +nightly miri test --lib waiter::`), which .ci/run runs, a
    /// `&mut` to the copy held across the wait is undefined behaviour
    /// (Stacked and Tree Borrows both refuse it).
    #[test]
    fn the_copy_is_never_aliased_across_the_wait() {
        use std::sync::atomic::AtomicU32;
        use std::sync::Arc;

        const N: u32 = 4;
        const BURSTS: u32 = 6;
        struct Copy(UnsafeCell<[IoUringCqe; MAX_BURST]>);
        // SAFETY: the hand-over protocol under test orders every access.
        unsafe impl Sync for Copy {}
        /// What the producer and the waiter share: CQEs posted, bursts
        /// handed over, the stop.
        #[derive(Default)]
        struct HandOver {
            posted: AtomicU32,
            seen: AtomicU32,
            stop: AtomicU32,
        }
        /// The CQ: `posted` CQEs so far, `taken` of them by the waiter.
        struct Model {
            hand: Arc<HandOver>,
            taken: u32,
        }
        impl Watched for Model {
            fn wait(&mut self, _timeout_ms: i32) -> SysResult<Option<(u32, u64)>> {
                while self.ready() == 0 && !self.stopping() {
                    std::thread::yield_now();
                }
                Ok(EV)
            }
            fn ready(&self) -> u32 {
                self.hand.posted.load(Ordering::Acquire) - self.taken
            }
            unsafe fn take(&mut self, out: *mut IoUringCqe, max: u32) -> u32 {
                let n = self.ready().min(max);
                for i in 0..n {
                    // SAFETY: i < max (the caller's contract).
                    unsafe { out.add(i as usize).write(cqe((self.taken + i) as u64)) };
                }
                self.taken += n;
                n
            }
            fn stopping(&self) -> bool {
                self.hand.stop.load(Ordering::Acquire) != 0
            }
        }
        let copy = Arc::new(Copy(UnsafeCell::new([IoUringCqe::default(); MAX_BURST])));
        let hand = Arc::new(HandOver::default());
        let waiter = {
            let (copy, hand) = (copy.clone(), hand.clone());
            std::thread::spawn(move || {
                let mut m = Model { hand, taken: 0 };
                let mut st = WatchStats::default();
                loop {
                    let out = copy.0.get() as *mut IoUringCqe;
                    // SAFETY: as in waiter_main.
                    match unsafe { watch_burst(&mut m, N, DOG, TOKEN, out, &mut st) } {
                        Ok(BurstEnd::Burst { .. }) => {
                            let seen = m.hand.seen.load(Ordering::Relaxed);
                            m.hand.seen.store(seen + 1, Ordering::Release);
                        }
                        _ => return,
                    }
                }
            })
        };
        for b in 0..BURSTS {
            hand.posted.fetch_add(N, Ordering::Release);
            while hand.seen.load(Ordering::Acquire) == b {
                std::thread::yield_now();
            }
            // SAFETY: `seen` was released after the burst was written.
            let got = unsafe { &*copy.0.get() };
            for i in 0..N {
                assert_eq!(got[i as usize].user_data, (b * N + i) as u64);
            }
        }
        hand.stop.store(1, Ordering::Release);
        waiter.join().unwrap();
    }
}
