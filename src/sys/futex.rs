//! The classic futex(2) calls used to hand bursts between the pollwake
//! producer and its waiter thread. Every wait takes a timeout: nothing here
//! can block forever.

use core::sync::atomic::AtomicU32;

use super::arch::{nr, syscall6};
use super::uapi::KernelTimespec;
use super::{Errno, SysResult};

pub const FUTEX_WAIT: usize = 0;
pub const FUTEX_WAKE: usize = 1;
/// The word is private to this process (all our threads share one mm).
pub const FUTEX_PRIVATE_FLAG: usize = 128;

/// The futex wait ran out of time (ETIMEDOUT).
pub const ETIMEDOUT: Errno = Errno(110);

/// Sleeps while `*word == expected`, at most `timeout_ns`. Ok(()) when
/// woken; EAGAIN when the word already differed; ETIMEDOUT; EINTR.
/// `private` must be false for words the kernel wakes as shared (the
/// CLONE_CHILD_CLEARTID word is woken that way).
pub fn wait(word: &AtomicU32, expected: u32, timeout_ns: u64, private: bool) -> SysResult<()> {
    let ts = KernelTimespec::from_ns(timeout_ns);
    let op = FUTEX_WAIT | if private { FUTEX_PRIVATE_FLAG } else { 0 };
    // SAFETY: word is a live aligned u32; ts is a readable timespec.
    let raw = unsafe {
        syscall6(
            nr::FUTEX,
            word.as_ptr() as usize,
            op,
            expected as usize,
            &ts as *const KernelTimespec as usize,
            0,
            0,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// Wakes at most `n` private waiters on `word`; returns how many woke.
pub fn wake(word: &AtomicU32, n: u32) -> SysResult<usize> {
    // SAFETY: word is a live aligned u32; FUTEX_WAKE reads no other memory.
    let raw = unsafe {
        syscall6(
            nr::FUTEX,
            word.as_ptr() as usize,
            FUTEX_WAKE | FUTEX_PRIVATE_FLAG,
            n as usize,
            0,
            0,
            0,
        )
    };
    Errno::result(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_times_out_or_refuses_a_changed_word() {
        let w = AtomicU32::new(5);
        assert_eq!(wait(&w, 4, 1_000_000, true), Err(Errno::EAGAIN));
        assert_eq!(wait(&w, 5, 1_000_000, true), Err(ETIMEDOUT));
        assert_eq!(wake(&w, 1), Ok(0));
    }
}
