//! What only aarch64 decides: the syscall instructions (the numbers are
//! asm-generic's, generic.rs), the signal return trampoline (`restore_rt`),
//! the raw thread's clone trampoline (`clone_thread`), the vDSO clock's
//! name, and `struct epoll_event`'s layout. Nothing else lives here.
//!
//! # Safety
//! Every function here is a raw system call. The caller guarantees that each
//! argument is what the kernel expects for that call (valid pointers, sizes).
//! `svc 0` with the number in x8, arguments in x0..x5, result in x0. None of
//! these is `nomem` or `readonly`: io_uring_enter reads and writes user memory.

use core::arch::asm;

pub use super::generic::nr;

/// The vDSO's clock_gettime and the version that defines it.
pub const VDSO_CLOCK_GETTIME: (&[u8], &[u8]) = (b"__kernel_clock_gettime", b"LINUX_2.6.39");

/// Where a caught signal's handler returns (sa_restorer, with SA_RESTORER:
/// the kernel puts it in the link register): rt_sigreturn restores the
/// interrupted context from the frame the kernel pushed. Our own, like
/// x86_64's, rather than the vDSO's, which a static binary may lack.
///
/// # Safety
/// Only the kernel may enter it, as a handler's return address.
#[unsafe(naked)]
pub unsafe extern "C" fn restore_rt() -> ! {
    core::arch::naked_asm!("mov x8, #{n}", "svc 0", "brk #1", n = const nr::RT_SIGRETURN)
}

/// Raw system call, 0 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall0(n: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe { asm!("svc 0", in("x8") n, lateout("x0") ret, options(nostack)) };
    ret
}

/// Raw system call, 1 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall1(n: usize, a0: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe { asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, options(nostack)) };
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
        asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, in("x1") a1,
             options(nostack));
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
        asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, in("x1") a1,
             in("x2") a2, options(nostack));
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
        asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, in("x1") a1,
             in("x2") a2, in("x3") a3, options(nostack));
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
        asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, in("x1") a1,
             in("x2") a2, in("x3") a3, in("x4") a4, options(nostack));
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
        asm!("svc 0", in("x8") n, inlateout("x0") a0 as isize => ret, in("x1") a1,
             in("x2") a2, in("x3") a3, in("x4") a4, in("x5") a5, options(nostack));
    }
    ret
}

/// struct epoll_event: natural alignment on aarch64 (EPOLL_PACKED is empty
/// there), so `data` sits at offset 8 and the struct is 16 bytes; the four
/// bytes of padding are named so the layout check can count every byte.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct EpollEvent {
    pub events: u32,
    pub pad: u32,
    pub data: u64,
}

impl EpollEvent {
    pub const fn new(events: u32, data: u64) -> EpollEvent {
        EpollEvent {
            events,
            pad: 0,
            data,
        }
    }
}

/// clone(flags, stack, ptid, tls = 0, ctid) (aarch64 passes tls before
/// ctid) that starts the child on `stack` in `entry(arg)`. Returns the
/// child's tid (or -errno) in the parent.
///
/// `entry` and `arg` travel on the child's stack, so the child loads them
/// from there and never reads the parent's frame; it clears the frame and
/// link registers (end of backtraces) and keeps sp 16-byte aligned.
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
    // asm block only through `blr`, on its own stack; `nostack` holds for
    // the parent, which pushes nothing.
    unsafe {
        asm!(
            "svc 0",
            "cbnz x0, 2f",
            "mov x29, xzr",
            "mov x30, xzr",
            "ldp x0, x1, [sp], #16",
            "blr x1",
            "brk #1",
            "2:",
            in("x8") nr::CLONE, inlateout("x0") flags as isize => ret,
            in("x1") sp, in("x2") ptid, in("x3") 0usize, in("x4") ctid,
            options(nostack)
        );
    }
    ret
}
