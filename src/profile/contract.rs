//! The contract of a run: what it will submit and expect, on which ring and
//! CPU, how often. `describe` prints it as one JSON line; its SHA-256 is the
//! TSV's `input_sha256` (the formal tool hashed its input there; we have no
//! input file, so we hash the contract instead), so
//! `uring-repro describe <the run's options> | sha256sum` reproduces the
//! column. Nothing about the box (kernel, boot) is in it: that is what
//! changes between the points of a comparison. `inject_ns` appears only in
//! a positive control's contract, so a plain run's hash is what it always
//! was.

use core::fmt::{self, Write};

use super::ProfileId;
use crate::check::Kind;
use crate::config::{RunConfig, CQ_ENTRIES, RING_ENTRIES, VERSION};
use crate::fmt::Text;
use crate::sha256::Sha256;

pub struct Contract<'c, 'a> {
    pub id: ProfileId,
    pub cfg: &'c RunConfig<'a>,
    /// The CPU the run pins to (chosen as `run` chooses it).
    pub cpu: u32,
}

impl Contract<'_, '_> {
    /// The JSON object, one line, ending with a newline.
    pub fn write_json(&self, w: &mut dyn Write) -> fmt::Result {
        let c = self.cfg;
        let s = self.id.shape(c);
        write!(
            w,
            "{{\"tool\":\"uring-repro\",\"tool_version\":\"{VERSION}\",\"profile\":\"{}\",\
             \"mode\":\"{}\",\"ring_entries\":{RING_ENTRIES},\"cq_entries\":{CQ_ENTRIES},\
             \"slots\":{},\"vector_width\":{},\"pairs_per_cycle\":{},\"cycles\":{},\
             \"warmups\":{},\"rounds\":{},\"cpu\":{},\"futex_scope\":\"{}\",\"timeout_s\":{},",
            self.id.formal_name(),
            c.mode.name(),
            s.slots,
            s.vector_width,
            s.pairs,
            c.cycles,
            c.warmups,
            c.rounds,
            self.cpu,
            c.futex_scope(),
            c.timeout_s,
        )?;
        if c.inject_ns != 0 {
            write!(w, "\"inject_ns\":{},", c.inject_ns)?;
        }
        w.write_str("\"expect\":{")?;
        // The CQEs a cycle must produce, per kind that it submits.
        let mut sep = "";
        for k in Kind::ALL {
            let e = s.expect[k as usize];
            if e.count != 0 {
                write!(
                    w,
                    "{sep}\"{}\":{{\"count\":{},\"res\":{}}}",
                    k.name(),
                    e.count,
                    e.res
                )?;
                sep = ",";
            }
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
    use crate::fmt::TEXT_MAX;
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
        let s = json_of(ProfileId::V0, &cfg);
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
        assert!(c.json().as_bytes().len() < crate::fmt::TEXT_MAX);
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
