//! What a point states about its run: the keys of its banner lines and
//! fact lines (our stdout) and the TSV columns that state the same, in one
//! table.

/// What a point states about its run, by index into `KEYS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Version,
    Profile,
    Mode,
    Kernel,
    BootId,
    Cpu,
    CpuChoice,
    Clock,
    Timebase,
    InjectNs,
    Witness,
    RingEntries,
    CqEntries,
    Slots,
    Cycles,
    Warmups,
    Rounds,
    Futex,
    Timeout,
    Sha,
    Machine,
    Preempt,
    PreemptSource,
    CpuModel,
    Governor,
    Turbo,
    Smt,
}

/// Every key's stdout word (the name stderr uses too) and its TSV column
/// (empty: no TSV carries it), each beside its `Key`, in `Key` order (the
/// const assert below holds every row to its place). The banner's keys
/// stand among its words; the fact lines (`machine` on) are one key a
/// line.
pub const KEYS: [(Key, &str, &str); 27] = [
    (Key::Version, "version", "tool_version"),
    (Key::Profile, "profile", "profile"),
    (Key::Mode, "mode", "mode"),
    (Key::Kernel, "kernel", "kernel_release"),
    (Key::BootId, "boot_id", "boot_id"),
    (Key::Cpu, "cpu", "cpu"),
    (Key::CpuChoice, "cpu_choice", ""),
    (Key::Clock, "clock", "clock_source"),
    (Key::Timebase, "timebase", "timebase"),
    (Key::InjectNs, "inject_ns", "inject_ns"),
    (Key::Witness, "witness", "witness"),
    (Key::RingEntries, "ring_entries", "ring_entries"),
    (Key::CqEntries, "cq_entries", ""),
    (Key::Slots, "slots", "slots"),
    (Key::Cycles, "cycles", "cycles"),
    (Key::Warmups, "warmups", ""),
    (Key::Rounds, "rounds", "rounds_planned"),
    (Key::Futex, "futex", "futex_scope"),
    (Key::Timeout, "timeout_s", ""),
    (Key::Sha, "input_sha256", "input_sha256"),
    (Key::Machine, "machine", "machine"),
    (Key::Preempt, "preempt", "preempt"),
    (Key::PreemptSource, "preempt_source", "preempt_source"),
    (Key::CpuModel, "cpu_model", "cpu_model"),
    (Key::Governor, "governor", "governor"),
    (Key::Turbo, "turbo", "turbo"),
    (Key::Smt, "smt", "smt"),
];

// Row i names Key number i, and every Key has its row: a key added to
// one and not the other, or out of order, fails to build.
const _: () = {
    let mut i = 0;
    while i < KEYS.len() {
        assert!(KEYS[i].0 as usize == i);
        i += 1;
    }
    assert!(Key::Smt as usize + 1 == KEYS.len());
};

impl Key {
    /// Its word in our stdout: `kernel` of `kernel=6.15.0`.
    pub fn name(self) -> &'static str {
        KEYS[self as usize].1
    }
}

/// Where the one-a-line keys start in `KEYS`: the banner has those before.
pub const LINE_KEYS: usize = Key::Machine as usize;

/// What makes a TSV one run: every row says the same for these keys.
pub const ONE_RUN: [(Key, &str); 5] = [
    (Key::Profile, "mixed profiles in one point"),
    (Key::Kernel, "mixed kernel releases in one point"),
    (
        Key::BootId,
        "mixed boot ids in one point (one boot per file)",
    ),
    (Key::Rounds, "mixed rounds_planned in one point"),
    (Key::Timebase, "mixed timebases in one point"),
];
