//! The cost lines read by hand: every kind of line, the locked variant
//! (docs/cost.md's format from `locked=x86-lock` on), and counts crafted
//! to overflow, to add up only modulo 2^64, or to name a function twice.

use super::*;

/// The cost of hand-made lines (`# cost: ` added) of series `s0` whose
/// rows have `pairs` pairs.
fn cost_of(lines: &[&str], pairs: u64) -> Cost<'static> {
    let mut room = CountRoom::kept(1);
    let mut r = Reader::default();
    for (no, l) in lines.iter().enumerate() {
        let l: &'static str = Box::leak(l.to_string().into_boxed_str());
        r.line(l.as_bytes(), no + 1, &|s| s == b"s0", &mut room);
    }
    r.finish(pairs, &mut room)
}

const METHOD: &str = "method counter=qemu-tcg-plugin api=1 map_sha256=ab";
const LOCKED_METHOD: &str = "method counter=qemu-tcg-plugin api=2 locked=x86-lock map_sha256=ab";

#[test]
fn every_kind_of_line_is_read_into_its_values() {
    let parse = |l: &'static str| CostLine::parse(l.as_bytes(), 7);
    assert_eq!(
        parse(LOCKED_METHOD),
        Ok(CostLine::Method {
            words: LOCKED_METHOD.as_bytes(),
            locked: true
        })
    );
    assert_eq!(
        parse(METHOD),
        Ok(CostLine::Method {
            words: METHOD.as_bytes(),
            locked: false
        })
    );
    let totals = Totals {
        pairs: 8,
        user: 16,
        kernel: 40,
        locked: None,
    };
    assert_eq!(
        parse("series s0 windows=2 pairs=8 user=16 kernel=40 functions=2 user_per_pair=2.000"),
        Ok(CostLine::Series {
            name: b"s0",
            totals
        })
    );
    let locked = LockedTotals { user: 1, kernel: 3 };
    assert_eq!(
        parse("series s0 pairs=8 user=16 kernel=40 user_locked=1 kernel_locked=3 kernel_locked_per_pair=0.375"),
        Ok(CostLine::Series {
            name: b"s0",
            totals: Totals {
                locked: Some(locked),
                ..totals
            }
        })
    );
    let count = Count {
        name: b"io_submit_sqes",
        count: 24,
        line: 7,
    };
    assert_eq!(
        parse("fn s0 3.000 24 io_submit_sqes"),
        Ok(CostLine::Fn {
            series: b"s0",
            count
        })
    );
    assert_eq!(
        parse("locked s0 3.000 24 io_submit_sqes"),
        Ok(CostLine::Locked {
            series: b"s0",
            count
        })
    );
    for junk in [
        "",
        "fun s0 1.0 2 f",
        "fn s0 1.0 2",
        "fn s0 1.0 2 f extra",
        "fn s0 1.0 -2 f",
        "fn s0 1.0 2.5 f",
        "locked s0 1.0 x f",
        "series s0 pairs=8 user=16",
        "series s0 pairs=8 user=16 kernel=x",
        "series s0 pairs=8 user=16 kernel=40 user_locked=1",
        "series s0 pairs=8 user=16 kernel=40 kernel_locked=1",
        "series",
    ] {
        assert_eq!(parse(junk), Err(FORMAT), "{junk:?}");
    }
}

#[test]
fn a_count_is_at_most_2_63_minus_1() {
    assert_eq!(whole(b"9223372036854775807"), Ok(i64::MAX as u64));
    for over in [
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
    ] {
        assert_eq!(whole(over.as_bytes()), Err(TOO_MANY), "{over}");
    }
    let c = cost_of(
        &[
            METHOD,
            "series s0 pairs=8 user=1 kernel=9223372036854775808",
            "fn s0 1.0 9223372036854775808 f",
        ],
        8,
    );
    assert_eq!(
        c,
        Cost::Unusable {
            line: 2,
            why: TOO_MANY
        }
    );
}

#[test]
fn a_point_without_locked_counts_has_none_not_zero() {
    let Cost::Counted(c) = cost_of(
        &[
            METHOD,
            "series s0 pairs=8 user=16 kernel=40",
            "fn s0 3.000 24 io_submit_sqes",
            "fn s0 2.000 16 futex_hash",
            "series other pairs=1 user=1 kernel=1 and anything",
            "fn other x y",
        ],
        8,
    ) else {
        panic!("not counted");
    };
    assert_eq!(c.totals.locked, None);
    assert!(c.locked.is_empty());
    let names: Vec<_> = c
        .functions
        .iter()
        .map(|f| (f.name, f.count, f.line))
        .collect();
    assert_eq!(
        names,
        [(&b"io_submit_sqes"[..], 24, 3), (b"futex_hash", 16, 4)]
    );
    assert_eq!(
        (c.line, c.totals.kernel, c.method),
        (2, 40, METHOD.as_bytes())
    );
}

#[test]
fn locked_counts_are_read_beside_the_others() {
    let lines = [
        LOCKED_METHOD,
        "series s0 pairs=8 user=16 kernel=40 user_locked=1 kernel_locked=3 kernel_locked_per_pair=0.375",
        "fn s0 3.000 24 io_submit_sqes",
        "fn s0 2.000 16 futex_hash",
        "locked s0 0.250 2 futex_hash",
        "locked s0 0.125 1 io_submit_sqes",
    ];
    let Cost::Counted(c) = cost_of(&lines, 8) else {
        panic!("not counted");
    };
    assert_eq!(c.totals.locked, Some(LockedTotals { user: 1, kernel: 3 }));
    let locked: Vec<_> = c.locked.iter().map(|f| (f.name, f.count)).collect();
    assert_eq!(locked, [(&b"futex_hash"[..], 2), (b"io_submit_sqes", 1)]);
    assert_eq!(c.functions.len(), 2);
    // Locked counts must be counted by the method to be there, add up to
    // kernel_locked=, and follow the series' fn lines.
    let without = |i: usize, line: &'static str| {
        let mut l = lines.to_vec();
        l[i] = line;
        cost_of(&l, 8)
    };
    let unusable = |line, why| Cost::Unusable { line, why };
    assert_eq!(without(0, METHOD), unusable(2, FORMAT));
    assert_eq!(
        without(1, "series s0 pairs=8 user=16 kernel=40"),
        unusable(2, FORMAT)
    );
    assert_eq!(
        without(5, "locked s0 0.125 2 io_submit_sqes"),
        unusable(2, LOCKED_SUM)
    );
    assert_eq!(
        without(5, "fn s0 0.125 1 other"),
        unusable(6, FORMAT),
        "a fn line after a locked one"
    );
    let mut l = lines.to_vec();
    l.truncate(4);
    l[0] = METHOD;
    l[1] = "series s0 pairs=8 user=16 kernel=40";
    l.push("locked s0 0.125 1 f");
    assert_eq!(cost_of(&l, 8), unusable(5, FORMAT));
}

#[test]
fn sums_past_2_64_and_a_function_named_twice_are_caught() {
    // 2^63 - 1 + 2^63 - 1 + 2 = 2^64: 0 modulo 2^64.
    let big = "fn s0 1.0 9223372036854775807 f";
    let c = cost_of(
        &[
            METHOD,
            "series s0 pairs=8 user=1 kernel=0",
            big,
            "fn s0 1.0 9223372036854775807 g",
            "fn s0 1.0 2 h",
        ],
        8,
    );
    assert_eq!(
        c,
        Cost::Unusable {
            line: 2,
            why: FN_SUM
        }
    );
    // One name twice, kernel= made to match the lines.
    let c = cost_of(
        &[
            METHOD,
            "series s0 pairs=8 user=1 kernel=6",
            "fn s0 1.0 2 f",
            "fn s0 1.0 2 g",
            "fn s0 1.0 2 f",
        ],
        8,
    );
    assert_eq!(
        c,
        Cost::Unusable {
            line: 5,
            why: TWICE
        }
    );
    // The same name in the fn and the locked lines is no repeat.
    let c = cost_of(
        &[
            LOCKED_METHOD,
            "series s0 pairs=8 user=1 kernel=4 user_locked=0 kernel_locked=1",
            "fn s0 1.0 2 f",
            "fn s0 1.0 2 g",
            "locked s0 1.0 1 f",
        ],
        8,
    );
    assert!(matches!(c, Cost::Counted(_)), "{c:?}");
}

#[test]
fn a_locked_count_is_one_of_its_functions_instructions() {
    let lines = |locked: [&'static str; 2]| {
        let series = "series s0 pairs=8 user=1 kernel=4 user_locked=0 kernel_locked=3";
        let head = [LOCKED_METHOD, series, "fn s0 1.0 2 f", "fn s0 1.0 2 g"];
        cost_of(&[&head[..], &locked[..]].concat(), 8)
    };
    let unusable = |line| Cost::Unusable {
        line,
        why: LOCKED_FN,
    };
    // As many locked as instructions: all of them locked.
    let c = lines(["locked s0 1.0 2 f", "locked s0 1.0 1 g"]);
    assert!(matches!(c, Cost::Counted(_)), "{c:?}");
    // More locked than instructions, or a function without a fn line,
    // with kernel_locked= made to match the lines.
    assert_eq!(
        lines(["locked s0 1.0 1 f", "locked s0 1.0 2 h"]),
        unusable(6)
    );
    assert_eq!(
        lines(["locked s0 1.0 3 f", "locked s0 1.0 0 g"]),
        unusable(5)
    );
}

#[test]
fn lines_that_do_not_fit_their_point() {
    let series = "series s0 pairs=8 user=1 kernel=2";
    let fns = "fn s0 1.0 2 f";
    assert_eq!(cost_of(&[], 8), Cost::Absent);
    let unusable = |line, why| Cost::Unusable { line, why };
    assert_eq!(cost_of(&[METHOD, series, fns], 9), unusable(2, OTHER_PAIRS));
    assert_eq!(cost_of(&[series, fns], 8), unusable(0, NO_METHOD_OR_SERIES));
    assert_eq!(cost_of(&[METHOD, fns], 8), unusable(0, NO_METHOD_OR_SERIES));
    assert_eq!(
        cost_of(&[METHOD, "series other pairs=8 user=1 kernel=2"], 8),
        unusable(0, NO_METHOD_OR_SERIES)
    );
    assert_eq!(
        cost_of(&[METHOD, series, series, fns], 8),
        unusable(3, FORMAT)
    );
    // The first fault is the one named.
    assert_eq!(
        cost_of(&[METHOD, series, "fn s0 x", "fun"], 8),
        unusable(3, FORMAT)
    );
}

#[test]
fn more_functions_than_compare_holds_are_refused_at_the_first_over() {
    let mut lines = vec![METHOD.to_string()];
    lines.push(format!(
        "series s0 pairs=8 user=1 kernel={}",
        MAX_FUNCTIONS + 1
    ));
    for i in 0..=MAX_FUNCTIONS {
        lines.push(format!("fn s0 1.0 1 f{i}"));
    }
    let l: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        cost_of(&l, 8),
        Cost::Unusable {
            line: MAX_FUNCTIONS + 3,
            why: TOO_MANY_FUNCTIONS
        }
    );
    assert!(matches!(
        cost_of(&l[..l.len() - 1], 8),
        Cost::Unusable { why: FN_SUM, .. }
    ));
}

#[test]
fn event_lines_are_the_method_lines_events_in_its_order() {
    let method = "method counter=qemu-tcg-plugin api=1 locked=x86-lock map_sha256=ab events=__schedule:try_to_wake_up";
    let lines = [
        method,
        "series s0 pairs=8 user=16 kernel=40 user_locked=0 kernel_locked=2",
        "fn s0 3.000 24 io_submit_sqes",
        "fn s0 2.000 16 futex_hash",
        "locked s0 0.250 2 futex_hash",
        "event s0 0.125 1 __schedule",
        "event s0 1.000 8 try_to_wake_up",
        "event other 0.125 1 anything",
    ];
    let Cost::Counted(c) = cost_of(&lines, 8) else {
        panic!("not counted");
    };
    let events: Vec<_> = c
        .events
        .unwrap()
        .iter()
        .map(|e| (e.name, e.count, e.line))
        .collect();
    assert_eq!(
        events,
        [(&b"__schedule"[..], 1, 6), (b"try_to_wake_up", 8, 7)]
    );
    assert_eq!((c.functions.len(), c.locked.len()), (2, 1));
    assert_eq!(
        CostLine::parse(b"event s0 0.125 1 __schedule", 6),
        Ok(CostLine::Event {
            series: b"s0",
            count: Count {
                name: b"__schedule",
                count: 1,
                line: 6
            }
        })
    );
    let with = |i: usize, line: &'static str| {
        let mut l = lines.to_vec();
        l[i] = line;
        cost_of(&l, 8)
    };
    let unusable = |line, why| Cost::Unusable { line, why };
    // Another event, the two swapped, one missing, one more: not the
    // method line's.
    assert_eq!(with(6, "event s0 1.000 8 do_idle"), unusable(6, EVENTS));
    let mut swapped = lines.to_vec();
    swapped.swap(5, 6);
    assert_eq!(cost_of(&swapped, 8), unusable(6, EVENTS));
    assert_eq!(with(6, "fn other 1 1 x"), unusable(6, EVENTS));
    let mut more = lines.to_vec();
    more.insert(7, "event s0 0.000 0 do_idle");
    assert_eq!(cost_of(&more, 8), unusable(6, EVENTS));
    // Event lines without events= in the method line; the method line's
    // events without a line (a series counted by none).
    let plain = "method counter=qemu-tcg-plugin api=1 locked=x86-lock map_sha256=ab";
    assert_eq!(with(0, plain), unusable(6, EVENTS));
    let mut none = lines.to_vec();
    none.truncate(5);
    assert_eq!(cost_of(&none, 8), unusable(2, EVENTS));
    // An event line before a locked line, a count out of range.
    let mut early = lines.to_vec();
    early.swap(4, 5);
    assert_eq!(cost_of(&early, 8), unusable(6, FORMAT));
    assert_eq!(with(5, "event s0 0.125 x __schedule"), unusable(6, FORMAT));
    // Without events= and event lines: not counted, never 0.
    let mut plain_lines = lines.to_vec();
    plain_lines.truncate(5);
    plain_lines[0] = plain;
    let Cost::Counted(c) = cost_of(&plain_lines, 8) else {
        panic!("not counted");
    };
    assert_eq!(c.events, None);
}

#[test]
fn more_events_than_compare_holds_are_refused() {
    let names: Vec<String> = (0..=MAX_EVENTS).map(|k| format!("e{k}")).collect();
    let method = format!("{METHOD} events={}", names.join(":"));
    let mut lines = vec![method, "series s0 pairs=8 user=16 kernel=0".to_string()];
    for n in &names {
        lines.push(format!("event s0 0.000 0 {n}"));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        cost_of(&lines, 8),
        Cost::Unusable {
            line: 3 + MAX_EVENTS,
            why: TOO_MANY_EVENTS
        }
    );
}
