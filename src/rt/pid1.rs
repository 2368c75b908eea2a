//! Duties of a process started as `/init` (PID 1) of an initramfs: nothing
//! is mounted, and if PID 1 exits the kernel panics ("Attempted to kill
//! init!"). So mount what the facts need, and end by powering off.
//!
//! PID 1 alone is no proof of that: the first process of a PID namespace
//! (`unshare -p -f`, a container's entrypoint) is PID 1 too, and mounting
//! over its /proc or powering off would break the namespace it shares. Nor
//! is a missing /proc (`umount -l /proc` in such a namespace), nor a RAM
//! root holding this program as `/init` (`unshare -p -f -m chroot ROOT
//! /init`, ROOT a tmpfs). So init duties need all of:
//! - PID 1;
//! - no procfs mounted yet (`/proc/self/stat` cannot be opened);
//! - a root filesystem that lives in RAM (the rootfs an initramfs is
//!   unpacked into: ramfs or tmpfs), and this very program there as
//!   `/init` (the file the kernel executed is the file `/init` names);
//! - and the one fact no container has: its PID namespace is the initial
//!   one, where PID 1 is the process the kernel started. reboot(2) says
//!   so: `LINUX_REBOOT_CMD_CAD_ON` succeeds only there (with
//!   CAP_SYS_BOOT), and changes nothing on a fresh boot; in any other PID
//!   namespace it fails (EINVAL, or EPERM without the capability) and
//!   changes nothing either (`sys::reboot_cad_on`). It is asked last, only
//!   of a process that passed the rest.

use core::fmt::Write;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::rt::StartInfo;
use crate::sys;
use crate::sys::out::Out;
use crate::sys::uapi::{O_RDONLY, RAMFS_MAGIC, TMPFS_MAGIC};

static INIT: AtomicBool = AtomicBool::new(false);

/// Decides, once at start, whether this process is the init of a fresh
/// boot (see above). Elsewhere, PID 1 included, it runs as an ordinary
/// process.
pub fn detect(start: &StartInfo) -> bool {
    let init = sys::getpid() == 1
        && sys::open(c"/proc/self/stat", O_RDONLY, 0).is_err()
        && matches!(sys::fs_type(c"/"), Ok(RAMFS_MAGIC | TMPFS_MAGIC))
        && start.execfn().is_some_and(|exe| {
            let this = sys::file_id(exe, true);
            this.is_ok() && this == sys::file_id(c"/init", true)
        })
        && sys::reboot_cad_on().is_ok();
    INIT.store(init, Ordering::Relaxed);
    init
}

/// What `detect` found: true when this process has init's duties.
pub fn is_init() -> bool {
    INIT.load(Ordering::Relaxed)
}

/// Mounts proc, sysfs and debugfs (for the preemption mode) where the
/// facts are read from, and tracefs (for `--trace` and `--witness`).
/// Failures are fine: a fact that cannot be read is printed as `unknown`,
/// and a witness without tracefs says so.
pub fn mount_pseudo_filesystems() {
    let _ = sys::mkdir(c"/proc", 0o555);
    let _ = sys::mount(c"proc", c"/proc", c"proc");
    let _ = sys::mkdir(c"/sys", 0o555);
    let _ = sys::mount(c"sysfs", c"/sys", c"sysfs");
    let _ = sys::mount(c"debugfs", c"/sys/kernel/debug", c"debugfs");
    let _ = sys::mount(c"tracefs", c"/sys/kernel/tracing", c"tracefs");
}

/// Prints `uring-repro: exit N` (the code a shell would have seen), lets the
/// console drain, syncs and powers off. Exits only if power-off fails.
pub fn power_off(code: i32) -> ! {
    let mut out = Out::new(1);
    let _ = writeln!(out, "uring-repro: exit {code}");
    out.flush();
    let _ = sys::tcdrain(1);
    let _ = sys::tcdrain(2);
    sys::sync();
    let e = sys::power_off();
    let mut err = Out::new(2);
    let _ = writeln!(err, "uring-repro: power-off failed: {e}");
    err.flush();
    sys::exit(code)
}
