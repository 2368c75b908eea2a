//! The frame of a cycle made of batches, which every workload but l0 and
//! pollwake runs (a new workload whose cycle is batches is written the
//! same way):
//! 1. `Cycle::start`: the cycle's check against its plan, then the first
//!    clock read of the timed span;
//! 2. `two_batches` (the first batch submitted alone, the second submitted
//!    with a wait for the CQEs of both), `each_then` (the first batch one
//!    request an enter, something done after each, then the second as in
//!    `two_batches`: b0), `together` (two batches submitted with one enter:
//!    a chain from one into the other), `one_batch` (submitted with a wait
//!    for its own CQEs) or `polled` (left to an SQPOLL ring's SQ thread, one
//!    enter to wait: q0), the CQEs taken into the check; `collect_from`
//!    takes those the requests posted in another ring (MSG_RING's target);
//! 3. `stop`: the closing clock read, the span's ns; untimed batches may
//!    follow (v0's check, p0's drain), and `verify`, a check of what the
//!    requests did besides their CQEs (the bytes a READ got);
//! 4. `finish`: the verdict (`end`: `stop` and `finish` at once, where
//!    nothing follows the span).
//!
//! A batch that failed (it did not fit the SQ, or the kernel did not take
//! it whole) ends the cycle's batches: no later batch is pushed, so nothing
//! is left in the SQ behind a failure, and nothing is collected.
//!
//! The verdict is the check's own and the batches' (`finish_own && ok`),
//! never a sum over the ledger: every failure such a cycle can count is a
//! failed batch (`ok`) or is seen by the check (a wrong, foreign, duplicate
//! or missing CQE, a CQ overflow, a wait that failed or expired: collect.rs
//! spoils the check for each; and what `verify` found wrong). So a cycle
//! is clean exactly when it counted nothing, at no cost per cycle beyond
//! the check (s0's timed path is the instruction budget's).
//!
//! Everything here is inlined into each workload's `cycle`: the timed path
//! is the one the workload would write out by hand.

use super::collect::Batch;
use super::collect::{collect, one_batch, submit, submit_each, submit_polled, submit_together};
use super::span;
use crate::check::{CycleCheck, Ledger, Plan};
use crate::profile::vocabulary::Timed;
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IoUringSqe;

/// One cycle in flight: its check, its span's start, whether every batch
/// so far went in whole.
pub struct Cycle<'p> {
    check: CycleCheck<'p>,
    seq: u32,
    t0: u64,
    ok: bool,
}

impl<'p> Cycle<'p> {
    /// Cycle `seq`, its CQEs checked against `plan`: the timed span starts.
    #[inline(always)]
    pub fn start(seq: u32, plan: &'p Plan, clock: &Clock) -> Cycle<'p> {
        // The check is made in its place before the clock is read, so
        // nothing is copied inside the span (moved in after the read, it
        // cost s0's cycle 17 instructions).
        let mut c = Cycle {
            check: CycleCheck::new(seq, plan),
            seq,
            t0: 0,
            ok: true,
        };
        c.t0 = span::start(clock);
        c
    }

    /// Submits `first` alone, then `second` with a wait for the CQEs of
    /// both, and takes them into the check. `second` is not pushed when
    /// `first` failed.
    #[inline(always)]
    pub fn two_batches<A, B>(
        &mut self,
        ring: &mut Ring,
        ledger: &mut Ledger,
        first: Batch<A>,
        second: Batch<B>,
    ) where
        A: FnMut(u32) -> IoUringSqe,
        B: FnMut(u32) -> IoUringSqe,
    {
        let (seq, want) = (self.seq, first.n + second.n);
        self.ok = self.ok
            && submit(ring, ledger, seq, first, 0)
            && submit(ring, ledger, seq, second, want);
        if self.ok {
            collect(ring, &mut self.check, ledger, want, seq);
        }
    }

    /// Submits `first` one request an enter, calling `between()` after
    /// each (`submit_each`), then `second` with a wait for the CQEs of
    /// both, and takes them into the check. Nothing more is pushed after a
    /// request of `first` that failed.
    #[inline(always)]
    pub fn each_then<A, G, B>(
        &mut self,
        ring: &mut Ring,
        ledger: &mut Ledger,
        first: Batch<A>,
        between: G,
        second: Batch<B>,
    ) where
        A: FnMut(u32) -> IoUringSqe,
        G: FnMut(),
        B: FnMut(u32) -> IoUringSqe,
    {
        let (seq, want) = (self.seq, first.n + second.n);
        self.ok = self.ok
            && submit_each(ring, ledger, seq, first, between)
            && submit(ring, ledger, seq, second, want);
        if self.ok {
            collect(ring, &mut self.check, ledger, want, seq);
        }
    }

    /// Leaves `b` to the SQ thread of an SQPOLL ring and waits for its
    /// CQEs (`submit_polled`), then takes them into the check; not pushed
    /// when an earlier batch of the cycle failed. True when the SQ thread
    /// slept and the enter woke it.
    #[inline(always)]
    pub fn polled<F>(&mut self, ring: &mut Ring, ledger: &mut Ledger, b: Batch<F>) -> bool
    where
        F: FnMut(u32) -> IoUringSqe,
    {
        if !self.ok {
            return false;
        }
        let (seq, want) = (self.seq, b.n);
        let (ok, woke) = submit_polled(ring, ledger, seq, b);
        self.ok = ok;
        if ok {
            collect(ring, &mut self.check, ledger, want, seq);
        }
        woke
    }

    /// Submits `b` with a wait for its CQEs and takes them into the check;
    /// not pushed when an earlier batch of the cycle failed.
    #[inline(always)]
    pub fn one_batch<F>(&mut self, ring: &mut Ring, ledger: &mut Ledger, b: Batch<F>)
    where
        F: FnMut(u32) -> IoUringSqe,
    {
        self.ok = self.ok && one_batch(ring, &mut self.check, ledger, self.seq, b);
    }

    /// Submits `first` and `second` with one enter (`submit_together`: a
    /// chain from one into the other), waiting for the CQEs of both, and
    /// takes them into the check; not pushed when an earlier batch of the
    /// cycle failed.
    #[inline(always)]
    pub fn together<A, B>(
        &mut self,
        ring: &mut Ring,
        ledger: &mut Ledger,
        first: Batch<A>,
        second: Batch<B>,
    ) where
        A: FnMut(u32) -> IoUringSqe,
        B: FnMut(u32) -> IoUringSqe,
    {
        let (seq, want) = (self.seq, first.n + second.n);
        self.ok = self.ok && submit_together(ring, ledger, seq, first, second);
        if self.ok {
            collect(ring, &mut self.check, ledger, want, seq);
        }
    }

    /// Takes the `want` CQEs the cycle's requests post in another ring
    /// (MSG_RING's target) into the check, waiting (bounded) for late ones;
    /// nothing when a batch of the cycle failed.
    #[inline(always)]
    pub fn collect_from(&mut self, other: &mut Ring, ledger: &mut Ledger, want: u32) {
        if self.ok {
            collect(other, &mut self.check, ledger, want, self.seq);
        }
    }

    /// Once every CQE so far came back as expected: `done_right` checks
    /// what the requests did besides their CQEs (the bytes a READ got),
    /// counting what it finds wrong; false spoils the cycle. Not run after
    /// a failure the CQEs showed: that is counted and named already.
    #[inline(always)]
    pub fn verify(&mut self, done_right: impl FnOnce() -> bool) {
        if self.ok && self.check.clean() && !done_right() {
            self.check.spoil();
        }
    }

    /// Ends the timed span, `extra_ns` later with the positive control
    /// (`span::end`): its ns. Batches after it are untimed (v0's check).
    #[inline(always)]
    pub fn stop(&self, clock: &Clock, extra_ns: u64) -> u64 {
        span::end(clock, extra_ns).wrapping_sub(self.t0)
    }

    /// The verdict: clean when every batch went in whole and the check
    /// found every expected CQE, once, with its res and flags, and nothing
    /// else (see the module docs for why that is all a cycle can count).
    /// By reference, not by value: a move of the cycle (past 128 bytes, the
    /// check's seen-bits of every kind) would be a call of memcpy.
    #[inline(always)]
    pub fn finish(&mut self, ledger: &mut Ledger) -> bool {
        self.check.finish_own(ledger) && self.ok
    }

    /// `stop` and `finish` at once, for a cycle with nothing after its
    /// timed span: the span's ns and the verdict.
    #[inline(always)]
    pub fn end(&mut self, clock: &Clock, extra_ns: u64, ledger: &mut Ledger) -> Timed {
        let ns = self.stop(clock, extra_ns);
        (ns, self.finish(ledger))
    }
}
