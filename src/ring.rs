//! One io_uring instance: setup, hand-made mappings, SQE slots, every
//! io_uring_enter the tool makes (each wait bounded), CQE drain, the
//! kernel's counters of dropped and lost entries, and teardown on every path
//! (Drop).
//!
//! Ordering (the kernel's io_uring.h contract): the SQ tail is published with
//! a release store after the SQEs are written; the SQ head the kernel moves is
//! read with acquire; the CQ tail is read with acquire before the CQEs; the CQ
//! head is published with release after they were read.
//!
//! # Safety
//! The raw pointers below all point into the three mappings owned by the same
//! `Ring`, at the offsets the kernel returned in io_uring_params; they live
//! exactly as long as the `Ring`.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::sys::memory::Mapping;
use crate::sys::uapi::*;
use crate::sys::{self, Errno, Fd, SysResult};

/// Which step of bringing a ring up failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// io_uring_setup itself: EPERM/ENOSYS mean io_uring is unavailable.
    Setup(Errno),
    /// Mapping the rings or the SQE array.
    Mmap(Errno),
    /// The kernel lacks a feature we rely on (named).
    Feature(&'static str),
}

/// The ring, its mappings and our local copies of the indices.
pub struct Ring {
    // Field order is drop order: unmap first, then close the fd.
    _sq_map: Mapping,
    _cq_map: Option<Mapping>,
    _sqe_map: Mapping,
    fd: Fd,
    params: IoUringParams,
    sq_head: *const AtomicU32,
    sq_tail: *const AtomicU32,
    sq_flags: *const AtomicU32,
    sq_dropped: *const AtomicU32,
    sq_mask: u32,
    sq_entries: u32,
    sqes: *mut IoUringSqe,
    cq_head: *const AtomicU32,
    cq_tail: *const AtomicU32,
    cq_overflow: *const AtomicU32,
    cq_mask: u32,
    cqes: *const IoUringCqe,
    /// Our SQ tail: SQEs written but not yet published.
    sqe_tail: u32,
    /// The SQ head as last read; refreshed only when the SQ looks full.
    sqe_head: u32,
    /// The timeout every waiting enter uses (EXT_ARG points at it).
    wait_ts: KernelTimespec,
    /// sq_dropped and cq_overflow as `state` last read them.
    seen: [u32; 2],
    /// IORING_SQ_CQ_OVERFLOW was set at the last look (counted once).
    overflow_flag_seen: bool,
}

/// What the kernel reports of a ring (`Ring::state`): every count but
/// `outstanding` is new since the last call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingState {
    /// SQEs the kernel dropped as invalid.
    pub sq_dropped: u32,
    /// CQEs lost to a full CQ, plus one each time the CQ_OVERFLOW flag
    /// (CQEs parked on the kernel's overflow list) is newly seen set.
    pub cq_overflow: u32,
    /// SQEs pushed and not consumed, and CQEs posted and not reaped.
    pub outstanding: u32,
}

impl Ring {
    /// io_uring_setup(entries, flags | CQSIZE cq_entries) and the mappings.
    pub fn new(entries: u32, cq_entries: u32, flags: u32) -> Result<Ring, SetupError> {
        let p = IoUringParams {
            flags,
            cq_entries,
            ..Default::default()
        };
        Ring::with_params(entries, p)
    }

    /// `new` with what else io_uring_setup is to be told in `p` (its flags,
    /// cq_entries, and with IORING_SETUP_SQPOLL the SQ thread's CPU and
    /// idle time); CQSIZE is added.
    pub fn with_params(entries: u32, mut p: IoUringParams) -> Result<Ring, SetupError> {
        p.flags |= IORING_SETUP_CQSIZE;
        let fd = sys::io_uring_setup(entries, &mut p).map_err(SetupError::Setup)?;
        if p.features & IORING_FEAT_EXT_ARG == 0 {
            // Without EXT_ARG no wait can be bounded: refuse rather than risk a hang.
            return Err(SetupError::Feature("IORING_FEAT_EXT_ARG"));
        }
        let sq_len = p.sq_off.array as usize + p.sq_entries as usize * 4;
        let cq_len = p.cq_off.cqes as usize + p.cq_entries as usize * 16;
        let single = p.features & IORING_FEAT_SINGLE_MMAP != 0;
        let sq_map = Mapping::shared(
            &fd,
            if single { sq_len.max(cq_len) } else { sq_len },
            IORING_OFF_SQ_RING,
        )
        .map_err(SetupError::Mmap)?;
        let cq_map = if single {
            None
        } else {
            Some(Mapping::shared(&fd, cq_len, IORING_OFF_CQ_RING).map_err(SetupError::Mmap)?)
        };
        let sqe_map = Mapping::shared(&fd, p.sq_entries as usize * 64, IORING_OFF_SQES)
            .map_err(SetupError::Mmap)?;
        let cq = cq_map.as_ref().unwrap_or(&sq_map);
        // SAFETY: the offsets come from the kernel and lie inside the
        // mappings, which were sized from them above.
        let ring = unsafe {
            Ring {
                sq_head: sq_map.at(p.sq_off.head),
                sq_tail: sq_map.at(p.sq_off.tail),
                sq_flags: sq_map.at(p.sq_off.flags),
                sq_dropped: sq_map.at(p.sq_off.dropped),
                sq_mask: *sq_map.at::<u32>(p.sq_off.ring_mask),
                sq_entries: *sq_map.at::<u32>(p.sq_off.ring_entries),
                sqes: sqe_map.at(0),
                cq_head: cq.at(p.cq_off.head),
                cq_tail: cq.at(p.cq_off.tail),
                cq_overflow: cq.at(p.cq_off.overflow),
                cq_mask: *cq.at::<u32>(p.cq_off.ring_mask),
                cqes: cq.at(p.cq_off.cqes),
                sqe_tail: 0,
                sqe_head: 0,
                wait_ts: KernelTimespec::default(),
                seen: [0; 2],
                overflow_flag_seen: false,
                params: p,
                _sq_map: sq_map,
                _cq_map: cq_map,
                _sqe_map: sqe_map,
                fd,
            }
        };
        // The SQ array maps ring slot -> SQE index; an identity map written
        // once means the hot path never touches it again.
        // SAFETY: the SQ mapping was sized to end with this array.
        let array: *mut u32 = unsafe { ring._sq_map.at(p.sq_off.array) };
        for i in 0..ring.sq_entries {
            // SAFETY: array has sq_entries u32 slots inside the SQ mapping.
            unsafe { array.add(i as usize).write_volatile(i) };
        }
        let mut ring = ring;
        // SAFETY: the kernel initialised the indices; we start where they are.
        unsafe {
            ring.sqe_tail = (*ring.sq_tail).load(Ordering::Relaxed);
            ring.sqe_head = (*ring.sq_head).load(Ordering::Acquire);
        }
        Ok(ring)
    }

    pub fn fd(&self) -> i32 {
        self.fd.raw()
    }
    /// io_uring_params.features.
    pub fn features(&self) -> u32 {
        self.params.features
    }
    pub fn sq_entries(&self) -> u32 {
        self.sq_entries
    }
    pub fn cq_entries(&self) -> u32 {
        self.params.cq_entries
    }

    /// Sets the bound on every waiting enter.
    pub fn set_wait_timeout_ns(&mut self, ns: u64) {
        self.wait_ts = KernelTimespec::from_ns(ns);
    }

    /// IORING_REGISTER_PROBE: which opcodes this kernel knows.
    pub fn probe(&self) -> SysResult<Probe> {
        let mut probe = Probe(IoUringProbe {
            last_op: 0,
            ops_len: 0,
            resv: 0,
            resv2: [0; 3],
            ops: [IoUringProbeOp::default(); PROBE_OPS],
        });
        // SAFETY: a zeroed struct io_uring_probe with PROBE_OPS op slots.
        unsafe {
            sys::io_uring_register(
                self.fd(),
                IORING_REGISTER_PROBE,
                &mut probe.0 as *mut IoUringProbe as usize,
                PROBE_OPS as u32,
            )
        }?;
        Ok(probe)
    }

    /// IORING_REGISTER_EVENTFD: the kernel signals `efd` at every commit of
    /// CQEs to this ring.
    pub fn register_eventfd(&self, efd: i32) -> SysResult<()> {
        // SAFETY: the argument is one i32, the eventfd.
        unsafe {
            sys::io_uring_register(
                self.fd(),
                IORING_REGISTER_EVENTFD,
                &efd as *const i32 as usize,
                1,
            )
        }
        .map(|_| ())
    }

    /// IORING_REGISTER_IOWQ_AFF: the ring's io-wq workers run on the CPUs
    /// of `set` alone.
    pub fn register_iowq_affinity(&self, set: &sys::CpuSet) -> SysResult<()> {
        // SAFETY: the argument is a cpu_set_t of `set.len()` readable bytes.
        unsafe {
            sys::io_uring_register(
                self.fd(),
                IORING_REGISTER_IOWQ_AFF,
                set.as_ptr() as usize,
                set.len() as u32,
            )
        }
        .map(|_| ())
    }

    /// IORING_REGISTER_IOWQ_MAX_WORKERS: at most `[bounded, unbounded]`
    /// workers, for bounded work (a NOP's, a regular file's) and unbounded
    /// work (a pipe's); 0 leaves a limit as it is.
    pub fn register_iowq_max_workers(&self, limits: [u32; 2]) -> SysResult<()> {
        // The kernel writes the old limits back into the array.
        let mut limits = limits;
        // SAFETY: the argument is two writable u32s, nr_args 2.
        unsafe {
            sys::io_uring_register(
                self.fd(),
                IORING_REGISTER_IOWQ_MAX_WORKERS,
                limits.as_mut_ptr() as usize,
                2,
            )
        }
        .map(|_| ())
    }

    /// Writes `n` SQEs made by `make(i)` into consecutive slots; false (and
    /// nothing written) when fewer than `n` slots are free: a batch is
    /// queued whole or not at all, and the caller must say which happened
    /// (`collect::pushed` counts a refusal). The ring fields are copied to
    /// locals so the loop does not reload them after each store through
    /// the SQE pointer.
    #[must_use = "a batch that did not fit was not queued"]
    #[inline(always)]
    pub fn push_batch(&mut self, n: u32, mut make: impl FnMut(u32) -> IoUringSqe) -> bool {
        // First: a batch larger than the SQ would wrap onto its own slots.
        if n > self.sq_entries {
            return false;
        }
        if self.sqe_tail.wrapping_sub(self.sqe_head) > self.sq_entries - n {
            // SAFETY: sq_head points into the SQ mapping.
            self.sqe_head = unsafe { (*self.sq_head).load(Ordering::Acquire) };
            if self.sqe_tail.wrapping_sub(self.sqe_head) > self.sq_entries - n {
                return false;
            }
        }
        let (sqes, mask, tail) = (self.sqes, self.sq_mask, self.sqe_tail);
        let first = (tail & mask) as usize;
        if first + n as usize <= self.sq_entries as usize {
            // Common case, no wrap: consecutive slots from `first`.
            // SAFETY: first + n <= sq_entries; the kernel does not read these
            // slots until the tail covering them is published.
            let mut p = unsafe { sqes.add(first) };
            for i in 0..n {
                // SAFETY: as above, p stays below sqes + sq_entries.
                unsafe {
                    p.write(make(i));
                    p = p.add(1);
                }
            }
        } else {
            for i in 0..n {
                let slot = (tail.wrapping_add(i) & mask) as usize;
                // SAFETY: slot <= mask < sq_entries; unpublished as above.
                unsafe { sqes.add(slot).write(make(i)) };
            }
        }
        self.sqe_tail = tail.wrapping_add(n);
        true
    }

    /// Publishes every pushed SQE to the kernel (release store of the tail).
    #[inline(always)]
    fn publish(&mut self) {
        // SAFETY: sq_tail points into the SQ mapping.
        unsafe { (*self.sq_tail).store(self.sqe_tail, Ordering::Release) };
    }

    /// Publishes and submits `to_submit` SQEs without waiting.
    #[inline(always)]
    pub fn submit(&mut self, to_submit: u32) -> SysResult<usize> {
        self.publish();
        // SAFETY: no EXT_ARG; the SQEs up to the tail are initialised.
        unsafe { sys::io_uring_enter(self.fd(), to_submit, 0, 0, 0, 0) }
    }

    /// Publishes, submits `to_submit` and waits for `min_complete` CQEs, the
    /// wait bounded by the ring's timeout. Returns the number submitted; when
    /// it also submitted, the kernel reports a timeout only through fewer
    /// CQEs, so callers compare what they drained with what they expected.
    #[inline(always)]
    pub fn submit_and_wait(&mut self, to_submit: u32, min_complete: u32) -> SysResult<usize> {
        self.publish();
        // SAFETY: the SQEs up to the tail are initialised.
        unsafe { self.enter_bounded(to_submit, min_complete, 0, &self.wait_ts) }
    }

    /// IORING_SQ_NEED_WAKEUP is set: the SQ thread of an SQPOLL ring went
    /// to sleep, and only io_uring_enter with IORING_ENTER_SQ_WAKEUP wakes
    /// it. Read after a full fence, so that a tail published before it and
    /// this load are ordered against the SQ thread's store of the flag and
    /// its last look at the tail (its smp_mb__after_atomic; liburing's
    /// io_uring_smp_mb in sq_ring_needs_enter): either it sees the new tail
    /// and stays awake, or this sees the flag.
    #[inline(always)]
    pub fn sq_thread_sleeps(&self) -> bool {
        core::sync::atomic::fence(Ordering::SeqCst);
        // SAFETY: sq_flags points into the SQ mapping.
        unsafe { (*self.sq_flags).load(Ordering::Relaxed) & IORING_SQ_NEED_WAKEUP != 0 }
    }

    /// On an SQPOLL ring: publishes every pushed SQE for the SQ thread,
    /// which takes them without a system call, and waits (bounded) for
    /// `min_complete` CQEs with one io_uring_enter that submits nothing, and
    /// wakes the SQ thread first when it sleeps. Ok(true): it had to.
    #[inline(always)]
    pub fn publish_and_wait(&mut self, min_complete: u32) -> SysResult<bool> {
        self.publish();
        let wake = self.sq_thread_sleeps();
        let flags = if wake { IORING_ENTER_SQ_WAKEUP } else { 0 };
        // SAFETY: the SQEs up to the tail are initialised.
        unsafe { self.enter_bounded(0, min_complete, flags, &self.wait_ts) }.map(|_| wake)
    }

    /// io_uring_enter(GETEVENTS, min_complete) with a zero timeout: runs the
    /// task work a DEFER_TASKRUN ring keeps for its owner, which posts the
    /// CQEs it holds. Never sleeps (and never submits), so the owner may call
    /// it while another thread reaps the CQ.
    pub fn run_task_work(&self, min_complete: u32) -> SysResult<()> {
        // SAFETY: nothing is submitted.
        match unsafe { self.enter_bounded(0, min_complete, 0, &KernelTimespec::from_ns(0)) } {
            Ok(_) | Err(Errno::ETIME) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// io_uring_enter with GETEVENTS, the enter flags `extra`, and an
    /// EXT_ARG timeout of `ts`.
    ///
    /// # Safety
    /// The SQEs up to the published tail are initialised.
    #[inline(always)]
    unsafe fn enter_bounded(
        &self,
        to_submit: u32,
        min_complete: u32,
        extra: u32,
        ts: &KernelTimespec,
    ) -> SysResult<usize> {
        let arg = IoUringGeteventsArg {
            ts: ts as *const KernelTimespec as u64,
            ..Default::default()
        };
        // SAFETY: arg is a valid io_uring_getevents_arg whose ts outlives the
        // call; the caller vouches for the SQEs.
        unsafe {
            sys::io_uring_enter(
                self.fd(),
                to_submit,
                min_complete,
                IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | extra,
                &arg as *const IoUringGeteventsArg as usize,
                core::mem::size_of::<IoUringGeteventsArg>(),
            )
        }
    }

    /// SQEs published (or pushed) that the kernel has not consumed yet: an
    /// SQPOLL ring's SQ thread moves the SQ head after it has posted the
    /// CQEs of what it submitted (io_submit_sqes: the completions flushed,
    /// then io_commit_sqring), so this may lag the CQEs.
    pub fn sq_unconsumed(&self) -> u32 {
        // SAFETY: sq_head points into the SQ mapping.
        let head = unsafe { (*self.sq_head).load(Ordering::Acquire) };
        self.sqe_tail.wrapping_sub(head)
    }

    /// CQEs the kernel has posted that we have not consumed.
    #[inline(always)]
    pub fn cq_ready(&self) -> u32 {
        // SAFETY: both indices point into the CQ mapping.
        unsafe {
            let tail = (*self.cq_tail).load(Ordering::Acquire);
            tail.wrapping_sub((*self.cq_head).load(Ordering::Relaxed))
        }
    }

    /// Hands up to `max` ready CQEs to `f` in order, then releases their
    /// slots to the kernel. Returns how many were consumed. Ring fields are
    /// copied to locals so `f`'s stores cannot force reloads. Only one
    /// thread may reap a ring's CQ at a time.
    #[inline(always)]
    pub fn drain(&self, max: u32, mut f: impl FnMut(&IoUringCqe)) -> u32 {
        let (cqes, mask, head_ptr) = (self.cqes, self.cq_mask, self.cq_head);
        // SAFETY: indices point into the CQ mapping; entries between head and
        // the acquired tail were fully written by the kernel.
        unsafe {
            let head = (*head_ptr).load(Ordering::Relaxed);
            let tail = (*self.cq_tail).load(Ordering::Acquire);
            let n = tail.wrapping_sub(head).min(max);
            for i in 0..n {
                f(&*cqes.add((head.wrapping_add(i) & mask) as usize));
            }
            (*head_ptr).store(head.wrapping_add(n), Ordering::Release);
            n
        }
    }

    /// What the kernel reports of this ring: dropped SQEs and overflowed
    /// CQEs since the last call, and what is in flight now. Call it when
    /// nothing should be in flight (a round boundary, before closing).
    pub fn state(&mut self) -> RingState {
        // SAFETY: the counters and the SQ head point into the mappings.
        let (dropped, sq_head) = unsafe {
            (
                (*self.sq_dropped).load(Ordering::Acquire),
                (*self.sq_head).load(Ordering::Acquire),
            )
        };
        let state = RingState {
            sq_dropped: dropped.wrapping_sub(self.seen[0]),
            cq_overflow: self.overflow(),
            outstanding: self.sqe_tail.wrapping_sub(sq_head) + self.cq_ready(),
        };
        self.seen[0] = dropped;
        state
    }

    /// True while the kernel holds CQEs on its overflow list (the CQ was
    /// full). One load, so a cycle can look after every drain: the kernel
    /// flushes that list at the next enter, and by the end of the round
    /// the flag would be clear again.
    #[inline(always)]
    pub fn overflow_pending(&self) -> bool {
        // SAFETY: sq_flags points into the SQ mapping.
        unsafe { (*self.sq_flags).load(Ordering::Acquire) & IORING_SQ_CQ_OVERFLOW != 0 }
    }

    /// CQ overflows since the last look: CQEs the kernel dropped, plus one
    /// when the overflow flag is newly set.
    pub fn overflow(&mut self) -> u32 {
        // SAFETY: cq_overflow points into the CQ mapping.
        let dropped = unsafe { (*self.cq_overflow).load(Ordering::Acquire) };
        let flag = self.overflow_pending();
        let n = dropped.wrapping_sub(self.seen[1]) + (flag && !self.overflow_flag_seen) as u32;
        self.seen[1] = dropped;
        self.overflow_flag_seen = flag;
        n
    }
}

/// What IORING_REGISTER_PROBE reported.
pub struct Probe(IoUringProbe);

impl Probe {
    /// Whether the kernel marks `op` as supported.
    pub fn supports(&self, op: u8) -> bool {
        let p = &self.0;
        (op as usize) < p.ops_len as usize
            && (op as usize) < PROBE_OPS
            && p.ops[op as usize].flags & IO_URING_OP_SUPPORTED != 0
    }

    /// The highest opcode this kernel knows.
    pub fn last_op(&self) -> u8 {
        self.0.last_op
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CQ_ENTRIES, RING_ENTRIES};
    use crate::ops;
    use crate::testing::skip;

    fn ring() -> Option<Ring> {
        match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
            Ok(r) => Some(r),
            Err(e) => {
                skip(&format!("io_uring unavailable here: {e:?}"));
                None
            }
        }
    }

    /// What is queued but not yet submitted, by user_data, in SQ order.
    fn queued(r: &Ring) -> Vec<u64> {
        (r.sqe_head..r.sqe_tail)
            // SAFETY: every index is masked into the SQE array.
            .map(|i| unsafe { (*r.sqes.add((i & r.sq_mask) as usize)).user_data })
            .collect()
    }

    #[test]
    fn a_batch_larger_than_the_sq_is_refused_and_writes_nothing() {
        let Some(mut r) = ring() else { return };
        assert!(r.push_batch(1, |_| ops::nop(7)));
        let n = r.sq_entries + 1;
        let mut made = 0;
        assert!(!r.push_batch(n, |i| {
            made += 1;
            ops::nop(100 + i as u64)
        }));
        assert_eq!(made, 0);
        assert_eq!(queued(&r), [7]);
        // Even on an empty ring (the fast path once skipped the check).
        let Some(mut r) = ring() else { return };
        assert!(!r.push_batch(n, |i| ops::nop(i as u64)));
        assert!(queued(&r).is_empty());
    }

    #[test]
    fn a_full_sq_refuses_until_the_kernel_consumes() {
        let Some(mut r) = ring() else { return };
        let n = r.sq_entries;
        assert!(r.push_batch(n, |i| ops::nop(i as u64)));
        assert!(!r.push_batch(1, |_| ops::nop(99)), "the SQ is full");
        assert_eq!(r.submit(n), Ok(n as usize));
        assert!(
            r.push_batch(1, |_| ops::nop(99)),
            "the kernel consumed the SQ"
        );
        assert_eq!(queued(&r).last(), Some(&99));
    }
}
