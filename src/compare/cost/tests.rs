//! The cost lines read and diffed: real points of the kernel tests
//! (tests/fixtures/kernel, booted with --cost), and those points' lines
//! broken one way at a time.

use super::*;
use crate::compare::analysis::Analysis;
use crate::compare::point::{self, MAX_ROUNDS};
use crate::compare::Args;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/kernel/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `text` read as a point (pollwake: the rows of `mode`, `pollwake_M`).
fn read_point<'t>(text: &'t str, mode: Option<&str>) -> Point<'t> {
    let mut v = Box::new([0.0; MAX_ROUNDS]);
    point::read(text.as_bytes(), &mut v, mode.map(str::as_bytes)).unwrap()
}

/// `compare LABEL=TEXT...` analysed, and its first comparison's diff.
fn diffed<'t>(
    points: &[(&'static str, &'t str)],
    mode: Option<&'static str>,
) -> Option<Result<Diff<'t>, Not<'t>>> {
    let mut a = Args::default();
    for (i, (l, _)) in points.iter().enumerate() {
        (a.labels[i], a.files[i]) = (Some(l.as_bytes()), Some(&b"f"[..]));
    }
    (a.n, a.mode) = (points.len(), mode);
    let pts: Vec<Point> = points.iter().map(|(_, t)| read_point(t, mode)).collect();
    // Analysis ties the points' texts to the slice of them: kept for good.
    let (a, pts) = (Box::leak(Box::new(a)), Box::leak(pts.into_boxed_slice()));
    let an = Analysis::of(a, pts);
    diff(&an, &an.cmps()[0])
}

/// The s0 sandwich's texts: parent, child, child, parent.
fn s0() -> [String; 4] {
    ["s0-parent-1", "s0-child-1", "s0-child-2", "s0-parent-2"].map(|n| fixture(&format!("{n}.txt")))
}

fn names<'t>(d: &Diff<'t>) -> Vec<(&'t str, u8)> {
    d.rows[..d.n]
        .iter()
        .map(|r| (core::str::from_utf8(r.name).unwrap(), r.sides))
        .collect()
}

#[test]
fn s0_the_change_is_three_io_uring_functions_and_the_new_helper_is_the_childs() {
    let t = s0();
    let d = diffed(
        &[
            ("parent", &t[0]),
            ("child", &t[1]),
            ("child", &t[2]),
            ("parent", &t[3]),
        ],
        None,
    )
    .unwrap()
    .unwrap();
    // Both child boots alike, both parent boots alike.
    assert_eq!((d.boots, d.alike), ([2, 2], [true, true]));
    assert_eq!(
        names(&d),
        [
            ("__io_submit_flush_completions", 3),
            ("io_req_track_inflight", 2),
            ("io_futex_prep", 3)
        ]
    );
    // Exactly +30, +22 and +6 instructions a pair: integers of a pair.
    let changes: Vec<f64> = d.rows[..3].iter().map(|r| r.change).collect();
    assert_eq!(changes, [30.0, 22.0, 6.0]);
    assert_eq!((d.moved, d.threshold), (3, 512.0 / 16384.0));
    // The kernel's change is the functions' together, exactly.
    let kernel = d.kernel[1] - d.kernel[0];
    assert!((kernel - 58.0).abs() < 0.1, "{kernel}");
    // The point moved as counted, to the interrupts in the clock reads.
    let (counted, timed) = (kernel + d.user[1] - d.user[0], d.point[1] - d.point[0]);
    assert!((counted - timed).abs() < 0.02, "{counted} {timed}");
}

#[test]
fn n0_no_function_moves_by_a_cycles_instruction() {
    let (a, b) = (fixture("n0-parent.txt"), fixture("n0-child.txt"));
    let d = diffed(&[("parent", &a), ("child", &b)], None)
        .unwrap()
        .unwrap();
    assert_eq!((d.moved, d.n), (0, 0));
    assert!(d.functions > 100, "{}", d.functions);
}

#[test]
fn pollwake_idle_the_wake_up_path_moved() {
    let (a, b) = (fixture("pollwake-parent.txt"), fixture("pollwake-poll.txt"));
    let d = diffed(&[("parent", &a), ("poll", &b)], Some("pollwake_idle"))
        .unwrap()
        .unwrap();
    let n = names(&d);
    assert_eq!(n[0], ("ep_poll_callback", 3));
    assert!(n.contains(&("__wake_up", 3)), "{n:?}");
    // All down but the flag's exchange, up 4 instructions a burst of 32.
    for r in &d.rows[..d.n] {
        let up = r.name == b"io_poll_wq_wake";
        assert_eq!(r.change > 0.0, up, "{:?}", core::str::from_utf8(r.name));
    }
    let flag = d.rows[..d.n].iter().find(|r| r.name == b"io_poll_wq_wake");
    assert_eq!(flag.map(|r| r.change), Some(0.125));
    // Another mode, another series: its own lines.
    let w = diffed(&[("parent", &a), ("poll", &b)], Some("pollwake_waiter"))
        .unwrap()
        .unwrap();
    assert!(w.moved > MAX_ROWS && w.n == MAX_ROWS, "{}", w.moved);
    assert!(w.user[1] < w.user[0]);
}

#[test]
fn nothing_without_cost_lines_and_one_reason_with_some() {
    let t = s0();
    let bare = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("# cost: "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let (p, c) = (bare(&t[0]), bare(&t[1]));
    assert_eq!(diffed(&[("parent", &p), ("child", &c)], None), None);
    let n = diffed(&[("parent", &t[0]), ("child", &c)], None)
        .unwrap()
        .unwrap_err();
    assert_eq!((n.at, n.line), (1, 0));
    assert!(n.why.starts_with("no # cost: lines"), "{}", n.why);
}

/// A change of one line: its new text, None to remove it.
type Edit<'e> = &'e dyn Fn(&str) -> Option<String>;

/// Point `text` with its cost line number `k` (0: the first) changed by
/// `f`, diffed against the s0 child.
fn broken(text: &str, k: usize, f: Edit) -> Not<'static> {
    let mut seen = 0;
    let mut out = String::new();
    for l in text.lines() {
        let line = match l.starts_with("# cost: ") {
            true if seen == k => {
                seen += 1;
                f(l)
            }
            true => {
                seen += 1;
                Some(l.to_string())
            }
            false => Some(l.to_string()),
        };
        if let Some(line) = line {
            out.push_str(&line);
            out.push('\n');
        }
    }
    let (a, b): (&'static str, &'static str) = (
        Box::leak(out.into_boxed_str()),
        Box::leak(fixture("s0-child-1.txt").into_boxed_str()),
    );
    diffed(&[("parent", a), ("child", b)], None)
        .unwrap()
        .unwrap_err()
}

/// The line number of cost line `k` of `text`.
fn line_of(text: &str, k: usize) -> usize {
    let (i, _) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("# cost: "))
        .nth(k)
        .unwrap();
    i + 1
}

#[test]
fn malformed_lines_are_refused_with_their_line_and_why() {
    let p = fixture("s0-parent-1.txt");
    // Cost lines 0: method, 1: series, 2..: fn.
    let cases: [(usize, Edit, usize, &str); 10] = [
        (0, &|_| None, 0, "no cost method line"),
        (
            0,
            &|l| Some(format!("{l}\n{l}")),
            1,
            "a second cost method line",
        ),
        (
            0,
            &|l| Some(l.replace("map_sha256=", "map=")),
            0,
            "a cost method line not ending",
        ),
        (
            1,
            &|l| Some(l.replace("pairs=", "pears=")),
            1,
            "a cost series line without",
        ),
        (
            1,
            &|l| Some(format!("{l}\n{l}")),
            2,
            "a second cost series line",
        ),
        (1, &|_| None, 1, "a cost fn line before its series line"),
        (2, &|l| Some(format!("{l} extra")), 2, "not a cost fn line"),
        (
            3,
            &|l| Some(l.replace(" fn ", " fn s0_wait_wake 1.0 x")),
            3,
            "not a cost fn line",
        ),
        (2, &|_| None, 1, "its fn lines do not add up to its kernel="),
        (
            4,
            &|l| Some(l.replace("fn ", "fun ")),
            4,
            "not a cost line: its first word",
        ),
    ];
    for (k, f, at, why) in cases {
        let n = broken(&p, k, f);
        assert!(n.why.starts_with(why), "line {k}: {} (want {why})", n.why);
        assert_eq!((n.at, n.line), (0, line_of(&p, at)), "{why}");
    }
    // A function named twice: the second line of one name.
    let first_fn = p.lines().find(|l| l.starts_with("# cost: fn ")).unwrap();
    let n = broken(&p, 1, &|l| Some(format!("{l}\n{first_fn}")));
    assert_eq!(n.why, "a function named twice in one series");
}

#[test]
fn lines_of_another_run_or_kernel_or_method_are_refused() {
    let t = s0();
    // Another run's lines: the child's cost lines under the parent's rows,
    // with 64 cycles a round (other pairs).
    let rows: String = t[0]
        .lines()
        .map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            [r, "16384", ns, pass] => format!("{r}\t2048\t{ns}\t{pass}\n"),
            ["mean", _, ns, pass] => format!("mean\t30720\t{ns}\t{pass}\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    let n = diffed(&[("parent", &rows), ("child", &t[1])], None)
        .unwrap()
        .unwrap_err();
    assert!(
        n.why.starts_with("its pairs= are not the point's"),
        "{}",
        n.why
    );
    // Two boots of one label counted with different System.maps.
    let at = t[3].find("map_sha256=").unwrap() + "map_sha256=".len();
    let other = t[3].replace(&t[3][at..at + 64], &"0".repeat(64));
    let n = diffed(
        &[("parent", &t[0]), ("child", &t[1]), ("parent", &other)],
        None,
    )
    .unwrap()
    .unwrap_err();
    assert_eq!((n.at, n.other), (2, Some(0)));
    assert!(n.why.contains("another System.map"), "{}", n.why);
    // The child's map differs from the parent's, as it must: no error.
    assert!(diffed(&[("parent", &t[0]), ("child", &t[1])], None)
        .unwrap()
        .is_ok());
    // Another counting method.
    let method = t[1].replace("window=timed-spans", "window=shares");
    let n = diffed(&[("parent", &t[0]), ("child", &method)], None)
        .unwrap()
        .unwrap_err();
    assert_eq!((n.at, n.other), (1, Some(0)));
    assert!(n.why.contains("method differs"), "{}", n.why);
}

#[test]
fn boots_that_differ_are_averaged_and_said_to_differ() {
    let t = s0();
    // The second parent boot with one more instruction in a function that
    // ran 100 times a round... moved by 1 / pairs: its kernel= follows.
    let pairs = 245760.0;
    let fns: Vec<&str> = t[3]
        .lines()
        .filter(|l| l.starts_with("# cost: fn "))
        .collect();
    let line = fns[0];
    let w: Vec<&str> = line.split(' ').collect();
    let insns: u64 = w[5].parse().unwrap();
    let series = t[3]
        .lines()
        .find(|l| l.starts_with("# cost: series "))
        .unwrap();
    let kernel: u64 = series
        .split(' ')
        .find_map(|x| x.strip_prefix("kernel="))
        .unwrap()
        .parse()
        .unwrap();
    let more = t[3]
        .replace(
            line,
            &format!("{} {} {} {}", w[..4].join(" "), w[4], insns + 2, w[6]),
        )
        .replace(
            &format!("kernel={kernel} "),
            &format!("kernel={} ", kernel + 2),
        );
    let d = diffed(
        &[("parent", &t[0]), ("child", &t[1]), ("parent", &more)],
        None,
    )
    .unwrap()
    .unwrap();
    assert_eq!(d.alike, [false, true]);
    // The parent's kernel figure is the mean of its two boots'.
    let one = diffed(&[("parent", &t[0]), ("child", &t[1])], None)
        .unwrap()
        .unwrap();
    assert!((d.kernel[0] - one.kernel[0] - 1.0 / pairs).abs() < 1e-9);
}

#[test]
fn rows_biggest_first_ties_in_byte_order_at_most_max_rows() {
    // A synthetic point: 2 rounds of 2 cycles of 2 pairs (8 pairs, a
    // cycle's instruction 0.5 a pair), functions f00..f19.
    let point = |boot: &str, insns: &dyn Fn(usize) -> u64| -> String {
        let mut s = format!(
            "# uring-repro 0.1.0 profile=s0_wait_wake boot_id={boot} timebase=icount\n\
             # cycles=2 rounds=2\nround\tpairs\tns_per_pair\tsemantic_pass\n\
             0\t4\t10.000000\t1\n1\t4\t10.000000\t1\nmean\t8\t10.000000\t1\n\
             # checks: x=0 -> PASS\n\
             # cost: method counter=c api=1 map_sha256={boot}\n"
        );
        let total: u64 = (0..20).map(insns).sum();
        s += &format!("# cost: series s0_wait_wake pairs=8 user=8 kernel={total}\n");
        for i in 0..20 {
            s += &format!("# cost: fn s0_wait_wake 1.000 {} f{i:02}\n", insns(i));
        }
        s
    };
    let a = point("a", &|_| 8);
    // f00..f13 up by 16 (2 a pair), f14..f15 by 4 (0.5 a pair: one a
    // cycle), f16..f19 by 1 (under one a cycle).
    let b = point("b", &|i| match i {
        0..=13 => 24,
        14 | 15 => 12,
        _ => 9,
    });
    let d = diffed(&[("p", &a), ("q", &b)], None).unwrap().unwrap();
    assert_eq!((d.moved, d.n, d.functions), (16, MAX_ROWS, 20));
    let n: Vec<&str> = names(&d).iter().map(|x| x.0).collect();
    assert_eq!(
        n,
        ["f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11"]
    );
    assert_eq!(d.rows[0].change, 2.0);
}

#[test]
fn more_functions_than_the_table_holds_are_refused() {
    // One point of MAX_FUNCTIONS + 1 functions, each once.
    let n = MAX_FUNCTIONS + 1;
    let mut s = String::from(
        "# uring-repro 0.1.0 profile=s0_wait_wake boot_id=a timebase=icount\n\
         # cycles=1 rounds=1\nround\tpairs\tns_per_pair\tsemantic_pass\n\
         0\t1\t10.000000\t1\nmean\t1\t10.000000\t1\n# checks: x=0 -> PASS\n\
         # cost: method counter=c map_sha256=a\n",
    );
    s += &format!("# cost: series s0_wait_wake pairs=1 user=1 kernel={n}\n");
    for i in 0..n {
        s += &format!("# cost: fn s0_wait_wake 1.000 1 f{i}\n");
    }
    let t = s.replace("boot_id=a", "boot_id=b");
    let e = diffed(&[("p", &s), ("q", &t)], None).unwrap().unwrap_err();
    assert_eq!(e.why, "more functions than compare's limit, 3072, at");
    assert_eq!(MAX_FUNCTIONS, 3072, "the message names the limit");
    let line = format!("fn s0_wait_wake 1.000 1 f{MAX_FUNCTIONS}");
    assert_eq!(e.text, line.as_bytes());
    // One fewer: read.
    let cut = |x: &str| {
        x.replace(
            &format!("# cost: fn s0_wait_wake 1.000 1 f{MAX_FUNCTIONS}\n"),
            "",
        )
        .replace(&format!("kernel={n}"), &format!("kernel={MAX_FUNCTIONS}"))
    };
    let (s, t) = (cut(&s), cut(&t));
    let d = diffed(&[("p", &s), ("q", &t)], None).unwrap().unwrap();
    assert_eq!((d.functions, d.moved), (MAX_FUNCTIONS, 0));
}
