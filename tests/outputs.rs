//! Every output the user asks for, lost, ends with its documented code
//! and says so: stdout on a full disk (/dev/full) or a closed pipe, for
//! every command and whatever its verdict was; a `--tsv` or `initramfs -o`
//! file on a filesystem that is already full. And the exit codes `--help`
//! lists are docs/output.md's.

mod utils;

use std::path::Path;
use std::process::{Command, Stdio};

use utils::{published, ran, skip, under_strace, Run, Scratch, BIN};

/// Where stdout goes.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// /dev/full: every write fails with ENOSPC, as on a full disk.
    Full,
    /// A pipe whose reader is gone before the first write: EPIPE.
    Closed,
}

impl Sink {
    fn stdio(self) -> Stdio {
        match self {
            Sink::Full => std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("open /dev/full")
                .into(),
            Sink::Closed => {
                let mut reader = Command::new("true")
                    .stdin(Stdio::piped())
                    .spawn()
                    .expect("run true");
                let pipe = reader.stdin.take().unwrap();
                reader.wait().unwrap();
                pipe.into()
            }
        }
    }

    /// The line that names the lost write.
    fn told(self) -> String {
        let errno = match self {
            Sink::Full => "ENOSPC (28)",
            Sink::Closed => "EPIPE (32)",
        };
        format!("uring-repro: stdout: write failed: {errno}")
    }
}

/// `cmd` run to its end with stdout to `sink`.
fn with_stdout(mut cmd: Command, sink: Sink) -> Run {
    cmd.stdout(sink.stdio())
        .stderr(Stdio::piped())
        .output()
        .expect("spawn")
        .into()
}

/// What a command with stdout lost must end with, its verdict (the code it
/// gives with stdout intact) being `verdict`:
/// - under `compare --bisect`, 128 and the lost write's line last;
/// - a pass becomes 1 naming the errno, or 141, quietly, for a closed
///   pipe;
/// - a failure keeps its code, its own line, and gets the lost write's
///   line after it.
#[track_caller]
fn assert_told(what: &str, verdict: i32, bisect: bool, r: &Run, sink: Sink) {
    let told = sink.told();
    let lines: Vec<&str> = r.err.lines().collect();
    let last = lines.last().copied().unwrap_or("");
    let said = format!("{what} {sink:?}: exit {}, stderr:\n{}", r.code, r.err);
    match (bisect, verdict, sink) {
        (true, _, _) => assert_eq!((r.code, last), (128, told.as_str()), "{said}"),
        (false, 0, Sink::Closed) => {
            assert_eq!(r.code, 141, "{said}");
            assert!(!r.err.contains("stdout"), "{said}");
        }
        (false, 0, Sink::Full) => assert_eq!((r.code, last), (1, told.as_str()), "{said}"),
        (false, v, _) => {
            assert_eq!((r.code, last), (v, told.as_str()), "{said}");
            assert!(lines.len() >= 2, "the verdict's own line first: {said}");
        }
    }
    if bisect || verdict != 0 || matches!(sink, Sink::Full) {
        let times = lines.iter().filter(|l| **l == told).count();
        assert_eq!(times, 1, "{said}");
    }
}

/// A copy of the published point `name` in `dir` as `as_name`, its boot
/// id `boot` (12 hex digits) and each round's ns/pair (and the mean) `by`
/// ns more.
fn shifted(dir: &Path, name: &str, as_name: &str, boot: &str, by: f64) -> String {
    let text = std::fs::read_to_string(published(name)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut f: Vec<String> = line.split('\t').map(str::to_owned).collect();
        let row = f.len() == 4 && (f[0] == "mean" || f[0].parse::<u32>().is_ok());
        if row {
            f[2] = format!("{:.6}", f[2].parse::<f64>().unwrap() + by);
        }
        let line = f.join("\t");
        match line.find(" boot_id=") {
            Some(at) => {
                let end = at + " boot_id=".len() + 36;
                let id = format!("0e0e0e0e-0000-4000-8000-{boot}");
                out += &format!("{} boot_id={id}{}\n", &line[..at], &line[end..]);
            }
            None => out += &(line + "\n"),
        }
    }
    let p = dir.join(as_name);
    std::fs::write(&p, out).unwrap();
    p.to_string_lossy().into_owned()
}

/// A copy of `point` whose first round failed its checks.
fn failed(point: &str, as_name: &str) -> String {
    let text = std::fs::read_to_string(point).unwrap();
    let text = text.replacen("\t1\n", "\t0\n", 1);
    let p = Path::new(point).with_file_name(as_name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// The binary with `args`.
fn bin(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args);
    c
}

#[test]
fn every_command_tells_a_lost_stdout_whatever_its_verdict() {
    let d = Scratch::new("lost-stdout");
    let [a, b, child] = ["parent_a.txt", "parent_b.txt", "child.txt"].map(published);
    let good = shifted(&d, "parent_a.txt", "good.txt", "00000000000a", 0.0);
    let bad = shifted(&d, "child.txt", "bad.txt", "00000000000b", 0.0);
    let midway = shifted(&d, "parent_a.txt", "midway.txt", "00000000000c", 8.34);
    let child_failed = failed(&bad, "failed.txt");
    let refs = [
        format!("good={a}"),
        format!("good={b}"),
        format!("bad={child}"),
    ];
    let step = |new: &str| {
        let mut args = vec!["compare".to_owned(), "--bisect".into()];
        args.extend(refs.iter().cloned());
        args.push(format!("new={new}"));
        args
    };
    let parent = format!("parent={a}");
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut cases: Vec<(Vec<String>, i32)> = vec![
        (owned(&["--help"]), 0),
        (owned(&["--version"]), 0),
        (owned(&["compare", &a]), 0),
        (owned(&["compare", &a, &child_failed]), 1),
        (owned(&["report", &parent, &format!("child={bad}")]), 0),
        (
            owned(&["report", &parent, &format!("child={child_failed}")]),
            1,
        ),
        (step(&good), 0),
        (step(&bad), 1),
        (step(&midway), 125),
    ];
    let runs = ran(&["--smoke"]).is_some();
    if runs {
        cases.push((owned(&["--smoke"]), 0));
        cases.push((owned(&["describe"]), 0));
        cases.push((owned(&["selftest"]), 0));
    }
    for (args, verdict) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let bisect = args.get(1) == Some(&"--bisect");
        let intact: Run = bin(&args).output().unwrap().into();
        assert_eq!(intact.code, *verdict, "{args:?}: {}", intact.err);
        for sink in [Sink::Full, Sink::Closed] {
            let r = with_stdout(bin(&args), sink);
            assert_told(&format!("{args:?}"), *verdict, bisect, &r, sink);
        }
    }
    if !runs {
        return;
    }
    // A run that fails (its first io_uring_enter refused) keeps its 1.
    let args = ["--smoke", "--timeout", "1"];
    for sink in [Sink::Full, Sink::Closed] {
        let Some(cmd) = under_strace("io_uring_enter:error=EBUSY:when=1") else {
            return;
        };
        let mut cmd = cmd;
        cmd.args(args);
        let r = with_stdout(cmd, sink);
        assert!(
            r.err.starts_with("uring-repro: FAIL: submit_error"),
            "{}",
            r.err
        );
        assert_told("a failed run", 1, false, &r, sink);
    }
    // calibrate's first point loses its banner: the point fails by it.
    let args = [
        "calibrate",
        "--cycles",
        "16",
        "--rounds",
        "3",
        "--warmups",
        "0",
    ];
    for sink in [Sink::Full, Sink::Closed] {
        assert_told("calibrate", 0, false, &with_stdout(bin(&args), sink), sink);
    }
}

/// The `exit codes:` block of `--help` and the table of docs/output.md
/// list the same codes, each with the same meaning (the table's row
/// starts with `--help`'s words, then may say more).
#[test]
fn the_help_and_the_docs_give_the_same_exit_codes() {
    let help = utils::run(&["--help"]).out;
    let head = "\nexit codes:\n";
    let block = &help[help.find(head).expect("an exit codes block") + head.len()..];
    let mut from_help: Vec<(i32, String)> = Vec::new();
    for line in block.lines().take_while(|l| l.starts_with("  ")) {
        let (code, words) = line.trim_start().split_at(6.min(line.trim_start().len()));
        match code.trim().parse() {
            Ok(code) => from_help.push((code, words.trim().to_owned())),
            Err(_) => {
                let last = from_help.last_mut().expect("a code first");
                last.1 = format!("{} {}", last.1, line.trim());
            }
        }
    }
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.md"))
        .expect("read docs/output.md");
    let table = &docs[docs
        .find("\n## Exit codes\n")
        .expect("its exit codes section")..];
    let from_docs: Vec<(i32, String)> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let code = cells.first()?.strip_prefix("| ")?.parse().ok()?;
            Some((
                code,
                cells[1..].join(" | ").trim_end_matches(" |").to_owned(),
            ))
        })
        .collect();
    let codes = |v: &[(i32, String)]| v.iter().map(|c| c.0).collect::<Vec<_>>();
    assert_eq!(codes(&from_help), codes(&from_docs));
    assert_eq!(
        codes(&from_help),
        [0, 1, 2, 4, 101, 124, 125, 128, 130, 141],
        "every code the binary has"
    );
    for ((code, help), (_, doc)) in from_help.iter().zip(&from_docs) {
        assert!(
            doc.starts_with(help.as_str()),
            "{code}: docs/output.md says {doc:?}, --help {help:?}"
        );
    }
}

/// Runs `script` as root in a mount namespace of its own (the machine's
/// mounts are untouched) with `$B` the binary and `$D` an empty directory;
/// its stdout, or None (skipped) where no such namespace can be made.
fn in_private_mounts(d: &Path, script: &str) -> Option<String> {
    let probe = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!("mount -t tmpfs -o size=64k none '{}'", d.display()))
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        skip("no private mount namespace with a tmpfs here (needs root and util-linux)");
        return None;
    }
    let out = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-ec"])
        .arg(format!("B='{BIN}'\nD='{}'\n{script}", d.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the script failed: {err}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Mounts a 64 KiB tmpfs on $D with the options $OPTS and fills it as
/// $FILL says: nothing, its data (`data`: a file that took every block),
/// or its inodes too (`inodes`: files made until none is left); then runs
/// `$B` with each of the two command lines below (`{}` a path in $D),
/// printing `exit CODE`, its stderr, and what $D then holds (the filler
/// files aside).
const FULL_DISK: &str = r#"
mount -t tmpfs -o "size=64k,nr_inodes=64,$OPTS" none "$D"
[ "$FILL" = none ] || dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null || true
if [ "$FILL" = inodes ]; then
    i=0; while touch "$D/i$i" 2>/dev/null; do i=$((i+1)); done
fi
for line in '--smoke --tsv {}' 'initramfs -o {} --smoke'; do
    set -- $(echo "$line" | sed "s|{}|$D/out|")
    set +e; "$B" "$@" >/dev/null 2>"$D.err"; code=$?; set -e
    echo "exit $code"
    cat "$D.err"
    ls "$D" | grep -v -e '^fill$' -e '^i[0-9]*$' || true
done
"#;

/// An output file that cannot be made or written for want of room is a
/// lost output (1), from its very start as later, and leaves nothing; a
/// path that cannot be a new file stays a usage error (2). Every output
/// file of every command (`--tsv`, `initramfs -o`) on a real tmpfs: full
/// (the open succeeds, the first write fails), without a free inode (the
/// open fails), read-only.
#[test]
fn a_full_disk_at_creation_is_a_lost_output_and_leaves_nothing() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let d = Scratch::new("full-disk");
    let mnt = d.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    for (opts, fill, code, why) in [
        ("rw", "data", 1, "write failed: ENOSPC (28); removed"),
        ("rw", "inodes", 1, "cannot be created: ENOSPC (28)"),
        ("ro", "none", 2, "cannot be created: EROFS (30)"),
    ] {
        let script = format!("OPTS={opts}\nFILL={fill}\n{FULL_DISK}");
        let Some(out) = in_private_mounts(&mnt, &script) else {
            return;
        };
        let m = mnt.display();
        let want = format!(
            "exit {code}\nuring-repro: --tsv {m}/out: {why}\n\
             exit {code}\nuring-repro: initramfs: {m}/out: {why}\n"
        );
        assert_eq!(out, want, "{opts} {fill}");
    }
}
