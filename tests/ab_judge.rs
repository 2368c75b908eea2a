//! `uring-repro ab`, scripts/ab.sh's judge, on three real boots' suite
//! directories (tests/fixtures/ab/child: the parent against the child, five
//! items): the table the scripts gave for the same points (then computed in
//! awk), row for row; the figures compare's own; the drafts at the same
//! gate; and the exit of a table that moved, that could not judge a row, or
//! whose boots' items ended otherwise.

mod utils;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use utils::{tsv_by, Run, BIN};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// The five items' rows.
const ROWS: [&str; 8] = [
    "s0",
    "s0:shared",
    "n0",
    "pollwake/none",
    "pollwake/idle",
    "pollwake/waiter",
    "pollwake/none_aa",
    "m0",
];

/// `uring-repro ARGS` run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Run {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .into()
}

/// A scratch copy of the fixture's three boots, and an empty `out`.
fn boots(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "uring-repro-ab-judge-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    for b in ["base-1", "head", "base-2"] {
        let from = Path::new(FIXTURES).join("ab/child").join(b);
        fs::create_dir_all(dir.join(b)).unwrap();
        for f in fs::read_dir(&from).unwrap() {
            let f = f.unwrap();
            fs::copy(f.path(), dir.join(b).join(f.file_name())).unwrap();
        }
    }
    fs::create_dir(dir.join("out")).unwrap();
    dir
}

fn judge(dir: &Path) -> Run {
    run_in(
        dir,
        &["ab", "-o", "out", "base=base-1", "head=head", "base=base-2"],
    )
}

/// The scripts' table (tests/fixtures/ab/child/ab.out, all twenty items)
/// as it reads for these rows: its header, their rows, its notes
/// and the sections of where their cost went.
fn scripts_table() -> String {
    let old = fs::read_to_string(format!("{FIXTURES}/ab/child/ab.out")).unwrap();
    let (table, sections) = old.split_once("\n\n").unwrap();
    let mut want = String::new();
    for (i, line) in table.lines().enumerate() {
        let row = line.split(' ').next().unwrap();
        if i < 2 || ROWS.contains(&row) {
            want += line;
            want += "\n";
        }
    }
    // The notes, then a section per row that moved, each after a blank line.
    let mut parts = sections.split("\n\n");
    want += "\n";
    want += parts.next().unwrap();
    want += "\n";
    for s in parts {
        let row = s.split(':').next().unwrap();
        if ROWS.contains(&row) {
            want += "\n";
            want += s.trim_end();
            want += "\n";
        }
    }
    want
}

#[test]
fn the_judge_gives_the_table_the_scripts_gave() {
    let dir = boots("table");
    let r = judge(&dir);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(r.out, scripts_table());
    assert_eq!(fs::read_to_string(dir.join("out/ab.txt")).unwrap(), r.out);
    assert_eq!(
        r.err,
        "uring-repro: ab: 7 row(s) moved or changed outcome: s0 (moved), s0:shared (moved), \
         pollwake/none (moved), pollwake/idle (moved), pollwake/waiter (moved), \
         pollwake/none_aa (moved), m0 (moved); 7 draft(s) in mail/\n"
    );
    // ab.tsv: the scripts' columns and rows; their figures but for what
    // the scripts took from six-decimal text (delta, to the last digit)
    // and the 95% quantile of Student's t, which they had to three
    // decimals (the interval's ends, a little wider here).
    let new = tsv_by(&dir.join("out/ab.tsv"), "profile");
    let old = tsv_by(Path::new(&format!("{FIXTURES}/ab/child/ab.tsv")), "profile");
    let mut rows = ROWS.map(String::from).to_vec();
    rows.sort();
    assert_eq!(new.keys().cloned().collect::<Vec<_>>(), rows);
    for (row, n) in &new {
        let o = &old[row];
        // One column more: the workload in kernel words (its series line's).
        let mut cols: Vec<&str> = o.keys().map(String::as_str).collect();
        cols.push("about");
        cols.sort();
        assert_eq!(n.keys().map(String::as_str).collect::<Vec<_>>(), cols);
        for (col, v) in n {
            if col == "about" {
                assert!(!v.is_empty() && v != "NA", "{row}");
                continue;
            }
            let (a, b) = (v, &o[col]);
            match col.as_str() {
                "delta" | "locked_delta" => {
                    let d = a.parse::<f64>().unwrap() - b.parse::<f64>().unwrap();
                    assert!(d.abs() <= 1.5e-6, "{row} {col}: {a} against {b}");
                }
                "delta_low" | "delta_high" => {
                    let (x, y) = (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap());
                    let mid = n["delta"].parse::<f64>().unwrap();
                    // Wider by t's fourth decimal: at most 2e-4 of the half-width.
                    assert!((x - mid).abs() >= (y - mid).abs() - 1e-6, "{row} {col}");
                    assert!(
                        (x - y).abs() <= 2e-4 * (y - mid).abs() + 1e-6,
                        "{row} {col}: {a} against {b}"
                    );
                }
                _ => assert_eq!(a, b, "{row} {col}"),
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_row_that_moved_is_drafted_as_the_change_it_is() {
    let dir = boots("mail");
    let r = judge(&dir);
    assert_eq!(r.code, 1, "{}", r.err);
    let mut drafts: Vec<String> = fs::read_dir(dir.join("out/mail"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    drafts.sort();
    assert_eq!(
        drafts,
        [
            "m0.txt",
            "pollwake-idle.txt",
            "pollwake-none.txt",
            "pollwake-none_aa.txt",
            "pollwake-waiter.txt",
            "report.log",
            "s0-shared.txt",
            "s0.txt"
        ]
    );
    // At ab's gate, what ab calls moved is claimed: never NOT CONFIRMED.
    for d in drafts.iter().filter(|d| *d != "report.log") {
        let mail = fs::read_to_string(dir.join("out/mail").join(d)).unwrap();
        let subject = mail.lines().next().unwrap();
        assert!(
            subject.starts_with("Subject: [REGRESSION] "),
            "{d}: {subject}"
        );
        assert!(
            mail.contains("CONFIRMED at the 0.500-instruction gate."),
            "{d}"
        );
        assert!(mail.lines().all(|l| l.chars().count() <= 72), "{d}");
    }
    // Futexes are said of the futex workloads' drafts only.
    let m0 = fs::read_to_string(dir.join("out/mail/m0.txt")).unwrap();
    assert!(!m0.contains("futex"), "{m0}");
    let s0 = fs::read_to_string(dir.join("out/mail/s0.txt")).unwrap();
    assert!(
        s0.contains("with private futexes") && s0.contains("futex scopes"),
        "{s0}"
    );
    // The command the draft quotes makes it again, byte for byte.
    let mail = fs::read_to_string(dir.join("out/mail/pollwake-idle.txt")).unwrap();
    let quoted = "uring-repro report --gate-insn 0.5 --mode idle \\\n    base=base-1/pollwake.txt head=head/pollwake.txt \\\n    base=base-2/pollwake.txt\n";
    assert!(
        mail.ends_with(&format!("This draft was made with:\n\n  {quoted}")),
        "{mail}"
    );
    let again = run_in(
        &dir,
        &[
            "report",
            "--gate-insn",
            "0.5",
            "--mode",
            "idle",
            "base=base-1/pollwake.txt",
            "head=head/pollwake.txt",
            "base=base-2/pollwake.txt",
        ],
    );
    assert_eq!(again.out, mail);
    // What report leaves out, not stated by the points: in report.log.
    let log = fs::read_to_string(dir.join("out/mail/report.log")).unwrap();
    assert!(
        log.starts_with("s0: left out of the draft, not stated: "),
        "{log}"
    );
    assert_eq!(log.lines().count(), 7, "{log}");
    // Compare's text of every row, at the same gate.
    let n0 = fs::read_to_string(dir.join("out/compare/n0.txt")).unwrap();
    assert!(
        n0.contains("  verdict         NOT CONFIRMED at the 0.500-instruction gate:\n                  the 95% CI round by round includes 0\n"),
        "{n0}"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// `suite.txt` of boot `b` with ITEM's line ending as `end` instead.
fn ended(dir: &Path, b: &str, item: &str, end: &str) {
    let p = dir.join(b).join("suite.txt");
    let text = fs::read_to_string(&p).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        let f: Vec<&str> = l.splitn(5, ' ').collect();
        if f.len() == 5 && f[3] == item {
            out += &format!("{} {} {} {} {end}\n", f[0], f[1], f[2], f[3]);
        } else {
            out += l;
            out += "\n";
        }
    }
    fs::write(p, out).unwrap();
}

/// A case of a boot whose item did not end as it should: its name, what
/// makes it, and the verdict and why it gives.
type Case<'c> = (&'c str, &'c dyn Fn(&Path), &'c str, &'c str);

#[test]
fn a_table_that_could_not_judge_a_row_does_not_say_0() {
    // Only n0: unmoved, judged, 0.
    let only_n0 = |dir: &Path| {
        for b in ["base-1", "head", "base-2"] {
            let p = dir.join(b).join("suite.txt");
            let text = fs::read_to_string(&p).unwrap();
            let kept: String = text
                .lines()
                .filter(|l| l.contains(" n0 ") || !l.contains(" exit=0 pass"))
                .map(|l| format!("{l}\n"))
                .collect();
            fs::write(p, kept).unwrap();
        }
    };
    let dir = boots("n0");
    only_n0(&dir);
    let r = judge(&dir);
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert!(r.out.contains("\nn0 "), "{}", r.out);
    let _ = fs::remove_dir_all(&dir);
    // Skipped, or failed, on every boot; the base's boots disagreeing; a
    // point that cannot be read: no figures, no verdict, and no 0.
    let cases: [Case; 4] = [
        (
            "skip",
            &|d| {
                for b in ["base-1", "head", "base-2"] {
                    ended(d, b, "n0", "exit=4 skip: kernel lacks IORING_OP_NOP (0)");
                }
            },
            "skipped",
            "base skip, head skip, base again skip",
        ),
        (
            "fail",
            &|d| {
                for b in ["base-1", "head", "base-2"] {
                    ended(d, b, "n0", "exit=1 fail: FAIL: bad_result in cycle 1");
                }
            },
            "failed",
            "base fail, head fail, base again fail",
        ),
        (
            "unsteady",
            &|d| ended(d, "base-2", "n0", "exit=1 fail: FAIL: timeouts"),
            "base-unsteady",
            "base pass, head pass, base again fail",
        ),
        (
            "unreadable",
            &|d| fs::write(d.join("head/n0.txt"), "round\tpairs\n").unwrap(),
            "error",
            "compare exit 2: its points cannot be read",
        ),
    ];
    for (name, make, verdict, why) in cases {
        let dir = boots(name);
        only_n0(&dir);
        make(&dir);
        let r = judge(&dir);
        assert_eq!(r.code, 125, "{name}: {}", r.err);
        let t = tsv_by(&dir.join("out/ab.tsv"), "profile");
        assert_eq!(
            (t["n0"]["verdict"].as_str(), t["n0"]["why"].as_str()),
            (verdict, why),
            "{name}"
        );
        assert!(
            r.err.ends_with(&format!(
                "ab: no row moved, but 1 could not be judged: n0 ({verdict})\n"
            )),
            "{name}: {}",
            r.err
        );
        assert!(
            r.out
                .contains(&format!("Not compared:\n  n0: {verdict} ({why})\n")),
            "{name}: {}",
            r.out
        );
        let _ = fs::remove_dir_all(&dir);
    }
    // The head alone ran it: a change of the kernel's behaviour, exit 1.
    let dir = boots("changed");
    only_n0(&dir);
    ended(
        &dir,
        "head",
        "n0",
        "exit=4 skip: kernel lacks IORING_OP_NOP (0)",
    );
    let r = judge(&dir);
    assert_eq!(r.code, 1, "{}", r.err);
    let t = tsv_by(&dir.join("out/ab.tsv"), "profile");
    assert_eq!(t["n0"]["verdict"], "outcome-changed");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn what_the_judge_cannot_use_is_one_line_and_exit_2() {
    let dir = boots("bad");
    fs::remove_file(dir.join("head/suite.txt")).unwrap();
    let r = judge(&dir);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err
            .starts_with("uring-repro: ab: head/suite.txt: cannot read: ENOENT"),
        "{}",
        r.err
    );
    assert_eq!(r.err.lines().count(), 1);
    // Its files are made new: a table there already is kept.
    let dir = boots("again");
    assert_eq!(judge(&dir).code, 1);
    let r = judge(&dir);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(
        r.err,
        "uring-repro: ab: compare: exists (never overwritten)\n"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A series (more than two steps): each step's table under its heading,
/// the matrix (a column per step, the change where a row moved, the whole
/// series' last), series.tsv and the reply, patch by patch; wider than 8
/// steps the matrix folds into blocks of 8, every line within 72 columns.
#[test]
fn a_series_is_judged_step_by_step_and_as_a_whole() {
    let dir = boots("series");
    let steps = dir.join("steps.tsv");
    fs::write(
        &steps,
        "child\tchild-futex-inflight.patch\tio_uring/futex: mark wait requests as inflight\n\
         back\t0123456789ab\tRevert the child\n",
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "ab",
            "--steps",
            "steps.tsv",
            "-o",
            "out",
            "parent=base-1",
            "child=head",
            "back=base-2",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.out.starts_with(
        "step 1/2: child (child-futex-inflight.patch): io_uring/futex: mark wait\n  \
         requests as inflight, against parent:\n"
    ));
    assert!(r
        .out
        .contains("\nstep 2/2: back (0123456789ab): Revert the child, against child:\n"));
    // The matrix: there and back again, the whole series unmoved.
    for line in [
        "profile              1     2   total",
        "s0               +58.0 -58.0",
        "n0",
        "pollwake/waiter  +21.3 -21.3",
        "m0               +5.00 -5.00",
    ] {
        assert!(
            r.out.lines().any(|l| l == line),
            "no {line:?} in\n{}",
            r.out
        );
    }
    let t = utils::tsv_rows(&dir.join("out/series.tsv"));
    assert_eq!(t.len(), 2 * ROWS.len());
    assert_eq!(
        (t[0]["step"].as_str(), t[0]["label"].as_str()),
        ("1", "child")
    );
    assert_eq!(t[0]["profile"], "s0");
    assert_eq!(t[ROWS.len()]["id"], "0123456789ab");
    // Each step's texts and drafts, its commit the drafts' --introduced.
    let back = fs::read_to_string(dir.join("out/mail/back/s0.txt")).unwrap();
    assert!(back.contains("--introduced 0123456789ab"), "{back}");
    assert!(dir.join("out/compare/child/n0.txt").exists());
    let reply = fs::read_to_string(dir.join("out/mail/series.txt")).unwrap();
    assert!(reply.starts_with("Subject: Re: [PATCH 0/2] the series, measured patch by patch\n"));
    assert!(
        reply.contains("[1/2] child io_uring/futex: mark wait requests as inflight"),
        "{reply}"
    );
    // The reply within 72 columns; so is the matrix (the tables are ab's own).
    assert!(reply.lines().all(|l| l.chars().count() <= 72), "{reply}");
    let matrix = &r.out[r.out.find("The series, step by step").unwrap()..];
    assert!(matrix.lines().all(|l| l.chars().count() <= 72), "{matrix}");
    let _ = fs::remove_dir_all(&dir);
    // Nine steps: two blocks, the total in the second.
    let dir = boots("folds");
    let mut args = vec!["ab".to_string(), "-o".into(), "out".into()];
    for k in 0..10 {
        let boot = if k % 2 == 0 { "base-1" } else { "head" };
        args.push(format!("s{k}={boot}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run_in(&dir, &args);
    assert_eq!(r.code, 1, "{}", r.err);
    let heads: Vec<&str> = r
        .out
        .lines()
        .filter(|l| l.starts_with("profile  "))
        .filter(|l| !l.contains("base"))
        .collect();
    assert_eq!(
        heads,
        [
            "profile              1     2     3     4     5     6     7     8",
            "profile              9   total"
        ]
    );
    assert!(
        r.out
            .lines()
            .any(|l| l == "s0               +58.0 -58.0 +58.0 -58.0 +58.0 -58.0 +58.0 -58.0"),
        "{}",
        r.out
    );
    assert!(
        r.out.lines().any(|l| l == "s0               +58.0   +58.0"),
        "{}",
        r.out
    );
    let _ = fs::remove_dir_all(&dir);
}

/// Every point of boot `b` in `dir` counting the events `__schedule` and
/// `try_to_wake_up` (`events=` on its method line, an event line per
/// series): 2 and 300 entries, more in `more` (a series' name, the
/// entries added to __schedule's).
fn with_events(dir: &Path, b: &str, more: &[(&str, u64)]) {
    for f in fs::read_dir(dir.join(b)).unwrap().flatten() {
        let p = f.path();
        if p.file_name().unwrap() == "suite.txt" {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let mut out = String::new();
        let mut series = vec![];
        for l in text.lines() {
            out += l;
            if l.starts_with("# cost: method ") {
                out += " events=__schedule:try_to_wake_up";
            }
            if let Some(rest) = l.strip_prefix("# cost: series ") {
                series.push(rest.split(' ').next().unwrap().to_string());
            }
            out += "\n";
        }
        for s in series {
            let added = more.iter().find(|m| m.0 == s).map_or(0, |m| m.1);
            out += &format!("# cost: event {s} 0.000 {} __schedule\n", 2 + added);
            out += &format!("# cost: event {s} 0.000 300 try_to_wake_up\n");
        }
        fs::write(p, out).unwrap();
    }
}

#[test]
fn events_that_moved_are_shown_under_their_row_and_are_a_change() {
    let dir = boots("events");
    // n0: 5 rounds of 64 cycles; one entry a cycle more is 320 more.
    with_events(&dir, "base-1", &[]);
    with_events(&dir, "base-2", &[]);
    with_events(&dir, "head", &[("n0_nop", 320), ("s0_wait_wake", 159)]);
    let r = judge(&dir);
    assert_eq!(r.code, 1, "{}", r.err);
    // n0's instructions did not move, its events did: said under it, and
    // counted in the exit; s0's moved by one entry short of half one a
    // cycle.
    let t = tsv_by(&dir.join("out/ab.tsv"), "profile");
    assert_eq!(t["n0"]["verdict"], "unmoved");
    assert_eq!(t["n0"]["events_moved"], "__schedule");
    assert_eq!(t["s0"]["events_moved"], "-");
    assert_eq!(t["m0"]["events_moved"], "-");
    assert_eq!(
        [
            &t["n0"]["ev___schedule_base"],
            &t["n0"]["ev___schedule_head"],
            &t["n0"]["ev___schedule_delta"],
            &t["n0"]["ev_try_to_wake_up_delta"],
        ],
        ["0.000195", "0.031445", "0.031250", "0.000000"]
    );
    assert!(
        r.out.contains("\nn0 ")
            && r.out.contains(
                "unmoved  NOP\n    events moved, the instructions not: __schedule +0.031/op\n"
            ),
        "{}",
        r.out
    );
    assert!(
        r.out
            .contains("a row whose events moved is a change (exit 1) whatever its\nverdict."),
        "{}",
        r.out
    );
    assert!(r.err.contains(", n0 (events moved)"), "{}", r.err);
    // Its table of where the cost went, without a draft.
    assert!(
        r.out
            .contains("\nn0: where the cost went (compare/n0.txt)\n"),
        "{}",
        r.out
    );
    assert!(
        r.out.contains("+0.031       -  entries into __schedule\n"),
        "{}",
        r.out
    );
    assert!(!dir.join("out/mail/n0.txt").exists());
    // The parent against itself (its two boots): no event moves.
    fs::create_dir(dir.join("out2")).unwrap();
    let r = run_in(&dir, &["ab", "-o", "out2", "base=base-1", "head=base-2"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let t = tsv_by(&dir.join("out2/ab.tsv"), "profile");
    for (row, cols) in &t {
        assert_eq!(cols["events_moved"], "-", "{row}");
    }
    assert!(!r.out.contains("\n    events"), "{}", r.out);
    let _ = fs::remove_dir_all(&dir);
}
