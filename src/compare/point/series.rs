//! A point's `# series:` lines: what each series (row set) of its table
//! is, as the run states it, so that compare, report and the mail learn a
//! workload's unit, its words, its `--profile` option and its modes from
//! the point and from no table of their own:
//!
//! ```text
//! # series: NAME option=SHORT per="UNIT" about="WORDS"[ mode=MODE]
//! ```
//!
//! NAME is the series' profile as its rows or banner name it; `option`
//! the `--profile` short name that runs it; `per` what one figure is per;
//! `about` the workload in kernel words; `mode` (a table of several
//! series only) the `--mode` word that selects it. Values in double
//! quotes hold no `"` and no `\`; words are separated by one space.
//! Other keys are passed over (a later version may state more). Points
//! without these lines (older ones, TSVs, the C standalone) state none of
//! this.

/// The prefix of a series line.
pub const SERIES_PREFIX: &[u8] = b"# series: ";

/// Most series lines of one point (a table has a series per row set:
/// pollwake's four modes).
pub const MAX_SERIES_LINES: usize = 8;

/// What a series line out of its format is.
pub const FORMAT: &str = "a series line out of its format (# series: NAME option=SHORT \
per=\"UNIT\" about=\"WORDS\"[ mode=MODE])";

/// One series, as its line states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Series<'t> {
    pub name: &'t [u8],
    pub option: &'t [u8],
    pub per: &'t [u8],
    pub about: &'t [u8],
    pub mode: Option<&'t [u8]>,
}

impl<'t> Series<'t> {
    /// A series line after its prefix, or why it is none.
    pub fn parse(rest: &'t [u8]) -> Result<Series<'t>, &'static str> {
        let (name, mut words) = split_at_space(rest);
        if name.is_empty() || name.contains(&b'=') {
            return Err(FORMAT);
        }
        let (mut option, mut per, mut about, mut mode) = (None, None, None, None);
        while !words.is_empty() {
            let eq = words.iter().position(|&b| b == b'=').ok_or(FORMAT)?;
            let (key, after) = (&words[..eq], &words[eq + 1..]);
            let (value, rest) = match after.strip_prefix(b"\"") {
                Some(quoted) => {
                    let end = quoted.iter().position(|&b| b == b'"').ok_or(FORMAT)?;
                    let rest = &quoted[end + 1..];
                    if !rest.is_empty() && rest[0] != b' ' {
                        return Err(FORMAT);
                    }
                    (&quoted[..end], rest.get(1..).unwrap_or(b""))
                }
                None => split_at_space(after),
            };
            if value.is_empty() || value.contains(&b'\\') || key.is_empty() || key.contains(&b' ') {
                return Err(FORMAT);
            }
            match key {
                b"option" => option = Some(value),
                b"per" => per = Some(value),
                b"about" => about = Some(value),
                b"mode" => mode = Some(value),
                _ => {}
            }
            words = rest;
        }
        let (Some(option), Some(per), Some(about)) = (option, per, about) else {
            return Err(FORMAT);
        };
        Ok(Series {
            name,
            option,
            per,
            about,
            mode,
        })
    }
}

/// The text up to the first space, and what follows it.
fn split_at_space(s: &[u8]) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == b' ') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, b""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_line_and_its_quoted_values() {
        let s = Series::parse(
            b"pollwake_idle option=pollwake per=\"MSG_RING completion\" \
              about=\"io_uring poll wakeup, idle epoll\" mode=idle",
        );
        assert_eq!(
            s,
            Ok(Series {
                name: b"pollwake_idle",
                option: b"pollwake",
                per: b"MSG_RING completion",
                about: b"io_uring poll wakeup, idle epoll",
                mode: Some(b"idle"),
            })
        );
        // Unquoted values, keys in any order, a key of a later version.
        let s = Series::parse(
            b"s0_wait_wake about=\"io_uring futex WAIT/WAKE\" per=pair later=x option=s0",
        );
        let s = s.unwrap();
        assert_eq!((s.option, s.per, s.mode), (&b"s0"[..], &b"pair"[..], None));
        for junk in [
            "",
            "s0",
            "s0 option=s0 per=pair",
            "s0 option=s0 per=\"pair about=x",
            "s0 option=s0 per=\"a\\b\" about=x",
            "s0 option=s0 per=\"pair\"x about=x",
            "s0 option= per=pair about=x",
            "s0 option=s0  per=pair about=x",
            "name=s0 option=s0 per=pair about=x",
        ] {
            assert_eq!(Series::parse(junk.as_bytes()), Err(FORMAT), "{junk:?}");
        }
    }
}
