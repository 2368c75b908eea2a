//! What a draft claims and in whose words: the Subject says what the body
//! claims ([REGRESSION] only for a confirmed regression), and the
//! workload's words, unit and option are the points' own (their `# series:`
//! lines), or, where they state none, no more than the profile they name.

mod utils;

use utils::draft::{
    aba, assert_drafted, assert_says, fixture, flat, published_dir, report_in, write,
};
use utils::{assert_contains, assert_starts_with, icount, Scratch};

/// The run's `--profile` is the workload's short name (`s0`), never cut
/// from the formal one: a profile this draft does not know (a later
/// version's) is given as the points state it, which `--profile` takes,
/// and the subject names it as it is.
#[test]
fn the_reproduce_command_names_the_profile_it_can() {
    let d = Scratch::new("report-profile");
    let dir = d.to_str().unwrap();
    let later =
        |name: &str| fixture(name).replace("profile=s0_wait_wake", "profile=x9_later_thing");
    let a = write(&d, "a.txt", &later("parent_a.txt"));
    let b = write(&d, "b.txt", &later("child.txt"));
    let c = write(&d, "c.txt", &later("parent_b.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    assert_starts_with(&r.out, "Subject: [REGRESSION] x9_later_thing +9.268%\n");
    assert_says(
        &r.out,
        &["uring-repro run --profile x9_later_thing --cpu 2 --slots 32"],
    );
    let r = aba(
        &published_dir(),
        ["parent_a.txt", "child.txt", "parent_b.txt"],
    );
    assert_says(&r.out, &["uring-repro run --profile s0 --cpu 2"]);
    // A later profile that states its series: the draft takes its words,
    // its unit and its option from the points, from no table of its own.
    let stated = |name: &str| {
        fixture(name)
            .replace("s0_wait_wake", "x9_later_thing")
            .replace(
                "option=s0 per=\"WAIT/WAKE pair\" about=\"io_uring futex WAIT/WAKE\"",
                "option=x9 per=\"LATER op\" about=\"io_uring LATER thing\"",
            )
    };
    let a = write(&d, "a.txt", &stated("parent_a.txt"));
    let b = write(&d, "b.txt", &stated("child.txt"));
    let c = write(&d, "c.txt", &stated("parent_b.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    assert_starts_with(
        &r.out,
        "Subject: [REGRESSION] io_uring LATER thing +9.268%\n",
    );
    assert_says(
        &r.out,
        &[
            "Results, ns per LATER op (each point's mean",
            "uring-repro run --profile x9 --cpu 2 --slots 32",
        ],
    );
    assert!(!r.err.contains("series"), "{}", r.err);
    // A point that does not state it: the draft does not guess, and says so.
    let b = write(&d, "b.txt", &later("child.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_starts_with(&r.out, "Subject: [REGRESSION] x9_later_thing +9.268%\n");
    assert_says(&r.out, &["Results, ns per pair (each point's mean"]);
    assert_contains(&r.err, &["series (not in point 2)"]);
}

/// Exact points on QEMU's instruction clock drafted into a mail: the
/// subject names the workload in kernel words, every figure is in guest
/// instructions and the mail says they are not time, the exact interval
/// reads so, and a change clear of zero but under the gate is named.
#[test]
fn icount_points_are_drafted_in_instructions() {
    let args = [
        "report".to_string(),
        "--introduced".into(),
        "079afb081c42".into(),
        format!("parent={}", icount("s0_parent_1.txt")),
        format!("child={}", icount("s0_child_1.txt")),
        format!("parent={}", icount("s0_parent_2.txt")),
        format!("child={}", icount("s0_child_2.txt")),
    ];
    let r = utils::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_drafted(&r, 0);
    // The workload in kernel words and what a figure is per, as the
    // points' series lines state them; the profile and `pair` for points
    // without those lines (these fixtures were made before them).
    let stated = |file: &str, series: &str, key: &str, or: &str| {
        let point = std::fs::read_to_string(icount(file)).unwrap();
        utils::series_value(&point, series, key).unwrap_or(or.into())
    };
    let about = stated("s0_parent_1.txt", "s0_wait_wake", "about", "s0_wait_wake");
    let per = stated("s0_parent_1.txt", "s0_wait_wake", "per", "pair");
    assert_starts_with(
        &r.out,
        &format!("Subject: [NOT CONFIRMED] {about} +3.865% at 079afb081c42\n"),
    );
    for bad in [" ns/pair", "Results, ns", "nan", "inf%"] {
        assert!(!r.out.contains(bad), "{bad:?} in\n{}", r.out);
    }
    assert_says(
        &r.out,
        &[
        "every figure is guest instructions per pair (user + kernel), not time.",
        &format!("Results, guest instructions per {per} under QEMU TCG icount, not time"),
        "against the control parent at 1500.745 instructions/pair:",
        "rounds insn/pair CV vs control",
        "between points +3.865% exact, identical across 2 vs 2 boots)",
        "The change is clear of zero but under the 5.000% gate: no regression is claimed at this gate.",
        "boot each kernel under QEMU TCG with -icount shift=0 (as the points were) and run there",
    ],
    );
    // n0 on both kernels: no change, in kernel words.
    let r = utils::run(&[
        "report",
        &format!("parent={}", icount("n0_parent.txt")),
        &format!("child={}", icount("n0_child.txt")),
    ]);
    assert_drafted(&r, 0);
    let about = stated("n0_parent.txt", "n0_nop", "about", "n0_nop");
    let per = stated("n0_parent.txt", "n0_nop", "per", "pair");
    assert_says(
        &r.out,
        &[
            &format!("Subject: [NO CHANGE] {about} 0.000%"),
            &format!("Results, guest instructions per {per} under"),
            "no change: the values are identical. The values are identical: no change, \
             no regression.",
        ],
    );
    // Beside wall-clock points: refused.
    let r = utils::run(&[
        "report",
        &format!("parent={}/parent_a.txt", published_dir()),
        &format!("child={}", icount("s0_child_1.txt")),
    ]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_contains(&r.err, &[": timebase=icount beside timebase=wall in "]);
}

/// pollwake's points, one mode read (`--mode idle`): the subject names that
/// mode's workload in kernel words, and what a figure is per.
#[test]
fn a_pollwake_mode_is_named_in_kernel_words() {
    let d = Scratch::new("report-pollwake");
    let dir = d.to_str().unwrap();
    let mut files = Vec::new();
    for (n, name) in ["a.txt", "b.txt"].iter().enumerate() {
        let Some(r) = utils::ran(&["--profile", "pollwake", "--smoke", "--rounds", "2"]) else {
            return;
        };
        assert_eq!(r.code, 0, "{}", r.err);
        // Each as if from a boot of its own (both ran on this one).
        let id = utils::fields(utils::line(&r.out, "# uring-repro "))["boot_id"].to_owned();
        let own = format!("0{n}0{n}0{n}0{n}-0000-4000-8000-00000000000{n}");
        files.push(write(&d, name, &r.out.replace(&id, &own)));
    }
    // The workload in kernel words and what a figure is per, as the run
    // states them in its series lines (the mode's series); without them
    // the mode's profile and `pair`.
    let point = std::fs::read_to_string(d.join(&files[0])).unwrap();
    let stated = |key: &str| utils::series_value(&point, "pollwake_idle", key);
    let about = stated("about").unwrap_or("pollwake_idle".into());
    let per = stated("per").unwrap_or("pair".into());
    let r = report_in(
        dir,
        &[
            "--mode",
            "idle",
            &format!("A={}", files[0]),
            &format!("B={}", files[1]),
        ],
    );
    assert_drafted(&r, 0);
    // One point a label: no drift, so no verdict to claim.
    assert_starts_with(&r.out, &format!("Subject: [NOT CONFIRMED] {about} "));
    assert!(
        flat(&r.out).contains(&format!("Results, ns per {per}")),
        "{}",
        r.out
    ); // The run's profile (the banner's), not the mode's rows.
    assert_says(&r.out, &["uring-repro run --profile pollwake --cpu"]);
}

/// The Subject says what the body claims, and only a confirmed regression
/// gets the regzbot lines: a regression, an improvement (the same points
/// the other way round), no change, a change not confirmed at the gate,
/// and points that are no evidence each get their own tag.
#[test]
fn the_subject_says_what_the_body_claims() {
    let d = Scratch::new("report-subject");
    let dir = d.to_str().unwrap();
    // The child on two boots: the control of an improvement.
    let child = fixture("child.txt");
    let c1 = write(&d, "c1.txt", &child);
    let other_boot = child.replace("boot_id=0c0c0c0c-", "boot_id=0d0d0d0d-");
    let c2 = write(&d, "c2.txt", &other_boot);
    let (p1, p2) = (
        write(&d, "p1.txt", &fixture("parent_a.txt")),
        write(&d, "p2.txt", &fixture("parent_b.txt")),
    );
    let failed = child.replace("3\t16384\t196.797000\t1", "3\t16384\t196.797000\t0");
    let bad = write(&d, "bad.txt", &failed);
    let sha = "079afb081c42";
    let draft = |extra: &[&str], files: [&str; 3]| {
        let [a, b, c] = files;
        let (a, b, c) = (format!("A={a}"), format!("B={b}"), format!("A={c}"));
        let args: Vec<&str> = extra.iter().copied().chain([&a[..], &b, &c]).collect();
        report_in(dir, &args)
    };
    for (extra, files, subject, code) in [
        (
            &[][..],
            [&p1, &c1, &p2],
            "[REGRESSION] io_uring futex WAIT/WAKE +9.268% at",
            0,
        ),
        (
            &[],
            [&c1, &p1, &c2],
            "[IMPROVEMENT] io_uring futex WAIT/WAKE -8.425% at",
            0,
        ),
        (
            &["--gate", "12"],
            [&p1, &c1, &p2],
            "[NOT CONFIRMED] io_uring futex WAIT/WAKE +9.268%",
            0,
        ),
        (
            &[],
            [&p1, &bad, &p2],
            "[NOT EVIDENCE] io_uring futex WAIT/WAKE",
            1,
        ),
    ] {
        let args: Vec<&str> = ["--introduced", sha].iter().chain(extra).copied().collect();
        let r = draft(&args, files.map(String::as_str));
        assert_drafted(&r, code);
        let first = r.out.lines().find(|l| l.starts_with("Subject: ")).unwrap();
        assert!(
            first.starts_with(&format!("Subject: {subject}")),
            "{subject}: {first}"
        );
        // regzbot tracks regressions: its lines for a regression only.
        let regzbot = r.out.contains("#regzbot introduced: ");
        assert_eq!(regzbot, subject.starts_with("[REGRESSION]"), "{}", r.out);
    }
    // The body of the improvement claims what the subject says.
    let r = draft(&[], [&c1, &p1, &c2]);
    assert_says(
        &r.out,
        &[
            "Verdict: CONFIRMED at the 5.000% gate.",
            "B's ns/pair is -8.425% against A's",
        ],
    );
    // A title of one's own keeps its tag.
    let r = draft(
        &["--gate", "12", "--title", "io_uring: futex wait slower"],
        [&p1, &c1, &p2],
    );
    assert_starts_with(
        &r.out,
        "Subject: [NOT CONFIRMED] io_uring: futex wait slower\n",
    );
    // No change: the NOP control on two kernels.
    let r = utils::run(&[
        "report",
        &format!("p={}", icount("n0_parent.txt")),
        &format!("c={}", icount("n0_child.txt")),
    ]);
    assert_starts_with(&r.out, "Subject: [NO CHANGE] ");
    assert!(
        flat(&r.out).contains("no change, no regression"),
        "{}",
        r.out
    );
}
