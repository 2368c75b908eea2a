//! Every ring a run sets up (`ring`), and what a failed set-up means for
//! the exit code. A skip (4) says "this kernel cannot run the workload":
//! io_uring disabled or absent (EPERM, EACCES, ENOSYS), or a missing
//! opcode or feature. Anything else that breaks the set-up (io_uring_setup
//! EINVAL or EFAULT, a ring that cannot be mapped, a failed probe) is a
//! failure (1), naming the step and the errno: a bisect must not skip a
//! kernel that breaks ring set-up.

use core::ffi::CStr;
use core::fmt;

use crate::check::Plan;
use crate::config::{RingFlags, CQ_ENTRIES, RING_ENTRIES};
use crate::decimal;
use crate::exit::{self, Exit};
use crate::profile::vocabulary::{OwnRing, SetUp, Shape};
use crate::ring::{Ring, SetupError};
use crate::sys::uapi::IoUringParams;
use crate::sys::{self, Errno};

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
    /// The cycle a run set up as `s` runs. Not inlined: a set-up step of
    /// eleven workloads, each of which had its own copy (the plan built
    /// from the shape's expectations).
    #[inline(never)]
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

/// The ring a workload with `own` runs its cycles on in place of the run's
/// (the run's sizes, its flags), the run pinned to `cpu`, its waits bounded
/// by `timeout_ns`; with IORING_SETUP_SQPOLL its SQ thread on
/// `sq_thread_cpu(cpu)` with `own`'s idle time. A kernel that refuses the
/// flags (EINVAL: one it does not know or will not combine; EPERM, EACCES:
/// refused, as an LSM may refuse SQPOLL) cannot run the workload: a skip
/// naming them. (Since 5.11 SQPOLL needs no privilege.)
pub fn own_ring(own: &OwnRing, cpu: u32, timeout_ns: u64) -> Result<Ring, Exit> {
    let mut p = IoUringParams {
        flags: own.flags,
        cq_entries: CQ_ENTRIES,
        ..Default::default()
    };
    if own.polled() {
        p.sq_thread_cpu = sq_thread_cpu(cpu);
        p.sq_thread_idle = own.sq_thread_idle_ms;
    }
    let names = own.names;
    let mut ring = Ring::with_params(RING_ENTRIES, p).map_err(|e| match e {
        SetupError::Setup(e @ (Errno::EINVAL | Errno::EPERM | Errno::EACCES)) => Exit::new(
            exit::SKIP,
            format_args!("kernel refuses io_uring_setup with {names}: {e}"),
        ),
        e => ring_failed(Whose::Run, e),
    })?;
    ring.set_wait_timeout_ns(timeout_ns);
    Ok(ring)
}

/// Where the kernel lists the online CPUs ("0-3,5").
const ONLINE_CPUS: &CStr = c"/sys/devices/system/cpu/online";

/// The CPU the SQ thread of a workload's SQPOLL ring runs on, the run
/// pinned to `run_cpu`: the lowest online CPU but that one, so that the SQ
/// thread polls while the run's thread runs; on a box of one online CPU
/// (or one whose list cannot be read), `run_cpu` itself: they share it.
/// From the box alone, not from this thread's affinity (which the run
/// pins), so `describe` and the run state the same.
pub fn sq_thread_cpu(run_cpu: u32) -> u32 {
    let mut buf = [0u8; 256];
    let other = sys::read_file(ONLINE_CPUS, &mut buf)
        .ok()
        .and_then(|l| lowest_but(l, run_cpu));
    other.unwrap_or(run_cpu)
}

/// The lowest CPU of the list `text` ("0-3,5\n") but `not`; None when
/// there is none, or the list cannot be read as one.
fn lowest_but(text: &[u8], not: u32) -> Option<u32> {
    let number = |s: &[u8]| decimal::whole(s, 4).ok().map(|n| n as u32);
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    for range in text.split(|&b| b == b',') {
        let mut ends = range.splitn(2, |&b| b == b'-');
        let first = number(ends.next()?)?;
        let last = ends.next().map_or(Some(first), number)?;
        if first != not {
            return Some(first);
        }
        if last > first {
            return Some(first + 1);
        }
    }
    None
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
/// Not inlined: cold, and inlined it was copied into each workload's
/// set-up, twenty-odd places.
#[cold]
#[inline(never)]
pub fn step_failed(step: Step, e: Errno) -> Exit {
    Exit::new(exit::FAIL, format_args!("set-up: {step} failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SQ thread's CPU: the lowest online but the run's; the run's on a
    /// box of one CPU, or a list that is no list.
    #[test]
    fn the_sq_thread_takes_the_lowest_other_online_cpu() {
        for (list, run, want) in [
            (&b"0-3\n"[..], 2, Some(0)),
            (b"0-3\n", 0, Some(1)),
            (b"0,2-3", 0, Some(2)),
            (b"1\n", 1, None),
            (b"0\n", 0, None),
            (b"4-7,9", 4, Some(5)),
            (b"", 0, None),
            (b"x-1", 0, None),
        ] {
            assert_eq!(lowest_but(list, run), want, "{list:?} {run}");
        }
        let here = sq_thread_cpu(0);
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
        assert_eq!(here == 0, online.trim() == "0", "{online}");
    }

    /// A step is named by whose part it set up, the run's alone by itself:
    /// `io_uring_setup`, `pollwake io_uring_setup`, as a skip or a failure.
    #[test]
    fn a_failed_step_names_whose_part_it_set_up() {
        let pollwake = Whose::Own("pollwake");
        // Each checked as it is made: an Exit's cause is the latest one's.
        let check = |e: Exit, code, cause| {
            assert_eq!((e.code, e.cause().as_str()), (code, cause));
        };
        check(
            ring_failed(Whose::Run, SetupError::Setup(Errno::EPERM)),
            exit::SKIP,
            "io_uring unavailable: io_uring_setup: EPERM (1)",
        );
        check(
            ring_failed(pollwake, SetupError::Setup(Errno::EPERM)),
            exit::SKIP,
            "io_uring unavailable: pollwake io_uring_setup: EPERM (1)",
        );
        check(
            ring_failed(pollwake, SetupError::Mmap(Errno::ENOMEM)),
            exit::FAIL,
            "set-up: pollwake mapping the rings failed: ENOMEM (12)",
        );
        check(
            step_failed(Step::run("sched_getaffinity"), Errno::EINVAL),
            exit::FAIL,
            "set-up: sched_getaffinity failed: EINVAL (22)",
        );
    }
}
