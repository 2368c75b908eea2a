//! The cost counter's parts that need no QEMU (docs/cost.md): the plugin's
//! decoder of locked instructions and its mapping of counts to functions,
//! run through tests/cost/driver.c (built here with gcc, every warning an
//! error), the series limit the plugin and the binary share, and
//! `uring-repro points --counts` turning one run's counts into its point's
//! `# cost:` lines, or refusing them (the point's console made here from
//! the fixture point). The plugin inside QEMU, and real boots, are
//! tests/cost/run.sh's.

mod utils;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::{fs, io::Write};

use utils::{skip, write, Run, Scratch};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

fn fixture(name: &str) -> String {
    format!("{REPO}/tests/cost/fixtures/{name}")
}

/// tests/cost/driver.c with the plugin's QEMU-free sources, built once; None
/// (after a skip) without gcc.
fn driver() -> Option<&'static Path> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cost-driver");
        let plugin = format!("{REPO}/plugin");
        let gcc = Command::new("gcc")
            .args([
                "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", &plugin,
            ])
            .arg("-o")
            .arg(&out)
            .arg(format!("{REPO}/tests/cost/driver.c"))
            .arg(format!("{plugin}/functions.c"))
            .arg(format!("{plugin}/locked.c"))
            .output();
        match gcc {
            Err(e) => Err(format!("gcc cannot run ({e}): the plugin is C")),
            Ok(o) if !o.status.success() => {
                panic!("gcc refused: {}", String::from_utf8_lossy(&o.stderr))
            }
            Ok(_) => Ok(out),
        }
    });
    match built {
        Ok(p) => Some(p),
        Err(why) => {
            skip(why);
            None
        }
    }
}

/// The driver with `args`, `input` on its stdin.
fn drive(args: &[&str], input: &str) -> Option<Run> {
    let mut child = Command::new(driver()?)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    Some(child.wait_with_output().unwrap().into())
}

#[test]
fn the_plugin_and_the_binary_name_the_same_series() {
    let Some(r) = drive(&["limits"], "") else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        r.out,
        format!("series {}\n", uring_repro::sys::COST_SERIES),
        "plugin/marker.h's COST_SERIES and sys::COST_SERIES differ"
    );
}

#[test]
fn locked_instructions_are_told_from_their_bytes() {
    let cases = [
        // A LOCK prefix on each kind of instruction that takes one.
        ("f0ff00", "prefixed", "lock incl (%rax)"),
        ("f048ff08", "prefixed", "lock decq (%rax)"),
        ("f0fe0f", "prefixed", "lock decb (%rdi)"),
        ("f00fb117", "prefixed", "lock cmpxchg %edx,(%rdi)"),
        ("f0480fb117", "prefixed", "lock cmpxchg %rdx,(%rdi)"),
        ("f00fb017", "prefixed", "lock cmpxchg %dl,(%rdi)"),
        ("f00fc107", "prefixed", "lock xadd %eax,(%rdi)"),
        ("f00fc007", "prefixed", "lock xadd %al,(%rdi)"),
        ("f00fc70f", "prefixed", "lock cmpxchg8b (%rdi)"),
        ("f0480fc70f", "prefixed", "lock cmpxchg16b (%rdi)"),
        ("f00107", "prefixed", "lock add %eax,(%rdi)"),
        ("f08307", "prefixed", "lock addl $imm8,(%rdi)"),
        ("f0810700000001", "prefixed", "lock addl $imm32,(%rdi)"),
        ("f08037", "prefixed", "lock xorb $imm8,(%rdi)"),
        ("f00907", "prefixed", "lock or %eax,(%rdi)"),
        ("f02107", "prefixed", "lock and %eax,(%rdi)"),
        ("f02907", "prefixed", "lock sub %eax,(%rdi)"),
        ("f01107", "prefixed", "lock adc %eax,(%rdi)"),
        ("f01907", "prefixed", "lock sbb %eax,(%rdi)"),
        ("f03107", "prefixed", "lock xor %eax,(%rdi)"),
        ("f0f617", "prefixed", "lock notb (%rdi)"),
        ("f0f71f", "prefixed", "lock negl (%rdi)"),
        ("f00fab07", "prefixed", "lock bts %eax,(%rdi)"),
        ("f00fb307", "prefixed", "lock btr %eax,(%rdi)"),
        ("f00fbb07", "prefixed", "lock btc %eax,(%rdi)"),
        ("f00fba2f03", "prefixed", "lock btsl $3,(%rdi)"),
        ("f00fba3703", "prefixed", "lock btrl $3,(%rdi)"),
        ("f00fba3f03", "prefixed", "lock btcl $3,(%rdi)"),
        ("f0ff0500000000", "prefixed", "lock incl 0(%rip)"),
        // The legacy prefixes in any order, then REX.
        ("66f00fc107", "prefixed", "66 then lock: xadd %ax"),
        ("f0660fc107", "prefixed", "lock then 66: xadd %ax"),
        ("f066410fc107", "prefixed", "lock 66 REX.B: xadd (%r15)"),
        ("65f0ff042500000000", "prefixed", "gs then lock: incl %gs:0"),
        ("f065ff042500000000", "prefixed", "lock then gs: incl %gs:0"),
        ("f0f3ff00", "prefixed", "lock among other prefixes"),
        // XCHG with memory locks without a prefix; with a register not.
        ("8707", "xchg", "xchg %eax,(%rdi)"),
        ("488707", "xchg", "xchg %rax,(%rdi)"),
        ("8607", "xchg", "xchg %al,(%rdi)"),
        ("66448707", "xchg", "xchg %r8w,(%rdi)"),
        ("f08707", "xchg", "lock xchg %eax,(%rdi)"),
        ("87c7", "none", "xchg %eax,%edi"),
        ("4887c7", "none", "xchg %rax,%rdi"),
        ("86c3", "none", "xchg %al,%bl"),
        ("90", "none", "nop (xchg %eax,%eax)"),
        ("91", "none", "xchg %eax,%ecx"),
        ("4891", "none", "xchg %rax,%rcx"),
        ("4190", "none", "xchg %eax,%r8d"),
        // Plain instructions, and a LOCK prefix where none can be.
        ("8b07", "none", "mov (%rdi),%eax"),
        ("8907", "none", "mov %eax,(%rdi)"),
        ("48c70700000000", "none", "movq $0,(%rdi)"),
        ("0107", "none", "add %eax,(%rdi), no lock"),
        ("ff00", "none", "incl (%rax), no lock"),
        ("0fb117", "none", "cmpxchg %edx,(%rdi), no lock"),
        ("0fc107", "none", "xadd %eax,(%rdi), no lock"),
        ("f001c7", "none", "lock add %eax,%edi: a register (#UD)"),
        ("f0833f01", "none", "lock cmpl: not lockable (#UD)"),
        ("f0f707ffffffff", "none", "lock testl: not lockable (#UD)"),
        ("f00fba2703", "none", "lock btl $3: not lockable (#UD)"),
        ("f00fc7f0", "none", "lock rdrand: a register"),
        ("f0ff10", "none", "lock call *(%rax): not lockable"),
        ("f00307", "none", "lock add (%rdi),%eax: to a reg"),
        ("0f1f8075727300", "none", "a cost marker"),
        // VEX and EVEX never lock, whatever precedes them.
        ("c5f877", "none", "vzeroupper"),
        ("f0c5f8c107", "none", "lock before VEX (#UD)"),
        ("c4e27d1807", "none", "vbroadcastss (%rdi),%ymm0"),
        ("f0c4e27d1807", "none", "lock before VEX3 (#UD)"),
        ("62f17c48100f", "none", "EVEX vmovups (%rdi),%zmm1"),
        ("f062f17c48100f", "none", "lock before EVEX (#UD)"),
        // The kernel's LOCK_PREFIX sites as a one-CPU boot leaves them: DS.
        ("3eff00", "unlocked-site", "ds incl (%rax)"),
        ("3e480fb117", "unlocked-site", "ds cmpxchg %rdx,(%rdi)"),
        ("3e0fc107", "unlocked-site", "ds xadd %eax,(%rdi)"),
        ("3e0fab07", "unlocked-site", "ds bts %eax,(%rdi)"),
        ("653eff042500000000", "unlocked-site", "gs ds incl"),
        ("3e8b07", "none", "ds mov (%rdi),%eax"),
        ("3effe0", "none", "notrack jmp *%rax"),
        ("3eff10", "none", "notrack call *(%rax)"),
        ("3e01c7", "none", "ds add %eax,%edi: a register"),
        ("3e8707", "xchg", "ds xchg %eax,(%rdi)"),
        // Cut short, or no opcode.
        ("", "none", "nothing"),
        ("f0", "none", "a lone lock"),
        ("f00f", "none", "lock 0f, cut short"),
        ("f0ff", "none", "lock ff, no ModRM"),
        ("40", "none", "inc %eax in 32-bit code (a REX alone)"),
        ("6640", "none", "inc %ax in 32-bit code"),
    ];
    let args: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let Some(r) = drive(&[&["locked"], &args[..]].concat(), "") else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.err);
    let got: Vec<&str> = r.out.lines().collect();
    assert_eq!(got.len(), cases.len(), "{}", r.out);
    let wrong: Vec<String> = cases
        .iter()
        .zip(&got)
        .filter(|(c, g)| c.1 != **g)
        .map(|(c, g)| format!("{} ({}): {g}, want {}", c.0, c.2, c.1))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Bytes that are not hex are the driver's error, not a kind.
    let r = drive(&["locked", "0f1f80757273000"], "").unwrap();
    assert_eq!(r.code, 1, "{}", r.out);
}

/// A System.map with every rule among aliases, out of address order, with
/// lines that are not text symbols.
const MAP: &str = "\
0000000000000000 A abs_sym
ffffffff81000100 W weak_global
ffffffff81000100 t local_strong
ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81000200 t helper
ffffffff81000200 T helper_global_x
ffffffff81000300 T __do_thing
ffffffff81000300 T _do_thing
ffffffff81000400 T short
ffffffff81000400 T shorter
ffffffff81000500 T beta
ffffffff81000500 T alfa
ffffffff81000600 t dup.constprop.0
ffffffff81000700 T other
ffffffff81000800 t dup.constprop.0
ffffffff81000900 D data_sym
ffffffff81000a00 w weak_local
ffffffff81000a00 W weak_glob
ffffffff81000b00 T last
";

#[test]
fn counts_go_to_the_function_perf_would_name_and_are_summed_per_name() {
    let dir = Scratch::new("cost-functions");
    let map = write(&dir, "System.map", MAP);
    // ADDRESS SERIES EXECUTIONS LOCKED
    let insns = "\
ffffffff80000000 0 3 0
ffffffff81000000 0 5 0
ffffffff810000ff 0 1 0
ffffffff81000100 0 2 1
ffffffff81000210 0 4 0
ffffffff81000310 0 4 1
ffffffff81000410 0 4 0
ffffffff81000510 0 4 0
ffffffff81000610 0 3 0
ffffffff81000810 0 3 1
ffffffff81000910 0 1 0
ffffffff81000710 0 1 0
ffffffff81000a10 0 2 0
ffffffffff000000 0 7 1
ffffffff81000000 1 9 0
";
    let Some(r) = drive(&["functions", &map], insns) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.err);
    let want = "\
series 0 functions=11 locked_functions=4
fn 0 7 dup.constprop.0
fn 0 7 last
fn 0 6 startup_64
fn 0 4 _do_thing
fn 0 4 alfa
fn 0 4 helper_global_x
fn 0 4 shorter
fn 0 3 [unknown]
fn 0 2 local_strong
fn 0 2 weak_glob
fn 0 1 other
locked 0 7 last
locked 0 4 _do_thing
locked 0 3 dup.constprop.0
locked 0 2 local_strong
series 1 functions=1 locked_functions=0
fn 1 9 startup_64
";
    // dup.constprop.0: two local functions, one name, and the instruction
    // past a data symbol (no function: the last text symbol's); last: past
    // every symbol, tied with it (byte order); startup_64: at its address and just below the next (fewer
    // underscores than _stext); the four 4s: ties in byte order; _do_thing:
    // fewer underscores; alfa: byte order at one length; helper_global_x:
    // global before local; shorter: the longer name; [unknown]: below every
    // symbol; local_strong: not weak before weak; weak_glob: global among
    // weak ones; other: the instruction just past it.
    assert_eq!(r.out, want);
}

#[test]
fn an_event_is_the_executions_of_the_instruction_at_its_functions_address() {
    let dir = Scratch::new("cost-events");
    let map = write(&dir, "System.map", MAP);
    // ADDRESS SERIES EXECUTIONS, as a run's end finds them: an address
    // can come twice (two translations of it).
    let insns = "\
ffffffff81000100 0 3
ffffffff81000100 0 2
ffffffff81000104 0 50
ffffffff81000600 1 4
ffffffff81000800 1 6
ffffffff81000800 0 1
ffffffff81000200 2 7
ffffffff81000900 0 9
ffffffff81000b00 3 0
";
    // weak_global and local_strong: aliases, one address, both watched
    // (the functions' mapping keeps one name, the events the name asked
    // for); dup.constprop.0: two local functions of one name, both
    // entries; helper: a local alias of helper_global_x; data_sym: not a
    // text symbol, missing like absent; last: watched, never entered.
    let list = "weak_global:dup.constprop.0:absent:local_strong:helper:data_sym:last";
    let Some(r) = drive(&["events", &map, list], insns) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.err);
    let want = "\
events watched=weak_global:dup.constprop.0:local_strong:helper:last missing=absent:data_sym
event 0 5 weak_global
event 0 1 dup.constprop.0
event 0 5 local_strong
event 0 0 helper
event 0 0 last
event 1 0 weak_global
event 1 10 dup.constprop.0
event 1 0 local_strong
event 1 0 helper
event 1 0 last
event 2 0 weak_global
event 2 0 dup.constprop.0
event 2 0 local_strong
event 2 7 helper
event 2 0 last
event 3 0 weak_global
event 3 0 dup.constprop.0
event 3 0 local_strong
event 3 0 helper
event 3 0 last
";
    assert_eq!(r.out, want);
    // None watched: the header says so.
    let r = drive(&["events", &map, ""], insns).unwrap();
    assert_eq!(
        (r.code, r.out.lines().next()),
        (0, Some("events watched=- missing=-"))
    );
    // A list the plugin refuses, with why.
    for (list, why) in [
        ("helper::last", "an empty name"),
        (":helper", "an empty name"),
        ("helper:", "an empty name"),
        ("helper:last:helper", "a name given twice"),
    ] {
        let r = drive(&["events", &map, list], "").unwrap();
        assert_eq!(r.code, 1, "{list}: {}", r.out);
        assert!(r.err.contains(why), "{list}: {}", r.err);
    }
}

#[test]
fn the_fixtures_counts_map_to_the_functions_the_golden_lines_name() {
    // tests/cost/fixtures/counts.txt's fn, locked and event lines are what
    // the plugin makes of these instructions with fixtures/System.map.
    let insns = "\
ffffffff81000010 0 5 0
ffffffff81000100 0 2 0
ffffffff81000104 0 5 0
ffffffff81000200 0 3 0
ffffffff81000308 0 4 0
ffffffff81000208 0 3 1
ffffffff80ffff00 0 1 0
ffffffff81000390 0 1 1
ffffffff81000284 0 2 1
";
    let Some(r) = drive(&["functions", &fixture("System.map")], insns) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.err);
    let counts = fs::read_to_string(fixture("counts.txt")).unwrap();
    let written: String = counts
        .lines()
        .filter(|l| l.starts_with("fn ") || l.starts_with("locked "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mapped: String = r
        .out
        .lines()
        .filter(|l| !l.starts_with("series "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(mapped, written);
    // Its events: the entries at helper's address and at io_work's (the
    // global one; the local io_work at 0x300 has none), nope not in the map.
    let entries: String = insns
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string() + "\n")
        .collect();
    let r = drive(
        &["events", &fixture("System.map"), "helper:io_work:nope"],
        &entries,
    )
    .unwrap();
    assert_eq!(r.code, 0, "{}", r.err);
    let written: String = counts
        .lines()
        .filter(|l| l.starts_with("events ") || l.starts_with("event "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(r.out, written);
}

#[test]
fn a_map_that_cannot_be_read_is_refused_with_its_reason() {
    let dir = Scratch::new("cost-map-errors");
    let data_only = write(&dir, "data.map", "ffffffff81000900 D data_sym\n");
    let bad_address = write(
        &dir,
        "bad.map",
        "ffffffff81000000 T ok\nfffffffg81000100 t bad\n",
    );
    let too_long = write(&dir, "long.map", "1ffffffff81000000 T long\n");
    for (map, why) in [
        (
            "/nonexistent/System.map",
            "/nonexistent/System.map: No such file",
        ),
        (data_only.as_str(), "no text symbols"),
        (
            bad_address.as_str(),
            "bad.map:2: a text symbol whose address",
        ),
        (too_long.as_str(), "long.map:1: a text symbol whose address"),
    ] {
        let Some(r) = drive(&["functions", map], "") else {
            return;
        };
        assert_eq!(r.code, 1, "{map}: {}", r.out);
        assert!(r.err.contains(why), "{map}: {}", r.err);
    }
}

/// A fixture point (tests/cost/fixtures) as its guest printed it:
/// without its `# cost:` lines.
fn guest(name: &str) -> String {
    let text = fs::read_to_string(fixture(name)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("# cost: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A console that prints `report` with CRs, and the verdict `exit 0`.
fn console(report: &str) -> String {
    format!("{}uring-repro: exit 0\r\n", report.replace('\n', "\r\n"))
}

/// A suite's console: each item (its label, its point) and its line.
fn suite_console(items: &[(&str, &str)]) -> String {
    let n = items.len();
    let mut c = String::new();
    for (k, (label, point)) in items.iter().enumerate() {
        c += &format!("# suite: {}/{n} {label}\n{point}", k + 1);
    }
    for (k, (label, _)) in items.iter().enumerate() {
        c += &format!("# suite: {}/{n} {label} exit=0 pass\n", k + 1);
    }
    console(&format!("{c}# suite: items={n} exit=0\n"))
}

/// `uring-repro points` on `console` (in `dir`) with `counts` and `extra`
/// (`--suite`: the points go to a directory); the run, and the `# cost:`
/// lines of each point written (by file name).
fn lines(dir: &Path, console: &str, counts: &str, extra: &[&str]) -> (Run, Vec<(String, String)>) {
    let c = write(dir, "console", console);
    let out = dir.join("out");
    let _ = fs::remove_dir_all(&out);
    let _ = fs::remove_file(&out);
    let args = [
        "points",
        "--console",
        &c,
        "-o",
        out.to_str().unwrap(),
        "--counts",
        counts,
    ];
    let r: Run = Command::new(utils::BIN)
        .args(args)
        .args(extra)
        .output()
        .unwrap()
        .into();
    let cost = |p: &Path| -> String {
        let text = fs::read_to_string(p).unwrap();
        text.lines()
            .filter(|l| l.starts_with("# cost: "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let mut made = Vec::new();
    if out.is_dir() {
        for e in fs::read_dir(&out).unwrap().flatten() {
            made.push((
                e.file_name().to_string_lossy().into_owned(),
                cost(&e.path()),
            ));
        }
    } else if out.exists() {
        made.push(("out".to_string(), cost(&out)));
    }
    made.sort();
    (r, made)
}

#[test]
fn lines_are_the_counts_of_the_points_run_per_pair() {
    let dir = Scratch::new("cost-lines");
    let map = fixture("System.map");
    let expected = |name: &str| fs::read_to_string(fixture(name)).unwrap();
    for (counts, point, want) in [
        ("counts.txt", "point.txt", "expected.txt"),
        (
            "counts-pollwake.txt",
            "point-pollwake.txt",
            "expected-pollwake.txt",
        ),
    ] {
        // With --map (checked against the counts) and without.
        for extra in [&[][..], &["--map", &map]] {
            let (r, made) = lines(&dir, &console(&guest(point)), &fixture(counts), extra);
            assert_eq!((r.code, r.err.as_str()), (0, ""), "{counts} {extra:?}");
            assert_eq!(
                made,
                [("out".to_string(), expected(want))],
                "{counts} {extra:?}"
            );
        }
    }
    // A boot of two runs: a suite's items, run 1 pollwake's, run 2 s0's.
    let items = [
        ("pollwake", guest("point-pollwake.txt")),
        ("s0", guest("point.txt")),
    ];
    let items: Vec<(&str, &str)> = items.iter().map(|(l, p)| (*l, p.as_str())).collect();
    let (r, made) = lines(
        &dir,
        &suite_console(&items),
        &fixture("counts-runs.txt"),
        &["--suite"],
    );
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    let want = [
        ("pollwake.txt", expected("expected-pollwake.txt")),
        ("s0.txt", expected("expected.txt")),
        ("suite.txt", String::new()),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(f, l)| (f.to_string(), l.clone()))
        .collect();
    assert_eq!(made, want);
}

/// The lines of `point` (else the fixture point) refused with `code` and
/// one stderr line containing `why`; nothing printed, no point written.
fn refused(dir: &Scratch, counts: &str, point: Option<&str>, extra: &[&str], code: i32, why: &str) {
    let counts = write(dir, "counts.txt", counts);
    let point = point.map_or_else(|| guest("point.txt"), str::to_string);
    refused_on(dir, &console(&point), &counts, extra, code, why);
}

/// `refused`, of `console` and the counts at `counts`.
fn refused_on(dir: &Path, console: &str, counts: &str, extra: &[&str], code: i32, why: &str) {
    let (r, made) = lines(dir, console, counts, extra);
    assert_eq!(r.code, code, "{why}: {}", r.err);
    assert_eq!(r.out, "", "{why}");
    assert_eq!(r.err.lines().count(), 1, "{why}: {}", r.err);
    assert!(r.err.contains(why), "want '{why}': {}", r.err);
    assert!(made.is_empty(), "{why}: {made:?}");
}
#[test]
fn counts_that_do_not_add_up_are_refused_never_a_short_table() {
    let dir = Scratch::new("cost-refused");
    let good = fs::read_to_string(fixture("counts.txt")).unwrap();
    let edit = |from: &str, to: &str| {
        assert!(good.contains(from), "{from}");
        good.replacen(from, to, 1)
    };
    // The header, the map line and the events line: counts of a boot
    // with no run.
    let head: String = good.lines().take(3).map(|l| format!("{l}\n")).collect();
    let without = |prefix: &str| -> String {
        good.lines()
            .filter(|l| !l.starts_with(prefix))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    for (counts, why) in [
        (String::new(), "empty"),
        (
            edit("# uring-repro cost counts format=3: ", "junk "),
            "not the cost counter's output",
        ),
        (
            edit(
                "# uring-repro cost counts format=3: ",
                "# uring-repro cost counts: ",
            ),
            "counts of an older counter",
        ),
        (without("end "), "no end line"),
        (without("map "), "no map line"),
        (
            edit("format=3: ", "format=2: "),
            "counts of an older counter (format 2: no events)",
        ),
        (without("events "), "no events line"),
        (
            edit("translating_threads=1", "translating_threads=2"),
            "2 host threads ran the vCPUs at once",
        ),
        (
            edit("event 0 2 helper\n", ""),
            "an event line of series 0 for io_work, not the next event",
        ),
        (
            edit("event 0 3 io_work\n", ""),
            "the event lines of s0_wait_wake are 1, not the 2 events watched",
        ),
        (
            edit("watched=helper:io_work", "watched=-"),
            "an event line of series 0 for helper",
        ),
        (
            edit("run 1 windows=2", "run 1 windows=0"),
            "saw no measured round",
        ),
        (edit("unbalanced=0", "unbalanced=1"), "did not pair up"),
        (edit("open_at_end=0", "open_at_end=1"), "did not pair up"),
        (
            edit("series 0 windows=2", "series 0 windows=3"),
            "3 windows of s0_wait_wake, but",
        ),
        (
            edit("kernel=14\n", "kernel=15\n"),
            "the window lines of s0_wait_wake",
        ),
        (
            without("window 1 "),
            "the window lines of s0_wait_wake are 1",
        ),
        (
            edit("fn 0 10 io_work", "fn 0 11 io_work"),
            "adding up to 27, not 6 adding up to 26",
        ),
        (
            edit("kernel=26 functions=6", "kernel=26 functions=7"),
            "the fn lines of s0_wait_wake are 6",
        ),
        (
            without("fn 0 1 local_fn"),
            "the fn lines of s0_wait_wake are 5 adding up to 25",
        ),
        (
            edit("locked 0 3 io_work", "locked 0 4 io_work"),
            "the locked lines of s0_wait_wake",
        ),
        (
            edit("locked_functions=3", "locked_functions=2"),
            "the locked lines of s0_wait_wake",
        ),
        (
            edit(
                "fn 0 7 helper\nfn 0 5 startup_64",
                "fn 0 5 startup_64\nfn 0 7 helper",
            ),
            "fn lines of series 0 are out of order at helper",
        ),
        (
            edit(
                "fn 0 1 [unknown]\nfn 0 1 local_fn",
                "fn 0 1 local_fn\nfn 0 1 [unknown]",
            ),
            "out of order at [unknown]",
        ),
        (edit("series 0 ", "series 1 "), "windows of series 1, which"),
        (
            edit("fn 0 5 startup_64", "fn 1 5 startup_64"),
            "a fn line of series 1",
        ),
        (
            edit("fn 0 5 startup_64", "frob 0 5 startup_64"),
            "an unknown line: frob",
        ),
        (edit("run 1 ", "run 2 "), "run 2 where run 1 was due"),
        (edit("end runs=1", "end runs=2"), "the end line says 2 runs"),
        (
            format!("{head}end runs=0 stray_windows=2\n"),
            "2 windows but no run started",
        ),
        (
            format!("{head}end runs=0 stray_windows=0\n"),
            "no uring-repro run under the counter",
        ),
        (
            format!("{good}run 2 windows=0\n"),
            "lines after the end line",
        ),
    ] {
        refused(&dir, &counts, None, &[], 125, why);
    }
    // The point's side: no mean row (a run cut short), no rounds.
    let point = guest("point.txt");
    let partial = point.replace("mean\t", "partial\t");
    refused(
        &dir,
        &good,
        Some(&partial),
        &[],
        125,
        "no mean row for s0_wait_wake",
    );
    let bare: String = point
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    refused(&dir, &good, Some(&bare), &[], 125, "no measured rounds");
    // Another map than the counts were made with.
    let other = write(
        &dir,
        "Other.map",
        &format!("{MAP}ffffffff81000c00 T extra\n"),
    );
    refused(
        &dir,
        &good,
        None,
        &["--map", &other],
        125,
        "made with another System.map",
    );
}

#[test]
fn a_boot_of_several_runs_is_a_suites_each_item_its_run() {
    let dir = Scratch::new("cost-runs");
    let runs = fs::read_to_string(fixture("counts-runs.txt")).unwrap();
    refused(
        &dir,
        &runs,
        None,
        &[],
        125,
        "2 runs: a run's point is the only run of its boot (a suite's items are its runs)",
    );
    // A suite's item K is run K: one more item than runs, or the items in
    // another order than the runs, and the lines are refused.
    let (s0, pollwake) = (guest("point.txt"), guest("point-pollwake.txt"));
    for (items, why) in [
        (
            vec![("pollwake", pollwake.as_str()), ("s0", &s0), ("n0", &s0)],
            "item 3 is run 3 of the boot, but there are 2 runs",
        ),
        (
            vec![("s0", s0.as_str()), ("pollwake", &pollwake)],
            "run 1: windows of series 1, which",
        ),
    ] {
        let counts = write(&dir, "counts.txt", &runs);
        refused_on(
            &dir,
            &suite_console(&items),
            &counts,
            &["--suite"],
            125,
            why,
        );
    }
}

#[test]
fn a_map_that_is_not_a_system_map_is_refused() {
    let dir = Scratch::new("cost-not-a-map");
    let counts = fs::read_to_string(fixture("counts.txt")).unwrap();
    let data = write(&dir, "data.map", "ffffffff81000900 D data_sym\n");
    for (map, why) in [
        (
            fixture("System.map-placeholder"),
            "is the placeholder Debian's kernel packages ship",
        ),
        (data, "has no x86_64 text symbols"),
        (
            "/nonexistent/System.map".into(),
            "--map: not a readable file",
        ),
    ] {
        refused(&dir, &counts, None, &["--map", &map], 2, why);
    }
}
