//! Every FILE of a command line read and checked, once, for `compare`,
//! `--bisect` and `report` alike: each into one `Point` (point/), all of
//! them into one buffer, then against each other. Points must be of one
//! workload and one contract where they state it (the kernel and the boot
//! are what a comparison varies), never witnessed beside plain, and each
//! counted once: the same file twice, one boot under two labels or as
//! both parents of a plain sandwich is refused. The first error is the
//! command's: one stderr line naming the file (and line), and the exit
//! code `Args` gives (2, or under `--bisect` 125 for the new point and 128
//! for a reference).

use core::fmt;
use core::ops::Deref;

use super::args::{Args, Gate, MAX_POINTS};
use super::point::{self, BootId, Count, CountRoom, Key, Point, ALL, MAX_ROUNDS};
use super::table::{self, Detail, Refusal};
use super::words::LineNo;
use crate::exit::{self, fail};
use crate::render::Clean;
use crate::sys::memory::Mapping;
use crate::sys::{self, CPath};

/// Most bytes `compare` reads, all files together (a TSV of 4096 rounds is
/// ~1 MiB with 250-byte rows; the contract's 15 rounds take 1 KiB on stdout).
pub const MAX_INPUT_BYTES: usize = 4 << 20;

/// What a refusal shows after its reason: `: `text`` for offending text
/// (from any file: shown as every echo is), `: N of M rounds` for an
/// interrupted run, ` A|B|C` for the modes to pick from.
struct After<'r, 't>(&'r Detail<'t>);

impl fmt::Display for After<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self.0 {
            Detail::Nothing => Ok(()),
            Detail::Text(t) => write!(f, ": `{}`", Clean(t)),
            Detail::Rounds { done, planned } => write!(f, ": {done} of {} rounds", Clean(planned)),
            Detail::Modes(m) => {
                for (k, name) in m.names().iter().enumerate() {
                    let sep = if k == 0 { " " } else { "|" };
                    write!(f, "{sep}{}", Clean(name))?;
                }
                Ok(())
            }
        }
    }
}

/// One workload and one contract across points, where the inputs say:
/// the first point (in `order`) that breaks that, and why.
fn across<'t>(pts: &[Point<'t>], order: &[usize]) -> Option<(usize, Refusal<'t>)> {
    let pts_in_order = || order.iter().map(|&i| (i, &pts[i]));
    let first = pts_in_order()
        .map(|(_, p)| p.profile())
        .find(|p| !p.is_empty())
        .unwrap_or(b"");
    let pairs = pts_in_order()
        .map(|(_, p)| p.pairs)
        .find(|&n| n != 0)
        .unwrap_or(0);
    for (i, p) in pts_in_order() {
        if !p.profile().is_empty() && p.profile() != first {
            let why = "another profile than the first file's (one workload at a time)";
            return Some((i, table::refuse(0, why, p.profile())));
        }
        if p.pairs != 0 && p.pairs != pairs {
            let why = "other pairs per round than the first file (another contract)";
            return Some((i, table::refuse(0, why, b"")));
        }
    }
    None
}

/// The contract fields points must agree on, beyond the profile and the
/// pairs per round (`across`): what the contract hash covers, with the
/// injected ns; the witness is checked on its own (`mixed_witness`). The
/// timebase is checked first of all (`TIMEBASE`): instructions beside time
/// is the mistake to name, whatever else differs.
const CONTRACT: [Key; 13] = [
    Key::Version,
    Key::Mode,
    Key::RingEntries,
    Key::CqEntries,
    Key::Slots,
    Key::Cycles,
    Key::Warmups,
    Key::Rounds,
    Key::Cpu,
    Key::Futex,
    Key::Timeout,
    Key::InjectNs,
    Key::Sha,
];
const TIMEBASE: [Key; 1] = [Key::Timebase];

/// What point `p` states for contract field `key`, where it does not say
/// it outright: no `timebase` is wall time (any tool), no `inject_ns` in
/// our banner or TSV is none injected; otherwise not stated.
fn stated<'t>(p: &Point<'t>, key: Key) -> Option<&'t [u8]> {
    p.get(key).or(match key {
        Key::Timebase => Some(b"wall"),
        Key::InjectNs if p.format.ours() => Some(b"0"),
        _ => None,
    })
}

/// The order points are checked against each other in: under `--bisect`
/// the references first, so that a new point that differs from them is
/// the one named (it cannot be judged), not a reference.
fn check_order(a: &Args) -> [usize; MAX_POINTS] {
    let mut order = [0; MAX_POINTS];
    let new = |i: usize| a.bisect && a.label(i) == b"new";
    let mut k = 0;
    for last in [false, true] {
        for i in (0..a.n).filter(|&i| new(i) == last) {
            order[k] = i;
            k += 1;
        }
    }
    order
}

/// A contract field two points disagree on: the later point, the field,
/// its value there, and the earlier point and its value (None: the point
/// does not state the field).
struct Disagree<'t> {
    at: usize,
    field: &'t [u8],
    value: Option<&'t [u8]>,
    first: usize,
    was: Option<&'t [u8]>,
}

/// The first of `fields` a point states otherwise than an earlier one (in
/// `order`) that states it; inputs that state less are checked on what they
/// state.
fn contract<'t>(pts: &[Point<'t>], order: &[usize], fields: &[Key]) -> Option<Disagree<'t>> {
    for &f in fields {
        let mut first: Option<(usize, &[u8])> = None;
        for &i in order {
            let Some(v) = stated(&pts[i], f) else {
                continue;
            };
            match first {
                None => first = Some((i, v)),
                Some((j, w)) if w != v => {
                    return Some(Disagree {
                        at: i,
                        field: f.name().as_bytes(),
                        value: Some(v),
                        first: j,
                        was: Some(w),
                    })
                }
                Some(_) => {}
            }
        }
    }
    None
}

/// The words of a contract line that are no option of the run: the
/// ring's feature bits are the kernel's, which a comparison varies.
const NOT_OPTIONS: [&[u8]; 1] = [b"features"];

/// The first word of a point's contract line (every option of the run
/// that can change a figure: docs/output.md) that an earlier point's (in
/// `order`) states otherwise, or does not state at all, or the other way
/// round: generic over the words, so that no option is forgotten. Points
/// without a contract line (TSVs, the C tools') are checked on what they
/// state by `contract`.
fn contract_lines<'t>(pts: &[Point<'t>], order: &[usize]) -> Option<Disagree<'t>> {
    let value = |p: &Point<'t>, key: &[u8]| p.contract().find(|w| w.0 == key).map(|w| w.1);
    for (x, &i) in order.iter().enumerate() {
        if !pts[i].has_contract() {
            continue;
        }
        for &j in order[..x].iter().filter(|&&j| pts[j].has_contract()) {
            let keys = pts[i].contract().chain(pts[j].contract()).map(|w| w.0);
            for key in keys.filter(|k| !NOT_OPTIONS.contains(k)) {
                let (v, w) = (value(&pts[i], key), value(&pts[j], key));
                if v != w {
                    return Some(Disagree {
                        at: i,
                        field: key,
                        value: v,
                        first: j,
                        was: w,
                    });
                }
            }
        }
    }
    None
}

/// `key=value` as a contract line states it, or `no key=` where it does
/// not.
struct ContractWord<'t>(&'t [u8], Option<&'t [u8]>);

impl fmt::Display for ContractWord<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(v) => write!(f, "{}={}", Clean(self.0), Clean(v)),
            None => write!(f, "no {}=", Clean(self.0)),
        }
    }
}

/// The first point (in `order`) whose run was witnessed (`witness=on`:
/// tracepoints enabled around its rounds) when the first was not, or the
/// other way round; None when they are all alike.
fn mixed_witness(pts: &[Point], order: &[usize]) -> Option<usize> {
    let on = |i: usize| pts[i].get(Key::Witness) == Some(b"on");
    let first = on(*order.first()?);
    order.iter().copied().find(|&i| on(i) != first)
}

/// Why two points cannot both be counted.
#[derive(Clone, Copy)]
enum Twice {
    /// The same bytes (the same file, or a copy).
    SameFile,
    /// One boot under two labels: not independent draws of two kernels.
    OtherLabel(BootId),
    /// One boot as both parents of a plain `A B A`.
    Parents(BootId),
}

/// Two points that must not both count: the later one (in `order`), the
/// earlier one, and why. Points of one boot within one label are allowed
/// (they count once: `Boots`), but not as the parents of a plain sandwich.
fn twice(
    a: &Args,
    pts: &[Point],
    texts: &[&[u8]],
    order: &[usize],
) -> Option<(usize, usize, Twice)> {
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[..x] {
            if a.same_image && a.label(i) != a.label(j) {
                continue;
            }
            let why = if texts[i] == texts[j] {
                Twice::SameFile
            } else if let Some(id) = pts[i].boot().filter(|&id| Some(id) == pts[j].boot()) {
                if a.label(i) != a.label(j) {
                    Twice::OtherLabel(id)
                } else if a.plain {
                    Twice::Parents(id)
                } else {
                    continue;
                }
            } else {
                continue;
            };
            return Some((i, j, why));
        }
    }
    None
}

/// The command stopped: its stderr line is written, `code` is its exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub code: i32,
}

/// `code` after the stderr line `msg`.
fn stop(code: i32, msg: fmt::Arguments<'_>) -> Stopped {
    Stopped {
        code: fail(code, msg),
    }
}

/// The memory every FILE of a command line is read into: one buffer
/// holds every file's text, which the points keep slices of, another the
/// counts of their cost lines.
pub struct Inputs {
    text: Mapping,
    counts: Mapping,
    rounds: Mapping,
}

/// The bytes of the counts' room: every point's most.
const COUNT_BYTES: usize = MAX_POINTS * CountRoom::PER_POINT * core::mem::size_of::<Count>();

/// The bytes of the rounds' room: every point's most.
const ROUND_BYTES: usize = MAX_POINTS * MAX_ROUNDS * core::mem::size_of::<f64>();

/// Every point of a command line, read and checked against each other.
pub struct Points<'t> {
    pts: [Point<'t>; MAX_POINTS],
    n: usize,
}

impl Points<'_> {
    /// Exit 1 when a point failed its checks, saying so (`what` they are
    /// then) on stderr; else 0.
    pub fn checked(&self, command: &str, what: &str) -> i32 {
        match self.iter().filter(|p| !p.valid()).count() {
            0 => exit::PASS,
            bad => fail(
                exit::FAIL,
                format_args!("{command}: {bad} point(s) failed their checks: {what}"),
            ),
        }
    }
}

impl<'t> Deref for Points<'t> {
    type Target = [Point<'t>];
    fn deref(&self) -> &[Point<'t>] {
        &self.pts[..self.n]
    }
}

impl Inputs {
    /// The memory for `a`'s files.
    pub fn map(a: &Args) -> Result<Inputs, Stopped> {
        let map = |len| {
            Mapping::anonymous(len).map_err(|e| {
                stop(
                    a.refused(),
                    format_args!("compare: no memory for input: {e}"),
                )
            })
        };
        Ok(Inputs {
            text: map(MAX_INPUT_BYTES + 1)?,
            counts: map(COUNT_BYTES)?,
            rounds: map(ROUND_BYTES)?,
        })
    }

    /// Reads and checks every point of `a`, or stops at the first error.
    pub fn read<'t>(&'t mut self, a: &Args) -> Result<Points<'t>, Stopped> {
        // SAFETY: a private mapping of len() zeroed bytes, ours alone while
        // `self` is borrowed (the points keep slices of it as long).
        let mut buf = unsafe { core::slice::from_raw_parts_mut(self.text.ptr(), self.text.len()) };
        let counts = self.counts.ptr().cast();
        let n = self.counts.len() / core::mem::size_of::<Count>();
        // SAFETY: a private mapping, page-aligned (as a Count needs), of
        // room for `n` counts, ours alone while `self` is borrowed; the
        // room hands out only the counts written.
        let mut room = CountRoom::new(unsafe { core::slice::from_raw_parts_mut(counts, n) });
        let rounds = self.rounds.ptr().cast::<f64>();
        let n = self.rounds.len() / core::mem::size_of::<f64>();
        // SAFETY: a private mapping, page-aligned (as an f64 needs), of
        // room for `n` zeroed figures, ours alone while `self` is borrowed;
        // each point takes its rounds' part of it once.
        let mut kept = unsafe { core::slice::from_raw_parts_mut(rounds, n) };
        let mut values = [0f64; MAX_ROUNDS];
        let mut pts = [Point::empty(); MAX_POINTS];
        let mut texts: [&[u8]; MAX_POINTS] = [b""; MAX_POINTS];
        for i in 0..a.n {
            let file = Clean(a.file(i));
            let cannot = |why: &dyn fmt::Display| {
                stop(a.unusable(i), format_args!("{file}: cannot read: {why}"))
            };
            let path = CPath::new(a.file(i)).map_err(|bad| cannot(&bad))?;
            // Every file stays in the buffer: points keep slices of their
            // text. One that fills what is left of it may have more behind.
            let left = buf.len();
            let len = match sys::read_file(&path, buf) {
                Ok(text) if text.len() < left => text.len(),
                Ok(_) => {
                    return Err(stop(
                        a.unusable(i),
                        format_args!("{file}: the files exceed 4 MiB together (compare's limit)"),
                    ))
                }
                Err(e) => return Err(cannot(&e)),
            };
            let (text, rest) = core::mem::take(&mut buf).split_at_mut(len);
            buf = rest;
            let text = &*text;
            texts[i] = text;
            pts[i] = point::read(text, &mut values, &mut room, a.mode).map_err(|b| {
                stop(
                    a.unusable(i),
                    format_args!("{file}{}: {}{}", LineNo(b.line), b.why, After(&b.detail)),
                )
            })?;
            let (these, rest) = core::mem::take(&mut kept).split_at_mut(pts[i].s[ALL].s.n);
            these.copy_from_slice(&values[..these.len()]);
            (pts[i].rounds, kept) = (these, rest);
            if a.drop_first && pts[i].s[ALL].s.n < 2 {
                let why = "1 round: --drop-first leaves none (it needs 2 or more)";
                return Err(stop(a.unusable(i), format_args!("{file}: {why}")));
            }
        }
        against_each_other(a, &pts[..a.n], &texts[..a.n])?;
        Ok(Points { pts, n: a.n })
    }
}

/// The points of `a` checked against each other: one workload, one
/// contract, never witnessed beside plain, each counted once.
fn against_each_other(a: &Args, pts: &[Point], texts: &[&[u8]]) -> Result<(), Stopped> {
    let order = &check_order(a)[..a.n];
    let file = |i: usize| Clean(a.file(i));
    let timebase = contract(pts, order, &TIMEBASE);
    if let (None, Some((i, b))) = (&timebase, across(pts, order)) {
        return Err(stop(
            a.unusable(i),
            format_args!("{}: {}{}", file(i), b.why, After(&b.detail)),
        ));
    }
    let d = timebase
        .or_else(|| contract(pts, order, &CONTRACT))
        .or_else(|| contract_lines(pts, order));
    if let Some(d) = d {
        let why = if d.field == Key::Timebase.name().as_bytes() {
            "icount counts guest instructions, not time (compare like with like)"
        } else if d.value.is_none() || d.was.is_none() {
            "another contract (one contract line states an option the other does not: \
             compare like with like)"
        } else {
            "another contract (compare like with like)"
        };
        return Err(stop(
            a.unusable(d.at),
            format_args!(
                "{}: {} beside {} in {}: {why}",
                file(d.at),
                ContractWord(d.field, d.value),
                ContractWord(d.field, d.was),
                file(d.first)
            ),
        ));
    }
    if let (Gate::Insn(_), Some(i)) = (a.gate, order.iter().find(|&&i| !pts[i].icount())) {
        let why = "--gate-insn judges points that count instructions (timebase=icount), \
                   not time: use --gate PCT";
        return Err(stop(a.unusable(*i), format_args!("{}: {why}", file(*i))));
    }
    if let Some(i) = mixed_witness(pts, order) {
        let why = "a witnessed run beside plain ones (enabled tracepoints cost time: compare like with like)";
        return Err(stop(a.unusable(i), format_args!("{}: {why}", file(i))));
    }
    let Some((i, j, why)) = twice(a, pts, texts, order) else {
        return Ok(());
    };
    // Under --bisect the references (or the step) are wrong: stop.
    let code = a.refused();
    let (this, that) = (file(i), file(j));
    Err(match why {
        Twice::SameFile => stop(
            code,
            format_args!("{this}: the same file as {that} (a point counts once)"),
        ),
        Twice::OtherLabel(id) => stop(
            code,
            format_args!(
                "{this}: boot {id} is also {that}'s, under another label: points of one \
                 boot are not independent"
            ),
        ),
        Twice::Parents(id) => stop(
            code,
            format_args!(
                "{this}: boot {id} is also {that}'s: the parents of a sandwich need a boot each"
            ),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name with a NUL inside names no file: the kernel would read it
    /// up to the NUL, another file (here one that exists), so it is
    /// refused before anything is opened.
    #[test]
    fn a_file_name_with_a_nul_is_refused_not_cut_short() {
        let dir = crate::testing::scratch("load-nul");
        let real = dir.join("child.txt");
        let published = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/published/child.txt"
        );
        std::fs::copy(published, &real).unwrap();
        let name = real.to_str().unwrap().as_bytes();
        let mut a = Args::default();
        let (read, nul) = (name.to_vec(), [name, b"\0.old"].concat());
        for (file, got) in [(&read, Ok(1)), (&nul, Err(exit::USAGE))] {
            a.files[0] = Some(file);
            a.labels[0] = Some(b"a");
            a.n = 1;
            let mut inputs = Inputs::map(&a).unwrap();
            let read = inputs.read(&a).map(|p| p.len()).map_err(|s| s.code);
            assert_eq!(read, got, "{file:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
