//! A raw thread for the libc-free binary: clone(2) on a stack we map
//! ourselves, joined through CLONE_CHILD_CLEARTID (the kernel zeroes the tid
//! word when the thread exits and futex-wakes it, as pthread_join relies on).
//!
//! # Safety
//! The thread shares everything with its creator (CLONE_VM, files, signal
//! handlers) but gets no TLS of its own, so its code must not use TLS or
//! panic: plain loops, atomics and raw syscalls. The clone instructions
//! themselves live in the per-arch file (`sys::arch::clone_thread`).

use core::sync::atomic::{AtomicU32, Ordering};

use super::arch::{self, nr};
use super::futex::{self, ETIMEDOUT};
use super::uapi::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ, PROT_WRITE};
use super::{self as sys, Errno, SysResult};

const CLONE_VM: usize = 0x100;
const CLONE_FS: usize = 0x200;
const CLONE_FILES: usize = 0x400;
const CLONE_SIGHAND: usize = 0x800;
const CLONE_THREAD: usize = 0x10000;
const CLONE_SYSVSEM: usize = 0x40000;
const CLONE_PARENT_SETTID: usize = 0x100000;
const CLONE_CHILD_CLEARTID: usize = 0x200000;
/// A thread in our thread group that shares the address space, files and
/// handlers; the kernel stores its tid in our word and clears it at exit.
pub const THREAD_FLAGS: usize = CLONE_VM
    | CLONE_FS
    | CLONE_FILES
    | CLONE_SIGHAND
    | CLONE_THREAD
    | CLONE_SYSVSEM
    | CLONE_PARENT_SETTID
    | CLONE_CHILD_CLEARTID;

/// mmap(2) flag: the mapping is a stack (a hint, no guard of its own).
const MAP_STACK: usize = 0x20000;
const PROT_NONE: usize = 0;
/// Inaccessible bytes below the stack, so an overflow faults instead of
/// scribbling; 64 KiB covers the largest page size (aarch64 64K pages).
pub const GUARD_BYTES: usize = 64 * 1024;
/// Usable stack. Thread bodies here are small loops over syscalls.
pub const STACK_BYTES: usize = 128 * 1024;
/// Bytes above the stack holding the tid word (never on the stack itself).
const TOP_BYTES: usize = 64;
/// Bound on Drop's implicit join.
const DROP_JOIN_NS: u64 = 5_000_000_000;

/// A running (or exited, not yet reaped) raw thread and its stack.
pub struct Thread {
    base: *mut u8,
    len: usize,
    tid: u32,
    exited: bool,
}

impl Thread {
    /// Starts `entry(arg)` on a fresh stack.
    ///
    /// # Safety
    /// `entry` must end with [`exit_thread`] and never return, must follow
    /// the module's rules (no TLS, no panics), and must only touch memory
    /// that stays valid until [`Thread::join`] returned true (in particular
    /// whatever `arg` points to).
    pub unsafe fn spawn(entry: extern "C" fn(usize) -> !, arg: usize) -> SysResult<Thread> {
        let len = GUARD_BYTES + STACK_BYTES + TOP_BYTES;
        // SAFETY: a fresh private anonymous mapping aliases nothing.
        let base = unsafe {
            sys::mmap(
                0,
                len,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                -1,
                0,
            )?
        };
        let mut t = Thread {
            base,
            len,
            tid: 0,
            exited: true,
        };
        // SAFETY: the guard is the start of our own fresh mapping.
        unsafe { sys::mprotect(base, GUARD_BYTES, PROT_NONE)? };
        let word = t.word().as_ptr();
        // SAFETY: the stack ends where the tid word's block starts, inside
        // our mapping; the word lives as long as `t`, which does not unmap
        // while the thread lives (Drop); the flags describe a thread; the
        // caller vouches for entry and arg.
        let raw = unsafe {
            arch::clone_thread(
                THREAD_FLAGS,
                base.add(GUARD_BYTES + STACK_BYTES),
                word,
                word,
                entry,
                arg,
            )
        };
        let tid = Errno::result(raw)?;
        t.tid = tid as u32;
        t.exited = false;
        Ok(t)
    }

    /// The word CLONE_PARENT_SETTID filled and CLONE_CHILD_CLEARTID clears.
    fn word(&self) -> &AtomicU32 {
        // SAFETY: the top block lies inside our mapping, is 4-aligned
        // (mmap is page-aligned, the offset a multiple of 64), and is only
        // ever accessed atomically (by us and by the kernel).
        unsafe { &*(self.base.add(GUARD_BYTES + STACK_BYTES) as *const AtomicU32) }
    }

    /// The thread's id (for /proc/self/task/TID).
    pub fn tid(&self) -> u32 {
        self.tid
    }

    /// True once the kernel has reported the thread gone.
    pub fn exited(&self) -> bool {
        self.exited
    }

    /// Waits at most `timeout_ns` for the thread to exit; true when it has.
    pub fn join(&mut self, timeout_ns: u64) -> bool {
        // A few retries cover EINTR and the word changing under us; the one
        // long wait is bounded by timeout_ns.
        for _ in 0..16 {
            let v = self.word().load(Ordering::Acquire);
            if v == 0 {
                self.exited = true;
                break;
            }
            if futex::wait(self.word(), v, timeout_ns, false) == Err(ETIMEDOUT) {
                self.exited = self.word().load(Ordering::Acquire) == 0;
                break;
            }
        }
        self.exited
    }
}

impl Drop for Thread {
    fn drop(&mut self) {
        if !self.exited && !self.join(DROP_JOIN_NS) {
            // Still running: its stack must outlive it, so leak the mapping
            // (the process's exit ends the thread).
            return;
        }
        // SAFETY: the thread has exited, nothing uses its stack any more.
        unsafe { sys::munmap(self.base, self.len) };
    }
}

/// Ends the calling thread only (exit(2), not exit_group).
pub fn exit_thread(code: i32) -> ! {
    // SAFETY: exit takes no pointers and does not return.
    unsafe { arch::syscall1(nr::EXIT, code as usize) };
    #[allow(clippy::empty_loop)]
    loop {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts to the value in the shared word's upper half, then exits.
    extern "C" fn body(arg: usize) -> ! {
        // SAFETY: the test keeps the pair alive until join returned true.
        let pair = unsafe { &*(arg as *const [AtomicU32; 2]) };
        let n = pair[1].load(Ordering::Acquire);
        for _ in 0..n {
            pair[0].fetch_add(1, Ordering::AcqRel);
        }
        let _ = futex::wake(&pair[0], 1);
        exit_thread(0)
    }

    #[test]
    fn spawn_runs_on_its_own_stack_and_join_sees_the_exit() {
        let pair = [AtomicU32::new(0), AtomicU32::new(1000)];
        // SAFETY: body follows the rules; `pair` outlives the join below.
        let mut t = unsafe { Thread::spawn(body, &pair as *const _ as usize) }.unwrap();
        assert!(t.tid() > 0);
        assert_ne!(t.tid(), sys::getpid());
        assert!(t.join(5_000_000_000), "thread did not exit within 5 s");
        assert!(t.exited());
        assert_eq!(pair[0].load(Ordering::Acquire), 1000);
        // Joining again is immediate.
        assert!(t.join(0));
    }
}
