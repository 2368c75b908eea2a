//! The freestanding binary: `_start`, the panic handler and the exit code.
//! Everything else is in the library (src/lib.rs).
//!
//! # Safety
//! `_start` is entered by the kernel with the initial stack described in
//! `uring_repro::rt`; it hands that stack pointer to `entry`, which never
//! returns.
#![no_std]
#![no_main]

mod mem;

use core::fmt::Write;
use uring_repro::rt::{pid1, StartInfo};
use uring_repro::sys::out::Out;
use uring_repro::{app, exit, sys};

// The kernel enters with sp -> argc and no return address; clear the frame
// pointer (end of backtraces), pass sp as the first argument, keep the ABI's
// 16-byte alignment at the call.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[no_mangle]
unsafe extern "C" fn _start() -> ! {
    core::arch::naked_asm!("xor ebp, ebp", "mov rdi, rsp", "and rsp, -16", "call {entry}", "ud2",
        entry = sym entry)
}

#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
#[no_mangle]
unsafe extern "C" fn _start() -> ! {
    core::arch::naked_asm!("mov x29, xzr", "mov x30, xzr", "mov x0, sp", "bl {entry}", "brk #1",
        entry = sym entry)
}

// gp is left as the kernel set it (0), on purpose: nothing here addresses
// data through it. gp-relative accesses appear only when the linker relaxes
// absolute or PC-relative ones against __global_pointer$, and that cannot
// happen: the target's code generation has no `relax` feature (no
// R_RISCV_RELAX relocations are emitted), rust-lld relaxes to gp only with
// --relax-gp, which is not passed, and there is no small-data section. A
// disassembly of the release binary shows no instruction naming gp.
#[cfg(target_arch = "riscv64")]
#[unsafe(naked)]
#[no_mangle]
unsafe extern "C" fn _start() -> ! {
    core::arch::naked_asm!("li s0, 0", "li ra, 0", "mv a0, sp", "andi sp, sp, -16", "call {entry}",
        "unimp", entry = sym entry)
}

unsafe extern "C" fn entry(sp: *const usize) -> ! {
    // SAFETY: sp is the kernel's initial stack pointer, untouched by _start.
    let start = unsafe { StartInfo::from_stack(sp) };
    if pid1::detect(&start) {
        pid1::mount_pseudo_filesystems();
        pid1::power_off(app::main(&start))
    }
    sys::exit(app::main(&start))
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut err = Out::new(2);
    let _ = write!(err, "uring-repro: panic: {}", info.message());
    if let Some(loc) = info.location() {
        let _ = write!(err, " at {}:{}", loc.file(), loc.line());
    }
    let _ = writeln!(err);
    err.flush();
    // No Drop runs after a panic: the witness's trace instance goes here.
    uring_repro::witness::remove_after_panic();
    if pid1::is_init() {
        // Returning would panic the kernel: report and power off instead.
        pid1::power_off(exit::PANIC)
    }
    sys::exit(exit::PANIC)
}

/// Unwinding never happens (panic = "abort"), but a debug build without LTO
/// still references the personality routine from precompiled `core`.
#[no_mangle]
extern "C" fn rust_eh_personality() {}
