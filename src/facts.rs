//! Facts about the box that a regression report has to state: kernel,
//! boot, command line, preemption mode, CPU model, frequency policy, SMT,
//! online CPUs, io_uring policy. Printed as `# key=value` lines; a fact that
//! cannot be read is `unknown`, never an error.
//!
//! The boot is the kernel's boot id, unless the host gave the boot an
//! identity of its own (the initramfs's `/uring-repro.boot_id`, or
//! `URING_REPRO_BOOT_ID`: config.rs, HostBootId): then that is the boot,
//! and two more lines say where it came from and what the kernel's own was.

use core::ffi::CStr;
use core::fmt::Write;

use crate::config::HostBootId;
use crate::render::{Bytes, Line, Text};
use crate::sys::{self, uapi::Utsname, CPath};

/// Room for a fact of a word or a few (a boot id, a mode, a policy, a
/// CPU list): 64 bytes hold any such file's text, or uname's machine.
const WORD: usize = 64;

/// A fact: text read from the box (at most N bytes, trimmed of
/// surrounding whitespace), `unknown` when nothing could be read.
pub struct Fact<const N: usize>(Text<N>);

impl<const N: usize> Fact<N> {
    pub const fn unknown() -> Self {
        Fact(Text::new())
    }

    /// `s` as it is (cut to N bytes): copied, never looked into.
    pub fn opaque(s: &[u8]) -> Self {
        let mut f = Self::unknown();
        f.0.push_with(&mut |buf| {
            let n = s.len().min(buf.len());
            buf[..n].copy_from_slice(&s[..n]);
            n
        });
        f
    }

    /// `s` (cut to N bytes), trimmed.
    pub fn from(s: &[u8]) -> Self {
        let mut f = Self::unknown();
        f.copy(s);
        f
    }

    /// `s` (cut to N bytes), trimmed, as this fact, unknown so far.
    fn copy(&mut self, s: &[u8]) {
        self.0.push_with(&mut |buf| copy_trimmed(s, buf));
    }

    /// The whole file at `path` (its first N bytes), trimmed, as this
    /// fact, unknown so far; it stays unknown when the file cannot be read.
    fn read(&mut self, path: &CStr) {
        self.0.push_with(&mut |buf| read_trimmed(path, buf));
    }

    /// What was read, empty when nothing was.
    fn bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The text, or `unknown` when nothing could be read.
    pub fn get(&self) -> &[u8] {
        match self.bytes() {
            [] => b"unknown",
            b => b,
        }
    }
}

/// `s`, trimmed, into `buf` (cut to fit); its length.
fn copy_trimmed(s: &[u8], buf: &mut [u8]) -> usize {
    let s = trim(s);
    let n = s.len().min(buf.len());
    buf[..n].copy_from_slice(&s[..n]);
    n
}

/// The file at `path` into `buf`, trimmed; its length (0 when it cannot
/// be read).
fn read_trimmed(path: &CStr, buf: &mut [u8]) -> usize {
    let Ok(n) = sys::read_file(path, buf).map(|s| s.len()) else {
        return 0;
    };
    let t = trim(&buf[..n]);
    let (start, len) = (t.as_ptr() as usize - buf.as_ptr() as usize, t.len());
    buf.copy_within(start..start + len, 0);
    len
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !first.is_ascii_whitespace() {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !last.is_ascii_whitespace() && *last != 0 {
            break;
        }
        s = rest;
    }
    s
}

/// `leaf` of `cpu`'s cpufreq directory.
fn read_cpu_path<const N: usize>(cpu: u32, leaf: &str) -> Fact<N> {
    let mut f = Fact::unknown();
    if let Ok(p) = CPath::format(format_args!(
        "/sys/devices/system/cpu/cpu{cpu}/cpufreq/{leaf}"
    )) {
        f.read(&p);
    }
    f
}

/// Where the preemption mode came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptSource {
    /// /sys/kernel/debug/sched/preempt: the mode in force.
    Debugfs,
    /// `preempt=` on the command line of a PREEMPT_DYNAMIC kernel.
    Cmdline,
    /// The uname version string (build-time model only).
    Version,
}

impl PreemptSource {
    pub fn name(self) -> &'static str {
        match self {
            PreemptSource::Debugfs => "debugfs",
            PreemptSource::Cmdline => "derived:cmdline",
            PreemptSource::Version => "derived:version",
        }
    }
}

/// The mode marked `(mode)` in debugfs's `none voluntary (full) lazy`.
pub fn preempt_from_debugfs(s: &[u8]) -> Option<&[u8]> {
    let open = s.iter().position(|&b| b == b'(')?;
    let close = s[open..].iter().position(|&b| b == b')')? + open;
    Some(&s[open + 1..close]).filter(|m| !m.is_empty())
}

/// True when `word` is one of the space-separated words of `s`.
fn has_word(s: &[u8], word: &[u8]) -> bool {
    s.split(|&b| b == b' ').any(|w| w == word)
}

/// The mode derived from the uname version string and the command line.
pub fn preempt_derived<'a>(version: &'a [u8], cmdline: &'a [u8]) -> (&'a [u8], PreemptSource) {
    let has = |word: &[u8]| has_word(version, word);
    if has(b"PREEMPT_RT") {
        return (b"rt", PreemptSource::Version);
    }
    if has(b"PREEMPT_DYNAMIC") {
        let arg = cmdline
            .split(|&b| b == b' ')
            .find_map(|w| w.strip_prefix(b"preempt=").filter(|v| !v.is_empty()));
        return match arg {
            Some(mode) => (mode, PreemptSource::Cmdline),
            // The build's default mode is not visible from user space.
            None => (b"dynamic-build-default", PreemptSource::Version),
        };
    }
    if has(b"PREEMPT") {
        return (b"full", PreemptSource::Version);
    }
    (b"none-or-voluntary", PreemptSource::Version)
}

/// The CPU model: x86's `model name`, or arm64's implementer and part
/// (each the first `name : value` line of /proc/cpuinfo with that name).
fn cpu_model(cpuinfo: &[u8]) -> Fact<128> {
    const NAMES: [&[u8]; 3] = [b"model name", b"CPU implementer", b"CPU part"];
    let mut values: [Option<&[u8]>; 3] = [None; 3];
    for line in cpuinfo.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        if let Some(i) = NAMES.iter().position(|&n| n == trim(&line[..colon])) {
            values[i] = values[i].or(Some(trim(&line[colon + 1..])));
        }
    }
    match values {
        [Some(m), _, _] => Fact::from(m),
        [None, Some(i), Some(p)] => {
            let mut t = Line::new();
            let _ = write!(t, "implementer={} part={}", Bytes(i), Bytes(p));
            Fact::from(t.as_bytes())
        }
        _ => Fact::unknown(),
    }
}

/// Everything the banner states about the box.
pub struct Facts {
    pub uts: Utsname,
    /// The boot: the host's id for it where it gave one, else the kernel's.
    pub boot_id: Fact<WORD>,
    /// The kernel's own boot id, where `boot_id` is the host's, and where
    /// the host's came from (`HostBootId::source`).
    pub kernel_boot_id: Option<(Fact<WORD>, &'static str)>,
    pub cmdline: Fact<2048>,
    pub preempt: Fact<WORD>,
    pub preempt_source: PreemptSource,
    pub cpu_model: Fact<128>,
    pub governor: Fact<WORD>,
    pub epp: Fact<WORD>,
    pub turbo: Fact<WORD>,
    pub smt: Fact<WORD>,
    pub online_cpus: Fact<WORD>,
    pub io_uring_disabled: Fact<WORD>,
}

fn cstr(field: &[u8]) -> &[u8] {
    &field[..field.iter().position(|&b| b == 0).unwrap_or(field.len())]
}

impl Facts {
    /// Reads every fact; `cpu` is the CPU whose frequency policy counts.
    pub fn read(cpu: u32) -> Facts {
        let mut f = Facts {
            uts: Utsname {
                sysname: [0; 65],
                nodename: [0; 65],
                release: [0; 65],
                version: [0; 65],
                machine: [0; 65],
                domainname: [0; 65],
            },
            boot_id: Fact::unknown(),
            kernel_boot_id: None,
            cmdline: Fact::unknown(),
            preempt: Fact::unknown(),
            preempt_source: PreemptSource::Debugfs,
            cpu_model: Fact::unknown(),
            governor: Fact::unknown(),
            epp: Fact::unknown(),
            turbo: Fact::unknown(),
            smt: Fact::unknown(),
            online_cpus: Fact::unknown(),
            io_uring_disabled: Fact::unknown(),
        };
        let _ = sys::uname(&mut f.uts);
        f.cmdline.read(c"/proc/cmdline");
        let mut debugfs: Fact<WORD> = Fact::unknown();
        debugfs.read(c"/sys/kernel/debug/sched/preempt");
        let mode = match preempt_from_debugfs(debugfs.bytes()) {
            Some(m) => m,
            None => {
                let (m, src) = preempt_derived(cstr(&f.uts.version), f.cmdline.bytes());
                f.preempt_source = src;
                m
            }
        };
        f.preempt.copy(mode);
        let mut cpuinfo = [0u8; 4096];
        if let Ok(s) = sys::read_file(c"/proc/cpuinfo", &mut cpuinfo) {
            f.cpu_model = cpu_model(s);
        }
        f.boot_id.read(c"/proc/sys/kernel/random/boot_id");
        f.governor = read_cpu_path(cpu, "scaling_governor");
        f.epp = read_cpu_path(cpu, "energy_performance_preference");
        f.turbo = turbo();
        f.smt.read(c"/sys/devices/system/cpu/smt/control");
        f.online_cpus.read(c"/sys/devices/system/cpu/online");
        f.io_uring_disabled
            .read(c"/proc/sys/kernel/io_uring_disabled");
        f
    }

    /// Makes these the facts of a boot its host named `host` (its id as
    /// it is), if it did: `boot_id` is then that, the kernel's own kept
    /// beside it.
    pub fn booted(&mut self, host: Option<HostBootId>) {
        if let Some(h) = host {
            let kernel = core::mem::replace(&mut self.boot_id, Fact::opaque(h.id));
            self.kernel_boot_id = Some((kernel, h.source));
        }
    }

    pub fn release(&self) -> &[u8] {
        let r = cstr(&self.uts.release);
        if r.is_empty() {
            b"unknown"
        } else {
            r
        }
    }

    pub fn version(&self) -> &[u8] {
        let v = cstr(&self.uts.version);
        if v.is_empty() {
            b"unknown"
        } else {
            v
        }
    }

    /// Every fact as (key, value), in output order (also the TSV's extra columns).
    pub fn each(&self, f: &mut dyn FnMut(&'static str, &[u8])) {
        let machine = Fact::<WORD>::from(cstr(&self.uts.machine));
        for (key, value) in [
            ("kernel_version", self.version()),
            ("machine", machine.get()),
            ("cmdline", self.cmdline.get()),
            ("preempt", self.preempt.get()),
            ("preempt_source", self.preempt_source.name().as_bytes()),
            ("cpu_model", self.cpu_model.get()),
            ("governor", self.governor.get()),
            ("energy_perf_preference", self.epp.get()),
            ("turbo", self.turbo.get()),
            ("smt", self.smt.get()),
            ("online_cpus", self.online_cpus.get()),
            ("io_uring_disabled", self.io_uring_disabled.get()),
        ] {
            f(key, value);
        }
    }

    /// The facts as `# key=value` lines; where the host named the boot,
    /// two more: where the boot id came from, and the kernel's own.
    pub fn print(&self, out: &mut dyn Write) {
        self.each(&mut |k, v| {
            let _ = writeln!(out, "# {k}={}", Bytes(v));
        });
        if let Some((kernel, source)) = &self.kernel_boot_id {
            let _ = writeln!(out, "# boot_id_source={source} {WHY_HOSTS}");
            let _ = writeln!(out, "# kernel_boot_id={}", Bytes(kernel.get()));
        }
    }
}

/// Why a boot id the host gave is the boot (after where it came from).
const WHY_HOSTS: &str =
    "(the host's, one per boot: under QEMU's instruction clock the kernel's own can repeat)";

/// Turbo/boost state: intel_pstate's no_turbo, else cpufreq's boost.
fn turbo() -> Fact<WORD> {
    let (mut no_turbo, mut boost): (Fact<WORD>, Fact<WORD>) = (Fact::unknown(), Fact::unknown());
    no_turbo.read(c"/sys/devices/system/cpu/intel_pstate/no_turbo");
    boost.read(c"/sys/devices/system/cpu/cpufreq/boost");
    match (no_turbo.get(), boost.get()) {
        (b"1", _) => Fact::from(b"off"),
        (b"0", _) => Fact::from(b"on"),
        (_, b"1") => Fact::from(b"on"),
        (_, b"0") => Fact::from(b"off"),
        _ => Fact::unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debugfs_mode_is_the_parenthesised_one() {
        assert_eq!(
            preempt_from_debugfs(b"none voluntary (full) lazy\n"),
            Some(&b"full"[..])
        );
        assert_eq!(
            preempt_from_debugfs(b"(none) voluntary full"),
            Some(&b"none"[..])
        );
        assert_eq!(preempt_from_debugfs(b"none voluntary full"), None);
        assert_eq!(preempt_from_debugfs(b"()"), None);
        assert_eq!(preempt_from_debugfs(b""), None);
    }

    #[test]
    fn derived_mode_from_version_and_cmdline() {
        let dyn_v = b"#1 SMP PREEMPT_DYNAMIC Thu Jan  1 00:00:00 UTC 2026";
        assert_eq!(
            preempt_derived(dyn_v, b"console=ttyS0 preempt=full quiet"),
            (&b"full"[..], PreemptSource::Cmdline)
        );
        assert_eq!(
            preempt_derived(dyn_v, b"console=ttyS0"),
            (&b"dynamic-build-default"[..], PreemptSource::Version)
        );
        assert_eq!(
            preempt_derived(b"#1 SMP PREEMPT_RT", b""),
            (&b"rt"[..], PreemptSource::Version)
        );
        assert_eq!(
            preempt_derived(b"#1 SMP PREEMPT Mon", b""),
            (&b"full"[..], PreemptSource::Version)
        );
        assert_eq!(
            preempt_derived(b"#1 SMP Mon", b"preempt=full"),
            (&b"none-or-voluntary"[..], PreemptSource::Version)
        );
    }

    #[test]
    fn cpu_model_for_x86_and_arm64() {
        let x86 = b"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: 12th Gen Intel(R) Core(TM) i7-12700KF\nflags\t: fpu\n";
        assert_eq!(
            cpu_model(x86).get(),
            b"12th Gen Intel(R) Core(TM) i7-12700KF"
        );
        let arm =
            b"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        assert_eq!(cpu_model(arm).get(), b"implementer=0x41 part=0xd0c");
        assert_eq!(cpu_model(b"nothing useful\n").get(), b"unknown");
    }

    #[test]
    fn text_trims_and_reports_unknown() {
        assert_eq!(Fact::<WORD>::from(b"  on\n").get(), b"on");
        assert_eq!(Fact::<WORD>::from(b"\n").get(), b"unknown");
        assert_eq!(Fact::<4>::from(b"abcdefgh").get(), b"abcd");
        let mut f = Fact::<WORD>::unknown();
        f.read(c"/nonexistent/file");
        assert_eq!(f.get(), b"unknown");
    }

    #[test]
    fn a_boot_the_host_named_is_that_boot_and_says_so() {
        let id = b"0a0a0a0a-0000-4000-8000-00000000000f";
        let f = Facts::read(0);
        let kernel = f.boot_id.get().to_vec();
        let mut plain = String::new();
        f.print(&mut plain);
        let kernel = String::from_utf8(kernel).unwrap();
        for source in [HostBootId::FILE, HostBootId::ENV] {
            let mut f = Facts::read(0);
            f.booted(Some(HostBootId { id, source }));
            assert_eq!(f.boot_id.get(), id);
            let mut named = String::new();
            f.print(&mut named);
            let more = format!(
                "# boot_id_source={source} (the host's, one per boot: under QEMU's instruction \
                 clock the kernel's own can repeat)\n# kernel_boot_id={kernel}\n"
            );
            assert_eq!(named, plain.clone() + &more);
        }
        // Not named: as ever.
        let mut f = Facts::read(0);
        f.booted(None);
        assert!(f.kernel_boot_id.is_none());
        // Opaque: every byte as it came, blanks and all.
        assert_eq!(Fact::<WORD>::opaque(b" x\n").get(), b" x\n");
    }

    #[test]
    fn live_facts_are_read_on_this_box() {
        let f = Facts::read(0);
        assert!(!f.release().is_empty() && f.release() != b"unknown");
        assert_eq!(
            f.boot_id.get().len(),
            36,
            "{:?}",
            String::from_utf8_lossy(f.boot_id.get())
        );
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
        assert_eq!(f.online_cpus.get(), online.trim().as_bytes());
        let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").unwrap();
        assert_eq!(f.io_uring_disabled.get(), disabled.trim().as_bytes());
        let cmdline = std::fs::read_to_string("/proc/cmdline").unwrap();
        assert_eq!(f.cmdline.get(), cmdline.trim().as_bytes());
        let mut keys = Vec::new();
        f.each(&mut |k, v| {
            assert!(!v.is_empty(), "{k}");
            keys.push(k);
        });
        assert_eq!(keys.len(), 12);
        assert!(keys.contains(&"preempt") && keys.contains(&"governor") && keys.contains(&"turbo"));
    }
}
