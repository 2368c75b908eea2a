//! `suite`'s command line: its items (`--profiles`), and each item's run,
//! made as `run` makes it: from the command line `--profile P [--shared]
//! OPTIONS`, OPTIONS being the suite's options that P takes, parsed as
//! `run`'s. So an item's point, contract and `input_sha256` are those of
//! `run` and `describe` with that command line, by construction.

use super::options::{self, OPTIONS, RUN};
use super::{error, parse, Command, Typed, UsageError, Why};
use crate::profile::{ProfileId, Takes};
use crate::suite::Suite;

/// Why a run option of `run` is not one of `suite`'s (`name`: as typed).
pub(super) fn not_for_suite(name: &[u8]) -> Why {
    match name {
        b"--profile" => Why::NotForSuite("--profiles LIST names its profiles"),
        b"--shared" => Why::NotForSuite("an item names its shared variant (--profiles s0:shared)"),
        b"--tsv" => Why::NotForSuite("one file cannot hold several points' rows"),
        _ => Why::NotForCommand("suite"),
    }
}

/// The suite a `suite` command line (or an initramfs's baked one: `command`
/// says which, for its errors) asks for: the items of `profiles` (every
/// workload's variants when not given), each with its run.
pub(super) fn items<'a>(
    command: u16,
    profiles: Option<&'a [u8]>,
    typed: &[Typed<'a>; OPTIONS.len()],
) -> Result<Suite<'a>, UsageError<'a>> {
    let mut s = Suite::default();
    let list_error = |value, why| error(command, b"--profiles", Some(value), why);
    match profiles {
        // Every variant once: none is refused as given again.
        None => ProfileId::variants().for_each(|(id, shared)| {
            let _ = s.push(id, shared);
        }),
        Some(list) => {
            for word in list.split(|&b| b == b',') {
                if word.is_empty() {
                    return Err(list_error(list, Why::Item("an empty item")));
                }
                let (id, shared) = item(word).map_err(|why| list_error(word, why))?;
                s.push(id, shared)
                    .map_err(|_| list_error(word, Why::Duplicate))?;
            }
        }
    }
    // A run option: of `run`'s table, where each workload says if it takes it.
    let run_option = |o: &options::Opt| o.commands & RUN != 0;
    for (i, (o, t)) in OPTIONS.iter().zip(typed).enumerate() {
        let Some((arg, _)) = *t else {
            continue;
        };
        let taken = s.items().iter().any(|item| options::takes(item.id, o));
        if run_option(o) && !taken {
            return Err(error(command, arg, None, Why::NoItemTakes(i)));
        }
    }
    for item in s.items_mut() {
        let id = item.id;
        let head: [&[u8]; 3] = [b"--profile", id.formal_name().as_bytes(), b"--shared"];
        let options = OPTIONS.iter().zip(typed);
        let given = options.filter(|(o, _)| run_option(o) && options::takes(id, o));
        // Each as typed: `--rounds=3`, or `--rounds` and `3`.
        let words = given.filter_map(|(_, t)| *t);
        let words = words.flat_map(|(arg, value)| [Some(arg), value].into_iter().flatten());
        let argv = head[..2 + item.cfg.shared as usize].iter().copied();
        match parse(argv.chain(words)) {
            Ok(Command::Run(_, cfg)) => item.cfg = cfg,
            // `run`'s checks of the workload alone (v0's --slots).
            Err(e) => {
                return Err(UsageError {
                    command,
                    item: Some(id.names().short),
                    ..e
                })
            }
            // A command line that starts with `--profile` is a run.
            Ok(_) => {}
        }
    }
    Ok(s)
}

/// An item of `--profiles`: `P` (a short, long or formal name), or
/// `P:shared` for its shared-futex variant.
fn item(word: &[u8]) -> Result<(ProfileId, bool), Why> {
    let (name, variant) = match word.iter().position(|&b| b == b':') {
        Some(i) => (&word[..i], Some(&word[i + 1..])),
        None => (word, None),
    };
    let id = ProfileId::parse(name).ok_or(Why::UnknownItem)?;
    match variant {
        None => Ok((id, false)),
        Some(b"shared") if id.takes(Takes::Shared) => Ok((id, true)),
        Some(b"shared") => Err(Why::NoSharedVariant),
        Some(_) => Err(Why::Item("unknown variant (P, or P:shared)")),
    }
}

#[cfg(test)]
mod tests;
