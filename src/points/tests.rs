use super::*;

#[test]
fn an_icount_banner_says_so_in_a_word_of_its_own() {
    assert!(says_icount(
        b"# uring-repro 0.1.0 clock=vdso timebase=icount"
    ));
    assert!(says_icount(b"# uring-repro 0.1.0 timebase=icount cpu=0"));
    assert!(!says_icount(b"# uring-repro 0.1.0 timebase=icountx"));
    assert!(!says_icount(b"# uring-repro 0.1.0 timebase=wall"));
    assert!(!says_icount(b"# uring-repro 0.1.0\ttimebase=icount"));
}

#[test]
fn an_items_file_is_named_without_colons() {
    assert_eq!(file_name(b"s0:shared").as_str(), "s0-shared.txt");
    assert_eq!(file_name(b"pollwake").as_str(), "pollwake.txt");
}

#[test]
fn a_verdicts_code_is_the_shells() {
    assert_eq!(Code::of(b"0").exit(), 0);
    assert_eq!(Code::of(b"007").exit(), 7);
    assert_eq!(Code::of(b"130").exit(), 130);
    assert_eq!(Code::of(b"256").exit(), 0);
    assert_eq!(Code::of(b"99999999999999999999999").0, u64::MAX);
}
