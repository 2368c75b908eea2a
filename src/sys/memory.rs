//! Mappings we own: anonymous zeroed memory (futex words, buffers, the
//! waiter's shared page) and shared mappings of a ring's fd. Unmapped on
//! drop.

use super::uapi::{MAP_ANONYMOUS, MAP_POPULATE, MAP_PRIVATE, MAP_SHARED, PROT_READ, PROT_WRITE};
use super::{mmap, munmap, Fd, SysResult};

pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    /// `len` bytes of private zeroed memory, populated now so no page
    /// fault lands in a timed span.
    pub fn anonymous(len: usize) -> SysResult<Mapping> {
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
        // SAFETY: a fresh anonymous mapping aliases nothing.
        let ptr = unsafe { mmap(0, len, PROT_READ | PROT_WRITE, flags, -1, 0)? };
        Ok(Mapping { ptr, len })
    }

    /// `len` bytes of `fd` at `offset`, shared with the kernel (a ring).
    pub fn shared(fd: &Fd, len: usize, offset: usize) -> SysResult<Mapping> {
        let (prot, flags) = (PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE);
        // SAFETY: a fresh shared mapping of an fd we hold, at an offset the
        // caller got from the kernel.
        let ptr = unsafe { mmap(0, len, prot, flags, fd.raw(), offset)? };
        Ok(Mapping { ptr, len })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A pointer `off` bytes in, as a `T`.
    ///
    /// # Safety
    /// `off + size_of::<T>() <= self.len()`: the `T` lies inside the
    /// mapping (a ring's offsets are the kernel's, in io_uring_params, and
    /// the ring's mappings are sized from them). Checked in debug builds.
    pub unsafe fn at<T>(&self, off: u32) -> *mut T {
        debug_assert!(off as usize + core::mem::size_of::<T>() <= self.len);
        // SAFETY: the caller keeps the `T` inside the mapping.
        unsafe { self.ptr.add(off as usize) as *mut T }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the owner is going away, so nothing uses the range any more.
        unsafe { munmap(self.ptr, self.len) };
    }
}
