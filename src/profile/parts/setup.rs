//! Every ring a run sets up (`ring`), and what a failed set-up means for
//! the exit code. A skip (4) says "this kernel cannot run the workload":
//! io_uring disabled or absent (EPERM, EACCES, ENOSYS), or a missing
//! opcode or feature. Anything else that breaks the set-up (io_uring_setup
//! EINVAL or EFAULT, a ring that cannot be mapped, a failed probe) is a
//! failure (1), naming the step and the errno: a bisect must not skip a
//! kernel that breaks ring set-up.

use core::fmt;

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

/// Whose part a set-up step sets up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whose {
    /// The run's own: its ring, its CPUs, its workload's memory and files.
    Run,
    /// A part a workload keeps beside the run's ring, by name: pollwake's
    /// rings and epoll sets, m0's target ring.
    Own(&'static str),
}

/// A set-up step, as a failure names it: `io_uring_setup` (the run's),
/// `pollwake io_uring_setup` (a part of a workload's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub whose: Whose,
    pub name: &'static str,
}

impl Step {
    /// Step `name` of the run's own set-up.
    pub const fn run(name: &'static str) -> Step {
        Step {
            whose: Whose::Run,
            name,
        }
    }

    /// Step `name` of what `whose` sets up.
    pub const fn of(whose: Whose, name: &'static str) -> Step {
        Step { whose, name }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.whose {
            Whose::Run => f.write_str(self.name),
            Whose::Own(part) => write!(f, "{part} {}", self.name),
        }
    }
}

/// A ring of the report's 64 SQ and 128 CQ entries with `flags`, its waits
/// bounded by `timeout_ns`; `whose` it is names it in a failure (see
/// `ring_failed`).
pub fn ring(whose: Whose, flags: RingFlags, timeout_ns: u64) -> Result<Ring, Exit> {
    let mut ring =
        Ring::new(RING_ENTRIES, CQ_ENTRIES, flags.setup()).map_err(|e| ring_failed(whose, e))?;
    ring.set_wait_timeout_ns(timeout_ns);
    Ok(ring)
}

/// A ring of `whose` that could not be set up.
pub fn ring_failed(whose: Whose, e: SetupError) -> Exit {
    let step = |name| Step::of(whose, name);
    match e {
        SetupError::Setup(e) if unavailable(e) => Exit::new(
            exit::SKIP,
            format_args!("io_uring unavailable: {}: {e}", step("io_uring_setup")),
        ),
        SetupError::Feature(f) => Exit::new(
            exit::SKIP,
            format_args!("kernel lacks {f} (needed to bound waits)"),
        ),
        SetupError::Setup(e) => step_failed(step("io_uring_setup"), e),
        SetupError::Mmap(e) => step_failed(step("mapping the rings"), e),
    }
}

/// Any other set-up step that failed: a failure naming it and its errno.
pub fn step_failed(step: Step, e: Errno) -> Exit {
    Exit::new(exit::FAIL, format_args!("set-up: {step} failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step is named by whose part it set up, the run's alone by itself:
    /// `io_uring_setup`, `pollwake io_uring_setup`, as a skip or a failure.
    #[test]
    fn a_failed_step_names_whose_part_it_set_up() {
        let pollwake = Whose::Own("pollwake");
        let cases = [
            (
                ring_failed(Whose::Run, SetupError::Setup(Errno::EPERM)),
                exit::SKIP,
                "io_uring unavailable: io_uring_setup: EPERM (1)",
            ),
            (
                ring_failed(pollwake, SetupError::Setup(Errno::EPERM)),
                exit::SKIP,
                "io_uring unavailable: pollwake io_uring_setup: EPERM (1)",
            ),
            (
                ring_failed(pollwake, SetupError::Mmap(Errno::ENOMEM)),
                exit::FAIL,
                "set-up: pollwake mapping the rings failed: ENOMEM (12)",
            ),
            (
                step_failed(Step::run("sched_getaffinity"), Errno::EINVAL),
                exit::FAIL,
                "set-up: sched_getaffinity failed: EINVAL (22)",
            ),
        ];
        for (e, code, cause) in cases {
            assert_eq!((e.code, e.cause.as_str()), (code, cause));
        }
    }
}
