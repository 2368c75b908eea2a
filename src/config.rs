//! The run contract: what a run does when no option says otherwise (the
//! regression report's workload), the limits every option is checked
//! against, and the ring every workload uses. The command line fills a
//! `RunConfig`; which workload runs is chosen beside it (`profile::ProfileId`).

use crate::sys::uapi::{IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The report's ring: io_uring_setup(64) with 128 CQ entries (CQSIZE).
pub const RING_ENTRIES: u32 = 64;
pub const CQ_ENTRIES: u32 = 128;

/// The report's shape: 3 untimed warm-up rounds, then 15 measured rounds
/// of 512 cycles of 32 requests; every wait bounded by 2 s.
pub const DEFAULT_ROUNDS: u32 = 15;
pub const DEFAULT_CYCLES: u32 = 512;
pub const DEFAULT_WARMUPS: u32 = 3;
pub const DEFAULT_SLOTS: u32 = 32;
pub const DEFAULT_TIMEOUT_S: u32 = 2;
/// The report pinned to CPU 2 (a P-core of an i7-12700KF).
pub const DEFAULT_CPU: u32 = 2;
/// pollwake: MSG_RING messages per burst (the report's 32 slots).
pub const DEFAULT_BURST: u32 = 32;
/// pollwake: the bound on each of its waiter's epoll_pwait calls, the
/// watchdog that tells a lost wakeup (its contract states it).
pub const WATCHDOG_MS: i32 = 1000;
/// compare: the report's preregistered gate, in %.
pub const DEFAULT_GATE_PCT: u32 = 5;

/// `--smoke`: 2 cycles, 1 round, no warm-up.
pub const SMOKE_CYCLES: u32 = 2;
pub const SMOKE_ROUNDS: u32 = 1;
/// `--trace`: 16 cycles in one round, no warm-up: a window for ftrace.
pub const TRACE_CYCLES: u32 = 16;

/// Limits; the fixed arrays of a run (rows, CQE bitmaps) are sized by them.
pub const MAX_ROUNDS: u32 = 4096;
pub const MAX_CYCLES: u32 = 10_000_000;
pub const MAX_WARMUPS: u32 = 1000;
/// One bit per request of a kind in a u64 (check.rs).
pub const MAX_SLOTS: u32 = 64;
pub const MAX_TIMEOUT_S: u32 = 3600;
pub const MAX_BURST: u32 = 64;
/// Highest CPU number a CPU mask of the run can hold (1024 CPUs, as glibc).
pub const MAX_CPU: u32 = 1023;
/// `--inject-ns`: at most 100 us per pair (far beyond any regression).
pub const MAX_INJECT_NS: u32 = 100_000;

/// What kind of run: the published point, a quick smoke, or a trace window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Point,
    Smoke,
    Trace,
}

impl Mode {
    /// The banner's and the TSV's `mode`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Point => "point",
            Mode::Smoke => "smoke",
            Mode::Trace => "trace",
        }
    }

    /// The `phase` of a timed row in `--tsv`: `measured` only in a point,
    /// as the formal reproducer writes it (a script keeping `measured`
    /// rows never counts a smoke or a trace as a point).
    pub fn phase(self) -> &'static str {
        match self {
            Mode::Point => "measured",
            Mode::Smoke => "smoke",
            Mode::Trace => "trace",
        }
    }
}

/// `--ring-flags` (pollwake): the setup flags of every ring of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingFlags {
    None,
    SingleIssuer,
    /// DEFER_TASKRUN (the kernel requires SINGLE_ISSUER with it).
    DeferTaskrun,
}

impl RingFlags {
    pub const ALL: [RingFlags; 3] = [
        RingFlags::None,
        RingFlags::SingleIssuer,
        RingFlags::DeferTaskrun,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RingFlags::None => "none",
            RingFlags::SingleIssuer => "single-issuer",
            RingFlags::DeferTaskrun => "defer-taskrun",
        }
    }

    pub fn parse(s: &[u8]) -> Option<RingFlags> {
        Self::ALL.into_iter().find(|f| f.name().as_bytes() == s)
    }

    /// The io_uring_setup flags.
    pub fn setup(self) -> u32 {
        match self {
            RingFlags::None => 0,
            RingFlags::SingleIssuer => IORING_SETUP_SINGLE_ISSUER,
            RingFlags::DeferTaskrun => IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        }
    }

    /// Completions are posted only by the owner's io_uring_enter.
    pub fn deferred(self) -> bool {
        self == RingFlags::DeferTaskrun
    }
}

/// `--witness[=optional]`: the kernel's own account of the run (witness/).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Witness {
    Off,
    /// `--witness`: a run that cannot be witnessed is a skip (exit 4).
    Required,
    /// `--witness=optional`: such a run runs, `witness=unavailable`.
    Optional,
}

/// What a point's nanoseconds are: the environment word
/// `URING_REPRO_TIMEBASE` (on a kernel command line, before `--`, it
/// reaches `/init` as an environment variable). Not part of the contract
/// (`describe`, `input_sha256`): it is how a point was measured, not what
/// it runs. The banner says `timebase=`, the TSV's last column too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timebase {
    /// The clock is time (bare metal, KVM): what every run is unless told.
    Wall,
    /// QEMU TCG with `-icount shift=0`: the guest's clock advances one
    /// virtual ns per guest instruction, so ns are instructions.
    Icount,
}

impl Timebase {
    /// The environment variable that names it.
    pub const ENV: &'static str = "URING_REPRO_TIMEBASE";

    pub fn name(self) -> &'static str {
        match self {
            Timebase::Wall => "wall",
            Timebase::Icount => "icount",
        }
    }

    /// The timebase an environment (`NAME=value` words) names: Wall
    /// without the variable; Err(value) for a value that is neither name.
    pub fn from_env<'e>(env: impl Iterator<Item = &'e [u8]>) -> Result<Timebase, &'e [u8]> {
        let mut tb = Timebase::Wall;
        for word in env {
            let Some(value) = word
                .strip_prefix(Self::ENV.as_bytes())
                .and_then(|v| v.strip_prefix(b"="))
            else {
                continue;
            };
            tb = [Timebase::Wall, Timebase::Icount]
                .into_iter()
                .find(|t| t.name().as_bytes() == value)
                .ok_or(value)?;
        }
        Ok(tb)
    }

    /// The line an icount point prints after its banner: what its numbers
    /// are, so that they cannot be taken for time.
    pub fn unit_line(self) -> Option<&'static str> {
        match self {
            Timebase::Wall => None,
            Timebase::Icount => Some(
                "# unit=guest_instructions_per_pair (QEMU TCG -icount shift=0: one virtual ns \
                 per guest instruction, user + kernel; not time)",
            ),
        }
    }
}

/// The boot's identity as its host drew it, and where it was found: the
/// file `/uring-repro.boot_id` of the initramfs (`initramfs --boot-id`:
/// boot-point.sh writes a fresh one into every boot's archive; read by the
/// init of a fresh boot), or the environment word `URING_REPRO_BOOT_ID=UUID`
/// (any process; it wins over the file). The point states it as its
/// boot_id, where the kernel's own could repeat: under QEMU's instruction
/// clock two boots of one image run alike and draw the same one. Not in the
/// contract. The value is taken as it is, opaque bytes of a UUID's length,
/// never looked into: nothing the run does may depend on what it says, or
/// it could move the figures of an instruction-counted point (compare reads
/// it as the UUID it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostBootId<'a> {
    /// The id, as given.
    pub id: &'a [u8],
    /// Where it came from: `FILE` or `ENV` (the point's
    /// `# boot_id_source=` line names it).
    pub source: &'static str,
}

impl HostBootId<'_> {
    /// The environment variable that gives it.
    pub const ENV: &'static str = "URING_REPRO_BOOT_ID";
    /// The initramfs's file that gives it: the id and a newline.
    pub const FILE: &'static str = "/uring-repro.boot_id";
    /// Its length: a UUID's, 8-4-4-4-12 hex digits.
    pub const LEN: usize = 36;

    /// The boot id an environment (`NAME=value` words) gives: None without
    /// the variable; Err(value) for one that is not a UUID's length.
    pub fn from_env<'e>(
        env: impl Iterator<Item = &'e [u8]>,
    ) -> Result<Option<HostBootId<'e>>, &'e [u8]> {
        let mut id = None;
        for word in env {
            if let Some(value) = word
                .strip_prefix(Self::ENV.as_bytes())
                .and_then(|v| v.strip_prefix(b"="))
            {
                id = Some(value);
            }
        }
        match id {
            Some(v) if v.len() != Self::LEN => Err(v),
            id => Ok(id.map(|id| HostBootId {
                id,
                source: Self::ENV,
            })),
        }
    }

    /// The boot id a `FILE`'s bytes give: a UUID's length of bytes and a
    /// newline, else None.
    pub fn from_file(file: &[u8]) -> Option<HostBootId<'_>> {
        let id = file
            .strip_suffix(b"\n")
            .filter(|id| id.len() == Self::LEN)?;
        Some(HostBootId {
            id,
            source: Self::FILE,
        })
    }
}

/// How a run runs (the workload is chosen beside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig<'a> {
    pub mode: Mode,
    /// `--cpu N`; None: DEFAULT_CPU when allowed, else the highest allowed.
    pub cpu: Option<u32>,
    pub rounds: u32,
    pub cycles: u32,
    pub warmups: u32,
    /// Requests per cycle (v0: WAITV groups).
    pub slots: u32,
    /// Futex words without FUTEX2_PRIVATE (`--shared`).
    pub shared: bool,
    pub timeout_s: u32,
    /// `--tsv FILE`, as typed (no NUL).
    pub tsv: Option<&'a [u8]>,
    /// pollwake: messages per burst, the waiter's CPU, every ring's flags.
    pub burst: u32,
    pub waiter_cpu: Option<u32>,
    pub ring_flags: RingFlags,
    /// `--inject-ns N`: a positive control, N ns added to every pair.
    pub inject_ns: u32,
    pub witness: Witness,
    /// From the environment, not the command line; not in the contract.
    pub timebase: Timebase,
    /// The boot's identity as its host gave it, else None.
    pub boot_id: Option<HostBootId<'a>>,
}

impl Default for RunConfig<'_> {
    fn default() -> Self {
        RunConfig {
            mode: Mode::Point,
            cpu: None,
            rounds: DEFAULT_ROUNDS,
            cycles: DEFAULT_CYCLES,
            warmups: DEFAULT_WARMUPS,
            slots: DEFAULT_SLOTS,
            shared: false,
            timeout_s: DEFAULT_TIMEOUT_S,
            tsv: None,
            burst: DEFAULT_BURST,
            waiter_cpu: None,
            ring_flags: RingFlags::None,
            inject_ns: 0,
            witness: Witness::Off,
            timebase: Timebase::Wall,
            boot_id: None,
        }
    }
}

impl RunConfig<'_> {
    /// `private` or `shared` (banner, TSV, describe).
    pub fn futex_scope(&self) -> &'static str {
        if self.shared {
            "shared"
        } else {
            "private"
        }
    }

    /// The bound on every wait, in nanoseconds.
    pub fn timeout_ns(&self) -> u64 {
        self.timeout_s as u64 * 1_000_000_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_report_contract() {
        let c = RunConfig::default();
        assert_eq!(
            (c.rounds, c.cycles, c.warmups, c.slots, c.timeout_s, c.cpu),
            (15, 512, 3, 32, 2, None)
        );
        assert_eq!((c.mode, c.futex_scope()), (Mode::Point, "private"));
        assert_eq!((RING_ENTRIES, CQ_ENTRIES), (64, 128));
    }

    #[test]
    fn the_hosts_boot_id_comes_from_the_environment_unread() {
        let env = |words: &[&'static str]| {
            HostBootId::from_env(words.iter().map(|w| w.as_bytes())).map(|h| h.map(|h| h.id))
        };
        let id = "5f0c2b1e-0a1b-4c2d-8e3f-0123456789ab";
        let word: &'static str = format!("URING_REPRO_BOOT_ID={id}").leak();
        assert_eq!(env(&[]), Ok(None));
        assert_eq!(env(&["HOME=/", word]), Ok(Some(id.as_bytes())));
        let given = HostBootId::from_env([word.as_bytes()].into_iter());
        assert_eq!(given.unwrap().unwrap().source, "URING_REPRO_BOOT_ID");
        assert_eq!(env(&["URING_REPRO_BOOT_IDX=1"]), Ok(None));
        // Its length is all that is checked: the value is never looked into.
        let odd = "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz";
        let word: &'static str = format!("URING_REPRO_BOOT_ID={odd}").leak();
        assert_eq!(env(&[word]), Ok(Some(odd.as_bytes())));
        for bad in ["", "b1", "5f0c2b1e-0a1b-4c2d-8e3f-0123456789abc"] {
            let word: &'static str = format!("URING_REPRO_BOOT_ID={bad}").leak();
            assert_eq!(env(&[word]), Err(bad.as_bytes()), "{bad:?}");
        }
    }

    #[test]
    fn the_hosts_boot_id_from_the_archives_file_is_a_uuids_length_and_a_newline() {
        let id = "5f0c2b1e-0a1b-4c2d-8e3f-0123456789ab";
        let file = format!("{id}\n");
        let got = HostBootId::from_file(file.as_bytes()).unwrap();
        assert_eq!(
            (got.id, got.source),
            (id.as_bytes(), "/uring-repro.boot_id")
        );
        let odd = b"zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz\n";
        assert_eq!(HostBootId::from_file(odd).unwrap().id, &odd[..36]);
        for bad in [
            "",
            "\n",
            id,
            "b1\n",
            &format!("{id}\n\n"),
            &format!("{id}c\n"),
        ] {
            assert_eq!(HostBootId::from_file(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn the_timebase_comes_from_the_environment() {
        let env = |words: &[&'static str]| Timebase::from_env(words.iter().map(|w| w.as_bytes()));
        assert_eq!(env(&[]), Ok(Timebase::Wall));
        assert_eq!(env(&["HOME=/", "TERM=linux"]), Ok(Timebase::Wall));
        assert_eq!(env(&["URING_REPRO_TIMEBASE=icount"]), Ok(Timebase::Icount));
        assert_eq!(env(&["URING_REPRO_TIMEBASE=wall"]), Ok(Timebase::Wall));
        // Not the variable: a longer name, or no `=`.
        assert_eq!(env(&["URING_REPRO_TIMEBASEX=icount"]), Ok(Timebase::Wall));
        assert_eq!(env(&["URING_REPRO_TIMEBASE"]), Ok(Timebase::Wall));
        // Any other value is refused, named (case matters, empty too).
        for bad in ["ICOUNT", "", "icount ", "tsc"] {
            let word: &'static str = format!("URING_REPRO_TIMEBASE={bad}").leak();
            assert_eq!(env(&["HOME=/", word]), Err(bad.as_bytes()), "{bad:?}");
        }
        assert_eq!(Timebase::Wall.unit_line(), None);
        let unit = Timebase::Icount.unit_line().unwrap();
        assert_eq!(
            unit,
            "# unit=guest_instructions_per_pair (QEMU TCG -icount shift=0: one virtual ns per \
             guest instruction, user + kernel; not time)"
        );
    }

    #[test]
    fn ring_flags_names_round_trip() {
        for f in RingFlags::ALL {
            assert_eq!(RingFlags::parse(f.name().as_bytes()), Some(f));
        }
        assert_eq!(RingFlags::parse(b"defer"), None);
        assert_eq!(RingFlags::DeferTaskrun.setup(), 0x3000);
        assert_eq!(RingFlags::SingleIssuer.setup(), 0x1000);
        assert!(RingFlags::DeferTaskrun.deferred() && !RingFlags::SingleIssuer.deferred());
    }
}
