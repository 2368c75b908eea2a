//! pollwake's pieces, and its waiter thread against real missed and real
//! delivered wakeups on this kernel.

use super::*;
use crate::sys::uapi::IoUringCqe;
use crate::testing::skip;

#[test]
fn tags_and_values_are_distinct_per_burst_and_index() {
    assert_eq!(tag(7, Kind::Target, 3), 7 << 16 | 7 << 8 | 3);
    assert_ne!(value(1, 2), value(2, 2));
    assert_ne!(value(1, 2), value(1, 3));
    assert!(
        value(u32::MAX, 63) < 1 << 31,
        "res must stay a positive i32"
    );
}

#[test]
fn a_burst_plan_wants_each_message_back_with_its_own_value() {
    let plan = plan(5, 4, 0);
    let cqe = |kind, i: u32, res| IoUringCqe {
        user_data: tag(5, kind, i),
        res,
        flags: 0,
    };
    let mut l = Ledger::default();
    let mut check = CycleCheck::new(5, &plan);
    for i in [2, 0, 3, 1] {
        check.observe(&cqe(Kind::Source, i, 0), &mut l);
        check.observe(&cqe(Kind::Target, i, value(5, i) as i32), &mut l);
    }
    check.add_received(8);
    assert!(check.finish(&mut l, 0), "{l:?}");
    assert_eq!((l.kind(Kind::Source), l.kind(Kind::Target)), (4, 4));
    // Another burst's value, or another message's, is a bad result.
    let mut l = Ledger::default();
    let mut check = CycleCheck::new(5, &plan);
    check.observe(&cqe(Kind::Target, 0, value(4, 0) as i32), &mut l);
    check.observe(&cqe(Kind::Target, 1, value(5, 2) as i32), &mut l);
    assert_eq!(l.count(Fail::BadResult), 2);
}

#[test]
fn eventfd_commit_shapes() {
    let shape = commit_shape;
    assert_eq!(shape(&[32, 0, 1], 32, false), Some("a commit per message"));
    assert_eq!(shape(&[32, 0, 1], 32, true), Some("a commit per message"));
    assert!(shape(&[1, 1, 1], 32, true).unwrap().starts_with("queued"));
    // Batched commits without DEFER_TASKRUN would void the premise.
    assert_eq!(shape(&[1, 1, 1], 32, false), None);
    assert_eq!(shape(&[31, 0, 1], 32, false), None);
    assert_eq!(shape(&[1, 0, 1], 32, true), None);
}

#[test]
fn task_state_and_path() {
    assert_eq!(task_state(b"123 (a b) c) S 1 2 3"), Some(b'S'));
    assert_eq!(task_state(b"9 (uring-repro) R 0"), Some(b'R'));
    assert_eq!(task_state(b"garbage"), None);
    assert_eq!(task_state(b"1 (x)"), None);
    let path = |tid| task_stat_path(tid).unwrap();
    assert_eq!(
        path(4096).to_bytes_with_nul(),
        b"/proc/self/task/4096/stat\0"
    );
    assert_eq!(path(0).to_bytes_with_nul(), b"/proc/self/task/0/stat\0");
    assert_eq!(
        path(u32::MAX).to_bytes_with_nul(),
        b"/proc/self/task/4294967295/stat\0"
    );
}

fn options(dog_ms: i32) -> Options {
    Options {
        burst: 8,
        flags: RingFlags::None,
        waiter_cpu: sys::getcpu().unwrap(),
        cpu: 0,
        dog: Watchdog {
            timeout_ms: dog_ms,
            grace_ms: 20,
        },
        timeout_ns: 1_000_000_000,
        inject_ns: 0,
    }
}

/// Two rings (a source, a target) with `o`'s flags, or None after a SKIP.
fn two_rings(o: &Options) -> Option<[Ring; 2]> {
    let rings = || -> Result<[Ring; 2], Exit> { Ok([new_ring(o)?, new_ring(o)?]) };
    match rings() {
        Ok(r) => Some(r),
        Err(e) => {
            skip(&format!("io_uring unavailable: {}", e.cause()));
            None
        }
    }
}

/// Waits up to 5 s for the waiter to hand over burst `want`.
fn wait_seen(sh: &waiter::Shared, want: u32) -> bool {
    for _ in 0..100 {
        let v = sh.seen.load(Ordering::Acquire);
        if v == want {
            return true;
        }
        let _ = futex::wait(&sh.seen, v, 50_000_000, true);
    }
    false
}

/// A waiter on `tgt`, watched through an epoll set with interest `mask`.
fn waiter_on(tgt: Ring, mask: u32, o: &Options) -> (Handoff, Fd) {
    let ep = epoll::epoll_create1().unwrap();
    epoll::epoll_ctl(ep.raw(), EPOLL_CTL_ADD, tgt.fd(), mask, TOKEN).unwrap();
    let brief = Brief {
        epfd: ep.raw(),
        token: TOKEN,
        burst: o.burst,
        cpu: o.waiter_cpu,
        dog: o.dog,
    };
    let mut h = Handoff::new(tgt, brief).unwrap();
    h.start(1_000_000_000).expect("waiter starts");
    (h, ep)
}

/// The real waiter thread against a real missed wakeup: its epoll set
/// holds the target ring with an empty event mask, so the kernel's
/// callback ignores every commit; the CQ fills and nothing wakes the
/// waiter. The watchdog must count exactly one lost wakeup and still hand
/// the burst over; a normal set must count none. Returns (lost, wakes,
/// late), or None after a SKIP.
fn waiter_against(mask: u32) -> Option<(u32, u32, u32)> {
    let o = options(150);
    let [mut src, tgt] = two_rings(&o)?;
    let (mut h, _ep) = waiter_on(tgt, mask, &o);
    let (seq, n) = (3, o.burst);
    let plan = plan(seq, n, 0);
    let mut check = CycleCheck::new(seq, &plan);
    let mut l = Ledger::default();
    assert!(send(&mut src, h.ring_fd, seq, n, &mut check, &mut l));
    assert!(
        wait_seen(h.sh(), 1),
        "the waiter never handed the burst over"
    );
    let sh = h.sh();
    // SAFETY: seen was acquired; the waiter is back in epoll_pwait.
    let copy = unsafe { &*sh.cqes.get() };
    for c in &copy[..n as usize] {
        check.observe(c, &mut l);
    }
    check.add_received(n);
    assert!(check.finish(&mut l, 0) && l.passed(), "{l:?}");
    let got = (
        sh.lost.load(Ordering::Relaxed),
        sh.burst_wakes.load(Ordering::Relaxed),
        sh.late.load(Ordering::Relaxed),
    );
    assert!(h.join(2_000_000_000), "the waiter did not stop");
    assert_eq!(h.sh().state.load(Ordering::Acquire), EXITED);
    assert_eq!(h.ring_mut().unwrap().cq_ready(), 0);
    Some(got)
}

#[test]
fn live_missed_wakeup_is_counted_by_the_watchdog() {
    if let Some(got) = waiter_against(0) {
        assert_eq!(got, (1, 0, 0), "(lost, wakes, late)");
    }
}

#[test]
fn live_wakeup_is_not_lost() {
    if let Some((lost, wakes, late)) = waiter_against(EPOLLIN) {
        assert_eq!((lost, late), (0, 0));
        assert!(wakes >= 1, "woken {wakes} times");
    }
}

#[test]
fn a_lost_wakeup_fails_the_burst_and_the_run_still_ends() {
    // The whole workload, with the waiter's epoll interest switched off
    // after set-up (EPOLL_CTL_MOD to an empty mask): the burst must come
    // back unclean with exactly one lost wakeup, and finish must still stop
    // and join the waiter and leave no CQE behind.
    let mut o = options(150);
    o.cpu = o.waiter_cpu;
    let Some([mut src, _]) = two_rings(&o) else {
        return;
    };
    let mut l = Ledger::default();
    let mut pw = match Pollwake::with(o, &mut src, &mut l) {
        Ok(pw) => pw,
        Err(e) => panic!("pollwake sets up: {}", e.cause()),
    };
    assert!(l.passed(), "the eventfd pass: {l:?}");
    let clock = Clock::syscall();
    let (_, clean) = pw.burst(Poller::Waiter, &mut src, 1, &clock, &mut l);
    assert!(clean, "a normal burst first: {l:?}");
    let (ep, fd) = (pw.p._ep_waiter.raw(), pw.p.handoff.ring_fd);
    epoll::epoll_ctl(ep, epoll::EPOLL_CTL_MOD, fd, 0, TOKEN).unwrap();
    let (_, clean) = pw.burst(Poller::Waiter, &mut src, 2, &clock, &mut l);
    assert!(!clean);
    assert_eq!((l.count(Fail::LostWakeup), l.failures()), (1, 1), "{l:?}");
    // The stop message cannot wake a waiter that is not interested any
    // more; the watchdog's bound ends its wait and finish joins it.
    assert_eq!(pw.finish(&mut src, &mut l), Ok(()));
    assert_eq!(l.count(Fail::WaiterError), 0, "{l:?}");
    assert_eq!((l.count(Fail::Outstanding), l.count(Fail::Missing)), (0, 0));
    assert_eq!(pw.p.wake_hist[0] + pw.p.wake_hist[1], 2);
}

#[test]
fn stop_wakes_a_waiter_that_never_saw_a_burst() {
    // The join must not depend on the watchdog: a stop message posts a CQE,
    // the waiter wakes, sees `stop` and leaves the CQE behind.
    let o = options(60_000);
    let Some([mut src, tgt]) = two_rings(&o) else {
        return;
    };
    let (mut h, _ep) = waiter_on(tgt, EPOLLIN, &o);
    h.sh().stop.store(1, Ordering::Release);
    let stop = ops::msg_ring_data(h.ring_fd, 0, tag(STOP_SEQ, Kind::Target, 0), 1);
    assert!(src.push_batch(1, |_| stop));
    assert_eq!(src.submit_and_wait(1, 1), Ok(1));
    assert!(
        h.join(5_000_000_000),
        "the stop message did not end the waiter"
    );
    assert_eq!(h.ring_mut().unwrap().cq_ready(), 1);
}
