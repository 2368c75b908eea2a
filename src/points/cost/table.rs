//! A point's side of its `# cost:` lines: its series, in the order of its
//! rows, with their measured rounds and pairs (its mean rows): the
//! futex workloads' table of one series named by the banner's `profile=`,
//! or pollwake's of several, each row naming its series first.

use super::{refuse, Names, MAX_SERIES};
use crate::exit::Exit;
use crate::points::console::words;
use crate::points::num;

/// One series of the point: its rows' name, measured rounds, pairs.
#[derive(Clone, Copy, Default)]
pub(super) struct Series<'t> {
    pub name: &'t [u8],
    pub rounds: u32,
    pub pairs: f64,
}

/// The point's series, in table order.
pub(super) struct Table<'t> {
    series: [Series<'t>; MAX_SERIES],
    n: usize,
}

/// A row of the point, with the profile its banner names.
enum Row<'t> {
    /// A round of the series named so.
    Round(&'t [u8]),
    /// The mean row of the series named so, and its pairs.
    Mean(&'t [u8], &'t [u8]),
}

/// The rows of a point's lines (the C standalone's table, or one of
/// several series with the series' name first), each with the series it
/// is of: the banner's `profile=` where the rows do not name one.
fn rows(point: &[u8]) -> impl Iterator<Item = Row<'_>> {
    let mut profile: &[u8] = b"";
    point.split(|&b| b == b'\n').filter_map(move |line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"# uring-repro ") {
            let named = words(line).filter_map(|w| w.strip_prefix(b"profile="));
            profile = named.last().unwrap_or(profile);
            return None;
        }
        if line.starts_with(b"#") || line.iter().all(|&b| b == b' ' || b == b'\t') {
            return None;
        }
        let mut f = fields(line);
        let (f1, f2) = (f.next().unwrap_or(b""), f.next().unwrap_or(b""));
        let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        match () {
            _ if digits(f1) => Some(Row::Round(profile)),
            _ if f1 == b"mean" => Some(Row::Mean(profile, f2)),
            _ if digits(f2) => Some(Row::Round(f1)),
            _ if f2 == b"mean" => Some(Row::Mean(f1, f.next().unwrap_or(b""))),
            _ => None,
        }
    })
}

/// The fields of a row: what lies between runs of blanks (a run at the
/// start or the end leaves an empty field there).
pub(super) fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let mut rest = Some(line);
    core::iter::from_fn(move || {
        let r = rest?;
        match r.iter().position(blank) {
            Some(i) => {
                let after = r[i..]
                    .iter()
                    .position(|b| !blank(b))
                    .map_or(r.len(), |j| i + j);
                rest = Some(&r[after..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

impl<'t> Table<'t> {
    /// The series of `point`, in the order their rows come; the pairs of
    /// each, its last mean row's (0 without one).
    pub fn of(point: &'t [u8], n: &Names) -> Result<Table<'t>, Exit> {
        let mut t = Table {
            series: [Series::default(); MAX_SERIES],
            n: 0,
        };
        for row in rows(point) {
            let Row::Round(name) = row else { continue };
            let at = match t.series[..t.n].iter().position(|s| s.name == name) {
                Some(at) => at,
                None if t.n == MAX_SERIES => {
                    return Err(refuse(n.point, format_args!("more than 16 series")))
                }
                None => {
                    t.n += 1;
                    t.series[t.n - 1].name = name;
                    t.n - 1
                }
            };
            t.series[at].rounds += 1;
        }
        if t.n == 0 {
            return Err(refuse(n.point, format_args!("no measured rounds")));
        }
        for row in rows(point) {
            let Row::Mean(name, pairs) = row else {
                continue;
            };
            if let Some(s) = t.series[..t.n].iter_mut().find(|s| s.name == name) {
                s.pairs = num::value(pairs);
            }
        }
        Ok(t)
    }

    pub fn series(&self) -> &[Series<'t>] {
        &self.series[..self.n]
    }
}
