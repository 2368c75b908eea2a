//! Where each boot's points came from, and whether a step's boots agree.
//! scripts/ab.sh keeps every boot's points in its cache under the hash of
//! what made them, and reuses them rather than boot the same image again:
//! the boot's directory then holds `reused`, the date of the boot that made
//! them, which the table states. With `--recheck` it boots the step again
//! beside them, and passes `--exact`: every boot of a step must then give
//! each item the same point, line for line, but for the boot's identity
//! (the `boot_id=`, the kernel's own `kernel_boot_id=`, and, in points
//! made when boot-point.sh gave it on the kernel command line, the
//! `URING_REPRO_BOOT_ID=` word there). The
//! first line that differs is named, and the table fails (125): a point
//! that the instruction clock should give exactly and does not is no
//! figure to judge by.

use core::fmt::{self, Write};

use super::super::load::MAX_INPUT_BYTES;
use super::rows::{copy, point_path, Keys, NAME};
use super::{Spec, MAX_BOOTS, MAX_STEPS};
use crate::compare::words::WIDTH;
use crate::exit::{self, Exit};
use crate::render::{wrap, Clean, Text};
use crate::sys::memory::Mapping;
use crate::sys::Errno;
use crate::sys::{self, CPath};

/// The words of a point that name its boot, not what it measured.
const IDENTITY: [&[u8]; 3] = [b"boot_id=", b"kernel_boot_id=", b"URING_REPRO_BOOT_ID="];

/// The first line two boots of a step gave differently.
#[derive(Clone, Copy)]
pub struct Difference {
    /// The file: an item's point (`s0.txt`), or `suite.txt`.
    file: Text<{ NAME + 8 }>,
    /// Its line, from 1; 0 when one boot has the file and the other not.
    line: usize,
    first: Text<72>,
    again: Text<72>,
}

/// A step's boots, checked (`--exact`).
#[derive(Clone, Copy, Default)]
pub enum Check {
    /// One boot, or not asked.
    #[default]
    None,
    /// Every file of every boot the same: how many were compared.
    Same(usize),
    /// A file differs (the first one found: `Provenance::differs`).
    Differ,
}

/// Each boot's `reused` date, each step's check, and the first difference
/// found.
pub struct Provenance {
    reused: [Text<48>; MAX_BOOTS],
    checks: [Check; MAX_STEPS],
    first: Option<(usize, Difference)>,
}

impl Provenance {
    pub fn read(spec: &Spec, keys: &Keys) -> Result<Provenance, Exit> {
        let mut p = Provenance {
            reused: [Text::new(); MAX_BOOTS],
            checks: [Check::None; MAX_STEPS],
            first: None,
        };
        for (b, reused) in p.reused.iter_mut().enumerate().take(spec.n) {
            let path = CPath::concat(&[spec.dirs[b], b"/reused"])
                .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {bad}")))?;
            let mut buf = [0u8; 128];
            match sys::read_file(&path, &mut buf) {
                Ok(t) => {
                    let line = t.split(|&c| c == b'\n').next().unwrap_or(b"");
                    let line = if line.is_empty() {
                        b"an unknown date"
                    } else {
                        line
                    };
                    reused.push_with(&mut |room| copy(room, line));
                }
                Err(Errno::ENOENT) => {}
                Err(e) => {
                    return Err(Exit::new(
                        exit::USAGE,
                        format_args!("ab: {}/reused: cannot read: {e}", Clean(spec.dirs[b])),
                    ))
                }
            }
        }
        if spec.exact {
            p.compare_boots(spec, keys)?;
        }
        Ok(p)
    }

    /// Boot `b`'s points were reused: the date of the boot that made them.
    pub fn reused(&self, b: usize) -> Option<&str> {
        let r = &self.reused[b];
        (!r.as_bytes().is_empty()).then(|| r.as_str())
    }

    pub fn check(&self, step: usize) -> Check {
        self.checks.get(step).copied().unwrap_or_default()
    }

    /// The first step whose boots differ, and how: the table fails.
    pub fn differs(&self) -> Option<(usize, &Difference)> {
        self.first.as_ref().map(|(k, d)| (*k, d))
    }

    /// Every step of several boots: its first boot's files against each of
    /// its other boots'.
    fn compare_boots(&mut self, spec: &Spec, keys: &Keys) -> Result<(), Exit> {
        let no_memory =
            |e: Errno| Exit::new(exit::USAGE, format_args!("ab: no memory for --exact: {e}"));
        let maps = [
            Mapping::anonymous(MAX_INPUT_BYTES).map_err(no_memory)?,
            Mapping::anonymous(MAX_INPUT_BYTES).map_err(no_memory)?,
        ];
        // SAFETY: two private mappings of len() zeroed bytes, ours alone
        // for as long as `maps` lives (this function).
        let [first, again] = maps
            .each_ref()
            .map(|m| unsafe { core::slice::from_raw_parts_mut(m.ptr(), m.len()) });
        for (k, label) in spec.steps().enumerate().take(MAX_STEPS) {
            let mut boots = (0..spec.n).filter(|&b| spec.labels[b] == label);
            let Some(one) = boots.next() else { continue };
            let mut compared = 0;
            for other in boots {
                let mut items = keys.rows().iter().map(|r| r.item.as_bytes());
                let mut last: &[u8] = b"";
                // suite.txt, then each item's point (a row per mode shares it).
                let mut files = core::iter::once(None).chain(core::iter::from_fn(|| {
                    for item in items.by_ref() {
                        if item != last {
                            last = item;
                            return Some(Some(item));
                        }
                    }
                    None
                }));
                let found = files.try_fold(None, |found, item| -> Result<_, Exit> {
                    if found.is_some() {
                        return Ok(found);
                    }
                    let path = |b: usize| match item {
                        Some(i) => point_path(spec.dirs[b], i),
                        None => CPath::concat(&[spec.dirs[b], b"/suite.txt"])
                            .map_err(|bad| Exit::new(exit::USAGE, format_args!("ab: {bad}"))),
                    };
                    let a = read(&path(one)?, first)?;
                    let b = read(&path(other)?, again)?;
                    let d = match (a, b) {
                        (None, None) => None,
                        (Some(a), Some(b)) => {
                            compared += 1;
                            first_difference(a, b)
                        }
                        (a, _) => Some((
                            0,
                            if a.is_some() {
                                &b"a point"[..]
                            } else {
                                b"no point"
                            },
                            if a.is_some() {
                                &b"no point"[..]
                            } else {
                                b"a point"
                            },
                        )),
                    };
                    Ok(d.map(|(line, x, y)| difference(item, line, x, y)))
                })?;
                if let Some(d) = found {
                    self.checks[k] = Check::Differ;
                    self.first.get_or_insert((k, d));
                    break;
                }
                self.checks[k] = Check::Same(compared);
            }
        }
        Ok(())
    }
}

/// The table's first lines when a step's boots differ (`--exact`): loud,
/// before any figure.
pub fn warning(spec: &Spec, prov: &Provenance, w: &mut dyn Write) {
    if let Some((k, d)) = prov.differs() {
        let mut p = Text::<512>::new();
        let _ = write!(
            p,
            "NOT EXACT: {}'s boots differ, where the instruction clock gives every boot of \
             one image the same points: {d}. No figure below is to be trusted until it is \
             known why (another QEMU, a host that changed meanwhile, a kernel that is not \
             deterministic).",
            Clean(spec.step(k))
        );
        wrap(w, p.as_str(), 0, 0, WIDTH);
        let _ = w.write_str("\n");
    }
}

/// The table's exit when a step's boots differ: 125, naming them.
pub fn failed(spec: &Spec, prov: &Provenance) -> Option<Exit> {
    let (k, d) = prov.differs()?;
    Some(Exit::new(
        exit::CANNOT_JUDGE,
        format_args!("ab: NOT EXACT: {}'s boots differ: {d}", Clean(spec.step(k))),
    ))
}

/// What the table says of the boots of `steps`: each one reused (with its
/// date), and each one checked (`--exact`).
pub fn notes(spec: &Spec, prov: &Provenance, steps: [usize; 2], w: &mut dyn Write) {
    for step in steps {
        let label = Clean(spec.step(step));
        let first = (0..spec.n).find(|&b| spec.step_of(b) == step);
        if let Some(date) = first.and_then(|b| prov.reused(b)) {
            let mut p = Text::<512>::new();
            let _ = write!(
                p,
                "{label}: reused from {date}: its points as kept in the cache, under the \
                 hash of what made them (the same image, binary, run options, CPUs and \
                 QEMU); not booted again."
            );
            wrap(w, p.as_str(), 0, 2, WIDTH);
        }
        let mut p = Text::<512>::new();
        let _ = match prov.check(step) {
            Check::None => continue,
            Check::Same(files) => write!(
                p,
                "{label}: booted again: its {files} files the same, line for line, but \
                 the boot's identity (--exact)."
            ),
            Check::Differ => match prov.differs() {
                Some((k, d)) if k == step => {
                    write!(p, "{label}: booted again: NOT THE SAME: {d}.")
                }
                _ => write!(p, "{label}: booted again: NOT THE SAME."),
            },
        };
        wrap(w, p.as_str(), 0, 2, WIDTH);
    }
}

fn difference(item: Option<&[u8]>, line: usize, first: &[u8], again: &[u8]) -> Difference {
    let mut d = Difference {
        file: Text::new(),
        line,
        first: Text::new(),
        again: Text::new(),
    };
    match item {
        Some(i) => {
            let mut name = Text::<NAME>::new();
            for &b in i {
                let _ = name.write_char(if b == b':' { '-' } else { b as char });
            }
            let _ = write!(d.file, "{}.txt", Clean(name.as_bytes()));
        }
        None => {
            let _ = d.file.write_str("suite.txt");
        }
    }
    let _ = write!(d.first, "{}", Clean(first));
    let _ = write!(d.again, "{}", Clean(again));
    d
}

/// The file at `path` into `buf`, or None where there is none.
fn read<'b>(path: &CPath, buf: &'b mut [u8]) -> Result<Option<&'b [u8]>, Exit> {
    let room = buf.len();
    match sys::read_file(path, buf) {
        Ok(t) if t.len() < room => Ok(Some(t)),
        Ok(_) => Err(Exit::new(
            exit::USAGE,
            format_args!("ab: {}: longer than a point", Clean(path.to_bytes())),
        )),
        Err(Errno::ENOENT) => Ok(None),
        Err(e) => Err(Exit::new(
            exit::USAGE,
            format_args!("ab: {}: cannot read: {e}", Clean(path.to_bytes())),
        )),
    }
}

/// The first line (from 1) that differs between two boots' files but for
/// the boots' identity, and the two lines.
fn first_difference<'t>(a: &'t [u8], b: &'t [u8]) -> Option<(usize, &'t [u8], &'t [u8])> {
    let mut la = a.split(|&c| c == b'\n');
    let mut lb = b.split(|&c| c == b'\n');
    let mut n = 0;
    loop {
        n += 1;
        match (la.next(), lb.next()) {
            (None, None) => return None,
            (Some(x), Some(y)) if same_line(x, y) => {}
            (x, y) => return Some((n, x.unwrap_or(b"(none)"), y.unwrap_or(b"(none)"))),
        }
    }
}

/// Two lines the same, the words that name the boot left out.
fn same_line(a: &[u8], b: &[u8]) -> bool {
    let words = |l| {
        <[u8]>::split(l, |&c| c == b' ').filter(|w| !IDENTITY.iter().any(|id| w.starts_with(id)))
    };
    a == b || words(a).eq(words(b))
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(
                f,
                "{}: {} in the first boot, {} in the other",
                self.file.as_str(),
                self.first.as_str(),
                self.again.as_str()
            );
        }
        write!(
            f,
            "{} line {}: \"{}\" against \"{}\"",
            self.file.as_str(),
            self.line,
            self.first.as_str(),
            self.again.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boots_identity_is_no_difference() {
        let a = b"# uring-repro 0.1.0 profile=s0 boot_id=aaaa cpu=0\n# cmdline=x URING_REPRO_BOOT_ID=aaaa\n# kernel_boot_id=1\n0\t2048\t1.5\t1\n";
        let b = b"# uring-repro 0.1.0 profile=s0 boot_id=bbbb cpu=0\n# cmdline=x URING_REPRO_BOOT_ID=bbbb\n# kernel_boot_id=2\n0\t2048\t1.5\t1\n";
        assert_eq!(first_difference(a, b), None);
    }

    #[test]
    fn a_figure_that_differs_is_named_by_its_line() {
        let a = b"# uring-repro boot_id=a\n0\t2048\t1.500000\t1\n1\t2048\t1.5\t1\n";
        let b = b"# uring-repro boot_id=b\n0\t2048\t1.500001\t1\n1\t2048\t1.5\t1\n";
        let (line, x, y) = first_difference(a, b).unwrap();
        assert_eq!(
            (line, x, y),
            (
                2,
                &b"0\t2048\t1.500000\t1"[..],
                &b"0\t2048\t1.500001\t1"[..]
            )
        );
    }

    #[test]
    fn a_line_more_in_one_boot_differs() {
        let (line, x, y) = first_difference(b"a\nb\n", b"a\nb\nc\n").unwrap();
        assert_eq!((line, x, y), (3, &b""[..], &b"c"[..]));
        // A word other than the identity still counts, even beside it.
        assert!(!same_line(b"boot_id=a x=1", b"boot_id=b x=2"));
        assert!(same_line(b"boot_id=a x=1", b"boot_id=b x=1"));
    }
}
