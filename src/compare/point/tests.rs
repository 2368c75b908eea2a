//! The reader against hand-made points of every format, the published
//! fixtures, and arbitrary bytes.

use super::*;

fn read_str<'t>(s: &'t str, only: Option<&[u8]>) -> Result<Point<'t>, Refusal<'t>> {
    read(
        s.as_bytes(),
        &mut [0.0; MAX_ROUNDS],
        &mut CountRoom::kept(1),
        only,
    )
}

const OURS: &str = "\
# uring-repro 0.1.0 profile=s0_wait_wake kernel=6.18.0-test boot_id=AAAAaaaa-bbbb-4000-8000-00000000000a cpu=2 clock=vdso
# ring_entries=64 cq_entries=128 slots=32 cycles=512 warmups=3 rounds=3 futex=private
round\tpairs\tns_per_pair\tsemantic_pass
0\t16384\t181.000000\t1
1\t16384\t179.000000\t1
2\t16384\t180.500000\t1
mean\t49152\t180.166667\t1
# median=180.500000 min=179.000000 max=181.000000 cv=0.573%
# per_cycle_ns_per_pair: p50=180.000 p90=181.000 p99=182.000 p99.9=190.000 max=200.000 cycles=1536
# checks: cqes=98304 -> PASS
";

#[test]
fn our_stdout_hand_computed() {
    let p = read_str(OURS, None).unwrap();
    assert_eq!(p.format, Format::Stdout);
    assert_eq!(p.profile(), b"s0_wait_wake");
    assert_eq!(p.tag(Key::Kernel), b"6.18.0-test");
    // A boot id is its bits: written in either case, shown as the kernel does.
    let boot = p.boot().unwrap().to_string();
    assert_eq!(boot, "aaaaaaaa-bbbb-4000-8000-00000000000a");
    assert_eq!((p.pairs, p.failed_rounds, p.run_passed), (16384, 0, true));
    // 181, 179, 180.5: mean 540.5/3, sd sqrt(((5/6)^2+(7/6)^2... by hand:
    // deviations +5/6, -7/6, +1/3; squares 25/36 + 49/36 + 4/36 = 78/36;
    // sample variance 39/36; drop-first 179, 180.5: mean 179.75, sd 1.5/sqrt2.
    let (all, rest) = (&p.s[ALL], &p.s[REST]);
    assert!((all.mean - 540.5 / 3.0).abs() < 1e-12);
    assert_eq!(all.s.n, 3);
    assert_eq!((all.s.median, all.s.min, all.s.max), (180.5, 179.0, 181.0));
    assert!((all.s.stddev - (39.0f64 / 36.0).sqrt()).abs() < 1e-12);
    assert!((all.s.cv_pct - (39.0f64 / 36.0).sqrt() / (540.5 / 3.0) * 100.0).abs() < 1e-12);
    assert_eq!(rest.s.n, 2);
    assert!((rest.mean - 179.75).abs() < 1e-12);
    assert!((rest.s.stddev - 1.5 / 2f64.sqrt()).abs() < 1e-12);
    assert!(p.valid());
    assert_eq!(p.checks, Some(&b"checks: cqes=98304 -> PASS"[..]));
}

#[test]
fn standalone_stdout_and_weighted_mean() {
    // No banner: the C standalone. A failed round of fewer pairs: the
    // mean weighs by pairs, the pairs check skips it, the point is invalid.
    let s = "round\tpairs\tns_per_pair\tsemantic_pass\r\n0\t100\t10.000000\t1\r\n\
             1\t300\t20.000000\t0\r\n2\t100\t30.000000\t1\r\n\r\nmean\t500\t20.000000\t1\r\n";
    let p = read_str(s, None).unwrap();
    assert_eq!(p.format, Format::Standalone);
    assert_eq!(p.profile(), b"");
    assert!(p.states_nothing());
    // (10*100 + 20*300 + 30*100) / 500 = 20; drop-first 9000/400 = 22.5.
    assert_eq!(p.s[ALL].mean, 20.0);
    assert_eq!(p.s[REST].mean, 22.5);
    assert_eq!(p.s[ALL].s.mean, 20.0);
    assert_eq!((p.pairs, p.failed_rounds), (100, 1));
    assert!(!p.valid());
    // The run's own verdict (mean row) counts too.
    let s = "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\t1.5\t1\nmean\t64\t1.5\t0\n";
    let p = read_str(s, None).unwrap();
    assert!(!p.run_passed && !p.valid());
    // One round: no drop-first.
    assert!(p.s[REST].mean.is_nan() && p.s[REST].s.n == 0);
}

#[test]
fn pollwake_table_one_mode_at_a_time() {
    let s = "# uring-repro 0.1.0 profile=pollwake kernel=6.1.0 boot_id=b1b1b1b1-0000-4000-8000-000000000001\n\
             profile\tround\tpairs\tns_per_pair\tsemantic_pass\n\
             pollwake_none\t0\t64\t1.000000\t1\npollwake_idle\t0\t64\t3.000000\t1\n\
             pollwake_none\t1\t64\t2.000000\t1\npollwake_idle\t1\t64\t5.000000\t0\n\
             pollwake_none\tmean\t128\t1.500000\t1\npollwake_idle\tmean\t128\t4.000000\t0\n\
             # checks: cqes=512 -> FAIL\n";
    // The rows' profile is the mode's; the banner's is the run's.
    let p = read_str(s, Some(b"pollwake_idle")).unwrap();
    assert_eq!(p.profile(), b"pollwake_idle");
    assert_eq!(p.get(Key::Profile), Some(&b"pollwake"[..]));
    assert_eq!((p.s[ALL].mean, p.s[REST].mean, p.pairs), (4.0, 5.0, 64));
    assert_eq!((p.failed_rounds, p.run_passed), (1, false));
    assert_eq!(p.boot().unwrap().head().to_string(), "b1b1b1b1");
}

/// The published child point as the formal C reproducer's TSV: three
/// warm-up rows, 15 measured ones.
const FORMAL: &str = include_str!("../../../tests/fixtures/published/child.tsv");

#[test]
fn formal_tsv_measured_rows_only_and_ours() {
    // A warm-up row with nonsense in a column we read is skipped whole.
    let s = FORMAL.replacen("\twarmup\t", "\twarmup\tx", 1);
    let p = read_str(&s, None).unwrap();
    assert_eq!(p.format, Format::Formal);
    assert_eq!((p.s[ALL].s.n, p.pairs), (15, 16384));
    assert_eq!(p.get(Key::Kernel), Some(&b"6.15.0-synthetic-child"[..]));
    assert_eq!(p.tag(Key::BootId), b"0c0c0c0c-0000-4000-8000-000000000002");
    assert_eq!(p.profile(), b"s0_wait_wake");
    assert!((p.s[ALL].mean - 196.647).abs() < 1e-6, "{}", p.s[ALL].mean);
    assert!(p.valid());
    // The formal tool's hash is of its own input: not read.
    assert_eq!(p.get(Key::Slots), Some(&b"32"[..]));
    assert_eq!((p.get(Key::Sha), p.get(Key::Warmups)), (None, None));
    // Ours: the same with a tool_version column, whose hash is read.
    let version = |(i, l)| {
        let cell = if i > 0 { "0.1.0" } else { "tool_version" };
        format!("{l}\t{cell}\n")
    };
    let s: String = FORMAL.lines().enumerate().map(version).collect();
    let q = read_str(&s, None).unwrap();
    assert_eq!((q.format, q.s), (Format::Tsv, p.s));
    assert!(q.get(Key::Sha).is_some());
    assert_eq!(q.get(Key::Version), Some(&b"0.1.0"[..]));
}

const STDOUT: &str = include_str!("../../../tests/fixtures/published/child.txt");

#[test]
fn banner_contract_line_and_fact_lines() {
    let p = read_str(STDOUT, None).unwrap();
    let get = |k| p.get(k).map(|v| core::str::from_utf8(v).unwrap());
    assert_eq!(get(Key::Version), Some("0.1.0"));
    assert_eq!(get(Key::Kernel), Some("6.15.0-synthetic-child"));
    assert_eq!(get(Key::Cpu), Some("2"));
    assert_eq!(get(Key::CqEntries), Some("128"));
    assert_eq!(get(Key::Timeout), Some("2"));
    assert_eq!(
        get(Key::CpuModel),
        Some("12th Gen Intel(R) Core(TM) i7-12700KF")
    );
    assert_eq!(get(Key::Turbo), Some("off"));
    // `unknown` is not a fact, though it is written; a banner without
    // inject_ns injects none.
    assert_eq!((get(Key::Smt), get(Key::InjectNs)), (None, None));
    assert_eq!(p.tag(Key::Smt), b"unknown");
    assert_eq!(get(Key::Witness), None);
    assert_eq!(p.checks, Some(&b"checks: synthetic -> PASS"[..]));
    let w = STDOUT.replace(
        "# checks:",
        "# witness: events FUTEX_WAIT=512 -> MATCH\n\
         # witness: removed /sys/kernel/tracing/instances/uring-repro-7 tracing=off\n# checks:",
    );
    let p = read_str(&w, None).unwrap();
    assert_eq!(
        p.witness(),
        [&b"witness: events FUTEX_WAIT=512 -> MATCH"[..]]
    );
    // A TSV's `#` lines are comments: a banner there states nothing.
    let s = format!(
        "{}{FORMAL}",
        STDOUT.lines().take(6).collect::<Vec<_>>().join("\n") + "\n"
    );
    let p = read_str(&s, None).unwrap();
    assert_eq!((p.format, p.get(Key::CqEntries)), (Format::Formal, None));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut v = [0.0; MAX_ROUNDS];
    let pieces: [&[u8]; 12] = [
        b"round\tpairs\tns_per_pair\tsemantic_pass\n",
        b"0\t64\t1.0\t1\n",
        b"mean\t64\t1.0\t1\n",
        b"\xff\xfe\t\t\n",
        b"# uring-repro x\n",
        b"schema_version\tphase\tpairs\tns_per_pair\tsemantic_pass\ttimed_ns\tround\n",
        b"1\tmeasured\t64\t1.0\t1\t64\t0\n",
        b"profile\tround\tpairs\tns_per_pair\tsemantic_pass\n",
        b"pollwake_none\tmean\t64\t1.0\t1\n",
        b"\r\n",
        b"\t",
        b"# machine=x\n# witness: y\n# checks: z\n",
    ];
    for junk in [
        "",
        "#\n",
        "schema_version\n",
        "a\tphase\nx\n",
        "a\tphase\n1\tmeasured\t9\n",
    ] {
        assert!(
            read(junk.as_bytes(), &mut v, &mut CountRoom::kept(1), None).is_err(),
            "{junk}"
        );
    }
    for a in pieces {
        for b in pieces {
            for c in pieces {
                let text = [a, b, c].concat();
                for select in [None, Some(&b"pollwake_none"[..])] {
                    let _ = read(&text, &mut v, &mut CountRoom::kept(1), select);
                }
            }
        }
    }
}

/// A pollwake point of two modes as the binary prints it from 0.1.0 on:
/// its `# series:` lines say what each mode's series is.
const SERIES: &str = "\
# uring-repro 0.1.0 profile=pollwake kernel=6.1.0
# burst=32 cycles=2 rounds=2 ring_flags=none
# series: pollwake_none option=pollwake per=\"MSG_RING completion\" about=\"io_uring MSG_RING, no poller\" mode=none
# series: pollwake_idle option=pollwake per=\"MSG_RING completion\" about=\"io_uring poll wakeup, idle epoll\" mode=idle
profile\tround\tpairs\tns_per_pair\tsemantic_pass
pollwake_none\t0\t64\t1.000000\t1
pollwake_idle\t0\t64\t3.000000\t1
pollwake_none\t1\t64\t2.000000\t1
pollwake_idle\t1\t64\t5.000000\t1
pollwake_none\tmean\t128\t1.500000\t1
pollwake_idle\tmean\t128\t4.000000\t1
# checks: cqes=512 -> PASS
";

#[test]
fn series_lines_name_the_workload_and_the_modes() {
    let p = read_str(SERIES, Some(b"pollwake_idle")).unwrap();
    assert_eq!(p.series().len(), 2);
    let s = p.rows_series().unwrap();
    assert_eq!(
        (s.name, s.option, s.per, s.about, s.mode),
        (
            &b"pollwake_idle"[..],
            &b"pollwake"[..],
            &b"MSG_RING completion"[..],
            &b"io_uring poll wakeup, idle epoll"[..],
            Some(&b"idle"[..])
        )
    );
    assert_eq!(p.s[ALL].mean, 4.0);
    // A mode the series lines do not state, or none: the modes they
    // state are named, at the table's header.
    fn modes<'t>(r: Result<Point<'t>, Refusal<'t>>) -> (usize, &'static str, Vec<&'t [u8]>) {
        match r {
            Err(Refusal {
                line,
                why,
                detail: Detail::Modes(m),
            }) => (line, why, m.names().to_vec()),
            other => panic!("{other:?}"),
        }
    }
    let both = vec![&b"none"[..], b"idle"];
    let (line, why, names) = modes(read_str(SERIES, Some(b"pollwake_waiter")));
    assert_eq!(
        (line, why, names),
        (
            5,
            "no such mode in this table: pick one with --mode",
            both.clone()
        )
    );
    let (line, why, names) = modes(read_str(SERIES, None));
    assert_eq!((line, why, names), (5, SEVERAL, both.clone()));
    // Without series lines (an older point), --mode picks the rows of the
    // series' name, and the modes are named from the rows.
    let old: String = SERIES
        .lines()
        .filter(|l| !l.starts_with("# series: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let p = read_str(&old, Some(b"pollwake_idle")).unwrap();
    assert_eq!(
        (p.profile(), p.s[ALL].mean, p.rows_series()),
        (&b"pollwake_idle"[..], 4.0, None)
    );
    let (line, _, names) = modes(read_str(&old, Some(b"pollwake_waiter")));
    assert_eq!((line, names), (3, both.clone()));
    let (line, why, names) = modes(read_str(&old, None));
    assert_eq!((line, why, names), (3, SEVERAL, both));
    // A series line out of its format refuses the point at its line.
    let bad = SERIES.replace("per=\"MSG_RING completion\" about", "per=\"MSG_RING about");
    let e = read_str(&bad, Some(b"pollwake_idle")).unwrap_err();
    assert_eq!((e.line, e.why), (3, series::FORMAT));
}
