//! `--tsv FILE`: the formal reproducer's result rows, one per round (warm-up
//! rounds too, with phase `warmup`; `compare` reads only `measured` rows).
//!
//! The first 35 columns are the formal tool's, in its order; ours follow and
//! are only ever appended. Per row:
//! - `*_submitted` count SQEs the kernel accepted in the round, by opcode:
//!   wait = FUTEX_WAIT + FUTEX_WAITV, wake = FUTEX_WAKE including v0's
//!   check wakes; `*_cqes` count CQEs by role, so v0's check wakes are in
//!   `check_cqes` and not in `wake_cqes`.
//! - `unexpected_cqes` are CQEs whose user_data names no request of the
//!   cycle; `outstanding` is what was still in flight when the round ended;
//!   `sq_dropped`/`cq_overflow` what the kernel reported during the round.
//! - `input_sha256` is the SHA-256 of the run's contract
//!   (src/profile/rounds/contract.rs).
//! - `trace_enabled` is 1 in `--trace` mode.
//! - `vector_width` is futex words per wait request (8 for v0, else 1).
//! - `phase` is `warmup`, or for a timed row `measured` in a point and
//!   `smoke` or `trace` in those modes (as the formal tool writes them).
//! - `rounds_planned` is `--rounds`. A run that SIGINT or SIGTERM ends
//!   writes one last row with phase `interrupted`, `round` = the measured
//!   rounds it finished, and zero pairs: an incomplete point never passes
//!   for a complete one (`compare` refuses it).
//! - `inject_ns` is `--inject-ns` (0 unless the run is a positive control).
//! - `timebase`, the last column, is `wall`, or `icount` when the run's
//!   ns are QEMU's instruction clock (`URING_REPRO_TIMEBASE`).
//!
//! The file is created with O_EXCL (an existing file is never touched) and
//! each row is written with one write(2) as its round ends, so a crash
//! keeps every finished row and a failing round's row (semantic_pass 0)
//! is on disk before the process exits. A write that fails (a full disk,
//! `ulimit -f`) leaves no file: the run removes it and fails, naming why
//! (exit 1; the header's write too, before anything runs). What a path
//! that cannot be a new file is, and what a message says of the removal,
//! is outfile.rs's, as for every file the user names.

use core::fmt::{self, Write};

use crate::check::{Fail, Kind, Ledger};
use crate::config::VERSION;
use crate::exit::{self, Exit};
use crate::facts::Facts;
use crate::outfile::{self, NotCreated, Removal};
use crate::render::{Bytes, Clean, Ratio6};
use crate::sha256::Hex;
use crate::sys::out::Out;
use crate::sys::uapi::{RAMFS_MAGIC, TMPFS_MAGIC};
use crate::sys::{self, uapi, CPath, Errno, Fd, SysResult};

/// Our version of the schema (the formal tool's columns plus ours).
pub const SCHEMA_VERSION: u32 = 1;

/// The header line: the formal columns in the formal order, then ours.
pub const HEADER: &str = "schema_version\tkernel_release\tboot_id\tmode\tprofile\tphase\tround\t\
ring_entries\tslots\tvector_width\tcycles\tpairs\twait_submitted\twake_submitted\t\
cancel_submitted\tnop_submitted\twait_cqes\twake_cqes\tcancel_cqes\tcheck_cqes\tnop_cqes\t\
bad_results\tbad_flags\tduplicate_cqes\tunexpected_cqes\ttimeouts\tsq_dropped\tcq_overflow\t\
outstanding\ttimed_ns\tns_per_pair\tcpu\tsemantic_pass\tinput_sha256\ttrace_enabled\t\
futex_scope\tclock_source\ttool_version\tmissing_cqes\tsubmit_errors\tmigrations\t\
ring_features\tkernel_version\tmachine\tcmdline\tpreempt\tpreempt_source\tcpu_model\tgovernor\t\
energy_perf_preference\tturbo\tsmt\tonline_cpus\tio_uring_disabled\trounds_planned\tinject_ns\twitness\twitness_sources\twitness_events\t\
witness_functions\ttimebase\n";

/// What every row of a run repeats.
pub struct Context<'a> {
    pub kernel_release: &'a [u8],
    pub boot_id: &'a [u8],
    pub mode: &'static str,
    pub profile: &'static str,
    pub ring_entries: u32,
    pub slots: u32,
    pub vector_width: u32,
    pub cpu: u32,
    pub input_sha256: [u8; 32],
    pub trace_enabled: bool,
    pub futex_scope: &'static str,
    pub clock_source: &'static str,
    /// io_uring_params.features of the run's ring.
    pub ring_features: u32,
    /// The box facts, in `Facts::each` order (after the formal columns).
    pub facts: &'a Facts,
    /// `--rounds`: with the `measured` rows, tells a complete point from
    /// one a signal or a kill cut short.
    pub rounds_planned: u32,
    /// `--inject-ns`: the ns per pair added to every timed cycle.
    pub inject_ns: u32,
    /// `--witness`: `off`, `on` or `unavailable`, and what recorded.
    pub witness: (&'static str, &'static str),
    /// `wall` or `icount` (`URING_REPRO_TIMEBASE`): what the ns are.
    pub timebase: &'static str,
}

/// One round.
pub struct Row<'l> {
    /// `warmup` or `measured`.
    pub phase: &'static str,
    pub round: u32,
    pub cycles: u32,
    pub pairs: u64,
    pub timed_ns: u64,
    pub pass: bool,
    /// The ledger counts of this round alone (`Ledger::since`).
    pub counts: &'l Ledger,
    /// The witness's events and functions lines (phase `witness`), else
    /// NO_WITNESS.
    pub witness: [&'l [u8]; 2],
}

/// The witness columns of a round's row: known only after the last round.
pub const NO_WITNESS: [&[u8]; 2] = [b"-", b"-"];

/// Writes one row, newline included.
pub fn write_row(w: &mut dyn Write, c: &Context<'_>, r: &Row<'_>) -> fmt::Result {
    let l = r.counts;
    let sub = |k: Kind| l.submitted[k as usize];
    write!(
        w,
        "{SCHEMA_VERSION}\t{}\t{}\t{}\t{}\t{}",
        Bytes(c.kernel_release),
        Bytes(c.boot_id),
        c.mode,
        c.profile,
        r.phase,
    )?;
    // The plain counts from `round` to `timed_ns`, in column order.
    let counts = [
        r.round as u64,
        c.ring_entries as u64,
        c.slots as u64,
        c.vector_width as u64,
        r.cycles as u64,
        r.pairs,
        sub(Kind::Wait) + sub(Kind::Waitv),
        sub(Kind::Wake) + sub(Kind::Check),
        sub(Kind::Cancel),
        sub(Kind::Nop),
        l.kind(Kind::Wait) + l.kind(Kind::Waitv),
        l.kind(Kind::Wake),
        l.kind(Kind::Cancel),
        l.kind(Kind::Check),
        l.kind(Kind::Nop),
        l.count(Fail::BadResult),
        l.count(Fail::BadFlags),
        l.count(Fail::Duplicate),
        l.count(Fail::UnknownTag),
        l.count(Fail::Timeout),
        l.count(Fail::SqDropped),
        l.count(Fail::CqOverflow),
        l.count(Fail::Outstanding),
        r.timed_ns,
    ];
    for n in counts {
        write!(w, "\t{n}")?;
    }
    // A row without pairs (phase interrupted or witness) has 0 ns per pair.
    write!(
        w,
        "\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        Ratio6 {
            num: r.timed_ns,
            den: r.pairs.max(1)
        },
        c.cpu,
        r.pass as u8,
        Hex(&c.input_sha256),
        c.trace_enabled as u8,
        c.futex_scope,
        c.clock_source,
        VERSION,
        l.count(Fail::Missing),
        l.count(Fail::SubmitError),
        l.count(Fail::Migration),
    )?;
    // Trailing facts: the same values as the `# key=value` lines.
    let mut result = write!(w, "\t{:#x}", c.ring_features);
    c.facts.each(&mut |_, v| {
        if result.is_ok() {
            result = write!(w, "\t{}", Cell(v));
        }
    });
    result?;
    let (state, sources) = c.witness;
    write!(
        w,
        "\t{}\t{}\t{state}\t{sources}",
        c.rounds_planned, c.inject_ns
    )?;
    for text in r.witness {
        write!(w, "\t{}", Cell(text))?;
    }
    writeln!(w, "\t{}", c.timebase)
}

/// Text from outside (a fact, a witness line) as one cell: a tab or a
/// newline in it (the command line could hold them) becomes a space.
struct Cell<'a>(&'a [u8]);

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.0.split(|&b| b == b'\t' || b == b'\n').enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            Bytes(part).fmt(f)?;
        }
        Ok(())
    }
}

/// An open result file: rows are buffered in `out` and flushed one by one.
/// It is complete or absent: a file whose writes failed is removed
/// (`remove`), and so is one whose run stopped early because stdout
/// failed.
pub struct TsvFile {
    out: Out,
    // Closed after `out` is dropped (field order).
    _fd: Fd,
    path: CPath,
}

/// Why `TsvFile::create` made no file.
#[derive(Debug, PartialEq)]
pub enum Uncreated {
    /// The file could not be made.
    Open(NotCreated),
    /// It was made, but its header could not be written; then it was
    /// removed, or not.
    Header(Errno, SysResult<()>),
}

impl TsvFile {
    /// Creates `path` (O_EXCL: never over an existing file) and writes
    /// the header; a header that cannot be written leaves no file, if the
    /// file can be removed.
    pub fn create(path: CPath) -> Result<TsvFile, Uncreated> {
        let fd = outfile::create(&path).map_err(|e| Uncreated::Open(NotCreated(e)))?;
        let mut f = TsvFile {
            out: Out::new(fd.raw()),
            _fd: fd,
            path,
        };
        f.out.bytes(HEADER.as_bytes());
        f.out.flush();
        match f.error() {
            None => Ok(f),
            Some(e) => Err(Uncreated::Header(e, f.remove())),
        }
    }

    /// Writes and flushes one row.
    pub fn row(&mut self, c: &Context<'_>, r: &Row<'_>) {
        let _ = write_row(&mut self.out, c, r);
        self.out.flush();
    }

    /// Why a write failed (full disk, `ulimit -f`, ...), once one did;
    /// later rows are not written.
    pub fn error(&self) -> Option<Errno> {
        self.out.error()
    }

    /// Closes and removes the file: what it holds is not the whole run.
    pub fn remove(self) -> SysResult<()> {
        let path = self.path;
        drop((self.out, self._fd));
        sys::unlink(&path)
    }
}

/// `--tsv PATH`, created for a run before anything runs, or the run's
/// exit: a path that cannot be a new file is a usage error, a disk that
/// has no room for it (its header included) a lost output (outfile.rs).
pub fn open(path: &[u8]) -> Result<TsvFile, Exit> {
    let shown = Clean(path);
    let z = CPath::new(path).map_err(|bad| {
        Exit::new(
            exit::USAGE,
            format_args!("--tsv {shown}: cannot be created: {bad}"),
        )
    })?;
    TsvFile::create(z).map_err(|why| match why {
        Uncreated::Open(no) => Exit::new(no.code(), format_args!("--tsv {shown}: {no}")),
        Uncreated::Header(e, removed) => {
            let removal = Removal::of(&removed);
            Exit::new(
                exit::FAIL,
                format_args!("--tsv {shown}: write failed: {e}; {removal}"),
            )
        }
    })
}

/// As `/init` of an initramfs the only lasting record is the console. When
/// the `--tsv` file sits on a RAM filesystem (gone at power-off) (the initramfs itself), says so
/// and copies its rows to `out` as `# tsv: ` lines (`compare` and the table
/// readers skip `#` lines; `sed -n 's/^# tsv: //p'` gets the file back).
pub fn echo_if_volatile(path: &[u8], out: &mut Out) {
    // A path no file can have was refused by the run (`--tsv`).
    let Ok(z) = CPath::new(path) else {
        return;
    };
    let kind = match sys::fs_type(&z) {
        Ok(RAMFS_MAGIC) => "ramfs",
        Ok(TMPFS_MAGIC) => "tmpfs",
        _ => return,
    };
    let _ = writeln!(
        out,
        "# --tsv {} is on {kind}, which does not survive power-off; its rows follow",
        Clean(path)
    );
    let Ok(fd) = sys::open(&z, uapi::O_RDONLY, 0) else {
        return;
    };
    let mut buf = [0u8; 4096];
    let mut at_line_start = true;
    while let Ok(n @ 1..) = sys::read_to_end(fd.raw(), &mut buf) {
        for line in buf[..n].split_inclusive(|&b| b == b'\n') {
            if at_line_start {
                out.bytes(b"# tsv: ");
            }
            out.bytes(line);
            at_line_start = line.ends_with(b"\n");
        }
    }
    if !at_line_start {
        out.bytes(b"\n");
    }
    out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context<'static> {
        Context {
            kernel_release: b"6.18.44",
            boot_id: b"0b6f-boot",
            mode: "point",
            profile: "v0_waitv_wake",
            ring_entries: 64,
            slots: 8,
            vector_width: 8,
            cpu: 2,
            input_sha256: [0xab; 32],
            trace_enabled: false,
            futex_scope: "shared",
            clock_source: "vdso",
            ring_features: 0x3ffff,
            facts: Box::leak(Box::new(Facts::read(0))),
            rounds_planned: 15,
            inject_ns: 0,
            witness: ("off", "none"),
            timebase: "icount",
        }
    }

    #[test]
    fn rows_on_a_ram_filesystem_are_echoed_as_comment_lines() {
        let shm = std::path::Path::new("/dev/shm");
        if std::fs::metadata(shm).is_err() {
            return crate::testing::skip("no /dev/shm (tmpfs) to put a file on");
        }
        let id = std::process::id();
        let src = shm.join(format!("uring-repro-echo-{id}.tsv"));
        std::fs::write(&src, "h1\th2\nv1\tv2\npartial").unwrap();
        let sink = std::env::temp_dir().join(format!("uring-repro-echo-{id}.out"));
        let f = std::fs::File::create(&sink).unwrap();
        let mut out = Out::new(std::os::fd::AsRawFd::as_raw_fd(&f));
        echo_if_volatile(src.to_str().unwrap().as_bytes(), &mut out);
        // The build tree is on a disk: nothing is echoed for a file there.
        let disk = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join(format!("uring-repro-echo-{id}.disk"));
        std::fs::write(&disk, "x\n").unwrap();
        let on_disk = CPath::new(disk.to_str().unwrap().as_bytes()).unwrap();
        let on_disk = sys::fs_type(&on_disk).unwrap();
        echo_if_volatile(disk.to_str().unwrap().as_bytes(), &mut out);
        drop(f);
        let got = std::fs::read_to_string(&sink).unwrap();
        let _ = (std::fs::remove_file(&src), std::fs::remove_file(&sink));
        let _ = std::fs::remove_file(&disk);
        let want = format!(
            "# --tsv {} is on tmpfs, which does not survive power-off; its rows follow\n\
             # tsv: h1\th2\n# tsv: v1\tv2\n# tsv: partial\n",
            src.display()
        );
        if on_disk == TMPFS_MAGIC || on_disk == RAMFS_MAGIC {
            crate::testing::skip("(part) the build tree is itself on a RAM filesystem");
            assert!(got.starts_with(&want), "{got}");
        } else {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn header_is_the_formal_order_then_ours() {
        /// Number of columns the formal reproducer wrote.
        const FORMAL_COLUMNS: usize = 35;
        let cols: Vec<&str> = HEADER.trim_end().split('\t').collect();
        let formal = "schema_version kernel_release boot_id mode profile phase round \
            ring_entries slots vector_width cycles pairs wait_submitted wake_submitted \
            cancel_submitted nop_submitted wait_cqes wake_cqes cancel_cqes check_cqes nop_cqes \
            bad_results bad_flags duplicate_cqes unexpected_cqes timeouts sq_dropped \
            cq_overflow outstanding timed_ns ns_per_pair cpu semantic_pass input_sha256 \
            trace_enabled";
        let formal: Vec<&str> = formal.split_whitespace().collect();
        assert_eq!(formal.len(), FORMAL_COLUMNS);
        assert_eq!(&cols[..FORMAL_COLUMNS], &formal[..]);
        assert_eq!(
            &cols[FORMAL_COLUMNS..],
            &[
                "futex_scope",
                "clock_source",
                "tool_version",
                "missing_cqes",
                "submit_errors",
                "migrations",
                "ring_features",
                "kernel_version",
                "machine",
                "cmdline",
                "preempt",
                "preempt_source",
                "cpu_model",
                "governor",
                "energy_perf_preference",
                "turbo",
                "smt",
                "online_cpus",
                "io_uring_disabled",
                "rounds_planned",
                "inject_ns",
                "witness",
                "witness_sources",
                "witness_events",
                "witness_functions",
                "timebase"
            ]
        );
        // The fact columns are exactly the facts, in their order, and
        // then ours.
        let mut keys = Vec::new();
        Facts::read(0).each(&mut |k, _| keys.push(k));
        let end = cols.len() - 7;
        assert_eq!(&cols[end - keys.len()..end], &keys[..]);
        assert!(HEADER.ends_with('\n') && !HEADER.contains(' '));
    }

    /// A passing warm-up row of one cycle, 32 pairs in 64 ns, counted in `l`.
    fn row(l: &Ledger) -> Row<'_> {
        Row {
            phase: "warmup",
            round: 0,
            cycles: 1,
            pairs: 32,
            timed_ns: 64,
            pass: true,
            counts: l,
            witness: NO_WITNESS,
        }
    }

    /// `r` as the TSV line `write_row` writes.
    fn text(r: &Row<'_>) -> String {
        let mut s = String::new();
        write_row(&mut s, &ctx(), r).unwrap();
        s
    }

    #[test]
    fn row_fields_line_up_with_the_header() {
        let mut l = Ledger::default();
        l.submitted[Kind::Waitv as usize] = 16;
        l.submitted[Kind::Wake as usize] = 16;
        l.submitted[Kind::Check as usize] = 16;
        l.kind_cqes[Kind::Waitv as usize] = 16;
        l.kind_cqes[Kind::Wake as usize] = 16;
        l.kind_cqes[Kind::Check as usize] = 15;
        l.add(Fail::Missing, 1);
        l.add(Fail::BadResult, 2);
        l.add(Fail::UnknownTag, 3);
        let r = Row {
            phase: "measured",
            round: 4,
            cycles: 2,
            pairs: 16,
            timed_ns: 2_950_366,
            pass: false,
            ..row(&l)
        };
        let s = text(&r);
        assert!(s.ends_with('\n'));
        let names: Vec<&str> = HEADER.trim_end().split('\t').collect();
        let vals: Vec<&str> = s.trim_end().split('\t').collect();
        assert_eq!(names.len(), vals.len());
        let get = |n: &str| vals[names.iter().position(|x| *x == n).unwrap()];
        assert_eq!(get("schema_version"), "1");
        assert_eq!(get("ring_features"), "0x3ffff");
        let mut facts = Vec::new();
        ctx().facts.each(&mut |k, v| {
            facts.push((k, String::from_utf8_lossy(v).replace(['\t', '\n'], " ")))
        });
        for (k, v) in facts {
            assert_eq!(get(k), v, "{k}");
        }
        assert_eq!(get("kernel_release"), "6.18.44");
        assert_eq!(get("boot_id"), "0b6f-boot");
        assert_eq!(get("profile"), "v0_waitv_wake");
        assert_eq!((get("phase"), get("round")), ("measured", "4"));
        assert_eq!((get("slots"), get("vector_width")), ("8", "8"));
        assert_eq!((get("cycles"), get("pairs")), ("2", "16"));
        assert_eq!((get("wait_submitted"), get("wake_submitted")), ("16", "32"));
        assert_eq!((get("cancel_submitted"), get("nop_submitted")), ("0", "0"));
        assert_eq!(
            (get("wait_cqes"), get("wake_cqes"), get("check_cqes")),
            ("16", "16", "15")
        );
        assert_eq!((get("bad_results"), get("unexpected_cqes")), ("2", "3"));
        assert_eq!(
            (get("timed_ns"), get("ns_per_pair")),
            ("2950366", "184397.875000")
        );
        assert_eq!((get("cpu"), get("semantic_pass")), ("2", "0"));
        assert_eq!(get("input_sha256"), "ab".repeat(32));
        assert_eq!(get("trace_enabled"), "0");
        assert_eq!(
            (get("futex_scope"), get("clock_source")),
            ("shared", "vdso")
        );
        assert_eq!((get("tool_version"), get("missing_cqes")), (VERSION, "1"));
        assert_eq!(get("timebase"), "icount");
        assert_eq!(*vals.last().unwrap(), "icount");
    }

    #[test]
    fn a_row_without_pairs_has_0_ns_per_pair() {
        let l = Ledger::default();
        let r = Row {
            phase: "interrupted",
            round: 3,
            cycles: 0,
            pairs: 0,
            timed_ns: 0,
            pass: false,
            ..row(&l)
        };
        let s = text(&r);
        let names: Vec<&str> = HEADER.trim_end().split('\t').collect();
        let at = names.iter().position(|n| *n == "ns_per_pair").unwrap();
        assert_eq!(s.split('\t').nth(at), Some("0.000000"), "{s}");
    }

    #[test]
    fn create_refuses_to_overwrite_and_flushes_rows() {
        let dir = std::env::temp_dir().join(format!("uring-repro-tsv-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("r.tsv");
        let _ = std::fs::remove_file(&path);
        let p = || CPath::new(path.to_str().unwrap().as_bytes()).unwrap();
        let mut f = TsvFile::create(p()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), HEADER);
        let l = Ledger::default();
        f.row(&ctx(), &row(&l));
        // On disk before the file is closed.
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let exists = Uncreated::Open(NotCreated(Errno::EEXIST));
        assert_eq!(TsvFile::create(p()).err(), Some(exists));
        drop(f);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
