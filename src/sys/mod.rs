//! The kernel boundary: raw syscalls, a typed `Errno`, UAPI layouts, the vDSO
//! clock, and the small safe wrappers the rest of the crate calls.
//!
//! # Safety
//! Architecture-specific instructions live in `x86_64.rs` / `aarch64.rs` /
//! `riscv64.rs`, and in main.rs's `_start` (one per architecture: the
//! entry belongs to the binary, not to the library its tests link with
//! std). The wrappers here are safe where every pointer they pass is
//! derived from a Rust reference or slice of the right size, or is a path
//! (`&CStr`: NUL-terminated by its type, path.rs); the ones that take raw
//! addresses (mmap/munmap) stay `unsafe`.

#[cfg(target_arch = "aarch64")]
#[path = "aarch64.rs"]
pub mod arch;
#[cfg(target_arch = "riscv64")]
#[path = "riscv64.rs"]
pub mod arch;
#[cfg(target_arch = "x86_64")]
#[path = "x86_64.rs"]
pub mod arch;
#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
mod generic;

pub mod clock;
pub mod dir;
pub mod epoll;
mod errno;
pub mod futex;
pub mod memory;
pub mod out;
pub mod pair;
pub mod path;
pub mod signal;
pub mod thread;
pub mod uapi;
pub mod vdso;

pub use errno::Errno;
pub use path::{BadPath, CPath};

use core::ffi::CStr;

use arch::nr;

/// What a cost marker tells the QEMU plugin that counts the guest's
/// instructions inside the measured rounds' timed spans (docs/cost.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A run starts (before its warm-ups): the counts from here to the next
    /// run's marker are this run's.
    Run,
    /// Before a measured share's cycles: the window of its series opens.
    Open,
    /// After them: it closes.
    Close,
    /// Just before a timed span's first clock read: counting starts...
    Start,
    /// ...and just after its last one it stops.
    End,
}

/// Series a cost marker can name (0..COST_SERIES): the most series a
/// workload can have. The plugin's limit is plugin/marker.h's COST_SERIES;
/// tests/cost_counter.rs fails when the two differ.
pub const COST_SERIES: usize = 4;

/// The cost counter's markers: x86_64's multi-byte NOPs; no instruction on
/// the other architectures, where the counter does not run.
#[cfg(target_arch = "x86_64")]
pub use arch::cost_mark;
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn cost_mark(_mark: Mark, _series: usize) {}
use arch::{syscall0, syscall1, syscall2, syscall3, syscall4, syscall5, syscall6};

pub type SysResult<T> = Result<T, Errno>;

/// A file descriptor we own; closed on drop.
#[derive(Debug)]
pub struct Fd(i32);

impl Fd {
    /// Takes ownership of a raw descriptor.
    pub fn from_raw(fd: i32) -> Fd {
        Fd(fd)
    }
    pub fn raw(&self) -> i32 {
        self.0
    }
}

impl Drop for Fd {
    fn drop(&mut self) {
        close(self.0);
    }
}

pub fn close(fd: i32) {
    // SAFETY: closing a descriptor number touches no user memory.
    unsafe { syscall1(nr::CLOSE, fd as usize) };
}

pub fn write(fd: i32, buf: &[u8]) -> SysResult<usize> {
    // SAFETY: buf is a valid slice for its whole length.
    Errno::result(unsafe { syscall3(nr::WRITE, fd as usize, buf.as_ptr() as usize, buf.len()) })
}

pub fn read(fd: i32, buf: &mut [u8]) -> SysResult<usize> {
    // SAFETY: buf is a valid writable slice for its whole length.
    Errno::result(unsafe { syscall3(nr::READ, fd as usize, buf.as_mut_ptr() as usize, buf.len()) })
}

/// pread(fd, buf, offset): reads at `offset` without moving the file position.
pub fn pread(fd: i32, buf: &mut [u8], offset: u64) -> SysResult<usize> {
    // SAFETY: buf is a valid writable slice for its whole length.
    let raw = unsafe {
        syscall4(
            nr::PREAD64,
            fd as usize,
            buf.as_mut_ptr() as usize,
            buf.len(),
            offset as usize,
        )
    };
    Errno::result(raw)
}

/// openat(AT_FDCWD, path, flags | O_CLOEXEC, mode). Not inlined: twenty
/// callers each had the system call and its errno check (files are
/// opened before and after a run, never in its cycles).
#[inline(never)]
pub fn open(path: &CStr, flags: u32, mode: u32) -> SysResult<Fd> {
    // SAFETY: path is NUL-terminated (CStr) and outlives the call.
    let raw = unsafe {
        syscall4(
            nr::OPENAT,
            uapi::AT_FDCWD as usize,
            path.as_ptr() as usize,
            (flags | uapi::O_CLOEXEC) as usize,
            mode as usize,
        )
    };
    Errno::result(raw).map(|fd| Fd(fd as i32))
}

/// Reads `fd` into `buf` until the file ends or `buf` is full, read(2)
/// after read(2) (a pipe or a pseudo-file hands out a little at a time;
/// EINTR is retried); how many bytes. Fewer than `buf.len()` means the
/// end of the file was reached; a full `buf` may have more behind it.
pub fn read_to_end(fd: i32, buf: &mut [u8]) -> SysResult<usize> {
    let mut len = 0;
    while len < buf.len() {
        match read(fd, &mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(len)
}

/// Writes all of `buf` to `fd`, write(2) after write(2) (a short count
/// writes the rest again; EINTR is retried). A write that takes nothing
/// would loop for ever: it is an error, EIO.
pub fn write_all(fd: i32, mut buf: &[u8]) -> SysResult<()> {
    while !buf.is_empty() {
        match write(fd, buf) {
            Ok(0) => return Err(Errno::EIO),
            Ok(n) => buf = buf.get(n..).unwrap_or_default(),
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The file at `path` into `buf` (read_to_end: its first `buf.len()`
/// bytes at most); the filled prefix.
pub fn read_file<'a>(path: &CStr, buf: &'a mut [u8]) -> SysResult<&'a [u8]> {
    let fd = open(path, uapi::O_RDONLY, 0)?;
    let len = read_to_end(fd.raw(), buf)?;
    Ok(&buf[..len])
}

/// lseek(fd, offset, SEEK_SET): the next read starts at `offset`.
pub fn seek(fd: i32, offset: u64) -> SysResult<()> {
    // SAFETY: lseek takes no user memory.
    let raw = unsafe {
        syscall3(
            nr::LSEEK,
            fd as usize,
            offset as usize,
            uapi::SEEK_SET as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// The length of the file open as `fd` (lseek to its end), read from its
/// start again after.
pub fn size(fd: i32) -> SysResult<u64> {
    // SAFETY: lseek takes no user memory.
    let raw = unsafe { syscall3(nr::LSEEK, fd as usize, 0, uapi::SEEK_END as usize) };
    let len = Errno::result(raw)?;
    seek(fd, 0)?;
    Ok(len as u64)
}

/// # Safety
/// The arguments must describe a mapping the caller is allowed to create; the
/// returned memory is only valid until munmap.
pub unsafe fn mmap(
    addr: usize,
    len: usize,
    prot: usize,
    flags: usize,
    fd: i32,
    off: usize,
) -> SysResult<*mut u8> {
    // SAFETY: forwarded contract; mmap itself reads no user memory.
    let raw = unsafe { syscall6(nr::MMAP, addr, len, prot, flags, fd as usize, off) };
    Errno::result(raw).map(|p| p as *mut u8)
}

/// # Safety
/// Nothing may use the range after this call.
pub unsafe fn munmap(addr: *mut u8, len: usize) {
    // SAFETY: the caller gives up every reference into the range.
    unsafe { syscall2(nr::MUNMAP, addr as usize, len) };
}

/// # Safety
/// Taking access away from a range nothing uses (a stack's guard pages).
pub unsafe fn mprotect(addr: *mut u8, len: usize, prot: usize) -> SysResult<()> {
    // SAFETY: forwarded contract; mprotect reads no user memory.
    Errno::result(unsafe { syscall3(nr::MPROTECT, addr as usize, len, prot) }).map(|_| ())
}

/// exit_group: ends every thread of the process.
pub fn exit(code: i32) -> ! {
    // SAFETY: exit_group takes no pointers and never returns.
    unsafe { syscall1(nr::EXIT_GROUP, code as usize) };
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Size in bytes of the CPU masks we pass (1024 CPUs, like glibc's cpu_set_t).
pub const CPU_SET_BYTES: usize = 128;
pub type CpuSet = [u8; CPU_SET_BYTES];

/// sched_getaffinity(0): the CPUs this thread may run on (and that are active).
pub fn sched_getaffinity(set: &mut CpuSet) -> SysResult<()> {
    *set = [0; CPU_SET_BYTES];
    // SAFETY: set is CPU_SET_BYTES of writable memory.
    let raw = unsafe {
        syscall3(
            nr::SCHED_GETAFFINITY,
            0,
            CPU_SET_BYTES,
            set.as_mut_ptr() as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// sched_setaffinity(0): restricts this thread to `set`.
pub fn sched_setaffinity(set: &CpuSet) -> SysResult<()> {
    // SAFETY: set is CPU_SET_BYTES of readable memory.
    let raw = unsafe {
        syscall3(
            nr::SCHED_SETAFFINITY,
            0,
            CPU_SET_BYTES,
            set.as_ptr() as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// sched_setscheduler(2) policies: the default, and SCHED_BATCH (a
/// thread whose wakeup never preempts the running one).
pub const SCHED_OTHER: u32 = 0;
pub const SCHED_BATCH: u32 = 3;

/// sched_getscheduler(0): this thread's policy.
pub fn sched_getscheduler() -> SysResult<u32> {
    // SAFETY: no pointers.
    let raw = unsafe { syscall1(nr::SCHED_GETSCHEDULER, 0) };
    Errno::result(raw).map(|p| p as u32)
}

/// sched_setscheduler(0, policy, {priority 0}): this thread's policy (one
/// of the normal ones, whose priority is 0). The threads it starts from
/// then on inherit it.
pub fn sched_setscheduler(policy: u32) -> SysResult<()> {
    let priority: i32 = 0;
    // SAFETY: the struct sched_param, one int, is readable for the call.
    let raw = unsafe {
        syscall3(
            nr::SCHED_SETSCHEDULER,
            0,
            policy as usize,
            &priority as *const i32 as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// sched_yield(): lets another runnable thread of this CPU run (b0 lets
/// the io-wq worker it woke run until it blocks). Never fails.
#[inline(always)]
pub fn sched_yield() {
    // SAFETY: no arguments.
    unsafe { syscall0(nr::SCHED_YIELD) };
}

/// getcpu(): the CPU this thread runs on now.
pub fn getcpu() -> SysResult<u32> {
    let mut cpu: u32 = u32::MAX;
    // SAFETY: cpu is a writable u32; node and cache pointers are NULL.
    let raw = unsafe { syscall3(nr::GETCPU, &mut cpu as *mut u32 as usize, 0, 0) };
    Errno::result(raw).map(|_| cpu)
}

pub fn uname(buf: &mut uapi::Utsname) -> SysResult<()> {
    // SAFETY: buf is a writable struct new_utsname.
    Errno::result(unsafe { syscall1(nr::UNAME, buf as *mut uapi::Utsname as usize) }).map(|_| ())
}

pub fn io_uring_setup(entries: u32, params: &mut uapi::IoUringParams) -> SysResult<Fd> {
    // SAFETY: params is a valid, writable struct io_uring_params.
    let raw = unsafe {
        syscall2(
            nr::IO_URING_SETUP,
            entries as usize,
            params as *mut _ as usize,
        )
    };
    Errno::result(raw).map(|fd| Fd(fd as i32))
}

/// # Safety
/// `arg`/`argsz` must match `flags` (EXT_ARG: a valid io_uring_getevents_arg),
/// and the ring's mapped SQEs must be initialised up to the published tail.
#[inline(always)]
pub unsafe fn io_uring_enter(
    fd: i32,
    to_submit: u32,
    min_complete: u32,
    flags: u32,
    arg: usize,
    argsz: usize,
) -> SysResult<usize> {
    // SAFETY: forwarded contract (see above).
    let raw = unsafe {
        syscall6(
            nr::IO_URING_ENTER,
            fd as usize,
            to_submit as usize,
            min_complete as usize,
            flags as usize,
            arg,
            argsz,
        )
    };
    Errno::result(raw)
}

/// # Safety
/// `arg` must point to `nr_args` elements of the type `opcode` expects.
pub unsafe fn io_uring_register(
    fd: i32,
    opcode: u32,
    arg: usize,
    nr_args: u32,
) -> SysResult<usize> {
    // SAFETY: forwarded contract (see above).
    let raw = unsafe {
        syscall4(
            nr::IO_URING_REGISTER,
            fd as usize,
            opcode as usize,
            arg,
            nr_args as usize,
        )
    };
    Errno::result(raw)
}

/// clock_gettime as a real system call (the fallback when there is no vDSO).
pub fn clock_gettime_syscall(clock: i32, ts: &mut uapi::KernelTimespec) -> SysResult<()> {
    // SAFETY: ts is a writable struct __kernel_timespec.
    let raw = unsafe { syscall2(nr::CLOCK_GETTIME, clock as usize, ts as *mut _ as usize) };
    Errno::result(raw).map(|_| ())
}

/// memfd_create(name, MFD_CLOEXEC): a file in memory, which goes with its
/// last descriptor (text kept until it can be written where it belongs).
pub fn memfd(name: &CStr) -> SysResult<Fd> {
    // SAFETY: name is NUL-terminated; the kernel only reads it.
    let raw = unsafe { syscall2(nr::MEMFD_CREATE, name.as_ptr() as usize, uapi::MFD_CLOEXEC) };
    Errno::result(raw).map(|fd| Fd::from_raw(fd as i32))
}

/// mkdirat(AT_FDCWD, path, mode).
pub fn mkdir(path: &CStr, mode: u32) -> SysResult<()> {
    // SAFETY: path is NUL-terminated (CStr) and outlives the call.
    let raw = unsafe {
        syscall3(
            nr::MKDIRAT,
            uapi::AT_FDCWD as usize,
            path.as_ptr() as usize,
            mode as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// unlinkat(AT_FDCWD, path, 0): removes a file.
pub fn unlink(path: &CStr) -> SysResult<()> {
    unlinkat(path, 0)
}

/// unlinkat(AT_FDCWD, path, AT_REMOVEDIR): rmdir.
pub fn rmdir(path: &CStr) -> SysResult<()> {
    unlinkat(path, uapi::AT_REMOVEDIR)
}

fn unlinkat(path: &CStr, flags: u32) -> SysResult<()> {
    // SAFETY: path is NUL-terminated (CStr) and outlives the call.
    let raw = unsafe {
        syscall3(
            nr::UNLINKAT,
            uapi::AT_FDCWD as usize,
            path.as_ptr() as usize,
            flags as usize,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// renameat2(from, to, RENAME_NOREPLACE): gives the file `from` the name
/// `to` in one atomic step unless `to` exists (EEXIST). A filesystem
/// without the flag says EINVAL; a kernel before Linux 3.15, ENOSYS.
pub fn rename_noreplace(from: &CStr, to: &CStr) -> SysResult<()> {
    let dir = uapi::AT_FDCWD as usize;
    let (old, new) = (from.as_ptr() as usize, to.as_ptr() as usize);
    let noreplace = uapi::RENAME_NOREPLACE as usize;
    // SAFETY: both paths are NUL-terminated (CStr) and outlive the call.
    let raw = unsafe { syscall5(nr::RENAMEAT2, dir, old, dir, new, noreplace) };
    Errno::result(raw).map(|_| ())
}

/// renameat2(from, to, 0): rename(2), which replaces what `to` names (a
/// directory only when it is empty).
pub fn rename(from: &CStr, to: &CStr) -> SysResult<()> {
    let dir = uapi::AT_FDCWD as usize;
    let (old, new) = (from.as_ptr() as usize, to.as_ptr() as usize);
    // SAFETY: both paths are NUL-terminated (CStr) and outlive the call.
    let raw = unsafe { syscall5(nr::RENAMEAT2, dir, old, dir, new, 0) };
    Errno::result(raw).map(|_| ())
}

/// link(from, to): a second name for the file `from`, never over an
/// existing `to` (EEXIST).
pub fn link(from: &CStr, to: &CStr) -> SysResult<()> {
    let dir = uapi::AT_FDCWD as usize;
    let (old, new) = (from.as_ptr() as usize, to.as_ptr() as usize);
    // SAFETY: both paths are NUL-terminated (CStr) and outlive the call.
    let raw = unsafe { syscall5(nr::LINKAT, dir, old, dir, new, 0) };
    Errno::result(raw).map(|_| ())
}

/// The (device, inode) pair naming the file at `path`, or the symbolic
/// link there itself with `follow` false: two paths name the same file
/// exactly when their pairs are equal.
pub fn file_id(path: &CStr, follow: bool) -> SysResult<(u64, u64)> {
    let flags = if follow { 0 } else { uapi::AT_SYMLINK_NOFOLLOW };
    // struct stat starts with st_dev and st_ino, both 64-bit, on x86_64
    // and in the asm-generic layout (aarch64, riscv64); it is 144 bytes at
    // most: room to spare.
    let mut buf = [0u64; 32];
    // SAFETY: path is NUL-terminated (CStr); buf is writable and larger
    // than stat.
    let raw = unsafe {
        syscall4(
            nr::NEWFSTATAT,
            uapi::AT_FDCWD as usize,
            path.as_ptr() as usize,
            buf.as_mut_ptr() as usize,
            flags as usize,
        )
    };
    Errno::result(raw).map(|_| (buf[0], buf[1]))
}

/// mount(source, target, fstype, 0, NULL).
pub fn mount(source: &CStr, target: &CStr, fstype: &CStr) -> SysResult<()> {
    // SAFETY: the three strings are NUL-terminated (CStr).
    let raw = unsafe {
        syscall5(
            nr::MOUNT,
            source.as_ptr() as usize,
            target.as_ptr() as usize,
            fstype.as_ptr() as usize,
            0,
            0,
        )
    };
    Errno::result(raw).map(|_| ())
}

/// ioctl(fd, TCSBRK, 1): waits until the terminal has sent all its output
/// (tcdrain), so the console shows everything before power-off.
pub fn tcdrain(fd: i32) -> SysResult<()> {
    const TCSBRK: usize = 0x5409;
    // SAFETY: TCSBRK takes an integer argument, no memory.
    Errno::result(unsafe { syscall3(nr::IOCTL, fd as usize, TCSBRK, 1) }).map(|_| ())
}

pub fn sync() {
    // SAFETY: sync takes no arguments.
    unsafe { arch::syscall0(nr::SYNC) };
}

/// reboot(LINUX_REBOOT_CMD_POWER_OFF): only returns on failure.
pub fn power_off() -> Errno {
    const CMD_POWER_OFF: usize = 0x4321_fedc;
    match reboot(CMD_POWER_OFF) {
        Err(e) => e,
        Ok(()) => Errno(0),
    }
}

/// reboot(LINUX_REBOOT_CMD_CAD_ON): Ctrl-Alt-Del restarts the machine at
/// once, the kernel's own setting at boot (C_A_D = 1, kernel/reboot.c),
/// so a boot's init changes nothing by it. Anywhere but the initial PID
/// namespace it fails and changes nothing: EINVAL for a process that may
/// reboot its namespace (reboot_pid_ns takes only RESTART, RESTART2,
/// POWER_OFF and HALT there), EPERM without CAP_SYS_BOOT in the user
/// namespace owning the PID namespace (or under a seccomp filter that
/// forbids reboot).
pub fn reboot_cad_on() -> SysResult<()> {
    const CMD_CAD_ON: usize = 0x89ab_cdef;
    reboot(CMD_CAD_ON)
}

/// reboot(2) with the documented magic numbers and `cmd`.
fn reboot(cmd: usize) -> SysResult<()> {
    const MAGIC1: usize = 0xfee1_dead;
    const MAGIC2: usize = 672_274_793;
    // SAFETY: reboot with the documented magic numbers takes no memory
    // for these commands.
    let raw = unsafe { syscall4(nr::REBOOT, MAGIC1, MAGIC2, cmd, 0) };
    Errno::result(raw).map(|_| ())
}

/// statfs(path): the filesystem's magic number (struct statfs's first
/// field, f_type, a long on every arch built here).
pub fn fs_type(path: &CStr) -> SysResult<u64> {
    // struct statfs is 120 bytes on x86_64, aarch64 and riscv64; room to spare.
    let mut buf = [0u64; 32];
    // SAFETY: path is NUL-terminated (CStr); buf is writable and larger
    // than statfs.
    let raw = unsafe {
        syscall2(
            nr::STATFS,
            path.as_ptr() as usize,
            buf.as_mut_ptr() as usize,
        )
    };
    Errno::result(raw).map(|_| buf[0])
}

/// Sleeps `ns` nanoseconds (nanosleep, resumed after a signal).
pub fn sleep_ns(ns: u64) {
    let mut req = uapi::KernelTimespec::from_ns(ns);
    loop {
        let mut rem = uapi::KernelTimespec::default();
        // SAFETY: req is readable and rem writable struct __kernel_timespec.
        let raw = unsafe {
            syscall2(
                nr::NANOSLEEP,
                &req as *const _ as usize,
                &mut rem as *mut _ as usize,
            )
        };
        if Errno::result(raw) != Err(Errno::EINTR) {
            return;
        }
        req = rem;
    }
}

pub fn getpid() -> u32 {
    // SAFETY: getpid takes no arguments.
    unsafe { arch::syscall0(nr::GETPID) as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getcpu_is_in_affinity_set() {
        let mut set = [0u8; CPU_SET_BYTES];
        sched_getaffinity(&mut set).unwrap();
        let cpu = getcpu().unwrap() as usize;
        assert!(set[cpu / 8] & (1 << (cpu % 8)) != 0);
    }

    #[test]
    fn read_file_reads_a_small_file_whole() {
        let mut buf = [0u8; 256];
        let s = read_file(c"/proc/sys/kernel/ostype", &mut buf).unwrap();
        assert_eq!(s, b"Linux\n");
        // Its first bytes only, into a smaller buffer.
        let s = read_file(c"/proc/sys/kernel/ostype", &mut buf[..3]).unwrap();
        assert_eq!(s, b"Lin");
        let e = read_file(c"/nonexistent/file", &mut buf).err();
        assert_eq!(e, Some(Errno::ENOENT));
    }

    /// A pipe hands out what has been written so far: read_to_end reads
    /// on to the end (the writer's close), or until the buffer is full.
    #[test]
    fn read_to_end_reads_on_past_short_reads() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let (r, mut w) = std::io::pipe().unwrap();
        let writer = std::thread::spawn(move || {
            for part in [&b"ab"[..], b"cd", b"ef"] {
                w.write_all(part).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        let mut buf = [0u8; 16];
        assert_eq!(read_to_end(r.as_raw_fd(), &mut buf[..4]), Ok(4));
        assert_eq!(read_to_end(r.as_raw_fd(), &mut buf[4..]), Ok(2));
        assert_eq!(&buf[..6], b"abcdef");
        writer.join().unwrap();
        assert_eq!(read_to_end(1023, &mut buf), Err(Errno(9)));
    }

    /// write_all writes everything (a pipe smaller than the buffer takes
    /// it in parts, as its reader drains it), and stops at an error.
    #[test]
    fn write_all_writes_everything_or_names_the_error() {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        let (mut r, w) = std::io::pipe().unwrap();
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            r.read_to_end(&mut got).unwrap();
            got
        });
        let data: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
        assert_eq!(write_all(w.as_raw_fd(), &data), Ok(()));
        drop(w);
        assert!(reader.join().unwrap() == data);
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        assert_eq!(write_all(full.as_raw_fd(), b"x"), Err(Errno::ENOSPC));
        assert_eq!(write_all(1023, b"x"), Err(Errno(9)));
        assert_eq!(write_all(1023, b""), Ok(()));
    }
}
