//! The scripts stopped mid-boot and mid-build by real signals: Ctrl-C (SIGINT
//! to the script's process group, as a terminal sends it), and SIGINT,
//! SIGTERM, SIGHUP and SIGKILL to the script alone. Each must end at once
//! (130 and a line naming the signal; SIGKILL ends it by itself) and leave
//! nothing: no process (the stand-in QEMU hangs, as a real one does until its
//! guest powers off; a build hangs too), no temporary directory, no partial
//! point. What is left is found by the box's mark in every process's
//! environment, and by listing the scripts' TMPDIR and the output
//! directories. Signals go through kill(1). A script starts with them at
//! their defaults, as a terminal's shell starts it, whatever `cargo test`
//! inherited: one case is run again from a test process that started with
//! SIGINT ignored. A script that did start with SIGINT ignored cannot trap
//! it: Ctrl-C leaves it running, SIGTERM and SIGHUP still end it, and on a
//! terminal it says so as it begins.

mod stand_in;
mod utils;

use stand_in::*;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use utils::signals::{default_signals, ignoring_sigint, sigint_ignored};
use utils::BIN;

/// How a signal is sent: to the script's process group (a terminal's
/// Ctrl-C) or to the script alone.
#[derive(Clone, Copy, Debug)]
enum To {
    Group,
    Script,
}

const SIGNALS: [(&str, To); 5] = [
    ("INT", To::Group),
    ("INT", To::Script),
    ("TERM", To::Script),
    ("HUP", To::Script),
    ("KILL", To::Script),
];

/// Far longer than any test may wait: a script that waits for it has not
/// stopped.
const HANG: &str = "600";
/// A script that has not ended this long after the signal ignored it.
const PATIENCE: Duration = Duration::from_secs(20);

/// Waits until `ready` (the boot or the build has begun), at most 30 s.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ready() {
        assert!(t.elapsed() < Duration::from_secs(30), "{what} never began");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `sig` as `to` says to `child`, started by Box::start; waits for its
/// end; returns its exit status, after killing (and failing on) whatever of
/// the box is still running.
fn signal(b: &Box, child: &mut Child, sig: &str, to: To) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    let target = match to {
        To::Group => format!("-{pid}"),
        To::Script => pid,
    };
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), "--", &target])
        .status()
        .unwrap();
    assert!(ok.success(), "kill -{sig} {target}");
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            let left = kill_all(b);
            panic!("SIG{sig} to {to:?}: still running {PATIENCE:?} later; left: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // After SIGKILL the guardian and the child's own death signals clean up:
    // a moment later, not before the script's end. After a signal the
    // script traps it waits for its guardian; twice, on a box loaded with
    // kernel builds and boots, the guardian was seen still there as the
    // script had ended (its parent-death signal then cleans up at once):
    // the same moment is allowed.
    {
        let t = Instant::now();
        while !b.processes().is_empty() && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        while !b.temp_files().is_empty() && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let left = kill_all(b);
    assert!(
        left.is_empty(),
        "SIG{sig} to {to:?}: left running: {left:?}"
    );
    status
}

/// Kills every process of the box; what there was.
fn kill_all(b: &Box) -> Vec<String> {
    let left = b.processes();
    for p in &left {
        let pid = p.split(' ').next().unwrap();
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    left
}

/// The script ended as `sig` says: 130 and its line, or killed.
fn assert_ended(b: &Box, name: &str, script: &str, status: std::process::ExitStatus, sig: &str) {
    let err = fs::read_to_string(b.dir.join(format!("{name}.err"))).unwrap();
    if sig == "KILL" {
        assert_eq!(status.signal(), Some(9), "{status:?}\n{err}");
    } else {
        assert_eq!(status.code(), Some(130), "SIG{sig}: {status:?}\n{err}");
        let said = format!("{script}: interrupted by SIG{sig}");
        assert!(
            err.lines().any(|l| l == said),
            "SIG{sig}: no {said:?} in\n{err}"
        );
    }
    let tmp = b.temp_files();
    assert!(tmp.is_empty(), "SIG{sig}: left in TMPDIR: {tmp:?}");
}

/// A run's boot (a point) and a suite's (a directory of points).
#[test]
fn boot_point_stops_its_boot_and_leaves_nothing() {
    for ((sig, to), suite) in SIGNALS.iter().flat_map(|s| [(*s, false), (*s, true)]) {
        boot_point_stops(sig, to, suite);
    }
}

/// boot-point.sh, its boot begun (the stand-in QEMU hangs): `sig` sent as
/// `to` says ends it at once, and it leaves nothing.
fn boot_point_stops(sig: &str, to: To, suite: bool) {
    let (b, mut child) =
        boot_point_booting(&format!("sig-boot-point-{sig}-{suite}"), suite, |_| {});
    let status = signal(&b, &mut child, sig, to);
    assert_ended(&b, "boot-point", "boot-point.sh", status, sig);
    let out = b.dir.join("out");
    assert!(listing(&out).is_empty(), "SIG{sig}: {:?}", listing(&out));
}

/// A box whose boot-point.sh (a point, or a suite's) has begun its boot,
/// which hangs; `how` changes the command first. The box and the script.
fn boot_point_booting(name: &str, suite: bool, how: impl FnOnce(&mut Command)) -> (Box, Child) {
    let mut b = Box::new(name);
    b.set("FAKE_QEMU_HANG", HANG);
    let out = b.dir.join("out");
    fs::create_dir(&out).unwrap();
    let kernel = b.dir.file("bzImage");
    fs::write(&kernel, "k").unwrap();
    let point = out.join("p.txt");
    let mut args = vec![
        "--kernel",
        &kernel,
        "-o",
        point.to_str().unwrap(),
        "--bin",
        BIN,
        "--timeout",
        HANG,
    ];
    if suite {
        args.extend(["--", "suite", "--profiles", "s0"]);
    }
    let mut c = b.command(&b.dir, "boot-point", "boot-point.sh", &args);
    how(&mut c);
    let child = c.spawn().expect("spawn boot-point.sh");
    wait_for("the boot", || b.boots() == 1);
    (b, child)
}

/// Set in the test process that the next test starts.
const SIGINT_IGNORED: &str = "URING_REPRO_TEST_SIGINT_IGNORED";
/// The next test, by name, for the test process it starts.
const CTRL_C_IGNORED_TEST: &str =
    "ctrl_c_stops_a_script_when_the_tests_started_with_sigint_ignored";

/// What a test hands a script does not depend on how `cargo test` was
/// started: from a test process that started with SIGINT ignored, as a
/// non-interactive shell starts a background job (`cargo test &` in a
/// script), Ctrl-C still ends boot-point.sh at once (130) and it leaves
/// nothing. This test, run again in such a process.
#[test]
fn ctrl_c_stops_a_script_when_the_tests_started_with_sigint_ignored() {
    if std::env::var_os(SIGINT_IGNORED).is_some() {
        assert!(sigint_ignored(), "this test process does not ignore SIGINT");
        boot_point_stops("INT", To::Group, false);
        return;
    }
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", CTRL_C_IGNORED_TEST, "--nocapture"])
        .env(SIGINT_IGNORED, "1");
    let o = ignoring_sigint(&mut c)
        .output()
        .expect("run this test again");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && out.contains("test result: ok. 1 passed;"),
        "with SIGINT ignored: {:?}\n{out}\n{err}",
        o.status
    );
}

/// A script that started with SIGINT ignored cannot trap it: Ctrl-C does
/// not stop it (nor QEMU), and it says nothing of it where its stderr is
/// not a terminal (a log); SIGTERM and SIGHUP still end it at once (130)
/// and it leaves nothing.
#[test]
fn a_script_started_with_sigint_ignored_still_stops_on_sigterm_and_sighup() {
    for sig in ["TERM", "HUP"] {
        let name = format!("sig-ignored-int-{sig}");
        let (b, mut child) = boot_point_booting(&name, false, |c| {
            ignoring_sigint(c);
        });
        let ok = Command::new("kill")
            .args(["-INT", "--", &format!("-{}", child.id())])
            .status()
            .unwrap();
        assert!(ok.success(), "kill -INT");
        std::thread::sleep(Duration::from_secs(1));
        let ended = child.try_wait().unwrap();
        let left = b.processes();
        if ended.is_some() || !left.iter().any(|p| p.contains(" sleep 600")) {
            let _ = (child.kill(), child.wait(), kill_all(&b));
            panic!("Ctrl-C stopped it: {ended:?}, left {left:?}");
        }
        let status = signal(&b, &mut child, sig, To::Script);
        assert_ended(&b, "boot-point", "boot-point.sh", status, sig);
        let err = fs::read_to_string(b.dir.join("boot-point.err")).unwrap();
        assert!(!err.contains("SIGINT ignored"), "on no terminal:\n{err}");
        let out = b.dir.join("out");
        assert!(listing(&out).is_empty(), "SIG{sig}: {:?}", listing(&out));
    }
}

/// The line a script that started with SIGINT ignored begins with, on a
/// terminal.
const CANNOT_TRAP: &str = "boot-point.sh: started with SIGINT ignored (a script's background \
    job?): Ctrl-C will not stop it; SIGTERM or SIGHUP will";

/// On a terminal (script(1)'s), a script that started with SIGINT ignored
/// says so, in one line; one that did not says nothing of it. Both boot
/// and write their point.
#[test]
fn a_script_started_with_sigint_ignored_says_so_on_a_terminal() {
    let b = Box::new("sig-ignored-tty");
    // `cmd` run by sh on script(1)'s terminal, in the box: what it showed.
    let tty = |cmd: &str| {
        let mut c = Command::new("script");
        let o = default_signals(&mut c)
            .args(["-qefc", cmd, "/dev/null"])
            .envs(b.env.iter().map(|(k, v)| (k, v)))
            .env("SHELL", "/bin/sh")
            .stdin(std::process::Stdio::null())
            .output()?;
        let seen = String::from_utf8_lossy(&o.stdout).replace("\r\n", "\n");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        Ok::<_, std::io::Error>((o.status, seen, err))
    };
    match tty("true") {
        Ok((status, _, _)) if status.success() => {}
        Ok((_, _, err)) => {
            return utils::skip(format!("script(1) gives no terminal here: {}", err.trim()));
        }
        Err(e) => return utils::skip(format!("script(1) cannot run: {e}")),
    }
    let kernel = b.dir.file("bzImage");
    fs::write(&kernel, "k").unwrap();
    for (ignored, first) in [(false, ""), (true, "trap '' INT; ")] {
        let point = b.dir.file(&format!("p-{ignored}.txt"));
        let cmd = format!(
            "{first}exec '{}' '{REPO}/scripts/boot-point.sh' --kernel '{kernel}' -o '{point}' \
             --bin '{BIN}'",
            shell()
        );
        let (status, seen, err) = tty(&cmd).unwrap();
        assert!(status.success(), "{cmd}: {status:?}\n{seen}{err}");
        assert!(Path::new(&point).exists(), "{cmd}: no point\n{seen}");
        let said: Vec<&str> = seen.lines().filter(|l| l.contains("SIGINT")).collect();
        let want = if ignored { vec![CANNOT_TRAP] } else { vec![] };
        assert_eq!(said, want, "{cmd}\n{seen}");
    }
}

/// bisect-step.sh stopped in its build (`build` hangs) or its boot.
fn bisect_step_stops(phase: &str, build: &str, hang_qemu: bool) {
    for (sig, to) in SIGNALS {
        let mut b = Box::new(&format!("sig-bisect-{phase}-{sig}"));
        if hang_qemu {
            b.set("FAKE_QEMU_HANG", HANG);
        }
        let tree = b.git_tree();
        let points = b.dir.join("points");
        let mut args = functional_step(build, points.to_str().unwrap());
        args.extend(["--timeout", HANG]);
        let mut child = b.start(&tree, "bisect-step", "bisect-step.sh", &args);
        if hang_qemu {
            wait_for("the boot", || b.boots() == 1);
        } else {
            wait_for("the build", || tree.join("building").exists());
        }
        let status = signal(&b, &mut child, sig, to);
        assert_ended(&b, "bisect-step", "bisect-step.sh", status, sig);
        // The build log is the step's evidence; no point, whole or partial.
        let left = listing(&points);
        assert!(
            left.iter().all(|f| f.ends_with(".build.log")),
            "SIG{sig}: {left:?}"
        );
    }
}

#[test]
fn bisect_step_stops_its_boot_and_leaves_nothing() {
    bisect_step_stops("boot", "echo k >vmlinuz", true);
}

#[test]
fn bisect_step_stops_its_build_and_leaves_nothing() {
    bisect_step_stops("build", "touch building; sleep 600; echo k >vmlinuz", false);
}

#[test]
fn build_kernel_stops_make_and_leaves_nothing() {
    for (sig, to) in SIGNALS {
        let mut b = Box::new(&format!("sig-build-{sig}"));
        if !b.build_tools() {
            return;
        }
        b.set("FAKE_BUILD_HANG", HANG);
        let src = b.dir.join("src");
        kernel_tree(&src);
        let obj = b.dir.join("obj");
        let fragment = utils::write(&b.dir, "frag.config", "CONFIG_A=y\n");
        let args = [
            "--src",
            src.to_str().unwrap(),
            "--objdir",
            obj.to_str().unwrap(),
            "--fragment",
            &fragment,
            "--jobs",
            "1",
        ];
        let mut child = b.start(&b.dir, "build-kernel", "build-kernel.sh", &args);
        wait_for("the build", || obj.join("building").exists());
        let status = signal(&b, &mut child, sig, to);
        assert_ended(&b, "build-kernel", "build-kernel.sh", status, sig);
        assert!(!Path::new(&obj.join("arch/x86/boot/bzImage")).exists());
    }
}

#[test]
fn lost_wakeup_stops_its_boot_and_leaves_nothing() {
    for (sig, to) in SIGNALS {
        let mut b = Box::new(&format!("sig-lost-wakeup-{sig}"));
        b.set("FAKE_QEMU_HANG", HANG);
        for img in ["poll.img", "parent.img"] {
            fs::write(b.dir.join(img), "k").unwrap();
        }
        let args = ["--bin", BIN, "--poll", "poll.img", "--parent", "parent.img"];
        let script = "tests/kernel/lost-wakeup.sh";
        let mut child = b.start(&b.dir, "lost-wakeup", script, &args);
        wait_for("the boot", || b.boots() == 1);
        let status = signal(&b, &mut child, sig, to);
        assert_ended(&b, "lost-wakeup", "lost-wakeup.sh", status, sig);
    }
}

/// ab.sh stopped while it builds or boots: no make,
/// no QEMU, no -o DIR and nothing beside it.
fn ab_stops(phase: &str) {
    for (sig, to) in SIGNALS {
        let mut b = Box::new(&format!("sig-ab-{phase}-{sig}"));
        if !b.build_tools() {
            return;
        }
        match phase {
            "build" => b.set("FAKE_BUILD_HANG", HANG),
            _ => b.set("FAKE_QEMU_HANG", HANG),
        }
        let (base, head) = (b.dir.join("base"), b.dir.join("head"));
        make_tree(&base, &[("a.c", "a\n")]);
        make_tree(&head, &[("a.c", "b\n")]);
        let out = b.dir.join("out");
        fs::create_dir(&out).unwrap();
        let cache = b.dir.file("cache");
        let dir = out.join("ab");
        let args = [
            "--base-src",
            base.to_str().unwrap(),
            "--head-src",
            head.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
            "--cache",
            &cache,
            "--bin",
            BIN,
            "--no-cost",
            "--profiles",
            "s0",
            "--timeout",
            HANG,
        ];
        let mut child = b.start(&b.dir, "ab", "ab.sh", &args);
        let building = b.dir.join("cache/slot-0/tree/.uring-repro-obj/building");
        match phase {
            "build" => wait_for("the build", || building.exists()),
            _ => wait_for("the boot", || b.boots() == 1),
        }
        let status = signal(&b, &mut child, sig, to);
        assert_ended(&b, "ab", "ab.sh", status, sig);
        assert!(listing(&out).is_empty(), "SIG{sig}: {:?}", listing(&out));
    }
}

#[test]
fn ab_stops_its_builds_and_leaves_nothing() {
    ab_stops("build");
}

#[test]
fn ab_stops_its_boots_and_leaves_nothing() {
    ab_stops("boot");
}
