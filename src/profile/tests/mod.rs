//! Every workload's checks against synthetic CQEs for each failure class,
//! and the kernel values they rely on, checked on this kernel.

pub mod live;

use self::live::{live_ring, refusing_ring};
use super::parts::{collect, setup};
use super::registry::ProfileId;
use super::vocabulary::{SetUp, Shape, Workload, MAX_SERIES, RES_CANCEL_FOUND};
use super::workloads::futex::Futex;
use super::workloads::stream::tests::a_byte_left_in;
use super::workloads::waitv_wake::WAITV_WAKE_INDEX;
use super::workloads::{lifecycle, rw_pipe, send_recv, wait_cancel, wait_wake, waitv_wake};
use crate::check::{tag, CycleCheck, Expect, Fail, Kind, Ledger, Plan, Returned, KINDS};
use crate::config::RunConfig;
use crate::cpu::Choice;
use crate::exit::Exit;
use crate::ops;
use crate::sys::clock::Clock;
use crate::sys::uapi::IoUringCqe;
use crate::sys::Errno;

/// Every workload but pollwake (its bursts are tested in pollwake/tests.rs).
fn futex_workloads() -> impl Iterator<Item = ProfileId> {
    ProfileId::ALL
        .into_iter()
        .filter(|&p| p != ProfileId::parse(b"pollwake").unwrap())
}

/// The workload with the short name `short`.
fn id(short: &str) -> ProfileId {
    ProfileId::parse(short.as_bytes()).unwrap()
}

/// The shape of profile `name` with `slots` requests (pollwake: a burst
/// of that many messages) per cycle.
fn shape_of(name: &str, slots: u32) -> Shape {
    live::shape(id(name).profile(), slots)
}

fn cqe(user_data: u64, res: i32) -> IoUringCqe {
    IoUringCqe {
        user_data,
        res,
        flags: 0,
    }
}

/// The CQEs of a clean cycle `seq` of `s`, kind by kind.
fn clean(seq: u32, s: &Shape) -> Vec<IoUringCqe> {
    let mut v = Vec::new();
    for k in Kind::ALL {
        let e = s.expect[k as usize];
        for i in 0..e.count {
            v.push(cqe(tag(seq, k, i), e.res));
        }
    }
    v
}

fn verdict(seq: u32, s: &Shape, cqes: &[IoUringCqe]) -> (Ledger, bool) {
    let mut l = Ledger::default();
    let plan = Plan::new(&s.expect);
    let mut c = CycleCheck::new(seq, &plan);
    for q in cqes {
        c.observe(q, &mut l);
    }
    c.add_received(cqes.len() as u32);
    let ok = c.finish(&mut l, 0);
    (l, ok)
}

fn default_shape(id: ProfileId) -> Shape {
    shape_of(id.names().short, id.default_slots())
}

/// The ledger's counts of `fails`, in that order.
fn counts<const N: usize>(l: &Ledger, fails: [Fail; N]) -> [u64; N] {
    fails.map(|f| l.count(f))
}

#[test]
fn every_profile_accepts_its_clean_cycle() {
    for id in futex_workloads() {
        let s = default_shape(id);
        let (l, ok) = verdict(9, &s, &clean(9, &s));
        assert!(ok && l.passed(), "{id:?}: {l:?}");
        let total: u32 = s.expect.iter().map(|e| e.count).sum();
        assert_eq!(l.cqes, total as u64, "{id:?}");
    }
}

#[test]
fn a_wrong_result_for_the_workload_is_a_bad_result() {
    // (profile, kind, a result the kernel could give, what it would mean)
    let cases = [
        (id("s0"), Kind::Wait, -11, "word changed before queueing"),
        (id("s0"), Kind::Wake, 0, "the wake found nobody"),
        (id("c0"), Kind::Wait, 0, "woken, not cancelled"),
        (id("c0"), Kind::Cancel, -2, "-ENOENT: nothing to cancel"),
        (id("c0"), Kind::Cancel, -114, "-EALREADY: already running"),
        (id("c0"), Kind::Cancel, 0, "0, as other opcodes report"),
        (id("v0"), Kind::Waitv, 0, "woken at another index"),
        (id("v0"), Kind::Wake, 0, "the wake found nobody"),
        (id("v0"), Kind::Check, 1, "a residual waiter stayed queued"),
        (id("z0"), Kind::Wake, 1, "somebody was waiting"),
        (id("e0"), Kind::Wait, 0, "the wait queued and was woken"),
        (id("e0"), Kind::Wait, -125, "cancelled instead"),
        (id("n0"), Kind::Nop, -22, "-EINVAL"),
        (id("l0"), Kind::Wait, -125, "cancelled by the close"),
        (id("a0"), Kind::Nop, -125, "-ECANCELED: io-wq refused it"),
        (id("r0"), Kind::Write, -11, "-EAGAIN: the pipe was full"),
        (id("r0"), Kind::Read, 15, "a short read"),
        (
            id("p0"),
            Kind::Poll,
            0x41,
            "POLLIN | POLLRDNORM: more than asked",
        ),
        (
            id("p0"),
            Kind::Poll,
            -125,
            "-ECANCELED: the poll was removed",
        ),
        (
            id("p0"),
            Kind::Read,
            -11,
            "-EAGAIN: the write never counted",
        ),
        (
            id("t0"),
            Kind::Timeout,
            -62,
            "-ETIME: the timer fired first",
        ),
        (
            id("m0"),
            Kind::Source,
            -75,
            "-EOVERFLOW: the target's CQ was full",
        ),
        (id("u0"), Kind::Recv, 0, "0: the other end was shut"),
        (
            id("u0"),
            Kind::Send,
            -32,
            "-EPIPE: the other end was closed",
        ),
        (
            id("k0"),
            Kind::Link,
            -125,
            "-ECANCELED: the link before it failed",
        ),
        (id("b0"), Kind::Splice, 8, "a short splice"),
        (
            id("b0"),
            Kind::Splice,
            -4,
            "-EINTR: the worker was signalled",
        ),
        (id("b0"), Kind::Write, -11, "-EAGAIN: the pipe was full"),
        (
            id("q0"),
            Kind::Nop,
            -125,
            "-ECANCELED: the SQ thread exited",
        ),
        (
            id("g0"),
            Kind::Madvise,
            -95,
            "-EOPNOTSUPP: no ADVISE_SYSCALLS",
        ),
        (id("g0"), Kind::Fallocate, -28, "-ENOSPC: tmpfs full"),
        (id("g0"), Kind::Statx, -2, "-ENOENT: the path was looked up"),
        (id("g0"), Kind::Read, 0, "0: the file was empty"),
        (id("g0"), Kind::Ftruncate, -22, "-EINVAL: a field not zero"),
    ];
    for (id, kind, res, why) in cases {
        let s = default_shape(id);
        let mut v = clean(3, &s);
        // Request 1 of the kind, or its only one (g0's).
        let one = tag(3, kind, s.expect[kind as usize].count.min(2) - 1);
        let i = v.iter().position(|c| c.user_data == one).unwrap();
        v[i].res = res;
        let (l, ok) = verdict(3, &s, &v);
        assert!(!ok, "{id:?} {why}");
        assert_eq!(
            counts(&l, [Fail::BadResult, Fail::Missing, Fail::Duplicate]),
            [1, 0, 0],
            "{id:?} {why}"
        );
        let f = l.first.unwrap();
        let c = f.cqe.unwrap();
        assert_eq!((f.what, c.user_data, c.res), ("bad_result", one, res));
    }
}

#[test]
fn v0_without_its_check_cqes_is_missing_them() {
    let s = default_shape(id("v0"));
    let v: Vec<_> = clean(4, &s)
        .into_iter()
        .filter(|c| (c.user_data >> 8) & 0xff != Kind::Check as u64 || c.user_data & 0xff < 5)
        .collect();
    let (l, ok) = verdict(4, &s, &v);
    assert!(!ok);
    assert_eq!((l.count(Fail::Missing), l.count(Fail::BadResult)), (3, 0));
    assert_eq!(l.first.unwrap().what, "missing");
    assert_eq!(l.kind(Kind::Check), 5);
}

#[test]
fn extra_and_foreign_cqes_per_profile() {
    for id in futex_workloads() {
        let s = default_shape(id);
        // One CQE twice: a duplicate.
        let mut v = clean(5, &s);
        v.push(v[0]);
        let (l, ok) = verdict(5, &s, &v);
        assert!(
            !ok && l.count(Fail::Duplicate) == 1 && l.count(Fail::UnknownTag) == 0,
            "{id:?}"
        );
        // A kind the workload never submits, an index past its count, a
        // CQE of the previous cycle: all unknown tags.
        let foreign = Kind::ALL
            .into_iter()
            .find(|k| s.expect[*k as usize].count == 0);
        let mut v = clean(5, &s);
        v.push(cqe(tag(5, foreign.unwrap(), 0), 0));
        v.push(cqe(tag(5, Kind::ALL[0], 40), 0));
        v.push(cqe(tag(4, Kind::ALL[0], 0), 0));
        let (l, ok) = verdict(5, &s, &v);
        assert!(!ok, "{id:?}");
        assert_eq!(
            counts(&l, [Fail::UnknownTag, Fail::Missing, Fail::BadResult]),
            [3, 0, 0],
            "{id:?}"
        );
        // A CQE with flags set.
        let mut v = clean(5, &s);
        v[1].flags = 4;
        assert_eq!(verdict(5, &s, &v).0.count(Fail::BadFlags), 1, "{id:?}");
    }
}

/// The checks compare with what the kernel really returns: a workload
/// told to expect what most opcodes give (0) fails on this kernel for
/// every request, and the first failure shows the real value.
#[test]
fn the_kernel_values_are_checked_not_assumed() {
    let Some(mut ring) = live_ring(id("c0").profile()) else {
        return;
    };
    let mut s = shape_of("c0", 32);
    s.expect[Kind::Cancel as usize].res = 0;
    let mut c0 = wait_cancel::WaitCancel(
        Futex::new(setup::CyclePlan::new(&s, 0), ops::futex_flags(true)).unwrap(),
    );
    let mut l = Ledger::default();
    let (_, ok) = c0.cycle(&mut ring, &Clock::syscall(), &mut l, 1);
    assert!(!ok);
    assert_eq!((l.count(Fail::BadResult), l.count(Fail::Missing)), (32, 0));
    let f = l.first.unwrap().cqe.unwrap();
    assert_eq!(
        (f.res, (f.user_data >> 8) & 0xff),
        (RES_CANCEL_FOUND, Kind::Cancel as u64)
    );

    let Some(mut ring) = live_ring(id("v0").profile()) else {
        return;
    };
    let mut s = shape_of("v0", 8);
    s.expect[Kind::Waitv as usize].res = 0;
    let f = Futex::new(setup::CyclePlan::new(&s, 0), ops::futex_flags(false)).unwrap();
    let mut v0 = waitv_wake::WaitvWake::new(f).unwrap();
    let mut l = Ledger::default();
    let (_, ok) = v0.cycle(&mut ring, &Clock::syscall(), &mut l, 1);
    assert!(!ok);
    assert_eq!((l.count(Fail::BadResult), l.count(Fail::Missing)), (8, 0));
    assert_eq!(l.first.unwrap().cqe.unwrap().res, WAITV_WAKE_INDEX as i32);
    // The check wakes still ran and found nobody: the WAITVs were done.
    assert_eq!(l.kind(Kind::Check), 8);
}

#[test]
fn lifecycle_cycles_run_clean_in_their_own_rings() {
    let Some(mut main) = live_ring(id("l0").profile()) else {
        return;
    };
    let s = shape_of("l0", 4);
    let s0 = wait_wake::WaitWake(
        Futex::new(setup::CyclePlan::new(&s, 0), ops::futex_flags(true)).unwrap(),
    );
    let mut l0 = lifecycle::Lifecycle::new(s0, 1_000_000_000);
    let mut l = Ledger::default();
    let clock = Clock::syscall();
    for seq in 0..3 {
        let (ns, ok) = l0.cycle(&mut main, &clock, &mut l, seq);
        assert!(ok && ns > 0, "{l:?}");
    }
    assert_eq!((l.kind(Kind::Wait), l.kind(Kind::Wake)), (12, 12));
    assert_eq!(l.submitted[Kind::Wait as usize], 12);
}

/// An overflow the kernel flushes before the round ends is still counted:
/// the cycle that saw it looks at the flag after its drain.
#[test]
fn a_cq_overflow_flushed_mid_round_is_counted_once() {
    let Some(mut ring) = live_ring(id("n0").profile()) else {
        return;
    };
    let s = shape_of("n0", 32);
    let plan = Plan::new(&s.expect);
    let seq = 3;
    // 3 x 64 NOPs into a 128-entry CQ: 64 CQEs go to the overflow list.
    for round in 0..3 {
        assert!(ring.push_batch(64, |i| ops::nop(tag(seq, Kind::Nop, i + 64 * round))));
        assert_eq!(ring.submit(64), Ok(64));
    }
    assert!(
        ring.overflow_pending(),
        "this kernel did not overflow the CQ"
    );
    let mut l = Ledger::default();
    let mut check = CycleCheck::new(seq, &plan);
    collect::collect(&mut ring, &mut check, &mut l, 32, seq);
    assert_eq!(l.count(Fail::CqOverflow), 1);
    assert!(!check.finish_own(&mut l), "the cycle is unclean");
    // Reap everything: the kernel flushes its overflow list into the CQ.
    let mut left = 192 - 32;
    while left > 0 {
        ring.submit_and_wait(0, 1).unwrap();
        left -= ring.drain(left, |_| {});
    }
    assert!(!ring.overflow_pending(), "flushed");
    // The round's end finds nothing new: counted once, not lost, not twice.
    assert_eq!(ring.state().cq_overflow, 0);
}

/// io_uring_enter on a ring not yet enabled.
const EBADFD: Errno = Errno(77);

/// Every workload whose cycle is batches (cycle.rs), its first batch
/// refused by the kernel: the cycle is unclean, its failure names the
/// enter and the errno, and no batch is pushed after the failed one (the
/// SQ holds that batch alone: nothing else is left unsubmitted). Nothing
/// is counted as submitted or received; every expected CQE is missing.
#[test]
fn a_failed_first_batch_ends_the_cycle_with_nothing_pushed_after_it() {
    // a0 runs a cycle in its set-up, which fails there (nop_async.rs);
    // b0 submits its first batch one request at a time, and the refused
    // request is the one left (iowq_block.rs); q0 and g0 run their cycles
    // on rings of their own.
    for short in [
        "s0", "c0", "v0", "z0", "e0", "n0", "r0", "p0", "t0", "m0", "u0", "k0",
    ] {
        let id = id(short);
        let Some(mut ring) = refusing_ring() else {
            return;
        };
        let cfg = RunConfig {
            slots: id.default_slots(),
            ..RunConfig::default()
        };
        let allowed = crate::cpu::only(0);
        let s = SetUp {
            cfg: &cfg,
            shape: id.shape(&cfg),
            cpu: Choice::Requested(0),
            allowed: &allowed,
        };
        let mut l = Ledger::default();
        let mut seen = None;
        let started = (id.profile().start)(&s, &mut ring, &mut l, &mut |w, ring, l| {
            let (_, clean) = w.cycle(ring, &Clock::syscall(), l, 7);
            seen = Some((clean, ring.state()));
            Ok(Exit::pass())
        });
        assert!(started.is_ok(), "{id:?}");
        let (clean, state) = seen.unwrap();
        assert!(!clean, "{id:?}");
        let first = s.shape.slots;
        assert_eq!(
            state.outstanding, first,
            "{id:?}: pushed after the failed batch"
        );
        assert_eq!(l.count(Fail::SubmitError), 1, "{id:?}");
        // Every CQE the cycle expected is missing, and nothing else counted.
        let expected: u32 = s.shape.expect.iter().map(|e| e.count).sum();
        assert_eq!(l.count(Fail::Missing), expected as u64, "{id:?}");
        assert_eq!(l.failures(), 1 + expected as u64, "{id:?}: {l:?}");
        let f = l.first.unwrap();
        let call = f.call.unwrap();
        assert_eq!(
            (f.what, f.seq, call.name, call.ret),
            ("submit_error", 7, "io_uring_enter", Returned::Errno(EBADFD)),
            "{id:?}"
        );
        assert_eq!((l.submitted, l.cqes), ([0; KINDS], 0), "{id:?}");
    }
    assert_eq!(EBADFD.name(), "EBADFD");
}

/// What the cycle frame relies on to judge a cycle by its check alone
/// (cycle.rs): a wait for late CQEs that fails or expires spoils the
/// check, even when no CQE is missing (here: a check that expects none).
#[test]
fn a_wait_that_fails_or_expires_spoils_the_check() {
    let nothing = Plan::new(&[crate::check::Expect::default(); KINDS]);
    let Some(mut refusing) = refusing_ring() else {
        return;
    };
    let Some(mut idle) = live_ring(id("n0").profile()) else {
        return;
    };
    idle.set_wait_timeout_ns(1_000_000);
    for (ring, fail) in [
        (&mut refusing, Fail::SubmitError),
        (&mut idle, Fail::Timeout),
    ] {
        let mut l = Ledger::default();
        let mut check = CycleCheck::new(2, &nothing);
        collect::wait_rest(ring, &mut check, &mut l, 0, 1, 2);
        assert_eq!((l.count(fail), l.failures()), (1, 1), "{fail:?}");
        assert!(
            !check.finish_own(&mut l),
            "{fail:?}: the check still passes"
        );
    }
}

/// What every workload's `Profile` must hold for the rest of the tool to
/// read it without knowing the workload: names no other workload has,
/// series named by the one rule (its formal name, or several each
/// `FORMAL_MODE` with its `--mode` word) and printable as `# series:`
/// words, its slots within the limits, at most the functions the witness
/// traces, each once.
#[test]
fn every_profile_states_its_facts_in_one_form() {
    let mut names = Vec::new();
    let word = |w: &str| !w.is_empty() && !w.contains([' ', '"', '\\', '\n']);
    let quoted = |q: &str| !q.is_empty() && !q.contains(['"', '\\', '\n']);
    for id in ProfileId::ALL {
        let p = id.profile();
        let n = &p.names;
        names.extend([n.short, n.long]);
        // pollwake's formal name is its short name.
        if n.formal != n.short {
            names.push(n.formal);
        }
        assert!(word(n.short) && word(n.formal) && quoted(p.per), "{id:?}");
        assert!(!p.opcodes.is_empty(), "{id:?}");
        assert!((1..=MAX_SERIES).contains(&p.series.len()), "{id:?}");
        for s in p.series {
            assert!(word(s.name) && quoted(s.about), "{id:?} {}", s.name);
            match s.mode {
                None => assert!(p.series.len() == 1 && s.name == n.formal, "{id:?}"),
                Some(m) => {
                    assert!(p.series.len() > 1 && word(m), "{id:?}");
                    assert_eq!(s.name, format!("{}_{m}", n.formal));
                    names.push(m);
                }
            }
            if s.name != n.formal {
                names.push(s.name);
            }
        }
        assert!(
            1 <= p.options.default_slots && p.options.default_slots <= p.options.max_slots,
            "{id:?}"
        );
        assert!(p.options.max_slots <= crate::config::MAX_SLOTS, "{id:?}");
        assert!(!p.functions.is_empty(), "{id:?}");
        assert!(p.functions.len() <= crate::witness::MAX_FUNCTIONS, "{id:?}");
        for (i, f) in p.functions.iter().enumerate() {
            assert!(p.functions[..i].iter().all(|g| g.name != f.name), "{id:?}");
        }
    }
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a name means one workload, or one mode");
}

#[test]
fn shapes_state_every_expected_result() {
    let e = |count, res| Expect { count, res };
    let s0 = shape_of("s0", 32);
    assert_eq!((s0.pairs, s0.vector_width), (32, 1));
    assert_eq!(s0.expect[Kind::Wait as usize], e(32, 0));
    assert_eq!(s0.expect[Kind::Wake as usize], e(32, 1));
    assert_eq!(shape_of("l0", 32), s0);
    let c0 = shape_of("c0", 32);
    assert_eq!(c0.expect[Kind::Wait as usize], e(32, -125));
    assert_eq!(c0.expect[Kind::Cancel as usize], e(32, 1));
    let v0 = shape_of("v0", 8);
    assert_eq!((v0.pairs, v0.vector_width), (8, 8));
    assert_eq!(v0.expect[Kind::Waitv as usize], e(8, 3));
    assert_eq!(v0.expect[Kind::Wake as usize], e(8, 1));
    assert_eq!(v0.expect[Kind::Check as usize], e(8, 0));
    assert_eq!(v0.expect[Kind::Wait as usize].count, 0);
    assert_eq!(shape_of("z0", 32).expect[1], e(32, 0));
    assert_eq!(shape_of("e0", 32).expect[0], e(32, -11));
    let n0 = shape_of("n0", 5);
    assert_eq!((n0.pairs, n0.expect[Kind::Nop as usize].count), (5, 5));
    let b0 = shape_of("b0", 8);
    for k in [Kind::Splice, Kind::Write, Kind::Read] {
        assert_eq!(b0.expect[k as usize], e(8, 16), "{k:?}");
    }
    assert_eq!(
        (shape_of("q0", 5).pairs, shape_of("q0", 5).expect[4]),
        (5, e(5, 0))
    );
    let g0 = shape_of("g0", 10);
    assert_eq!(g0.pairs, 10);
    assert_eq!(g0.expect.iter().map(|x| x.count).sum::<u32>(), 10);
    assert_eq!(g0.expect[Kind::Read as usize], e(1, 512));
    assert_eq!(g0.expect[Kind::Write as usize], e(1, 512));
    assert_eq!(g0.expect[Kind::Statx as usize], e(1, 0));
    let pw = shape_of("pollwake", 16);
    assert_eq!((pw.slots, pw.pairs), (16, 16));
    assert_eq!(pw.expect[Kind::Source as usize], e(16, 0));
    assert_eq!(pw.expect[Kind::Target as usize], e(16, 0));
}

#[test]
fn the_probe_covers_every_kind_a_shape_uses() {
    use crate::sys::uapi::*;
    let uses = |k: Kind| match k {
        Kind::Wait => IORING_OP_FUTEX_WAIT,
        Kind::Waitv => IORING_OP_FUTEX_WAITV,
        Kind::Wake | Kind::Check => IORING_OP_FUTEX_WAKE,
        Kind::Cancel => IORING_OP_ASYNC_CANCEL,
        Kind::Nop | Kind::Link => IORING_OP_NOP,
        Kind::Source | Kind::Target => IORING_OP_MSG_RING,
        Kind::Read => IORING_OP_READ,
        Kind::Write => IORING_OP_WRITE,
        Kind::Poll => IORING_OP_POLL_ADD,
        Kind::Timeout => IORING_OP_TIMEOUT,
        Kind::Send => IORING_OP_SEND,
        Kind::Recv => IORING_OP_RECV,
        Kind::Splice => IORING_OP_SPLICE,
        Kind::Fsync => IORING_OP_FSYNC,
        Kind::Fallocate => IORING_OP_FALLOCATE,
        Kind::Fadvise => IORING_OP_FADVISE,
        Kind::Madvise => IORING_OP_MADVISE,
        Kind::Statx => IORING_OP_STATX,
        Kind::Ftruncate => IORING_OP_FTRUNCATE,
        Kind::SyncRange => IORING_OP_SYNC_FILE_RANGE,
    };
    for id in ProfileId::ALL {
        let ops: Vec<u8> = id.profile().opcodes.iter().map(|o| o.0).collect();
        let s = shape_of(id.names().short, 8);
        for k in Kind::ALL
            .into_iter()
            .filter(|&k| s.expect[k as usize].count > 0)
        {
            assert!(ops.contains(&uses(k)), "{id:?} {k:?}");
        }
    }
}

/// r0 and u0 run clean, and a byte left in stream 5 before a cycle (the
/// stream did not start empty) is caught, blamed on receive 5: its record
/// comes back one byte off (`bad_data`), or, where the kernel flags a
/// socket with bytes left behind a RECV (IORING_CQE_F_SOCK_NONEMPTY), as a
/// bad flag.
#[test]
fn a_byte_left_in_a_stream_is_caught_on_its_receive() {
    a_byte_left_in::<rw_pipe::Pipes>(&rw_pipe::R0);
    a_byte_left_in::<send_recv::SocketPairs>(&send_recv::U0);
}
