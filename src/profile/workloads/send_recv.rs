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
use crate::check::{Counter, Kind};
use crate::ops;
use crate::profile::vocabulary::{Function, Names, Profile, RowSet, RunOptions, RECV, SEND};
use crate::sys::uapi::IoUringSqe;
use crate::sys::{pair, Fd, SysResult};

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
    options: RunOptions::SLOTS,
    shape: |cfg| SocketPairs::shape(cfg.slots),
    series: &[RowSet::only(
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
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut Stream::<SocketPairs>::new(s)?, ring, ledger),
};

/// The checks line's totals: all CQEs, the sends', the receives'.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("send_cqes", |l| l.kind(Kind::Send)),
    ("recv_cqes", |l| l.kind(Kind::Recv)),
];

/// u0's streams: an AF_UNIX socketpair each, sent on and received from.
pub struct SocketPairs;

impl Requests for SocketPairs {
    fn open() -> SysResult<(Fd, Fd)> {
        pair::unix_stream()
    }
    const OPEN_CALL: &'static str = "socketpair";
    const KINDS: [Kind; 2] = [Kind::Send, Kind::Recv];
    fn send(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe {
        ops::send(fd, buf, len, user_data)
    }
    fn recv(fd: i32, buf: *mut u8, len: u32, user_data: u64) -> IoUringSqe {
        ops::recv(fd, buf, len, user_data)
    }
}
