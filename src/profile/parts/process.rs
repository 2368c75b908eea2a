//! What a run leaves of the process it runs in. A run changes some of it
//! (its thread's CPUs, a0 its scheduling policy) and gives that back when
//! it ends; one that cannot give it back fails, naming the call, and
//! leaves a mark here: every later run of the process then fails at its
//! start, naming it (rounds/run.rs), since its point would not be the one
//! `run` prints.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::profile::vocabulary::{Changed, Fault};
use crate::sys::Errno;

/// The first give-back that failed: what (its `Changed` + 1) in the high
/// half, the errno in the low; 0: none. Only the run's thread writes it,
/// so a load and a store do (no read-modify-write: on aarch64 that needs
/// libc's outline atomics).
static LEFT: AtomicU64 = AtomicU64::new(0);

/// Marks the process: `what` could not be given back (`e`). The first
/// mark stays. Returns the run's fault.
pub fn left_changed(what: Changed, e: Errno) -> Fault {
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
