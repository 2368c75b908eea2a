//! What only x86_64 decides: the syscall instructions and numbers, and the
//! few things its registers or its UAPI layout fix: the signal return
//! trampoline (`restore_rt`), the raw thread's clone trampoline
//! (`clone_thread`), the vDSO clock's name, the packed `struct
//! epoll_event`, and the cost counter's marker instructions (`cost_mark`).
//! Nothing else lives here.
//!
//! # Safety
//! Every function here is a raw system call. The caller guarantees that each
//! argument is what the kernel expects for that call (valid pointers, sizes).
//! Number in rax, arguments in rdi rsi rdx r10 r8 r9, result in rax; the
//! `syscall` instruction clobbers rcx and r11. None of these is marked `nomem`
//! or `readonly`: calls such as io_uring_enter read and write user memory.

use core::arch::asm;

pub mod nr {
    pub const READ: usize = 0;
    pub const WRITE: usize = 1;
    pub const CLOSE: usize = 3;
    pub const MMAP: usize = 9;
    pub const MUNMAP: usize = 11;
    pub const RT_SIGACTION: usize = 13;
    pub const RT_SIGPROCMASK: usize = 14;
    pub const RT_SIGRETURN: usize = 15;
    pub const NANOSLEEP: usize = 35;
    pub const STATFS: usize = 137;
    pub const GETPID: usize = 39;
    pub const CLONE: usize = 56;
    pub const KILL: usize = 62;
    pub const UNAME: usize = 63;
    pub const SYNC: usize = 162;
    pub const MOUNT: usize = 165;
    pub const REBOOT: usize = 169;
    pub const FUTEX: usize = 202;
    pub const SCHED_SETAFFINITY: usize = 203;
    pub const SCHED_GETAFFINITY: usize = 204;
    pub const CLOCK_GETTIME: usize = 228;
    pub const EXIT_GROUP: usize = 231;
    pub const EPOLL_CTL: usize = 233;
    pub const OPENAT: usize = 257;
    pub const MKDIRAT: usize = 258;
    pub const UNLINKAT: usize = 263;
    pub const EPOLL_PWAIT: usize = 281;
    pub const EPOLL_CREATE1: usize = 291;
    pub const GETCPU: usize = 309;
    pub const IO_URING_SETUP: usize = 425;
    pub const IO_URING_ENTER: usize = 426;
    pub const IO_URING_REGISTER: usize = 427;
    pub const IOCTL: usize = 16;
    pub const MPROTECT: usize = 10;
    pub const LSEEK: usize = 8;
    pub const PREAD64: usize = 17;
    pub const EXIT: usize = 60;
    pub const EVENTFD2: usize = 290;
    pub const NEWFSTATAT: usize = 262;
    pub const LINKAT: usize = 265;
    pub const RENAMEAT2: usize = 316;
    pub const PIPE2: usize = 293;
    pub const SOCKETPAIR: usize = 53;
    pub const MEMFD_CREATE: usize = 319;
    pub const GETDENTS64: usize = 217;
    pub const SCHED_SETSCHEDULER: usize = 144;
    pub const SCHED_GETSCHEDULER: usize = 145;
    pub const SCHED_YIELD: usize = 24;
}

/// The vDSO's clock_gettime and the version that defines it.
pub const VDSO_CLOCK_GETTIME: (&[u8], &[u8]) = (b"__vdso_clock_gettime", b"LINUX_2.6");

/// Where a caught signal's handler returns (sa_restorer, with SA_RESTORER):
/// rt_sigreturn restores the interrupted context from the frame the kernel
/// pushed. x86_64 has no default restorer, so the flag is required there.
///
/// # Safety
/// Only the kernel may enter it, as a handler's return address.
#[unsafe(naked)]
pub unsafe extern "C" fn restore_rt() -> ! {
    core::arch::naked_asm!("mov eax, {n}", "syscall", "ud2", n = const nr::RT_SIGRETURN)
}

/// Raw system call, 1 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall1(n: usize, a0: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0,
             lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    ret
}

/// Raw system call, 0 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall0(n: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret,
             lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    ret
}

/// Raw system call, 2 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall2(n: usize, a0: usize, a1: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0, in("rsi") a1,
             lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    ret
}

/// Raw system call, 3 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall3(n: usize, a0: usize, a1: usize, a2: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0, in("rsi") a1,
             in("rdx") a2, lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    ret
}

/// Raw system call, 4 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall4(n: usize, a0: usize, a1: usize, a2: usize, a3: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0, in("rsi") a1,
             in("rdx") a2, in("r10") a3, lateout("rcx") _, lateout("r11") _,
             options(nostack));
    }
    ret
}

/// Raw system call, 5 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall5(n: usize, a0: usize, a1: usize, a2: usize, a3: usize, a4: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0, in("rsi") a1,
             in("rdx") a2, in("r10") a3, in("r8") a4, lateout("rcx") _, lateout("r11") _,
             options(nostack));
    }
    ret
}

/// Raw system call, 6 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall6(
    n: usize,
    a0: usize,
    a1: usize,
    a2: usize,
    a3: usize,
    a4: usize,
    a5: usize,
) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe {
        asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a0, in("rsi") a1,
             in("rdx") a2, in("r10") a3, in("r8") a4, in("r9") a5,
             lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    ret
}

/// struct epoll_event: the x86_64 UAPI declares it `__attribute__((packed))`
/// (EPOLL_PACKED), so `data` sits at offset 4 and the struct is 12 bytes.
#[repr(C, packed)]
#[derive(Clone, Copy, Debug, Default)]
pub struct EpollEvent {
    pub events: u32,
    pub data: u64,
}

impl EpollEvent {
    pub const fn new(events: u32, data: u64) -> EpollEvent {
        EpollEvent { events, data }
    }
}

/// clone(flags, stack, ptid, ctid, tls = 0) that starts the child on `stack`
/// in `entry(arg)`. Returns the child's tid (or -errno) in the parent.
///
/// `entry` and `arg` travel on the child's stack, so the child pops them
/// and never reads a register or a byte of the parent's frame; it clears
/// rbp (end of backtraces) and calls `entry` with rsp 16-byte aligned
/// before the call, as the ABI requires.
///
/// # Safety
/// `stack_top` is the end of a writable mapping large enough for `entry`,
/// used by nothing else until the child has exited; `flags` describe a
/// thread (CLONE_VM and friends, no CLONE_SETTLS); `ptid`/`ctid` are valid
/// for the flags that name them; `entry` never returns.
#[inline(never)]
pub unsafe fn clone_thread(
    flags: usize,
    stack_top: *mut u8,
    ptid: *mut u32,
    ctid: *mut u32,
    entry: extern "C" fn(usize) -> !,
    arg: usize,
) -> isize {
    let sp = ((stack_top as usize) & !15) - 16;
    // SAFETY: sp..sp+16 lies in the caller's stack mapping (contract).
    unsafe {
        (sp as *mut usize).write(arg);
        ((sp + 8) as *mut usize).write(entry as usize);
    }
    let ret: isize;
    // SAFETY: the caller upholds the contract above. The child leaves this
    // asm block only through `call`, on its own stack; `nostack` holds for
    // the parent, which pushes nothing.
    unsafe {
        asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "pop rdi",
            "pop rax",
            "call rax",
            "ud2",
            "2:",
            inlateout("rax") nr::CLONE as isize => ret,
            in("rdi") flags, in("rsi") sp, in("rdx") ptid, in("r10") ctid, in("r8") 0usize,
            lateout("rcx") _, lateout("r11") _, options(nostack)
        );
    }
    ret
}

/// One of the cost counter's markers (docs/cost.md; plugin/marker.h):
/// `nop dword ptr [rax + disp32]`, bytes `0f 1f 80` and a displacement no
/// compiler writes, `'u' 'r' KIND SERIES`: KIND `'r'` starts a run, `'o'`
/// opens the window of `series` (below `COST_SERIES`), `'c'` closes it,
/// `'s'` and `'e'` start and end a timed span inside it (the SERIES byte of
/// `'r'`, `'s'` and `'e'` is 0). Inlined: with constant arguments it is
/// that one instruction.
#[inline(always)]
pub fn cost_mark(mark: super::Mark, series: usize) {
    use super::Mark::{Close, End, Open, Run, Start};
    macro_rules! mark {
        ($kind:expr, $series:expr) => {
            // SAFETY: a multi-byte NOP: no register, flag or memory changes.
            unsafe {
                asm!(".byte 0x0f, 0x1f, 0x80, 0x75, 0x72, {k}, {s}", k = const $kind,
                     s = const $series, options(nostack, preserves_flags))
            }
        };
    }
    // One Open and one Close arm per series below.
    const _: () = assert!(super::COST_SERIES == 4);
    match (mark, series) {
        (Run, _) => mark!(b'r', 0),
        (Open, 0) => mark!(b'o', 0),
        (Open, 1) => mark!(b'o', 1),
        (Open, 2) => mark!(b'o', 2),
        (Open, _) => mark!(b'o', 3),
        (Close, 0) => mark!(b'c', 0),
        (Close, 1) => mark!(b'c', 1),
        (Close, 2) => mark!(b'c', 2),
        (Close, _) => mark!(b'c', 3),
        (Start, _) => mark!(b's', 0),
        (End, _) => mark!(b'e', 0),
    }
}
