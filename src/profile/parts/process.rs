//! What a run changes of the process it runs in, and gives back; and how
//! many threads the process has (`threads`). Every run pins its thread to
//! one CPU; a0, b0 and g0 put it under SCHED_BATCH. Each
//! change is a `GiveBack`, given back before the run's summary (so that a
//! failure fails the run, naming the call) or, however the run ends, when
//! dropped. One that cannot be given back also leaves a mark here: every
//! later run of the process then fails at its start, naming it
//! (rounds/run.rs), since its point would not be the one `run` prints.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::profile::vocabulary::{Changed, Fault};
use crate::sys::{self, CpuSet, Errno};

/// What the process had before a run changed it.
pub enum Before {
    /// The thread's CPUs (sched_getaffinity).
    Cpus(CpuSet),
    /// The thread's scheduling policy (sched_getscheduler).
    Policy(u32),
}

/// A change to give back: what the process had before it.
pub struct GiveBack(Option<Before>);

impl GiveBack {
    /// The change from `before`, made (or about to be made) by the caller.
    pub fn new(before: Before) -> GiveBack {
        GiveBack(Some(before))
    }

    /// Gives the process back what it had (once). Err: the run's fault,
    /// and the process is marked.
    pub fn give_back(&mut self) -> Result<(), Fault> {
        let (what, given) = match self.0.take() {
            None => return Ok(()),
            Some(Before::Cpus(set)) => (Changed::Cpus, sys::sched_setaffinity(&set)),
            Some(Before::Policy(p)) => (Changed::Policy, sys::sched_setscheduler(p)),
        };
        given.map_err(|e| left_changed(what, e))
    }
}

impl Drop for GiveBack {
    fn drop(&mut self) {
        let _ = self.give_back();
    }
}

/// The first give-back that failed: what (its `Changed` + 1) in the high
/// half, the errno in the low; 0: none. Only the run's thread writes it,
/// so a load and a store do (no read-modify-write: on aarch64 that needs
/// libc's outline atomics).
static LEFT: AtomicU64 = AtomicU64::new(0);

/// Marks the process: `what` could not be given back (`e`). The first
/// mark stays. Returns the run's fault.
fn left_changed(what: Changed, e: Errno) -> Fault {
    if LEFT.load(Ordering::Relaxed) == 0 {
        let v = ((what as u64 + 1) << 32) | e.0 as u32 as u64;
        LEFT.store(v, Ordering::Relaxed);
    }
    Fault::NotGivenBack(what, e)
}

/// What an earlier run of this process could not give back, if anything.
pub fn left() -> Option<Fault> {
    let v = LEFT.load(Ordering::Relaxed);
    let what = match v >> 32 {
        0 => return None,
        1 => Changed::Cpus,
        _ => Changed::Policy,
    };
    Some(Fault::NotGivenBack(what, Errno(v as u32 as i32)))
}

/// The threads of this process now (io-wq workers and an SQ thread among
/// them: the kernel's, started for it); None when /proc/self/task cannot be
/// read.
pub fn threads() -> Option<u32> {
    let mut n = 0;
    sys::dir::entries(c"/proc/self/task", &mut |name| {
        n += name.iter().all(u8::is_ascii_digit) as u32;
    })
    .ok()?;
    Some(n)
}
