//! `selftest`: every workload's smoke, in both futex scopes where it has
//! one, in this process; TAP 13 on stdout. Exit 0 when none failed (skips
//! allowed), 1 when any failed, 4 when every one was skipped, 130 when
//! SIGINT or SIGTERM stopped it (`Bail out!`).

use core::fmt::Write;

use crate::config::{Mode, RunConfig, SMOKE_CYCLES, SMOKE_ROUNDS};
use crate::exit::{self, fail};
use crate::profile::{self, ProfileId};
use crate::render::Line;
use crate::sys::clock::Clock;
use crate::sys::out::Out;
use crate::sys::signal;

/// The smoke of `id` in one futex scope, with `base`'s CPU and timeout.
fn smoke<'a>(base: &RunConfig<'a>, id: ProfileId, shared: bool) -> RunConfig<'a> {
    RunConfig {
        mode: Mode::Smoke,
        cpu: base.cpu,
        rounds: SMOKE_ROUNDS,
        cycles: SMOKE_CYCLES,
        warmups: 0,
        slots: id.default_slots(),
        shared,
        timeout_s: base.timeout_s,
        ..RunConfig::default()
    }
}

/// Every workload's smoke, in each of its futex scopes
/// (`ProfileId::variants`), as TAP on `out`; returns the exit code.
pub fn run(base: &RunConfig, clock: &Clock, out: &mut Out) -> i32 {
    let total = ProfileId::variants().count();
    let _ = writeln!(out, "TAP version 13\n1..{total}");
    out.flush();
    let (mut failed, mut skipped, mut first_skip) = (0, 0, Line::new());
    for (n, (id, shared)) in ProfileId::variants().enumerate() {
        let cfg = smoke(base, id, shared);
        let e = profile::run(id, &cfg, clock, &mut Out::null());
        let cause = e.cause();
        if e.code == exit::INTERRUPTED {
            return bail_out(out, &cause);
        }
        let name = format_args!("{} - {} {}", n + 1, id.formal_name(), cfg.futex_scope());
        let _ = match e.code {
            exit::PASS => writeln!(out, "ok {name}"),
            exit::SKIP => {
                skipped += 1;
                if skipped == 1 {
                    first_skip = cause;
                }
                writeln!(out, "ok {name} # SKIP {cause}")
            }
            code => {
                failed += 1;
                writeln!(out, "not ok {name}\n# exit {code}: {cause}")
            }
        };
        out.flush();
        // Caught after the test had finished (or before it started).
        if signal::caught() != 0 {
            let mut why = Line::new();
            let _ = write!(why, "interrupted by {}", signal::name(signal::caught()));
            return bail_out(out, &why);
        }
    }
    if failed > 0 {
        let why = format_args!("selftest: {failed} of {total} failed (see stdout)");
        fail(exit::FAIL, why)
    } else if skipped == total {
        let why = format_args!("selftest: every test skipped: {first_skip}");
        fail(exit::SKIP, why)
    } else {
        exit::PASS
    }
}

/// Ends the TAP stream early: `Bail out! <cause>`, and the same cause on
/// stderr; exit 130.
fn bail_out(out: &mut Out, cause: &Line) -> i32 {
    let _ = writeln!(out, "Bail out! {cause}");
    out.flush();
    fail(exit::INTERRUPTED, format_args!("{cause}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Takes;

    #[test]
    fn a_smoke_keeps_the_cpu_and_timeout_and_v0_counts_groups() {
        let base = RunConfig {
            cpu: Some(1),
            timeout_s: 5,
            rounds: 9,
            ..RunConfig::default()
        };
        let s = smoke(&base, ProfileId::parse(b"v0").unwrap(), true);
        assert_eq!(
            (
                s.mode,
                s.rounds,
                s.cycles,
                s.warmups,
                s.slots,
                s.shared,
                s.cpu,
                s.timeout_s
            ),
            (Mode::Smoke, 1, 2, 0, 8, true, Some(1), 5)
        );
        assert_eq!(smoke(&base, ProfileId::S0, false).slots, 32);
        // Every profile privately, and shared where it takes --shared.
        let shared = ProfileId::ALL.iter().filter(|id| id.takes(Takes::Shared));
        assert_eq!(
            ProfileId::variants().filter(|t| !t.1).count(),
            ProfileId::ALL.len()
        );
        assert!(ProfileId::variants()
            .filter(|t| t.1)
            .map(|t| t.0)
            .eq(shared.copied()));
    }
}
