//! What tests/scripts.rs and tests/bisect_step.rs share: a scratch
//! directory with a stand-in `qemu-system-x86_64` (a shell script written
//! here) that logs its argv, answers the accelerator probe and "boots" by
//! printing a console with a real point from a 6.12 guest
//! (tests/fixtures/witnessed/a.txt), and the scripts run by dash when it is
//! installed (they are POSIX sh).

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use crate::utils::{skip, Run, Scratch, BIN};

pub const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The stand-in QEMU. `--version` and the `-M none` probe answer as QEMU
/// does (the probe fails like a QEMU built without TCG when
/// FAKE_QEMU_NO_TCG is set); anything else is a boot: its argv, one `[word]`
/// each, is logged, FAKE_QEMU_CREATE (if set) is created as if by someone
/// else meanwhile, and the console is a kernel line, FAKE_QEMU_REPORT with
/// CRs, and the verdict line.
pub const FAKE_QEMU: &str = r#"#!/bin/sh
log=${FAKE_QEMU_LOG:?}
case " $* " in
*" --version "*)
	echo "QEMU emulator version 7.2.99 (stand-in)"
	exit 0
	;;
*" -M none "*)
	echo "probe: $*" >>"$log"
	cat >/dev/null
	if [ -n "${FAKE_QEMU_NO_TCG:-}" ]; then
		echo "qemu-system-x86_64: -accel tcg,thread=single: invalid accelerator tcg" >&2
		exit 1
	fi
	exit 0
	;;
esac
printf 'boot:' >>"$log"
for a in "$@"; do printf ' [%s]' "$a" >>"$log"; done
echo >>"$log"
[ -z "${FAKE_QEMU_CREATE:-}" ] || echo "made meanwhile" >"$FAKE_QEMU_CREATE"
printf '[    0.000000] Linux version 6.12.117 (stand-in)\r\n'
sed 's/$/\r/' "${FAKE_QEMU_REPORT:?}"
printf 'uring-repro: exit 0\r\n'
"#;

/// A scratch directory with the stand-in QEMU in `bin/`, its log, and the
/// report it prints.
pub struct Box {
    pub dir: Scratch,
    pub env: Vec<(String, String)>,
}

impl Box {
    pub fn new(name: &str) -> Box {
        let dir = Scratch::new(&format!("scripts-{name}"));
        let bin = dir.join("bin");
        fs::create_dir(&bin).unwrap();
        let qemu = bin.join("qemu-system-x86_64");
        fs::write(&qemu, FAKE_QEMU).unwrap();
        chmod_x(&qemu);
        let report = dir.file("report.txt");
        let a = fs::read_to_string(format!("{REPO}/tests/fixtures/witnessed/a.txt")).unwrap();
        fs::write(&report, a).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let env = vec![
            ("PATH".into(), path),
            ("FAKE_QEMU_LOG".into(), dir.file("qemu.log")),
            ("FAKE_QEMU_REPORT".into(), report),
        ];
        Box { dir, env }
    }

    /// The report as an icount run prints it: `timebase=icount` on its
    /// banner, right after `clock=`.
    pub fn icount_report(&self) {
        let report = self.dir.join("report.txt");
        let text = fs::read_to_string(&report).unwrap();
        let text = text.replacen(" clock=vdso", " clock=vdso timebase=icount", 1);
        fs::write(&report, text).unwrap();
    }

    pub fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    /// PATH without any qemu-system-*: a directory of links to everything
    /// else on it.
    pub fn without_qemu(&mut self) {
        let dir = self.dir.join("noqemu");
        fs::create_dir(&dir).unwrap();
        for d in std::env::var("PATH").unwrap().split(':') {
            let Ok(entries) = fs::read_dir(d) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                let n = name.to_string_lossy();
                if !n.starts_with("qemu-system-") && !dir.join(&name).exists() {
                    symlink(e.path(), dir.join(&name)).unwrap();
                }
            }
        }
        self.set("PATH", dir.to_str().unwrap());
    }

    /// What the stand-in QEMU was asked to do: its log's lines.
    pub fn qemu_log(&self) -> String {
        fs::read_to_string(self.dir.join("qemu.log")).unwrap_or_default()
    }

    pub fn boots(&self) -> usize {
        self.qemu_log()
            .lines()
            .filter(|l| l.starts_with("boot:"))
            .count()
    }

    /// `script` (under scripts/) with `args`, run by dash if there is one,
    /// in `cwd`, to its end; optionally wrapped by `wrap` (argv prefix).
    pub fn run_in(&self, cwd: &Path, wrap: &[&str], script: &str, args: &[&str]) -> Run {
        let sh = if Path::new("/bin/dash").exists() {
            "/bin/dash"
        } else {
            "/bin/sh"
        };
        let path = format!("{REPO}/scripts/{script}");
        let mut argv: Vec<&str> = wrap.to_vec();
        argv.extend([sh, path.as_str()]);
        argv.extend(args);
        Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("spawn the script")
            .into()
    }

    pub fn run(&self, script: &str, args: &[&str]) -> Run {
        self.run_in(&self.dir, &[], script, args)
    }

    /// boot-point.sh with the binary of this build, a kernel that need not
    /// be one (the stand-in never reads it), and `args`.
    pub fn boot_point(&self, args: &[&str]) -> Run {
        let kernel = self.dir.file("bzImage");
        fs::write(&kernel, "not read by the stand-in").unwrap();
        let mut a = vec!["--kernel", &kernel, "--bin", BIN];
        a.extend(args);
        self.run("boot-point.sh", &a)
    }
}

pub fn chmod_x(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The files of `dir`, hidden ones too, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The argv prefix that runs a command in a private mount namespace whose
/// `dir` is a tmpfs filled to the last byte (a full disk), and writes
/// `ls -A dir` to `seen` before the namespace goes; None (after a skip) when
/// this box can mount no tmpfs (it needs root or user namespaces).
pub fn on_full_disk(dir: &str, seen: &str) -> Option<Vec<String>> {
    const FILL: &str = r#"d=$1 seen=$2; shift 2
mount -t tmpfs -o size=16k uring-repro-full "$d" || exit 99
dd if=/dev/zero of="$d/filler" bs=4096 2>/dev/null
rc=0; "$@" || rc=$?
ls -A "$d" >"$seen"
exit $rc"#;
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let unshare: &[&str] = if root {
        &["unshare", "-m", "--propagation", "private"]
    } else {
        &["unshare", "-r", "-m", "--propagation", "private"]
    };
    let probe = Command::new(unshare[0])
        .args(&unshare[1..])
        .args(["sh", "-c", "mount -t tmpfs t /mnt"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        skip("cannot mount a tmpfs in a private mount namespace here (needs root or user namespaces): the full-disk cases are untested");
        return None;
    }
    let mut v: Vec<String> = unshare.iter().map(|s| s.to_string()).collect();
    v.extend(["sh", "-c", FILL, "sh", dir, seen].map(String::from));
    Some(v)
}

// boot-point.sh --accel icount
