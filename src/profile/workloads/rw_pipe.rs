//! r0: the rw path and its file references, on pipes: stream.rs's cycle
//! of IORING_OP_WRITE then IORING_OP_READ, 16 bytes each, one pipe per
//! pair, every one res 16 and every record read back byte for byte. Each
//! request takes a reference to its pipe's file when it is issued and
//! drops it when done.
//!
//! Why a pipe and not an in-memory file (memfd, tmpfs): a pipe is what
//! io_read and io_write see of any stream, and both complete inline, with
//! no wait and no io-wq: a pipe is FMODE_NOWAIT, with room it takes a
//! write whole, and holding data it reads without waiting. shmem (memfd,
//! tmpfs) is not FMODE_NOWAIT on 6.12, so io_uring punts every READ and
//! WRITE on it to io-wq (a0's path, not the rw path), and its page cache
//! and inode lock are the filesystem's cost. No cycle allocates memory:
//! each write into its empty pipe takes the page the pipe's last read gave
//! back (a pipe keeps one).

use super::stream::{Requests, Stream};
use crate::check::{Counter, Kind};
use crate::ops;
use crate::profile::vocabulary::{Function, Names, Profile, RowSet, RunOptions, READ, WRITE};
use crate::sys::uapi::IoUringSqe;
use crate::sys::{pair, Fd, SysResult};

/// r0: WRITE then READ on a pipe.
pub static R0: Profile = Profile {
    names: Names {
        short: "r0",
        long: "rw-pipe",
        formal: "r0_rw_pipe",
        help: "32 WRITE, 32 READ of 16 bytes, a pipe each (16, bytes checked)",
    },
    per: "WRITE/READ pair",
    opcodes: &[WRITE, READ],
    options: RunOptions::SLOTS,
    shape: |cfg| Pipes::shape(cfg.slots),
    series: &[RowSet::only("r0_rw_pipe", "io_uring READ/WRITE, pipe")],
    punted: &[],
    // `.prep` and `.issue` of IORING_OP_WRITE and IORING_OP_READ
    // (io_uring/rw.c), once per SQE each.
    functions: &[
        Function::per_request("io_prep_write", &[Kind::Write]),
        Function::per_request("io_write", &[Kind::Write]),
        Function::per_request("io_prep_read", &[Kind::Read]),
        Function::per_request("io_read", &[Kind::Read]),
    ],
    totals: &TOTALS,
    failures: &[],
    start: |s, ring, ledger, then| then(&mut Stream::<Pipes>::new(s)?, ring, ledger),
};

/// The checks line's totals: all CQEs, the writes', the reads'.
const TOTALS: [Counter; 3] = [
    ("cqes", |l| l.cqes),
    ("write_cqes", |l| l.kind(Kind::Write)),
    ("read_cqes", |l| l.kind(Kind::Read)),
];

/// r0's streams: a pipe each, written and read.
pub struct Pipes;

impl Requests for Pipes {
    fn open() -> SysResult<(Fd, Fd)> {
        // pipe2 gives (read end, write end); a stream's sending end is first.
        pair::pipe().map(|(rx, tx)| (tx, rx))
    }
    const OPEN_CALL: &'static str = "pipe2";
    const KINDS: [Kind; 2] = [Kind::Write, Kind::Read];
    fn send(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe {
        ops::write(fd, buf, len, user_data)
    }
    fn recv(fd: i32, buf: *mut u8, len: u32, user_data: u64) -> IoUringSqe {
        ops::read(fd, buf, len, user_data)
    }
}
