//! Where the cost went: compare and report on points that carry `# cost:`
//! lines (the kernel tests' points, tests/fixtures/kernel, booted with
//! boot-point.sh --cost): the table, a point without the lines on one side,
//! broken lines, long function names, and points without any lines read as
//! ever.

mod utils;

use utils::{assert_contains, assert_narrow, run, write, Run, Scratch};

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/kernel/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// `text` without its cost lines.
fn bare(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("# cost: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The cost section of compare's text: from its heading to the blank line.
fn section(out: &str) -> &str {
    let at = out
        .find("Where the cost went, ")
        .unwrap_or_else(|| panic!("no cost section in:\n{out}"));
    let end = out[at..].find("\n\n").map_or(out.len(), |e| at + e + 1);
    &out[at..end]
}

/// The text of `section` without its line breaks (a wrapped sentence).
fn joined(section: &str) -> String {
    section.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn compare_and_the_mail_say_where_the_s0_cost_went() {
    // The sandwich, in the order booted.
    let args: Vec<String> = [
        "parent=s0-parent-1",
        "child=s0-child-1",
        "child=s0-child-2",
        "parent=s0-parent-2",
    ]
    .map(|a| {
        let (label, name) = a.split_once('=').unwrap();
        format!("{label}={}", fixture(&format!("{name}.txt")))
    })
    .into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, err } = run(&[&["compare"], &args[..]].concat());
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    let s = section(&out);
    // After the comparison, before the paragraph to paste.
    assert!(out.find("  verdict ") < out.find(s) && out.find(s) < out.find("To paste:"));
    let rows: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.ends_with("kernel function"))
        .collect();
    assert_eq!(rows[0], "        parent      change  kernel function");
    assert_eq!(
        rows[1..4].iter().map(|r| &r[14..]).collect::<Vec<_>>(),
        [
            "     +30.000  __io_submit_flush_completions",
            "     +22.000  io_req_track_inflight (child only)",
            "      +6.000  io_futex_prep",
        ]
    );
    // The new helper: nothing on the parent's side.
    assert_eq!(rows[2].split_whitespace().next(), Some("-"));
    // The listed ones together, and the rest.
    assert_eq!(
        rows[4..6].iter().map(|r| &r[14..]).collect::<Vec<_>>(),
        [
            "     +58.000  the 3 listed",
            "      +0.036  603 other functions"
        ]
    );
    assert_contains(
        &joined(s),
        &[
            "Functions that moved by one instruction a cycle (0.031 a pair) or more: 3, all \
             listed. A label's figures are the mean of its boots' lines.",
        ],
    );
    // The boots of each label have identical lines: nothing says otherwise.
    assert!(!s.contains("differ in their lines"), "{s}");
    // The mail: the same table, in its own paragraph.
    let r = run(&[&["report", "--introduced", "079afb081c42"], &args[..]].concat());
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let m = section(&r.out);
    assert!(
        joined(m).contains("instructions per WAIT/WAKE pair by kernel function"),
        "{m}"
    );
    let mail_table = &r.out[r.out.find(rows[0]).unwrap()..];
    assert!(mail_table.starts_with(&rows.join("\n")), "{}", r.out);
    assert!(r.out.find(m) < r.out.find("#regzbot introduced:"));
    // --tsv and --bisect are as they were: no table there.
    let t = run(&[&["compare", "--tsv"], &args[..]].concat());
    assert_eq!(t.code, 0, "{}", t.err);
    assert!(!t.out.contains("cost"), "{}", t.out);
}

#[test]
fn pollwake_per_mode_the_wake_up_path() {
    let (a, b) = (fixture("pollwake-parent.txt"), fixture("pollwake-poll.txt"));
    let (a, b) = (format!("parent={a}"), format!("poll={b}"));
    let r = run(&["compare", "--mode", "idle", &a, &b]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let s = section(&r.out);
    assert_contains(
        s,
        &[
            "  ep_poll_callback\n",
            "  __wake_up\n",
            "  io_poll_wq_wake\n",
        ],
    );
    // The none mode: its own series, where nothing on the path moved.
    let r = run(&["compare", "--mode", "none", &a, &b]);
    assert!(!section(&r.out).contains("ep_poll_callback"), "{}", r.out);
}

#[test]
fn a_side_without_cost_lines_is_one_note_and_the_rest_as_ever() {
    let d = Scratch::new("cost-one-side");
    let c = write(&d, "child.txt", &bare(&text("s0-child-1.txt")));
    let p0 = write(&d, "parent.txt", &bare(&text("s0-parent-1.txt")));
    let r0 = run(&["compare", &format!("parent={p0}"), &format!("child={c}")]);
    let p = write(&d, "parent.txt", &text("s0-parent-1.txt"));
    let r = run(&["compare", &format!("parent={p}"), &format!("child={c}")]);
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert_narrow(&r.out);
    let s = section(&r.out);
    assert_eq!(
        joined(s),
        format!(
            "Where the cost went, child against parent: no table, {c}: no # cost: lines \
             (boot-point.sh --cost adds them)"
        )
    );
    // But for the note, compare says what it says of points without cost
    // lines (the same file, before its cost lines were added).
    let without = r
        .out
        .replace(s, "")
        .replace("\n\n\nTo paste", "\n\nTo paste");
    assert_eq!(without, r0.out);
    assert!(!r0.out.contains("cost"), "{}", r0.out);
    // The mail: no section, one stderr line.
    let m = run(&["report", &format!("parent={p}"), &format!("child={c}")]);
    assert_eq!(m.code, 0);
    assert!(!m.out.contains("cost went"), "{}", m.out);
    let note = m.err.lines().find(|l| l.contains("cost")).unwrap();
    assert_eq!(
        note,
        format!(
            "uring-repro: report: Where the cost went, child against parent: no table, {c}: \
             no # cost: lines (boot-point.sh --cost adds them)"
        )
    );
}

#[test]
fn broken_lines_are_named_by_file_and_line() {
    let d = Scratch::new("cost-broken");
    let p = text("s0-parent-1.txt");
    let no = p
        .lines()
        .position(|l| l.starts_with("# cost: fn "))
        .unwrap()
        + 1;
    let broken = p.replacen("# cost: fn s0_wait_wake ", "# cost: fn s0_wait_wake x ", 1);
    assert!(broken
        .lines()
        .nth(no - 1)
        .unwrap()
        .starts_with("# cost: fn s0_wait_wake x "));
    let a = write(&d, "a.txt", &broken);
    let r = run(&[
        "compare",
        &format!("p={a}"),
        &format!("c={}", fixture("s0-child-1.txt")),
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let s = joined(section(&r.out));
    assert_eq!(
        s,
        format!(
            "Where the cost went, c against p: no table, {a}:{no}: a cost line out of \
             docs/cost.md's format"
        )
    );
    // The point itself is compared as ever.
    assert_contains(&r.out, &["change          +3.866%"]);
}

#[test]
fn long_function_names_stay_within_72_columns() {
    let d = Scratch::new("cost-long-names");
    let long = format!("io_req_track_inflight{}", "_and_more".repeat(20));
    let c1 = write(
        &d,
        "c1.txt",
        &text("s0-child-1.txt").replace("io_req_track_inflight", &long),
    );
    let c2 = write(
        &d,
        "c2.txt",
        &text("s0-child-2.txt").replace("io_req_track_inflight", &long),
    );
    let args = [
        format!("parent.6.12={}", fixture("s0-parent-1.txt")),
        format!("child-kernel={c1}"),
        format!("child-kernel={c2}"),
        format!("parent.6.12={}", fixture("s0-parent-2.txt")),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for cmd in ["compare", "report"] {
        let r = run(&[&[cmd][..], &args[..]].concat());
        assert_eq!(r.code, 0, "{cmd}: {}", r.err);
        assert_narrow(&r.out);
        // The whole name, broken where the line ends (continued at column
        // 30), then its side.
        let s = &r.out[r.out.find("Where the cost went").unwrap()..];
        let rows: Vec<&str> = s
            .lines()
            .skip_while(|l| !l.contains("io_req_track_inflight"))
            .take_while(|l| !l.contains("io_futex_prep"))
            .collect();
        assert!(rows.len() > 2, "{cmd}: {s}");
        assert_eq!(rows[0].split_whitespace().next(), Some("-"), "{cmd}: {s}");
        let name: String = rows.iter().map(|l| &l[28..]).collect();
        assert_eq!(
            name.replace(' ', ""),
            format!("{long}(child-kernelonly)"),
            "{cmd}: {s}"
        );
    }
}

#[test]
fn another_system_map_under_one_label_is_refused() {
    let d = Scratch::new("cost-maps");
    let p2 = text("s0-parent-2.txt");
    let at = p2.find("map_sha256=").unwrap() + "map_sha256=".len();
    let other = write(&d, "p2.txt", &p2.replace(&p2[at..at + 64], &"0".repeat(64)));
    let p1 = fixture("s0-parent-1.txt");
    let r = run(&[
        "compare",
        &format!("parent={p1}"),
        &format!("child={}", fixture("s0-child-1.txt")),
        &format!("parent={other}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        joined(section(&r.out)),
        format!(
            "Where the cost went, child against parent: no table, {other}: another \
             System.map than its label's first point"
        )
    );
}
