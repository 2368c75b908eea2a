//! `points`: a boot's console as QEMU wrote it -> the point its run
//! printed, or a suite's directory of points. It is the one reader of
//! what the booted binary printed: scripts/boot-point.sh boots, captures
//! the console and hands it here.
//!
//! - The console is made lines (console.rs: CRs and terminal escapes
//!   out). The binary's stderr lines in it (`uring-repro: ...`, but the
//!   verdict) are shown on stderr as they are. The verdict is the last
//!   `uring-repro: exit N` line; without one no report came back (125;
//!   124 when the caller says QEMU was stopped by its timeout), and the
//!   console's last lines are shown.
//! - A run's point is its lines from its banner to the first verdict line,
//!   without kernel log lines (`[    1.23] ...`) and the binary's stderr
//!   lines. A suite's console (`--suite`) is cut at its `# suite: K/N
//!   ITEM` lines: each item that printed a point gives `ITEM.txt` (`:` as
//!   `-`, so that no tool reads `s0:shared.txt` as a host name), and the
//!   suite's lines per item and its counts give `suite.txt`.
//! - After what the guest printed, each point gets `# boot=WORDS` (how
//!   QEMU booted: `--boot`), `# kernel_image_sha256=HEX` (the image
//!   booted: `--image`) and, with `--counts`, its `# cost:` lines when its
//!   run passed (cost.rs; a suite's item K is the boot's run K). suite.txt
//!   gets the first two.
//! - `--icount`: the boot ran on QEMU's instruction clock, so every point
//!   must say `timebase=icount` on its banner: a binary from before
//!   URING_REPRO_TIMEBASE prints one that would read as wall time (125).
//! - A point appears whole or not at all, never over anything
//!   (publish.rs).
//!
//! Exit: the run's own code (the verdict's N) when its point was written,
//! or when the run printed no report and N is not 0; 124 and 125 as
//! above, and 125 for a run that passed but printed no report, or for
//! `# cost:` lines that cannot be made; 2 for a usage error, an input that
//! cannot be read, or a point that cannot be written; 130 when SIGINT or
//! SIGTERM stopped the writing. These are boot-point.sh's codes, which it
//! passes on.

mod console;
mod cost;
mod num;
mod publish;

use core::fmt::{self, Write};

use crate::decimal;
use crate::exit::{self, Exit};
use crate::render::{Bytes, Clean, Text};
use crate::sha256::{Hex, Sha256};
use crate::sys::memory::Mapping;
use crate::sys::out::Out;
use crate::sys::{self, uapi, CPath};

use console::Part;
use cost::{Names, Which};

/// The command line of `points`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Args<'a> {
    /// `--console FILE`: the boot's console as QEMU wrote it.
    pub console: Option<&'a [u8]>,
    /// `-o PATH`: the point, or the suite's directory.
    pub out: Option<&'a [u8]>,
    /// `--suite`: the boot ran a suite.
    pub suite: bool,
    /// `--icount`: on QEMU's instruction clock.
    pub icount: bool,
    /// `--boot WORDS`: the `# boot=` line's.
    pub boot: Option<&'a [u8]>,
    /// `--image FILE`: the kernel image booted.
    pub image: Option<&'a [u8]>,
    /// `--counts FILE`: the cost counter's counts.
    pub counts: Option<&'a [u8]>,
    /// `--map FILE`: the System.map the counts were made with.
    pub map: Option<&'a [u8]>,
    /// `--timed-out SECS`: QEMU was stopped by its timeout after SECS.
    pub timed_out: Option<u32>,
}

/// Most items of one suite (each a file, and suite.txt).
const MAX_ITEMS: usize = publish::MAX_FILES - 1;
/// The console lines shown when no verdict came back.
const TAIL: usize = 20;

/// Runs `points`; on `out`, what was written: `POINT: N lines, exit CODE`
/// or `DIR: N points of M items, exit CODE`.
pub fn main(a: &Args, out: &mut Out) -> Exit {
    let (Some(console), Some(dest)) = (a.console, a.out) else {
        return Exit::new(
            exit::USAGE,
            format_args!("points: --console FILE and -o PATH are required (see --help)"),
        );
    };
    let run = |out: &mut Out| -> Result<Exit, Exit> {
        let made = Made {
            boot: a.boot,
            image: a.image.map(file_sha256).transpose()?,
            icount: a.icount,
        };
        let (raw, len) = read_whole(console)?;
        // SAFETY: a private mapping of more than `len` bytes, ours alone.
        let buf = unsafe { core::slice::from_raw_parts_mut(raw.ptr(), len) };
        let len = console::clean(buf);
        let text = &buf[..len];
        show_stderr(text);
        let Some(digits) = console::last_verdict(text) else {
            return Ok(no_verdict(console, dest, a.timed_out, text));
        };
        let b = Boot {
            text,
            console,
            dest,
            verdict: digits,
            scratch: Mapping::anonymous(text.len() + 1).map_err(|e| unreadable(console, e))?,
        };
        let mut cost = Cost {
            counts: a.counts,
            map: a.map,
            read: None,
        };
        match a.suite {
            false => b.run(&made, &mut cost, out),
            true => b.suite(&made, &mut cost, out),
        }
    };
    match run(out) {
        Ok(e) | Err(e) => e,
    }
}

/// The binary's stderr lines in the console, on stderr as they are.
fn show_stderr(text: &[u8]) {
    let mut err = Out::new(2);
    for line in console::lines(text).filter(|l| console::shown_on_stderr(l)) {
        err.bytes(line);
        err.bytes(b"\n");
    }
    err.flush();
}

/// No verdict: why (told here, before the console's last lines), and 124
/// or 125.
fn no_verdict(console: &[u8], dest: &[u8], timed_out: Option<u32>, text: &[u8]) -> Exit {
    let (c, d) = (Clean(console), Clean(dest));
    let code = match timed_out {
        Some(s) => exit::fail(
            exit::TIMED_OUT,
            format_args!(
                "points: {c}: timed out after {s}s with no verdict from the guest; {d} not written"
            ),
        ),
        None => exit::fail(
            exit::CANNOT_JUDGE,
            format_args!(
                "points: {c}: no report came back (no `uring-repro: exit N` line); {d} not written"
            ),
        ),
    };
    let mut err = Out::new(2);
    let n = console::lines(text).count();
    let _ = writeln!(
        err,
        "uring-repro: points: the console's last lines ({} of {n}):",
        n.min(TAIL)
    );
    for line in console::lines(text).skip(n.saturating_sub(TAIL)) {
        err.bytes(b"  | ");
        err.bytes(line);
        err.bytes(b"\n");
    }
    err.flush();
    Exit::printed(code)
}

/// A verdict's exit code, as its digits say.
#[derive(Clone, Copy)]
struct Code(u64);

impl Code {
    fn of(digits: &[u8]) -> Code {
        // Digits past a u64 stay at its largest (the shell's exit takes
        // the low 8 bits of what it can read).
        Code(decimal::whole(digits, decimal::UNBOUNDED).unwrap_or(u64::MAX))
    }

    /// The exit status it makes (its low 8 bits, as the shell's `exit`).
    fn exit(self) -> i32 {
        (self.0 & 0xff) as i32
    }
}

/// The boot: its console, cleaned, and where its point goes.
struct Boot<'a> {
    text: &'a [u8],
    console: &'a [u8],
    dest: &'a [u8],
    /// The verdict's digits.
    verdict: &'a [u8],
    /// Room for one point's lines at a time.
    scratch: Mapping,
}

impl<'a> Boot<'a> {
    /// A point's lines, each with a line break, in the scratch room: the
    /// text. `item`: the suite's item whose point it is (None: a run's).
    fn gather(&self, item: Option<&[u8]>) -> &[u8] {
        // SAFETY: a private mapping of len() bytes, ours alone, and
        // only this slice of it lives until the next call (`&self`
        // borrows end with the slice).
        let room =
            unsafe { core::slice::from_raw_parts_mut(self.scratch.ptr(), self.scratch.len()) };
        let mut n = 0;
        let mut put = |line: &[u8]| {
            // The lines are the text's, each with its break, and a last
            // one without: they fit text.len() + 1.
            room[n..n + line.len()].copy_from_slice(line);
            room[n + line.len()] = b'\n';
            n += line.len() + 1;
        };
        match item {
            None => console::run(self.text, &mut put),
            Some(k) => console::suite(self.text, &mut |p, l| {
                if p == Part::Point(k) {
                    put(l);
                }
            }),
        }
        &room[..n]
    }

    /// The run printed no report (`what`: no point, or no suite's lines):
    /// its own code, but 125 for a run that passed.
    fn nothing(&self, what: fmt::Arguments) -> Exit {
        let (c, d) = (Clean(self.console), Clean(self.dest));
        let code = match Code::of(self.verdict) {
            Code(0) => exit::CANNOT_JUDGE,
            c => c.exit(),
        };
        Exit::new(
            code,
            format_args!("points: {c}: the {what}; {d} not written"),
        )
    }

    /// A run's point, as its file.
    fn run(&self, made: &Made, cost: &mut Cost, out: &mut Out) -> Result<Exit, Exit> {
        let point = self.gather(None);
        if point.is_empty() {
            let v = Bytes(self.verdict);
            return Err(self.nothing(format_args!(
                "run ended with exit {v} but printed no report"
            )));
        }
        let lines = made.check(point, self.dest, Which::Only, self.verdict, cost)?;
        let mut written = 0;
        publish::file(self.dest, &mut |w| {
            written = made.write(w, point, lines.as_ref())
        })?;
        let _ = writeln!(
            out,
            "{}: {written} lines, exit {}",
            Clean(self.dest),
            Bytes(self.verdict)
        );
        Ok(Exit::printed(Code::of(self.verdict).exit()))
    }

    /// A suite's points and lines, as its directory.
    fn suite(&self, made: &Made, cost: &mut Cost, out: &mut Out) -> Result<Exit, Exit> {
        let mut items: [(&[u8], &[u8]); MAX_ITEMS] = [(b"", b""); MAX_ITEMS];
        let (mut n, mut begun, mut has_lines) = (0, 0, false);
        console::suite(self.text, &mut |part, _| match part {
            Part::Begin(k, item) => {
                if let Some(slot) = items.get_mut(begun) {
                    *slot = (k, item);
                    n += 1;
                }
                begun += 1;
            }
            Part::Lines => has_lines = true,
            Part::Point(_) => {}
        });
        if begun > MAX_ITEMS {
            let c = Clean(self.console);
            let why = format_args!("points: {c}: more than {MAX_ITEMS} items in one suite");
            return Err(Exit::new(exit::USAGE, why));
        }
        if !has_lines {
            let v = Bytes(self.verdict);
            let why = format_args!("suite ended with exit {v} but printed no line per item");
            return Err(self.nothing(why));
        }
        let mut dir = publish::Dir::begin(self.dest)?;
        let mut points = 0;
        for &(k, item) in &items[..n] {
            let point = self.gather(Some(k));
            if point.is_empty() {
                continue;
            }
            let name = file_name(item);
            let path = CPath::concat(&[self.dest, b"/", name.as_bytes()]);
            let path = path.as_ref().map_or(self.dest, |p| p.name());
            let ended = console::item_exit(self.text, k).filter(|e| !e.is_empty());
            let lines = made.check(point, path, Which::Item(k), ended.unwrap_or(b"none"), cost)?;
            dir.add(name.as_str(), &mut |w| {
                made.write(w, point, lines.as_ref());
            })?;
            points += 1;
        }
        dir.add("suite.txt", &mut |w| {
            let mut sink = Sink { out: w, lines: 0 };
            console::suite_lines(self.text, &mut |line| sink.line(line));
            made.annex(&mut sink);
        })?;
        dir.finish()?;
        let (d, v) = (Clean(self.dest), Bytes(self.verdict));
        let _ = writeln!(out, "{d}: {points} points of {n} items, exit {v}");
        Ok(Exit::printed(Code::of(self.verdict).exit()))
    }
}

/// A suite item's file: `ITEM.txt`, `:` as `-`.
fn file_name(item: &[u8]) -> Text<128> {
    let mut t = Text::new();
    for &b in item {
        // An item's name is of A-Za-z0-9_: (console.rs).
        let _ = t.write_char(if b == b':' { '-' } else { b as char });
    }
    let _ = t.write_str(".txt");
    t
}

/// What every point gets after the guest's lines.
struct Made<'a> {
    boot: Option<&'a [u8]>,
    image: Option<[u8; 32]>,
    icount: bool,
}

impl Made<'_> {
    /// `point` (to be `name`) checked, and its `# cost:` lines made when
    /// its run (`which`) passed (`ended`: its exit code's digits).
    fn check<'t>(
        &self,
        point: &'t [u8],
        name: &[u8],
        which: Which,
        ended: &[u8],
        cost: &'t mut Cost,
    ) -> Result<Option<cost::Lines<'t>>, Exit> {
        let banner = point.split(|&b| b == b'\n').next().unwrap_or(b"");
        if self.icount && !says_icount(banner) {
            let name = Clean(name);
            let why = "the booted binary's banner does not say timebase=icount (it predates \
                URING_REPRO_TIMEBASE?): its point would read as wall time";
            let why = format_args!("points: {name}: not written: {why}");
            return Err(Exit::new(exit::CANNOT_JUDGE, why));
        }
        let Some(counts_name) = cost.counts else {
            return Ok(None);
        };
        if ended != b"0" {
            let mut item: Text<32> = Text::new();
            if let Which::Item(k) = which {
                let _ = write!(item, " for item {}", Bytes(k));
            }
            let (item, ended) = (item.as_str(), Clean(ended));
            exit::warn(format_args!(
                "points: no # cost: lines{item}: the run ended with exit {ended}"
            ));
            return Ok(None);
        }
        let map = cost.map;
        let (counts, sha) = cost.inputs()?;
        let names = Names {
            counts: counts_name,
            point: name,
            map,
        };
        cost::check(point, counts, which, sha, &names).map(Some)
    }

    /// The point: the guest's lines, then the annex and the cost lines;
    /// how many lines.
    fn write(&self, w: &mut Out, point: &[u8], lines: Option<&cost::Lines>) -> usize {
        let mut sink = Sink { out: w, lines: 0 };
        sink.out.bytes(point);
        sink.lines += point.iter().filter(|&&b| b == b'\n').count();
        self.annex(&mut sink);
        if let Some(l) = lines {
            let _ = l.write(&mut sink);
        }
        sink.lines
    }

    /// `# boot=` and `# kernel_image_sha256=`, as given.
    fn annex(&self, sink: &mut Sink) {
        if let Some(boot) = self.boot {
            sink.out.bytes(b"# boot=");
            sink.line(boot);
        }
        if let Some(sha) = &self.image {
            let _ = writeln!(sink, "# kernel_image_sha256={}", Hex(sha));
        }
    }
}

/// The banner says ` timebase=icount`, a word of its own.
fn says_icount(banner: &[u8]) -> bool {
    const WORD: &[u8] = b" timebase=icount";
    (0..banner.len()).any(|at| {
        banner[at..].starts_with(WORD) && matches!(banner.get(at + WORD.len()), None | Some(b' '))
    })
}

/// A writer that counts the lines written.
struct Sink<'w> {
    out: &'w mut Out,
    lines: usize,
}

impl Sink<'_> {
    fn line(&mut self, line: &[u8]) {
        self.out.bytes(line);
        self.out.bytes(b"\n");
        self.lines += 1;
    }
}

impl Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.lines += s.bytes().filter(|&b| b == b'\n').count();
        self.out.bytes(s.as_bytes());
        Ok(())
    }
}

/// The cost counter's inputs, read when a point first needs its lines
/// (a run that failed gets none, and its counts may be cut short).
struct Cost<'a> {
    counts: Option<&'a [u8]>,
    map: Option<&'a [u8]>,
    /// The counts, and the map's SHA-256 (hex).
    read: Option<(Mapping, usize, Option<Text<64>>)>,
}

impl Cost<'_> {
    /// The counts' text and the map's SHA-256, read once.
    fn inputs(&mut self) -> Result<(&[u8], Option<&[u8]>), Exit> {
        if self.read.is_none() {
            let sha = self.map.map(map_sha256).transpose()?;
            let (m, len) = read_whole(self.counts.unwrap_or(b""))?;
            self.read = Some((m, len, sha));
        }
        let Some((m, len, sha)) = &self.read else {
            unreachable!()
        };
        // SAFETY: a private mapping of more than `len` bytes, ours alone,
        // read-only from here on.
        let counts = unsafe { core::slice::from_raw_parts(m.ptr(), *len) };
        Ok((counts, sha.as_ref().map(|t| t.as_bytes())))
    }
}

/// `points: FILE: cannot be read: WHY`, exit 2. Not inlined: its seven
/// callers each built the message's arguments and the Exit themselves.
#[inline(never)]
fn unreadable(file: &[u8], why: impl fmt::Display) -> Exit {
    let file = Clean(file);
    Exit::new(
        exit::USAGE,
        format_args!("points: {file}: cannot be read: {why}"),
    )
}

/// The whole file at `path`, in a mapping of its own; its length.
fn read_whole(path: &[u8]) -> Result<(Mapping, usize), Exit> {
    let p = CPath::new(path).map_err(|b| unreadable(path, b))?;
    let fd = sys::open(&p, uapi::O_RDONLY, 0).map_err(|e| unreadable(path, e))?;
    let size = sys::size(fd.raw()).map_err(|e| unreadable(path, e))? as usize;
    let m = Mapping::anonymous(size + 1).map_err(|e| unreadable(path, e))?;
    // SAFETY: a private mapping of len() bytes, ours alone.
    let buf = unsafe { core::slice::from_raw_parts_mut(m.ptr(), m.len()) };
    let n = sys::read_to_end(fd.raw(), buf).map_err(|e| unreadable(path, e))?;
    if n > size {
        return Err(unreadable(path, "it grew while read"));
    }
    Ok((m, n))
}

/// The SHA-256 of the file at `path`, read a chunk at a time.
fn file_sha256(path: &[u8]) -> Result<[u8; 32], Exit> {
    let p = CPath::new(path).map_err(|b| unreadable(path, b))?;
    let fd = sys::open(&p, uapi::O_RDONLY, 0).map_err(|e| unreadable(path, e))?;
    let (mut h, mut buf) = (Sha256::default(), [0u8; 16 * 1024]);
    loop {
        let n = sys::read_to_end(fd.raw(), &mut buf).map_err(|e| unreadable(path, e))?;
        h.update(&buf[..n]);
        if n < buf.len() {
            return Ok(h.digest());
        }
    }
}

/// `--map`: a System.map (one with x86_64 text symbols, not the
/// placeholder Debian's packages ship), and its SHA-256 in hex.
fn map_sha256(path: &[u8]) -> Result<Text<64>, Exit> {
    let m = Clean(path);
    let (map, len) = read_whole(path).map_err(|_| {
        let why = "the System.map of the kernel booted: build-kernel.sh keeps it beside the image";
        Exit::new(
            exit::USAGE,
            format_args!("points: --map: not a readable file: {m} ({why})"),
        )
    })?;
    // SAFETY: a private mapping of more than `len` bytes, ours alone.
    let text = unsafe { core::slice::from_raw_parts(map.ptr(), len) };
    let lines = || text.split(|&b| b == b'\n');
    let hex16 = |s: &[u8], ok: fn(&u8) -> bool| s.len() >= 16 && s[..16].iter().all(ok);
    if lines()
        .any(|l| hex16(l, |&b| b == b'f') && l[16..].starts_with(b" B The real System.map is in"))
    {
        let why = "is the placeholder Debian's kernel packages ship (the real map is in the -dbg \
            package); the kernel's own build writes System.map at the top of its object directory";
        return Err(Exit::new(
            exit::USAGE,
            format_args!("points: --map: {m} {why}"),
        ));
    }
    let lower_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let text_symbol =
        |l: &[u8]| hex16(l, lower_hex) && matches!(&l[16..], [b' ', b'T' | b't', b' ', ..]);
    if !lines().any(text_symbol) {
        let why = "has no x86_64 text symbols (not a System.map of a 64-bit kernel?)";
        return Err(Exit::new(
            exit::USAGE,
            format_args!("points: --map: {m} {why}"),
        ));
    }
    let mut h = Sha256::default();
    h.update(text);
    let mut hex = Text::new();
    let _ = write!(hex, "{}", Hex(&h.digest()));
    Ok(hex)
}

#[cfg(test)]
mod tests;
