//! How the scripts read their options (scripts/common.sh's opt_value, one
//! helper for every script): each check refusing what it must, under dash
//! and bash alike; and every path option of every script taken from the
//! directory the script was started in, whatever directory it works in
//! later. The path options are read from each script's --help, so an option
//! added later without a case here fails the test.

mod stand_in;
mod utils;

use stand_in::*;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use utils::BIN;

/// `opt_value v CHECK --opt VALUE` sourced from common.sh under `sh`: its
/// exit code and what it printed (the value on success, the message else).
fn opt_value(sh: &str, check: &str, value: &str, cwd: &Path) -> (i32, String) {
    let script = format!(
        "PROG=t; . '{REPO}/scripts/common.sh'; opt_value v {check} --opt \"$1\"; printf '%s' \"$v\""
    );
    let o = Command::new(sh)
        .args(["-c", &script, "t", value])
        .current_dir(cwd)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap(), text)
}

#[test]
fn every_value_check_refuses_what_it_must_in_dash_and_bash() {
    let b = Box::new("opt-value");
    let here = b.dir.to_str().unwrap();
    fs::write(b.dir.join("a-file"), "x").unwrap();
    fs::create_dir(b.dir.join("a-dir")).unwrap();
    let ok = |v: &str| (0, v.to_string());
    let refused = |m: &str| (2, format!("t: --opt: {m} (try --help)\n"));
    let cases: Vec<(&str, &str, (i32, String))> = vec![
        ("text", "", ok("")),
        ("text", "a b", ok("a b")),
        ("text", "a\nb", refused("a newline in a value")),
        ("positive", "1", ok("1")),
        ("positive", "999999999", ok("999999999")),
        ("positive", "0", refused("a positive number, not '0'")),
        ("positive", "07", refused("a positive number, not '07'")),
        ("positive", "5m", refused("a positive number, not '5m'")),
        ("positive", "-1", refused("a positive number, not '-1'")),
        ("positive", "", refused("a positive number, not ''")),
        (
            "positive",
            "1000000000",
            refused("a positive number, not '1000000000'"),
        ),
        ("path", "x/y", ok(&format!("{here}/x/y"))),
        ("path", "./x", ok(&format!("{here}/x"))),
        ("path", ".", ok(here)),
        ("path", "/abs", ok("/abs")),
        ("path", "", refused("an empty path")),
        ("file", "a-file", ok(&format!("{here}/a-file"))),
        (
            "file",
            "a-dir",
            refused(&format!("not a readable file: {here}/a-dir")),
        ),
        (
            "file",
            "none",
            refused(&format!("not a readable file: {here}/none")),
        ),
        (
            "exe",
            "a-file",
            refused(&format!("not an executable file: {here}/a-file")),
        ),
        ("dir", "a-dir", ok(&format!("{here}/a-dir"))),
        (
            "dir",
            "a-file",
            refused(&format!("not a directory: {here}/a-file")),
        ),
        ("new_dir", "a-dir", ok(&format!("{here}/a-dir"))),
        ("new_dir", "new/deeper", ok(&format!("{here}/new/deeper"))),
        (
            "new_dir",
            "a-file/x",
            refused(&format!("not a directory: {here}/a-file")),
        ),
        ("new_file", "new.txt", ok(&format!("{here}/new.txt"))),
        (
            "new_file",
            "a-file",
            refused(&format!("{here}/a-file exists (never overwritten)")),
        ),
        (
            "new_file",
            "a-dir/",
            refused(&format!("{here}/a-dir/ exists (never overwritten)")),
        ),
        (
            "new_file",
            "none/p.txt",
            refused(&format!("no such directory: {here}/none")),
        ),
    ];
    for sh in [shell(), "bash"] {
        for (check, value, want) in &cases {
            let got = opt_value(sh, check, value, &b.dir);
            assert_eq!(&got, want, "{sh}: {check} {value:?}");
        }
        // No value at all.
        let o = Command::new(sh)
            .args([
                "-c",
                &format!(". '{REPO}/scripts/common.sh'; PROG=t; opt_value v text --opt"),
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "t: --opt: needs a value (try --help)\n"
        );
    }
    // Nothing was made by a check (new_dir is made by make_dir, later).
    assert!(!b.dir.join("new").exists());
}

/// The options of `help` (a --help text) whose value is a path: those
/// followed by IMAGE, POINT, PATH, FILE, DIR, MAP or SYSTEM.MAP.
fn path_options(help: &str) -> BTreeSet<String> {
    const META: [&str; 7] = ["IMAGE", "POINT", "PATH", "FILE", "DIR", "MAP", "SYSTEM.MAP"];
    let words: Vec<&str> = help
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c| "[]()".contains(c))
                .trim_end_matches("...")
        })
        .collect();
    words
        .windows(2)
        .filter(|w| w[0].starts_with('-') && META.contains(&w[1]))
        .map(|w| w[0].to_string())
        .collect()
}

/// What a relative value must give: `refused` names the resolved path.
struct Case {
    option: &'static str,
    /// Relative to the directory the script is started in.
    value: &'static str,
    /// What comes before the absolute path in the message.
    says: &'static str,
    /// What the message names: `value` or a part of it (where the check stops).
    names: &'static str,
    extra: &'static [&'static str],
}

const fn case(
    option: &'static str,
    value: &'static str,
    says: &'static str,
    names: &'static str,
) -> Case {
    Case {
        option,
        value,
        says,
        names,
        extra: &[],
    }
}

const NO_FILE: &str = "not a readable file: ";
const NO_EXE: &str = "not an executable file: ";
const NO_DIR: &str = "not a directory: ";

/// Every path option of every script, each given a relative value its check
/// refuses: the message names the absolute path, proof that the value was
/// taken from the starting directory as it was read (before the script
/// moves anywhere). bisect-step's paths in the tree are the tree's, from its
/// top (tested below).
#[test]
fn every_path_option_of_every_script_is_taken_from_where_it_starts() {
    let scripts: [(&str, i32, Vec<Case>, &[&str]); 7] = [
        (
            "boot-point.sh",
            2,
            vec![
                Case {
                    extra: &["-o", "out.txt"],
                    ..case("--kernel", "rel/none", NO_FILE, "rel/none")
                },
                case("-o", "rel/none/p.txt", "no such directory: ", "rel/none"),
                case("--bin", "rel/none", NO_EXE, "rel/none"),
                case("--host-bin", "rel/none", NO_EXE, "rel/none"),
                case("--cost", "rel/none", NO_FILE, "rel/none"),
            ],
            &[],
        ),
        (
            "bisect-step.sh",
            128,
            vec![
                case("--good", "rel/none", NO_FILE, "rel/none"),
                case("--bad", "rel/none", NO_FILE, "rel/none"),
                case("--points", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--bin", "rel/none", NO_EXE, "rel/none"),
            ],
            &["--image", "--options-from", "--append-from"],
        ),
        (
            "build-kernel.sh",
            2,
            vec![
                case("--src", "rel/none", NO_DIR, "rel/none"),
                case("--objdir", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--fragment", "rel/none", NO_FILE, "rel/none"),
            ],
            &[],
        ),
        (
            "ab.sh",
            2,
            vec![
                case("--tree", "rel/none", NO_DIR, "rel/none"),
                case("--patch", "rel/none", NO_FILE, "rel/none"),
                case("--base-src", "rel/none", NO_DIR, "rel/none"),
                case("--head-src", "rel/none", NO_DIR, "rel/none"),
                case("-o", "rel/none/x", "no such directory: ", "rel/none"),
                case("--cache", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--bin", "rel/none", NO_EXE, "rel/none"),
            ],
            &[],
        ),
        (
            "tests/kernel/lost-wakeup.sh",
            2,
            vec![
                case("--bin", "rel/none", NO_EXE, "rel/none"),
                case("--poll", "rel/none", NO_FILE, "rel/none"),
                case("--parent", "rel/none", NO_FILE, "rel/none"),
                case("--barrier", "rel/none", NO_FILE, "rel/none"),
                case("--keep", "rel/a-file/x", NO_DIR, "rel/a-file"),
            ],
            &[],
        ),
        (
            "tests/kernel/run.sh",
            2,
            vec![
                case("--bin", "rel/none", NO_EXE, "rel/none"),
                case("--cache", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--keep", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--fixtures", "rel/a-file/x", NO_DIR, "rel/a-file"),
            ],
            &[],
        ),
        (
            "tests/boot/run.sh",
            2,
            vec![
                case("--bin-x86_64", "rel/none", NO_FILE, "rel/none"),
                case("--bin-aarch64", "rel/none", NO_FILE, "rel/none"),
                case("--bin-riscv64", "rel/none", NO_FILE, "rel/none"),
                case("--keep", "rel/a-file/x", NO_DIR, "rel/a-file"),
                case("--cache", "rel/a-file/x", NO_DIR, "rel/a-file"),
            ],
            &[],
        ),
    ];
    let b = Box::new("relative-refused");
    let here = b.dir.join("here");
    fs::create_dir_all(here.join("rel")).unwrap();
    fs::write(here.join("rel/a-file"), "x").unwrap();
    for (script, usage, cases, in_tree) in &scripts {
        let help = b.run_in(&here, &[], script, &["--help"]);
        assert_eq!(help.code, 0, "{script} --help: {}", help.err);
        let listed = path_options(&help.out);
        let covered: BTreeSet<String> = cases
            .iter()
            .map(|c| c.option.to_string())
            .chain(in_tree.iter().map(|o| o.to_string()))
            .collect();
        assert_eq!(
            listed, covered,
            "{script}: its --help's path options, and this test's"
        );
        for c in cases {
            let mut args = c.extra.to_vec();
            args.extend([c.option, c.value]);
            let r = b.run_in(&here, &[], script, &args);
            let want = format!("{}: {}{}/{}", c.option, c.says, here.display(), c.names);
            assert_eq!(r.code, *usage, "{script} {args:?}: {}", r.err);
            assert!(
                r.err.contains(&want),
                "{script} {args:?}: no {want:?} in {}",
                r.err
            );
        }
    }
}

/// A build of the stand-in tree `src` into `obj` with the fragment
/// `frag.config`, every path relative to where build-kernel.sh starts.
const RELATIVE_BUILD: [&str; 8] = [
    "--src",
    "src",
    "--objdir",
    "obj",
    "--fragment",
    "frag.config",
    "--jobs",
    "1",
];

/// build-kernel.sh with every path relative, started elsewhere than the
/// tree: it changes into the objdir to merge the fragment, where a relative
/// fragment named nothing (every build failed, so a bisect skipped every
/// commit).
#[test]
fn build_kernel_takes_relative_paths_from_where_it_starts() {
    let b = Box::new("build-relative");
    if !b.build_tools() {
        return;
    }
    kernel_tree(&b.dir.join("src"));
    fs::write(b.dir.join("frag.config"), "CONFIG_URING_REPRO_TEST=y\n").unwrap();
    let args = RELATIVE_BUILD;
    let r = b.run("build-kernel.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let image = b.dir.join("obj/arch/x86/boot/bzImage");
    assert_eq!(r.out, format!("{}\n", image.display()));
    let config = fs::read_to_string(b.dir.join("obj/.config")).unwrap();
    assert_eq!(config, "CONFIG_URING_REPRO_TEST=y\n");
}

/// The configuration is kept when nothing it reads changed since it was
/// made in this objdir (the fragment, the tree's Kconfig files and
/// scripts, the tools), and its .config is the one it wrote; anything else
/// configures again: a changed Kconfig file, fragment or script, a .config
/// edited by hand, a stamp without its .config.
#[test]
fn build_kernel_keeps_a_configuration_only_its_inputs_would_make_again() {
    let b = Box::new("build-config-kept");
    if !b.build_tools() {
        return;
    }
    let src = b.dir.join("src");
    kernel_tree(&src);
    fs::write(src.join("Kconfig"), "config URING_REPRO_TEST\n").unwrap();
    let frag = b.dir.join("frag.config");
    fs::write(&frag, "CONFIG_URING_REPRO_TEST=y\n").unwrap();
    let args = RELATIVE_BUILD;
    let configured = |why: &str| {
        let r = b.run("build-kernel.sh", &args);
        assert_eq!(r.code, 0, "{why}: {}", r.err);
        let kept = r.err.contains("build-kernel.sh: configuration of ");
        assert_ne!(
            kept,
            r.err.contains("build-kernel.sh: configuring "),
            "{why}: {}",
            r.err
        );
        let config = fs::read_to_string(b.dir.join("obj/.config")).unwrap();
        assert_eq!(config, fs::read_to_string(&frag).unwrap(), "{why}");
        !kept
    };
    assert!(configured("the first build"));
    assert!(!configured("nothing changed"));
    let edits: [(&str, &dyn Fn()); 6] = [
        ("a Kconfig file changed", &|| {
            fs::write(src.join("Kconfig"), "config URING_REPRO_TEST\n\tbool\n").unwrap()
        }),
        ("a new Kconfig file", &|| {
            fs::create_dir_all(src.join("io_uring")).unwrap();
            fs::write(src.join("io_uring/Kconfig"), "# new\n").unwrap()
        }),
        ("a script changed", &|| {
            fs::write(src.join("scripts/cc-version.sh"), "echo GCC 12\n").unwrap()
        }),
        ("the fragment changed", &|| {
            fs::write(&frag, "CONFIG_URING_REPRO_TEST=y\n# a comment\n").unwrap()
        }),
        (".config edited by hand", &|| {
            fs::write(
                b.dir.join("obj/.config"),
                "CONFIG_URING_REPRO_TEST=y\n# edited\n",
            )
            .unwrap()
        }),
        ("the .config gone", &|| {
            fs::remove_file(b.dir.join("obj/.config")).unwrap()
        }),
    ];
    for (why, edit) in edits {
        edit();
        assert!(configured(why), "{why}: kept");
        assert!(!configured(why), "{why}, then nothing: configured again");
    }
}

/// A read-only objdir holding an earlier build's image: the image cannot be
/// removed, so it would be taken for this build's. One clear line, exit 2
/// (this objdir fails every build alike), nothing configured.
#[test]
fn build_kernel_says_so_when_the_last_image_cannot_be_removed() {
    let b = Box::new("build-read-only");
    if !b.build_tools() {
        return;
    }
    kernel_tree(&b.dir.join("src"));
    let boot = b.dir.join("obj/arch/x86/boot");
    fs::create_dir_all(&boot).unwrap();
    fs::write(boot.join("bzImage"), "an earlier build").unwrap();
    let seen = b.dir.file("seen.txt");
    let Some(wrap) = on_read_only(boot.to_str().unwrap(), &seen) else {
        return;
    };
    let wrap: Vec<&str> = wrap.iter().map(String::as_str).collect();
    let r = b.run_in(
        &b.dir,
        &wrap,
        "build-kernel.sh",
        &["--src", "src", "--objdir", "obj"],
    );
    assert_eq!(r.code, 2, "{}", r.err);
    let want = format!(
        "build-kernel.sh: --objdir: cannot remove the last build's image {}/bzImage (Read-only file system): it would be taken for this build's; nothing built\n",
        boot.display()
    );
    assert_eq!(r.err, want);
    assert!(r.out.is_empty());
    assert!(!b.dir.join("obj/.config").exists(), "it configured anyway");
}

/// bisect-step.sh started in a subdirectory of the tree: its references,
/// --points and --bin from there; --image, --options-from and --append-from
/// from the tree's top, at every step.
#[test]
fn bisect_step_takes_paths_from_where_it_starts_and_tree_paths_from_the_top() {
    let mut b = Box::new("bisect-relative");
    let tree = b.git_tree();
    fs::write(tree.join("append"), "audit=1\n").unwrap();
    fs::write(tree.join("options"), "--cycles\n8\n").unwrap();
    let sub = tree.join("sub");
    fs::create_dir_all(sub.join("refs")).unwrap();
    let k = |n: &str| format!("{REPO}/tests/fixtures/kernel/{n}.txt");
    for n in [
        "bisect-good-1",
        "bisect-good-2",
        "bisect-bad-1",
        "bisect-bad-2",
    ] {
        fs::copy(k(n), sub.join(format!("refs/{n}.txt"))).unwrap();
    }
    fs::create_dir(sub.join("bin")).unwrap();
    symlink(BIN, sub.join("bin/uring-repro")).unwrap();
    // The new point: the good kernel again, another boot (its boot id's
    // first digits made 0000).
    let good = fs::read_to_string(k("bisect-good-1")).unwrap();
    let at = good.find("boot_id=").unwrap() + 8;
    let new = format!("{}0000{}", &good[..at], &good[at + 4..]);
    assert_ne!(new, good);
    let report = utils::write(&b.dir, "new.txt", &new);
    b.set("FAKE_QEMU_REPORT", &report);
    let args = [
        "--good",
        "refs/bisect-good-1.txt",
        "--good",
        "refs/bisect-good-2.txt",
        "--bad",
        "refs/bisect-bad-1.txt",
        "--bad",
        "refs/bisect-bad-2.txt",
        "--gate",
        "2",
        "--accel",
        "icount",
        "--build",
        "echo k >vmlinuz",
        "--image",
        "vmlinuz",
        "--points",
        "points",
        "--bin",
        "bin/uring-repro",
        "--append-from",
        "append",
        "--options-from",
        "options",
    ];
    let r = b.run_in(&sub, &[], "bisect-step.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    let kernel = format!("[-kernel] [{}/vmlinuz]", tree.display());
    assert!(log.contains(&kernel), "{log}");
    assert!(log.contains(" audit=1]"), "{log}");
    let points = listing(&sub.join("points"));
    assert_eq!(points.len(), 2, "{points:?}");
    assert!(points.iter().any(|p| p.ends_with(".txt")), "{points:?}");
}

/// boot-point.sh with every path relative: the point where it was asked
/// for, the kernel booted the one named; --cost's map read as the file
/// named (a placeholder map, refused by name: the check that reads it).
#[test]
fn boot_point_takes_relative_paths_from_where_it_starts() {
    let b = Box::new("boot-relative");
    let rel = b.dir.join("rel");
    fs::create_dir(&rel).unwrap();
    fs::write(rel.join("bzImage"), "k").unwrap();
    symlink(BIN, rel.join("uring-repro")).unwrap();
    let args = [
        "--kernel",
        "rel/bzImage",
        "-o",
        "rel/p.txt",
        "--bin",
        "rel/uring-repro",
        "--host-bin",
        "rel/uring-repro",
    ];
    let r = b.run("boot-point.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(fs::read_to_string(rel.join("p.txt"))
        .unwrap()
        .starts_with("# uring-repro "));
    let kernel = format!("[-kernel] [{}/rel/bzImage]", b.dir.display());
    assert!(b.qemu_log().contains(&kernel), "{}", b.qemu_log());
    let map = "ffffffffffffffff B The real System.map is in the linux-image-6.12-dbg package\n";
    fs::write(rel.join("System.map"), map).unwrap();
    let args = [
        "--kernel",
        "rel/bzImage",
        "-o",
        "rel/q.txt",
        "--bin",
        "rel/uring-repro",
        "--accel",
        "icount",
        "--check",
        "--cost",
        "rel/System.map",
    ];
    let r = b.run("boot-point.sh", &args);
    assert_eq!(r.code, 2, "{}", r.err);
    let named = format!("{}/rel/System.map is the placeholder", b.dir.display());
    assert!(r.err.contains(&named), "{}", r.err);
}
