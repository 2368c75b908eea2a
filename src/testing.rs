//! What the unit tests share: a skip that is loud, and fatal under CI (so
//! CI can never pass with nothing tested), and a scratch directory.

use std::path::PathBuf;

/// Says `SKIP: why` on stderr; when the environment variable `CI` is set,
/// fails the test instead.
pub fn skip(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("SKIP under CI: {why}");
    }
    eprintln!("SKIP: {why}");
}

/// A fresh, empty directory for test `name` of this process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uring-repro-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
