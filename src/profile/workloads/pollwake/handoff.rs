//! The page the producer and the waiter thread share: the waiter's state
//! (`Shared`) and its target ring, in one mapping of their own so neither
//! moves while the thread runs. The ring is dropped only once the thread is
//! known gone; a thread that cannot be joined keeps both (leaked: the
//! process's exit ends them).

use core::cell::UnsafeCell;
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicU32, Ordering};

use super::waiter::{self, Shared, Watchdog, FAILED, STARTING};
use crate::ring::Ring;
use crate::sys::futex::ETIMEDOUT;
use crate::sys::memory::Mapping;
use crate::sys::thread::Thread;
use crate::sys::uapi::IoUringCqe;
use crate::sys::SysResult;

/// The waiter's ring lives right after `Shared` in the same mapping.
#[repr(C)]
struct Page {
    sh: Shared,
    ring: UnsafeCell<ManuallyDrop<Ring>>,
}

pub struct Handoff {
    mem: ManuallyDrop<Mapping>,
    thread: Option<Thread>,
    /// The waiter ring's fd: MSG_RING's target.
    pub ring_fd: i32,
}

/// What the waiter is told before it starts.
pub struct Brief {
    pub epfd: i32,
    pub token: u64,
    pub burst: u32,
    pub cpu: u32,
    pub dog: Watchdog,
}

impl Handoff {
    /// A fresh page holding `ring` and the waiter's state (not started).
    pub fn new(ring: Ring, b: Brief) -> SysResult<Handoff> {
        let mem = Mapping::anonymous(core::mem::size_of::<Page>())?;
        let ring_fd = ring.fd();
        let page = mem.ptr() as *mut Page;
        let zero = || AtomicU32::new(0);
        // SAFETY: a fresh zeroed mapping large enough for a Page, page-aligned.
        unsafe {
            page.write(Page {
                sh: Shared {
                    ring: core::ptr::null(),
                    epfd: b.epfd,
                    token: b.token,
                    burst: b.burst,
                    cpu: b.cpu,
                    dog: b.dog,
                    stop: zero(),
                    state: AtomicU32::new(STARTING),
                    error: zero(),
                    seen: zero(),
                    burst_wakes: zero(),
                    wakes: zero(),
                    empty_wakes: zero(),
                    lost: zero(),
                    late: zero(),
                    bad_events: zero(),
                    migrated: zero(),
                    getcpu_error: zero(),
                    cqes: UnsafeCell::new([IoUringCqe::default(); waiter::MAX_BURST]),
                },
                ring: UnsafeCell::new(ManuallyDrop::new(ring)),
            });
            (*page).sh.ring = &**(*page).ring.get() as *const Ring;
        }
        Ok(Handoff {
            mem: ManuallyDrop::new(mem),
            thread: None,
            ring_fd,
        })
    }

    pub fn sh(&self) -> &Shared {
        // SAFETY: the page holds an initialised Page for our whole life.
        unsafe { &(*(self.mem.ptr() as *const Page)).sh }
    }

    /// The waiter's ring, shared with the waiter while it runs: only what
    /// a second thread may do beside the reaper (`Ring::run_task_work`).
    pub fn ring(&self) -> &Ring {
        // SAFETY: the ring is initialised for our whole life; both threads
        // only ever hold shared references to it.
        unsafe { &*(*(self.mem.ptr() as *const Page)).ring.get() }
    }

    /// The ring for the producer alone; None while the waiter may use it.
    pub fn ring_mut(&mut self) -> Option<&mut Ring> {
        if self.thread.as_ref().is_some_and(|t| !t.exited()) {
            return None;
        }
        // SAFETY: no thread uses the ring now; &mut self is exclusive.
        Some(unsafe { &mut **(*(self.mem.ptr() as *mut Page)).ring.get() })
    }

    pub fn started(&self) -> bool {
        self.thread.is_some()
    }

    /// The waiter's thread id (for /proc/self/task/TID), 0 before start.
    pub fn tid(&self) -> u32 {
        self.thread.as_ref().map_or(0, |t| t.tid())
    }

    /// Starts the waiter; Err(errno or FAIL_PIN) when it cannot run.
    pub fn start(&mut self, timeout_ns: u64) -> Result<(), u32> {
        // SAFETY: the Page stays mapped until the thread is joined (Drop
        // leaks it otherwise) and the producer leaves the ring's CQ alone.
        let t = unsafe { waiter::start(self.sh(), timeout_ns) }.map_err(|e| e.0 as u32)?;
        self.thread = Some(t);
        match self.sh().state.load(Ordering::Acquire) {
            waiter::READY => Ok(()),
            FAILED => Err(self.sh().error.load(Ordering::Relaxed)),
            _ => Err(ETIMEDOUT.0 as u32),
        }
    }

    /// Asks the waiter to stop and joins it; true when it is gone.
    pub fn join(&mut self, timeout_ns: u64) -> bool {
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
