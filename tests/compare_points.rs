//! Which saved points `compare` takes as points, and how each counts: a
//! whole run only (a cut one refused, a failed one invalid), never a
//! witnessed run beside plain ones, one contract across points (every word
//! of the contract line), a verdict only on the figures it rests on,
//! one-round points without NaN, and points on QEMU's instruction clock,
//! exact and in instructions, never beside wall time (boots:
//! compare_boots.rs).

mod utils;

use std::path::Path;

use utils::{assert_contains, assert_narrow, field, icount, published, run, write, Run, Scratch};

/// Our TSV of the published child with the `rounds_planned` column (15),
/// its first `keep` measured rows, the last of them failed when `fail`
/// (the contract hash ours writes, where the formal tool's is zeros).
fn child_tsv(keep: usize, fail: bool) -> String {
    let formal = std::fs::read_to_string(published("child.tsv"))
        .unwrap()
        .replace(&"0".repeat(64), CONTRACT);
    let mut out = String::new();
    let mut measured = 0;
    for (i, l) in formal.lines().enumerate() {
        if i == 0 {
            out += &format!("{l}\ttool_version\trounds_planned\n");
            continue;
        }
        if l.contains("\tmeasured\t") {
            measured += 1;
            if measured > keep {
                break;
            }
        }
        // semantic_pass is the third cell from the end.
        let l = if fail && measured == keep {
            l.replace("\t2\t1\t4038", "\t2\t0\t4038")
        } else {
            l.to_string()
        };
        out += &format!("{l}\t0.1.0\t15\n");
    }
    out
}

#[test]
fn a_whole_run_is_a_point_a_cut_one_is_refused_a_failed_one_is_invalid() {
    let dir = Scratch::new("cut");
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    // All 15 rounds of the 15 planned: the published numbers.
    let whole = write(&dir, "whole.tsv", &child_tsv(15, false));
    let Run { code, out, err } = run(&["compare", &a, &whole, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(field(&out, "change"), "+9.268%");
    // Killed after 14: every row passed, no trailer.
    let killed = write(&dir, "killed.tsv", &child_tsv(14, false));
    let Run { code, out, err } = run(&["compare", &a, &killed, &c]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!("uring-repro: {killed}: interrupted run: 14 of 15 rounds\n")
    );
    // Failed in round 6 (the run stops there): a point, an invalid one.
    let failed = write(&dir, "failed.tsv", &child_tsv(7, true));
    let Run { code, out, err } = run(&["compare", &a, &failed, &c]);
    assert_eq!(code, 1, "{err}");
    assert_contains(&out, &["point 2 FAILED: 1 round(s) with semantic_pass 0"]);
    // An older TSV (no rounds_planned) of 14 rounds is read as before.
    let old: String = child_tsv(14, false)
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once('\t').unwrap().0))
        .collect();
    let old = write(&dir, "old.tsv", &old);
    let Run { code, out, err } = run(&["compare", &a, &old, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_contains(&out, &["  2  B                14  "]);
}

/// A witnessed run (tracepoints on around its rounds) is not comparable
/// with plain ones: refused, naming the first point that differs.
#[test]
fn witnessed_and_plain_points_are_not_mixed() {
    let dir = Scratch::new("witness-mix");
    let a = std::fs::read_to_string(published("parent_a.txt")).unwrap();
    let first = a.lines().find(|l| l.starts_with("# uring-repro ")).unwrap();
    let witnessed = a.replacen(first, &format!("{first} witness=on"), 1);
    let w = write(&dir, "witnessed.txt", &witnessed);
    let (b, c) = (published("child.txt"), published("parent_b.txt"));
    let Run { code, out, err } = run(&["compare", &b, &w, &c]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(
        err,
        format!(
            "uring-repro: {w}: a witnessed run beside plain ones (enabled tracepoints cost \
             time: compare like with like)\n"
        )
    );
    // All witnessed, or all plain: compared as usual.
    let c_text = std::fs::read_to_string(&c).unwrap();
    let first_c = c_text
        .lines()
        .find(|l| l.starts_with("# uring-repro "))
        .unwrap();
    let w2 = write(
        &dir,
        "witnessed2.txt",
        &c_text.replacen(first_c, &format!("{first_c} witness=on"), 1),
    );
    assert_eq!(run(&["compare", &w, &w2]).code, 0);
}

/// Points of different contracts are never compared: every field the
/// banners (or TSV columns) state must agree, and the error names the
/// field, both values and the file it disagrees with. A point that states
/// less (the formal C reproducer's TSV) is checked on what it states; no
/// `timebase` word means wall time, no `inject_ns` in our banner none.
#[test]
fn points_of_different_contracts_are_refused() {
    let dir = Scratch::new("contract");
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let child = std::fs::read_to_string(published("child.txt")).unwrap();
    let why = "another contract (compare like with like)";
    for (i, (from, to, said)) in [
        ("futex=private", "futex=shared", format!("futex=shared beside futex=private in {a}: {why}")),
        (" clock=vdso\n", " clock=vdso inject_ns=100\n", format!("inject_ns=100 beside inject_ns=0 in {a}: {why}")),
        ("warmups=3", "warmups=0", format!("warmups=0 beside warmups=3 in {a}: {why}")),
        (" cpu=2 ", " cpu=3 ", format!("cpu=3 beside cpu=2 in {a}: {why}")),
        ("slots=32", "slots=16", format!("slots=16 beside slots=32 in {a}: {why}")),
        ("cycles=512", "cycles=256", format!("cycles=256 beside cycles=512 in {a}: {why}")),
        ("timeout_s=2", "timeout_s=5", format!("timeout_s=5 beside timeout_s=2 in {a}: {why}")),
        ("input_sha256=4", "input_sha256=5", format!("input_sha256=5{} beside input_sha256=4{} in {a}: {why}", &CONTRACT[1..], &CONTRACT[1..])),
        (
            " clock=vdso\n",
            " clock=vdso timebase=icount\n",
            format!("timebase=icount beside timebase=wall in {a}: icount counts guest instructions, not time (compare like with like)"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(child.contains(from), "{from}");
        let b = write(&dir, &format!("b{i}.txt"), &child.replacen(from, to, 1));
        let Run { code, out, err } = run(&["compare", &a, &b, &c]);
        assert_eq!((code, out.as_str()), (2, ""), "{to}");
        assert_eq!(err, format!("uring-repro: {b}: {said}\n"));
    }
    // The formal TSV states cycles (and no futex scope, inject_ns or
    // warm-ups): checked on that.
    let formal = std::fs::read_to_string(published("child.tsv")).unwrap();
    let b = write(
        &dir,
        "b.tsv",
        &formal.replace("\t512\t16384\t", "\t256\t16384\t"),
    );
    let Run { code, err, .. } = run(&["compare", &a, &b, &c]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("uring-repro: {b}: cycles=256 beside cycles=512 in {a}: {why}\n")
    );
    // Our TSV's timebase column: icount beside a wall-clock stdout point.
    let ours: String = formal
        .lines()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "{l}\t{}\n",
                ["tool_version\ttimebase", "0.1.0\ticount"][(i > 0) as usize]
            )
        })
        .collect();
    let b = write(&dir, "icount.tsv", &ours);
    let Run { code, err, .. } = run(&["compare", &a, &b, &c]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "uring-repro: {b}: timebase=icount beside timebase=wall in {a}: "
        )),
        "{err}"
    );
    // The same contract stated twice ways: compared.
    let wall = write(
        &dir,
        "wall.txt",
        &child.replacen(" clock=vdso\n", " clock=vdso timebase=wall\n", 1),
    );
    assert_eq!(run(&["compare", &a, &wall, &c]).code, 0);
    let b = write(
        &dir,
        "b.txt",
        &child.replacen(" clock=vdso\n", " clock=vdso inject_ns=0\n", 1),
    );
    assert_eq!(run(&["compare", &a, &b, &c]).code, 0);
}

/// The published points' contract hash.
const CONTRACT: &str = "40383f68e91cc249d50cd7cb5170861f61d6f0991bf93c2dbf6edd549520f072";

/// A whole pollwake run of three rounds as its stdout is (hand-made), of
/// boot `n`, its contract line `contract`; modes idle and waiter `up` ns
/// above none.
fn pollwake(n: u8, contract: &str, up: u32) -> String {
    let mut s = format!(
        "# uring-repro 0.1.0 profile=pollwake kernel=6.18.0-test \
         boot_id={n:02x}{n:02x}{n:02x}{n:02x}-0000-4000-8000-0000000000{n:02x} cpu=1 \
         cpu_choice=default clock=vdso\n# {contract}\n\
         profile\tround\tpairs\tns_per_pair\tsemantic_pass\n"
    );
    let modes = [
        ("none", 130),
        ("idle", 195 + up),
        ("waiter", 285 + up),
        ("none_aa", 131),
    ];
    for r in 0..3 {
        for (m, ns) in modes {
            s += &format!("pollwake_{m}\t{r}\t16384\t{}.000000\t1\n", ns + r);
        }
    }
    for (m, ns) in modes {
        s += &format!("pollwake_{m}\tmean\t49152\t{}.000000\t1\n", ns + 1);
    }
    s + "# checks: cqes=300000 bad_results=0 -> PASS\n"
}

/// Every word of the contract line is the contract, whatever the profile:
/// pollwake's ring flags, waiter CPU, watchdog and burst as much as a
/// futex workload's slots. Two points whose contract lines state a word
/// otherwise, or one states a word the other does not, are refused naming
/// the word and both values; the ring's feature bits (the kernel's) may
/// differ.
#[test]
fn every_word_of_the_contract_line_is_the_contract() {
    let d = Scratch::new("contract-lines");
    let base = "burst=32 cycles=512 warmups=3 rounds=3 ring_flags=none waiter_cpu=1 \
                watchdog_ms=1000 ring_entries=64 cq_entries=128 timeout_s=2 features=0x3ffff";
    let a = write(&d, "a.txt", &pollwake(1, base, 0));
    let c = write(&d, "c.txt", &pollwake(3, base, 1));
    // Another kernel's feature bits: compared (+89% would be the flags').
    let other_kernel = base.replace("features=0x3ffff", "features=0xffff");
    let b = write(&d, "b.txt", &pollwake(2, &other_kernel, 20));
    let r = run(&["compare", "--mode", "idle", &a, &b, &c]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    for (word, other) in [
        ("ring_flags=none", "ring_flags=defer-taskrun"),
        ("waiter_cpu=1", "waiter_cpu=0"),
        ("watchdog_ms=1000", "watchdog_ms=50"),
        ("burst=32", "burst=8"),
    ] {
        let b = write(&d, "b.txt", &pollwake(2, &base.replace(word, other), 20));
        let r = run(&["compare", "--mode", "idle", &a, &b, &c]);
        assert_eq!((r.code, r.out.as_str()), (2, ""), "{other}");
        assert_eq!(
            r.err,
            format!(
                "uring-repro: {b}: {other} beside {word} in {a}: another contract (compare \
                 like with like)\n"
            )
        );
        // The mail is refused alike, and a bisect step cannot judge it.
        let m = run(&[
            "report",
            "--mode",
            "idle",
            &format!("p={a}"),
            &format!("c={b}"),
        ]);
        assert_eq!((m.code, m.err.as_str()), (2, r.err.as_str()));
        let s = run(&[
            "compare",
            "--bisect",
            "--mode",
            "idle",
            &format!("good={a}"),
            &format!("bad={c}"),
            &format!("new={b}"),
        ]);
        assert_eq!(s.code, 125, "{}", s.err);
    }
    // A word one contract line states and the other does not.
    let fewer = base.replace(" watchdog_ms=1000", "");
    let b = write(&d, "b.txt", &pollwake(2, &fewer, 20));
    let r = run(&["compare", "--mode", "idle", &a, &b, &c]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_eq!(
        r.err,
        format!(
            "uring-repro: {b}: no watchdog_ms= beside watchdog_ms=1000 in {a}: another contract \
             (one contract line states an option the other does not: compare like with like)\n"
        )
    );
    let more = format!("{base} waker=on");
    let b = write(&d, "b.txt", &pollwake(2, &more, 20));
    let r = run(&["compare", "--mode", "idle", &a, &b, &c]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_contains(&r.err, &[": waker=on beside no waker= in "]);
}

/// The published point `name` cut to its first `n` rounds (the banner
/// says `rounds=N`), in `dir`.
fn first_rounds(dir: &Path, name: &str, n: usize) -> String {
    let text = std::fs::read_to_string(published(name)).unwrap();
    let mut out = String::new();
    let mut kept = Vec::new();
    for l in text.lines() {
        let cells: Vec<&str> = l.split('\t').collect();
        match cells[0].parse::<usize>() {
            Ok(r) if r < n => {
                kept.push(cells[2].parse::<f64>().unwrap());
                out += &format!("{l}\n");
            }
            Ok(_) => {}
            Err(_) if cells[0] == "mean" => {
                let mean = kept.iter().sum::<f64>() / n as f64;
                out += &format!("mean\t{}\t{mean:.6}\t1\n", 16384 * n);
            }
            Err(_) => out += &format!("{}\n", l.replace("rounds=15", &format!("rounds={n}"))),
        }
    }
    write(dir, name, &out)
}

/// The published point `name` cut to its first round, in `dir`.
fn one_round(dir: &Path, name: &str) -> String {
    first_rounds(dir, name, 1)
}

/// A verdict needs the figures it rests on: `--drop-first` on points of
/// two rounds leaves one a point, so no spread within a point and no
/// within-point interval; that is never CONFIRMED, and the reason says
/// what is missing (the same data as one-round points never was either).
#[test]
fn a_verdict_needs_the_figures_it_rests_on() {
    let dir = Scratch::new("two-rounds");
    let [a, b, c] = ["parent_a.txt", "child.txt", "parent_b.txt"].map(|n| first_rounds(&dir, n, 2));
    let r = run(&["compare", "--drop-first", &a, &b, &c]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert_narrow(&r.out);
    assert!(r.out.contains("NOT CONFIRMED"), "{}", r.out);
    assert_contains(
        &r.out,
        &[
            "  within-point    n/a (a point keeps 1 round after --drop-first)\n",
            "verdict         NOT CONFIRMED at the 5.000% gate:\n                  \
             a point keeps 1 round after --drop-first: no spread\n",
        ],
    );
    assert_eq!(field(&r.out, "max CV"), "n/a");
    let para = r.out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert_contains(
        &para,
        &["95% CI within points n/a, a point keeps 1 round after --drop-first;"],
    );
    let t = run(&["compare", "--drop-first", "--tsv", &a, &b, &c]);
    assert!(
        t.out.lines().nth(1).unwrap().contains("\tno\tfew_rounds\t"),
        "{}",
        t.out
    );
    // Every round counted: two rounds a point are enough for each figure.
    let r = run(&["compare", &a, &b, &c]);
    assert!(!r.out.contains("n/a (a point"), "{}", r.out);
    assert!(!r.out.contains("few_rounds"), "{}", r.out);
}

/// One-round points: `--drop-first` would leave nothing and is refused;
/// without it, what needs two rounds (the within-point interval, drop-first,
/// a CV) reads n/a with the reason, never `nan`, and the verdict is NOT
/// CONFIRMED for that reason alone.
#[test]
fn one_round_points_never_give_nan() {
    let dir = Scratch::new("one-round");
    let (a, b, c) = (
        one_round(&dir, "parent_a.txt"),
        one_round(&dir, "child.txt"),
        one_round(&dir, "parent_b.txt"),
    );
    for extra in [&["--drop-first"][..], &["--drop-first", "--tsv"]] {
        let mut args = vec!["compare"];
        args.extend(extra);
        args.extend([&a[..], &b, &c]);
        let Run { code, out, err } = run(&args);
        assert_eq!((code, out.as_str()), (2, ""), "{extra:?}");
        assert_eq!(
            err,
            format!("uring-repro: {a}: 1 round: --drop-first leaves none (it needs 2 or more)\n")
        );
    }
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert!(!out.contains("nan"), "{out}");
    assert_contains(
        &out,
        &[
            "  within-point    n/a (a point has 1 round)\n",
            "between-point   ",
        ],
    );
    assert_eq!(field(&out, "drop-first"), "n/a");
    assert_eq!(field(&out, "max CV"), "n/a");
    assert_contains(&out, &["verdict         NOT CONFIRMED at the 5.000% gate:\n                  a point has 1 round: no drop-first, no spread\n"]);
    let para = out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert_contains(
        &para,
        &[
            "over 1 round, CV n/a",
            "95% CI within points n/a, a point has 1 round; between points",
        ],
    );
    let Run { code, out, .. } = run(&["compare", "--tsv", &a, &b, &c]);
    assert_eq!(code, 0);
    assert!(!out.contains("nan"), "{out}");
    assert!(
        out.lines().nth(1).unwrap().contains("\tno\tfew_rounds\t"),
        "{out}"
    );
    let Run { code, out, .. } = run(&[
        "report",
        &format!("A={a}"),
        &format!("B={b}"),
        &format!("A={c}"),
    ]);
    assert_eq!(code, 0);
    assert_narrow(&out);
    assert!(!out.contains("nan"), "{out}");
}

/// Points on QEMU TCG's instruction clock: exact across boots. Zero spread
/// reads as exact (no NaN, no `inf`), a change clear of zero but under the
/// gate is named as such, the unchanged NOP control reads "no change", and
/// every figure is in instructions, never ns.
#[test]
fn icount_points_are_exact_and_counted_in_instructions() {
    let (p1, c1, p2, c2) = (
        icount("s0_parent_1.txt"),
        icount("s0_child_1.txt"),
        icount("s0_parent_2.txt"),
        icount("s0_child_2.txt"),
    );
    let args = [
        format!("parent={p1}"),
        format!("child={c1}"),
        format!("parent={p2}"),
        format!("child={c2}"),
    ];
    let mut argv = vec!["compare"];
    argv.extend(args.iter().map(String::as_str));
    let Run { code, out, err } = run(&argv);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    for bad in ["nan", "df inf", "inf%", " ns/pair"] {
        assert!(!out.contains(bad), "{bad:?} in\n{out}");
    }
    assert_contains(
        &out,
        &["  parent            1500.745 insn/pair  control, midpoint of 2 points\n"],
    );
    assert_eq!(field(&out, "change"), "+3.865%");
    assert_contains(&out, &["  between-point   +3.865% exact (no spread)\n                  identical across 2 vs 2 boots\n", "NOT CONFIRMED at the 5.000% gate:\n                  |change| is under the gate, though clear of zero\n"]);
    let para = out
        .split("To paste:")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for s in [
        "so every figure is guest instructions per pair (user + kernel), not time.",
        "Point 1 (parent): 1500.745 instructions/pair over 15 rounds",
        "child vs parent (midpoint of 2 points, 1500.745 instructions/pair): +3.865%",
        "between points +3.865% exact, identical across 2 vs 2 boots)",
    ] {
        assert!(para.contains(s), "{s:?} in {para}");
    }
    // At a gate the change clears: CONFIRMED.
    let mut gated = vec!["compare", "--gate", "1"];
    gated.extend(args.iter().map(String::as_str));
    let Run { code, out, .. } = run(&gated);
    assert_eq!(code, 0);
    assert_contains(&out, &["verdict         CONFIRMED at the 1.000% gate\n"]);
    // The TSV: exact intervals have no df (NA), and the timebase is named.
    let mut tsv = vec!["compare", "--tsv"];
    tsv.extend(args.iter().map(String::as_str));
    let Run { code, out, .. } = run(&tsv);
    assert_eq!(code, 0);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let get = |name: &str| lines[1][lines[0].iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (
            get("between_ci95_low_pct"),
            get("between_ci95_high_pct"),
            get("between_df")
        ),
        ("3.864768", "3.864768", "NA")
    );
    assert_eq!(
        (get("timebase"), get("reasons")),
        ("icount", "under_gate,second_under_gate")
    );
    assert!(!out.contains("nan") && !out.contains("\tinf"), "{out}");
    // n0, the NOP control, on both kernels: no change, said so.
    let Run { code, out, err } =
        run(&["compare", &icount("n0_parent.txt"), &icount("n0_child.txt")]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert_contains(&out, &["  change          0.000%  (no change)\n", "  within-point    0.000% exact (no spread)\n                  every round alike, 15 vs 15 rounds\n", "NOT CONFIRMED at the 5.000% gate:\n                  no drift: one control boot (run A B A)\n                  no change: the values are identical\n"]);
    assert!(
        !out.contains("nan") && !out.contains("df inf") && !out.contains("other sign"),
        "{out}"
    );
    let Run { out, .. } = run(&[
        "compare",
        "--tsv",
        &icount("n0_parent.txt"),
        &icount("n0_child.txt"),
    ]);
    assert_contains(&out, &["\tno_drift,no_change\t"]);
}

/// An icount point beside a wall-clock one (the published parents):
/// refused, naming the timebase.
#[test]
fn icount_and_wall_clock_points_are_not_mixed() {
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let b = icount("s0_child_1.txt");
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "uring-repro: {b}: timebase=icount beside timebase=wall in {a}: icount counts \
             guest instructions, not time (compare like with like)\n"
        )
    );
}
