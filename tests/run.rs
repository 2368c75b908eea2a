//! The built binary against this machine's kernel: real runs, real exit
//! codes, real output. When io_uring cannot run here the tests say SKIP
//! (loudly, on stderr) instead of passing silently, and fail in CI.

mod utils;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;

use utils::{
    assert_starts_with, assert_usage_error, assert_zero, line, ran, rows, run, skip, tsv_rows,
    with_injected_fault, Run, Scratch, BIN, FAILURES,
};

#[test]
fn smoke_passes_with_every_check() {
    let Some(out) = ran(&["--smoke"]) else {
        return;
    };
    let stdout = &out.out;
    assert_eq!(out.code, 0, "stdout:\n{stdout}\nstderr:\n{}", out.err);
    assert!(out.err.is_empty(), "stderr: {}", out.err);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_starts_with(
        lines[0],
        "# uring-repro 0.1.0 profile=s0_wait_wake mode=smoke kernel=",
    );
    assert!(
        lines[0].contains(" clock=vdso"),
        "a shell run must read the clock via the vDSO: {}",
        lines[0]
    );
    assert!(lines[1].contains(
        "ring_entries=64 cq_entries=128 slots=32 vector_width=1 cycles=2 warmups=0 rounds=1"
    ));
    // Then the facts, one `# key=value` line each, then the C tool's header.
    let header = lines.iter().position(|l| !l.starts_with('#')).unwrap();
    for l in &lines[2..header] {
        assert!(l.starts_with("# ") && l.contains('='), "{l}");
    }
    for key in [
        "kernel_version",
        "cmdline",
        "preempt",
        "cpu_model",
        "governor",
        "turbo",
        "smt",
        "online_cpus",
        "io_uring_disabled",
    ] {
        assert!(
            lines[2..header]
                .iter()
                .any(|l| l.starts_with(&format!("# {key}="))),
            "{key}"
        );
    }
    assert_eq!(lines[header], "round\tpairs\tns_per_pair\tsemantic_pass");
    let r = rows(stdout);
    assert_eq!(r.len(), 2);
    assert_eq!((r[0][0], r[0][1], r[0][3]), ("0", "64", "1"));
    assert_eq!((r[1][0], r[1][1], r[1][3]), ("mean", "64", "1"));
    let checks = lines.last().unwrap();
    assert!(
        checks.starts_with("# checks: cqes=128 wait_cqes=64 waitv_cqes=0 wake_cqes=64 "),
        "{checks}"
    );
    assert!(checks.ends_with(" -> PASS"), "{checks}");
    assert_zero(checks, &FAILURES);
}

#[test]
fn default_run_is_the_published_contract() {
    let Some(out) = ran(&[]) else {
        return;
    };
    let stdout = &out.out;
    assert_eq!(out.code, 0, "{stdout}\n{}", out.err);
    assert!(
        stdout.contains(" slots=32 vector_width=1 cycles=512 warmups=3 rounds=15 futex=private")
    );
    let r = rows(stdout);
    assert_eq!(r.len(), 16, "15 rounds and a mean row");
    let mut sum = 0f64;
    for (i, row) in r[..15].iter().enumerate() {
        assert_eq!(row.len(), 4);
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[1], "16384");
        assert_eq!(row[3], "1");
        let v: f64 = row[2].parse().unwrap();
        assert!(
            v > 0.0 && row[2].split('.').nth(1).unwrap().len() == 6,
            "{}",
            row[2]
        );
        sum += v;
    }
    let mean = &r[15];
    assert_eq!((mean[0], mean[1], mean[3]), ("mean", "245760", "1"));
    // Equal pairs per round: the weighted mean equals the mean of the rows
    // (up to the rows' rounding to six decimals).
    let m: f64 = mean[2].parse().unwrap();
    assert!(
        (m - sum / 15.0).abs() < 1e-5,
        "mean {m} vs rows {}",
        sum / 15.0
    );
    // (3 warm-ups + 15 rounds) x 512 cycles x 64 CQEs, all validated.
    assert!(
        stdout.contains("# checks: cqes=589824 wait_cqes=294912 waitv_cqes=0 wake_cqes=294912 ")
    );
    assert!(stdout.trim_end().ends_with("-> PASS"));
    let summary = line(stdout, "# median=");
    assert!(summary.contains(" min=") && summary.contains(" max=") && summary.ends_with('%'));
}

/// The table is byte for byte what the C standalone prints: each round row
/// is `printf("%u\t%u\t%.6f\t1\n", round, pairs, (double)timed_ns / pairs)`
/// of that round's timed_ns (from --tsv), the mean row the same of the
/// totals, and only comment lines stand around the table. Rust's `{:.6}`
/// rounds the exact binary value half to even, as glibc does.
#[test]
fn the_table_is_the_c_standalones_printf() {
    let dir = Scratch::new("golden");
    let tsv = dir.file("s0.tsv");
    let args = ["--cycles", "64", "--rounds", "5", "--warmups", "1"];
    let Some(out) = ran(&[&args[..], &["--tsv", &tsv]].concat()) else {
        return;
    };
    assert_eq!(out.code, 0, "{}\n{}", out.out, out.err);
    let measured: Vec<_> = tsv_rows(Path::new(&tsv))
        .into_iter()
        .filter(|m| m["phase"] == "measured")
        .collect();
    assert_eq!(measured.len(), 5);
    let (mut want, mut ns, mut pairs) = (Vec::new(), 0u64, 0u64);
    for (i, m) in measured.iter().enumerate() {
        assert_eq!(
            (
                m["round"].as_str(),
                m["mode"].as_str(),
                m["semantic_pass"].as_str()
            ),
            (i.to_string().as_str(), "point", "1")
        );
        let (t, p): (u64, u64) = (m["timed_ns"].parse().unwrap(), m["pairs"].parse().unwrap());
        assert_eq!(p, 64 * 32);
        want.push(format!("{i}\t{p}\t{:.6}\t1", t as f64 / p as f64));
        (ns, pairs) = (ns + t, pairs + p);
    }
    want.push(format!("mean\t{pairs}\t{:.6}\t1", ns as f64 / pairs as f64));
    let lines: Vec<&str> = out.out.lines().collect();
    let header = lines.iter().position(|l| !l.starts_with('#')).unwrap();
    assert_eq!(lines[header], "round\tpairs\tns_per_pair\tsemantic_pass");
    let end = header + 1 + want.len();
    assert!(lines.len() >= end, "{}", out.out);
    assert_eq!(lines[header + 1..end], want, "{}", out.out);
    for l in &lines[end..] {
        assert!(l.starts_with('#'), "{l:?} after the mean row");
    }
}

#[test]
fn the_binary_is_a_static_exec_without_interpreter() {
    let elf = std::fs::read(BIN).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(elf[4], 2, "ELFCLASS64");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    assert_eq!(
        u16_at(16),
        2,
        "e_type must be ET_EXEC (a static-PIE would need self-relocation)"
    );
    let (phoff, phentsize, phnum) = (u64_at(32) as usize, u16_at(54) as usize, u16_at(56));
    for i in 0..phnum as usize {
        let p_type = u32_at(phoff + i * phentsize);
        assert_ne!(p_type, 3, "PT_INTERP present: needs a dynamic loader");
        assert_ne!(
            p_type, 2,
            "PT_DYNAMIC present: DT_NEEDED libraries possible"
        );
    }
}

#[test]
fn usage_errors_exit_2_with_one_stderr_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["--bogus"], "--bogus: unknown option"),
        (&["frobnicate"], "frobnicate: unknown command"),
        (&["--rounds"], "--rounds: needs a value"),
        (&["--rounds", "abc"], "--rounds abc: not a decimal number"),
        (&["--rounds", "0"], "--rounds 0: out of range (1..=4096)"),
        (&["--slots=65"], "--slots=65: out of range (1..=64)"),
        (&["--timeout", "0"], "--timeout 0: out of range (1..=3600)"),
        (
            &["--cycles", "1", "--cycles", "2"],
            "--cycles: given more than once",
        ),
        (&["--smoke=yes"], "--smoke=yes: takes no value"),
        (&["--profile", "nope"], "--profile nope: unknown profile"),
        (
            &["--cpu", "1023", "--smoke"],
            "--cpu 1023: CPU 1023 is not online or not allowed",
        ),
        (&["--version", "extra"], "extra: unexpected after --version"),
        (&["--help", "extra"], "extra: unexpected after --help"),
    ];
    for (args, want) in cases {
        assert_usage_error(&run(args), want);
    }
    let bad_utf8 = Run::from(
        Command::new(BIN)
            .arg("--cpu")
            .arg(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"\xff"))
            .output()
            .unwrap(),
    );
    assert_eq!(bad_utf8.code, 2);
    // Shown as every echo is: the byte, escaped.
    assert_eq!(
        bad_utf8.err,
        "uring-repro: --cpu \\xff: not a decimal number\n"
    );
}

#[test]
fn help_lists_every_option_with_its_default_and_version_prints() {
    let out = run(&["--help"]);
    assert_eq!(out.code, 0);
    let help = out.out;
    for (opt, default) in [
        ("--profile", "default s0"),
        ("--cpu", "default 2"),
        ("--rounds", "default 15"),
        ("--cycles", "default 512"),
        ("--warmups", "default 3"),
        ("--slots", "default 32"),
        ("--timeout", "default 2"),
        ("--smoke", "2 cycles, 1 round"),
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(opt))
            .unwrap_or_else(|| panic!("{opt}"));
        assert!(line.contains(default), "{line}");
    }
    assert_eq!(run(&["--version"]).out, "uring-repro 0.1.0\n");
}

/// `--help` is the one source for options and exit codes: the README
/// shows it verbatim, between its `<!-- help -->` markers.
#[test]
fn the_readme_shows_the_help_verbatim() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("read README.md");
    let start = readme.find("<!-- help -->\n```\n").expect("the help block") + 18;
    let len = readme[start..]
        .find("```\n<!-- /help -->")
        .expect("its end");
    assert_eq!(&readme[start..start + len], run(&["--help"]).out);
}

#[test]
fn closed_stdout_ends_quietly() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let mut child = utils::spawn(&["--rounds", "50", "--cycles", "64"]);
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("# uring-repro"));
    // The reader is gone now: the next row hits a closed pipe.
    let status = child.wait().unwrap();
    let err = utils::drain(child.stderr.take());
    use std::os::unix::process::ExitStatusExt;
    // SIGPIPE is ignored: EPIPE, and exit 141 as the shell shows a
    // SIGPIPE death; quiet, never a crash signal or a panic.
    assert_eq!(
        (status.code(), status.signal()),
        (Some(141), None),
        "{status:?} {err}"
    );
    assert!(err.is_empty(), "stderr: {err}");
}

/// A full disk on stdout is not a closed pipe: exit 1 and one stderr line
/// naming the errno, for a run and for any other command; mid-run too.
#[test]
fn a_stdout_that_cannot_be_written_is_named() {
    let want = "uring-repro: stdout: write failed: ENOSPC (28)\n";
    let parent = utils::published("parent_a.txt");
    for args in [&["--help"][..], &["compare", &parent], &["describe"]] {
        let r = utils::with_stdout_full(args);
        assert_eq!((r.code, r.err.as_str()), (1, want), "{args:?}");
    }
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let r = utils::with_stdout_full(&["--smoke"]);
    assert_eq!((r.code, r.err.as_str()), (1, want));
    // Write 2 is round 0's row, after the banner: the rounds stop there.
    let args = ["--cycles", "2", "--warmups", "0", "--rounds", "3"];
    let Some(r) = with_injected_fault("write:error=ENOSPC:when=2", &args) else {
        return;
    };
    assert_eq!((r.code, r.err.as_str()), (1, want));
    // A closed pipe with a --tsv file: that file is cut short, so removed,
    // and the one stderr line says so.
    let d = Scratch::new("epipe-tsv");
    let f = d.file("rows.tsv");
    let args = [&args[..], &["--tsv", &f]].concat();
    // Write 4: round 0's stdout row, after the header, banner and TSV row.
    let Some(r) = with_injected_fault("write:error=EPIPE:when=4", &args) else {
        return;
    };
    let said = format!("uring-repro: stdout was closed; --tsv {f} removed (cut short)\n");
    assert_eq!((r.code, r.err.as_str()), (141, said.as_str()));
    assert!(!Path::new(&f).exists(), "a cut TSV was left behind");
}

#[test]
fn io_uring_setup_eperm_eacces_and_enosys_are_skips_naming_the_errno() {
    for (errno, num) in [("EPERM", 1), ("EACCES", 13), ("ENOSYS", 38)] {
        let Some(out) = with_injected_fault(&format!("io_uring_setup:error={errno}"), &["--smoke"])
        else {
            return;
        };
        let err = &out.err;
        assert_eq!(out.code, 4, "{err}");
        assert_eq!(
            *err,
            format!("uring-repro: io_uring unavailable: io_uring_setup: {errno} ({num})\n")
        );
        assert!(out.out.is_empty());
    }
}

/// A kernel that breaks ring set-up is a failure, not a skip: a bisect must
/// not skip past it.
#[test]
fn other_set_up_failures_fail_naming_the_step_and_errno() {
    let cases = [
        (
            "io_uring_setup:error=EINVAL",
            "s0",
            "io_uring_setup failed: EINVAL (22)",
        ),
        (
            "io_uring_setup:error=EFAULT",
            "pollwake",
            "io_uring_setup failed: EFAULT (14)",
        ),
        // The first mmap after io_uring_setup is the SQ ring's.
        (
            "mmap:error=ENOMEM:when=1+",
            "s0",
            "mapping the rings failed: ENOMEM (12)",
        ),
        (
            "io_uring_register:error=EINVAL",
            "s0",
            "IORING_REGISTER_PROBE failed: EINVAL (22)",
        ),
    ];
    for (inject, profile, why) in cases {
        let Some(out) = with_injected_fault(inject, &["--smoke", "--profile", profile]) else {
            return;
        };
        let err = &out.err;
        assert_eq!(out.code, 1, "{inject}: {err}");
        assert_eq!(*err, format!("uring-repro: set-up: {why}\n"), "{inject}");
    }
}

#[test]
fn a_wait_that_never_completes_fails_within_the_timeout() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    // The second io_uring_enter (submit the WAKEs and wait) is faked to return
    // 32 without entering the kernel: no WAKE is ever submitted, the WAITs
    // stay pending, and the bounded wait must turn that into a FAIL.
    let started = std::time::Instant::now();
    let Some(out) = with_injected_fault(
        "io_uring_enter:retval=32:when=2",
        &["--smoke", "--timeout", "1"],
    ) else {
        return;
    };
    let (stdout, err) = (&out.out, &out.err);
    assert_eq!(out.code, 1, "{stdout}\n{err}");
    assert!(
        started.elapsed().as_secs() < 30,
        "bounded wait took {:?}",
        started.elapsed()
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("uring-repro: FAIL: timeout"), "{err}");
    let r = rows(stdout);
    assert_eq!(r[0][3], "0", "the failing round is marked: {stdout}");
    let checks = stdout.lines().last().unwrap();
    assert!(
        checks.contains(" timeouts=1 ") && checks.contains(" missing=64 "),
        "{checks}"
    );
    assert!(checks.ends_with("-> FAIL"), "{checks}");
}

/// The first process of a PID namespace is PID 1 but not the init of a
/// boot: it must run as an ordinary process (no mounts over the namespace's
/// /proc, no power-off) and end with its own exit code.
#[test]
fn pid_1_of_a_pid_namespace_is_an_ordinary_process() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let probe = Command::new("unshare")
        .args(["-p", "-f", "-m", "--mount-proc", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        skip("unshare -p -f -m --mount-proc does not work here (needs root and util-linux)");
        return;
    }
    for proc in [&["--mount-proc"][..], &[]] {
        let out = Command::new("unshare")
            .args(["-p", "-f", "-m"])
            .args(proc)
            .args([BIN, "--smoke"])
            .output()
            .unwrap();
        let out: Run = out.into();
        assert_eq!(out.code, 0, "{proc:?}\n{}\n{}", out.out, out.err);
        assert!(!out.out.contains("uring-repro: exit"), "{}", out.out);
        assert!(out.err.is_empty(), "{}", out.err);
    }
}

/// Every errno by its name: ELOOP (40) was `E? (40)`.
#[test]
fn an_errno_is_named_whatever_it_is() {
    let d = Scratch::new("eloop");
    std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
    let tsv = d.file("loop/rows.tsv");
    let Some(out) = ran(&["--smoke", "--tsv", &tsv]) else {
        return;
    };
    assert_usage_error(&out, &format!("--tsv {tsv}: cannot be created: ELOOP (40)"));
}

/// A cycle whose io_uring_enter fails names the errno, and one the kernel
/// cuts short says how many SQEs it took.
#[test]
fn a_failed_enter_in_a_cycle_names_what_it_returned() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    for (inject, profile, why) in [
        // The first enter of cycle 0 submits its WAITs.
        (
            "io_uring_enter:error=EBUSY:when=1",
            "s0",
            "submit_error in cycle 0: io_uring_enter: EBUSY (16)",
        ),
        // The second submits the WAKEs and waits: 31 of 32 taken.
        (
            "io_uring_enter:retval=31:when=2",
            "s0",
            "submit_error in cycle 0: io_uring_enter took 31 of 32 SQEs",
        ),
        (
            "io_uring_enter:error=ENOTSUPP:when=1",
            "n0",
            "submit_error in cycle 0: io_uring_enter: ENOTSUPP (524)",
        ),
    ] {
        let args = ["--smoke", "--profile", profile, "--timeout", "1"];
        let Some(out) = with_injected_fault(inject, &args) else {
            return;
        };
        assert_eq!(out.code, 1, "{inject}: {}", out.err);
        let want = format!("uring-repro: FAIL: {why}; counters on stdout\n");
        assert_eq!(out.err, want, "{inject}");
        let checks = out.out.lines().last().unwrap_or_default();
        assert!(checks.ends_with("-> FAIL"), "{checks}");
    }
}

/// PID 1 of a PID namespace whose /proc is gone is still no initramfs
/// boot: its root is no RAM filesystem holding this binary as /init. It
/// runs as an ordinary process: it mounts nothing (its facts from /proc
/// are unknown), does not power off (reboot(2) there would kill it:
/// exit 130), and ends with its own exit code.
#[test]
fn pid_1_without_proc_is_not_an_initramfs_boot() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let sh = "umount -l /proc && exec \"$0\" --smoke";
    let args = ["-p", "-f", "-m", "--propagation", "private", "sh", "-c", sh];
    let probe = Command::new("unshare")
        .args(&args[..7])
        .arg("true")
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return skip("unshare -p -f -m does not work here (needs root and util-linux)");
    }
    let out: Run = Command::new("unshare")
        .args(args)
        .arg(BIN)
        .output()
        .unwrap()
        .into();
    assert_ordinary_without_proc(&out, "umount -l /proc");
}

/// `out` is a PID 1 that ran as an ordinary process (`what`): exit 0,
/// nothing on stderr, no init's last line, and no /proc mounted for its
/// facts (the command line is unknown).
#[track_caller]
fn assert_ordinary_without_proc(out: &Run, what: &str) {
    assert_eq!(out.code, 0, "{what}\n{}\n{}", out.out, out.err);
    assert!(out.err.is_empty(), "{what}: {}", out.err);
    assert!(
        !out.out.contains("uring-repro: exit"),
        "{what}: {}",
        out.out
    );
    assert_eq!(
        line(&out.out, "# cmdline="),
        "# cmdline=unknown",
        "{what}: proc was mounted"
    );
}

/// PID 1 of a PID namespace chrooted into a RAM root that holds this
/// binary as /init, with empty /proc, /sys and /dev (`unshare -p -f -m
/// chroot ROOT /init`) looks like an initramfs boot in every way but one:
/// its PID namespace is not the initial one. It runs as an ordinary
/// process (it used to mount, print `uring-repro: exit 0`, power off its
/// namespace and end 130), as in a user namespace too.
#[test]
fn pid_1_chrooted_into_a_ram_root_is_not_an_initramfs_boot() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let d = Scratch::new("pid1-chroot");
    let root = d.join("root");
    std::fs::create_dir(&root).unwrap();
    let script = format!(
        "mount -t tmpfs none '{root}' || exit 99\n\
         cp '{BIN}' '{root}/init' && mkdir '{root}/proc' '{root}/sys' '{root}/dev'\n\
         unshare $NS chroot '{root}' /init --smoke\n",
        root = root.display()
    );
    for ns in ["-p -f -m", "-U -r -p -f -m"] {
        let out = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .env("NS", ns)
            .output()
            .unwrap();
        if out.status.code() == Some(99) {
            return skip("no private mount namespace with a tmpfs here (needs root)");
        }
        let out: Run = out.into();
        if out.err.starts_with("unshare: ") {
            return skip(format!("unshare {ns} does not work here: {}", out.err));
        }
        assert_ordinary_without_proc(&out, ns);
    }
}
