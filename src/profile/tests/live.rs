//! What the workloads' own tests share: a workload's shape, a ring it can
//! run on (or a ring that refuses every enter), and the plan of its cycle.
//! By `Profile`, not by name: a workload's tests name their own profile.

use crate::config::{RunConfig, CQ_ENTRIES, RING_ENTRIES};
use crate::profile::parts::setup::CyclePlan;
use crate::profile::vocabulary::{Profile, Shape};
use crate::ring::Ring;
use crate::sys::uapi::IORING_SETUP_R_DISABLED;
use crate::testing::skip;

/// The shape of profile `p` with `slots` requests (pollwake: a burst of
/// that many messages) per cycle.
pub fn shape(p: &Profile, slots: u32) -> Shape {
    let cfg = RunConfig {
        slots,
        burst: slots,
        ..RunConfig::default()
    };
    (p.shape)(&cfg)
}

/// A ring with the opcodes `p` needs, or None after a loud SKIP.
pub fn live_ring(p: &Profile) -> Option<Ring> {
    let mut r = match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
        Ok(r) => r,
        Err(e) => {
            skip(&format!("io_uring unavailable here: {e:?}"));
            return None;
        }
    };
    r.set_wait_timeout_ns(2_000_000_000);
    let probe = r.probe().unwrap();
    for &(op, name) in p.opcodes {
        if !probe.supports(op) {
            skip(&format!("kernel lacks {name}"));
            return None;
        }
    }
    Some(r)
}

/// A ring with the opcodes of profile `p`, and the plan of its cycle with
/// `slots` requests of the main kind; None after a loud SKIP.
pub fn live_plan(p: &Profile, slots: u32) -> Option<(Ring, CyclePlan)> {
    let ring = live_ring(p)?;
    Some((ring, CyclePlan::new(&shape(p, slots), 0)))
}

/// A ring whose every io_uring_enter fails in the kernel: set up disabled
/// (IORING_SETUP_R_DISABLED) and never enabled, each enter is EBADFD, and
/// what a cycle pushed stays in the SQ.
pub fn refusing_ring() -> Option<Ring> {
    match Ring::new(RING_ENTRIES, CQ_ENTRIES, IORING_SETUP_R_DISABLED) {
        Ok(r) => Some(r),
        Err(e) => {
            skip(&format!("io_uring unavailable here: {e:?}"));
            None
        }
    }
}
