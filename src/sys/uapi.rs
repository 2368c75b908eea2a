//! Hand-written io_uring, futex and scheduler UAPI: the names are the kernel's
//! (include/uapi/linux/io_uring.h, futex.h), every layout is asserted at
//! compile time, field by field, so a typo cannot survive a build.

/// Asserts a struct's size, alignment and each field's offset, and that the
/// listed fields' sizes add up to the struct's size (no field forgotten).
macro_rules! check_struct {
    ($t:ty, size $size:expr, align $align:expr, $($field:ident @ $off:expr),+ $(,)?) => {
        const _: () = {
            assert!(core::mem::size_of::<$t>() == $size);
            assert!(core::mem::align_of::<$t>() == $align);
            $(assert!(core::mem::offset_of!($t, $field) == $off);)+
            let mut sum = 0;
            $(sum += field_size(|s: &$t| &s.$field);)+
            assert!(sum == $size);
        };
    };
}

/// Size of a field, named through an accessor closure (usable in const).
const fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

// ---- io_uring_setup(2) ----

/// A kernel thread (the SQ thread) takes the SQEs from the SQ ring: the
/// application submits without io_uring_enter (q0).
pub const IORING_SETUP_SQPOLL: u32 = 1 << 1;
/// The SQ thread runs on io_uring_params.sq_thread_cpu alone.
pub const IORING_SETUP_SQ_AFF: u32 = 1 << 2;
/// Ask for `cq_entries` completion slots instead of twice sq_entries.
pub const IORING_SETUP_CQSIZE: u32 = 1 << 3;
/// Start disabled: every io_uring_enter fails (EBADFD) until the ring is
/// enabled (IORING_REGISTER_ENABLE_RINGS). The tests make a cycle's first
/// submission fail with it.
pub const IORING_SETUP_R_DISABLED: u32 = 1 << 6;
/// Task work that posts completions does not interrupt the task (no IPI);
/// it runs at the task's next transition to the kernel (g0).
pub const IORING_SETUP_COOP_TASKRUN: u32 = 1 << 8;
/// Only one task submits.
pub const IORING_SETUP_SINGLE_ISSUER: u32 = 1 << 12;
/// Defer task work to io_uring_enter(GETEVENTS).
pub const IORING_SETUP_DEFER_TASKRUN: u32 = 1 << 13;

/// SQ and CQ rings share one mapping.
pub const IORING_FEAT_SINGLE_MMAP: u32 = 1 << 0;
/// io_uring_enter takes struct io_uring_getevents_arg.
pub const IORING_FEAT_EXT_ARG: u32 = 1 << 8;

/// mmap offsets of the SQ ring, CQ ring and SQE array.
pub const IORING_OFF_SQ_RING: usize = 0;
pub const IORING_OFF_CQ_RING: usize = 0x800_0000;
pub const IORING_OFF_SQES: usize = 0x1000_0000;

/// struct io_sqring_offsets: where each SQ ring field lives in the mapping.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoSqringOffsets {
    pub head: u32,
    pub tail: u32,
    pub ring_mask: u32,
    pub ring_entries: u32,
    pub flags: u32,
    pub dropped: u32,
    pub array: u32,
    pub resv1: u32,
    pub user_addr: u64,
}
check_struct!(IoSqringOffsets, size 40, align 8,
    head @ 0, tail @ 4, ring_mask @ 8, ring_entries @ 12, flags @ 16,
    dropped @ 20, array @ 24, resv1 @ 28, user_addr @ 32);

/// struct io_cqring_offsets: where each CQ ring field lives in the mapping.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoCqringOffsets {
    pub head: u32,
    pub tail: u32,
    pub ring_mask: u32,
    pub ring_entries: u32,
    pub overflow: u32,
    pub cqes: u32,
    pub flags: u32,
    pub resv1: u32,
    pub user_addr: u64,
}
check_struct!(IoCqringOffsets, size 40, align 8,
    head @ 0, tail @ 4, ring_mask @ 8, ring_entries @ 12, overflow @ 16,
    cqes @ 20, flags @ 24, resv1 @ 28, user_addr @ 32);

/// struct io_uring_params: in/out argument of io_uring_setup.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoUringParams {
    pub sq_entries: u32,
    pub cq_entries: u32,
    pub flags: u32,
    pub sq_thread_cpu: u32,
    pub sq_thread_idle: u32,
    pub features: u32,
    pub wq_fd: u32,
    pub resv: [u32; 3],
    pub sq_off: IoSqringOffsets,
    pub cq_off: IoCqringOffsets,
}
check_struct!(IoUringParams, size 120, align 8,
    sq_entries @ 0, cq_entries @ 4, flags @ 8, sq_thread_cpu @ 12,
    sq_thread_idle @ 16, features @ 20, wq_fd @ 24, resv @ 28,
    sq_off @ 40, cq_off @ 80);

// ---- submission and completion entries ----

/// enum io_uring_op values used here.
pub const IORING_OP_NOP: u8 = 0;
pub const IORING_OP_FSYNC: u8 = 3;
pub const IORING_OP_POLL_ADD: u8 = 6;
pub const IORING_OP_SYNC_FILE_RANGE: u8 = 8;
pub const IORING_OP_TIMEOUT: u8 = 11;
pub const IORING_OP_ASYNC_CANCEL: u8 = 14;
pub const IORING_OP_FALLOCATE: u8 = 17;
pub const IORING_OP_STATX: u8 = 21;
pub const IORING_OP_READ: u8 = 22;
pub const IORING_OP_WRITE: u8 = 23;
pub const IORING_OP_FADVISE: u8 = 24;
pub const IORING_OP_MADVISE: u8 = 25;
pub const IORING_OP_SEND: u8 = 26;
pub const IORING_OP_RECV: u8 = 27;
pub const IORING_OP_SPLICE: u8 = 30;
pub const IORING_OP_MSG_RING: u8 = 40;
pub const IORING_OP_FUTEX_WAIT: u8 = 51;
pub const IORING_OP_FUTEX_WAKE: u8 = 52;
pub const IORING_OP_FUTEX_WAITV: u8 = 53;
/// Since 6.9.
pub const IORING_OP_FTRUNCATE: u8 = 55;

/// IORING_OP_MSG_RING command (sqe->addr): post a CQE with user_data =
/// sqe->off and res = sqe->len in the ring whose fd is sqe->fd.
pub const IORING_MSG_DATA: u64 = 0;

/// Cancel the request whose user_data equals sqe->addr.
pub const IORING_ASYNC_CANCEL_USERDATA: u32 = 1 << 4;

/// sqe->flags: the next SQE starts when this one completed (a chain).
pub const IOSQE_IO_LINK: u8 = 1 << 2;
/// sqe->flags: never issue inline; punt to an io-wq worker.
pub const IOSQE_ASYNC: u8 = 1 << 4;

/// Readable, as poll(2) spells it: IORING_OP_POLL_ADD's poll32_events
/// (sqe->op_flags) and the mask its CQE reports.
pub const POLLIN: u32 = 0x0001;

/// sqe->off of IORING_OP_READ/WRITE: the file's current position (a pipe
/// or an eventfd has no other). Also IORING_OP_SPLICE's `off` and
/// `splice_off_in` for a pipe: no offset.
pub const RW_CURRENT_POS: u64 = u64::MAX;

/// IORING_OP_FADVISE's advice (sqe->op_flags): read ahead. Unlike NORMAL,
/// RANDOM and SEQUENTIAL, io_uring runs it in io-wq (advise.c,
/// io_fadvise_force_async).
pub const POSIX_FADV_WILLNEED: u32 = 3;
/// IORING_OP_MADVISE's advice (sqe->op_flags): no special treatment.
pub const MADV_NORMAL: u32 = 0;

/// struct io_uring_sqe with the unions flattened to the members we use:
/// `off` is also addr2 (futex value / nr), `op_flags` is also futex_flags
/// and cancel_flags, `addr3` is the futex mask.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoUringSqe {
    pub opcode: u8,
    pub flags: u8,
    pub ioprio: u16,
    pub fd: i32,
    pub off: u64,
    pub addr: u64,
    pub len: u32,
    pub op_flags: u32,
    pub user_data: u64,
    pub buf_index: u16,
    pub personality: u16,
    pub file_index: u32,
    pub addr3: u64,
    pub pad2: u64,
}
check_struct!(IoUringSqe, size 64, align 8,
    opcode @ 0, flags @ 1, ioprio @ 2, fd @ 4, off @ 8, addr @ 16, len @ 24,
    op_flags @ 28, user_data @ 32, buf_index @ 40, personality @ 42,
    file_index @ 44, addr3 @ 48, pad2 @ 56);

/// struct io_uring_cqe (without the CQE32 extension).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoUringCqe {
    pub user_data: u64,
    pub res: i32,
    pub flags: u32,
}
check_struct!(IoUringCqe, size 16, align 8, user_data @ 0, res @ 8, flags @ 12);

// ---- io_uring_enter(2) ----

/// Wait for min_complete completions.
pub const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
/// The last two arguments are an io_uring_getevents_arg and its size.
pub const IORING_ENTER_EXT_ARG: u32 = 1 << 3;

/// io_uring_enter flag: wake the SQ thread (when IORING_SQ_NEED_WAKEUP).
pub const IORING_ENTER_SQ_WAKEUP: u32 = 1 << 1;

/// SQ ring flags: the SQ thread went to sleep; io_uring_enter with
/// IORING_ENTER_SQ_WAKEUP wakes it.
pub const IORING_SQ_NEED_WAKEUP: u32 = 1 << 0;
/// SQ ring flags: CQEs overflowed the CQ and wait in the kernel.
pub const IORING_SQ_CQ_OVERFLOW: u32 = 1 << 1;

/// struct __kernel_timespec.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelTimespec {
    pub tv_sec: i64,
    pub tv_nsec: i64,
}
check_struct!(KernelTimespec, size 16, align 8, tv_sec @ 0, tv_nsec @ 8);

impl KernelTimespec {
    /// `ns` nanoseconds (a relative timeout).
    pub const fn from_ns(ns: u64) -> KernelTimespec {
        KernelTimespec {
            tv_sec: (ns / 1_000_000_000) as i64,
            tv_nsec: (ns % 1_000_000_000) as i64,
        }
    }
}

/// struct io_uring_getevents_arg: EXT_ARG payload (timeout for the wait).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoUringGeteventsArg {
    pub sigmask: u64,
    pub sigmask_sz: u32,
    pub min_wait_usec: u32,
    pub ts: u64,
}
check_struct!(IoUringGeteventsArg, size 24, align 8,
    sigmask @ 0, sigmask_sz @ 8, min_wait_usec @ 12, ts @ 16);

// ---- io_uring_register(2) ----

/// Signal an eventfd (arg: *const i32, nr 1) on CQ commits.
pub const IORING_REGISTER_EVENTFD: u32 = 4;
/// Fill a struct io_uring_probe with the supported opcodes.
pub const IORING_REGISTER_PROBE: u32 = 8;
/// The CPUs the ring's io-wq workers may run on (arg: a cpu_set_t, nr_args
/// its size in bytes).
pub const IORING_REGISTER_IOWQ_AFF: u32 = 17;
/// The most io-wq workers, bounded and unbounded (arg: u32[2], 0 leaves a
/// limit as it is; the old limits are written back).
pub const IORING_REGISTER_IOWQ_MAX_WORKERS: u32 = 19;
/// Probe entry flag: the opcode is supported.
pub const IO_URING_OP_SUPPORTED: u16 = 1 << 0;
/// Number of struct io_uring_probe_op slots we pass (one per possible u8 op).
pub const PROBE_OPS: usize = 256;

/// struct io_uring_probe_op.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoUringProbeOp {
    pub op: u8,
    pub resv: u8,
    pub flags: u16,
    pub resv2: u32,
}
check_struct!(IoUringProbeOp, size 8, align 4, op @ 0, resv @ 1, flags @ 2, resv2 @ 4);

/// struct io_uring_probe with its flexible array sized for every opcode.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct IoUringProbe {
    pub last_op: u8,
    pub ops_len: u8,
    pub resv: u16,
    pub resv2: [u32; 3],
    pub ops: [IoUringProbeOp; PROBE_OPS],
}
check_struct!(IoUringProbe, size 16 + PROBE_OPS * 8, align 4,
    last_op @ 0, ops_len @ 1, resv @ 2, resv2 @ 4, ops @ 16);

// ---- futex2 ----

/// The futex word is 32 bits.
pub const FUTEX2_SIZE_U32: u32 = 0x02;
/// The futex is private to this process (no shared-mapping key lookup).
pub const FUTEX2_PRIVATE: u32 = 0x80;
/// Match any waiter bitset.
pub const FUTEX_BITSET_MATCH_ANY: u64 = 0xffff_ffff;

/// struct futex_waitv.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct FutexWaitv {
    pub val: u64,
    pub uaddr: u64,
    pub flags: u32,
    pub reserved: u32,
}
check_struct!(FutexWaitv, size 24, align 8, val @ 0, uaddr @ 8, flags @ 16, reserved @ 20);

// ---- statx(2) ----

/// statx mask: the size is wanted.
pub const STATX_SIZE: u32 = 0x200;
/// statx flags: about the file `dfd` names itself (its path is "").
pub const AT_EMPTY_PATH: u32 = 0x1000;
/// The file type bits of a mode, and a regular file's.
pub const S_IFMT: u16 = 0o170000;
pub const S_IFREG: u16 = 0o100000;

/// struct statx, the fields read here named, the rest (timestamps,
/// devices, mount id, alignments: from @64) kept as words.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Statx {
    pub stx_mask: u32,
    pub stx_blksize: u32,
    pub stx_attributes: u64,
    pub stx_nlink: u32,
    pub stx_uid: u32,
    pub stx_gid: u32,
    pub stx_mode: u16,
    pub spare0: u16,
    pub stx_ino: u64,
    pub stx_size: u64,
    pub stx_blocks: u64,
    pub stx_attributes_mask: u64,
    pub rest: [u64; 24],
}
check_struct!(Statx, size 256, align 8,
    stx_mask @ 0, stx_blksize @ 4, stx_attributes @ 8, stx_nlink @ 16,
    stx_uid @ 20, stx_gid @ 24, stx_mode @ 28, spare0 @ 30, stx_ino @ 32,
    stx_size @ 40, stx_blocks @ 48, stx_attributes_mask @ 56, rest @ 64);

// ---- misc ----

/// clock ids.
pub const CLOCK_MONOTONIC_RAW: i32 = 4;

/// mmap(2).
pub const PROT_READ: usize = 0x1;
pub const PROT_WRITE: usize = 0x2;
pub const MAP_SHARED: usize = 0x01;
pub const MAP_PRIVATE: usize = 0x02;
pub const MAP_ANONYMOUS: usize = 0x20;
pub const MAP_POPULATE: usize = 0x8000;

/// The longest path the kernel reads, its NUL included (linux/limits.h).
pub const PATH_MAX: usize = 4096;
/// openat(2).
pub const AT_FDCWD: i32 = -100;
pub const O_RDONLY: u32 = 0;
pub const O_WRONLY: u32 = 1;
pub const O_CREAT: u32 = 0o100;
pub const O_EXCL: u32 = 0o200;
pub const O_TRUNC: u32 = 0o1000;
/// unlinkat(2): remove a directory, as rmdir(2).
pub const AT_REMOVEDIR: u32 = 0x200;
/// newfstatat(2): about a symbolic link itself, not what it names.
pub const AT_SYMLINK_NOFOLLOW: u32 = 0x100;
/// renameat2(2): fail with EEXIST rather than replace the target.
pub const RENAME_NOREPLACE: u32 = 1;
pub const O_CLOEXEC: u32 = 0o2000000;
/// memfd_create: closed across execve.
pub const MFD_CLOEXEC: usize = 1;
/// lseek(2): the offset is from the start of the file.
pub const SEEK_SET: u32 = 0;
/// lseek(2): the offset is from the end of the file.
pub const SEEK_END: u32 = 2;

/// statfs(2)'s f_type of the filesystems that live in RAM (an initramfs
/// is unpacked into one of them).
pub const RAMFS_MAGIC: u64 = 0x8584_58f6;
pub const TMPFS_MAGIC: u64 = 0x0102_1994;

/// auxv types.
pub const AT_NULL: usize = 0;
pub const AT_PAGESZ: usize = 6;
/// The path the program was executed as (execve's filename).
pub const AT_EXECFN: usize = 31;
pub const AT_SYSINFO_EHDR: usize = 33;

/// struct utsname (new_utsname: six 65-byte fields).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Utsname {
    pub sysname: [u8; 65],
    pub nodename: [u8; 65],
    pub release: [u8; 65],
    pub version: [u8; 65],
    pub machine: [u8; 65],
    pub domainname: [u8; 65],
}
check_struct!(Utsname, size 390, align 1,
    sysname @ 0, nodename @ 65, release @ 130, version @ 195, machine @ 260,
    domainname @ 325);

// ---- rt_sigaction(2) ----

/// sa_flags: `restorer` is where handlers return (x86_64 requires it).
/// riscv64 has no such flag and no such field (see `KernelSigaction`).
#[cfg(not(target_arch = "riscv64"))]
pub const SA_RESTORER: u64 = 0x0400_0000;
/// sa_flags: the action becomes the default again once the handler is
/// entered (the same value on every arch built here).
pub const SA_RESETHAND: u64 = 0x8000_0000;
/// rt_sigaction's sigsetsize: the kernel's sigset_t, 64 signals.
pub const SIGSET_BYTES: usize = 8;

/// struct sigaction as the kernel takes it (not libc's). x86_64 and arm64
/// both have sa_restorer (`__ARCH_HAS_SA_RESTORER`); riscv64 has not (the
/// asm-generic layout without it: the kernel returns every handler through
/// the vDSO's `__vdso_rt_sigreturn`), so there the mask follows the flags.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelSigaction {
    pub handler: usize,
    pub flags: u64,
    #[cfg(not(target_arch = "riscv64"))]
    pub restorer: usize,
    pub mask: u64,
}
#[cfg(not(target_arch = "riscv64"))]
check_struct!(KernelSigaction, size 32, align 8,
    handler @ 0, flags @ 8, restorer @ 16, mask @ 24);
#[cfg(target_arch = "riscv64")]
check_struct!(KernelSigaction, size 24, align 8,
    handler @ 0, flags @ 8, mask @ 16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sqe_is_all_zero_bytes() {
        let sqe = IoUringSqe::default();
        // SAFETY: IoUringSqe is repr(C), 64 bytes, no padding (asserted above).
        let bytes: [u8; 64] = unsafe { core::mem::transmute(sqe) };
        assert_eq!(bytes, [0u8; 64]);
    }

    #[test]
    fn mask_is_zero_extended_32_bits() {
        assert_eq!(FUTEX_BITSET_MATCH_ANY, u32::MAX as u64);
    }
}
