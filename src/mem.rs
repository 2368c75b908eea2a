//! memcpy, memmove, memset, memcmp, bcmp and strlen: the symbols compiled
//! code expects from a libc, which this binary does not link.
//!
//! # Safety
//! The C contracts apply: the pointers are valid for `n` bytes (memcpy's
//! ranges do not overlap). Simple loops: LLVM's loop-idiom pass does not
//! turn a loop inside a function named memcpy/memset back into a call to
//! itself; bench/targets.sh disassembles the release binary to prove there
//! is no self-call.

/// Word size for the bulk loops.
const W: usize = core::mem::size_of::<usize>();

#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // Eight bytes per step, then the tail: struct copies of a few hundred
    // bytes happen once per round, and a byte loop made them visible in
    // the instruction count (bench/targets.sh).
    let mut i = 0;
    while i + W <= n {
        // SAFETY: C contract: both ranges valid for n bytes; unaligned
        // accesses are fine on x86_64 and aarch64 (on riscv64 the compiler
        // splits them into byte accesses).
        unsafe {
            let w = (src.add(i) as *const usize).read_unaligned();
            (dst.add(i) as *mut usize).write_unaligned(w);
        }
        i += W;
    }
    while i < n {
        // SAFETY: C contract: both ranges valid for n bytes.
        unsafe { *dst.add(i) = *src.add(i) };
        i += 1;
    }
    dst
}

#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dst as usize) <= (src as usize) || (dst as usize) >= (src as usize) + n {
        // Forward copy is safe when dst starts before src or past its end.
        // SAFETY: C contract: both ranges valid for n bytes.
        return unsafe { memcpy(dst, src, n) };
    }
    let mut i = n;
    while i > 0 {
        i -= 1;
        // SAFETY: C contract: both ranges valid for n bytes.
        unsafe { *dst.add(i) = *src.add(i) };
    }
    dst
}

#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // The byte in every lane (0x0101..01 * c); an array literal here would
    // itself compile to a memset call in debug builds.
    let word = (c as u8 as usize).wrapping_mul(usize::MAX / 0xff);
    let mut i = 0;
    while i + W <= n {
        // SAFETY: C contract: dst valid for n bytes; unaligned is fine.
        unsafe { (dst.add(i) as *mut usize).write_unaligned(word) };
        i += W;
    }
    while i < n {
        // SAFETY: C contract: dst valid for n bytes.
        unsafe { *dst.add(i) = c as u8 };
        i += 1;
    }
    dst
}

#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        // SAFETY: C contract: both ranges valid for n bytes.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return x as i32 - y as i32;
        }
        i += 1;
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: same contract as memcmp.
    unsafe { memcmp(a, b, n) }
}

#[no_mangle]
pub unsafe extern "C" fn strlen(s: *const u8) -> usize {
    let mut n = 0;
    // SAFETY: C contract: s is NUL-terminated.
    while unsafe { *s.add(n) } != 0 {
        n += 1;
    }
    n
}
