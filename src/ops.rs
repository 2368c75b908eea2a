//! SQE encoders, one per opcode, liburing-style: each starts from an all-zero
//! SQE and sets only its own fields, so every byte is defined on every use.
//! The golden tests (ops/tests.rs) spell out all 64 bytes of each encoding.

use crate::sys::uapi::*;

/// futex2 flags for a 32-bit word, private or shared.
#[inline(always)]
pub const fn futex_flags(private: bool) -> u32 {
    if private {
        FUTEX2_SIZE_U32 | FUTEX2_PRIVATE
    } else {
        FUTEX2_SIZE_U32
    }
}

/// IORING_OP_FUTEX_WAIT: sleep while `*word == expected`.
#[inline(always)]
pub fn futex_wait(word: *const u32, expected: u32, flags: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FUTEX_WAIT,
        fd: flags as i32,
        off: expected as u64,
        addr: word as u64,
        user_data,
        addr3: FUTEX_BITSET_MATCH_ANY,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FUTEX_WAKE: wake at most `nr` waiters on `word`.
#[inline(always)]
pub fn futex_wake(word: *const u32, nr: u32, flags: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FUTEX_WAKE,
        fd: flags as i32,
        off: nr as u64,
        addr: word as u64,
        user_data,
        addr3: FUTEX_BITSET_MATCH_ANY,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FUTEX_WAITV over `count` struct futex_waitv entries.
#[inline(always)]
pub fn futex_waitv(vec: *const FutexWaitv, count: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FUTEX_WAITV,
        addr: vec as u64,
        len: count,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_ASYNC_CANCEL of the request whose user_data is `target`.
#[inline(always)]
pub fn cancel(target: u64, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_ASYNC_CANCEL,
        fd: -1,
        addr: target,
        op_flags: IORING_ASYNC_CANCEL_USERDATA,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_NOP.
#[inline(always)]
pub fn nop(user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_NOP,
        fd: -1,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_MSG_RING, IORING_MSG_DATA: posts a CQE in the ring `target_fd`
/// with user_data = `target_user_data` and res = `value`; this request's own
/// CQE (user_data) reports 0 on success. msg_ring_flags 0: no CQE skipping,
/// no IORING_MSG_RING_FLAGS_PASS, so the target CQE's flags are 0.
#[inline(always)]
pub fn msg_ring_data(
    target_fd: i32,
    value: u32,
    target_user_data: u64,
    user_data: u64,
) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_MSG_RING,
        fd: target_fd,
        off: target_user_data,
        addr: IORING_MSG_DATA,
        len: value,
        user_data,
        ..IoUringSqe::default()
    }
}

/// `sqe` with the IOSQE flags `flags` set as well (IOSQE_ASYNC,
/// IOSQE_IO_LINK).
#[inline(always)]
pub fn with_flags(sqe: IoUringSqe, flags: u8) -> IoUringSqe {
    IoUringSqe {
        flags: sqe.flags | flags,
        ..sqe
    }
}

/// IORING_OP_READ: up to `len` bytes from `fd`, at its current position,
/// into `buf`; res is the bytes read.
#[inline(always)]
pub fn read(fd: i32, buf: *mut u8, len: u32, user_data: u64) -> IoUringSqe {
    read_at(fd, buf, len, RW_CURRENT_POS, user_data)
}

/// IORING_OP_READ at offset `off` of `fd` (RW_CURRENT_POS: its position).
#[inline(always)]
pub fn read_at(fd: i32, buf: *mut u8, len: u32, off: u64, user_data: u64) -> IoUringSqe {
    rw(IORING_OP_READ, fd, buf as u64, len, off, user_data)
}

/// IORING_OP_WRITE: `len` bytes of `buf` to `fd`, at its current
/// position; res is the bytes written.
#[inline(always)]
pub fn write(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe {
    write_at(fd, buf, len, RW_CURRENT_POS, user_data)
}

/// IORING_OP_WRITE at offset `off` of `fd` (RW_CURRENT_POS: its position).
#[inline(always)]
pub fn write_at(fd: i32, buf: *const u8, len: u32, off: u64, user_data: u64) -> IoUringSqe {
    rw(IORING_OP_WRITE, fd, buf as u64, len, off, user_data)
}

/// What READ and WRITE set alike (liburing's io_uring_prep_rw): `len`
/// bytes at `addr`, offset `off` of `fd`.
#[inline(always)]
fn rw(opcode: u8, fd: i32, addr: u64, len: u32, off: u64, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode,
        fd,
        off,
        addr,
        len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_POLL_ADD, one-shot (len 0, not IORING_POLL_ADD_MULTI): one
/// CQE when `fd` reports one of `events` (poll32_events); res is the mask.
#[inline(always)]
pub fn poll_add(fd: i32, events: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_POLL_ADD,
        fd,
        op_flags: events,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_TIMEOUT, relative (timeout_flags 0): completes with res 0
/// once `count` other requests completed, or -ETIME when `*ts` passed
/// first. The kernel reads `*ts` when it prepares the request.
#[inline(always)]
pub fn timeout(ts: *const KernelTimespec, count: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_TIMEOUT,
        fd: -1,
        off: count as u64,
        addr: ts as u64,
        len: 1,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_SEND of `len` bytes of `buf` on socket `fd` (msg_flags 0);
/// res is the bytes sent.
#[inline(always)]
pub fn send(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_SEND,
        fd,
        addr: buf as u64,
        len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_RECV of up to `len` bytes from socket `fd` into `buf`
/// (msg_flags 0); res is the bytes received.
#[inline(always)]
pub fn recv(fd: i32, buf: *mut u8, len: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_RECV,
        fd,
        addr: buf as u64,
        len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_SPLICE of up to `len` bytes from pipe `fd_in` into pipe
/// `fd_out`, neither at an offset (-1 both: `splice_off_in` shares `addr`,
/// `off` is the output's), splice_flags 0 (so it waits for data, in an
/// io-wq worker: the prep sets REQ_F_FORCE_ASYNC); `fd_in` is
/// `splice_fd_in`, which shares `file_index`. res is the bytes moved.
#[inline(always)]
pub fn splice(fd_in: i32, fd_out: i32, len: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_SPLICE,
        fd: fd_out,
        off: RW_CURRENT_POS,
        addr: RW_CURRENT_POS,
        len,
        user_data,
        file_index: fd_in as u32,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FSYNC of all of `fd` (off 0, len 0: to the end;
/// fsync_flags 0, not IORING_FSYNC_DATASYNC); res 0.
#[inline(always)]
pub fn fsync(fd: i32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FSYNC,
        fd,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FALLOCATE of `len` bytes of `fd` from `off`, mode 0 (the
/// size grows to cover them): the length is in `addr`, the mode in `len`.
/// res 0.
#[inline(always)]
pub fn fallocate(fd: i32, off: u64, len: u64, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FALLOCATE,
        fd,
        off,
        addr: len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FADVISE of `len` bytes of `fd` from `off` with `advice`
/// (fadvise_advice shares `op_flags`); the length in `len`, where every
/// kernel since 5.6 reads it. res 0.
#[inline(always)]
pub fn fadvise(fd: i32, off: u64, len: u32, advice: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FADVISE,
        fd,
        off,
        len,
        op_flags: advice,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_MADVISE of `len` bytes of this process's memory at `addr`
/// with `advice` (in `op_flags`); no file (fd -1). res 0.
#[inline(always)]
pub fn madvise(addr: *const u8, len: u32, advice: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_MADVISE,
        fd: -1,
        addr: addr as u64,
        len,
        op_flags: advice,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_STATX of the file `dfd` is (path "", AT_EMPTY_PATH), the
/// fields of `mask` wanted, into `buf` (`addr2`, which shares `off`);
/// statx_flags share `op_flags`. res 0.
#[inline(always)]
pub fn statx_fd(dfd: i32, mask: u32, buf: *mut Statx, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_STATX,
        fd: dfd,
        off: buf as u64,
        addr: EMPTY_PATH.as_ptr() as u64,
        len: mask,
        op_flags: AT_EMPTY_PATH,
        user_data,
        ..IoUringSqe::default()
    }
}

/// The path of a STATX about its fd alone: "".
static EMPTY_PATH: [u8; 1] = [0];

/// IORING_OP_SYNC_FILE_RANGE of `len` bytes of `fd` from `off`,
/// sync_range_flags 0 (in `op_flags`: wait for nothing, start nothing, as
/// stress-ng asks). res 0.
#[inline(always)]
pub fn sync_file_range(fd: i32, off: u64, len: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_SYNC_FILE_RANGE,
        fd,
        off,
        len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_FTRUNCATE of `fd` to `size` bytes (in `off`; every other
/// field must be 0). res 0.
#[inline(always)]
pub fn ftruncate(fd: i32, size: u64, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_FTRUNCATE,
        fd,
        off: size,
        user_data,
        ..IoUringSqe::default()
    }
}

#[cfg(test)]
mod tests;
