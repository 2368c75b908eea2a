//! The contract of a run: what it runs and how often, on which ring and
//! CPU, and what it must get back. Every run option that can change a
//! figure sets one of its fields (the options table, cli/options.rs, names
//! the field of each option, or why an option changes no figure), and
//! every field is stated three times from the one list here: on the banner
//! (`Field::stated`), in `describe`'s JSON, and so in its SHA-256, the
//! banner's and the TSV's `input_sha256` (the formal tool hashed its input
//! there; we have no input file, so we hash the contract instead):
//! `uring-repro describe <the run's options> | sha256sum` reproduces it.
//! Nothing about the box (kernel, boot) is in it: that is what changes
//! between the points of a comparison. Nor is how a point was measured
//! (`--witness`, the timebase): the first banner line states that. A field
//! a workload does not have is not stated (pollwake has no slots, the
//! futex workloads no burst), and `inject_ns` only in a positive control's
//! contract, so a plain run's hash is what it always was.

use core::fmt::{self, Write};

use crate::check::Kind;
use crate::config::{RunConfig, CQ_ENTRIES, RING_ENTRIES, VERSION, WATCHDOG_MS};
use crate::profile::parts::setup;
use crate::profile::registry::ProfileId;
use crate::profile::vocabulary::{OwnRing, Profile, Takes};
use crate::render::Text;
use crate::sha256::Sha256;

/// A field of the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `--profile`: the formal name.
    Profile,
    /// `--smoke`, `--trace`: point, smoke or trace.
    Mode,
    /// pollwake's `--burst`: messages per burst.
    Burst,
    /// The ring every workload sets up (io_uring_setup's sizes).
    RingEntries,
    CqEntries,
    /// `--slots`: requests of the main kind per cycle (v0: groups), and
    /// the futex words per wait request (futex workloads).
    Slots,
    VectorWidth,
    /// The unit of a figure: pairs per cycle (from the slots or burst).
    PairsPerCycle,
    Cycles,
    Warmups,
    Rounds,
    /// `--cpu`, as `run` chooses it.
    Cpu,
    /// pollwake's `--ring-flags` and `--waiter-cpu` (the producer's CPU
    /// unless given), and its waiter's watchdog.
    RingFlags,
    WaiterCpu,
    WatchdogMs,
    /// The ring a workload runs its cycles on in place of the run's
    /// (`RunOptions::own_ring`): its io_uring_setup flags, and with
    /// IORING_SETUP_SQPOLL its SQ thread's CPU (chosen from the run's CPU
    /// and the box's online CPUs, parts/setup.rs) and idle time.
    SetupFlags,
    SqThreadCpu,
    SqThreadIdleMs,
    /// `--shared`: `private` or `shared`, where the workload has futex words.
    FutexScope,
    /// `--timeout`: the bound on every wait, in seconds.
    Timeout,
    /// `--inject-ns`: only in a positive control's contract.
    InjectNs,
}

/// Where the banner states a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stated {
    /// On the first line, among the facts that name the run.
    Head,
    /// On the contract line, the second.
    ContractLine,
    /// In `describe` only: it follows from fields the banner states.
    DescribeOnly,
}

impl Field {
    /// Every field, in `describe`'s order, which the contract line keeps.
    pub const ALL: [Field; 21] = [
        Field::Profile,
        Field::Mode,
        Field::Burst,
        Field::RingEntries,
        Field::CqEntries,
        Field::Slots,
        Field::VectorWidth,
        Field::PairsPerCycle,
        Field::Cycles,
        Field::Warmups,
        Field::Rounds,
        Field::Cpu,
        Field::RingFlags,
        Field::WaiterCpu,
        Field::WatchdogMs,
        Field::SetupFlags,
        Field::SqThreadCpu,
        Field::SqThreadIdleMs,
        Field::FutexScope,
        Field::Timeout,
        Field::InjectNs,
    ];

    /// Its name in `describe`'s JSON.
    pub fn name(self) -> &'static str {
        match self {
            Field::Profile => "profile",
            Field::Mode => "mode",
            Field::Burst => "burst",
            Field::RingEntries => "ring_entries",
            Field::CqEntries => "cq_entries",
            Field::Slots => "slots",
            Field::VectorWidth => "vector_width",
            Field::PairsPerCycle => "pairs_per_cycle",
            Field::Cycles => "cycles",
            Field::Warmups => "warmups",
            Field::Rounds => "rounds",
            Field::Cpu => "cpu",
            Field::RingFlags => "ring_flags",
            Field::WaiterCpu => "waiter_cpu",
            Field::WatchdogMs => "watchdog_ms",
            Field::SetupFlags => "setup_flags",
            Field::SqThreadCpu => "sq_thread_cpu",
            Field::SqThreadIdleMs => "sq_thread_idle_ms",
            Field::FutexScope => "futex_scope",
            Field::Timeout => "timeout_s",
            Field::InjectNs => "inject_ns",
        }
    }

    /// Its key on the banner: its name, but `futex` (the C standalone's
    /// word) for the futex scope.
    pub fn key(self) -> &'static str {
        match self {
            Field::FutexScope => "futex",
            f => f.name(),
        }
    }

    pub fn stated(self) -> Stated {
        match self {
            Field::Profile | Field::Mode | Field::Cpu | Field::InjectNs => Stated::Head,
            Field::PairsPerCycle => Stated::DescribeOnly,
            _ => Stated::ContractLine,
        }
    }

    /// Whether a workload has the field: a field of an option only some
    /// workloads take is theirs alone.
    pub fn applies(self, p: &Profile) -> bool {
        let takes = |t| p.options.takes.contains(&t);
        match self {
            Field::Slots => takes(Takes::Slots),
            // Futex words per wait request: a futex workload's alone.
            Field::VectorWidth => takes(Takes::Slots) && p.options.futex_words,
            Field::Burst => takes(Takes::Burst),
            // The watchdog bounds the waiter's every wait.
            Field::WaiterCpu | Field::WatchdogMs => takes(Takes::WaiterCpu),
            Field::RingFlags => takes(Takes::RingFlags),
            Field::SetupFlags => p.options.own_ring.is_some(),
            Field::SqThreadCpu | Field::SqThreadIdleMs => {
                p.options.own_ring.as_ref().is_some_and(OwnRing::polled)
            }
            Field::FutexScope => p.options.futex_words,
            _ => true,
        }
    }
}

/// A field's value: JSON quotes a word, not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue {
    Num(u64),
    Word(&'static str),
}

impl fmt::Display for FieldValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Num(n) => write!(f, "{n}"),
            FieldValue::Word(w) => f.write_str(w),
        }
    }
}

pub struct Contract<'c, 'a> {
    pub id: ProfileId,
    pub cfg: &'c RunConfig<'a>,
    /// The CPU the run pins to (chosen as `run` chooses it).
    pub cpu: u32,
}

impl Contract<'_, '_> {
    /// Field `f` of this run; None where the run does not state it (the
    /// workload does not have it; `inject_ns` outside a positive control).
    pub fn value(&self, f: Field) -> Option<FieldValue> {
        if !f.applies(self.id.profile()) {
            return None;
        }
        let (c, s) = (self.cfg, self.id.shape(self.cfg));
        let own = self.id.profile().options.own_ring.as_ref();
        let num = |n: u32| Some(FieldValue::Num(n as u64));
        match f {
            Field::Profile => Some(FieldValue::Word(self.id.formal_name())),
            Field::Mode => Some(FieldValue::Word(c.mode.name())),
            Field::Burst => num(c.burst),
            Field::RingEntries => num(RING_ENTRIES),
            Field::CqEntries => num(CQ_ENTRIES),
            Field::Slots => num(s.slots),
            Field::VectorWidth => num(s.vector_width),
            Field::PairsPerCycle => Some(FieldValue::Num(s.pairs)),
            Field::Cycles => num(c.cycles),
            Field::Warmups => num(c.warmups),
            Field::Rounds => num(c.rounds),
            Field::Cpu => num(self.cpu),
            Field::RingFlags => Some(FieldValue::Word(c.ring_flags.name())),
            Field::WaiterCpu => num(c.waiter_cpu.unwrap_or(self.cpu)),
            Field::WatchdogMs => num(WATCHDOG_MS as u32),
            Field::SetupFlags => own.map(|o| FieldValue::Word(o.names)),
            Field::SqThreadCpu => num(setup::sq_thread_cpu(self.cpu)),
            Field::SqThreadIdleMs => own.and_then(|o| num(o.sq_thread_idle_ms)),
            Field::FutexScope => Some(FieldValue::Word(c.futex_scope())),
            Field::Timeout => num(c.timeout_s),
            Field::InjectNs => (c.inject_ns != 0).then_some(FieldValue::Num(c.inject_ns as u64)),
        }
    }

    /// ` KEY=VALUE` of field `f` on the banner, where the run states it.
    pub fn word(&self, w: &mut dyn Write, f: Field) {
        if let Some(v) = self.value(f) {
            let _ = write!(w, " {}={v}", f.key());
        }
    }

    /// The JSON object, one line, ending with a newline.
    pub fn write_json(&self, w: &mut dyn Write) -> fmt::Result {
        write!(
            w,
            "{{\"tool\":\"uring-repro\",\"tool_version\":\"{VERSION}\","
        )?;
        for f in Field::ALL {
            match self.value(f) {
                Some(FieldValue::Num(n)) => write!(w, "\"{}\":{n},", f.name())?,
                Some(FieldValue::Word(v)) => write!(w, "\"{}\":\"{v}\",", f.name())?,
                None => {}
            }
        }
        w.write_str("\"expect\":{")?;
        // The CQEs a cycle must produce, per kind that it submits; a kind
        // whose every request has a res of its own (pollwake's target CQEs:
        // each its message's value) has no one res to state.
        let s = self.id.shape(self.cfg);
        let mut sep = "";
        for k in Kind::ALL {
            let e = s.expect[k as usize];
            if e.count == 0 {
                continue;
            }
            write!(w, "{sep}\"{}\":{{\"count\":{}", k.name(), e.count)?;
            if k != Kind::Target {
                write!(w, ",\"res\":{}", e.res)?;
            }
            w.write_str("}")?;
            sep = ",";
        }
        w.write_str("}}\n")
    }

    /// The JSON line, rendered once for printing and hashing alike.
    pub fn json(&self) -> Text {
        let mut t = Text::new();
        let _ = self.write_json(&mut t);
        t
    }

    /// SHA-256 of exactly the bytes `json` holds (and `describe` prints).
    pub fn sha256(&self) -> [u8; 32] {
        let mut h = Sha256::default();
        h.update(self.json().as_bytes());
        h.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Mode;
    use crate::render::TEXT_MAX;
    use crate::sha256::Hex;

    fn json_of(id: ProfileId, cfg: &RunConfig) -> String {
        let mut s = String::new();
        Contract { id, cfg, cpu: 2 }.write_json(&mut s).unwrap();
        s
    }

    fn json(cfg: &RunConfig) -> String {
        json_of(ProfileId::S0, cfg)
    }

    #[test]
    fn s0_point_contract() {
        let s = json(&RunConfig::default());
        assert_eq!(
            s,
            format!(
                "{{\"tool\":\"uring-repro\",\"tool_version\":\"{VERSION}\",\"profile\":\"s0_wait_wake\",\
                 \"mode\":\"point\",\"ring_entries\":64,\"cq_entries\":128,\"slots\":32,\
                 \"vector_width\":1,\"pairs_per_cycle\":32,\"cycles\":512,\"warmups\":3,\
                 \"rounds\":15,\"cpu\":2,\"futex_scope\":\"private\",\"timeout_s\":2,\
                 \"expect\":{{\"wait\":{{\"count\":32,\"res\":0}},\"wake\":{{\"count\":32,\"res\":1}}}}}}\n"
            )
        );
    }

    #[test]
    fn v0_shared_contract_names_every_kind() {
        let cfg = RunConfig {
            slots: 8,
            shared: true,
            mode: Mode::Smoke,
            ..RunConfig::default()
        };
        let s = json_of(ProfileId::parse(b"v0").unwrap(), &cfg);
        assert!(s.len() < TEXT_MAX - 64, "{s}");
        assert!(
            s.contains("\"profile\":\"v0_waitv_wake\",\"mode\":\"smoke\""),
            "{s}"
        );
        assert!(
            s.contains("\"slots\":8,\"vector_width\":8,\"pairs_per_cycle\":8"),
            "{s}"
        );
        assert!(s.contains("\"futex_scope\":\"shared\""), "{s}");
        assert!(
            s.ends_with(
                "\"expect\":{\"wake\":{\"count\":8,\"res\":1},\"check\":{\"count\":8,\"res\":0},\
             \"waitv\":{\"count\":8,\"res\":3}}}\n"
            ),
            "{s}"
        );
    }

    #[test]
    fn hash_is_of_the_printed_bytes_and_tracks_the_contract() {
        let cfg = RunConfig::default();
        let id = ProfileId::S0;
        let c = Contract {
            id,
            cfg: &cfg,
            cpu: 2,
        };
        let mut h = Sha256::default();
        h.update(json(&cfg).as_bytes());
        assert_eq!(c.sha256(), h.digest());
        assert_eq!(c.json().as_bytes(), json(&cfg).as_bytes());
        assert!(c.json().as_bytes().len() < crate::render::TEXT_MAX);
        let other = RunConfig {
            shared: true,
            ..cfg
        };
        assert_ne!(
            Contract {
                id,
                cfg: &other,
                cpu: 2
            }
            .sha256(),
            c.sha256()
        );
        assert_ne!(
            Contract {
                id,
                cfg: &cfg,
                cpu: 1
            }
            .sha256(),
            c.sha256()
        );
        assert_eq!(Hex(&c.sha256()).to_string().len(), 64);
    }
}
