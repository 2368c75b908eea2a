//! Everything echoed from argv or from an input file goes through one
//! sanitiser, the same way in every command: a usage error, compare's
//! errors and text, report's draft, bisect's errors, initramfs's errors.
//! A raw newline would turn one error into two lines; an ESC sequence or a
//! bidirectional override would reach the terminal or the mail and change
//! what it shows. Each is shown as an escape (`\n`, `\x1b`, `\u202e`).

mod utils;

use std::path::Path;
use std::process::Command;

use utils::{assert_narrow, made_with, published, run, shell_words, Run, Scratch, BIN};

/// The bytes no echo may carry: control characters other than the line
/// feeds between lines, and the bidirectional override.
fn assert_inert(what: &str, text: &str) {
    for c in text.chars() {
        assert!(
            c == '\n' || !(c.is_control() || c == '\u{202e}'),
            "{what}: raw {c:?} in {text:?}"
        );
    }
}

/// A copy of the published point `name` in `dir`, its kernel release
/// replaced by `kernel`.
fn with_kernel(dir: &Path, name: &str, kernel: &str) -> String {
    let text = std::fs::read_to_string(published(name)).unwrap();
    let old = if name.starts_with("child") {
        "kernel=6.15.0-synthetic-child"
    } else {
        "kernel=6.15.0-synthetic-parent"
    };
    assert!(text.contains(old), "{name}: fixture changed");
    let p = dir.join(name);
    std::fs::write(&p, text.replace(old, &format!("kernel={kernel}"))).unwrap();
    p.to_str().unwrap().to_owned()
}

/// A kernel release with a colour escape and a right-to-left override.
const HOSTILE: &str = "6.15.0\x1b[31m-red\u{202e}evil";
const SHOWN: &str = "6.15.0\\x1b[31m-red\\u202eevil";

#[test]
fn a_usage_error_stays_one_line() {
    let r = run(&["--rounds", "1\n\x1b[2J2"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(
        r.err,
        "uring-repro: --rounds 1\\n\\x1b[2J2: not a decimal number\n"
    );
    let r = run(&["compare", "--gate", "\u{202e}5"]);
    assert_eq!(
        r.err,
        "uring-repro: compare: --gate \\u202e5: needs a percentage in (0, 100], at most 3 decimals\n"
    );
    // Invalid UTF-8 shows its bytes.
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(BIN)
        .arg(std::ffi::OsStr::from_bytes(b"--cpu=\xff\x01"))
        .output()
        .unwrap();
    let r: Run = out.into();
    assert_eq!(r.code, 2);
    assert_eq!(
        r.err,
        "uring-repro: --cpu=\\xff\\x01: not a decimal number\n"
    );
}

#[test]
fn compare_and_bisect_errors_name_the_file_on_one_line() {
    let d = Scratch::new("echo-files");
    let name = d.file("point\n\x1b[31m.txt");
    let shown = name.replace('\n', "\\n").replace('\x1b', "\\x1b");
    let a = published("parent_a.txt");
    let r = run(&["compare", &a, &name]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.err,
        format!("uring-repro: {shown}: cannot read: ENOENT (2)\n")
    );
    let r = run(&[
        "compare",
        "--bisect",
        &format!("good={a}"),
        &format!("bad={}", published("child.txt")),
        &format!("new={name}"),
    ]);
    assert_eq!(r.code, 125);
    assert_eq!(
        r.err,
        format!("uring-repro: {shown}: cannot read: ENOENT (2)\n")
    );
    // Text quoted from inside a file: the same escapes.
    std::fs::write(
        &name,
        "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\t\x1b[1m\t1\n",
    )
    .unwrap();
    let r = run(&["compare", &name]);
    assert_eq!(
        r.err,
        format!(
            "uring-repro: {shown}:2: ns_per_pair is not a positive decimal number: `\\x1b[1m`\n"
        )
    );
}

#[test]
fn compare_shows_a_hostile_kernel_release_escaped() {
    let d = Scratch::new("echo-compare");
    let b = with_kernel(&d, "child.txt", HOSTILE);
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!(code, 0, "{err}");
    assert_inert("compare", &out);
    assert_narrow(&out);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("kernel {SHOWN}, boot 0c0c0c0c")),
        "{out}"
    );
    let Run { code, out, .. } = run(&["compare", "--tsv", &a, &b, &c]);
    assert_eq!(code, 0);
    assert_inert("compare --tsv", &out.replace('\t', " "));
}

#[test]
fn report_drafts_a_hostile_kernel_release_escaped() {
    let d = Scratch::new("echo-report");
    let b = with_kernel(&d, "child.txt", HOSTILE);
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let Run { code, out, err } = run(&[
        "report",
        &format!("parent={a}"),
        &format!("child={b}"),
        &format!("parent={c}"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_inert("report", &out);
    assert_narrow(&out);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&format!("kernel {SHOWN};")), "{out}");
}

#[test]
fn initramfs_names_its_output_on_one_line() {
    let d = Scratch::new("echo-initramfs");
    let out = d.file("no-such-dir/fs\n.cpio");
    let r = run(&["initramfs", "-o", &out, "--smoke"]);
    assert_ne!(r.code, 0);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(r.err.contains("no-such-dir/fs\\n.cpio"), "{}", r.err);
    assert_inert("initramfs", &r.err);
}

/// A file name with a quote, a blank, a newline and an ESC: the draft's
/// command line shows it escaped (`$'...'`), and bash reads the very name
/// back from it.
#[test]
fn report_quotes_a_hostile_file_name_for_the_shell() {
    let d = Scratch::new("echo-shell");
    let name = d.file("it's a\n\x1b[31mpoint\u{202e}.txt");
    std::fs::copy(published("child.txt"), &name).unwrap();
    let args = [
        "report".to_string(),
        format!("parent={}", published("parent_a.txt")),
        format!("child={name}"),
    ];
    let r = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{}", r.err);
    assert_inert("report", &r.out);
    assert_narrow(&r.out);
    let Some(words) = shell_words(made_with(&r.out)) else {
        return;
    };
    let want: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    assert_eq!(words, want, "{}", made_with(&r.out));
}
