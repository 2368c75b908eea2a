//! Every ring a run sets up (`ring`), and what a failed set-up means for
//! the exit code. A skip (4) says "this kernel cannot run the workload":
//! io_uring disabled or absent (EPERM, EACCES, ENOSYS), or a missing
//! opcode or feature. Anything else that breaks the set-up (io_uring_setup
//! EINVAL or EFAULT, a ring that cannot be mapped, a failed probe) is a
//! failure (1), naming the step and the errno: a bisect must not skip a
//! kernel that breaks ring set-up.

use crate::check::Plan;
use crate::config::{RingFlags, CQ_ENTRIES, RING_ENTRIES};
use crate::exit::{self, Exit};
use crate::profile::vocabulary::{SetUp, Shape};
use crate::ring::{Ring, SetupError};
use crate::sys::Errno;

/// What a workload checks its cycles against: its requests of the main
/// kind, the plan of its CQEs, and the ns each timed cycle spins with the
/// positive control (`--inject-ns` times its pairs). The futex workloads
/// keep it beside their words (futex.rs).
pub struct CyclePlan {
    pub slots: u32,
    pub plan: Plan,
    pub inject_ns: u64,
}

impl CyclePlan {
    /// The cycle a run set up as `s` runs.
    pub fn of(s: &SetUp) -> CyclePlan {
        CyclePlan::new(&s.shape, s.cfg.inject_ns as u64 * s.shape.pairs)
    }

    /// Cycles of `shape`, each spinning `inject_ns` more.
    pub fn new(shape: &Shape, inject_ns: u64) -> CyclePlan {
        CyclePlan {
            slots: shape.slots,
            plan: Plan::new(&shape.expect),
            inject_ns,
        }
    }
}

/// io_uring is disabled (sysctl, seccomp, LSM) or not built in.
fn unavailable(e: Errno) -> bool {
    e == Errno::EPERM || e == Errno::EACCES || e == Errno::ENOSYS
}

/// A ring of the report's 64 SQ and 128 CQ entries with `flags`, its waits
/// bounded by `timeout_ns`; `what` names it in a failure (see `ring_failed`).
pub fn ring(what: &str, flags: RingFlags, timeout_ns: u64) -> Result<Ring, Exit> {
    let mut ring =
        Ring::new(RING_ENTRIES, CQ_ENTRIES, flags.setup()).map_err(|e| ring_failed(what, e))?;
    ring.set_wait_timeout_ns(timeout_ns);
    Ok(ring)
}

/// A ring that could not be set up: `what` names the ring in the message
/// ("" for the run's own ring).
pub fn ring_failed(what: &str, e: SetupError) -> Exit {
    match e {
        SetupError::Setup(e) if unavailable(e) => Exit::new(
            exit::SKIP,
            format_args!("io_uring unavailable: {what}io_uring_setup: {e}"),
        ),
        SetupError::Feature(f) => Exit::new(
            exit::SKIP,
            format_args!("kernel lacks {f} (needed to bound waits)"),
        ),
        SetupError::Setup(e) => step_failed(what, "io_uring_setup", e),
        SetupError::Mmap(e) => step_failed(what, "mapping the rings", e),
    }
}

/// Any other set-up step that failed: a failure naming it and its errno.
pub fn step_failed(what: &str, step: &str, e: Errno) -> Exit {
    Exit::new(exit::FAIL, format_args!("set-up: {what}{step} failed: {e}"))
}
