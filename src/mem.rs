//! memcpy, memmove, memset, memcmp, bcmp and strlen: the symbols compiled
//! code expects from a libc, which this binary does not link.
//!
//! # Safety
//! The C contracts apply: the pointers are valid for `n` bytes (memcpy's
//! ranges do not overlap). Plain byte loops: LLVM's loop-idiom pass does not
//! turn a loop inside a function named memcpy/memset back into a call to
//! itself; bench/targets.sh disassembles the release binary to prove there
//! is no self-call.

#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    let mut i = 0;
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
    let mut i = 0;
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
