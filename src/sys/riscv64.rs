//! What only riscv64 decides: the syscall instructions (the numbers are
//! asm-generic's, generic.rs), the raw thread's clone trampoline
//! (`clone_thread`), the vDSO clock's name, and `struct epoll_event`'s
//! layout. Nothing else lives here.
//!
//! # Safety
//! Every function here is a raw system call. The caller guarantees that each
//! argument is what the kernel expects for that call (valid pointers, sizes).
//! `ecall` with the number in a7, arguments in a0..a5, result in a0; the
//! kernel preserves every other register. None of these is `nomem` or
//! `readonly`: io_uring_enter reads and writes user memory.
//!
//! The numbers are the asm-generic table's, shared with aarch64.
//!
//! No signal restorer lives here: riscv64 has no `sa_restorer` (the kernel
//! defines neither SA_RESTORER nor `__ARCH_HAS_SA_RESTORER` for it), and
//! its signal delivery always sets a handler's return address (ra) to the
//! vDSO's `__vdso_rt_sigreturn`, which does `li a7, 139; ecall`. The
//! sigaction layout without the field is in uapi.rs.

use core::arch::asm;

pub use super::generic::nr;

/// The vDSO's clock_gettime and the version that defines it
/// (arch/riscv/kernel/vdso/vdso.lds.S: `LINUX_4.15`).
pub const VDSO_CLOCK_GETTIME: (&[u8], &[u8]) = (b"__vdso_clock_gettime", b"LINUX_4.15");

/// Raw system call, 0 argument registers.
///
/// # Safety
/// The caller upholds that syscall's contract (see the module docs).
#[inline(always)]
pub unsafe fn syscall0(n: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller upholds the syscall's contract (module docs).
    unsafe { asm!("ecall", in("a7") n, lateout("a0") ret, options(nostack)) };
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
    unsafe { asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, options(nostack)) };
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
        asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, in("a1") a1,
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
        asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, in("a1") a1,
             in("a2") a2, options(nostack));
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
        asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, in("a1") a1,
             in("a2") a2, in("a3") a3, options(nostack));
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
        asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, in("a1") a1,
             in("a2") a2, in("a3") a3, in("a4") a4, options(nostack));
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
        asm!("ecall", in("a7") n, inlateout("a0") a0 as isize => ret, in("a1") a1,
             in("a2") a2, in("a3") a3, in("a4") a4, in("a5") a5, options(nostack));
    }
    ret
}

/// struct epoll_event: natural alignment on riscv64 (EPOLL_PACKED is
/// empty there, as on aarch64), so `data` sits at offset 8 and the struct
/// is 16 bytes; the four bytes of padding are named so the layout check can
/// count every byte.
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

/// clone(flags, stack, ptid, tls = 0, ctid) (riscv selects
/// CONFIG_CLONE_BACKWARDS, as arm64 does: tls before ctid) that starts the
/// child on `stack` in `entry(arg)`. Returns the child's tid (or -errno) in
/// the parent.
///
/// `entry` and `arg` travel on the child's stack, so the child loads them
/// from there and never reads the parent's frame; it clears the frame
/// pointer (s0) and the return address (end of backtraces) and calls
/// `entry` with sp 16-byte aligned, as the psABI requires.
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
    // SAFETY: the caller upholds the contract above. Only the child (a0 ==
    // 0) runs past the branch: it writes s0, ra and sp on its own stack and
    // leaves this asm block only through `jalr`, never returning to Rust
    // code here; `nostack` holds for the parent, which touches no stack.
    unsafe {
        asm!(
            "ecall",
            "bnez a0, 2f",
            "li s0, 0",
            "li ra, 0",
            "ld a0, 0(sp)",
            "ld a1, 8(sp)",
            "addi sp, sp, 16",
            "jalr a1",
            "unimp",
            "2:",
            in("a7") nr::CLONE, inlateout("a0") flags as isize => ret,
            in("a1") sp, in("a2") ptid, in("a3") 0usize, in("a4") ctid,
            options(nostack)
        );
    }
    ret
}
