//! The kernel's error numbers: `Errno` keeps the positive value (a raw
//! syscall return in -4095..=-1 is one), with its symbolic name.

/// A kernel error number, kept as the positive value (the kernel returns -errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub i32);

impl Errno {
    pub const EPERM: Errno = Errno(1);
    pub const ENOENT: Errno = Errno(2);
    pub const EINTR: Errno = Errno(4);
    pub const EIO: Errno = Errno(5);
    pub const EAGAIN: Errno = Errno(11);
    pub const ENOMEM: Errno = Errno(12);
    pub const EACCES: Errno = Errno(13);
    pub const EEXIST: Errno = Errno(17);
    pub const EINVAL: Errno = Errno(22);
    pub const ENFILE: Errno = Errno(23);
    pub const EMFILE: Errno = Errno(24);
    pub const EFBIG: Errno = Errno(27);
    pub const ENOSPC: Errno = Errno(28);
    pub const EROFS: Errno = Errno(30);
    pub const EPIPE: Errno = Errno(32);
    pub const ENAMETOOLONG: Errno = Errno(36);
    pub const ENOSYS: Errno = Errno(38);
    pub const ENOTEMPTY: Errno = Errno(39);
    pub const ETIME: Errno = Errno(62);
    pub const EOPNOTSUPP: Errno = Errno(95);
    pub const EDQUOT: Errno = Errno(122);
    pub const ECANCELED: Errno = Errno(125);

    /// The symbolic name (`EPERM`): every errno of the kernel's UAPI
    /// (include/uapi/asm-generic/errno*.h, which x86_64, aarch64 and
    /// riscv64 all use) and the kernel-internal ones that reach user space
    /// now and then (include/linux/errno.h); `E?` for any other number.
    pub fn name(self) -> &'static str {
        let n = self.0 as usize;
        let name = match n {
            0..=133 => ERRNO_NAMES[n],
            512..=531 => ERRNO_INTERNAL[n - 512],
            _ => "",
        };
        if name.is_empty() {
            "E?"
        } else {
            name
        }
    }

    /// Splits a raw syscall return: -4095..=-1 is an error, anything else a value.
    #[inline(always)]
    pub fn result(raw: isize) -> Result<usize, Errno> {
        if (-4095..=-1).contains(&raw) {
            Err(Errno(-raw as i32))
        } else {
            Ok(raw as usize)
        }
    }
}

/// The UAPI errno names by number (41 and 58 are unused: EWOULDBLOCK and
/// EDEADLOCK are aliases of EAGAIN and EDEADLK).
#[rustfmt::skip]
const ERRNO_NAMES: [&str; 134] = [
    "", "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
    "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV",
    "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG",
    "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK",
    "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP", "", "ENOMSG", "EIDRM", "ECHRNG",
    "EL2NSYNC", "EL3HLT", "EL3RST", "ELNRNG", "EUNATCH", "ENOCSI", "EL2HLT", "EBADE", "EBADR",
    "EXFULL", "ENOANO", "EBADRQC", "EBADSLT", "", "EBFONT", "ENOSTR", "ENODATA", "ETIME",
    "ENOSR", "ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM", "EPROTO",
    "EMULTIHOP", "EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC",
    "ELIBBAD", "ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS",
    "ENOTSOCK", "EDESTADDRREQ", "EMSGSIZE", "EPROTOTYPE", "ENOPROTOOPT", "EPROTONOSUPPORT",
    "ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT", "EAFNOSUPPORT", "EADDRINUSE",
    "EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH", "ENETRESET", "ECONNABORTED", "ECONNRESET",
    "ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN", "ETOOMANYREFS", "ETIMEDOUT", "ECONNREFUSED",
    "EHOSTDOWN", "EHOSTUNREACH", "EALREADY", "EINPROGRESS", "ESTALE", "EUCLEAN", "ENOTNAM",
    "ENAVAIL", "EISNAM", "EREMOTEIO", "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE", "ECANCELED",
    "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED", "EKEYREJECTED", "EOWNERDEAD", "ENOTRECOVERABLE",
    "ERFKILL", "EHWPOISON",
];

/// The kernel's own errnos from 512 (520 is unused), which a driver or a
/// filesystem may still let through (ENOTSUPP, 524, is the usual one).
#[rustfmt::skip]
const ERRNO_INTERNAL: [&str; 20] = [
    "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD", "ERESTART_RESTARTBLOCK",
    "EPROBE_DEFER", "EOPENSTALE", "ENOPARAM", "", "EBADHANDLE", "ENOTSYNC", "EBADCOOKIE",
    "ENOTSUPP", "ETOOSMALL", "ESERVERFAULT", "EBADTYPE", "EJUKEBOX", "EIOCBQUEUED",
    "ERECALLCONFLICT", "ENOGRACE",
];

impl core::fmt::Display for Errno {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({})", self.name(), self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_result_splits_at_minus_4095() {
        assert_eq!(Errno::result(-1), Err(Errno::EPERM));
        assert_eq!(Errno::result(-4095), Err(Errno(4095)));
        assert_eq!(Errno::result(-4096), Ok((-4096isize) as usize));
        assert_eq!(Errno::result(0), Ok(0));
        assert_eq!(Errno::result(7), Ok(7));
    }

    #[test]
    fn errno_names() {
        assert_eq!(Errno::EPERM.name(), "EPERM");
        assert_eq!(Errno::ENOSYS.name(), "ENOSYS");
        assert_eq!(Errno(9999).name(), "E?");
        assert_eq!(Errno(0).name(), "E?");
        assert_eq!(Errno(125).name(), "ECANCELED");
        assert_eq!(Errno(36).name(), "ENAMETOOLONG");
        assert_eq!(Errno(32).to_string(), "EPIPE (32)");
        assert_eq!(Errno(41).name(), "E?");
        assert_eq!(Errno(524).to_string(), "ENOTSUPP (524)");
        assert_eq!((Errno(520).name(), Errno(532).name()), ("E?", "E?"));
    }

    /// Every `#define EXXX N` of the installed UAPI errno headers has its
    /// name here (the aliases, defined as another name, are skipped).
    #[test]
    fn every_uapi_errno_has_its_name() {
        let mut seen = 0;
        for h in ["errno-base.h", "errno.h"] {
            let path = format!("/usr/include/asm-generic/{h}");
            let Ok(text) = std::fs::read_to_string(&path) else {
                return crate::testing::skip(&format!("{path} missing (linux-libc-dev)"));
            };
            for l in text.lines() {
                let w: Vec<&str> = l.split_whitespace().collect();
                if let ["#define", name, n, ..] = w[..] {
                    if let Ok(n) = n.parse::<i32>() {
                        assert_eq!(Errno(n).name(), name, "{n}");
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen >= 131, "{seen} errnos in the headers");
    }
}
