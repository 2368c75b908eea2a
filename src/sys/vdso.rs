//! Symbol lookup in the vDSO, the small ELF shared object the kernel maps into every
//! process; its base address arrives in auxv as AT_SYSINFO_EHDR.
//!
//! The walk follows the kernel's tools/testing/selftests/vDSO/parse_vdso.c: the first
//! PT_LOAD gives the load bias, PT_DYNAMIC the tables (DT_STRTAB, DT_SYMTAB, DT_HASH,
//! DT_VERSYM, DT_VERDEF). A name is looked up through the SysV DT_HASH table, which the
//! kernel links into the vDSO of every architecture built here (x86_64 links
//! `--hash-style=both`, arm64 `--hash-style=sysv`; riscv64's has both DT_HASH and
//! DT_GNU_HASH, as read from Debian's 6.12 riscv64 kernel image); the symbol must be a
//! defined global or weak function whose version matches. A vDSO without DT_HASH gives
//! `None`, and the clock then falls back to the syscall (`clock=syscall`).
//!
//! # Safety
//! [`lookup`] trusts the caller for one thing only: that `base` is a mapped ELF image,
//! i.e. its first page and the file bytes its first PT_LOAD describes are readable.
//! Every read, headers included, goes through `Image::read`, which bounds-checks it
//! against the first page (for the headers) or that file range (for the rest), so a
//! malformed image yields `None`: never a stray read, never a panic. Every loop is
//! capped, so a corrupt chain or count cannot spin.

use core::mem::size_of;

// The ELF64 structs below use u64 offsets and addresses; u32 fields widen to usize
// losslessly only on a 64-bit target, which is all this crate builds for.
const _: () = assert!(usize::BITS == 64);

// ---- ELF constants (names from include/uapi/linux/elf.h) ----

const ELFMAG: [u8; 4] = *b"\x7fELF"; // e_ident[0..4]
const EI_CLASS: usize = 4; // e_ident index of the file class
const ELFCLASS64: u8 = 2;
const EI_DATA: usize = 5; // e_ident index of the data encoding
const ELFDATA2LSB: u8 = 1; // little endian: every target built here, so no byte swapping
const _: () = assert!(cfg!(target_endian = "little"));

const PT_LOAD: u32 = 1; // loadable segment: the vaddr <-> file offset mapping
const PT_DYNAMIC: u32 = 2;

const DT_NULL: i64 = 0; // end of the dynamic section
const DT_HASH: i64 = 4; // SysV symbol hash table
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_STRSZ: i64 = 10; // size of the string table in bytes
const DT_VERSYM: i64 = 0x6fff_fff0; // version index of each symbol (u16 per symbol)
const DT_VERDEF: i64 = 0x6fff_fffc; // version definitions (a Verdef chain)

const STT_FUNC: u8 = 2; // symbol type
const STB_GLOBAL: u8 = 1; // symbol bindings
const STB_WEAK: u8 = 2;
const SHN_UNDEF: u16 = 0; // section index of an undefined symbol
const VER_FLG_BASE: u16 = 1; // Verdef flag: the file's own version, no symbol's
const VERSYM_HIDDEN: u16 = 0x8000; // versym bit: not the default version; not in the index
const STN_UNDEF: usize = 0; // symbol index 0 ends a hash chain

// ---- limits: a real vDSO is a few pages with a few dozen symbols ----

/// Only the first page is known mapped before the PT_LOAD says how big the image is.
const MIN_PAGE: usize = 4096;
const MAX_IMAGE: usize = 1 << 20; // largest image accepted (x86_64's is 8 KiB)
const MAX_PHDRS: usize = 32; // program headers looked at (the vDSO has about five)
const MAX_DYN: usize = 128; // dynamic entries looked at (about fifteen)
const MAX_SYMS: usize = 4096; // symbols and hash buckets accepted
const MAX_VERDEFS: usize = 64; // version definitions walked

// ---- ELF64 layouts ----

/// Elf64_Ehdr: the file header.
#[repr(C)]
#[derive(Clone, Copy)]
struct Ehdr {
    e_ident: [u8; 16],
    e_type: u16,
    e_machine: u16,
    e_version: u32,
    e_entry: u64,
    e_phoff: u64,
    e_shoff: u64,
    e_flags: u32,
    e_ehsize: u16,
    e_phentsize: u16,
    e_phnum: u16,
    e_shentsize: u16,
    e_shnum: u16,
    e_shstrndx: u16,
}

/// Elf64_Phdr: one program header.
#[repr(C)]
#[derive(Clone, Copy)]
struct Phdr {
    p_type: u32,
    p_flags: u32,
    p_offset: u64,
    p_vaddr: u64,
    p_paddr: u64,
    p_filesz: u64,
    p_memsz: u64,
    p_align: u64,
}

/// Elf64_Dyn: one dynamic entry (d_un read as d_val; d_ptr is the same bits).
#[repr(C)]
#[derive(Clone, Copy)]
struct Dyn {
    d_tag: i64,
    d_val: u64,
}

/// Elf64_Sym: one symbol.
#[repr(C)]
#[derive(Clone, Copy)]
struct Sym {
    st_name: u32,
    st_info: u8,
    st_other: u8,
    st_shndx: u16,
    st_value: u64,
    st_size: u64,
}

/// Elf64_Verdef: one version definition; `vd_aux` and `vd_next` are byte offsets
/// from this record.
#[repr(C)]
#[derive(Clone, Copy)]
struct Verdef {
    vd_version: u16,
    vd_flags: u16,
    vd_ndx: u16,
    vd_cnt: u16,
    vd_hash: u32,
    vd_aux: u32,
    vd_next: u32,
}

/// Elf64_Verdaux: a version name; the first one after a Verdef is its own name.
#[repr(C)]
#[derive(Clone, Copy)]
struct Verdaux {
    vda_name: u32,
    vda_next: u32,
}

/// Asserts a struct's size and each field's offset against the ELF spec, and
/// that the fields' sizes add up to the struct's (so there is no padding);
/// then marks it [`Plain`].
macro_rules! elf_struct {
    ($t:ty, size $size:expr, $($field:ident @ $off:expr),+ $(,)?) => {
        const _: () = {
            assert!(size_of::<$t>() == $size);
            $(assert!(core::mem::offset_of!($t, $field) == $off);)+
            let mut sum = 0;
            $(sum += field_size(|s: &$t| &s.$field);)+
            assert!(sum == $size);
        };
        // SAFETY: repr(C) with integer fields only, and no padding (asserted above).
        unsafe impl Plain for $t {}
    };
}

/// Size of a field, named through an accessor closure (usable in const).
const fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// Types for which every bit pattern is a valid value, so any bytes may be read as one.
///
/// # Safety
/// Implement only for integers and `repr(C)` structs of integers without padding.
unsafe trait Plain: Copy {}

// SAFETY: integers accept every bit pattern.
unsafe impl Plain for u8 {}
// SAFETY: integers accept every bit pattern.
unsafe impl Plain for u16 {}
// SAFETY: integers accept every bit pattern.
unsafe impl Plain for u32 {}
// SAFETY: integers accept every bit pattern.
unsafe impl Plain for u64 {}

elf_struct!(Ehdr, size 64, e_ident @ 0, e_type @ 16, e_machine @ 18, e_version @ 20,
    e_entry @ 24, e_phoff @ 32, e_shoff @ 40, e_flags @ 48, e_ehsize @ 52, e_phentsize @ 54,
    e_phnum @ 56, e_shentsize @ 58, e_shnum @ 60, e_shstrndx @ 62);
elf_struct!(Phdr, size 56, p_type @ 0, p_flags @ 4, p_offset @ 8, p_vaddr @ 16,
    p_paddr @ 24, p_filesz @ 32, p_memsz @ 40, p_align @ 48);
elf_struct!(Dyn, size 16, d_tag @ 0, d_val @ 8);
elf_struct!(Sym, size 24, st_name @ 0, st_info @ 4, st_other @ 5, st_shndx @ 6,
    st_value @ 8, st_size @ 16);
elf_struct!(Verdef, size 20, vd_version @ 0, vd_flags @ 2, vd_ndx @ 4, vd_cnt @ 6,
    vd_hash @ 8, vd_aux @ 12, vd_next @ 16);
elf_struct!(Verdaux, size 8, vda_name @ 0, vda_next @ 4);

/// A readable byte range `base..base + len`; every read is bounds-checked against it.
///
/// Offsets stay below `MAX_IMAGE` plus a u32, so offset arithmetic cannot overflow.
#[derive(Clone, Copy)]
struct Image {
    base: usize,
    len: usize,
}

impl Image {
    /// # Safety
    /// `base..base + len` must stay readable for as long as the `Image` is used.
    unsafe fn new(base: usize, len: usize) -> Option<Image> {
        base.checked_add(len)?;
        Some(Image { base, len })
    }

    /// The sub-range `off..off + len`, clamped to this one.
    fn sub(&self, off: usize, len: usize) -> Option<Image> {
        let room = self.len.checked_sub(off)?;
        Some(Image {
            base: self.base + off,
            len: len.min(room),
        })
    }

    /// The `T` at byte offset `off`, or None if it does not fit inside the range.
    fn read<T: Plain>(&self, off: usize) -> Option<T> {
        let end = off.checked_add(size_of::<T>())?;
        if end > self.len {
            return None;
        }
        let p = core::ptr::with_exposed_provenance::<T>(self.base + off);
        // SAFETY: off..end lies inside the range `new` was promised is readable; T: Plain
        // accepts any bytes, and read_unaligned needs no alignment.
        Some(unsafe { p.read_unaligned() })
    }

    /// Element `idx` of an array of `T` starting at `off`.
    fn read_at<T: Plain>(&self, off: usize, idx: usize) -> Option<T> {
        self.read(off.checked_add(idx.checked_mul(size_of::<T>())?)?)
    }

    /// Whether the NUL-terminated string at `off` equals `s` (which has no NUL).
    fn cstr_eq(&self, off: usize, s: &[u8]) -> bool {
        let Some(end) = off.checked_add(s.len()) else {
            return false;
        };
        let same = s
            .iter()
            .enumerate()
            .all(|(i, &b)| self.read::<u8>(off + i) == Some(b));
        same && self.read::<u8>(end) == Some(0)
    }
}

/// The SysV ELF hash of a symbol name (DT_HASH). Done in u32: bits above 32 never
/// reach the low 32 bits, so this equals the spec's `unsigned long` version truncated.
fn elf_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        h ^= g >> 24;
        h &= !g;
    }
    h
}

/// The parts of a vDSO image a lookup needs, as byte offsets into `img`.
struct Vdso {
    img: Image,
    /// p_vaddr and p_offset of the first PT_LOAD: file offset = vaddr - vaddr0 + off0.
    load_vaddr: u64,
    load_offset: u64,
    strtab: Image,
    symtab: usize,
    /// The DT_HASH table.
    hash: usize,
    /// Both or neither (a versym without verdefs names no versions, as in parse_vdso.c).
    versions: Option<(usize, usize)>,
}

impl Vdso {
    /// Parses the headers of the image at `base`, of which at most `avail` bytes are
    /// known to exist (the real vDSO passes usize::MAX and is bounded by its PT_LOAD).
    ///
    /// # Safety
    /// `base..base + min(avail, MIN_PAGE)` must be readable, and so must
    /// `base..base + min(avail, p_offset + p_filesz)` of the image's first PT_LOAD.
    unsafe fn parse(base: usize, avail: usize) -> Option<Vdso> {
        // SAFETY: the caller promises the first page (or all of `avail`) is readable.
        let head = unsafe { Image::new(base, avail.min(MIN_PAGE)) }?;
        let eh: Ehdr = head.read(0)?;
        if eh.e_ident[..4] != ELFMAG
            || eh.e_ident[EI_CLASS] != ELFCLASS64
            || eh.e_ident[EI_DATA] != ELFDATA2LSB
            || usize::from(eh.e_phentsize) != size_of::<Phdr>()
        {
            return None;
        }
        let phoff = usize::try_from(eh.e_phoff).ok()?;
        let mut load = None;
        let mut dynamic = None;
        for i in 0..usize::from(eh.e_phnum).min(MAX_PHDRS) {
            // The program headers must sit in the first page: nothing else is known mapped yet.
            let ph: Phdr = head.read_at(phoff, i)?;
            if ph.p_type == PT_LOAD && load.is_none() {
                load = Some(ph);
            } else if ph.p_type == PT_DYNAMIC {
                dynamic = Some(ph);
            }
        }
        let (load, dynamic) = (load?, dynamic?);

        let end = load.p_offset.checked_add(load.p_filesz)?;
        let len = usize::try_from(end).ok()?.min(MAX_IMAGE).min(avail);
        // SAFETY: the caller promises the file image the first PT_LOAD describes is
        // readable, up to `avail`.
        let img = unsafe { Image::new(base, len) }?;

        let mut vdso = Vdso {
            img,
            load_vaddr: load.p_vaddr,
            load_offset: load.p_offset,
            strtab: img.sub(0, 0)?,
            symtab: 0,
            hash: 0,
            versions: None,
        };
        let dyn_off = usize::try_from(dynamic.p_offset).ok()?;
        let dyn_size = size_of::<Dyn>() as u64;
        let dyn_count = usize::try_from(dynamic.p_filesz / dyn_size)
            .ok()?
            .min(MAX_DYN);
        let (mut strtab, mut strsz, mut symtab, mut hash) = (None, None, None, None);
        let (mut versym, mut verdef) = (None, None);
        for i in 0..dyn_count {
            let d: Dyn = img.read_at(dyn_off, i)?;
            match d.d_tag {
                DT_NULL => break,
                DT_STRTAB => strtab = vdso.offset_of(d.d_val),
                DT_STRSZ => strsz = usize::try_from(d.d_val).ok(),
                DT_SYMTAB => symtab = vdso.offset_of(d.d_val),
                DT_HASH => hash = vdso.offset_of(d.d_val),
                DT_VERSYM => versym = vdso.offset_of(d.d_val),
                DT_VERDEF => verdef = vdso.offset_of(d.d_val),
                _ => {}
            }
        }
        let strtab = strtab?;
        vdso.strtab = img.sub(strtab, strsz.unwrap_or(usize::MAX))?;
        vdso.symtab = symtab?;
        vdso.hash = hash?;
        vdso.versions = versym.zip(verdef);
        Some(vdso)
    }

    /// The offset in the image of virtual address `vaddr`, if it lies inside it.
    fn offset_of(&self, vaddr: u64) -> Option<usize> {
        let off = vaddr
            .checked_sub(self.load_vaddr)?
            .checked_add(self.load_offset)?;
        let off = usize::try_from(off).ok()?;
        (off < self.img.len).then_some(off)
    }

    /// The address of `name`@`version`, through DT_HASH: nbucket, nchain,
    /// bucket[nbucket], chain[nchain] (u32s); nchain is the number of symbols.
    fn lookup(&self, name: &[u8], version: &[u8]) -> Option<usize> {
        let table = self.hash;
        let nbucket = self.img.read::<u32>(table)? as usize;
        let nchain = self.img.read::<u32>(table + 4)? as usize;
        if nbucket == 0 || nbucket > MAX_SYMS || nchain > MAX_SYMS {
            return None;
        }
        let buckets = table + 8;
        let chains = buckets + nbucket * 4;
        let bucket = elf_hash(name) as usize % nbucket;
        let mut idx = self.img.read_at::<u32>(buckets, bucket)? as usize;
        // A sane chain visits each symbol at most once.
        for _ in 0..nchain {
            if idx == STN_UNDEF || idx >= nchain {
                return None;
            }
            if let Some(addr) = self.match_symbol(idx, name, version) {
                return Some(addr);
            }
            idx = self.img.read_at::<u32>(chains, idx)? as usize;
        }
        None
    }

    /// The address of symbol `idx` if it is a defined global/weak function named
    /// `name` with version `version`.
    fn match_symbol(&self, idx: usize, name: &[u8], version: &[u8]) -> Option<usize> {
        let sym: Sym = self.img.read_at(self.symtab, idx)?;
        let (kind, bind) = (sym.st_info & 0xf, sym.st_info >> 4);
        if kind != STT_FUNC
            || !(bind == STB_GLOBAL || bind == STB_WEAK)
            || sym.st_shndx == SHN_UNDEF
            || !self.strtab.cstr_eq(sym.st_name as usize, name)
            || !self.version_is(idx, version)
        {
            return None;
        }
        let off = self.offset_of(sym.st_value)?;
        Some(self.img.base + off)
    }

    /// Whether symbol `idx` carries version `version` (always true in an unversioned image).
    fn version_is(&self, idx: usize, version: &[u8]) -> bool {
        let Some((versym, verdef)) = self.versions else {
            return true;
        };
        self.version_name(versym, verdef, idx)
            .is_some_and(|name| self.strtab.cstr_eq(name, version))
    }

    /// The string-table offset of symbol `idx`'s version name.
    fn version_name(&self, versym: usize, verdef: usize, idx: usize) -> Option<usize> {
        let ndx = self.img.read_at::<u16>(versym, idx)? & !VERSYM_HIDDEN;
        let mut off = verdef;
        for _ in 0..MAX_VERDEFS {
            let def: Verdef = self.img.read(off)?;
            if def.vd_flags & VER_FLG_BASE == 0 && def.vd_ndx & !VERSYM_HIDDEN == ndx {
                let aux: Verdaux = self.img.read(off + def.vd_aux as usize)?;
                return Some(aux.vda_name as usize);
            }
            if def.vd_next == 0 {
                return None;
            }
            off += def.vd_next as usize;
        }
        None
    }
}

/// Address of `name` with symbol version `version` in the vDSO mapped at `base`, or None.
///
/// `name` and `version` are given without a NUL, e.g. `b"__vdso_clock_gettime"` and
/// `b"LINUX_2.6"`. The image is parsed afresh on every call; call it once at start-up.
///
/// # Safety
/// `base` must be 0 or the AT_SYSINFO_EHDR value of this process (a mapped ELF image).
pub unsafe fn lookup(base: usize, name: &[u8], version: &[u8]) -> Option<usize> {
    // 0 means "no vDSO"; the kernel always maps it page-aligned.
    if base == 0 || !base.is_multiple_of(MIN_PAGE) {
        return None;
    }
    // SAFETY: the caller promises `base` is the vDSO: its first page and the file image
    // its PT_LOAD describes are mapped readable for the life of the process.
    let vdso = unsafe { Vdso::parse(base, usize::MAX) }?;
    vdso.lookup(name, version)
}

#[cfg(test)]
mod tests;
