//! A timed span's first and last clock reads, with the cost counter's
//! markers just outside them (docs/cost.md): every workload times its spans
//! with these, so under the counter (a QEMU plugin) exactly the spans'
//! instructions are counted, and nothing between them. A marker is one NOP
//! (x86_64; nothing elsewhere), outside the span: the span is unchanged.

use super::inject;
use crate::sys::clock::Clock;
use crate::sys::{self, Mark};

/// Starts a timed span: a reading of `clock`.
#[inline(always)]
pub fn start(clock: &Clock) -> u64 {
    sys::cost_mark(Mark::Start, 0);
    clock.now_ns()
}

/// Ends a timed span: a reading of `clock`, `extra_ns` later with the
/// positive control (`inject::end_ns`).
#[inline(always)]
pub fn end(clock: &Clock, extra_ns: u64) -> u64 {
    let t = inject::end_ns(clock, extra_ns);
    sys::cost_mark(Mark::End, 0);
    t
}
