//! What the kernel must have seen of a run (`--witness`), derived from the
//! run's own counts (the ledger's submitted requests and checked CQEs of
//! the traced rounds), never from constants: warm-ups, rounds and slots
//! all count.
//!
//! The kernel functions the profiles name (each its `Profile::functions`),
//! and where each hit comes from (Linux
//! 6.12, io_uring/opdef.c, futex.c, cancel.c, nop.c, msg_ring.c):
//! - `io_futex_prep`: the `.prep` of both IORING_OP_FUTEX_WAIT and
//!   IORING_OP_FUTEX_WAKE, once per SQE of either;
//! - `io_futex_wait` / `io_futex_wake`: their `.issue`, once per SQE;
//! - `io_futex_complete`: the task work of a FUTEX_WAIT that did not end
//!   inline: set by `io_futex_wake_fn` (woken, res 0) and by
//!   `__io_futex_cancel` (-ECANCELED); a WAIT whose word differs returns
//!   -EAGAIN from `io_futex_wait` itself and never gets here (e0: 0);
//! - `io_futexv_prep`, `io_futexv_wait`: FUTEX_WAITV's `.prep`, `.issue`;
//!   `io_futexv_complete`: its task work, set by `io_futex_wakev_fn`;
//! - `io_futex_cancel`: called once by `io_try_cancel` for each
//!   ASYNC_CANCEL by user_data that finds no io-wq or poll request;
//! - `io_nop_prep`, `io_nop`; `io_msg_ring_prep`, `io_msg_ring`: NOP's and
//!   MSG_RING's `.prep` and `.issue`;
//! - `io_req_track_inflight`: 079afb081c42 calls it from `io_futex_prep`
//!   and `io_futexv_prep`, once per futex SQE. It is declared `inline` in
//!   io_uring.c, and the kernel's `inline` implies `notrace`: listed, it is
//!   reported as not traceable (`notrace` when kallsyms has it, `inlined`
//!   when it has no symbol: Debian's 6.12.117) unless a kernel can trace it.

use super::shape::RES_AGAIN;
use super::{pollwake, Profile, Shape};
use crate::check::{Kind, Ledger, KINDS};
use crate::witness::Expect;

/// The function 079afb081c42 added to every futex request's prep.
pub const INFLIGHT: &str = "io_req_track_inflight";

/// The kernel's name of the opcode a kind's requests use (io_uring/opdef.c
/// `.name`); None: no request of its own (pollwake's target CQEs).
fn opcode(k: Kind) -> Option<&'static str> {
    Some(match k {
        Kind::Wait => "FUTEX_WAIT",
        Kind::Waitv => "FUTEX_WAITV",
        Kind::Wake | Kind::Check => "FUTEX_WAKE",
        Kind::Cancel => "ASYNC_CANCEL",
        Kind::Nop => "NOP",
        Kind::Source => "MSG_RING",
        Kind::Target => return None,
    })
}

/// Most events (io_uring) and function hits a run of `profile` with
/// `shape` records in `cycles` cycles in all (every series, warm-ups
/// included).
pub fn bound(profile: &Profile, shape: &Shape, cycles: u64) -> (u64, u64) {
    let per_cycle: u64 = shape.expect.iter().map(|e| e.count as u64).sum();
    let requests = per_cycle * cycles;
    // A submission and a completion per request, and at most 3 hits of
    // the listed functions (prep, issue, completion or inflight).
    let hits = if profile.functions.is_empty() { 0 } else { 3 };
    (2 * requests, hits * requests)
}

/// What the kernel must have seen of the rounds of `profile` (with
/// `shape`) that `l` counts.
pub fn expect(profile: &Profile, shape: &Shape, l: &Ledger) -> Expect {
    let mut e = Expect::default();
    let sub = |k: Kind| l.submitted[k as usize];
    for k in Kind::ALL {
        if let Some(op) = opcode(k) {
            if sub(k) > 0 || shape.expect[k as usize].count > 0 {
                e.submit(op, sub(k));
            }
        }
    }
    // Every CQE consumed was checked against its kind's result, so the
    // kernel's results are the kinds' (pollwake's target CQEs each carry
    // their own message's value). CQEs that failed a check fail the run
    // anyway; they are counted with their kind's expected result here.
    let mut by_kind = [0u64; KINDS];
    by_kind.copy_from_slice(&l.kind_cqes);
    let unchecked = l.cqes - by_kind.iter().sum::<u64>().min(l.cqes);
    for k in Kind::ALL {
        let n = by_kind[k as usize];
        if n == 0 {
            continue;
        }
        if k == Kind::Target {
            // Bursts count from seq 0 in the traced rounds.
            let zeros = pollwake::zero_values(sub(Kind::Source) / shape.slots.max(1) as u64);
            e.result(0, zeros.min(n));
            e.varied(n - zeros.min(n));
        } else {
            e.result(shape.expect[k as usize].res, n);
        }
    }
    if unchecked > 0 {
        e.varied(unchecked);
    }
    let (wait, wake, check) = (sub(Kind::Wait), sub(Kind::Wake), sub(Kind::Check));
    let waitv = sub(Kind::Waitv);
    // A WAIT whose word differs ends inline (-EAGAIN), without task work.
    let inline_end = shape.expect[Kind::Wait as usize].res == RES_AGAIN;
    let completed_waits = if inline_end { 0 } else { l.kind(Kind::Wait) };
    for &f in profile.functions {
        let n = match f {
            "io_futex_prep" => wait + wake + check,
            INFLIGHT => wait + wake + check + waitv,
            "io_futex_wait" => wait,
            "io_futex_wake" => wake + check,
            "io_futex_complete" => completed_waits,
            "io_futex_cancel" => sub(Kind::Cancel),
            "io_futexv_prep" | "io_futexv_wait" => waitv,
            "io_futexv_complete" => l.kind(Kind::Waitv),
            "io_nop_prep" | "io_nop" => sub(Kind::Nop),
            "io_msg_ring_prep" | "io_msg_ring" => sub(Kind::Source),
            _ => 0,
        };
        e.function(f, n);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::profile::ProfileId;

    /// What the kernel must have seen of profile `name`'s rounds that `l`
    /// counts, with the default options.
    fn expect_of(name: &str, l: &Ledger) -> Expect {
        let id = ProfileId::parse(name.as_bytes()).unwrap();
        expect(id.profile(), &id.shape(&RunConfig::default()), l)
    }

    fn ledger(sub: &[(Kind, u64)], cqes: &[(Kind, u64)]) -> Ledger {
        let mut l = Ledger::default();
        for &(k, n) in sub {
            l.submitted[k as usize] = n;
        }
        for &(k, n) in cqes {
            l.kind_cqes[k as usize] = n;
            l.cqes += n;
        }
        l
    }

    #[test]
    fn s0_trace_expects_what_the_report_counted_by_hand() {
        // --trace: 16 cycles of 32 WAIT + 32 WAKE.
        let l = ledger(
            &[(Kind::Wait, 512), (Kind::Wake, 512)],
            &[(Kind::Wait, 512), (Kind::Wake, 512)],
        );
        let e = expect_of("s0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAIT", 512), ("FUTEX_WAKE", 512)]);
        assert_eq!((e.completions, e.varied), (1024, 0));
        assert_eq!(e.results(), &[(0, 512), (1, 512)]);
        assert_eq!(
            e.functions(),
            &[
                ("io_futex_prep", 1024),
                ("io_futex_wait", 512),
                ("io_futex_wake", 512),
                ("io_futex_complete", 512),
                ("io_req_track_inflight", 1024),
            ]
        );
    }

    #[test]
    fn c0_v0_e0_and_pollwake_expectations() {
        let l = ledger(
            &[(Kind::Wait, 64), (Kind::Cancel, 64)],
            &[(Kind::Wait, 64), (Kind::Cancel, 64)],
        );
        let e = expect_of("c0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAIT", 64), ("ASYNC_CANCEL", 64)]);
        assert_eq!(e.results(), &[(-125, 64), (1, 64)]);
        assert_eq!(e.hits("io_futex_wake"), Some(0));
        assert_eq!(e.hits("io_futex_complete"), Some(64));
        assert_eq!(e.hits("io_futex_cancel"), Some(64));
        let l = ledger(
            &[(Kind::Waitv, 8), (Kind::Wake, 8), (Kind::Check, 8)],
            &[(Kind::Waitv, 8), (Kind::Wake, 8), (Kind::Check, 8)],
        );
        let e = expect_of("v0", &l);
        assert_eq!(e.submits(), &[("FUTEX_WAKE", 16), ("FUTEX_WAITV", 8)]);
        assert_eq!(e.results(), &[(1, 8), (0, 8), (3, 8)]);
        assert_eq!(e.hits("io_futex_prep"), Some(16));
        assert_eq!(e.hits("io_futexv_complete"), Some(8));
        assert_eq!(e.hits("io_req_track_inflight"), Some(24));
        let l = ledger(&[(Kind::Wait, 32)], &[(Kind::Wait, 32)]);
        let e = expect_of("e0", &l);
        assert_eq!(e.results(), &[(-11, 32)]);
        assert_eq!(e.hits("io_futex_complete"), Some(0));
        let l = ledger(
            &[(Kind::Source, 128)],
            &[(Kind::Source, 128), (Kind::Target, 128)],
        );
        let e = expect_of("pollwake", &l);
        assert_eq!(e.submits(), &[("MSG_RING", 128)]);
        // Message 0 of burst 0 carries the value 0.
        assert_eq!(e.results(), &[(0, 129)]);
        assert_eq!((e.varied, e.completions), (127, 256));
        assert_eq!(e.hits("io_msg_ring"), Some(128));
    }
}
