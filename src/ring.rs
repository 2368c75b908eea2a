//! One io_uring instance: setup, hand-made mappings, SQE slots, bounded
//! enter, CQE drain, and teardown on every path (Drop).
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

use crate::sys::uapi::*;
use crate::sys::{self, Errno, Fd, SysResult};

/// A mapping we own; unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    fn ring(fd: &Fd, len: usize, offset: usize) -> SysResult<Mapping> {
        // SAFETY: a fresh shared mapping of the ring fd at a kernel-defined offset.
        let ptr = unsafe {
            sys::mmap(
                0,
                len,
                PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE,
                fd.raw(),
                offset,
            )?
        };
        Ok(Mapping { ptr, len })
    }

    /// Anonymous private zeroed memory (futex words, buffers).
    pub fn anonymous(len: usize) -> SysResult<Mapping> {
        // SAFETY: a fresh anonymous mapping aliases nothing.
        let ptr = unsafe {
            sys::mmap(
                0,
                len,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                -1,
                0,
            )?
        };
        Ok(Mapping { ptr, len })
    }

    /// A pointer `off` bytes in, cast to `T`.
    fn at<T>(&self, off: u32) -> *mut T {
        debug_assert!(off as usize + core::mem::size_of::<T>() <= self.len);
        // SAFETY: callers pass kernel-provided offsets inside the mapping.
        unsafe { self.ptr.add(off as usize) as *mut T }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the owner is going away, so nothing uses the range any more.
        unsafe { sys::munmap(self.ptr, self.len) };
    }
}

/// Zeroed anonymous memory owned by the caller (public face of `Mapping`).
pub struct Memory(Mapping);

impl Memory {
    pub fn new(len: usize) -> SysResult<Memory> {
        Mapping::anonymous(len).map(Memory)
    }
    pub fn ptr(&self) -> *mut u8 {
        self.0.ptr
    }
    pub fn len(&self) -> usize {
        self.0.len
    }
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }
}

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
}

impl Ring {
    /// io_uring_setup(entries, flags | CQSIZE cq_entries) and the mappings.
    pub fn new(entries: u32, cq_entries: u32, flags: u32) -> Result<Ring, SetupError> {
        let mut p = IoUringParams {
            flags: flags | IORING_SETUP_CQSIZE,
            cq_entries,
            ..Default::default()
        };
        let fd = sys::io_uring_setup(entries, &mut p).map_err(SetupError::Setup)?;
        if p.features & IORING_FEAT_EXT_ARG == 0 {
            // Without EXT_ARG no wait can be bounded: refuse rather than risk a hang.
            return Err(SetupError::Feature("IORING_FEAT_EXT_ARG"));
        }
        let sq_len = p.sq_off.array as usize + p.sq_entries as usize * 4;
        let cq_len = p.cq_off.cqes as usize + p.cq_entries as usize * 16;
        let single = p.features & IORING_FEAT_SINGLE_MMAP != 0;
        let sq_map = Mapping::ring(
            &fd,
            if single { sq_len.max(cq_len) } else { sq_len },
            IORING_OFF_SQ_RING,
        )
        .map_err(SetupError::Mmap)?;
        let cq_map = if single {
            None
        } else {
            Some(Mapping::ring(&fd, cq_len, IORING_OFF_CQ_RING).map_err(SetupError::Mmap)?)
        };
        let sqe_map = Mapping::ring(&fd, p.sq_entries as usize * 64, IORING_OFF_SQES)
            .map_err(SetupError::Mmap)?;
        let cq = cq_map.as_ref().unwrap_or(&sq_map);
        // SAFETY: the offsets come from the kernel and lie inside the mappings.
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
                params: p,
                _sq_map: sq_map,
                _cq_map: cq_map,
                _sqe_map: sqe_map,
                fd,
            }
        };
        // The SQ array maps ring slot -> SQE index; an identity map written
        // once means the hot path never touches it again.
        let array: *mut u32 = ring._sq_map.at(p.sq_off.array);
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
    pub fn params(&self) -> &IoUringParams {
        &self.params
    }
    pub fn features(&self) -> u32 {
        self.params.features
    }

    /// Sets the bound on every waiting enter.
    pub fn set_wait_timeout_ns(&mut self, ns: u64) {
        self.wait_ts = KernelTimespec {
            tv_sec: (ns / 1_000_000_000) as i64,
            tv_nsec: (ns % 1_000_000_000) as i64,
        };
    }

    /// IORING_REGISTER_PROBE into `probe`.
    pub fn probe(&self, probe: &mut IoUringProbe) -> SysResult<()> {
        // SAFETY: probe is a zeroed struct with PROBE_OPS op slots.
        unsafe {
            sys::io_uring_register(
                self.fd(),
                IORING_REGISTER_PROBE,
                probe as *mut IoUringProbe as usize,
                PROBE_OPS as u32,
            )
        }
        .map(|_| ())
    }

    /// Writes `sqe` into the next free slot; false when the SQ is full.
    #[inline(always)]
    pub fn push(&mut self, sqe: &IoUringSqe) -> bool {
        if self.sqe_tail.wrapping_sub(self.sqe_head) >= self.sq_entries {
            // SAFETY: sq_head points into the SQ mapping.
            self.sqe_head = unsafe { (*self.sq_head).load(Ordering::Acquire) };
            if self.sqe_tail.wrapping_sub(self.sqe_head) >= self.sq_entries {
                return false;
            }
        }
        let slot = (self.sqe_tail & self.sq_mask) as usize;
        // SAFETY: slot < sq_entries, and the kernel does not read this slot
        // until the tail below it is published.
        unsafe { self.sqes.add(slot).write(*sqe) };
        self.sqe_tail = self.sqe_tail.wrapping_add(1);
        true
    }

    /// Writes `n` SQEs made by `make(i)` into consecutive slots; false (and
    /// nothing written) when fewer than `n` slots are free. The ring fields
    /// are copied to locals so the loop does not reload them after each
    /// store through the SQE pointer.
    #[inline(always)]
    pub fn push_batch(&mut self, n: u32, mut make: impl FnMut(u32) -> IoUringSqe) -> bool {
        if self.sqe_tail.wrapping_sub(self.sqe_head) > self.sq_entries - n.min(self.sq_entries) {
            // SAFETY: sq_head points into the SQ mapping.
            self.sqe_head = unsafe { (*self.sq_head).load(Ordering::Acquire) };
            if n > self.sq_entries
                || self.sqe_tail.wrapping_sub(self.sqe_head) > self.sq_entries - n
            {
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
    pub fn publish(&mut self) {
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
    /// CQEs, so callers compare `cq_ready()` with what they expected.
    #[inline(always)]
    pub fn submit_and_wait(&mut self, to_submit: u32, min_complete: u32) -> SysResult<usize> {
        self.publish();
        let arg = IoUringGeteventsArg {
            ts: &self.wait_ts as *const KernelTimespec as u64,
            ..Default::default()
        };
        // SAFETY: arg is a valid io_uring_getevents_arg whose ts lives in self.
        unsafe {
            sys::io_uring_enter(
                self.fd(),
                to_submit,
                min_complete,
                IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
                &arg as *const IoUringGeteventsArg as usize,
                core::mem::size_of::<IoUringGeteventsArg>(),
            )
        }
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
    /// copied to locals so `f`'s stores cannot force reloads.
    #[inline(always)]
    pub fn drain(&mut self, max: u32, mut f: impl FnMut(&IoUringCqe)) -> u32 {
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

    /// SQEs the kernel dropped as invalid (sq_off.dropped).
    pub fn sq_dropped(&self) -> u32 {
        // SAFETY: points into the SQ mapping.
        unsafe { (*self.sq_dropped).load(Ordering::Acquire) }
    }
    /// CQEs lost to overflow (cq_off.overflow).
    pub fn cq_overflow(&self) -> u32 {
        // SAFETY: points into the CQ mapping.
        unsafe { (*self.cq_overflow).load(Ordering::Acquire) }
    }
    /// SQ ring flags (IORING_SQ_CQ_OVERFLOW et al.).
    pub fn sq_flags(&self) -> u32 {
        // SAFETY: points into the SQ mapping.
        unsafe { (*self.sq_flags).load(Ordering::Acquire) }
    }
    /// SQEs pushed that the kernel has not consumed (published or not).
    pub fn sq_outstanding(&self) -> u32 {
        // SAFETY: points into the SQ mapping.
        let head = unsafe { (*self.sq_head).load(Ordering::Acquire) };
        self.sqe_tail.wrapping_sub(head)
    }
    pub fn sq_entries(&self) -> u32 {
        self.sq_entries
    }
    pub fn cq_entries(&self) -> u32 {
        self.params.cq_entries
    }
}

/// Whether the probe marks `op` as supported.
pub fn probe_supports(probe: &IoUringProbe, op: u8) -> bool {
    (op as usize) < probe.ops_len as usize
        && (op as usize) < PROBE_OPS
        && probe.ops[op as usize].flags & IO_URING_OP_SUPPORTED != 0
}

/// An all-zero probe buffer.
pub fn empty_probe() -> IoUringProbe {
    IoUringProbe {
        last_op: 0,
        ops_len: 0,
        resv: 0,
        resv2: [0; 3],
        ops: [IoUringProbeOp::default(); PROBE_OPS],
    }
}
