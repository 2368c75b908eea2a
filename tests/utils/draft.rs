//! What the tests of `report` share: the draft run as a user types it
//! (in a directory, file names relative to it), and its text read
//! wherever the wrap put a phrase.

use std::path::Path;
use std::process::Command;

use super::{assert_narrow, Run, BIN};

/// The published fixtures' directory.
pub fn published_dir() -> String {
    format!("{}/tests/fixtures/published", env!("CARGO_MANIFEST_DIR"))
}

/// A published fixture's text.
pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/{name}", published_dir())).unwrap()
}

/// `report ARGS` run in `dir` (file names relative to it, as a user types
/// them, so the draft's own command line is the same on every clone).
pub fn report_in(dir: &str, args: &[&str]) -> Run {
    Command::new(BIN)
        .arg("report")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("spawn uring-repro")
        .into()
}

/// `report A=a B=b A=c`, run in `dir`: a sandwich as a user types it.
pub fn aba(dir: &str, [a, b, c]: [&str; 3]) -> Run {
    report_in(
        dir,
        &[&format!("A={a}"), &format!("B={b}"), &format!("A={c}")],
    )
}

pub fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_owned()
}

/// The draft's text with its line breaks as blanks: a phrase is found
/// wherever the wrap put it.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The draft ended with `code` (its stderr shown if not), and every
/// line of it fits 72 columns.
pub fn assert_drafted(r: &Run, code: i32) {
    assert_eq!(r.code, code, "{}", r.err);
    assert_narrow(&r.out);
}

/// Each of `phrases` is in `draft`, wherever the wrap put it.
pub fn assert_says(draft: &str, phrases: &[&str]) {
    let f = flat(draft);
    for phrase in phrases {
        assert!(f.contains(phrase), "{phrase:?} in\n{draft}");
    }
}

/// None of `phrases` is in `draft`, wherever the wrap would put it.
pub fn assert_never_says(draft: &str, phrases: &[&str]) {
    let f = flat(draft);
    for phrase in phrases {
        assert!(!f.contains(phrase), "{phrase:?} in\n{draft}");
    }
}
