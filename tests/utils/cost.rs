//! What the tests of the cost lines share: the "Where the cost went"
//! section of compare's text or the mail, a wrapped text read as one line,
//! and a point made as a counter that did not count locked instructions
//! makes it.

/// The cost section of compare's text or of the mail: from its heading to
/// the blank line after it.
pub fn section(out: &str) -> &str {
    let at = out
        .find("Where the cost went, ")
        .unwrap_or_else(|| panic!("no cost section in:\n{out}"));
    let end = out[at..].find("\n\n").map_or(out.len(), |e| at + e + 1);
    &out[at..end]
}

/// `text` without its line breaks (a wrapped sentence), words one blank
/// apart.
pub fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A point of ours with its locked counts taken out, as a counter that did
/// not count them writes its lines (docs/cost.md): no `locked=x86-lock`
/// on the method line, no `user_locked=` and what follows it on the series
/// line, no `locked` lines.
pub fn uncounted(point: &str) -> String {
    point
        .lines()
        .filter(|l| !l.starts_with("# cost: locked "))
        .map(|l| {
            let l = l.replace(" locked=x86-lock", "");
            match l.find(" user_locked=") {
                Some(at) if l.starts_with("# cost: series ") => l[..at].to_owned(),
                _ => l,
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}
