//! Process start: argc, argv, envp and auxv as the kernel laid them out on
//! the initial stack (System V ABI): `[argc][argv...][NULL][envp...][NULL]
//! [auxv (type, value) pairs...][AT_NULL, 0]`.
//!
//! # Safety
//! `StartInfo::from_stack` trusts that `sp` is the untouched initial stack
//! pointer; everything read afterwards lives for the whole process, which is
//! why the slices handed out are `'static`.

pub mod pid1;

use core::ffi::{c_char, CStr};

use crate::sys::uapi::{AT_EXECFN, AT_NULL};

/// What the kernel gave the process at start.
#[derive(Clone, Copy)]
pub struct StartInfo {
    argc: usize,
    argv: *const *const u8,
    envp: *const *const u8,
    auxv: *const usize,
}

impl StartInfo {
    /// # Safety
    /// `sp` must be the initial stack pointer the kernel passed to `_start`.
    pub unsafe fn from_stack(sp: *const usize) -> StartInfo {
        // SAFETY: the initial stack starts with argc, then argc+1 argv slots.
        unsafe {
            let argc = *sp;
            let argv = sp.add(1) as *const *const u8;
            let envp = argv.add(argc + 1);
            let mut p = envp;
            while !(*p).is_null() {
                p = p.add(1);
            }
            let auxv = p.add(1) as *const usize;
            StartInfo {
                argc,
                argv,
                envp,
                auxv,
            }
        }
    }

    /// argv[1..] as byte strings (argv[0], the program name, is skipped).
    pub fn args(&self) -> CStrIter {
        // SAFETY: argv has argc valid entries followed by NULL (from_stack).
        CStrIter {
            p: unsafe { self.argv.add(self.argc.min(1)) },
        }
    }

    /// The environment as `NAME=value` byte strings.
    pub fn env(&self) -> CStrIter {
        CStrIter { p: self.envp }
    }

    /// The path the kernel executed this program as (`AT_EXECFN`: `/init`
    /// for an initramfs's init).
    pub fn execfn(&self) -> Option<&'static CStr> {
        let p = self.auxv(AT_EXECFN).filter(|&p| p != 0)? as *const c_char;
        // SAFETY: AT_EXECFN points at a NUL-terminated string the kernel
        // put on the initial stack, which lives for the whole process.
        Some(unsafe { CStr::from_ptr(p) })
    }

    /// The value of auxv entry `kind`, if present.
    pub fn auxv(&self, kind: usize) -> Option<usize> {
        let mut p = self.auxv;
        loop {
            // SAFETY: the auxv vector is terminated by an AT_NULL pair.
            let (t, v) = unsafe { (*p, *p.add(1)) };
            if t == AT_NULL {
                return None;
            }
            if t == kind {
                return Some(v);
            }
            // SAFETY: not yet at AT_NULL, so the next pair exists.
            p = unsafe { p.add(2) };
        }
    }
}

/// Iterates a NULL-terminated array of C strings as byte slices.
pub struct CStrIter {
    p: *const *const u8,
}

impl Iterator for CStrIter {
    type Item = &'static [u8];
    fn next(&mut self) -> Option<&'static [u8]> {
        // SAFETY: p walks a NULL-terminated array of NUL-terminated strings
        // that live for the whole process (from_stack).
        unsafe {
            let s = *self.p;
            if s.is_null() {
                return None;
            }
            self.p = self.p.add(1);
            let mut len = 0;
            while *s.add(len) != 0 {
                len += 1;
            }
            Some(core::slice::from_raw_parts(s, len))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::uapi::{AT_PAGESZ, AT_SYSINFO_EHDR};

    #[test]
    fn parses_a_synthetic_initial_stack() {
        let a0 = b"/init\0";
        let a1 = b"--smoke\0";
        let e0 = b"HOME=/\0";
        let stack: [usize; 14] = [
            2,
            a0.as_ptr() as usize,
            a1.as_ptr() as usize,
            0,
            e0.as_ptr() as usize,
            0,
            AT_PAGESZ,
            4096,
            AT_SYSINFO_EHDR,
            0x7fff_0000,
            AT_EXECFN,
            a0.as_ptr() as usize,
            AT_NULL,
            0,
        ];
        // SAFETY: the array has the exact initial-stack layout.
        let info = unsafe { StartInfo::from_stack(stack.as_ptr()) };
        let args: Vec<&[u8]> = info.args().collect();
        assert_eq!(args, vec![&b"--smoke"[..]]);
        let env: Vec<&[u8]> = info.env().collect();
        assert_eq!(env, vec![&b"HOME=/"[..]]);
        assert_eq!(info.auxv(AT_PAGESZ), Some(4096));
        assert_eq!(info.auxv(AT_SYSINFO_EHDR), Some(0x7fff_0000));
        assert_eq!(info.auxv(99), None);
        assert_eq!(info.execfn(), Some(c"/init"));
    }

    #[test]
    fn argc_zero_gives_no_args() {
        let stack: [usize; 5] = [0, 0, 0, AT_NULL, 0];
        // SAFETY: the array has the exact initial-stack layout.
        let info = unsafe { StartInfo::from_stack(stack.as_ptr()) };
        assert_eq!(info.args().count(), 0);
        assert_eq!(info.execfn(), None);
    }
}
