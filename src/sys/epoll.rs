//! epoll and eventfd: the readiness side of the pollwake workload.
//!
//! `struct epoll_event` is the one UAPI struct whose layout depends on the
//! architecture (packed on x86_64), so it is defined in the per-arch file and
//! its layout is asserted here for each architecture.

use super::arch::{nr, syscall2, syscall4, syscall6};
use super::{Errno, Fd, SysResult};

pub use super::arch::EpollEvent;

/// epoll_create1 / eventfd2 flag: close on exec.
pub const EPOLL_CLOEXEC: u32 = 0o2000000;
/// epoll_ctl operations.
pub const EPOLL_CTL_ADD: u32 = 1;
pub const EPOLL_CTL_DEL: u32 = 2;
pub const EPOLL_CTL_MOD: u32 = 3;
/// Readable (level-triggered unless EPOLLET is also set).
pub const EPOLLIN: u32 = 0x001;
/// eventfd2 flags.
pub const EFD_CLOEXEC: u32 = 0o2000000;
pub const EFD_NONBLOCK: u32 = 0o4000;

// x86_64: packed, 12 bytes (a field-sum check cannot take references to
// packed fields, so offsets and size are asserted one by one).
#[cfg(target_arch = "x86_64")]
const _: () = {
    assert!(core::mem::size_of::<EpollEvent>() == 12);
    assert!(core::mem::align_of::<EpollEvent>() == 1);
    assert!(core::mem::offset_of!(EpollEvent, events) == 0);
    assert!(core::mem::offset_of!(EpollEvent, data) == 4);
};
// aarch64 and riscv64: natural alignment, 16 bytes, data at 8.
#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
const _: () = {
    assert!(core::mem::size_of::<EpollEvent>() == 16);
    assert!(core::mem::align_of::<EpollEvent>() == 8);
    assert!(core::mem::offset_of!(EpollEvent, events) == 0);
    assert!(core::mem::offset_of!(EpollEvent, pad) == 4);
    assert!(core::mem::offset_of!(EpollEvent, data) == 8);
};

pub fn epoll_create1() -> SysResult<Fd> {
    // SAFETY: no pointers.
    let raw = unsafe { syscall2(nr::EPOLL_CREATE1, EPOLL_CLOEXEC as usize, 0) };
    Errno::result(raw).map(|fd| Fd::from_raw(fd as i32))
}

/// epoll_ctl(epfd, op, fd, {events, data}).
pub fn epoll_ctl(epfd: i32, op: u32, fd: i32, events: u32, data: u64) -> SysResult<()> {
    let ev = EpollEvent::new(events, data);
    // SAFETY: ev is a readable struct epoll_event for the whole call.
    let raw = unsafe {
        syscall4(
            nr::EPOLL_CTL,
            epfd as usize,
            op as usize,
            fd as usize,
            &ev as *const EpollEvent as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// epoll_pwait(epfd, events, timeout_ms, no sigmask): the number of
/// entries filled (0 on timeout). A timeout of 0 only polls.
#[inline(always)]
pub fn epoll_pwait(epfd: i32, events: &mut [EpollEvent], timeout_ms: i32) -> SysResult<usize> {
    // SAFETY: events is writable for its whole length; a NULL sigmask
    // leaves the signal mask alone (sigsetsize is then ignored).
    let raw = unsafe {
        syscall6(
            nr::EPOLL_PWAIT,
            epfd as usize,
            events.as_mut_ptr() as usize,
            events.len().min(i32::MAX as usize),
            timeout_ms as isize as usize,
            0,
            8,
        )
    };
    Errno::result(raw)
}

/// eventfd2(0, EFD_CLOEXEC | EFD_NONBLOCK): reads never block.
pub fn eventfd() -> SysResult<Fd> {
    // SAFETY: no pointers.
    let raw = unsafe { syscall2(nr::EVENTFD2, 0, (EFD_CLOEXEC | EFD_NONBLOCK) as usize) };
    Errno::result(raw).map(|fd| Fd::from_raw(fd as i32))
}

/// Reads and resets an eventfd's counter; 0 when it was 0 (EAGAIN).
pub fn eventfd_take(fd: i32) -> SysResult<u64> {
    let mut v = [0u8; 8];
    match super::read(fd, &mut v) {
        Ok(8) => Ok(u64::from_ne_bytes(v)),
        Ok(_) => Err(Errno::EINVAL),
        Err(Errno::EAGAIN) => Ok(0),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eventfd_counts_and_resets() {
        let fd = eventfd().unwrap();
        assert_eq!(eventfd_take(fd.raw()), Ok(0));
        super::super::write(fd.raw(), &3u64.to_ne_bytes()).unwrap();
        super::super::write(fd.raw(), &4u64.to_ne_bytes()).unwrap();
        assert_eq!(eventfd_take(fd.raw()), Ok(7));
        assert_eq!(eventfd_take(fd.raw()), Ok(0));
    }

    #[test]
    fn epoll_reports_a_readable_eventfd_level_triggered() {
        let ep = epoll_create1().unwrap();
        let efd = eventfd().unwrap();
        epoll_ctl(ep.raw(), EPOLL_CTL_ADD, efd.raw(), EPOLLIN, 0xfeed).unwrap();
        let mut evs = [EpollEvent::default(); 2];
        assert_eq!(epoll_pwait(ep.raw(), &mut evs, 0), Ok(0));
        super::super::write(efd.raw(), &1u64.to_ne_bytes()).unwrap();
        for _ in 0..2 {
            // Level-triggered: reported again while still readable.
            assert_eq!(epoll_pwait(ep.raw(), &mut evs, 0), Ok(1));
            let (events, data) = (evs[0].events, evs[0].data);
            assert_eq!((events, data), (EPOLLIN, 0xfeed));
        }
        assert_eq!(
            epoll_ctl(ep.raw(), EPOLL_CTL_ADD, efd.raw(), EPOLLIN, 0),
            Err(Errno::EEXIST)
        );
        epoll_ctl(ep.raw(), EPOLL_CTL_DEL, efd.raw(), 0, 0).unwrap();
        assert_eq!(epoll_pwait(ep.raw(), &mut evs, 0), Ok(0));
    }

    #[test]
    fn epoll_event_layout_matches_the_kernel_abi() {
        // The compile-time asserts above are the real check; this one
        // documents the two layouts where a reader looks for tests.
        let (size, data_at) = if cfg!(target_arch = "x86_64") {
            (12, 4)
        } else {
            (16, 8)
        };
        assert_eq!(core::mem::size_of::<EpollEvent>(), size);
        assert_eq!(core::mem::offset_of!(EpollEvent, data), data_at);
    }
}
