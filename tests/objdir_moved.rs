//! scripts/common.sh's objdir_moved: a copied kernel object directory made to name its own
//! tree, so that make does not rebuild its host tools (objtool, libsubcmd), whose .cmd files
//! keep absolute paths, for the new place alone (measured on the parent kernel: a copy's
//! no-op build 13.1 s, against 21.2 s rebuilding objtool and relinking vmlinux; the same
//! image byte for byte). Under dash and bash, on paths with spaces and a
//! regular expression's characters, through a symlink.

mod stand_in;
mod utils;

use stand_in::*;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

/// An object directory at `obj` as kbuild leaves it: a host tool's .cmd naming `obj` (its
/// physical path), and a kernel object's .cmd, which kbuild writes with relative paths but
/// here names `obj` too, to show that only the tools' are touched.
fn built(obj: &Path) -> (String, String) {
    fs::create_dir_all(obj.join("tools/objtool")).unwrap();
    fs::create_dir_all(obj.join("io_uring")).unwrap();
    let real = fs::canonicalize(obj.parent().unwrap())
        .unwrap()
        .join(obj.file_name().unwrap());
    let r = real.to_str().unwrap();
    let tree = real.parent().unwrap().to_str().unwrap();
    let tool = format!(
        "cmd_{r}/tools/objtool/check.o := gcc -Wp,-MD,{r}/tools/objtool/.check.o.d -o {r}/tools/objtool/check.o {tree}/tools/objtool/check.c\n\nsource_{r}/tools/objtool/check.o := {tree}/tools/objtool/check.c\n"
    );
    let kernel = format!("cmd_io_uring/futex.o := gcc -c -o io_uring/futex.o {r}/x.c\n");
    fs::write(obj.join("tools/objtool/.check.o.cmd"), &tool).unwrap();
    fs::write(obj.join("io_uring/.futex.o.cmd"), &kernel).unwrap();
    (tool, kernel)
}

fn moved(sh: &str, was: &Path, obj: &Path) -> i32 {
    let o = Command::new(sh)
        .args([
            "-c",
            &format!("PROG=t; . '{REPO}/scripts/common.sh'; objdir_moved \"$1\" \"$2\""),
            "t",
            was.to_str().unwrap(),
            obj.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.status.code().unwrap()
}

#[test]
fn a_copied_objdir_names_itself_in_its_tools_and_nowhere_else() {
    for sh in ["dash", "bash"] {
        let b = Box::new(&format!("objdir-moved-{sh}"));
        let was = b.dir.join("a tree.6.12 [x]/.uring-repro-obj");
        let (tool, kernel) = built(&was);
        // Reached through a symlink: kbuild names the physical path.
        let real = b.dir.join("c|d (copy)");
        fs::create_dir_all(&real).unwrap();
        symlink(&real, b.dir.join("link")).unwrap();
        let obj = b.dir.join("link/.uring-repro-obj");
        let cp = Command::new("cp").arg("-a").arg(&was).arg(&obj).status();
        assert!(cp.unwrap().success());
        assert_eq!(moved(sh, &was, &obj), 0, "{sh}");

        // The trees that hold them: the tools name their sources there too.
        let old = fs::canonicalize(was.parent().unwrap()).unwrap();
        let new = fs::canonicalize(obj.parent().unwrap()).unwrap();
        let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
        let got = fs::read_to_string(obj.join("tools/objtool/.check.o.cmd")).unwrap();
        assert_eq!(got, tool.replace(old, new), "{sh}");
        assert!(!got.contains(old), "{sh}: {got}");
        // The kernel's own .cmd and the original stay as they were.
        assert_eq!(
            fs::read_to_string(obj.join("io_uring/.futex.o.cmd")).unwrap(),
            kernel
        );
        assert_eq!(
            fs::read_to_string(was.join("tools/objtool/.check.o.cmd")).unwrap(),
            tool
        );
        // Done again, or on the original, nothing changes.
        assert_eq!(moved(sh, &was, &obj), 0);
        assert_eq!(moved(sh, &was, &was), 0);
        assert_eq!(
            fs::read_to_string(obj.join("tools/objtool/.check.o.cmd")).unwrap(),
            got
        );
        assert_eq!(
            fs::read_to_string(was.join("tools/objtool/.check.o.cmd")).unwrap(),
            tool
        );
    }
}
