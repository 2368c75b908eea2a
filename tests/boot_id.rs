//! The boot's identity as its host drew it. boot-point.sh puts a fresh one
//! in every boot's initramfs (`initramfs --boot-id`: the archive's file is
//! tests/initramfs.rs's; `/init` of a fresh boot reads it, which only a
//! real boot shows: tests/kernel/run.sh); any process takes it from the
//! environment word `URING_REPRO_BOOT_ID`, as these tests give it. The
//! point states it as its boot_id, and says where it came from and what
//! the kernel's own was; the TSV's boot_id column is it too; compare reads
//! it as any boot id. Without it, the kernel's boot id as ever. A value
//! that is not a UUID's length is a usage error naming it.

mod utils;

use utils::{assert_usage_error, skip, tsv_rows, Run, Scratch};

const ID: &str = "5f0c2b1e-0a1b-4c2d-8e3f-0123456789ab";
const SOURCE: &str = "# boot_id_source=URING_REPRO_BOOT_ID (the host's, one per boot: under \
                      QEMU's instruction clock the kernel's own can repeat)";

/// The binary with `args`, `URING_REPRO_BOOT_ID` set to `id` (None: unset).
fn run_with(id: Option<&str>, args: &[&str]) -> Run {
    utils::run_env("URING_REPRO_BOOT_ID", id, args)
}

/// The word `boot_id=...` of the first banner line.
fn banner_id(out: &str) -> &str {
    let banner = out.lines().next().unwrap_or_default();
    let word = banner
        .split_whitespace()
        .find(|w| w.starts_with("boot_id="));
    &word.unwrap_or_else(|| panic!("no boot_id in {banner}"))[8..]
}

fn kernels() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn a_boot_the_host_named_is_that_boot_and_the_point_says_so() {
    let d = Scratch::new("boot-id");
    let tsv = d.file("p.tsv");
    let r = run_with(Some(ID), &["--smoke", "--cpu", "0", "--tsv", &tsv]);
    if r.code == 4 {
        skip(format!("io_uring cannot run here: {}", r.err.trim()));
        return;
    }
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(banner_id(&r.out), ID);
    let facts: Vec<&str> = r.out.lines().filter(|l| l.contains("boot_id")).collect();
    let kernel = format!("# kernel_boot_id={}", kernels());
    assert_eq!(&facts[1..], [SOURCE, &kernel[..]], "{}", r.out);
    assert!(tsv_rows(std::path::Path::new(&tsv))
        .iter()
        .all(|row| row["boot_id"] == ID));
    // Without it: the kernel's, and no more lines.
    let r = run_with(None, &["--smoke", "--cpu", "0"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(banner_id(&r.out), kernels());
    assert!(!r.out.contains("boot_id_source") && !r.out.contains("kernel_boot_id"));
}

#[test]
fn a_suites_every_point_is_of_the_boot_the_host_named() {
    let r = run_with(
        Some(ID),
        &["suite", "--profiles", "s0,n0", "--smoke", "--cpu", "0"],
    );
    if r.code == 4 {
        skip(format!("io_uring cannot run here: {}", r.err.trim()));
        return;
    }
    assert_eq!(r.code, 0, "{}", r.err);
    let banners: Vec<&str> = r
        .out
        .lines()
        .filter(|l| l.starts_with("# uring-repro "))
        .collect();
    assert_eq!(banners.len(), 2, "{}", r.out);
    assert!(banners.iter().all(|b| banner_id(b) == ID), "{banners:?}");
    assert_eq!(r.out.matches(SOURCE).count(), 2, "{}", r.out);
}

#[test]
fn compare_counts_the_boots_the_host_named() {
    let d = Scratch::new("boot-id-compare");
    let other = "5f0c2b1e-0a1b-4c2d-8e3f-0123456789ac";
    let mut files = Vec::new();
    for (i, id) in [ID, other, ID].iter().enumerate() {
        let args = [
            "--cpu",
            "0",
            "--rounds",
            "3",
            "--cycles",
            "8",
            "--warmups",
            "0",
        ];
        let r = run_with(Some(id), &args);
        if r.code == 4 {
            skip(format!("io_uring cannot run here: {}", r.err.trim()));
            return;
        }
        assert_eq!(r.code, 0, "{}", r.err);
        files.push(utils::write(&d, &format!("{i}.txt"), &r.out));
    }
    let compare = |a: &str, b: &str| utils::run(&["compare", &format!("a={a}"), &format!("a={b}")]);
    // Two boots named apart are two boots (each run here is on this box's
    // one boot, which the kernel's boot id would have said).
    let c = compare(&files[0], &files[1]);
    assert_eq!(c.code, 0, "{}", c.err);
    assert!(!c.out.contains("share a boot"), "{}", c.out);
    // One boot named twice is one boot.
    let c = compare(&files[0], &files[2]);
    assert_eq!(c.code, 0, "{}", c.err);
    assert!(
        c.out.contains("Points 1 and 2 share a boot (5f0c2b1e)"),
        "{}",
        c.out
    );
}

#[test]
fn a_value_not_a_uuids_length_is_refused_naming_it() {
    for bad in ["", "b1", "5f0c2b1e-0a1b-4c2d-8e3f-0123456789abc"] {
        let r = run_with(Some(bad), &["--smoke", "--cpu", "0"]);
        let why = format!("URING_REPRO_BOOT_ID={bad}: not a boot id (36 characters, a UUID)");
        assert_usage_error(&r, &why);
    }
}
