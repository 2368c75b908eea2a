//! SQE encoders, one per opcode, liburing-style: each starts from an all-zero
//! SQE and sets only its own fields, so every byte is defined on every use.
//! The golden tests below spell out all 64 bytes of the futex encodings.

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
    IoUringSqe {
        opcode: IORING_OP_READ,
        fd,
        off: RW_CURRENT_POS,
        addr: buf as u64,
        len,
        user_data,
        ..IoUringSqe::default()
    }
}

/// IORING_OP_WRITE: `len` bytes of `buf` to `fd`, at its current
/// position; res is the bytes written.
#[inline(always)]
pub fn write(fd: i32, buf: *const u8, len: u32, user_data: u64) -> IoUringSqe {
    IoUringSqe {
        opcode: IORING_OP_WRITE,
        fd,
        off: RW_CURRENT_POS,
        addr: buf as u64,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(sqe: IoUringSqe) -> [u8; 64] {
        // SAFETY: IoUringSqe is 64 bytes of plain integers with no padding.
        unsafe { core::mem::transmute(sqe) }
    }

    // Golden encodings, every byte, for word address 0x0000_7f00_1122_3340.
    const WORD: u64 = 0x0000_7f00_1122_3340;

    #[test]
    fn futex_wait_golden() {
        let got = bytes(futex_wait(
            WORD as *const u32,
            0,
            futex_flags(true),
            0x0102_0304_0506_0708,
        ));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            51, 0, 0, 0,             0x82, 0, 0, 0,            // opcode, flags, ioprio, fd=futex2 flags
            0, 0, 0, 0, 0, 0, 0, 0,                            // off = expected value 0
            0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,          // addr = word
            0, 0, 0, 0,              0, 0, 0, 0,               // len, futex_flags
            0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,    // user_data
            0, 0, 0, 0, 0, 0, 0, 0,                            // buf_index, personality, file_index
            0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,                // addr3 = FUTEX_BITSET_MATCH_ANY
            0, 0, 0, 0, 0, 0, 0, 0,                            // pad
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn futex_wake_golden() {
        let got = bytes(futex_wake(WORD as *const u32, 1, futex_flags(true), 0x1f));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            52, 0, 0, 0,             0x82, 0, 0, 0,
            1, 0, 0, 0, 0, 0, 0, 0,                            // off = nr to wake
            0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,
            0, 0, 0, 0,              0, 0, 0, 0,
            0x1f, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn shared_futex_drops_private_bit() {
        assert_eq!(futex_flags(false), 0x02);
        assert_eq!(
            futex_wait(WORD as *const u32, 7, futex_flags(false), 0).fd,
            2
        );
        assert_eq!(futex_wait(WORD as *const u32, 7, 0x82, 0).off, 7);
    }

    #[test]
    fn msg_ring_data_golden() {
        let got = bytes(msg_ring_data(7, 0x0102_0304, 0x1122_3344_5566_7788, 0x2a));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            40, 0, 0, 0,             7, 0, 0, 0,               // opcode, flags, ioprio, fd = target ring
            0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,    // off = target CQE user_data
            0, 0, 0, 0, 0, 0, 0, 0,                            // addr = IORING_MSG_DATA
            0x04, 0x03, 0x02, 0x01,  0, 0, 0, 0,               // len = target CQE res, msg_ring_flags
            0x2a, 0, 0, 0, 0, 0, 0, 0,                         // user_data (source CQE)
            0, 0, 0, 0, 0, 0, 0, 0,                            // buf_index, personality, file_index
            0, 0, 0, 0, 0, 0, 0, 0,                            // addr3 (src fd: unused for data)
            0, 0, 0, 0, 0, 0, 0, 0,                            // pad
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn read_golden() {
        let got = bytes(read(5, WORD as *mut u8, 16, 0x0102_0304_0506_0708));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            22, 0, 0, 0,             5, 0, 0, 0,               // opcode, flags, ioprio, fd
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,    // off = -1: the current position
            0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,          // addr = buffer
            16, 0, 0, 0,             0, 0, 0, 0,               // len, rw_flags
            0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,    // user_data
            0, 0, 0, 0, 0, 0, 0, 0,                            // buf_index, personality, file_index
            0, 0, 0, 0, 0, 0, 0, 0,                            // addr3
            0, 0, 0, 0, 0, 0, 0, 0,                            // pad
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn poll_add_and_timeout_golden() {
        let got = bytes(poll_add(9, POLLIN, 0x2a));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            6, 0, 0, 0,              9, 0, 0, 0,               // opcode, flags, ioprio, fd
            0, 0, 0, 0, 0, 0, 0, 0,                            // off
            0, 0, 0, 0, 0, 0, 0, 0,                            // addr
            0, 0, 0, 0,              1, 0, 0, 0,               // len 0 (one-shot), poll32_events POLLIN
            0x2a, 0, 0, 0, 0, 0, 0, 0,                         // user_data
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(got, want);
        let got = bytes(timeout(WORD as *const KernelTimespec, 1, 0x2b));
        #[rustfmt::skip]
        let want: [u8; 64] = [
            11, 0, 0, 0,             0xff, 0xff, 0xff, 0xff,   // opcode, flags, ioprio, fd -1
            1, 0, 0, 0, 0, 0, 0, 0,                            // off = completions to wait for
            0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,          // addr = struct __kernel_timespec
            1, 0, 0, 0,              0, 0, 0, 0,               // len 1 (one timespec), timeout_flags 0
            0x2b, 0, 0, 0, 0, 0, 0, 0,                         // user_data
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn write_send_recv_and_flags_fields() {
        let buf = WORD as *mut u8;
        let w = write(3, buf, 16, 7);
        assert_eq!(
            (
                w.opcode,
                w.fd,
                w.off,
                w.addr,
                w.len,
                w.op_flags,
                w.user_data
            ),
            (23, 3, u64::MAX, WORD, 16, 0, 7)
        );
        for (sqe, op) in [(send(4, buf, 16, 8), 26), (recv(4, buf, 16, 8), 27)] {
            assert_eq!(
                (sqe.opcode, sqe.fd, sqe.off, sqe.addr, sqe.len, sqe.op_flags),
                (op, 4, 0, WORD, 16, 0)
            );
            assert_eq!(bytes(sqe)[32..], bytes(nop(8))[32..], "{op}");
        }
        let n = with_flags(with_flags(nop(1), IOSQE_ASYNC), IOSQE_IO_LINK);
        assert_eq!(bytes(n)[1], 0x14);
        assert_eq!(
            IoUringSqe { flags: 0, ..n },
            nop(1),
            "nothing but the flags byte"
        );
    }

    #[test]
    fn cancel_and_nop_fields() {
        let c = cancel(0xabc, 9);
        assert_eq!(
            (c.opcode, c.fd, c.addr, c.op_flags, c.user_data),
            (14, -1, 0xabc, 0x10, 9)
        );
        let n = nop(5);
        assert_eq!(bytes(n)[0], 0);
        assert_eq!((n.fd, n.user_data), (-1, 5));
        let v = futex_waitv(0x1000 as *const FutexWaitv, 8, 3);
        assert_eq!(
            (v.opcode, v.fd, v.addr, v.len, v.addr3),
            (53, 0, 0x1000, 8, 0)
        );
    }
}
