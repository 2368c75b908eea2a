//! The trace text of an ftrace instance, read back into counts (pure: bytes
//! in, counts out). One line per event, as the kernel's default output
//! options print it:
//!
//! ```text
//!      uring-repro-1     [000] .....     2.561364: io_uring_submit_req: ring 00000000d1a1b6e5, req ..., user_data 0x0, opcode FUTEX_WAIT, flags 0x200, sq_thread 0
//!      uring-repro-1     [000] .....     2.561424: io_uring_complete: ring ..., req ..., user_data 0x100, result 1, cflags 0x0 extra1 0 extra2 0
//!      uring-repro-1     [000] .....     2.561401: io_futex_prep <-io_submit_sqes
//! CPU:0 [LOST 1208 EVENTS]
//! ```
//!
//! The task name may hold spaces or brackets, so a line is split at its
//! first `[CPU]` and at the timestamp token (`SECONDS.MICROS:`) after it.
//! Header lines start with `#`. A line that is none of these counts as
//! unparsed (and fails the witness: an event we cannot read is not
//! counted quietly).

use crate::decimal::{self, U64_DIGITS};

/// Most distinct names (opcodes, functions) a tally keeps apart.
pub const MAX_NAMES: usize = 16;
/// Longest name kept (longer ones are cut: kernel symbols fit).
pub const NAME_LEN: usize = 48;
/// Most distinct completion results kept apart; the rest are `other`.
pub const MAX_RESULTS: usize = 8;
/// Longest line the scanner carries over a read boundary.
pub const LINE_MAX: usize = 1024;

/// Counts by name, in first-seen order.
#[derive(Clone, Copy, Debug)]
pub struct NameCounts {
    n: usize,
    names: [[u8; NAME_LEN]; MAX_NAMES],
    lens: [u8; MAX_NAMES],
    counts: [u64; MAX_NAMES],
    /// Hits of names beyond MAX_NAMES.
    pub overflow: u64,
}

impl Default for NameCounts {
    fn default() -> Self {
        NameCounts {
            n: 0,
            names: [[0; NAME_LEN]; MAX_NAMES],
            lens: [0; MAX_NAMES],
            counts: [0; MAX_NAMES],
            overflow: 0,
        }
    }
}

impl NameCounts {
    /// Counts `k` hits of `name`.
    pub fn add(&mut self, name: &[u8], k: u64) {
        let name = &name[..name.len().min(NAME_LEN)];
        if let Some(i) = (0..self.n).find(|&i| self.name(i) == name) {
            self.counts[i] += k;
        } else if self.n < MAX_NAMES {
            self.names[self.n][..name.len()].copy_from_slice(name);
            self.lens[self.n] = name.len() as u8;
            self.counts[self.n] = k;
            self.n += 1;
        } else {
            self.overflow += k;
        }
    }

    fn name(&self, i: usize) -> &[u8] {
        &self.names[i][..self.lens[i] as usize]
    }

    /// The hits of `name` (0 if never seen).
    pub fn get(&self, name: &[u8]) -> u64 {
        (0..self.n)
            .find(|&i| self.name(i) == name)
            .map_or(0, |i| self.counts[i])
    }

    /// Every (name, count), in first-seen order.
    pub fn each(&self) -> impl Iterator<Item = (&[u8], u64)> {
        (0..self.n).map(|i| (self.name(i), self.counts[i]))
    }

    pub fn total(&self) -> u64 {
        self.counts[..self.n].iter().sum::<u64>() + self.overflow
    }
}

/// Completions by result value: the first MAX_RESULTS values apart, the
/// rest in `other`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Results {
    n: usize,
    values: [i32; MAX_RESULTS],
    counts: [u64; MAX_RESULTS],
    pub other: u64,
}

impl Results {
    pub fn add(&mut self, res: i32) {
        if let Some(i) = (0..self.n).find(|&i| self.values[i] == res) {
            self.counts[i] += 1;
        } else if self.n < MAX_RESULTS {
            self.values[self.n] = res;
            self.counts[self.n] = 1;
            self.n += 1;
        } else {
            self.other += 1;
        }
    }

    pub fn get(&self, res: i32) -> u64 {
        (0..self.n)
            .find(|&i| self.values[i] == res)
            .map_or(0, |i| self.counts[i])
    }

    /// Every (value, count) kept apart, in first-seen order.
    pub fn each(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        (0..self.n).map(|i| (self.values[i], self.counts[i]))
    }
}

/// What one trace line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceLine<'a> {
    /// A header or an empty line.
    Comment,
    /// `CPU:N [LOST M EVENTS]`: M events the buffer could not keep.
    Lost(u64),
    Submit {
        cpu: u32,
        opcode: &'a [u8],
    },
    Complete {
        cpu: u32,
        res: i32,
    },
    AsyncWork {
        cpu: u32,
    },
    Overflow {
        cpu: u32,
    },
    /// A function tracer entry: `name <-caller`.
    Function {
        cpu: u32,
        name: &'a [u8],
    },
    Unparsed,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A count, a CPU, a timestamp's part: at most 19 digits.
fn digits(s: &[u8]) -> Option<u64> {
    decimal::whole(s, U64_DIGITS).ok()
}

/// A CQE's res: an i32, `-` before it or none.
fn signed(s: &[u8]) -> Option<i32> {
    let v = decimal::signed(s, U64_DIGITS).ok()?;
    i32::try_from(v).ok()
}

/// The value after `key` up to the next `,` (or the end).
fn field<'a>(body: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let at = find(body, key)? + key.len();
    let rest = &body[at..];
    let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `[CPU]` at its first occurrence, and what follows it.
fn cpu_field(line: &[u8]) -> Option<(u32, &[u8])> {
    let mut from = 0;
    while let Some(i) = line[from..].iter().position(|&b| b == b'[') {
        let open = from + i;
        let rest = &line[open + 1..];
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 && rest.get(n) == Some(&b']') {
            let cpu = digits(&rest[..n]).filter(|&c| c <= u32::MAX as u64)? as u32;
            return Some((cpu, &rest[n + 1..]));
        }
        from = open + 1;
    }
    None
}

/// `SECONDS.FRACTION:`
fn is_timestamp(tok: &[u8]) -> bool {
    let Some(t) = tok.strip_suffix(b":") else {
        return false;
    };
    match t.iter().position(|&b| b == b'.') {
        Some(dot) => digits(&t[..dot]).is_some() && digits(&t[dot + 1..]).is_some(),
        None => false,
    }
}

/// What follows the timestamp token: the event.
fn body(after_cpu: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    while i < after_cpu.len() {
        while after_cpu.get(i) == Some(&b' ') {
            i += 1;
        }
        let len = after_cpu[i..]
            .iter()
            .position(|&b| b == b' ')
            .unwrap_or(after_cpu.len() - i);
        if len == 0 {
            return None;
        }
        let tok = &after_cpu[i..i + len];
        i += len;
        if is_timestamp(tok) {
            let rest = &after_cpu[i..];
            return Some(rest.strip_prefix(b" ").unwrap_or(rest));
        }
    }
    None
}

fn is_symbol(s: &[u8]) -> bool {
    !s.is_empty()
        && s.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

/// Reads one line (without its newline).
pub fn line(l: &[u8]) -> TraceLine<'_> {
    let l = l.strip_suffix(b"\r").unwrap_or(l);
    if l.iter().all(|&b| b == b' ') || l.first() == Some(&b'#') {
        return TraceLine::Comment;
    }
    if l.starts_with(b"CPU:") {
        let lost = find(l, b"[LOST ").and_then(|at| {
            let rest = &l[at + 6..];
            let end = rest.iter().position(|&b| b == b' ')?;
            digits(&rest[..end])
        });
        return lost.map_or(TraceLine::Unparsed, TraceLine::Lost);
    }
    let Some((cpu, rest)) = cpu_field(l) else {
        return TraceLine::Unparsed;
    };
    let Some(b) = body(rest) else {
        return TraceLine::Unparsed;
    };
    if let Some(f) = b.strip_prefix(b"io_uring_submit_req: ") {
        return match field(f, b"opcode ") {
            Some(op) if !op.is_empty() => TraceLine::Submit { cpu, opcode: op },
            _ => TraceLine::Unparsed,
        };
    }
    if let Some(f) = b.strip_prefix(b"io_uring_complete: ") {
        return match field(f, b"result ").and_then(signed) {
            Some(res) => TraceLine::Complete { cpu, res },
            None => TraceLine::Unparsed,
        };
    }
    if b.starts_with(b"io_uring_queue_async_work: ") {
        return TraceLine::AsyncWork { cpu };
    }
    if b.starts_with(b"io_uring_cqe_overflow: ") {
        return TraceLine::Overflow { cpu };
    }
    match find(b, b" <-") {
        Some(at) if is_symbol(&b[..at]) => TraceLine::Function {
            cpu,
            name: &b[..at],
        },
        _ => TraceLine::Unparsed,
    }
}

/// Everything the trace of a run said.
#[derive(Clone, Copy, Debug)]
pub struct Tally {
    /// io_uring_submit_req by opcode name.
    pub submits: NameCounts,
    /// io_uring_complete, in all and by result.
    pub completions: u64,
    pub results: Results,
    pub async_work: u64,
    pub overflow: u64,
    /// Events (of any kind) recorded on a CPU other than the pinned one.
    pub other_cpu: u64,
    /// Function tracer entries by function.
    pub functions: NameCounts,
    /// Events the trace says it lost (`[LOST N EVENTS]` lines).
    pub lost: u64,
    /// Lines none of the above (and lines longer than LINE_MAX).
    pub unparsed: u64,
    /// The first unparsed line, cut at 120 bytes, for the report.
    pub first_unparsed: [u8; 120],
    pub first_unparsed_len: usize,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            submits: NameCounts::default(),
            completions: 0,
            results: Results::default(),
            async_work: 0,
            overflow: 0,
            other_cpu: 0,
            functions: NameCounts::default(),
            lost: 0,
            unparsed: 0,
            first_unparsed: [0; 120],
            first_unparsed_len: 0,
        }
    }
}

impl Tally {
    /// Counts one line of a trace of a run pinned to `pinned`.
    pub fn add_line(&mut self, l: &[u8], pinned: u32) {
        let cpu = match line(l) {
            TraceLine::Comment => return,
            TraceLine::Lost(n) => {
                self.lost += n;
                return;
            }
            TraceLine::Unparsed => {
                if self.unparsed == 0 {
                    let n = l.len().min(self.first_unparsed.len());
                    self.first_unparsed[..n].copy_from_slice(&l[..n]);
                    self.first_unparsed_len = n;
                }
                self.unparsed += 1;
                return;
            }
            TraceLine::Submit { cpu, opcode } => {
                self.submits.add(opcode, 1);
                cpu
            }
            TraceLine::Complete { cpu, res } => {
                self.completions += 1;
                self.results.add(res);
                cpu
            }
            TraceLine::AsyncWork { cpu } => {
                self.async_work += 1;
                cpu
            }
            TraceLine::Overflow { cpu } => {
                self.overflow += 1;
                cpu
            }
            TraceLine::Function { cpu, name } => {
                self.functions.add(name, 1);
                cpu
            }
        };
        if cpu != pinned {
            self.other_cpu += 1;
        }
    }

    pub fn first_unparsed(&self) -> &[u8] {
        &self.first_unparsed[..self.first_unparsed_len]
    }
}

/// Splits a stream read in chunks into lines, carrying a line cut by a
/// chunk's end into the next; a line longer than LINE_MAX is handed on as
/// `None` (once).
pub struct LineSplitter {
    carry: [u8; LINE_MAX],
    len: usize,
    too_long: bool,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter {
            carry: [0; LINE_MAX],
            len: 0,
            too_long: false,
        }
    }
}

impl LineSplitter {
    /// Hands every line `chunk` completes to `f`.
    pub fn feed(&mut self, chunk: &[u8], f: &mut dyn FnMut(Option<&[u8]>)) {
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.push(&rest[..nl]);
            self.emit(f);
            rest = &rest[nl + 1..];
        }
        self.push(rest);
    }

    /// Hands on a last line without a newline.
    pub fn finish(&mut self, f: &mut dyn FnMut(Option<&[u8]>)) {
        if self.len > 0 || self.too_long {
            self.emit(f);
        }
    }

    fn push(&mut self, part: &[u8]) {
        if self.too_long || self.len + part.len() > LINE_MAX {
            self.too_long = true;
            return;
        }
        self.carry[self.len..self.len + part.len()].copy_from_slice(part);
        self.len += part.len();
    }

    fn emit(&mut self, f: &mut dyn FnMut(Option<&[u8]>)) {
        if self.too_long {
            f(None);
        } else {
            f(Some(&self.carry[..self.len]));
        }
        self.len = 0;
        self.too_long = false;
    }
}

#[cfg(test)]
mod tests;
