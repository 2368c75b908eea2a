//! How to reproduce, the draft's last paragraphs: the run's command line
//! rebuilt from what every point states alike, and the `report` command
//! as typed, each word quoted for the shell and the lines split so that,
//! pasted into bash, they give back the very words.

use core::fmt::{self, Write};

use super::{emit, Long, Mail, Para, WIDTH};
use crate::compare::point::Key;
use crate::render::{columns, escape, needs_escape, Bytes, Clean};
use crate::sys::out::Out;

/// A word as the shell reads it back: as is when plain; in `$'...'` with
/// `Clean`'s escapes (bash's) when it holds what `Clean` escapes; else in
/// single quotes (a quote inside as `'\''`).
struct Shell<'b>(&'b [u8]);

impl fmt::Display for Shell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = |&b: &u8| b.is_ascii_alphanumeric() || b"_-./=:,+@%^".contains(&b);
        if !self.0.is_empty() && self.0.iter().all(plain) {
            return Bytes(self.0).fmt(f);
        }
        if needs_escape(self.0) {
            f.write_str("$'")?;
            escape(f, self.0, true)?;
            return f.write_str("'");
        }
        f.write_str("'")?;
        for (i, part) in self.0.split(|&b| b == b'\'').enumerate() {
            if i > 0 {
                f.write_str("'\\''")?;
            }
            Bytes(part).fmt(f)?;
        }
        f.write_str("'")
    }
}

/// A command line as the draft shows it: words indented 2, continued with
/// ` \` and indent 4, so that every line fits WIDTH. A word too long for a
/// line is split with the shell's own line continuation (a backslash at the
/// end of the line, the word going on at column 0; a quote is closed before
/// it and opened again after), so the lines pasted into a shell give back
/// the very words.
#[derive(Default)]
struct CommandLine {
    col: usize,
}

impl CommandLine {
    /// Each word of `words`, a NUL after each (no argument holds one: a
    /// quoted word keeps its blanks).
    fn words(&mut self, out: &mut Out, words: &Para) {
        for word in words.as_str().split('\0').filter(|w| !w.is_empty()) {
            self.word(out, word);
        }
    }

    /// One word, as `Shell` wrote it.
    fn word(&mut self, out: &mut Out, word: &str) {
        let (sep, at): (&str, usize) = match self.col {
            0 => ("  ", 2),
            c if c + 1 + columns(word) + 2 > WIDTH => (" \\\n    ", 4),
            c => (" ", c + 1),
        };
        out.bytes(sep.as_bytes());
        self.col = at;
        // Where the word is: outside quotes, in '...' or in $'...'.
        let (mut quote, mut rest) = ("", word);
        while let Some(c) = rest.chars().next() {
            // The unit not to split: an escape is whole, `$'` too.
            let len = match (quote, c) {
                ("", '$') if rest.starts_with("$'") => 2,
                ("", '\\') => 2,
                ("$'", '\\') => match rest.as_bytes().get(1) {
                    Some(b'x') => 4,
                    Some(b'u') => 6,
                    _ => 2,
                },
                _ => c.len_utf8(),
            };
            // An escape is ASCII: `len` is always a boundary (else one char).
            let (unit, after) = rest
                .split_at_checked(len)
                .unwrap_or_else(|| rest.split_at_checked(c.len_utf8()).unwrap_or((rest, "")));
            // Room for the unit and a closing `'\` after it.
            if self.col + columns(unit) + 2 > WIDTH {
                let close = if quote.is_empty() { "\\\n" } else { "'\\\n" };
                out.bytes(close.as_bytes());
                out.bytes(quote.as_bytes());
                self.col = quote.len();
            }
            out.bytes(unit.as_bytes());
            self.col += columns(unit);
            quote = match (quote, unit) {
                ("", "'") => "'",
                ("", "$'") => "$'",
                (_, "'") => "",
                (q, _) => q,
            };
            rest = after;
        }
    }

    fn end(self, out: &mut Out) {
        out.bytes(b"\n");
    }
}

impl Mail<'_, '_> {
    /// The run's command line from the banner facts, the tool and its
    /// contract, this command line, the links.
    pub(super) fn reproduce(&self, argv: &mut dyn Iterator<Item = &[u8]>, out: &mut Out) {
        let mut p = Para::new();
        let _ = p.write_str("To reproduce, boot each kernel");
        if self.an.icount() {
            let _ = p.write_str(" under QEMU TCG with -icount shift=0 (as the points were)");
        }
        let _ = p.write_str(" and run there");
        if let Some((v, _)) = self.common(Key::Version) {
            let _ = write!(p, " (uring-repro {}", Clean(v));
            if let Some((h, _)) = self.common(Key::Sha) {
                let _ = write!(p, ", contract sha256 {}", Clean(h));
            }
            let _ = p.write_str(")");
        }
        let _ = p.write_str(":");
        emit(out, &p, 0, false);
        let mut c = Para::new();
        let _ = c.write_str("uring-repro\0run\0");
        // The run's options: only what every point states alike (a value
        // some points state is not the others' command).
        if let Some(v) = self.every(Key::Profile) {
            // The short name the series lines state; without them the
            // profile as the points state it, which --profile takes too.
            let short = self.series().map_or(v, |s| s.option);
            let _ = write!(c, "--profile\0{}\0", Shell(short));
        }
        for (f, opt) in [
            (Key::Cpu, "--cpu"),
            (Key::Slots, "--slots"),
            (Key::Cycles, "--cycles"),
            (Key::Rounds, "--rounds"),
            (Key::Warmups, "--warmups"),
            (Key::Timeout, "--timeout"),
            (Key::InjectNs, "--inject-ns"),
        ] {
            if let Some(v) = self.every(f) {
                let _ = write!(c, "{opt}\0{}\0", Shell(v));
            }
        }
        for (f, on, opt) in [
            (Key::Futex, &b"shared"[..], "--shared\0"),
            (Key::Witness, b"on", "--witness\0"),
        ] {
            if self.every(f) == Some(on) {
                let _ = c.write_str(opt);
            }
        }
        let _ = c.write_str(">\0point.txt");
        let mut line = CommandLine::default();
        line.words(out, &c);
        line.end(out);
        out.bytes(b"\nThis draft was made with:\n\n");
        let mut line = CommandLine::default();
        line.word(out, "uring-repro");
        for arg in argv {
            let mut w = Long::new();
            let _ = write!(w, "{}", Shell(arg));
            line.word(out, w.as_str());
        }
        line.end(out);
        if self.d.n_links > 0 {
            out.bytes(b"\n");
        }
        for l in self.d.links[..self.d.n_links].iter().flatten() {
            let _ = writeln!(out, "Link: {}", Clean(l));
        }
    }
}
