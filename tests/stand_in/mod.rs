//! What the tests of the scripts share (tests/scripts.rs, bisect_step.rs,
//! script_options.rs, script_signals.rs): a scratch directory with a
//! stand-in `qemu-system-x86_64` (a shell script written here) that logs its
//! argv, answers the accelerator probe and "boots" by printing a console
//! with a real point from a 6.12 guest (tests/fixtures/witnessed/a.txt), or
//! hangs; a stand-in kernel tree whose "build" is instant; the scripts run by
//! dash when it is installed (they are POSIX sh); and what a script left
//! behind: its processes, found by this box's mark in their environment.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

pub mod ab;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::utils::signals::default_signals;
use crate::utils::{skip, Run, Scratch, BIN};

pub const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The stand-in QEMU. `--version` and the `-M none` probe answer as QEMU
/// does (the probe fails like a QEMU built without TCG when
/// FAKE_QEMU_NO_TCG is set); anything else is a boot: its argv, one `[word]`
/// each, is logged, FAKE_QEMU_CREATE (if set) is created as if by someone
/// else meanwhile, and the console is a kernel line, then (FAKE_QEMU_HANG
/// set) nothing more for that many seconds, one process as QEMU is, or the
/// report and the verdict line: FAKE_QEMU_REPORT with CRs, or, when
/// FAKE_QEMU_REPORTS names a directory, its file named as the kernel image
/// is. With FAKE_QEMU_CONSOLES (a directory) the whole console is its file
/// named by the image's first line (`console=NAME`), the verdict line
/// included, every boot_id in it a fresh one (each boot is one). Where the
/// initramfs (`-initrd`) has the file `uring-repro.boot_id` (boot-point.sh
/// gives every boot one), every boot_id printed is the ID it holds, as
/// /init states it, and the logged boot line ends with `{boot_id=ID}`.
/// The cost counter (`-plugin`): its probe (`-machine none`) says the
/// plugin is accepted; a boot with it and FAKE_QEMU_COUNTS (a directory)
/// writes the plugin's `out=` as the counter would: its header, map line
/// (the plugin's `map_sha256=`) and events line (its `events=`), then the
/// file named as the console, each `@events K` line an `event K 0 NAME`
/// line per event.
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
*" -machine none "*)
	echo "probe: $*" >>"$log"
	echo "uring-repro cost plugin: probe: accepted (stand-in)" >&2
	exit 1
	;;
esac
# The boot's identity in the initramfs: the newc entry uring-repro.boot_id (its header, 110
# hex digits after the magic, then its name), whose data is the first line after the NULs.
host_id="" initrd=""
prev=""
for a in "$@"; do
	[ "$prev" != -initrd ] || initrd=$a
	prev=$a
done
if [ -n "$initrd" ] && [ -f "$initrd" ]; then
	host_id=$(tr '\000' '\n' <"$initrd" | awk '
		/^070701[0-9A-Fa-f]+uring-repro\.boot_id$/ { found = 1; next }
		found && NF { print; exit }')
fi
# One write a line: boots at once do not mix their lines.
line=boot:
for a in "$@"; do line="$line [$a]"; done
[ -z "$host_id" ] || line="$line {boot_id=$host_id}"
printf '%s\n' "$line" >>"$log"
[ -z "${FAKE_QEMU_CREATE:-}" ] || echo "made meanwhile" >"$FAKE_QEMU_CREATE"
plugin="" image="" prev=""
for a in "$@"; do
	[ "$prev" != -plugin ] || plugin=$a
	[ "$prev" != -kernel ] || image=$a
	prev=$a
done
if [ -n "$plugin" ] && [ -n "${FAKE_QEMU_COUNTS:-}" ]; then
	out="" map="" sha="" events=""
	set -f
	old_ifs=$IFS IFS=,
	for w in $plugin; do
		case $w in
		out=*) out=${w#out=} ;;
		map=*) map=${w#map=} ;;
		map_sha256=*) sha=${w#map_sha256=} ;;
		events=*) events=${w#events=} ;;
		esac
	done
	IFS=$old_ifs
	set +f
	{
		echo '# uring-repro cost counts format=3: qemu plugin api 1 (qemu accepts 0..1), target x86_64, locked=x86-lock'
		echo "map sha256=$sha addresses=1 functions=2 path=$map"
		echo "events watched=${events:--} missing=-"
		awk -v ev="$events" '$1 == "@events" { n = split(ev, e, ":"); for (i = 1; i <= n; i++) print "event " $2 " 0 " e[i]; next } { print }' \
			"$FAKE_QEMU_COUNTS/$(sed -n '1s/^console=//p' "$image")"
	} >"$out"
fi
printf '[    0.000000] Linux version 6.12.117 (stand-in)\r\n'
[ -z "${FAKE_QEMU_HANG:-}" ] || exec sleep "$FAKE_QEMU_HANG"
if [ -n "${FAKE_QEMU_CONSOLES:-}" ]; then
	while [ $# -gt 0 ] && [ "$1" != -kernel ]; do shift; done
	key=$(sed -n '1s/^console=//p' "$2")
	id=${host_id:-$(cat /proc/sys/kernel/random/uuid)}
	exec sed "s/boot_id=[0-9a-f-]*/boot_id=$id/; s/\$/\r/" "$FAKE_QEMU_CONSOLES/$key"
fi
report=${FAKE_QEMU_REPORT:?}
if [ -n "${FAKE_QEMU_REPORTS:-}" ]; then
	while [ $# -gt 0 ] && [ "$1" != -kernel ]; do shift; done
	report=$FAKE_QEMU_REPORTS/${2##*/}
fi
if [ -n "$host_id" ]; then
	sed "s/boot_id=[0-9a-f-]*/boot_id=$host_id/; s/\$/\r/" "$report"
else
	sed 's/$/\r/' "$report"
fi
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
        // The scripts' own temporary files go here, where a test sees them.
        fs::create_dir(dir.join("tmp")).unwrap();
        let env = vec![
            ("PATH".into(), path),
            ("FAKE_QEMU_LOG".into(), dir.file("qemu.log")),
            ("FAKE_QEMU_REPORT".into(), report),
            ("TMPDIR".into(), dir.file("tmp")),
        ];
        Box { dir, env }
    }

    /// The processes this box's scripts left running: every process whose
    /// environment holds this box's FAKE_QEMU_LOG (the scripts, their
    /// guardians, timeout, setpriv and the stand-in QEMU all inherit it),
    /// as "PID COMMAND" lines.
    pub fn processes(&self) -> Vec<String> {
        let mark = format!("FAKE_QEMU_LOG={}", self.dir.file("qemu.log"));
        let mut found = Vec::new();
        for e in fs::read_dir("/proc").unwrap().flatten() {
            let pid = e.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
                continue;
            }
            let Ok(env) = fs::read(e.path().join("environ")) else {
                continue;
            };
            if env.split(|&b| b == 0).any(|v| v == mark.as_bytes()) {
                let cmd = fs::read(e.path().join("cmdline")).unwrap_or_default();
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                found.push(format!("{pid} {cmd}"));
            }
        }
        found
    }

    /// What is left in the scripts' TMPDIR.
    pub fn temp_files(&self) -> Vec<String> {
        listing(&self.dir.join("tmp"))
    }

    /// `script` (as run_in takes it) with `args` started in `cwd` as a
    /// terminal's shell starts a foreground job: in a process group of its
    /// own, the signals a test sends at their defaults, whatever this test
    /// process inherited (signals::default_signals); stdout and stderr to
    /// files of the box (`NAME.out`, `NAME.err`).
    pub fn start(&self, cwd: &Path, name: &str, script: &str, args: &[&str]) -> Child {
        self.command(cwd, name, script, args)
            .spawn()
            .expect("spawn the script")
    }

    /// What `start` spawns, to change before it does.
    pub fn command(&self, cwd: &Path, name: &str, script: &str, args: &[&str]) -> Command {
        use std::os::unix::process::CommandExt;
        let out = fs::File::create(self.dir.join(format!("{name}.out"))).unwrap();
        let err = fs::File::create(self.dir.join(format!("{name}.err"))).unwrap();
        let (sh, path) = script_argv(script);
        let mut c = Command::new(sh);
        default_signals(&mut c)
            .arg(path)
            .args(args)
            .current_dir(cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        c
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

    /// A git tree of one empty commit, `tree/` in the box.
    pub fn git_tree(&self) -> PathBuf {
        let tree = self.dir.join("tree");
        fs::create_dir(&tree).unwrap();
        for args in [
            &["init", "-q"][..],
            &["commit", "-q", "--allow-empty", "-m", "one"],
        ] {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
                .args(args)
                .current_dir(&tree)
                .status()
                .unwrap();
            assert!(ok.success(), "git {args:?}");
        }
        tree
    }

    /// What build-kernel.sh asks for on PATH: stubs in `bin/` for those
    /// this machine lacks (the stand-in tree's build runs none of them);
    /// false, after a skip, without make, which it does run.
    pub fn build_tools(&self) -> bool {
        let path = &self.env.iter().find(|(k, _)| k == "PATH").unwrap().1;
        let has = |tool: &str| {
            Command::new("sh")
                .args(["-c", &format!("command -v {tool} >/dev/null")])
                .env("PATH", path)
                .status()
                .unwrap()
                .success()
        };
        if !has("make") {
            crate::utils::skip("make is missing: build-kernel.sh is untested here");
            return false;
        }
        for tool in ["gcc", "flex", "bison", "bc"] {
            if !has(tool) {
                let stub = self.dir.join("bin").join(tool);
                fs::write(&stub, "#!/bin/sh\nexit 1\n").unwrap();
                chmod_x(&stub);
            }
        }
        true
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

    /// `script` (script_argv) with `args`, in `cwd`, to its end; optionally
    /// wrapped by `wrap` (argv prefix).
    pub fn run_in(&self, cwd: &Path, wrap: &[&str], script: &str, args: &[&str]) -> Run {
        let (sh, path) = script_argv(script);
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

    /// The line a point made by `boot_point` ends with: the SHA-256 of its
    /// kernel image.
    pub fn image_line(&self) -> String {
        let sha = crate::utils::sha256sum(BOOT_POINT_IMAGE.as_bytes());
        format!("# kernel_image_sha256={sha}\n")
    }

    /// boot-point.sh with the binary of this build, a kernel that need not
    /// be one (the stand-in never reads it), and `args`.
    pub fn boot_point(&self, args: &[&str]) -> Run {
        let kernel = self.dir.file("bzImage");
        fs::write(&kernel, BOOT_POINT_IMAGE).unwrap();
        let mut a = vec!["--kernel", &kernel, "--bin", BIN];
        a.extend(args);
        self.run("boot-point.sh", &a)
    }
}

/// The kernel image `Box::boot_point` boots.
const BOOT_POINT_IMAGE: &str = "not read by the stand-in";

/// The shell and the path that run `script`: a bare name is one of
/// scripts/, run by dash if there is one; a path (`tests/kernel/run.sh`) is
/// a test script, run by bash.
fn script_argv(script: &str) -> (&'static str, String) {
    match script.contains('/') {
        true => ("bash", format!("{REPO}/{script}")),
        false => (shell(), format!("{REPO}/scripts/{script}")),
    }
}

/// The shell the scripts run under: dash where there is one (they are
/// POSIX sh, and dash holds them to it).
pub fn shell() -> &'static str {
    if Path::new("/bin/dash").exists() {
        "/bin/dash"
    } else {
        "/bin/sh"
    }
}

/// A stand-in kernel tree in `dir`: what build-kernel.sh checks (a top
/// Makefile with VERSION and PATCHLEVEL, scripts/kconfig/merge_config.sh,
/// arch/x86) and a Makefile whose targets do at once what kbuild's do:
/// tinyconfig makes an empty .config in O=, merge_config.sh appends the
/// fragment to it (reading it from its own directory, the objdir, as the
/// real one does), bzImage writes an image (or, with FAKE_BUILD_HANG set,
/// marks O=/building and hangs that many seconds).
pub fn kernel_tree(dir: &Path) {
    const MAKEFILE: &str = "VERSION = 6\nPATCHLEVEL = 12\n\
        tinyconfig:\n\tmkdir -p $(O) && : >$(O)/.config\n\
        olddefconfig:\n\t@:\n\
        bzImage:\n\
        \t@if [ -n \"$$FAKE_BUILD_HANG\" ]; then : >$(O)/building; exec sleep $$FAKE_BUILD_HANG; fi\n\
        \tmkdir -p $(O)/arch/x86/boot && echo stand-in >$(O)/arch/x86/boot/bzImage\n";
    const MERGE: &str = "#!/bin/sh\n# merge_config.sh -m -O DIR BASE FRAGMENT...\nshift 3\nbase=$1\nshift\ncat \"$@\" >>\"$base\"\n";
    fs::create_dir_all(dir.join("scripts/kconfig")).unwrap();
    fs::create_dir_all(dir.join("arch/x86")).unwrap();
    fs::write(dir.join("Makefile"), MAKEFILE).unwrap();
    fs::write(dir.join("scripts/kconfig/merge_config.sh"), MERGE).unwrap();
}

/// A stand-in kernel tree whose build follows make's rule as kbuild's does:
/// each `*.c` file is an object in O= (copied; `CC FILE` appended to
/// O=/cc.log when it is made), rebuilt when the file is newer than it; the
/// image is the objects in order (so its first line, `console=NAME` in
/// `a.c`, names the console FAKE_QEMU_CONSOLES prints), System.map beside
/// it. `files` are the tree's `.c` files, name and text.
pub fn make_tree(dir: &Path, files: &[(&str, &str)]) {
    const MAKEFILE: &str = "VERSION = 6\nPATCHLEVEL = 12\n\
        OBJS := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard *.c)))\n\
        tinyconfig:\n\tmkdir -p $(O) && : >$(O)/.config\n\
        olddefconfig:\n\t@:\n\
        $(O)/%.o: %.c\n\t@echo 'CC $<' >>$(O)/cc.log; cp $< $@\n\
        bzImage: $(OBJS)\n\
        \t@if [ -n \"$$FAKE_BUILD_HANG\" ]; then : >$(O)/building; exec sleep $$FAKE_BUILD_HANG; fi\n\
        \t@if [ -e fail.c ]; then echo 'fail.c:1: error: a stand-in failure' >&2; exit 2; fi\n\
        \tmkdir -p $(O)/arch/x86/boot && cat $(OBJS) >$(O)/arch/x86/boot/bzImage\n\
        \techo 'ffffffff81000000 T _stext' >$(O)/System.map\n";
    kernel_tree(dir);
    fs::write(dir.join("Makefile"), MAKEFILE).unwrap();
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
}

/// A point of tests/fixtures/kernel as the guest printed it: without the
/// lines boot-point.sh adds (`# boot=`, `# cost:`).
pub fn guest_point(name: &str) -> String {
    let text = fs::read_to_string(format!("{REPO}/tests/fixtures/kernel/{name}.txt")).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("# boot=") && !l.starts_with("# cost: "))
        .collect();
    kept.join("\n") + "\n"
}

/// A suite's console: a kernel line, then each item (its label and the
/// fixture point it prints, or None: skipped), the lines per item and the
/// verdict line.
pub fn suite_console(items: &[(&str, Option<&str>)]) -> String {
    let n = items.len();
    let mut c = String::from("[    0.000000] Linux version 6.12.117 (stand-in)\n");
    for (k, (label, point)) in items.iter().enumerate() {
        c += &format!("# suite: {}/{n} {label}\n", k + 1);
        if let Some(p) = point {
            c += &guest_point(p);
        }
    }
    let mut skipped = 0;
    for (k, (label, point)) in items.iter().enumerate() {
        let end = match point {
            Some(_) => "exit=0 pass".to_string(),
            None => {
                skipped += 1;
                "exit=4 skip: kernel lacks IORING_OP_NOP (0) (stand-in)".to_string()
            }
        };
        c += &format!("# suite: {}/{n} {label} {end}\n", k + 1);
    }
    c += &format!(
        "# suite: items={n} passed={} failed=0 skipped={skipped} interrupted=0 not_run=0 exit=0\n",
        n - skipped
    );
    c + "uring-repro: exit 0\n"
}

/// bisect-step.sh's arguments for a functional step (no references): the
/// tree's `build` leaves the image `vmlinuz`, the points go to `points`, this
/// build's binary boots.
pub fn functional_step<'a>(build: &'a str, points: &'a str) -> Vec<&'a str> {
    vec![
        "--functional",
        "--build",
        build,
        "--image",
        "vmlinuz",
        "--points",
        points,
        "--bin",
        BIN,
    ]
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
    const FILL: &str = r#"mount -t tmpfs -o size=16k uring-repro-full "$d" || exit 99
dd if=/dev/zero of="$d/filler" bs=4096 2>/dev/null"#;
    in_mount_namespace(
        FILL,
        "mount -t tmpfs t /mnt",
        dir,
        seen,
        "the full-disk cases",
    )
}

/// The same with `dir` bind-mounted read-only.
pub fn on_read_only(dir: &str, seen: &str) -> Option<Vec<String>> {
    const RO: &str = r#"mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" "$d" || exit 99"#;
    in_mount_namespace(
        RO,
        "mount --bind /tmp /mnt",
        dir,
        seen,
        "the read-only cases",
    )
}

/// The argv prefix that runs a command in a private mount namespace after
/// `setup` (sh, `$d` the directory `dir`), then writes `ls -A dir` to
/// `seen`; None, after a skip naming `untested`, when `probe` cannot run in
/// such a namespace here (it needs root or user namespaces).
fn in_mount_namespace(
    setup: &str,
    probe: &str,
    dir: &str,
    seen: &str,
    untested: &str,
) -> Option<Vec<String>> {
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let unshare: &[&str] = if root {
        &["unshare", "-m", "--propagation", "private"]
    } else {
        &["unshare", "-r", "-m", "--propagation", "private"]
    };
    let ok = Command::new(unshare[0])
        .args(&unshare[1..])
        .args(["sh", "-c", probe])
        .status();
    if !ok.is_ok_and(|s| s.success()) {
        skip(format!("`{probe}` fails in a private mount namespace here (it needs root or user namespaces): {untested} are untested"));
        return None;
    }
    let script = format!(
        "d=$1 seen=$2; shift 2\n{setup}\nrc=0; \"$@\" || rc=$?\nls -A \"$d\" >\"$seen\"\nexit $rc"
    );
    let mut v: Vec<String> = unshare.iter().map(|s| s.to_string()).collect();
    v.extend(["sh", "-c", &script, "sh", dir, seen].map(String::from));
    Some(v)
}

// boot-point.sh --accel icount
