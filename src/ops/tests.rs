//! Golden encodings: every byte of each SQE an encoder makes.

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

#[test]
fn splice_golden() {
    let got = bytes(splice(5, 9, 16, 0x2a));
    #[rustfmt::skip]
    let want: [u8; 64] = [
        30, 0, 0, 0,             9, 0, 0, 0,               // opcode, flags, ioprio, fd = the pipe written
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,    // off = -1: the output has no offset
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,    // splice_off_in = -1: nor the input
        16, 0, 0, 0,             0, 0, 0, 0,               // len, splice_flags 0 (blocking)
        0x2a, 0, 0, 0, 0, 0, 0, 0,                         // user_data
        0, 0, 0, 0,              5, 0, 0, 0,               // buf_index, personality, splice_fd_in = the pipe read
        0, 0, 0, 0, 0, 0, 0, 0,                            // addr3
        0, 0, 0, 0, 0, 0, 0, 0,                            // pad
    ];
    assert_eq!(got, want);
}

/// The file operations of g0's mix, every byte: what each names of the
/// file (fd 3) and where, the rest zero.
#[test]
fn file_ops_golden() {
    #[rustfmt::skip]
    let cases: [(IoUringSqe, [u8; 32]); 6] = [
        (fsync(3, 7), [
            3, 0, 0, 0,              3, 0, 0, 0,           // FSYNC, fd
            0, 0, 0, 0, 0, 0, 0, 0,                        // off 0
            0, 0, 0, 0, 0, 0, 0, 0,                        // addr
            0, 0, 0, 0,              0, 0, 0, 0,           // len 0 (to the end), fsync_flags 0
        ]),
        (fallocate(3, 0x1000, 0x2000, 7), [
            17, 0, 0, 0,             3, 0, 0, 0,           // FALLOCATE, fd
            0, 0x10, 0, 0, 0, 0, 0, 0,                     // off
            0, 0x20, 0, 0, 0, 0, 0, 0,                     // addr = the length
            0, 0, 0, 0,              0, 0, 0, 0,           // len = mode 0
        ]),
        (fadvise(3, 0x200, 4096, POSIX_FADV_WILLNEED, 7), [
            24, 0, 0, 0,             3, 0, 0, 0,           // FADVISE, fd
            0, 2, 0, 0, 0, 0, 0, 0,                        // off
            0, 0, 0, 0, 0, 0, 0, 0,                        // addr 0: the length is in len
            0, 0x10, 0, 0,           3, 0, 0, 0,           // len, fadvise_advice WILLNEED
        ]),
        (madvise(WORD as *const u8, 4096, MADV_NORMAL, 7), [
            25, 0, 0, 0,             0xff, 0xff, 0xff, 0xff, // MADVISE, no file
            0, 0, 0, 0, 0, 0, 0, 0,                        // off 0: the length is in len
            0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,      // addr = the memory
            0, 0x10, 0, 0,           0, 0, 0, 0,           // len, advice MADV_NORMAL
        ]),
        (sync_file_range(3, 0x400, 4096, 7), [
            8, 0, 0, 0,              3, 0, 0, 0,           // SYNC_FILE_RANGE, fd
            0, 4, 0, 0, 0, 0, 0, 0,                        // off
            0, 0, 0, 0, 0, 0, 0, 0,                        // addr
            0, 0x10, 0, 0,           0, 0, 0, 0,           // len, sync_range_flags 0
        ]),
        (ftruncate(3, 2048, 7), [
            55, 0, 0, 0,             3, 0, 0, 0,           // FTRUNCATE, fd
            0, 8, 0, 0, 0, 0, 0, 0,                        // off = the new size
            0, 0, 0, 0, 0, 0, 0, 0,                        // addr
            0, 0, 0, 0,              0, 0, 0, 0,           // len, rw_flags
        ]),
    ];
    for (sqe, head) in cases {
        let b = bytes(sqe);
        assert_eq!(b[..32], head, "opcode {}", sqe.opcode);
        // user_data 7, and nothing else in the second half.
        assert_eq!(b[32..], bytes(nop(7))[32..], "opcode {}", sqe.opcode);
    }
}

#[test]
fn statx_golden() {
    let got = bytes(statx_fd(3, STATX_SIZE, WORD as *mut Statx, 0x2b));
    let path = u64::from_le_bytes(got[16..24].try_into().unwrap());
    // SAFETY: the encoder's path, a static byte.
    assert_eq!(unsafe { *(path as *const u8) }, 0, "the path is \"\"");
    #[rustfmt::skip]
    let want: [u8; 64] = [
        21, 0, 0, 0,             3, 0, 0, 0,               // STATX, dfd = the file
        0x40, 0x33, 0x22, 0x11, 0x00, 0x7f, 0, 0,          // addr2 = struct statx
        0, 0, 0, 0, 0, 0, 0, 0,                            // addr = "" (checked above)
        0, 2, 0, 0,              0, 0x10, 0, 0,            // len = mask STATX_SIZE, statx_flags AT_EMPTY_PATH
        0x2b, 0, 0, 0, 0, 0, 0, 0,                         // user_data
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let mut got = got;
    got[16..24].fill(0);
    assert_eq!(got, want);
}

#[test]
fn read_and_write_at_an_offset() {
    let buf = WORD as *mut u8;
    let (r, w) = (read_at(5, buf, 512, 0, 1), write_at(5, buf, 512, 0x800, 2));
    assert_eq!(
        (r.opcode, r.fd, r.off, r.addr, r.len),
        (22, 5, 0, WORD, 512)
    );
    assert_eq!(
        (w.opcode, w.fd, w.off, w.addr, w.len),
        (23, 5, 0x800, WORD, 512)
    );
    assert_eq!(read_at(5, buf, 16, RW_CURRENT_POS, 3), read(5, buf, 16, 3));
    assert_eq!(
        write_at(5, buf, 16, RW_CURRENT_POS, 3),
        write(5, buf, 16, 3)
    );
}
