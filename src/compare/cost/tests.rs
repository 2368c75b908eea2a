//! The cost lines read and summed: real points of the kernel tests
//! (tests/fixtures/kernel, booted with --cost), and those points' lines
//! broken one way at a time.

use super::*;
use crate::compare::analysis::Analysis;
use crate::compare::cost_table::MAX_ROWS;
use crate::compare::point::{self, CountRoom, Point, MAX_ROUNDS};
use crate::compare::Args;

/// What point/cost_lines.rs says of a line out of docs/cost.md's format.
const FORMAT: &str = "a cost line out of docs/cost.md's format";

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/kernel/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `text` read as a point (pollwake: the rows of series `mode`).
fn read_point<'t>(text: &'t str, mode: Option<&str>) -> Point<'t> {
    let mut v = Box::new([0.0; MAX_ROUNDS]);
    point::read(
        text.as_bytes(),
        &mut v,
        &mut CountRoom::kept(1),
        mode.map(str::as_bytes),
    )
    .unwrap()
}

/// `compare LABEL=TEXT...` analysed, and its first comparison's lines
/// summed (the table kept for good: a test's few are small beside a heap).
fn summed<'t>(
    points: &[(&'static str, &'t str)],
    mode: Option<&'static str>,
) -> Result<&'t Sum<'t>, NoTable> {
    let mut a = Args::default();
    for (i, (l, _)) in points.iter().enumerate() {
        (a.labels[i], a.files[i]) = (Some(l.as_bytes()), Some(&b"f"[..]));
    }
    (a.n, a.mode) = (points.len(), mode.map(str::as_bytes));
    let pts: Vec<Point> = points.iter().map(|(_, t)| read_point(t, mode)).collect();
    // Analysis ties the points' texts to the slice of them: kept for good.
    let (a, pts) = (Box::leak(Box::new(a)), Box::leak(pts.into_boxed_slice()));
    let an = Analysis::of(a, pts);
    let t = Box::leak(Box::new(Sum::new()));
    sum(&an, &an.cmps()[0], t).expect("cost lines")?;
    Ok(t)
}

/// Whether `compare` of these points has no table at all.
fn nothing(points: &[(&'static str, &str)]) -> bool {
    let mut a = Args::default();
    for (i, (l, _)) in points.iter().enumerate() {
        (a.labels[i], a.files[i]) = (Some(l.as_bytes()), Some(&b"f"[..]));
    }
    a.n = points.len();
    let pts: Vec<Point> = points.iter().map(|(_, t)| read_point(t, None)).collect();
    let an = Analysis::of(&a, &pts);
    sum(&an, &an.cmps()[0], &mut Sum::new()).is_none()
}

/// The s0 sandwich's texts: parent, child, child, parent.
fn s0() -> [String; 4] {
    ["s0-parent-1", "s0-child-1", "s0-child-2", "s0-parent-2"].map(|n| fixture(&format!("{n}.txt")))
}

/// The functions listed (at most MAX_ROWS), in order: name, change, sides.
fn listed<'t>(t: &'t Sum<'t>) -> Vec<(&'t str, f64, u8)> {
    let mut v = vec![];
    let mut last = None;
    while let Some(s) = t.next(last) {
        v.push((core::str::from_utf8(s.name).unwrap(), s.change(), s.sides));
        last = Some(s);
    }
    v
}

#[test]
fn s0_the_change_is_three_io_uring_functions_and_the_new_helper_is_the_childs() {
    let p = s0();
    let t = summed(
        &[
            ("parent", &p[0]),
            ("child", &p[1]),
            ("child", &p[2]),
            ("parent", &p[3]),
        ],
        None,
    )
    .unwrap();
    // Both child boots alike, both parent boots alike.
    assert_eq!(t.alike, [true, true]);
    // Exactly +30, +22 and +6 instructions a pair, the helper the child's
    // only (sides 2).
    assert_eq!(
        listed(t),
        [
            ("__io_submit_flush_completions", 30.0, 3),
            ("io_req_track_inflight", 22.0, 2),
            ("io_futex_prep", 6.0, 3)
        ]
    );
    assert_eq!(t.threshold, 512.0 / 16384.0);
    // The point moved as counted, to the interrupts in the clock reads.
    let kernel = t.kernel[1] - t.kernel[0];
    assert!((kernel - 58.0).abs() < 0.1, "{kernel}");
    let (counted, timed) = (kernel + t.user[1] - t.user[0], t.point[1] - t.point[0]);
    assert!((counted - timed).abs() < 0.02, "{counted} {timed}");
    // Every function's figures add up to the kernel's, on each side.
    for side in 0..2 {
        let all: f64 = t.slots.iter().map(|s| s.v[side]).sum();
        assert!(
            (all - t.kernel[side]).abs() < 1e-6,
            "{all} {}",
            t.kernel[side]
        );
    }
}

/// n0, the NOP control: no function of the NOP path (one the parent's spans ran) moves by
/// one instruction a cycle. What moved is work only the child's boot ran in its spans (a
/// context switch into RCU's kthread: the scheduler's functions), never io_uring's.
#[test]
fn n0_no_function_of_the_nop_path_moves_by_a_cycles_instruction() {
    let (a, b) = (fixture("n0-parent.txt"), fixture("n0-child.txt"));
    let t = summed(&[("parent", &a), ("child", &b)], None).unwrap();
    for (name, change, sides) in listed(t) {
        assert_eq!(sides, 2, "{name} {change}: the parent's spans ran it too");
        assert!(
            !name.starts_with("io_") && !name.starts_with("__io_"),
            "{name}"
        );
    }
    assert!(t.functions > 100, "{}", t.functions);
}

#[test]
fn pollwake_idle_the_wake_up_path_moved() {
    let (a, b) = (fixture("pollwake-parent.txt"), fixture("pollwake-poll.txt"));
    let t = summed(&[("parent", &a), ("poll", &b)], Some("pollwake_idle")).unwrap();
    let l = listed(t);
    assert_eq!((l[0].0, l[0].2), ("ep_poll_callback", 3));
    assert!(l.iter().any(|f| f.0 == "__wake_up"), "{l:?}");
    // All down but the flag's exchange, up 4 instructions a burst of 32.
    for (name, change, _) in &l {
        assert_eq!(*change > 0.0, *name == "io_poll_wq_wake", "{name}");
    }
    assert!(l.contains(&("io_poll_wq_wake", 0.125, 3)), "{l:?}");
    // Another mode, another series: its own lines.
    let w = summed(&[("parent", &a), ("poll", &b)], Some("pollwake_waiter")).unwrap();
    assert!(listed(w).len() > MAX_ROWS);
    assert!(w.user[1] < w.user[0]);
}

#[test]
fn nothing_without_cost_lines_and_one_reason_with_some() {
    let p = s0();
    let bare = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("# cost: "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let (a, c) = (bare(&p[0]), bare(&p[1]));
    assert!(nothing(&[("parent", &a), ("child", &c)]));
    let n = summed(&[("parent", &p[0]), ("child", &c)], None)
        .err()
        .unwrap();
    assert_eq!((n.at, n.line), (1, 0));
    assert!(n.why.starts_with("no # cost: lines"), "{}", n.why);
}

/// A change of one line: its new text, None to remove it.
type Edit<'e> = &'e dyn Fn(&str) -> Option<String>;

/// Point `text` with its cost line number `k` (0: the first) changed by
/// `f`, summed against the s0 child.
fn broken(text: &str, k: usize, f: Edit) -> NoTable {
    let mut seen = 0;
    let mut out = String::new();
    for l in text.lines() {
        let line = if !l.starts_with("# cost: ") {
            Some(l.to_string())
        } else {
            seen += 1;
            if seen - 1 == k {
                f(l)
            } else {
                Some(l.to_string())
            }
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
    summed(&[("parent", a), ("child", b)], None).err().unwrap()
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
fn lines_out_of_format_are_refused_with_their_line_and_why() {
    let p = fixture("s0-parent-1.txt");
    // Cost lines 0: method, 1: series, 2..: fn. The line a reason names (0:
    // the whole point), as cost line `at` of the text before the change.
    let cases: [(usize, Edit, Option<usize>, &str); 7] = [
        (0, &|_| None, None, "no method line"),
        (1, &|_| None, None, "no method line, or no series line"),
        (1, &|l| Some(l.replace("pairs=", "pears=")), Some(1), FORMAT),
        (
            1,
            &|l| Some(l.replace("kernel=", "kernel=x")),
            Some(1),
            FORMAT,
        ),
        (2, &|l| Some(format!("{l} extra")), Some(2), FORMAT),
        (
            3,
            &|l| Some(l.replace(" fn s0_wait_wake ", " fn s0_wait_wake 1.0 x")),
            Some(3),
            FORMAT,
        ),
        (4, &|l| Some(l.replace("fn ", "fun ")), Some(4), FORMAT),
    ];
    for (k, f, at, why) in cases {
        let n = broken(&p, k, f);
        assert!(n.why.starts_with(why), "line {k}: {} (want {why})", n.why);
        assert_eq!(
            (n.at, n.line),
            (0, at.map_or(0, |a| line_of(&p, a))),
            "{why}"
        );
    }
    // A fn line left out, or one named twice: they add up to another total.
    for f in [&|_: &str| None, &|l: &str| Some(format!("{l}\n{l}"))] as [Edit; 2] {
        let n = broken(&p, 2, f);
        assert_eq!(n.why, "its fn lines do not add up to its kernel=");
        assert_eq!(n.line, line_of(&p, 1));
    }
}

#[test]
fn lines_of_another_run_or_kernel_are_refused() {
    let p = s0();
    // Another run's lines: the parent's cost lines under rows of half its
    // pairs a round (another contract's rows).
    let half = |n: &str| n.parse::<u64>().unwrap() / 2;
    let rows: String = p[0]
        .lines()
        .map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            [r, n, ns, pass] if r.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{r}\t{}\t{ns}\t{pass}\n", half(n))
            }
            ["mean", n, ns, pass] => format!("mean\t{}\t{ns}\t{pass}\n", half(n)),
            _ => format!("{l}\n"),
        })
        .collect();
    let n = summed(&[("parent", &rows), ("child", &p[1])], None)
        .err()
        .unwrap();
    assert!(n.why.starts_with("pairs= not its rows'"), "{}", n.why);
    // Two boots of one label counted with different System.maps.
    let at = p[3].find("map_sha256=").unwrap() + "map_sha256=".len();
    let other = p[3].replace(&p[3][at..at + 64], &"0".repeat(64));
    let n = summed(
        &[("parent", &p[0]), ("child", &p[1]), ("parent", &other)],
        None,
    )
    .err()
    .unwrap();
    assert_eq!(
        (n.at, n.why),
        (2, "another System.map than its label's first point")
    );
    // The child's map differs from the parent's, as two kernels' must.
    assert!(summed(&[("parent", &p[0]), ("child", &p[1])], None).is_ok());
}

#[test]
fn boots_that_differ_are_averaged_and_said_to_differ() {
    let p = s0();
    // The second parent boot with two more instructions in one function:
    // its kernel= follows.
    let pairs: f64 = p[3]
        .lines()
        .find_map(|l| l.strip_prefix("mean\t"))
        .and_then(|l| l.split('\t').next())
        .unwrap()
        .parse()
        .unwrap();
    let fns: Vec<&str> = p[3]
        .lines()
        .filter(|l| l.starts_with("# cost: fn "))
        .collect();
    let w: Vec<&str> = fns[0].split(' ').collect();
    let insns: u64 = w[5].parse().unwrap();
    let series = p[3]
        .lines()
        .find(|l| l.starts_with("# cost: series "))
        .unwrap();
    let kernel: u64 = series
        .split(' ')
        .find_map(|x| x.strip_prefix("kernel="))
        .unwrap()
        .parse()
        .unwrap();
    let more = p[3]
        .replace(
            fns[0],
            &format!("{} {} {} {}", w[..4].join(" "), w[4], insns + 2, w[6]),
        )
        .replace(
            &format!("kernel={kernel} "),
            &format!("kernel={} ", kernel + 2),
        );
    let t = summed(
        &[("parent", &p[0]), ("child", &p[1]), ("parent", &more)],
        None,
    )
    .unwrap();
    assert_eq!(t.alike, [false, true]);
    // The parent's kernel figure is the mean of its two boots'.
    let one = summed(&[("parent", &p[0]), ("child", &p[1])], None).unwrap();
    assert!((t.kernel[0] - one.kernel[0] - 1.0 / pairs).abs() < 1e-9);
}

/// A synthetic point of 2 rounds of 2 cycles of 2 pairs (8 pairs; a
/// cycle's instruction is 0.5 a pair) and its cost lines: `n` functions
/// f00.., function `i` of `insns(i)` instructions; `boot`, two hex
/// digits, makes its boot id and names its System.map.
fn synthetic(boot: &str, n: usize, insns: &dyn Fn(usize) -> u64) -> String {
    let mut s = format!(
        "# uring-repro 0.1.0 profile=s0_wait_wake boot_id={boot}{boot}{boot}{boot}-0000-4000-8000-000000000001 timebase=icount\n\
         # cycles=2 rounds=2\nround\tpairs\tns_per_pair\tsemantic_pass\n\
         0\t4\t10.000000\t1\n1\t4\t10.000000\t1\nmean\t8\t10.000000\t1\n\
         # checks: x=0 -> PASS\n# cost: method counter=c api=1 map_sha256={boot}\n"
    );
    let total: u64 = (0..n).map(insns).sum();
    s += &format!("# cost: series s0_wait_wake windows=2 pairs=8 user=8 kernel={total}\n");
    for i in 0..n {
        s += &format!("# cost: fn s0_wait_wake 1.000 {} f{i:02}\n", insns(i));
    }
    s
}

#[test]
fn listed_biggest_first_ties_in_byte_order() {
    let a = synthetic("aa", 20, &|_| 8);
    // f00..f13 up by 16 (2 a pair), f14..f15 by 4 (0.5 a pair: one a
    // cycle), f16..f19 by 1 (under one a cycle).
    let b = synthetic("bb", 20, &|i| match i {
        0..=13 => 24,
        14 | 15 => 12,
        _ => 9,
    });
    let t = summed(&[("p", &a), ("q", &b)], None).unwrap();
    let l = listed(t);
    assert_eq!(t.functions, 20);
    let names: Vec<&str> = l.iter().map(|x| x.0).collect();
    assert_eq!(
        names,
        (0..16).map(|i| format!("f{i:02}")).collect::<Vec<_>>()
    );
    assert_eq!((l[0].1, l[15].1), (2.0, 0.5));
}

#[test]
fn more_functions_than_the_table_holds_are_refused() {
    let s = synthetic("aa", MAX_FUNCTIONS + 1, &|_| 1);
    let t = synthetic("bb", MAX_FUNCTIONS + 1, &|_| 1);
    let e = summed(&[("p", &s), ("q", &t)], None).err().unwrap();
    assert_eq!(e.why, "over compare's limit of 3072 functions at");
    assert_eq!(MAX_FUNCTIONS, 3072, "the message names the limit");
    // The function over the limit: its line.
    let over = format!("# cost: fn s0_wait_wake 1.000 1 f{MAX_FUNCTIONS}");
    assert_eq!(e.line, s.lines().position(|l| l == over).unwrap() + 1);
    // As many as the table holds: read.
    let (s, t) = (
        synthetic("aa", MAX_FUNCTIONS, &|_| 1),
        synthetic("bb", MAX_FUNCTIONS, &|_| 1),
    );
    let t = summed(&[("p", &s), ("q", &t)], None).unwrap();
    assert_eq!((t.functions, listed(t).len()), (MAX_FUNCTIONS, 0));
}

/// Point `text` (s0's) with the events `names` counted (`events=` on its
/// method line) and an event line each, of `counts`.
fn with_events(text: &str, names: &[&str], counts: &[u64]) -> String {
    let mut out = String::new();
    for l in text.lines() {
        out.push_str(l);
        if l.starts_with("# cost: method ") {
            out.push_str(&format!(" events={}", names.join(":")));
        }
        out.push('\n');
    }
    for (n, c) in names.iter().zip(counts) {
        out.push_str(&format!("# cost: event s0_wait_wake 0.000 {c} {n}\n"));
    }
    out
}

#[test]
fn events_are_summed_per_side_and_move_by_one_entry_a_cycle() {
    let p = s0();
    // The s0 points: 10240 pairs, 32 a cycle; one entry a cycle is 320.
    let names = ["__schedule", "try_to_wake_up", "do_idle"];
    let parent = [
        with_events(&p[0], &names, &[2, 321, 0]),
        with_events(&p[3], &names, &[2, 321, 0]),
    ];
    let child = [
        with_events(&p[1], &names, &[322, 640, 1]),
        with_events(&p[2], &names, &[322, 642, 1]),
    ];
    let t = summed(
        &[
            ("parent", &parent[0]),
            ("child", &child[0]),
            ("child", &child[1]),
            ("parent", &parent[1]),
        ],
        None,
    )
    .unwrap();
    let ev = &t.events;
    assert_eq!(ev.status(), EventsCounted::Counted);
    assert_eq!(ev.n, 3);
    assert_eq!(ev.names[..3], names.map(str::as_bytes));
    // A label's figure: the mean of its boots', per pair.
    assert_eq!(ev.v[0], [2.0 / 10240.0, 322.0 / 10240.0]);
    assert_eq!(ev.v[1], [321.0 / 10240.0, 641.0 / 10240.0]);
    // __schedule +320 (one a cycle) moved, try_to_wake_up +320 too, do_idle
    // +1 did not; the boots of the child differ (640, 642).
    assert_eq!(ev.moved_bits(t.threshold), 0b011);
    assert_eq!(t.alike, [true, false]);
    // Half an entry a cycle (160) moved, one entry short of it not.
    let half = with_events(&p[1], &names, &[162, 480, 0]);
    let t = summed(&[("parent", &parent[0]), ("child", &half)], None).unwrap();
    assert_eq!(t.events.moved_bits(t.threshold), 0b001);
    assert!((t.events.change(1) - 159.0 / 10240.0).abs() < 1e-12);
    // Against itself: nothing moves.
    let t = summed(&[("parent", &parent[0]), ("again", &parent[1])], None).unwrap();
    assert_eq!(t.events.moved_bits(t.threshold), 0);
    assert_eq!((0..3).map(|k| t.events.change(k)).sum::<f64>(), 0.0);
}

#[test]
fn the_sides_spread_of_an_event_counts_in_whether_it_moved() {
    // Draws of two vCPUs: the base's boots differ. An event moved when its
    // change reaches half an entry a cycle (160 of 10240 pairs) beyond the
    // base's spread, as instructions reach the gate beyond theirs.
    let p = s0();
    let names = ["__schedule", "try_to_wake_up"];
    let base = [
        with_events(&p[0], &names, &[100, 1000]),
        with_events(&p[3], &names, &[300, 1000]),
    ];
    let head = |counts: &[u64]| with_events(&p[1], &names, counts);
    let moved = |h: &str| {
        let t = summed(&[("base", &base[0]), ("head", h), ("base", &base[1])], None).unwrap();
        assert!((t.events.spread(0) - 200.0 / 10240.0).abs() < 1e-12);
        assert_eq!(t.events.spread(1), 0.0);
        t.events.moved_bits(t.threshold)
    };
    // Base 200 a boot on average, spread 200: +200 is not 160 beyond it,
    // +360 is; try_to_wake_up's base agrees, so 160 is enough.
    assert_eq!(moved(&head(&[400, 1160])), 0b10);
    assert_eq!(moved(&head(&[560, 1159])), 0b01);
    assert_eq!(moved(&head(&[40, 1000])), 0);
    // The head's draws spread too: the larger side's spread counts.
    // try_to_wake_up +200 on average, the head's two 1100 and 1300: 200
    // of spread, so +200 is not 160 beyond it.
    let heads = [head(&[200, 1100]), with_events(&p[2], &names, &[200, 1300])];
    let pts = [
        ("base", base[0].as_str()),
        ("head", heads[0].as_str()),
        ("head", heads[1].as_str()),
        ("base", base[1].as_str()),
    ];
    let t = summed(&pts, None).unwrap();
    assert!((t.events.spread(1) - 200.0 / 10240.0).abs() < 1e-12);
    assert_eq!(t.events.moved_bits(t.threshold), 0);
}

#[test]
fn events_not_counted_by_every_point_or_other_ones_are_no_change() {
    let p = s0();
    let names = ["__schedule"];
    let (a, b) = (
        with_events(&p[0], &names, &[2]),
        with_events(&p[1], &names, &[900]),
    );
    // The parent without events: not counted there, never 0.
    let t = summed(&[("parent", &p[0]), ("child", &b)], None).unwrap();
    assert_eq!(
        t.events.status(),
        EventsCounted::Mixed {
            counted: 0b10,
            not: 0b01
        }
    );
    assert_eq!(t.events.moved_bits(t.threshold), 0);
    // Another event counted: not the first point's.
    let other = with_events(&p[1], &["do_idle"], &[900]);
    let t = summed(&[("parent", &a), ("child", &other)], None).unwrap();
    assert_eq!(
        t.events.status(),
        EventsCounted::Mixed {
            counted: 0b01,
            not: 0b10
        }
    );
    // Neither counted any.
    let t = summed(&[("parent", &p[0]), ("child", &p[1])], None).unwrap();
    assert_eq!(t.events.status(), EventsCounted::NotCounted);
}
