//! How `compare` counts boots: a point counts once (the same file twice,
//! one boot under two labels or as both parents of a sandwich refused;
//! points of one boot within a label one boot), and boot ids are read as
//! the UUIDs they are: what states no boot is none, one boot in another
//! letter case is the same boot, and what is no boot id is refused.

mod utils;

use utils::{assert_contains, assert_narrow, field, published, run, write, Run, Scratch};

/// The published sandwich in our stdout format: parent A, child, parent B.
fn sandwich() -> [String; 3] {
    ["parent_a.txt", "child.txt", "parent_b.txt"].map(published)
}

/// Points from one boot are not independent. The same file twice is
/// refused; so is one boot under two labels, or as both parents of a plain
/// sandwich. One boot twice within a label (a run's stdout beside its own
/// --tsv) counts once in the between-point spread, and the text says so.
#[test]
fn a_boot_counts_once() {
    let [a, b, c] = sandwich();
    // The published parent twice: no drift, no spread, CONFIRMED before.
    let Run { code, out, err } = run(&["compare", &a, &b, &a]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!("uring-repro: {a}: the same file as {a} (a point counts once)\n")
    );
    // A run's stdout and its TSV (one boot) as the two parents.
    let a_tsv = published("parent_a.tsv");
    let Run { code, err, .. } = run(&["compare", &a, &b, &a_tsv]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "uring-repro: {a_tsv}: boot 0a0a0a0a-0000-4000-8000-000000000001 is also {a}'s: \
             the parents of a sandwich need a boot each\n"
        )
    );
    // One boot under two labels.
    let dir = Scratch::new("one-boot");
    let same_boot = write(
        &dir,
        "child-on-a.txt",
        &std::fs::read_to_string(&b).unwrap().replace(
            "0c0c0c0c-0000-4000-8000-000000000002",
            "0a0a0a0a-0000-4000-8000-000000000001",
        ),
    );
    let Run { code, err, .. } = run(&[
        "compare",
        &format!("base={a}"),
        &format!("patch={same_boot}"),
        &format!("base={c}"),
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "uring-repro: {same_boot}: boot 0a0a0a0a-0000-4000-8000-000000000001 is also {a}'s, \
             under another label: points of one boot are not independent\n"
        )
    );
    // Within one label: the stdout and the TSV of parent A are one boot,
    // so the control is the midpoint of two boots, as in the published
    // sandwich: the same figures, to the last digit.
    let Run { code, out, err } = run(&[
        "compare",
        &format!("base={a}"),
        &format!("base={a_tsv}"),
        &format!("patch={b}"),
        &format!("base={c}"),
    ]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert_eq!(field(&out, "change"), "+9.268%");
    assert_contains(
        &out,
        &[
            "control, midpoint of 2 boots\n",
            "between-point   +7.905% .. +10.632%  95% CI\n",
            "Welch, df 1.0, 1 vs 2 boots\n",
            "  one boot        points 1 and 2 (counted once)\n",
        ],
    );
    let para = out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert_contains(
        &para,
        &[
            "Points 1 and 2 share a boot (0a0a0a0a): counted once between points.",
            "(midpoint of 2 boots, 179.968 ns/pair)",
        ],
    );
    // Fifteen runs of one boot under one label: one boot, and the line
    // naming them still fits.
    let dir = Scratch::new("one-boot-15");
    let text = std::fs::read_to_string(&a).unwrap();
    let mut args = vec!["compare".to_string()];
    for i in 0..15 {
        let copy = format!("# run {i} of this boot\n{text}");
        args.push(format!(
            "base={}",
            write(&dir, &format!("run{i}.txt"), &copy)
        ));
    }
    args.push(format!("patch={b}"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, err } = run(&args);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert_contains(
        &out,
        &["control, 1 boot\n", "  one boot        points 1, 2, 3,"],
    );
}

/// The published sandwich with each point's boot id replaced by `ids`
/// (parent A, child, parent B), in `dir`; their paths.
fn booted(dir: &Scratch, ids: [&str; 3]) -> [String; 3] {
    let published_ids = [
        "0a0a0a0a-0000-4000-8000-000000000001",
        "0c0c0c0c-0000-4000-8000-000000000002",
        "0b0b0b0b-0000-4000-8000-000000000003",
    ];
    let names = ["parent_a.txt", "child.txt", "parent_b.txt"];
    let mut out = names.map(String::from);
    for k in 0..3 {
        let text = std::fs::read_to_string(published(names[k])).unwrap();
        let text = text.replace(
            &format!("boot_id={}", published_ids[k]),
            &format!("boot_id={}", ids[k]),
        );
        out[k] = write(dir, names[k], &text);
    }
    out
}

/// A boot id that states nothing (`unknown`: /proc could not be read, as
/// in a PID namespace with a fresh /proc; empty; the nil UUID) is no boot
/// at all: such a point is a boot of its own, for compare, --bisect and
/// report alike.
#[test]
fn a_boot_id_that_states_nothing_is_a_boot_of_its_own() {
    let d = Scratch::new("boot-nothing");
    for nothing in [
        "unknown",
        "UNKNOWN",
        "",
        "00000000-0000-0000-0000-000000000000",
    ] {
        let [a, b, c] = booted(&d, [nothing; 3]);
        // Plain A B A: two parents, two boots; the published figures.
        let r = run(&["compare", &a, &b, &c]);
        assert_eq!((r.code, r.err.as_str()), (0, ""), "{nothing:?}: {}", r.out);
        assert_eq!(field(&r.out, "control drift"), "-0.124%", "{nothing:?}");
        assert_contains(
            &r.out,
            &[
                "control, midpoint of 2 points\n",
                "CONFIRMED at the 5.000% gate",
            ],
        );
        assert!(!r.out.contains("each on its own boot"), "{}", r.out);
        // Labelled, one label each and two in one.
        let r = run(&[
            "compare",
            &format!("p={a}"),
            &format!("c={b}"),
            &format!("p={c}"),
        ]);
        assert_eq!((r.code, r.err.as_str()), (0, ""), "{nothing:?}: {}", r.out);
        assert!(
            !r.out.contains("one boot") && !r.out.contains("no drift"),
            "{}",
            r.out
        );
        // A bisect step judges them: a run of the child's (another file,
        // its own boot) is bad.
        let rerun = format!("# rerun\n{}", std::fs::read_to_string(&b).unwrap());
        let n = write(&d, "new.txt", &rerun);
        let r = run(&[
            "compare",
            "--bisect",
            &format!("good={a}"),
            &format!("good={c}"),
            &format!("bad={b}"),
            &format!("new={n}"),
        ]);
        assert_eq!(r.code, 1, "{nothing:?}: {}", r.err);
        // The mail says whether they were fresh boots is not known.
        let r = run(&[
            "report",
            &format!("p={a}"),
            &format!("c={b}"),
            &format!("p={c}"),
        ]);
        assert_eq!(r.code, 0, "{}", r.err);
        let flat = r.out.replace('\n', " ");
        assert_contains(
            &flat,
            &[
                "Points 1, 2 and 3 state no boot_id",
                "p: 2 points, no boot_id",
            ],
        );
        assert_contains(&r.err, &["boot_id (no point)"]);
    }
}

/// Boot ids are 128 bits, not text: the same boot in another letter case
/// or with blanks around it is the same boot (counted once, never two
/// labels, never "distinct boot ids"); what is no boot id is refused.
#[test]
fn a_boot_id_is_read_as_an_id() {
    let d = Scratch::new("boot-ids");
    let id = "0a0a0a0a-0000-4000-8000-00000000000f";
    // The child on the parents' boot, in upper case: one boot under two
    // labels.
    let [a, b, c] = booted(
        &d,
        [
            id,
            &id.to_uppercase(),
            "0b0b0b0b-0000-4000-8000-000000000003",
        ],
    );
    let r = run(&[
        "compare",
        &format!("p={a}"),
        &format!("c={b}"),
        &format!("p={c}"),
    ]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_eq!(
        r.err,
        format!("uring-repro: {b}: boot {id} is also {a}'s, under another label: points of one boot are not independent\n")
    );
    // Both parents on one boot written two ways: one boot, refused as the
    // parents of a plain sandwich; under one label, counted once.
    let [a, b, c] = booted(
        &d,
        [
            id,
            "0c0c0c0c-0000-4000-8000-000000000002",
            "0A0A0A0A-0000-4000-8000-00000000000F",
        ],
    );
    let r = run(&["compare", &a, &b, &c]);
    assert_eq!(
        (
            r.code,
            r.err.contains("the parents of a sandwich need a boot each")
        ),
        (2, true),
        "{}",
        r.err
    );
    let r = run(&[
        "compare",
        &format!("p={a}"),
        &format!("c={b}"),
        &format!("p={c}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_contains(&r.out, &["control, 1 boot\n", "no drift: one control boot"]);
    assert!(!r.out.contains("distinct boot ids"), "{}", r.out);
    let r = run(&[
        "report",
        &format!("p={a}"),
        &format!("c={b}"),
        &format!("p={c}"),
    ]);
    assert!(!r.out.contains("fresh boot (distinct"), "{}", r.out);
    assert_contains(
        &r.out.replace('\n', " "),
        &["points 1 and 3 share boot_id 0a0a0a0a"],
    );
    // In a TSV, a cell with blanks around the id: the same boot as the
    // stdout's (a run beside its own --tsv).
    let tsv = std::fs::read_to_string(published("parent_a.tsv"))
        .unwrap()
        .replace(
            "\t0a0a0a0a-0000-4000-8000-000000000001\t",
            "\t 0A0A0A0A-0000-4000-8000-000000000001 \t",
        );
    let t = write(&d, "a.tsv", &tsv);
    let r = run(&[
        "compare",
        &published("parent_a.txt"),
        &published("child.txt"),
        &t,
    ]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_contains(&r.err, &["the parents of a sandwich need a boot each"]);
    // No boot id at all: refused, saying what one is.
    for junk in [
        "b1",
        "0a0a0a0a-0000-4000-8000-00000000000",
        "0a0a0a0a00004000800000000000000f",
        "-",
    ] {
        let [a, b, c] = booted(
            &d,
            [
                junk,
                "0c0c0c0c-0000-4000-8000-000000000002",
                "0b0b0b0b-0000-4000-8000-000000000003",
            ],
        );
        let r = run(&["compare", &a, &b, &c]);
        assert_eq!(r.code, 2, "{junk}: {}", r.out);
        assert_eq!(
            r.err,
            format!("uring-repro: {a}: boot_id is not a boot id (a UUID as /proc/sys/kernel/random/boot_id gives, or unknown): `{junk}`\n")
        );
    }
}
