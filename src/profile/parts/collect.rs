//! What every workload does around its SQEs and CQEs: push and submit a
//! batch of requests, counting a submission that failed or came up short;
//! take a batch of CQEs into the cycle's check (waiting again, bounded, for
//! late ones); add what the kernel reports of a ring, or of the CPU, to the
//! ledger.

use crate::check::{Call, CycleCheck, Fail, Kind, Ledger, Returned};
use crate::ring::Ring;
use crate::sys::uapi::IoUringSqe;
use crate::sys::{self, signal, Errno};

/// Most waits for a batch's missing CQEs (each bounded by the ring's wait
/// timeout), so a broken kernel ends the run instead of hanging it.
const MAX_EXTRA_WAITS: u32 = 4;

/// Requests of one kind that a cycle submits together: `n` SQEs, the
/// `i`-th made by `make(i)` (its user_data `tag(seq, kind, i)`).
pub struct Batch<F> {
    pub kind: Kind,
    pub n: u32,
    pub make: F,
}

impl<F: FnMut(u32) -> IoUringSqe> Batch<F> {
    #[inline(always)]
    pub fn new(kind: Kind, n: u32, make: F) -> Batch<F> {
        Batch { kind, n, make }
    }
}

/// Pushes batch `b` and submits it with one io_uring_enter, which also
/// waits for `wait` CQEs (0: it does not wait). False, and counted, when
/// the batch did not fit the SQ (nothing of it was pushed) or the kernel
/// did not take it whole. Inlined: `wait` is a constant at every call.
#[inline(always)]
pub fn submit<F>(ring: &mut Ring, ledger: &mut Ledger, seq: u32, b: Batch<F>, wait: u32) -> bool
where
    F: FnMut(u32) -> IoUringSqe,
{
    let n = b.n;
    if !pushed(ring.push_batch(n, b.make), ledger, seq) {
        return false;
    }
    let ret = if wait == 0 {
        ring.submit(n)
    } else {
        ring.submit_and_wait(n, wait)
    };
    submitted(ret, n, b.kind, ledger, seq)
}

/// Pushes and submits batch `b` one request an io_uring_enter, none
/// waiting, and calls `between()` after each (b0: lets the io-wq worker
/// the request woke run until it blocks, before the next request is
/// queued). False, and counted as `submit` counts, at the first request
/// that did not fit or that the kernel did not take: none after it is
/// pushed.
#[inline(always)]
pub fn submit_each<F, G>(
    ring: &mut Ring,
    ledger: &mut Ledger,
    seq: u32,
    b: Batch<F>,
    mut between: G,
) -> bool
where
    F: FnMut(u32) -> IoUringSqe,
    G: FnMut(),
{
    let mut make = b.make;
    for i in 0..b.n {
        if !pushed(ring.push_batch(1, |_| make(i)), ledger, seq)
            || !submitted(ring.submit(1), 1, b.kind, ledger, seq)
        {
            return false;
        }
        between();
    }
    true
}

/// Pushes batch `b` on an SQPOLL ring, for its SQ thread, and waits for
/// its CQEs with one io_uring_enter that submits nothing, waking the SQ
/// thread first when it sleeps (`Ring::publish_and_wait`). The SQ thread
/// takes the requests, so all of them count as submitted once that enter
/// went in (a request it did not take is a missing CQE). Returns whether
/// the batch went in, and whether the SQ thread had to be woken; false,
/// and counted, when the batch did not fit or the enter failed.
#[inline(always)]
pub fn submit_polled<F>(ring: &mut Ring, ledger: &mut Ledger, seq: u32, b: Batch<F>) -> (bool, bool)
where
    F: FnMut(u32) -> IoUringSqe,
{
    let n = b.n;
    if !pushed(ring.push_batch(n, b.make), ledger, seq) {
        return (false, false);
    }
    match ring.publish_and_wait(n) {
        Ok(woke) => {
            ledger.submitted[b.kind as usize] += n as u64;
            (true, woke)
        }
        Err(e) => (submit_failed(ledger, seq, Err(e), n), false),
    }
}

/// Pushes batches `a` and `b` as one, `a`'s SQEs first, and submits them
/// with one io_uring_enter that waits for their CQEs: a chain may run from
/// one into the other (a link never spans two enters). Counted as `submit`
/// counts; what the kernel took is credited to `a`'s kind first.
#[inline(always)]
pub fn submit_together<A, B>(
    ring: &mut Ring,
    ledger: &mut Ledger,
    seq: u32,
    a: Batch<A>,
    b: Batch<B>,
) -> bool
where
    A: FnMut(u32) -> IoUringSqe,
    B: FnMut(u32) -> IoUringSqe,
{
    let (first, n) = (a.n, a.n + b.n);
    let (mut make_a, mut make_b) = (a.make, b.make);
    let both = |i| {
        if i < first {
            make_a(i)
        } else {
            make_b(i - first)
        }
    };
    if !pushed(ring.push_batch(n, both), ledger, seq) {
        return false;
    }
    let ret = ring.submit_and_wait(n, n);
    if let Ok(took) = ret {
        let took = took as u64;
        ledger.submitted[a.kind as usize] += took.min(first as u64);
        ledger.submitted[b.kind as usize] += took.saturating_sub(first as u64);
    }
    ret == Ok(n as usize) || submit_failed(ledger, seq, ret.map(|t| t as u32), n)
}

/// Submits batch `b` with a wait for its CQEs, and takes them into `check`
/// (`collect`). False when the submission failed (nothing is collected).
#[inline(always)]
pub fn one_batch<F>(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    seq: u32,
    b: Batch<F>,
) -> bool
where
    F: FnMut(u32) -> IoUringSqe,
{
    let n = b.n;
    let ok = submit(ring, ledger, seq, b, n);
    if ok {
        collect(ring, check, ledger, n, seq);
    }
    ok
}

/// Counts a failed or short submission: `ret` must be `want`. What the
/// kernel did take counts as submitted requests of `kind`.
#[inline(always)]
pub fn submitted(
    ret: Result<usize, Errno>,
    want: u32,
    kind: Kind,
    ledger: &mut Ledger,
    seq: u32,
) -> bool {
    if let Ok(n) = ret {
        ledger.submitted[kind as usize] += n as u64;
    }
    if ret == Ok(want as usize) {
        return true;
    }
    submit_failed(ledger, seq, ret.map(|n| n as u32), want)
}

/// `submitted`'s failure: names what the io_uring_enter returned.
/// Outlined: no cycle that passes calls it. (Its arguments are the ones
/// that leave s0's cycle at its instruction count, callgrind: 3,025 per
/// cycle against 3,030 before the errno was kept; ledger first, the
/// result narrowed to u32 at the call.)
#[cold]
#[inline(never)]
fn submit_failed(ledger: &mut Ledger, seq: u32, ret: Result<u32, Errno>, want: u32) -> bool {
    let ret = match ret {
        Err(e) => Returned::Errno(e),
        Ok(n) => Returned::Took(n, want),
    };
    ledger.fail_call(Fail::SubmitError, "submit_error", seq, enter(ret));
    false
}

/// io_uring_enter, as a failure's call.
pub fn enter(ret: Returned) -> Call {
    Call {
        name: "io_uring_enter",
        ret,
    }
}

/// Counts a batch that did not fit in the SQ (a bug or a shrunken ring).
#[inline(always)]
pub fn pushed(pushed: bool, ledger: &mut Ledger, seq: u32) -> bool {
    if !pushed {
        ledger.fail(Fail::SubmitError, "sq_full", seq, None);
    }
    pushed
}

/// Takes the `want` CQEs the last enter waited for into `check`, waiting
/// again (bounded) for any that are late, then looks at the CQ overflow
/// flag (one load). Inlined: in a cycle the drain
/// and the checks are one loop in the timed span.
#[inline(always)]
pub fn collect(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    want: u32,
    seq: u32,
) {
    let got = ring.drain(want, |c| check.observe(c, ledger));
    check.add_received(got);
    if got < want {
        wait_rest(ring, check, ledger, got, want, seq);
    }
    if ring.overflow_pending() {
        overflowed(ring, check, ledger, seq);
    }
}

/// The CQ overflowed during this batch: counted now, since the kernel's
/// next enter flushes its overflow list and the round's end would find
/// nothing. The cycle is unclean (its CQEs are out of order).
#[cold]
#[inline(never)]
pub fn overflowed(ring: &mut Ring, check: &mut CycleCheck<'_>, ledger: &mut Ledger, seq: u32) {
    ledger.add(Fail::CqOverflow, ring.overflow() as u64);
    ledger.note("cq_overflow", seq, None);
    check.spoil();
}

/// Collects the rest of a batch of `want` CQEs when the first wait returned
/// short: waits again (bounded), counting a timeout if the kernel never
/// delivers. `got` is how many of them were consumed so far. Whatever did
/// arrive is always taken (`CycleCheck::finish` counts the rest missing);
/// a wait that failed or expired spoils the check, so that the check
/// alone judges the cycle (cycle.rs).
/// Once SIGINT or SIGTERM is caught it stops waiting (the round driver
/// then ends the run as interrupted, not failed). Cold: a cycle whose CQEs
/// all came with the first wait never calls it.
#[cold]
pub fn wait_rest(
    ring: &mut Ring,
    check: &mut CycleCheck<'_>,
    ledger: &mut Ledger,
    mut got: u32,
    want: u32,
    seq: u32,
) {
    for _ in 0..MAX_EXTRA_WAITS {
        if got == want || signal::caught() != 0 {
            return;
        }
        let waited = ring.submit_and_wait(0, want - got);
        let n = ring.drain(want - got, |c| check.observe(c, ledger));
        check.add_received(n);
        got += n;
        match waited {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(Errno::ETIME) => return timed_out(check, ledger, seq),
            Err(e) => {
                check.spoil();
                let call = enter(Returned::Errno(e));
                return ledger.fail_call(Fail::SubmitError, "enter_error", seq, call);
            }
        }
    }
    if got < want && signal::caught() == 0 {
        timed_out(check, ledger, seq);
    }
}

/// A bounded wait for a batch's CQEs expired: counted, and the cycle is
/// unclean even if the CQEs came just after (its check alone judges it).
fn timed_out(check: &mut CycleCheck<'_>, ledger: &mut Ledger, seq: u32) {
    check.spoil();
    ledger.fail(Fail::Timeout, "timeout", seq, None);
}

/// Adds what the kernel reports of `ring` to the ledger: SQEs it dropped
/// and CQEs lost to overflow since the last look, and anything still in
/// flight. Call it when nothing should be in flight: after a round, or
/// before closing a ring. Any count fails the run.
pub fn account(ring: &mut Ring, ledger: &mut Ledger, seq: u32) {
    let s = ring.state();
    ledger.add(Fail::SqDropped, s.sq_dropped as u64);
    ledger.add(Fail::CqOverflow, s.cq_overflow as u64);
    ledger.add(Fail::Outstanding, s.outstanding as u64);
    if s.sq_dropped + s.cq_overflow + s.outstanding != 0 {
        ledger.note("ring_state", seq, None);
    }
}

/// Counts a migration when getcpu reports another CPU than the pinned
/// one. Err: getcpu itself failed, and whether the run moved is unknown:
/// no migration is counted, and the caller ends the run on it.
pub fn check_cpu(cpu: u32, ledger: &mut Ledger) -> Result<(), Errno> {
    if sys::getcpu()? != cpu {
        ledger.fail(Fail::Migration, "migration", 0, None);
    }
    Ok(())
}
