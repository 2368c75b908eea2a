use super::*;

/// A trace read from an instance of Linux 6.18 (x86_64) while uring-repro
/// ran one cycle of c0, v0 and e0 (--trace --cycles 1) and one burst of
/// pollwake (--smoke --cycles 1 --burst 2), all on CPU 1.
const HOST_EVENTS: &str =
    include_str!("../../../tests/fixtures/witness/linux-6.18-x86_64-events.txt");

fn tally(text: &str, cpu: u32) -> Tally {
    let mut t = Tally::default();
    let mut lines = LineSplitter::default();
    let mut f = |l: Option<&[u8]>| match l {
        Some(l) => t.add_line(l, cpu),
        None => t.unparsed += 1,
    };
    lines.feed(text.as_bytes(), &mut f);
    lines.finish(&mut f);
    t
}

#[test]
fn a_captured_trace_counts_what_the_runs_submitted() {
    let t = tally(HOST_EVENTS, 1);
    assert_eq!((t.unparsed, t.lost, t.other_cpu), (0, 0, 0));
    // c0 32 + e0 32 WAIT; v0 16 WAKE, 8 WAITV; c0 32 ASYNC_CANCEL;
    // pollwake 4 modes x 2 + eventfd pass 2 + stop 1 MSG_RING, 2 NOP.
    let ops: Vec<(String, u64)> = t
        .submits
        .each()
        .map(|(n, c)| (String::from_utf8_lossy(n).into_owned(), c))
        .collect();
    let want = [
        ("FUTEX_WAIT", 64),
        ("ASYNC_CANCEL", 32),
        ("FUTEX_WAITV", 8),
        ("FUTEX_WAKE", 16),
        ("MSG_RING", 11),
        ("NOP", 2),
    ];
    assert_eq!(ops, want.map(|(n, c)| (n.to_string(), c)));
    assert_eq!(t.completions, 64 + 24 + 32 + 24);
    assert_eq!(t.results.get(-125), 32);
    assert_eq!(t.results.get(-11), 32);
    assert_eq!(t.results.get(3), 8);
    assert_eq!((t.async_work, t.overflow), (0, 0));
    assert_eq!(t.functions.total(), 0);
    // The same trace judged for another CPU: every event is elsewhere.
    assert_eq!(tally(HOST_EVENTS, 0).other_cpu, 133 + 144);
}

#[test]
fn each_kind_of_line_is_read() {
    let sub = "     uring-repro-28647   [001] .....  5694.622531: io_uring_submit_req: ring \
        00000000058e030b, req 00000000e7b521ce, user_data 0x0, opcode FUTEX_WAIT, flags 0x200, \
        sq_thread 0";
    assert_eq!(
        line(sub.as_bytes()),
        TraceLine::Submit {
            cpu: 1,
            opcode: b"FUTEX_WAIT"
        }
    );
    let done = "     uring-repro-28650   [001] ...1.  5694.625051: io_uring_complete: ring \
        00000000fa48e51b, req 0000000000000000, user_data 0xfffffffe0700, result -2147483648, \
        cflags 0x0 extra1 0 extra2 0 ";
    assert_eq!(
        line(done.as_bytes()),
        TraceLine::Complete {
            cpu: 1,
            res: i32::MIN
        }
    );
    // A task name with spaces and brackets, no flags column.
    let odd = "  my [task] x-7 [012]   12.000001: io_uring_queue_async_work: ring 0, request 0, \
        user_data 0x1, opcode READ, flags 0x0, normal queue, work 0";
    assert_eq!(line(odd.as_bytes()), TraceLine::AsyncWork { cpu: 12 });
    let ovf =
        "uring-repro-1 [000] d..1. 3.5: io_uring_cqe_overflow: ring 0, user_data 0x1, res 0, \
        cflags 0x0, overflow_cqe 0";
    assert_eq!(line(ovf.as_bytes()), TraceLine::Overflow { cpu: 0 });
    let f = "     uring-repro-1       [000] .....     2.561401: io_futex_prep <-io_submit_sqes";
    assert_eq!(
        line(f.as_bytes()),
        TraceLine::Function {
            cpu: 0,
            name: b"io_futex_prep"
        }
    );
    assert_eq!(line(b"CPU:1 [LOST 1208 EVENTS]"), TraceLine::Lost(1208));
    assert_eq!(line(b"# tracer: nop"), TraceLine::Comment);
    assert_eq!(line(b""), TraceLine::Comment);
}

#[test]
fn what_is_not_an_event_we_know_is_unparsed() {
    for bad in [
        "uring-repro-1 [000] ..... 1.0: tracing_mark_write: uring-repro trace begin",
        "uring-repro-1 [000] ..... 1.0: io_uring_submit_req: ring 0, opcode , flags 0",
        "uring-repro-1 [000] ..... 1.0: io_uring_complete: ring 0, result x1, cflags 0",
        "uring-repro-1 [000] ..... 1.0: io_uring_complete: ring 0, result 2147483648, cf",
        "uring-repro-1 [000] ..... 1.0 io_futex_prep <-x",
        "uring-repro-1 [0x] ..... 1.0: io_futex_prep <-x",
        "no cpu here: io_futex_prep <-x",
        "CPU:1 [LOST x EVENTS]",
        "uring-repro-1 [000] ..... 1.0: a b <-x",
        "\u{ff}[9]",
    ] {
        assert_eq!(line(bad.as_bytes()), TraceLine::Unparsed, "{bad}");
    }
    let mut t = Tally::default();
    t.add_line(b"garbage line", 0);
    t.add_line(b"more garbage", 0);
    assert_eq!((t.unparsed, t.first_unparsed()), (2, &b"garbage line"[..]));
}

#[test]
fn lines_survive_any_chunking_and_long_lines_are_flagged() {
    let whole = tally(HOST_EVENTS, 1);
    for chunk in [1, 7, 100, 4096] {
        let mut t = Tally::default();
        let mut lines = LineSplitter::default();
        let mut f = |l: Option<&[u8]>| match l {
            Some(l) => t.add_line(l, 1),
            None => t.unparsed += 1,
        };
        for c in HOST_EVENTS.as_bytes().chunks(chunk) {
            lines.feed(c, &mut f);
        }
        lines.finish(&mut f);
        assert_eq!(
            (t.completions, t.submits.total(), t.unparsed),
            (whole.completions, whole.submits.total(), 0)
        );
    }
    let mut seen = Vec::new();
    let mut lines = LineSplitter::default();
    let long = vec![b'x'; LINE_MAX + 1];
    let mut f = |l: Option<&[u8]>| seen.push(l.map(|l| l.len()));
    lines.feed(b"ab\n", &mut f);
    lines.feed(&long, &mut f);
    lines.feed(b"\ncd", &mut f);
    lines.finish(&mut f);
    assert_eq!(seen, [Some(2), None, Some(2)]);
}

#[test]
fn names_and_results_keep_what_does_not_fit_apart() {
    let mut n = NameCounts::default();
    for i in 0..MAX_NAMES + 2 {
        n.add(format!("f{i}").as_bytes(), 2);
    }
    n.add(b"f0", 1);
    assert_eq!((n.get(b"f0"), n.overflow, n.total()), (3, 4, 2 * 18 + 1));
    let mut r = Results::default();
    for v in 0..MAX_RESULTS as i32 + 3 {
        r.add(v);
    }
    assert_eq!((r.get(0), r.other), (1, 3));
}

/// Lines of the instance's trace on Debian's 6.12.117 (x86_64, QEMU, one
/// CPU, uring-repro as PID 1, so the task is `init-1`), events and function
/// tracer entries, one cycle of each profile. The console did not keep
/// every line of the dump they were taken from: the counts below are of
/// the lines these files hold (counted with grep), every one of them read.
const GUEST: [(&str, &str); 4] = [
    (
        "c0",
        include_str!("../../../tests/fixtures/witness/linux-6.12-x86_64-c0.txt"),
    ),
    (
        "v0",
        include_str!("../../../tests/fixtures/witness/linux-6.12-x86_64-v0.txt"),
    ),
    (
        "n0",
        include_str!("../../../tests/fixtures/witness/linux-6.12-x86_64-n0.txt"),
    ),
    (
        "pollwake",
        include_str!("../../../tests/fixtures/witness/linux-6.12-x86_64-pollwake.txt"),
    ),
];

#[test]
fn lines_captured_in_a_6_12_guest_are_all_read() {
    type Want = (
        &'static [(&'static str, u64)],
        u64,
        &'static [(&'static str, u64)],
    );
    let want: [Want; 4] = [
        (
            &[("FUTEX_WAIT", 32), ("ASYNC_CANCEL", 32)],
            47,
            &[
                ("io_futex_prep", 32),
                ("io_futex_wait", 32),
                ("io_futex_complete", 32),
                ("io_futex_cancel", 32),
            ],
        ),
        (
            &[("FUTEX_WAITV", 8), ("FUTEX_WAKE", 14)],
            16,
            &[
                ("io_futexv_prep", 8),
                ("io_futexv_wait", 8),
                ("io_futexv_complete", 8),
                ("io_futex_prep", 14),
                ("io_futex_wake", 13),
            ],
        ),
        (&[("NOP", 32)], 26, &[("io_nop_prep", 32), ("io_nop", 32)]),
        (
            &[("MSG_RING", 5)],
            9,
            &[("io_msg_ring_prep", 5), ("io_msg_ring", 5)],
        ),
    ];
    for ((name, text), (subs, done, funcs)) in GUEST.iter().zip(want) {
        let t = tally(text, 0);
        assert_eq!((t.unparsed, t.lost, t.other_cpu), (0, 0, 0), "{name}");
        for &(op, n) in subs {
            assert_eq!(t.submits.get(op.as_bytes()), n, "{name} {op}");
        }
        assert_eq!(t.submits.total(), subs.iter().map(|s| s.1).sum(), "{name}");
        assert_eq!(t.completions, done, "{name}");
        for &(f, n) in funcs {
            assert_eq!(t.functions.get(f.as_bytes()), n, "{name} {f}");
        }
        assert_eq!(
            t.functions.total(),
            funcs.iter().map(|f| f.1).sum(),
            "{name}"
        );
    }
    // c0: every cancel found its wait (1); the waits ended -ECANCELED.
    let c0 = tally(GUEST[0].1, 0);
    assert_eq!((c0.results.get(1), c0.results.get(-125)), (32, 15));
}
