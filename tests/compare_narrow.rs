//! Every line compare and report print fits 72 display columns whatever
//! the input: wide characters (CJK, emoji) in file names, kernel releases
//! and function names count two columns; a figure of many digits is never
//! cut and never passes the edge; and an escape (`\x01`) is never split
//! across a line break.

mod utils;

use utils::{assert_narrow, display_width, run, write, Scratch};

fn kernel(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/kernel/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

/// Every `\xNN` and `\uNNNN` of `text` is whole on its line.
fn assert_escapes_whole(text: &str) {
    for line in text.lines() {
        for (at, _) in line.match_indices('\\') {
            let rest = &line[at + 1..];
            let hex = |n: usize| {
                rest.get(1..1 + n)
                    .is_some_and(|d| d.chars().all(|c| c.is_ascii_hexdigit()))
            };
            match rest.chars().next() {
                Some('x') => assert!(hex(2), "a cut escape in {line:?}"),
                Some('u') => assert!(hex(4), "a cut escape in {line:?}"),
                _ => {}
            }
        }
    }
}

#[test]
fn wide_characters_in_names_and_releases_count_two_columns() {
    let d = Scratch::new("narrow-wide");
    let dir = d.join("内核测试😀");
    std::fs::create_dir_all(&dir).unwrap();
    let release = "6.12.117-内核版本-😀😀😀-".to_string() + &"漢".repeat(20);
    let function = format!("io_req_track_inflight_{}", "関数".repeat(25));
    let name = |n: &str| format!("点_{}{n}.txt", "数据".repeat(10));
    let args: Vec<String> = [
        ("parent", "s0-parent-1.txt"),
        ("child", "s0-child-1.txt"),
        ("child", "s0-child-2.txt"),
        ("parent", "s0-parent-2.txt"),
    ]
    .iter()
    .map(|(label, f)| {
        let text = kernel(f)
            .replace("kernel=6.12.117 ", &format!("kernel={release} "))
            .replace("io_req_track_inflight", &function);
        format!("{label}={}", write(&dir, &name(f), &text))
    })
    .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for cmd in ["compare", "report"] {
        let r = run(&[&[cmd][..], &args].concat());
        assert_eq!(r.code, 0, "{cmd}: {}", r.err);
        assert_narrow(&r.out);
        assert!(r.out.contains("関数"), "{}", r.out);
    }
}

#[test]
fn escapes_are_never_split_across_a_line() {
    let d = Scratch::new("narrow-escapes");
    let p = std::fs::read_to_string(format!(
        "{}/tests/fixtures/published/parent_a.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // Control bytes in a kernel release and a file name: each shown as an
    // escape, at every offset a line could be cut at.
    for k in 0..4 {
        let release = format!("{}{}", "x".repeat(k), "\u{1}".repeat(30));
        let text = p.replace(
            "kernel=6.15.0-synthetic-parent",
            &format!("kernel={release}"),
        );
        let name = format!("{}{}.txt", "y".repeat(k), "\u{1}\u{2}".repeat(10));
        let a = write(&d, &name, &text);
        let c = write(&d, "c.txt", &p.replace("0a0a0a0a-", "0e0e0e0e-"));
        let b = format!(
            "{}/tests/fixtures/published/child.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        for cmd in ["compare", "report"] {
            let r = run(&[cmd, &format!("A={a}"), &format!("B={b}"), &format!("A={c}")]);
            assert_eq!(r.code, 0, "{cmd}: {}", r.err);
            assert_narrow(&r.out);
            assert_escapes_whole(&r.out);
            assert!(r.out.contains("\\x01"), "{}", r.out);
        }
    }
}

/// A point of three rounds around `ns` ns/pair, on boot `n`.
fn point(n: u8, ns: f64) -> String {
    let mut s = format!(
        "# uring-repro 0.1.0 profile=s0_wait_wake kernel=6.1.0 \
         boot_id={n:02x}{n:02x}{n:02x}{n:02x}-0000-4000-8000-0000000000{n:02x}\n\
         # rounds=3\nround\tpairs\tns_per_pair\tsemantic_pass\n"
    );
    let v = [ns, ns * 1.5, ns * 0.5];
    for (r, x) in v.iter().enumerate() {
        s += &format!("{r}\t16384\t{x:.6}\t1\n");
    }
    s + &format!("mean\t49152\t{ns:.6}\t1\n# checks: made up -> PASS\n")
}

#[test]
fn huge_figures_are_never_cut_and_never_pass_the_edge() {
    let d = Scratch::new("narrow-huge");
    // A control of 2 micro-ns a pair against 750 ms: +3.75e16%.
    let a = write(&d, "a.txt", &point(1, 0.000002));
    let b = write(&d, "b.txt", &point(2, 750000000.0));
    let c = write(&d, "c.txt", &point(3, 0.000002));
    for cmd in ["compare", "report"] {
        let r = run(&[cmd, &format!("A={a}"), &format!("B={b}"), &format!("A={c}")]);
        assert_eq!(r.code, 0, "{cmd}: {}", r.err);
        assert_narrow(&r.out);
        assert!(display_width(&r.out) <= 72);
        // The change, whole somewhere, with its sign.
        assert!(r.out.contains("+3749999999999"), "{}", r.out);
    }
    // In the mail's table the change's column is 12: written shorter, its
    // sign and its power of ten kept, never cut from the left.
    let r = run(&[
        "report",
        &format!("A={a}"),
        &format!("B={b}"),
        &format!("A={c}"),
    ]);
    let row = r
        .out
        .lines()
        .find(|l| l.trim_start().starts_with("2  B "))
        .unwrap();
    assert!(row.ends_with(" +3.7500e16%"), "{row}");
    assert!(!row.contains("..."), "{row}");
}
