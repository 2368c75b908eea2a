//! u0: the net path, on AF_UNIX stream socketpairs: stream.rs's cycle of
//! IORING_OP_SEND on one end then IORING_OP_RECV on the other, 16 bytes
//! each, one socketpair per pair, every one res 16 (and flags 0: each recv
//! empties its socket) and every record received byte for byte. Both
//! complete inline (io_send -> sock_sendmsg, io_recv -> sock_recvmsg, with
//! MSG_DONTWAIT): the socket's buffer takes the send, and the recv finds
//! its bytes queued.
//!
//! AF_UNIX, not TCP over loopback: the same io_uring/net.c path with the
//! least protocol under it, and no network to configure.

use super::stream::{Requests, Stream};
use super::{Function, Names, Profile, Series, Takes, RECV, SEND};
use crate::check::Kind;
use crate::config::{DEFAULT_SLOTS, MAX_SLOTS};
use crate::ops;
use crate::sys::pair;

/// u0: SEND then RECV on a socketpair.
pub static U0: Profile = Profile {
    names: Names {
        short: "u0",
        long: "send-recv",
        formal: "u0_send_recv",
        help: "32 SEND, 32 RECV of 16 bytes, AF_UNIX (16, bytes checked)",
    },
    per: "SEND/RECV pair",
    opcodes: &[SEND, RECV],
    default_slots: DEFAULT_SLOTS,
    max_slots: MAX_SLOTS,
    takes: &[Takes::Slots],
    futex_words: false,
    shape: |cfg| REQUESTS.shape(cfg.slots),
    series: &[Series::only(
        "u0_send_recv",
        "io_uring SEND/RECV, AF_UNIX stream",
    )],
    punted: &[],
    // `.prep` and `.issue` of IORING_OP_SEND and IORING_OP_RECV
    // (io_uring/net.c: a SEND is prepared as a SENDMSG, a RECV as a
    // RECVMSG), once per SQE each.
    functions: &[
        Function::per_request("io_sendmsg_prep", &[Kind::Send]),
        Function::per_request("io_send", &[Kind::Send]),
        Function::per_request("io_recvmsg_prep", &[Kind::Recv]),
        Function::per_request("io_recv", &[Kind::Recv]),
    ],
    start: |s, ring, ledger, then| then(&mut Stream::new(s, &REQUESTS)?, ring, ledger),
};

pub static REQUESTS: Requests = Requests {
    open: pair::unix_stream,
    open_call: "socketpair",
    kinds: [Kind::Send, Kind::Recv],
    send: ops::send,
    recv: ops::recv,
    totals: [
        ("cqes", |l| l.cqes),
        ("send_cqes", |l| l.kind(Kind::Send)),
        ("recv_cqes", |l| l.kind(Kind::Recv)),
    ],
};
