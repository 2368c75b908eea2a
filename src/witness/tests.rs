use super::*;

fn s0_trace_expect() -> Wanted {
    let mut e = Wanted::default();
    e.submit("FUTEX_WAIT", 512);
    e.submit("FUTEX_WAKE", 512);
    e.result(0, 512);
    e.result(1, 512);
    for (f, n) in [
        ("io_futex_prep", 1024),
        ("io_futex_wait", 512),
        ("io_futex_wake", 512),
        ("io_futex_complete", 512),
    ] {
        e.function(f, n);
    }
    e
}

fn s0_trace_tally() -> Tally {
    let mut t = Tally::default();
    t.submits.add(b"FUTEX_WAIT", 512);
    t.submits.add(b"FUTEX_WAKE", 512);
    for _ in 0..512 {
        t.results.add(0);
        t.results.add(1);
    }
    t.completions = 1024;
    for (f, n) in [
        (&b"io_futex_prep"[..], 1024),
        (b"io_futex_wait", 512),
        (b"io_futex_wake", 512),
        (b"io_futex_complete", 512),
    ] {
        t.functions.add(f, n);
    }
    t
}

const TRACED: [&str; 4] = [
    "io_futex_prep",
    "io_futex_wait",
    "io_futex_wake",
    "io_futex_complete",
];
const UNTRACED: [Untraced; 1] = [Untraced {
    name: "io_req_track_inflight",
    why: "notrace",
}];

#[test]
fn the_lines_of_a_matching_s0_trace() {
    let (t, e) = (s0_trace_tally(), s0_trace_expect());
    let mut s = String::new();
    assert!(events_line(&mut s, &t, &e));
    assert_eq!(
        s,
        "events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512 res1=512 async=0 \
         overflow=0 other_cpu=0 -> MATCH"
    );
    let mut s = String::new();
    assert!(functions_line(&mut s, &t, &e, &TRACED, &UNTRACED));
    assert_eq!(
        s,
        "functions io_futex_prep=1024 io_futex_wait=512 io_futex_wake=512 \
         io_futex_complete=512 io_req_track_inflight=not_traceable(notrace) -> MATCH"
    );
}

#[test]
fn any_difference_is_a_mismatch() {
    let e = s0_trace_expect();
    let cases: [fn(&mut Tally); 8] = [
        |t| t.submits.add(b"FUTEX_WAKE", 1),
        |t| t.submits.add(b"NOP", 1),
        |t| t.async_work = 1,
        |t| t.overflow = 1,
        |t| t.other_cpu = 1,
        |t| t.lost = 3,
        |t| t.unparsed = 1,
        |t| {
            t.results.add(-11);
            t.completions += 1;
        },
    ];
    for (i, change) in cases.iter().enumerate() {
        let mut t = s0_trace_tally();
        change(&mut t);
        let mut s = String::new();
        assert!(!events_line(&mut s, &t, &e), "{i}: {s}");
        assert!(s.ends_with("-> MISMATCH"), "{s}");
    }
    let mut t = s0_trace_tally();
    t.functions.add(b"io_futex_wait", 1);
    let mut s = String::new();
    assert!(!functions_line(&mut s, &t, &e, &TRACED, &[]));
    assert!(
        s.contains("io_futex_wait=513") && s.ends_with("-> MISMATCH"),
        "{s}"
    );
    let mut t = s0_trace_tally();
    t.functions.add(b"io_other", 1);
    let mut s = String::new();
    assert!(!functions_line(&mut s, &t, &e, &TRACED, &[]));
    assert!(s.contains("io_other=1"), "{s}");
    let mut s = String::new();
    assert!(!functions_line(
        &mut s,
        &s0_trace_tally_lost(),
        &e,
        &TRACED,
        &[]
    ));
}

fn s0_trace_tally_lost() -> Tally {
    let mut t = s0_trace_tally();
    t.lost = 1;
    t
}

#[test]
fn varied_results_are_counted_in_all() {
    let mut e = Wanted::default();
    e.submit("MSG_RING", 8);
    e.result(0, 9);
    e.varied(7);
    let mut t = Tally::default();
    t.submits.add(b"MSG_RING", 8);
    t.completions = 16;
    for v in [0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 8, 9, 10, 11] {
        t.results.add(v);
    }
    let mut s = String::new();
    assert!(events_line(&mut s, &t, &e), "{s}");
    assert!(s.contains("res0=9 res_varied=7"), "{s}");
    let mut x = String::new();
    expected_line(&mut x, &e, &[]);
    assert_eq!(
        x,
        "expected MSG_RING=8 complete=16 res0=9 res_varied=7 async=0 overflow=0 other_cpu=0"
    );
}

#[test]
fn the_buffer_holds_every_record_rounded_up_with_room_to_spare() {
    let kb = |events, function_hits| {
        let p = Watch {
            pid: 1,
            cpu: 0,
            events,
            function_hits,
            functions: &[],
        };
        p.buffer_kb()
    };
    // s0 --trace, by hand: 16 cycles of 64 requests, each submitted and
    // completed (2,048 events of 96 bytes: 192 KiB) with 3 function hits
    // (3,072 of 48 bytes: 144 KiB), and 512 KiB to spare.
    assert_eq!(kb(2048, 3072), 848);
    // Nothing to record still has the slack; one byte more is a KiB more.
    assert_eq!(kb(0, 0), 512);
    assert_eq!(kb(1, 0), 513);
    assert_eq!(kb(1, 1), 513);
    assert_eq!(kb(11, 0), 514);
    // An event took about 67 bytes on 6.18: a million of them fit.
    assert!(kb(1_000_000, 0) - 512 >= 1_000_000 * 67 / 1024);
}

#[test]
fn the_threads_of_this_process_include_the_process_itself() {
    let (mut all, mut us) = (0, false);
    threads(&mut |tid| {
        all += 1;
        us |= tid == sys::getpid();
    })
    .unwrap();
    assert!(us && all >= 1, "{all} threads");
}
