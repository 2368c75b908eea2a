//! `--witness`: the kernel's own account of a run, from a private ftrace
//! instance (`/sys/kernel/tracing/instances/uring-repro-PID`).
//!
//! Before the rounds: make the instance (tracing off), size the pinned
//! CPU's buffer for the whole run, follow this process and the threads it
//! starts (`set_event_pid`, `event-fork`), enable the io_uring tracepoints
//! `io_uring_submit_req`, `io_uring_complete`, `io_uring_queue_async_work`
//! and `io_uring_cqe_overflow` in the instance and, where the kernel lets
//! us, the function tracer of the instance on the workload's kernel
//! functions only (`set_ftrace_filter`, `set_ftrace_pid`, `function-fork`).
//! Tracing is switched on just before the first round and off just after
//! the last one, outside every timed span; then the instance's `trace` is
//! read back and counted (parse.rs), its per-CPU `overrun` and `dropped
//! events` are added as lost events, and the instance is removed.
//!
//! Why the function tracer of the instance and not kprobe events: kprobe
//! events live in the global `kprobe_events` list, so a run killed between
//! creating and deleting them would leave them behind for everyone; the
//! instance's tracer, filter and PID list go away with its directory.
//!
//! What it never does: touch the global buffer, another instance or any
//! global tracing switch. The instance is removed on every way out of the
//! run (Drop; after a panic through `remove_after_panic`); only SIGKILL
//! can leave it, under its own name.

pub mod parse;

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicU32, Ordering};

pub use parse::Tally;
use parse::{LineSplitter, MAX_NAMES};

use crate::decimal::{self, Refused, UNBOUNDED};
use crate::render::{Bytes, Line, Text, TEXT_MAX};
use crate::sys::uapi::{O_RDONLY, O_TRUNC, O_WRONLY};
use crate::sys::{self, CPath, Errno};

/// Where tracefs is (PID 1 mounts it there).
pub const TRACEFS: &str = "/sys/kernel/tracing";
/// The tracepoints enabled in the instance.
pub const EVENTS: [&str; 4] = [
    "io_uring_submit_req",
    "io_uring_complete",
    "io_uring_queue_async_work",
    "io_uring_cqe_overflow",
];
/// Most trace buffer a witness asks for on the pinned CPU (KiB).
pub const MAX_BUFFER_KB: u64 = 64 * 1024;
/// Bytes one io_uring event takes in the buffer, with room to spare (about
/// 67 measured on 6.18), and one function tracer entry.
const EVENT_BYTES: u64 = 96;
const FUNCTION_BYTES: u64 = 48;
/// Buffer beyond the estimate (KiB).
const SLACK_KB: u64 = 512;
/// Most functions a profile names.
pub const MAX_FUNCTIONS: usize = 8;
// set_ftrace_filter's text, a name (under 48 bytes) and a space each, is
// one Text.
const _: () = assert!(MAX_FUNCTIONS * 48 <= TEXT_MAX);
/// Highest CPU whose stats are read.
const MAX_CPU: u32 = 1023;

/// The PID whose instance exists (0: none), for `remove_after_panic`.
static LIVE: AtomicU32 = AtomicU32::new(0);

/// What the witness watches: the run's process on its pinned CPU, at most
/// how many events and function hits it records, which kernel functions.
pub struct Watch<'a> {
    pub pid: u32,
    pub cpu: u32,
    /// io_uring events the run will record at most.
    pub events: u64,
    /// Function hits it will record at most.
    pub function_hits: u64,
    /// The workload's kernel functions.
    pub functions: &'a [&'static str],
}

impl Watch<'_> {
    /// KiB of buffer the pinned CPU needs.
    pub fn buffer_kb(&self) -> u64 {
        let bytes = self.events * EVENT_BYTES + self.function_hits * FUNCTION_BYTES;
        bytes.div_ceil(1024) + SLACK_KB
    }
}

/// A function of the workload's list the kernel cannot count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Untraced {
    pub name: &'static str,
    /// `notrace`: a symbol, not in available_filter_functions (the
    /// kernel's `inline` is notrace); `inlined`: no symbol at all (inlined
    /// everywhere, or not in this kernel); `unknown`: kallsyms unreadable.
    pub why: &'static str,
}

/// The live instance.
pub struct Instance {
    dir: Text,
    pid: u32,
    cpu: u32,
    /// Functions the tracer counts.
    traced: [&'static str; MAX_FUNCTIONS],
    n_traced: usize,
    untraced: [Untraced; MAX_FUNCTIONS],
    n_untraced: usize,
    /// Why functions are not counted (None: they are).
    pub functions_refused: Option<Line>,
    tracer_set: bool,
    removed: bool,
}

/// The instance's directory: named for the process that made it.
fn instance_dir(pid: u32) -> Text {
    let mut dir = Text::new();
    let _ = write!(dir, "{TRACEFS}/instances/uring-repro-{pid}");
    dir
}

/// A tracefs or /proc path: made of constants, this process's PID and CPU
/// numbers, so never refused (it would be an error like any other).
/// Not inlined: its six callers each had the formatting into a 4 KiB
/// path and its move out of the Result.
#[inline(never)]
fn path(args: fmt::Arguments<'_>) -> Result<CPath, Errno> {
    Ok(CPath::format(args)?)
}

/// Writes `text` to the file `p` (O_TRUNC too when `trunc`). A filter
/// file takes one word per write(2) and says so with a short count:
/// write_all writes the rest again until all of it is taken.
fn put(p: fmt::Arguments<'_>, text: &[u8], trunc: bool) -> Result<(), Errno> {
    let flags = O_WRONLY | if trunc { O_TRUNC } else { 0 };
    let fd = sys::open(&path(p)?, flags, 0)?;
    sys::write_all(fd.raw(), text)
}

/// Reads the file `p` line by line (a line too long for the scanner is
/// handed on as None).
fn scan(p: fmt::Arguments<'_>, f: &mut dyn FnMut(Option<&[u8]>)) -> Result<(), Errno> {
    let fd = sys::open(&path(p)?, O_RDONLY, 0)?;
    let mut buf = [0u8; 16 * 1024];
    let mut lines = LineSplitter::default();
    loop {
        let n = sys::read_to_end(fd.raw(), &mut buf)?;
        lines.feed(&buf[..n], f);
        if n < buf.len() {
            break;
        }
    }
    lines.finish(f);
    Ok(())
}

/// Calls `f` with the thread id of each thread of this process: every
/// entry of /proc/self/task but "." and "..".
fn threads(f: &mut dyn FnMut(u32)) -> Result<(), Errno> {
    sys::dir::entries(c"/proc/self/task", &mut |name| {
        let tid = decimal::whole(name, UNBOUNDED).ok();
        if let Some(tid) = tid.and_then(|n| u32::try_from(n).ok()) {
            f(tid);
        }
    })
}

/// The cause of a refusal: what failed and how.
fn refused(args: fmt::Arguments<'_>) -> Line {
    let mut l = Line::new();
    let _ = l.write_fmt(args);
    l
}

impl Instance {
    /// Makes and arms the instance for `watch` (tracing stays off until
    /// `start`). Err: why the run cannot be witnessed, in one line.
    pub fn create(watch: &Watch) -> Result<Instance, Line> {
        let instances = path(format_args!("{TRACEFS}/instances"));
        if let Err(e) = instances.and_then(|p| sys::open(&p, O_RDONLY, 0)) {
            return Err(match e {
                Errno::ENOENT => refused(format_args!(
                    "no tracefs at {TRACEFS} ({TRACEFS}/instances: {e}; \
                     mount -t tracefs nodev {TRACEFS})"
                )),
                _ => refused(format_args!("{TRACEFS}/instances: {e}")),
            });
        }
        let kb = watch.buffer_kb();
        if kb > MAX_BUFFER_KB {
            return Err(refused(format_args!(
                "the run would record about {} events, {kb} KiB of trace buffer, more than \
                 the {MAX_BUFFER_KB} KiB a witness takes: shorten it (--trace, --smoke, \
                 --rounds, --cycles, --warmups)",
                watch.events + watch.function_hits
            )));
        }
        let dir = instance_dir(watch.pid);
        if let Err(e) = path(format_args!("{dir}")).and_then(|p| sys::mkdir(&p, 0o755)) {
            let hint = match e {
                Errno::EPERM | Errno::EACCES => " (not root, or the kernel's lockdown)",
                Errno::EEXIST => " (left by an earlier run with this PID? never touched)",
                _ => "",
            };
            return Err(refused(format_args!("mkdir {dir}: {e}{hint}")));
        }
        LIVE.store(watch.pid, Ordering::Relaxed);
        let mut ins = Instance {
            dir,
            pid: watch.pid,
            cpu: watch.cpu,
            traced: [""; MAX_FUNCTIONS],
            n_traced: 0,
            untraced: [Untraced { name: "", why: "" }; MAX_FUNCTIONS],
            n_untraced: 0,
            functions_refused: None,
            tracer_set: false,
            removed: false,
        };
        // From here on Drop removes the instance whatever fails.
        ins.arm_events(kb)?;
        if let Err(why) = ins.arm_functions(watch.functions) {
            ins.functions_refused = Some(why);
        }
        Ok(ins)
    }

    /// Writes `text` to the instance's file `name`; Err names it.
    fn set(&self, name: fmt::Arguments<'_>, text: &[u8]) -> Result<(), Line> {
        let dir = &self.dir;
        put(format_args!("{dir}/{name}"), text, false)
            .map_err(|e| refused(format_args!("{dir}/{name}: {e}")))
    }

    /// Writes the number `n` to the instance's file `name`.
    fn set_number(&self, name: fmt::Arguments<'_>, n: u64) -> Result<(), Line> {
        let mut text: Text = Text::new();
        let _ = write!(text, "{n}");
        self.set(name, text.as_bytes())
    }

    fn arm_events(&mut self, kb: u64) -> Result<(), Line> {
        self.set(format_args!("tracing_on"), b"0")?;
        let cpu = self.cpu;
        self.set_number(format_args!("per_cpu/cpu{cpu}/buffer_size_kb"), kb)?;
        self.set(format_args!("options/event-fork"), b"1")?;
        self.set_number(format_args!("set_event_pid"), self.pid as u64)?;
        for e in EVENTS {
            self.set(format_args!("events/io_uring/{e}/enable"), b"1")?;
        }
        Ok(())
    }

    /// The function tracer of the instance on `functions` (those the kernel
    /// can trace), following this process. Err: why not.
    fn arm_functions(&mut self, functions: &[&'static str]) -> Result<(), Line> {
        if functions.is_empty() {
            return Err(refused(format_args!(
                "this profile names no kernel functions"
            )));
        }
        let functions = &functions[..functions.len().min(MAX_FUNCTIONS)];
        let mut found = [false; MAX_FUNCTIONS];
        scan(
            format_args!("{TRACEFS}/available_filter_functions"),
            &mut |l| {
                let Some(l) = l else { return };
                let name = l.split(|&b| b == b' ').next().unwrap_or(l);
                for (f, hit) in functions.iter().zip(found.iter_mut()) {
                    *hit |= f.as_bytes() == name;
                }
            },
        )
        .map_err(|e| refused(format_args!("{TRACEFS}/available_filter_functions: {e}")))?;
        let mut in_kallsyms = [false; MAX_FUNCTIONS];
        let kallsyms_read = if found[..functions.len()].iter().all(|&f| f) {
            true
        } else {
            scan(format_args!("/proc/kallsyms"), &mut |l| {
                let Some(l) = l else { return };
                let mut words = l.split(|&b| b == b' ' || b == b'\t');
                let name = words.nth(2).unwrap_or(b"");
                for (f, hit) in functions.iter().zip(in_kallsyms.iter_mut()) {
                    *hit |= f.as_bytes() == name;
                }
            })
            .is_ok()
        };
        let mut filter: Text = Text::new();
        for (i, &f) in functions.iter().enumerate() {
            if found[i] {
                self.traced[self.n_traced] = f;
                self.n_traced += 1;
                let _ = write!(filter, "{f} ");
            } else {
                let why = if !kallsyms_read {
                    "unknown"
                } else if in_kallsyms[i] {
                    "notrace"
                } else {
                    "inlined"
                };
                self.untraced[self.n_untraced] = Untraced { name: f, why };
                self.n_untraced += 1;
            }
        }
        if self.n_traced == 0 {
            return Err(refused(format_args!(
                "none of the profile's functions is traceable on this kernel"
            )));
        }
        let dir = &self.dir;
        put(
            format_args!("{dir}/set_ftrace_filter"),
            filter.as_bytes(),
            true,
        )
        .map_err(|e| refused(format_args!("set_ftrace_filter: {e}")))?;
        // Never start a function tracer whose filter is empty: it would
        // trace every function of the kernel.
        let mut listed = 0;
        let _ = scan(format_args!("{dir}/set_ftrace_filter"), &mut |l| {
            if l.is_some_and(|l| !l.is_empty() && l[0] != b'#') {
                listed += 1;
            }
        });
        if listed != self.n_traced {
            return Err(refused(format_args!(
                "set_ftrace_filter holds {listed} of the {} functions written",
                self.n_traced
            )));
        }
        self.set_number(format_args!("set_ftrace_pid"), self.pid as u64)?;
        self.set(format_args!("options/function-fork"), b"1")?;
        self.set(format_args!("current_tracer"), b"function")?;
        self.tracer_set = true;
        Ok(())
    }

    /// Functions the tracer counts.
    pub fn traced(&self) -> &[&'static str] {
        &self.traced[..self.n_traced]
    }

    /// Functions of the profile's list the kernel cannot count, and why.
    pub fn untraced(&self) -> &[Untraced] {
        &self.untraced[..self.n_untraced]
    }

    /// `events` or `events+functions`: what records during the rounds.
    pub fn sources(&self) -> &'static str {
        if self.tracer_set {
            "events+functions"
        } else {
            "events"
        }
    }

    /// Tracing on (just before the first round), following every thread
    /// the process has by then: the instance follows the process and what
    /// it forks from its creation, but io_uring's io-wq workers, threads
    /// of the process the kernel starts (create_io_thread), are no forks
    /// that ftrace's event-fork and function-fork see. A worker started
    /// later goes unseen: its workload starts its workers in its set-up.
    /// (A thread that cannot be followed is not counted, which the counts
    /// show as a MISMATCH.)
    pub fn start(&self) -> Result<(), Line> {
        let followed = self.follow_threads();
        self.set(format_args!("tracing_on"), b"1")?;
        followed
    }

    /// Adds every thread of the process to the instance's PID lists.
    fn follow_threads(&self) -> Result<(), Line> {
        let mut followed = Ok(());
        let listed = threads(&mut |tid| {
            if tid == self.pid || followed.is_err() {
                return;
            }
            followed = self.set_number(format_args!("set_event_pid"), tid as u64);
            if self.tracer_set && followed.is_ok() {
                followed = self.set_number(format_args!("set_ftrace_pid"), tid as u64);
            }
        });
        listed.map_err(|e| refused(format_args!("/proc/self/task: {e}")))?;
        followed
    }

    /// Tracing off (just after the last round).
    pub fn stop(&self) -> Result<(), Line> {
        self.set(format_args!("tracing_on"), b"0")
    }

    /// Reads the instance's trace back into counts; events the buffer lost
    /// (per-CPU `overrun` and `dropped events`) are added to `lost`.
    pub fn read(&self) -> Result<Tally, Line> {
        let mut t = Tally::default();
        let cpu = self.cpu;
        let dir = &self.dir;
        scan(format_args!("{dir}/trace"), &mut |l| match l {
            Some(l) => t.add_line(l, cpu),
            None => t.unparsed += 1,
        })
        .map_err(|e| refused(format_args!("reading the trace: {e}")))?;
        let mut lost = 0u64;
        for c in 0..=MAX_CPU {
            let r = scan(format_args!("{dir}/per_cpu/cpu{c}/stats"), &mut |l| {
                let Some(l) = l else { return };
                for key in [&b"overrun: "[..], b"dropped events: "] {
                    // A count the kernel prints with %ld: one that is no
                    // number counts none, one past u64 counts all.
                    let n = match l.strip_prefix(key).map(|v| decimal::whole(v, UNBOUNDED)) {
                        Some(Ok(n)) => n,
                        Some(Err(Refused::TooLarge)) => u64::MAX,
                        _ => 0,
                    };
                    lost = lost.saturating_add(n);
                }
            });
            if r == Err(Errno::ENOENT) {
                break;
            }
        }
        t.lost = t.lost.max(lost);
        Ok(t)
    }

    /// Switches tracing off, drops the tracer and removes the instance;
    /// Ok once its directory is gone.
    pub fn remove(&mut self) -> Result<(), Errno> {
        if self.removed {
            return Ok(());
        }
        let _ = self.stop();
        if self.tracer_set {
            let _ = self.set(format_args!("current_tracer"), b"nop");
        }
        let d = path(format_args!("{}", self.dir))?;
        let r = sys::rmdir(&d);
        if r.is_ok() || sys::open(&d, O_RDONLY, 0).err() == Some(Errno::ENOENT) {
            self.removed = true;
            LIVE.store(0, Ordering::Relaxed);
            return Ok(());
        }
        r
    }

    /// The instance's directory.
    pub fn dir(&self) -> &[u8] {
        self.dir.as_bytes()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

/// After a panic (no Drop runs): switches tracing off in this process's
/// instance, if one is live, and removes it.
pub fn remove_after_panic() {
    // A load and a store, not swap: only the main thread writes LIVE, and
    // a read-modify-write on aarch64 pulls in outline-atomics helpers that
    // need libc's getauxval.
    let pid = LIVE.load(Ordering::Relaxed);
    LIVE.store(0, Ordering::Relaxed);
    if pid == 0 {
        return;
    }
    let dir = instance_dir(pid);
    let _ = put(format_args!("{dir}/tracing_on"), b"0", false);
    let _ = put(format_args!("{dir}/current_tracer"), b"nop", false);
    let _ = path(format_args!("{dir}")).and_then(|p| sys::rmdir(&p));
}

/// What the kernel must have seen (wanted of its trace), from the run's
/// own counts.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    submits: [(&'static str, u64); MAX_NAMES],
    n_submits: usize,
    results: [(i32, u64); MAX_NAMES],
    n_results: usize,
    /// Completions whose result differs per request (pollwake's target
    /// CQEs carry their message's value): counted, not told apart.
    pub varied: u64,
    pub completions: u64,
    /// Requests punted to io-wq (`io_uring_queue_async_work`): 0 but
    /// where the workload asks for it (a0's IOSQE_ASYNC).
    pub async_work: u64,
    functions: [(&'static str, u64); MAX_FUNCTIONS],
    n_functions: usize,
}

impl Default for Wanted {
    fn default() -> Self {
        Wanted {
            submits: [("", 0); MAX_NAMES],
            n_submits: 0,
            results: [(0, 0); MAX_NAMES],
            n_results: 0,
            varied: 0,
            completions: 0,
            async_work: 0,
            functions: [("", 0); MAX_FUNCTIONS],
            n_functions: 0,
        }
    }
}

impl Wanted {
    /// `n` more submissions of `opcode` (the kernel's opcode name).
    pub fn submit(&mut self, opcode: &'static str, n: u64) {
        add(&mut self.submits, &mut self.n_submits, opcode, n);
    }

    /// `n` more completions with result `res`.
    pub fn result(&mut self, res: i32, n: u64) {
        self.completions += n;
        add(&mut self.results, &mut self.n_results, res, n);
    }

    /// `n` more completions whose result varies per request.
    pub fn varied(&mut self, n: u64) {
        self.completions += n;
        self.varied += n;
    }

    /// `n` more hits of kernel function `name`.
    pub fn function(&mut self, name: &'static str, n: u64) {
        add(&mut self.functions, &mut self.n_functions, name, n);
    }

    pub fn submits(&self) -> &[(&'static str, u64)] {
        &self.submits[..self.n_submits]
    }

    pub fn results(&self) -> &[(i32, u64)] {
        &self.results[..self.n_results]
    }

    pub fn functions(&self) -> &[(&'static str, u64)] {
        &self.functions[..self.n_functions]
    }

    /// The hits expected of `name` (None: not a function of the list).
    pub fn hits(&self, name: &str) -> Option<u64> {
        self.functions().iter().find(|f| f.0 == name).map(|f| f.1)
    }
}

fn add<K: PartialEq + Copy, const N: usize>(v: &mut [(K, u64); N], n: &mut usize, k: K, c: u64) {
    if let Some(e) = v[..*n].iter_mut().find(|e| e.0 == k) {
        e.1 += c;
    } else if *n < N {
        v[*n] = (k, c);
        *n += 1;
    }
}

/// Writes the events line (`events ... -> MATCH|MISMATCH`, without `# witness: `
/// or newline) and returns whether the kernel's events match `e`.
pub fn events_line(w: &mut dyn Write, t: &Tally, e: &Wanted) -> bool {
    let mut ok = true;
    let _ = w.write_str("events");
    for &(op, n) in e.submits() {
        let got = t.submits.get(op.as_bytes());
        ok &= got == n;
        let _ = write!(w, " {op}={got}");
    }
    for (op, got) in t.submits.each() {
        if !e.submits().iter().any(|s| s.0.as_bytes() == op) {
            ok = false;
            let _ = write!(w, " {}={got}", Bytes(op));
        }
    }
    ok &= t.submits.overflow == 0;
    ok &= t.completions == e.completions;
    let _ = write!(w, " complete={}", t.completions);
    let mut fixed = 0;
    for &(res, n) in e.results() {
        let got = t.results.get(res);
        fixed += got;
        ok &= got == n;
        let _ = write!(w, " res{res}={got}");
    }
    let rest = t.completions - fixed.min(t.completions);
    if e.varied > 0 {
        ok &= rest == e.varied;
        let _ = write!(w, " res_varied={rest}");
    } else if rest > 0 {
        ok = false;
        for (res, got) in t.results.each() {
            if !e.results().iter().any(|r| r.0 == res) {
                let _ = write!(w, " res{res}={got}");
            }
        }
        if t.results.other > 0 {
            let _ = write!(w, " res_other={}", t.results.other);
        }
    }
    let _ = write!(
        w,
        " async={} overflow={} other_cpu={}",
        t.async_work, t.overflow, t.other_cpu
    );
    ok &= t.async_work == e.async_work && t.overflow == 0 && t.other_cpu == 0;
    ok &= lost_and_unparsed(w, t);
    let _ = write!(w, " -> {}", verdict(ok));
    ok
}

/// ` lost=N unparsed=N` when not 0; true when both are 0.
fn lost_and_unparsed(w: &mut dyn Write, t: &Tally) -> bool {
    if t.lost > 0 {
        let _ = write!(w, " lost={}", t.lost);
    }
    if t.unparsed > 0 {
        let _ = write!(w, " unparsed={}", t.unparsed);
    }
    t.lost == 0 && t.unparsed == 0
}

/// Writes the functions line (`functions ... -> MATCH|MISMATCH`) for the
/// functions `traced`, naming those the kernel cannot count; returns
/// whether the hits match `e`.
pub fn functions_line(
    w: &mut dyn Write,
    t: &Tally,
    e: &Wanted,
    traced: &[&'static str],
    untraced: &[Untraced],
) -> bool {
    let mut ok = true;
    let _ = w.write_str("functions");
    for &f in traced {
        let got = t.functions.get(f.as_bytes());
        ok &= e.hits(f) == Some(got);
        let _ = write!(w, " {f}={got}");
    }
    for (f, got) in t.functions.each() {
        if !traced.iter().any(|&n| n.as_bytes() == f) {
            ok = false;
            let _ = write!(w, " {}={got}", Bytes(f));
        }
    }
    ok &= t.functions.overflow == 0;
    for u in untraced {
        let _ = write!(w, " {}=not_traceable({})", u.name, u.why);
    }
    ok &= lost_and_unparsed(w, t);
    let _ = write!(w, " -> {}", verdict(ok));
    ok
}

/// What the run should have produced, as one line: `expected FUTEX_WAIT=512 ...`.
pub fn expected_line(w: &mut dyn Write, e: &Wanted, traced: &[&'static str]) {
    let _ = w.write_str("expected");
    for &(op, n) in e.submits() {
        let _ = write!(w, " {op}={n}");
    }
    let _ = write!(w, " complete={}", e.completions);
    for &(res, n) in e.results() {
        let _ = write!(w, " res{res}={n}");
    }
    if e.varied > 0 {
        let _ = write!(w, " res_varied={}", e.varied);
    }
    let _ = write!(w, " async={} overflow=0 other_cpu=0", e.async_work);
    for &f in traced {
        let _ = write!(w, " {f}={}", e.hits(f).unwrap_or(0));
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "MATCH"
    } else {
        "MISMATCH"
    }
}

#[cfg(test)]
mod tests;
