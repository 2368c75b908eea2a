//! k0: the link path. Per cycle, one chain of `slots` (32) IORING_OP_NOP,
//! each but the last with IOSQE_IO_LINK, submitted and waited for by one
//! io_uring_enter (a chain never spans two). Only the chain's head is
//! issued at submission; each later member is queued when the one before
//! it completed (io_free_batch_list -> io_queue_next -> io_req_task_queue)
//! and issued from task work (io_req_task_submit), so the CQEs come in
//! chain order. Every member must end with res 0. The head is a `Nop`
//! request, the members the link path queued are `Link` requests; a pair
//! is one linked NOP.
//!
//! Timed span: from before the first SQE is written to after the last CQE
//! is checked.

use crate::check::{tag, Counter, Kind, Ledger};
use crate::ops;
use crate::profile::parts::collect::Batch;
use crate::profile::parts::cycle::Cycle;
use crate::profile::parts::setup::CyclePlan;
use crate::profile::vocabulary::{
    Function, Names, Profile, RowSet, RunOptions, Shape, Timed, Workload, NOP,
};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::uapi::IOSQE_IO_LINK;

/// k0: a chain of linked NOPs.
pub static K0: Profile = Profile {
    names: Names {
        short: "k0",
        long: "link-chain",
        formal: "k0_link_chain",
        help: "a chain of 32 NOP linked by IOSQE_IO_LINK (res 0)",
    },
    per: "linked NOP",
    opcodes: &[NOP],
    options: RunOptions::SLOTS,
    shape: |cfg| {
        let n = cfg.slots;
        Shape::new(n)
            .with(Kind::Nop, 1, 0)
            .with(Kind::Link, n.saturating_sub(1), 0)
    },
    series: &[RowSet::only(
        "k0_link_chain",
        "io_uring IOSQE_IO_LINK chain of NOPs",
    )],
    punted: &[],
    // Once per member after the head: queued when the one before it was
    // freed (io_queue_next, io_uring.c), issued from task work
    // (io_req_task_submit); NOP's `.issue` once per member.
    functions: &[
        Function::per_request("io_queue_next", &[Kind::Link]),
        Function::per_request("io_req_task_submit", &[Kind::Link]),
        Function::per_request("io_nop", &[Kind::Nop, Kind::Link]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut LinkChain(CyclePlan::of(s)), ring, ledger),
};

/// The checks line's totals: the heads and the members queued by links.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("nop_cqes", |l| l.kind(Kind::Nop)),
    ("link_cqes", |l| l.kind(Kind::Link)),
];

pub struct LinkChain(pub CyclePlan);

impl Workload for LinkChain {
    // A symbol of its own (perf annotate, callgrind), as s0's.
    #[inline(never)]
    fn cycle(&mut self, ring: &mut Ring, clock: &Clock, ledger: &mut Ledger, seq: u32) -> Timed {
        let p = &self.0;
        let members = p.slots.saturating_sub(1);
        // IOSQE_IO_LINK on every SQE but the chain's last.
        let link = |last| if last { 0 } else { IOSQE_IO_LINK };
        let mut c = Cycle::start(seq, &p.plan, clock);
        c.together(
            ring,
            ledger,
            Batch::new(Kind::Nop, 1, |i| {
                ops::with_flags(ops::nop(tag(seq, Kind::Nop, i)), link(members == 0))
            }),
            Batch::new(Kind::Link, members, |i| {
                ops::with_flags(ops::nop(tag(seq, Kind::Link, i)), link(i + 1 == members))
            }),
        );
        c.end(clock, p.inject_ns, ledger)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Fail, Plan};
    use crate::profile::tests::live::live_plan;

    /// A chain runs clean, its head a NOP and the rest links, whatever
    /// its length (a chain of one is its head alone, with no link); and
    /// the members' results are the kernel's: told to expect 1, each is a
    /// bad result showing its 0.
    #[test]
    fn chains_run_clean_and_their_results_are_checked() {
        let clock = Clock::syscall();
        for n in [1, 2, 32, 64] {
            let Some((mut ring, p)) = live_plan(&K0, n) else {
                return;
            };
            let mut k0 = LinkChain(p);
            let mut l = Ledger::default();
            for seq in 0..2 {
                assert!(k0.cycle(&mut ring, &clock, &mut l, seq).1, "{n}: {l:?}");
            }
            assert_eq!((l.requests(Kind::Nop), l.kind(Kind::Nop)), (2, 2), "{n}");
            let links = 2 * (n as u64 - 1);
            assert_eq!((l.requests(Kind::Link), l.kind(Kind::Link)), (links, links));
            if n < 32 {
                continue;
            }
            let wrong = Shape::new(n)
                .with(Kind::Nop, 1, 0)
                .with(Kind::Link, n - 1, 1);
            k0.0.plan = Plan::new(&wrong.expect);
            let mut l = Ledger::default();
            assert!(!k0.cycle(&mut ring, &clock, &mut l, 2).1);
            assert_eq!(l.count(Fail::BadResult), n as u64 - 1);
            assert_eq!(l.first.unwrap().cqe.unwrap().res, 0);
        }
    }
}
