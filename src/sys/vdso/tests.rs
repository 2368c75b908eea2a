//! The vDSO parser against this process's vDSO and corrupted copies of it.

extern crate std;

use super::super::arch::VDSO_CLOCK_GETTIME as CLOCK_GETTIME;
use super::super::uapi::{KernelTimespec, AT_SYSINFO_EHDR, CLOCK_MONOTONIC_RAW};
use super::*;
use std::vec::Vec;

type ClockGettime = extern "C" fn(i32, *mut [i64; 2]) -> i32;

/// This process's AT_SYSINFO_EHDR, from /proc/self/auxv (u64 type/value pairs).
fn vdso_base() -> usize {
    let auxv = std::fs::read("/proc/self/auxv").expect("read /proc/self/auxv");
    let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap());
    let base = auxv
        .chunks_exact(16)
        .find(|pair| word(&pair[..8]) == AT_SYSINFO_EHDR as u64)
        .map(|pair| word(&pair[8..]))
        .expect("no AT_SYSINFO_EHDR in auxv");
    usize::try_from(base).unwrap()
}

fn find(name: &[u8], version: &[u8]) -> Option<usize> {
    // SAFETY: the base comes from this process's own auxv.
    unsafe { lookup(vdso_base(), name, version) }
}

fn parsed() -> Vdso {
    // SAFETY: the base comes from this process's own auxv: a mapped vDSO.
    unsafe { Vdso::parse(vdso_base(), usize::MAX) }.expect("vDSO parses")
}

fn call_clock(f: ClockGettime) -> [i64; 2] {
    let mut ts = [-1i64; 2];
    let ret = f(CLOCK_MONOTONIC_RAW, &mut ts);
    assert_eq!(ret, 0, "vDSO clock_gettime returned {ret}");
    assert!((0..1_000_000_000).contains(&ts[1]), "tv_nsec {}", ts[1]);
    assert!(ts[0] >= 0 && ts != [0, 0], "timespec {ts:?}");
    ts
}

/// clock_gettime as a real system call, to cross-check the vDSO.
fn syscall_clock() -> [i64; 2] {
    let mut ts = KernelTimespec::default();
    super::super::clock_gettime_syscall(CLOCK_MONOTONIC_RAW, &mut ts).unwrap();
    [ts.tv_sec, ts.tv_nsec]
}

fn ns(ts: [i64; 2]) -> i128 {
    i128::from(ts[0]) * 1_000_000_000 + i128::from(ts[1])
}

#[test]
fn clock_gettime_is_found_and_works() {
    let (name, version) = CLOCK_GETTIME;
    let addr = find(name, version).expect("clock_gettime in the vDSO");
    let p = core::ptr::with_exposed_provenance::<()>(addr);
    // SAFETY: the symbol is the vDSO's clock_gettime, which has this C ABI.
    let f = unsafe { core::mem::transmute::<*const (), ClockGettime>(p) };
    let a = call_clock(f);
    let b = call_clock(f);
    assert!(ns(b) >= ns(a), "clock went back: {a:?} then {b:?}");
    let s = syscall_clock();
    let c = call_clock(f);
    assert!(
        ns(b) <= ns(s) && ns(s) <= ns(c),
        "{b:?} {s:?} {c:?} not ordered"
    );
    assert!(
        ns(c) - ns(a) < 1_000_000_000,
        "vDSO and syscall differ: {a:?} {c:?}"
    );
}

#[test]
fn a_wrong_version_or_name_is_none() {
    let (name, version) = CLOCK_GETTIME;
    assert_eq!(find(name, b"LINUX_2.5"), None);
    assert_eq!(find(name, b""), None);
    // A prefix, and the version with one character more, must not match either.
    assert_eq!(find(name, &version[..version.len() - 1]), None);
    let mut longer = version.to_vec();
    longer.push(b'9');
    assert_eq!(find(name, &longer), None);
    assert_eq!(find(b"__vdso_no_such_function", version), None);
    assert_eq!(find(b"", version), None);
    assert_eq!(find(&name[..name.len() - 1], version), None);
    let mut longer = name.to_vec();
    longer.push(b'x');
    assert_eq!(find(&longer, version), None);
    // The version itself is a string in the table, but not a symbol.
    assert_eq!(find(version, version), None);
}

#[test]
fn zero_or_unaligned_base_is_none() {
    let (name, version) = CLOCK_GETTIME;
    // SAFETY: 0 is the documented "no vDSO" value.
    assert_eq!(unsafe { lookup(0, name, version) }, None);
    // SAFETY: an unaligned base is rejected before anything is read.
    assert_eq!(unsafe { lookup(vdso_base() + 8, name, version) }, None);
}

#[test]
fn hashes_match_known_values() {
    // From glibc's dl-vdso.h (VDSO_HASH_LINUX_2_6 and friends).
    assert_eq!(elf_hash(b"LINUX_2.6"), 61_765_110);
    assert_eq!(elf_hash(b"LINUX_2.6.15"), 123_718_565);
    assert_eq!(elf_hash(b"LINUX_4.15"), 182_943_605);
}

/// A copy of the vDSO in a buffer of `len` bytes (`len` may cut the image short).
fn copy_of_vdso(len: usize) -> Vec<u8> {
    let vdso = parsed();
    let mut buf = std::vec![0u8; len];
    let n = len.min(vdso.img.len);
    // SAFETY: the vDSO image is readable for img.len bytes; buf has room for n.
    let src = unsafe { core::slice::from_raw_parts(vdso.img.base as *const u8, n) };
    buf[..n].copy_from_slice(src);
    buf
}

/// Lookup in a buffer; any address found must lie inside it.
fn lookup_in(buf: &[u8], name: &[u8], version: &[u8]) -> Option<usize> {
    let base = buf.as_ptr().expose_provenance();
    // SAFETY: `avail` is the buffer's length, so every read stays inside it.
    let vdso = unsafe { Vdso::parse(base, buf.len()) }?;
    let found = vdso.lookup(name, version);
    if let Some(a) = found {
        assert!(
            (base..base + buf.len()).contains(&a),
            "{a:#x} outside the buffer"
        );
    }
    found.map(|a| a - base)
}

#[test]
fn a_copy_finds_the_same_offset() {
    let (name, version) = CLOCK_GETTIME;
    let vdso = parsed();
    let real = vdso.lookup(name, version).unwrap() - vdso.img.base;
    let buf = copy_of_vdso(vdso.img.len);
    assert_eq!(lookup_in(&buf, name, version), Some(real));
    // Unaligned, too: every read is read_unaligned.
    let mut shifted = std::vec![0u8; 1];
    shifted.extend_from_slice(&buf);
    assert_eq!(lookup_in(&shifted[1..], name, version), Some(real));
}

/// Rewrites the tag of dynamic entry `from` to `to` in an image copy.
fn retag(buf: &mut [u8], from: i64, to: i64) {
    // SAFETY: the image is the buffer itself, readable for its whole length.
    let img = unsafe { Image::new(buf.as_ptr().expose_provenance(), buf.len()) }.unwrap();
    let eh: Ehdr = img.read(0).unwrap();
    let dynamic = (0..usize::from(eh.e_phnum))
        .map(|i| img.read_at::<Phdr>(eh.e_phoff as usize, i).unwrap())
        .find(|ph| ph.p_type == PT_DYNAMIC)
        .unwrap();
    let at = (0..dynamic.p_filesz as usize / size_of::<Dyn>())
        .map(|i| dynamic.p_offset as usize + i * size_of::<Dyn>())
        .find(|&off| img.read::<Dyn>(off).unwrap().d_tag == from)
        .expect("dynamic tag present");
    buf[at..at + 8].copy_from_slice(&to.to_ne_bytes());
}

#[test]
fn without_dt_hash_there_is_nothing_to_search() {
    let (name, version) = CLOCK_GETTIME;
    let mut buf = copy_of_vdso(parsed().img.len);
    assert!(lookup_in(&buf, name, version).is_some());
    // DT_SYMENT stands in for the removed tag: parse ignores it.
    retag(&mut buf, DT_HASH, 11);
    assert_eq!(lookup_in(&buf, name, version), None);
}

#[test]
fn unversioned_image_ignores_the_version() {
    let (name, version) = CLOCK_GETTIME;
    let mut buf = copy_of_vdso(parsed().img.len);
    let found = lookup_in(&buf, name, version);
    assert!(found.is_some(), "the copy has the clock under its version");
    // Versioned: another version is not the symbol's.
    assert_eq!(lookup_in(&buf, name, b"ANY"), None);
    // Without version definitions any version names the same symbol.
    retag(&mut buf, DT_VERDEF, 11);
    assert_eq!(lookup_in(&buf, name, b"ANY"), found);
    assert_eq!(lookup_in(&buf, name, version), found);
}

#[test]
fn only_defined_global_or_weak_functions_match() {
    let (name, version) = CLOCK_GETTIME;
    let pristine = copy_of_vdso(parsed().img.len);
    // Byte offset of the symbol's Elf64_Sym in the copy.
    let sym_at = {
        // SAFETY: `avail` is the buffer's length, so every read stays inside it.
        let vdso = unsafe { Vdso::parse(pristine.as_ptr().expose_provenance(), pristine.len()) };
        let vdso = vdso.unwrap();
        let idx = (0..MAX_SYMS)
            .find(|&i| {
                let sym: Sym = vdso.img.read_at(vdso.symtab, i).unwrap();
                vdso.strtab.cstr_eq(sym.st_name as usize, name)
            })
            .unwrap();
        vdso.symtab + idx * size_of::<Sym>()
    };
    let info = core::mem::offset_of!(Sym, st_info);
    let shndx = core::mem::offset_of!(Sym, st_shndx);
    // (byte offset in the Sym, new bytes): LOCAL FUNC, GLOBAL OBJECT, SHN_UNDEF.
    let edits: [(usize, &[u8]); 3] = [(info, &[0x02]), (info, &[0x11]), (shndx, &[0, 0])];
    for (field, bytes) in edits {
        let mut buf = pristine.clone();
        let at = sym_at + field;
        buf[at..at + bytes.len()].copy_from_slice(bytes);
        assert_eq!(
            lookup_in(&buf, name, version),
            None,
            "Sym+{field} = {bytes:?}"
        );
    }
    let mut buf = pristine.clone();
    buf[sym_at + info] = 0x22; // WEAK FUNC
    assert!(lookup_in(&buf, name, version).is_some());
}

#[test]
fn truncated_images_never_panic() {
    let (name, version) = CLOCK_GETTIME;
    let buf = copy_of_vdso(parsed().img.len);
    for len in 0..buf.len() {
        let _ = lookup_in(&buf[..len], name, version);
    }
    assert_eq!(lookup_in(&buf[..63], name, version), None);
}

#[test]
fn corrupted_images_never_panic() {
    let (name, version) = CLOCK_GETTIME;
    let mut buf = copy_of_vdso(parsed().img.len);
    for i in 0..buf.len() {
        for flip in [0x01, 0x80, 0xff] {
            buf[i] ^= flip;
            let _ = lookup_in(&buf, name, version);
            let _ = lookup_in(&buf, b"__vdso_nope", version);
            buf[i] ^= flip;
        }
    }
    // Bad magic, class or encoding is refused outright.
    for (i, bad) in [(0, 0u8), (EI_CLASS, 1), (EI_DATA, 0)] {
        let saved = buf[i];
        buf[i] = bad;
        assert_eq!(lookup_in(&buf, name, version), None, "e_ident[{i}] = {bad}");
        buf[i] = saved;
    }
    assert!(lookup_in(&buf, name, version).is_some());
}
