//! Where the cost went: compare and report on points that carry `# cost:`
//! lines (the kernel tests' points, tests/fixtures/kernel, booted with
//! boot-point.sh --cost): the table, a point without the lines on one side,
//! broken lines, long function names, and points without any lines read as
//! ever.

mod utils;

use utils::cost::{joined, section};
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
    assert_eq!(
        rows[0],
        "        parent      change  locked  kernel function"
    );
    assert_eq!(
        rows[1..4].iter().map(|r| &r[14..]).collect::<Vec<_>>(),
        [
            "     +30.000  +2.000  __io_submit_flush_completions",
            "     +22.000  +2.000  io_req_track_inflight (child only)",
            "      +6.000   0.000  io_futex_prep",
        ]
    );
    // The new helper: nothing on the parent's side.
    assert_eq!(rows[2].split_whitespace().next(), Some("-"));
    // The listed ones together, and the rest.
    assert_eq!(
        rows[4..6].iter().map(|r| &r[14..]).collect::<Vec<_>>(),
        [
            "     +58.000  +4.000  the 3 listed",
            "      -0.032   0.000  320 other functions"
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
    // What the series line says a figure is per, or `pair` without one
    // (the kernel tests' points were booted before the binary stated its
    // series: the mail then says no more than that).
    let per = utils::series_value(&text("s0-parent-1.txt"), "s0_wait_wake", "per");
    let per = per.unwrap_or("pair".into());
    assert!(
        joined(m).contains(&format!("instructions per {per} by kernel function")),
        "{m}"
    );
    let mail_table = &r.out[r.out.find(rows[0]).unwrap()..];
    assert!(mail_table.starts_with(&rows.join("\n")), "{}", r.out);
    assert!(r.out.find(m) < r.out.find("To reproduce,"));
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
    // The first fn line with a word too many; the point itself is
    // compared as ever (`crafted` checks the change).
    let (s, a, _) = crafted(&d, &|p, _| {
        p.replacen("# cost: fn s0_wait_wake ", "# cost: fn s0_wait_wake x ", 1)
    });
    assert_eq!(
        s,
        format!(
            "Where the cost went, c against p: no table, {a}:{no}: a cost line out of \
             docs/cost.md's format"
        )
    );
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
        // 38, after the locked column), then its side.
        let s = &r.out[r.out.find("Where the cost went").unwrap()..];
        let rows: Vec<&str> = s
            .lines()
            .skip_while(|l| !l.contains("io_req_track_inflight"))
            .take_while(|l| !l.contains("io_futex_prep"))
            .collect();
        assert!(rows.len() > 2, "{cmd}: {s}");
        assert_eq!(rows[0].split_whitespace().next(), Some("-"), "{cmd}: {s}");
        let name: String = rows.iter().map(|l| &l[36..]).collect();
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

/// Runs the binary in `dir` (relative file names: what is echoed is the
/// same from any directory holding the same names).
fn run_in(dir: &std::path::Path, args: &[&str]) -> Run {
    std::process::Command::new(utils::BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .into()
}

#[test]
fn crlf_points_are_read_as_lf_ones_cost_lines_included() {
    // Every point of the class: the s0 sandwich and a pollwake mode, by
    // compare and by report, each file's lines ended CRLF (and one file
    // with both line ends).
    let d = Scratch::new("cost-crlf");
    let (lf, crlf) = (d.join("lf"), d.join("crlf"));
    std::fs::create_dir_all(&lf).unwrap();
    std::fs::create_dir_all(&crlf).unwrap();
    for name in [
        "s0-parent-1.txt",
        "s0-child-1.txt",
        "s0-child-2.txt",
        "pollwake-parent.txt",
        "pollwake-poll.txt",
    ] {
        let t = text(name);
        write(&lf, name, &t);
        let mixed = t
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{l}{}", if i % 2 == 0 { "\r\n" } else { "\n" }))
            .collect::<String>();
        let t = if name == "s0-child-2.txt" {
            mixed
        } else {
            t.replace('\n', "\r\n")
        };
        write(&crlf, name, &t);
    }
    let s0 = ["p=s0-parent-1.txt", "c=s0-child-1.txt", "c=s0-child-2.txt"];
    let pollwake = [
        "--mode",
        "idle",
        "p=pollwake-parent.txt",
        "q=pollwake-poll.txt",
    ];
    for args in [&s0[..], &pollwake[..]] {
        for cmd in ["compare", "report"] {
            let args = [&[cmd][..], args].concat();
            let (a, b) = (run_in(&lf, &args), run_in(&crlf, &args));
            assert_eq!(a.code, 0, "{args:?}: {}", a.err);
            assert!(a.out.contains("Where the cost went"), "{}", a.out);
            assert!(!b.out.contains("\\r"), "{}", b.out);
            assert_eq!(
                (b.code, &b.out, &b.err),
                (a.code, &a.out, &a.err),
                "{args:?}"
            );
        }
    }
}

/// The s0 parent's lines with `edit` applied to its cost lines' text
/// (series line, fn lines), compared with the s0 child: the one line that
/// says why there is no table, and its series line's number.
fn crafted(d: &Scratch, edit: &dyn Fn(&str, &[&str]) -> String) -> (String, String, usize) {
    let p = text("s0-parent-1.txt");
    let series = p
        .lines()
        .find(|l| l.starts_with("# cost: series "))
        .unwrap();
    let fns: Vec<&str> = p.lines().filter(|l| l.starts_with("# cost: fn ")).collect();
    let no = p.lines().position(|l| l == series).unwrap() + 1;
    let a = write(d, "a.txt", &edit(&p, &fns));
    let r = run(&[
        "compare",
        &format!("p={a}"),
        &format!("c={}", fixture("s0-child-1.txt")),
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    assert_contains(&r.out, &["change          +3.860%"]);
    (joined(section(&r.out)), a, no)
}

/// `kernel=N` of a series line made `kernel=N+add`.
fn kernel_plus(text: &str, add: u128) -> String {
    let series = text
        .lines()
        .find(|l| l.starts_with("# cost: series "))
        .unwrap();
    let k = series
        .split(' ')
        .find_map(|w| w.strip_prefix("kernel="))
        .unwrap();
    let more = series.replace(
        &format!("kernel={k} "),
        &format!("kernel={} ", k.parse::<u128>().unwrap() + add),
    );
    text.replace(series, &more)
}

#[test]
fn crafted_counts_give_no_table_never_a_wrong_one() {
    let d = Scratch::new("cost-crafted");
    let note = |a: &str, line: usize, why: &str| {
        format!("Where the cost went, c against p: no table, {a}:{line}: {why}")
    };
    // A count above 2^63 (kernel= raised to match): refused where it is
    // first met, the series line.
    let (s, a, no) = crafted(&d, &|p, fns| {
        let w: Vec<&str> = fns[0].split(' ').collect();
        let big = w[5].parse::<u128>().unwrap() + (1 << 63);
        let line = format!("{} {big} {}", w[..5].join(" "), w[6]);
        kernel_plus(&p.replace(fns[0], &line), 1 << 63)
    });
    assert_eq!(
        s,
        note(&a, no, "a count above 2^63 - 1 (no run counts so many)")
    );
    // fn lines that add up to kernel= only modulo 2^64: two of 2^63 - 1
    // and one of 2 more.
    let (s, a, no) = crafted(&d, &|p, fns| {
        let max = i64::MAX;
        let extra = format!(
            "{}\n# cost: fn s0_wait_wake 1.000 {max} x1\n# cost: fn s0_wait_wake 1.000 {max} x2\n\
             # cost: fn s0_wait_wake 1.000 2 x3",
            fns[fns.len() - 1]
        );
        p.replace(fns[fns.len() - 1], &extra)
    });
    assert_eq!(s, note(&a, no, "its fn lines do not add up to its kernel="));
    // A function named twice, kernel= made to match.
    let (s, a, _) = crafted(&d, &|p, fns| {
        let count: u128 = fns[1].split(' ').nth(5).unwrap().parse().unwrap();
        kernel_plus(
            &p.replace(fns[1], &format!("{}\n{}", fns[1], fns[1])),
            count,
        )
    });
    let twice = text("s0-parent-1.txt")
        .lines()
        .position(|l| l.starts_with("# cost: fn "))
        .unwrap()
        + 3;
    assert_eq!(s, note(&a, twice, "a function named twice in its series"));
}

/// Point `name` (an s0 fixture) counting `__schedule` and `do_idle`, with
/// `counts` entries, written into `dir`.
fn with_events(dir: &Scratch, name: &str, counts: [u64; 2]) -> String {
    let mut out = String::new();
    for l in text(&format!("{name}.txt")).lines() {
        out += l;
        if l.starts_with("# cost: method ") {
            out += " events=__schedule:do_idle";
        }
        out += "\n";
    }
    out += &format!(
        "# cost: event s0_wait_wake 0.000 {} __schedule\n",
        counts[0]
    );
    out += &format!("# cost: event s0_wait_wake 0.000 {} do_idle\n", counts[1]);
    write(dir, &format!("{name}.txt"), &out)
}

#[test]
fn events_that_moved_are_rows_of_the_table_and_in_the_tsv_and_the_mail() {
    let dir = Scratch::new("compare-events");
    // 10240 pairs, 32 a cycle: __schedule +320 is one entry a cycle,
    // do_idle +3 far less.
    let p = with_events(&dir, "s0-parent-1", [2, 0]);
    let c = with_events(&dir, "s0-child-1", [322, 3]);
    let (p, c) = (format!("parent={p}"), format!("child={c}"));
    let r = run(&["compare", &p, &c]);
    assert_eq!(r.code, 0, "{}", r.err);
    let s = section(&r.out);
    assert_contains(
        s,
        &["         0.000      +0.031       -  entries into __schedule\n"],
    );
    assert!(!s.contains("entries into do_idle"), "{s}");
    assert_contains(
        &joined(s),
        &[
            "Events (entries into kernel functions inside the spans, per pair; docs/cost.md): 2 \
         watched, 1 moved by half an entry a cycle or more (the entries rows). Changed by less: \
         do_idle \
         +0.0003.",
        ],
    );
    let t = run(&["compare", "--tsv", &p, &c]);
    assert_eq!(t.code, 0, "{}", t.err);
    let (header, row) = t.out.split_once('\n').unwrap();
    let cols: Vec<(&str, &str)> = header.split('\t').zip(row.trim_end().split('\t')).collect();
    assert_eq!(
        cols[cols.len() - 2..],
        [
            (
                "events",
                "__schedule:0.000195:0.031445,do_idle:0.000000:0.000293"
            ),
            ("events_moved", "__schedule")
        ]
    );
    let m = run(&["report", &p, &c]);
    assert_eq!(m.code, 0, "{}", m.err);
    assert_contains(&m.out, &["+0.031       -  entries into __schedule\n"]);
    // Without the events on one side: no change taken, and said.
    let bare_events = format!("parent={}", fixture("s0-parent-1.txt"));
    let r = run(&["compare", &bare_events, &c]);
    assert!(!section(&r.out).contains("entries into"), "{}", r.out);
    assert_contains(
        &joined(section(&r.out)),
        &[
            "Events: point 2 counted parent's, point 1 did not or counted others, so no change \
         is shown.",
        ],
    );
    let t = run(&["compare", "--tsv", &bare_events, &c]);
    assert!(t.out.trim_end().ends_with("\tNA\tNA"), "{}", t.out);
}
