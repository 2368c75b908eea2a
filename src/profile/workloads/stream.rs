//! r0's and u0's cycle: a record per request through byte streams (pipes,
//! AF_UNIX socketpairs), one stream per request. `slots` requests each
//! send a 16-byte record, unique to its cycle and index, into the sending
//! end of stream `i`, one io_uring_enter; then `slots` requests each
//! receive 16 bytes from the other end of stream `i`, one io_uring_enter
//! that submits them and waits for all 2*slots CQEs, every one of which
//! must have res 16 and flags 0. The records are written before the timed
//! span; after it every receiving buffer must hold the record of its
//! index, byte for byte (a record of another cycle or index, or one cut
//! short, is a bad result of the request that got it).
//!
//! A stream per request, not one for all: each receive then empties its
//! stream, as the next cycle needs, and none reports more data behind it
//! (a RECV that leaves bytes queued sets IORING_CQE_F_SOCK_NONEMPTY on
//! kernels that know it, a flag the cycle would have to expect of some
//! kernels and not of others).
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked.

use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::setup::{self, CyclePlan, Step};
use core::marker::PhantomData;

use crate::check::{tag, Fail, Kind, Ledger, MAX_PER_KIND};
use crate::exit::Exit;
use crate::profile::vocabulary::{SetUp, Shape, Timed, Workload};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::memory::Mapping;
use crate::sys::uapi::{IoUringCqe, IoUringSqe};
use crate::sys::{Fd, SysResult};

/// Bytes per record: the cycle (u32, little-endian), the index (u32), and
/// MARK.
pub const RECORD_BYTES: u32 = 16;
const MARK: &[u8; 8] = b"io_uring";

/// A cycle's records: MAX_PER_KIND to send, then MAX_PER_KIND received.
pub struct Records {
    map: Mapping,
}

/// Record `i` of cycle `seq`.
fn record(seq: u32, i: u32) -> [u8; RECORD_BYTES as usize] {
    let mut r = [0u8; RECORD_BYTES as usize];
    r[..4].copy_from_slice(&seq.to_le_bytes());
    r[4..8].copy_from_slice(&i.to_le_bytes());
    r[8..].copy_from_slice(MARK);
    r
}

impl Records {
    /// The buffers, mapped.
    pub fn new() -> Result<Records, Exit> {
        let len = 2 * MAX_PER_KIND as usize * RECORD_BYTES as usize;
        match Mapping::anonymous(len) {
            Ok(map) => Ok(Records { map }),
            Err(e) => Err(setup::step_failed(Step::run("mapping the buffers"), e)),
        }
    }

    /// Buffer `i` of the sent half (`received`: false) or the received
    /// half. Panics unless i < MAX_PER_KIND: no batch has more requests.
    fn at(&self, received: bool, i: u32) -> *mut u8 {
        assert!(i < MAX_PER_KIND);
        let k = received as u32 * MAX_PER_KIND + i;
        // SAFETY: k < 2 * MAX_PER_KIND records: inside the mapping.
        unsafe { self.map.ptr().add((k * RECORD_BYTES) as usize) }
    }

    fn slice(&self, received: bool, i: u32) -> &[u8] {
        // SAFETY: `at` is RECORD_BYTES inside the mapping, which lives as
        // long as `self`; the kernel writes it only during a cycle's enter.
        unsafe { core::slice::from_raw_parts(self.at(received, i), RECORD_BYTES as usize) }
    }

    /// Where request `i` sends its record from.
    pub fn sent(&self, i: u32) -> *const u8 {
        self.at(false, i)
    }

    /// Where request `i` receives into.
    pub fn received(&self, i: u32) -> *mut u8 {
        self.at(true, i)
    }

    /// Writes the first `n` records of cycle `seq` to send.
    pub fn fill(&self, seq: u32, n: u32) {
        for i in 0..n {
            let r = record(seq, i);
            // SAFETY: RECORD_BYTES at `sent(i)`, ours (see `slice`).
            unsafe { core::ptr::copy_nonoverlapping(r.as_ptr(), self.at(false, i), r.len()) };
        }
    }

    /// Whether each of the first `n` received buffers holds the record sent
    /// as its index; each that does not is a bad result of request `i` of
    /// `kind` (its CQE, res RECORD_BYTES, already checked: named as it was).
    pub fn check(&self, seq: u32, n: u32, kind: Kind, ledger: &mut Ledger) -> bool {
        let mut ok = true;
        for i in 0..n {
            if self.slice(true, i) == self.slice(false, i) {
                continue;
            }
            ok = false;
            let cqe = IoUringCqe {
                user_data: tag(seq, kind, i),
                res: RECORD_BYTES as i32,
                flags: 0,
            };
            ledger.fail(Fail::BadResult, "bad_data", seq, Some(&cqe));
        }
        ok
    }
}

/// What a stream workload is made of: how a stream is opened, the kinds
/// of its requests and how each is made (ops.rs: write and read, send and
/// recv). Each workload is a type of its own, so that its encoders are
/// called directly in its timed cycle.
pub trait Requests: 'static {
    /// A stream: its sending end first.
    fn open() -> SysResult<(Fd, Fd)>;
    /// The system call `open` makes, as a failed set-up names it.
    const OPEN_CALL: &'static str;
    /// The kinds that send and that receive.
    const KINDS: [Kind; 2];
    /// A request that sends `len` bytes of `buf` on `fd`, and one that
    /// receives up to `len` bytes from `fd` into `buf`.
    fn send(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe;
    fn recv(fd: i32, buf: *mut u8, len: u32, user_data: u64) -> IoUringSqe;

    /// `slots` sends and `slots` receives, each of a whole record.
    fn shape(slots: u32) -> Shape {
        let len = RECORD_BYTES as i32;
        Shape::new(slots)
            .with(Self::KINDS[0], slots, len)
            .with(Self::KINDS[1], slots, len)
    }
}

/// A stream workload: its cycle's plan, its buffers, and its streams
/// (`slots` of them), each its sending end and its receiving end.
pub struct Stream<R: Requests> {
    p: CyclePlan,
    records: Records,
    ends: [Option<(Fd, Fd)>; MAX_PER_KIND as usize],
    requests: PhantomData<R>,
}

impl<R: Requests> Stream<R> {
    /// The streams of a run set up as `s`.
    pub fn new(s: &SetUp) -> Result<Stream<R>, Exit> {
        Stream::with(CyclePlan::of(s))
    }

    /// `p.slots` streams, for cycles of `p`.
    fn with(p: CyclePlan) -> Result<Stream<R>, Exit> {
        let mut ends = [const { None }; MAX_PER_KIND as usize];
        for e in ends.iter_mut().take(p.slots as usize) {
            *e = Some(R::open().map_err(|e| setup::step_failed(Step::run(R::OPEN_CALL), e))?);
        }
        Ok(Stream {
            p,
            records: Records::new()?,
            ends,
            requests: PhantomData,
        })
    }

    /// Stream `i`'s sending and receiving ends (-1, EBADF in a CQE, past
    /// the `slots` opened). Panics unless i < MAX_PER_KIND.
    #[inline(always)]
    fn ends(&self, i: u32) -> (i32, i32) {
        self.ends[i as usize]
            .as_ref()
            .map_or((-1, -1), |(tx, rx)| (tx.raw(), rx.raw()))
    }
}

impl<R: Requests> Workload for Stream<R> {
    /// Cycle `seq` (see the module docs), a symbol of its own per
    /// workload (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let (p, r) = (&self.p, &self.records);
        let (n, [sends, recvs]) = (p.slots, R::KINDS);
        r.fill(seq, n);
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.two_batches(
            ring,
            ledger,
            Batch::new(sends, n, |i| {
                R::send(self.ends(i).0, r.sent(i), RECORD_BYTES, tag(seq, sends, i))
            }),
            Batch::new(recvs, n, |i| {
                R::recv(
                    self.ends(i).1,
                    r.received(i),
                    RECORD_BYTES,
                    tag(seq, recvs, i),
                )
            }),
        );
        let ns = c.stop(clock, p.inject_ns);
        // Untimed: the bytes.
        c.verify(|| r.check(seq, n, recvs, ledger));
        (ns, c.finish(ledger))
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::profile::tests::live::live_plan;
    use crate::profile::vocabulary::Profile;
    use crate::sys;

    /// The streams of profile `p`, `slots` of them, on a live ring; None
    /// after a loud SKIP.
    fn live<R: Requests>(p: &Profile, slots: u32) -> Option<(Ring, Stream<R>)> {
        let (ring, plan) = live_plan(p, slots)?;
        let Ok(st) = Stream::with(plan) else {
            panic!("{}: the streams or their buffers failed", p.names.short)
        };
        Some((ring, st))
    }

    /// Runs two clean cycles of stream workload `p`, then one after a byte
    /// was left in stream 5: its check must blame receive 5.
    pub fn a_byte_left_in<R: Requests>(p: &Profile) {
        let short = p.names.short;
        let Some((mut ring, mut st)) = live::<R>(p, 8) else {
            return;
        };
        let [sends, recvs] = R::KINDS;
        let clock = Clock::syscall();
        let mut l = Ledger::default();
        for seq in 0..2 {
            assert!(st.cycle(&mut ring, &clock, &mut l, seq).1, "{short} {l:?}");
        }
        assert_eq!((l.kind(sends), l.kind(recvs)), (16, 16), "{short}");
        let tx = st.ends(5).0;
        assert_eq!(sys::write(tx, b"x"), Ok(1), "{short}");
        let (_, ok) = st.cycle(&mut ring, &clock, &mut l, 2);
        assert!(!ok, "{short}");
        let f = l.first.unwrap();
        assert!(matches!(f.what, "bad_data" | "bad_flags"), "{short} {f:?}");
        assert_eq!(f.cqe.unwrap().user_data, tag(2, recvs, 5), "{short}");
        assert_eq!(l.failures(), 1, "{short}: {l:?}");
    }

    /// A received record equal to the one sent passes; one of another
    /// cycle, another index, or one byte off, is a bad result naming the
    /// request that received it.
    #[test]
    fn a_record_must_come_back_byte_for_byte() {
        let Ok(r) = Records::new() else {
            panic!("mapping the buffers failed")
        };
        r.fill(7, 3);
        let copy = |from: [u8; 16], i: u32| {
            // SAFETY: a test writing one received record.
            unsafe { core::ptr::copy_nonoverlapping(from.as_ptr(), r.received(i), 16) };
        };
        for i in 0..3 {
            copy(record(7, i), i);
        }
        let mut l = Ledger::default();
        assert!(r.check(7, 3, Kind::Read, &mut l) && l.passed());
        let mut off = record(7, 2);
        off[15] ^= 1;
        for (bad, why) in [
            (record(6, 1), "another cycle"),
            (record(7, 2), "another index"),
        ] {
            copy(bad, 1);
            let mut l = Ledger::default();
            assert!(!r.check(7, 3, Kind::Recv, &mut l), "{why}");
            assert_eq!(l.count(Fail::BadResult), 1, "{why}");
            let f = l.first.unwrap();
            assert_eq!(
                (f.what, f.cqe.unwrap().user_data),
                ("bad_data", tag(7, Kind::Recv, 1))
            );
        }
        copy(record(7, 1), 1);
        copy(off, 2);
        let mut l = Ledger::default();
        assert!(!r.check(7, 3, Kind::Read, &mut l));
        assert_eq!(
            l.first.unwrap().cqe.unwrap().user_data,
            tag(7, Kind::Read, 2)
        );
    }
}
