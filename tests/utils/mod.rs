//! What the integration tests share: the built binary run to its end, a
//! loud skip that CI turns into a failure, a scratch directory, readers
//! for the binary's output (`key=value` lines, the table, the `--tsv` file),
//! and the signal dispositions a process a test signals starts with
//! (signals.rs).

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

pub mod cost;
pub mod draft;
pub mod signals;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_uring-repro");

/// A finished run: its exit code, stdout and stderr (as text).
pub struct Run {
    pub code: i32,
    pub out: String,
    pub err: String,
}

impl From<Output> for Run {
    /// Every test expects an exit: a run ended by a signal fails here.
    fn from(o: Output) -> Run {
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let Some(code) = o.status.code() else {
            panic!("ended by {}\nstdout:\n{out}\nstderr:\n{err}", o.status);
        };
        Run { code, out, err }
    }
}

/// Runs the binary with `args` to its end.
pub fn run(args: &[&str]) -> Run {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("spawn uring-repro")
        .into()
}

/// Runs the binary with `args` to its end, the environment variable `var`
/// set to `value` (None: unset).
pub fn run_env(var: &str, value: Option<&str>, args: &[&str]) -> Run {
    let mut c = Command::new(BIN);
    c.args(args).env_remove(var);
    if let Some(v) = value {
        c.env(var, v);
    }
    c.output().expect("spawn uring-repro").into()
}

/// Starts the binary with `args`, stdout and stderr piped, and the
/// signals a test sends it at their defaults (signals::default_signals).
pub fn spawn(args: &[&str]) -> Child {
    signals::default_signals(&mut Command::new(BIN))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn uring-repro")
}

/// What is left in a child's pipe, as text.
pub fn drain(pipe: Option<impl Read>) -> String {
    let mut s = String::new();
    pipe.expect("a piped stream")
        .read_to_string(&mut s)
        .expect("read the pipe");
    s
}

/// Says why a test cannot test here, as `SKIP: why` on stderr; with `CI`
/// set it then fails the test, so CI never passes with nothing tested.
pub fn skip(why: impl std::fmt::Display) {
    eprintln!("SKIP: {why}");
    if std::env::var_os("CI").is_some() {
        panic!("SKIP in CI: {why}");
    }
}

/// The run, or None after a skip when it exited 4 (io_uring cannot run
/// here: the binary's own stderr line says why).
pub fn ran(args: &[&str]) -> Option<Run> {
    let r = run(args);
    if r.code == 4 {
        skip(format!("{args:?} cannot run here: {}", r.err.trim()));
        return None;
    }
    Some(r)
}

/// `r` is a usage error: exit 2, nothing on stdout and one stderr line
/// that starts `uring-repro: {msg}`.
pub fn assert_usage_error(r: &Run, msg: &str) {
    let err = &r.err;
    assert_eq!(r.code, 2, "{msg}: {err}");
    assert_eq!(err.lines().count(), 1, "{msg}: {err}");
    assert!(
        err.starts_with(&format!("uring-repro: {msg}")),
        "{msg}: {err}"
    );
    assert!(r.out.is_empty(), "{msg}: stdout {}", r.out);
}

/// A fresh directory for one test, removed when the test ends.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("uring-repro-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    /// The path of `name` in it, as an argument.
    pub fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `text` as `name` in `dir`; its path, as an argument.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// The value after `label` on its line of compare's text.
pub fn field<'a>(text: &'a str, label: &str) -> &'a str {
    let l = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in\n{text}"));
    l.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
}

/// Each of `parts` is in `text` (which the failure shows).
pub fn assert_contains(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} in:\n{text}");
    }
}

/// `text` starts with `prefix` (shown whole where it does not).
#[track_caller]
pub fn assert_starts_with(text: &str, prefix: &str) {
    assert!(text.starts_with(prefix), "{prefix:?} first in:\n{text}");
}

/// The first line of `out` that starts with `prefix`.
pub fn line<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{out}"))
}

/// The `key=value` words of `line`, by key.
pub fn fields(line: &str) -> HashMap<&str, &str> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .collect()
}

/// The number in the word `key=N` of `line`.
pub fn num(line: &str, key: &str) -> u64 {
    let v = *fields(line)
        .get(key)
        .unwrap_or_else(|| panic!("no {key}= in {line}"));
    v.parse()
        .unwrap_or_else(|_| panic!("{key}={v} is not a count in {line}"))
}

/// pollwake's modes in the order each round runs them.
pub const POLLWAKE_MODES: [&str; 4] = [
    "pollwake_none",
    "pollwake_idle",
    "pollwake_waiter",
    "pollwake_none_aa",
];

/// The failure counters on every workload's `# checks:` line.
pub const FAILURES: [&str; 11] = [
    "bad_results",
    "bad_flags",
    "unknown_tags",
    "duplicates",
    "missing",
    "timeouts",
    "submit_errors",
    "sq_dropped",
    "cq_overflow",
    "outstanding",
    "migrations",
];

/// Each counter in `keys` is 0 on the `checks` line.
pub fn assert_zero(checks: &str, keys: &[&str]) {
    for k in keys {
        assert_eq!(num(checks, k), 0, "{k} in {checks}");
    }
}

/// The rows of a run's table, split at tabs: the lines after the header
/// (the first line that is not a `#` comment) that are not comments.
pub fn rows(stdout: &str) -> Vec<Vec<&str>> {
    stdout
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect()
}

/// The rows of a `--tsv` file by column name. The file ends in a newline
/// and every row is as wide as the header.
pub fn tsv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    assert!(t.ends_with('\n'), "{t}");
    let mut lines = t.lines();
    let names: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    lines
        .map(|l| {
            let v: Vec<&str> = l.split('\t').collect();
            assert_eq!(v.len(), names.len(), "{l}");
            names
                .iter()
                .zip(v)
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A TSV's rows (`tsv_rows`) by the value of their column `key`, each a
/// map of column name to value (in order of names, so that rows compare
/// column by column).
pub fn tsv_by(path: &Path, key: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    tsv_rows(path)
        .into_iter()
        .map(|row| (row[key].clone(), row.into_iter().collect()))
        .collect()
}

/// The SHA-256 of `bytes` in hex, by coreutils' sha256sum: a check of the
/// tool's own hashing that shares no code with it.
pub fn sha256sum(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run sha256sum");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "sha256sum failed");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().next().unwrap().to_owned()
}

/// The binary under strace with `inject` (a fault or a delay:
/// `write:error=ENOSPC:when=4`, `write:delay_enter=100000`), its arguments
/// still to add; None (SKIP) without strace.
pub fn under_strace(inject: &str) -> Option<Command> {
    under_strace_all(&[inject])
}

/// `under_strace` with each of `injects` (one a system call set).
pub fn under_strace_all(injects: &[&str]) -> Option<Command> {
    if Command::new("strace").arg("-V").output().is_err() {
        skip(format!("strace not installed; cannot inject {injects:?}"));
        return None;
    }
    let mut c = Command::new("strace");
    c.args(["-f", "-qq", "-o", "/dev/null"]);
    for inject in injects {
        c.arg("-e").arg(format!("inject={inject}"));
    }
    c.arg(BIN);
    Some(c)
}

/// Runs the binary under strace with a fault injected; None (SKIP) without strace.
pub fn with_injected_fault(inject: &str, args: &[&str]) -> Option<Run> {
    with_injected_faults(&[inject], args)
}

/// `with_injected_fault` with each of `injects`.
pub fn with_injected_faults(injects: &[&str], args: &[&str]) -> Option<Run> {
    let out = under_strace_all(injects)?.args(args).output().unwrap();
    Some(out.into())
}

/// The path of a published-sandwich fixture (tests/fixtures/published).
pub fn published(name: &str) -> String {
    format!(
        "{}/tests/fixtures/published/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The path of an icount fixture (tests/fixtures/icount: points on QEMU
/// TCG's instruction clock, exact across boots).
pub fn icount(name: &str) -> String {
    format!(
        "{}/tests/fixtures/icount/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// What a point's `# series: NAME ...` line states for `key` (a quoted
/// value without its quotes); None when the point has no such line (one
/// booted before the binary stated its series).
pub fn series_value(point: &str, name: &str, key: &str) -> Option<String> {
    let line = point.lines().find(|l| {
        l.strip_prefix("# series: ")
            .and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.starts_with(' '))
    })?;
    let v = line.split_once(&format!(" {key}="))?.1;
    Some(match v.strip_prefix('"') {
        Some(q) => q[..q.find('"').unwrap()].to_owned(),
        None => v.split(' ').next().unwrap().to_owned(),
    })
}

/// Every line of a mail-ready text fits 72 display columns (a wide
/// character takes two: counted by glibc's wcwidth, `wc -L` in a UTF-8
/// locale) and none ends in a blank.
pub fn assert_narrow(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 72,
            "{} characters: {line:?}",
            line.chars().count()
        );
        assert!(!line.ends_with(' '), "trailing blank: {line:?}");
    }
    let widest = display_width(text);
    assert!(widest <= 72, "a line of {widest} columns in:\n{text}");
}

/// The display width of the widest line of `text`, by `wc -L` in the
/// C.UTF-8 locale (glibc's wcwidth: no code shared with the binary's).
pub fn display_width(text: &str) -> usize {
    use std::io::Write;
    let mut wc = Command::new("wc")
        .arg("-L")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run wc");
    wc.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = wc.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The command line a draft shows (its lines as printed, `uring-repro`
/// first), read back by bash in the C locale: the arguments it gives
/// `uring-repro`, or None after a skip without bash.
pub fn shell_words(lines: &str) -> Option<Vec<Vec<u8>>> {
    if Command::new("bash").arg("--version").output().is_err() {
        skip("bash not installed; cannot read the command line back");
        return None;
    }
    let script = format!("uring-repro() {{ printf '%s\\0' \"$@\"; }}\n{lines}\n");
    let out = Command::new("bash")
        .env("LC_ALL", "C")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(out.status.success(), "bash failed on:\n{lines}");
    let mut words: Vec<Vec<u8>> = out.stdout.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
    assert_eq!(words.pop(), Some(vec![]), "{lines}");
    Some(words)
}

/// The lines of `draft` that show the command it was made with.
pub fn made_with(draft: &str) -> &str {
    let at = draft
        .find("This draft was made with:\n\n")
        .expect("the made-with lines")
        + 27;
    let rest = &draft[at..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// Runs the binary with `args` under `ulimit -f BLOCKS` (1 KiB blocks, as
/// bash counts them): a write past the limit raises SIGXFSZ, or fails
/// with EFBIG where that is ignored.
pub fn with_file_size_limit(blocks: u32, args: &[&str]) -> Run {
    Command::new("bash")
        .args([
            "-c",
            &format!("ulimit -f {blocks} && exec \"$0\" \"$@\""),
            BIN,
        ])
        .args(args)
        .output()
        .expect("run bash")
        .into()
}

/// Runs the binary with `args`, its stdout on /dev/full: every write to it
/// fails with ENOSPC, as on a full disk.
pub fn with_stdout_full(args: &[&str]) -> Run {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let o = Command::new(BIN)
        .args(args)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("spawn uring-repro");
    o.into()
}

/// What an interrupted run left behind.
pub struct Ended {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// False when the run ended before `ready` saw its line.
    pub signalled: bool,
}

/// Runs BIN with `args`; once a stdout line satisfies `ready`, sends
/// `kill -SIG` (`sig` = "INT", "TERM"), then reads everything and waits.
pub fn interrupt(args: &[&str], sig: &str, ready: impl Fn(&str) -> bool) -> Ended {
    let mut child = spawn(args);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut stdout, mut signalled) = (String::new(), false);
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        stdout.push_str(&line);
        if ready(&line) {
            let ok = Command::new("kill")
                .args([&format!("-{sig}"), &child.id().to_string()])
                .status()
                .expect("run kill");
            assert!(ok.success(), "kill -{sig} failed");
            signalled = true;
            break;
        }
    }
    // Keep reading: a full pipe would block the report.
    out.read_to_string(&mut stdout).unwrap();
    let stderr = drain(child.stderr.take());
    let code = child.wait().unwrap().code();
    Ended {
        code,
        stdout,
        stderr,
        signalled,
    }
}

/// None (after a loud SKIP) when the run could not start here.
pub fn started(e: Ended, what: &str) -> Option<Ended> {
    if !e.signalled && e.code == Some(4) {
        skip(format!("{what} cannot run here: {}", e.stderr.trim()));
        return None;
    }
    assert!(
        e.signalled,
        "{what} ended before its first row (exit {:?})\n{}\n{}",
        e.code, e.stdout, e.stderr
    );
    Some(e)
}
