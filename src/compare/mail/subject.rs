//! The draft's Subject and its regzbot lines: they say what the body
//! claims, as kernel mail tags what a mail is in brackets at the front of
//! its Subject (`[PATCH]`, `[RFC]`, regzbot's `[REGRESSION]`).
//!
//! The claim is the first test label's (the comparison the title's change
//! and `--introduced` are of), or none at all when a point failed its
//! checks:
//!
//! - `[REGRESSION]`: CONFIRMED, the figure up (more ns, or instructions,
//!   per pair); only this one gets `#regzbot` lines, since regzbot tracks
//!   regressions;
//! - `[IMPROVEMENT]`: CONFIRMED, the figure down (the word the kernel test
//!   robot's performance reports use);
//! - `[NO CHANGE]`: the values are identical;
//! - `[NOT CONFIRMED]`: any other reason the verdict is not CONFIRMED;
//! - `[NOT EVIDENCE]`: a point failed its checks, whatever the figures.

use core::fmt::Write;

use super::{Mail, Para, MAX_FACT};
use crate::compare::analysis::Reason;
use crate::compare::words::Pct;
use crate::render::{columns, Clean, Clip, Line};
use crate::sys::out::Out;

/// Longest title `#regzbot title: ` takes within 72 columns.
const MAX_REGZBOT_TITLE: usize = 56;

/// What the body claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    Regression,
    Improvement,
    NoChange,
    NotConfirmed,
    NotEvidence,
}

impl Claim {
    /// The Subject's tag.
    pub fn tag(self) -> &'static str {
        match self {
            Claim::Regression => "[REGRESSION]",
            Claim::Improvement => "[IMPROVEMENT]",
            Claim::NoChange => "[NO CHANGE]",
            Claim::NotConfirmed => "[NOT CONFIRMED]",
            Claim::NotEvidence => "[NOT EVIDENCE]",
        }
    }
}

impl Mail<'_, '_> {
    /// What the body claims: see the module's docs.
    pub(super) fn claim(&self) -> Claim {
        if self.pts.iter().any(|p| !p.valid()) {
            return Claim::NotEvidence;
        }
        let Some(c) = self.cmps.first() else {
            return Claim::NotConfirmed;
        };
        if c.reasons & Reason::NoChange.bit() != 0 {
            Claim::NoChange
        } else if c.reasons != 0 {
            Claim::NotConfirmed
        } else if c.change > 0.0 {
            Claim::Regression
        } else {
            Claim::Improvement
        }
    }

    /// `Subject: [TAG] TITLE`, folded as a mail header is where it passes
    /// 72 columns.
    pub(super) fn subject(&self, out: &mut Out) {
        let mut p = Para::new();
        if self.d.steps {
            self.steps_subject(&mut p);
        } else {
            let _ = write!(p, "Subject: {} ", self.claim().tag());
            self.title(&mut p);
        }
        super::emit(out, &p, 1, false);
    }

    /// `#regzbot introduced:` and `#regzbot title:` with `--introduced`,
    /// for a regression only.
    pub(super) fn regzbot(&self, out: &mut Out) {
        let Some(sha) = self
            .d
            .introduced
            .filter(|_| self.claim() == Claim::Regression)
        else {
            return;
        };
        let mut p = Para::new();
        self.title(&mut p);
        let _ = writeln!(
            out,
            "#regzbot introduced: {}\n#regzbot title: {p}\n",
            Clean(sha)
        );
    }

    /// The title: --title, else the workload in kernel words, the first
    /// change and the introducing commit (its first 12 digits; left out
    /// when the title would not fit the regzbot line).
    fn title(&self, w: &mut Para) {
        if let Some(t) = self.d.title {
            let _ = write!(w, "{}", Clean(t));
            return;
        }
        let mut t = Line::new();
        if let Some(s) = self.series() {
            let _ = write!(t, "{} ", Clip::new(s.about, MAX_FACT));
        } else if let Some(p) = self.profile() {
            let _ = write!(t, "{} ", Clip::new(p, 24));
        }
        if let Some(c) = self.cmps.first() {
            let _ = write!(t, "{}", Pct(c.change));
        }
        if let Some(sha) = self.d.introduced {
            let at = 4 + sha.len().min(12);
            if columns(t.as_str()) + at <= MAX_REGZBOT_TITLE {
                let _ = write!(t, " at {}", Clip::head(sha, 12));
            }
        }
        let _ = w.write_str(t.as_str());
    }
}
