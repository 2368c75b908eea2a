//! Every unusable input `compare` refuses, one file each under
//! tests/fixtures/bad/, with the message it must print: the list in
//! tests/fixtures/bad/expected.txt (its header says the form).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Files of the directory that are not fixtures.
const NOT_FIXTURES: [&str; 3] = ["expected.txt", "README.md", ".gitattributes"];

#[test]
fn every_bad_input_exits_2_with_its_message() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad");
    let manifest = std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
    let mut listed = BTreeSet::new();
    let mut wrong = Vec::new();
    for want in manifest
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        // `--mode M ` may come first (a pollwake fixture); then the
        // message, which starts with the file name (no ':' in it).
        let (mode, want) = match want.strip_prefix("--mode ") {
            Some(rest) => rest.split_once(' ').expect("--mode M FILE: ..."),
            None => ("", want),
        };
        let file = want.split(':').next().unwrap_or_default();
        assert!(listed.insert(file), "{file} listed twice");
        let mut args = vec!["compare"];
        if !mode.is_empty() {
            args.extend(["--mode", mode]);
        }
        args.push(file);
        // From the fixture directory, so the message names the bare file.
        let out = Command::new(env!("CARGO_BIN_EXE_uring-repro"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .expect("run uring-repro");
        let got = (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let expected = (Some(2), "".into(), format!("uring-repro: {want}\n").into());
        if got != expected {
            wrong.push(format!("{file}:\n  want {expected:?}\n  got  {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/fixtures/bad") {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy();
        if !NOT_FIXTURES.contains(&&*name) && !listed.contains(&*name) {
            unlisted.push(name.into_owned());
        }
    }
    assert!(
        unlisted.is_empty(),
        "fixtures missing from expected.txt: {unlisted:?}"
    );
}
