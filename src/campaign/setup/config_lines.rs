//! Where a key of `campaign.toml` is written, so that a message about its
//! value (not only about its type, which the TOML parser locates) names the
//! file and line: `campaign.toml:7: limits.time must be …`.
//!
//! Validation finds a [`BadValue`] that says which key is wrong; the
//! loader, which has the text, turns it into `FILE:LINE: message` with
//! [`located`], and the preflight reports it beside its own problems, in
//! one list ([`all_at_once`]). The lookup reads the text line by line (table headers and
//! `key = …` lines), which is all a config written by hand or by
//! `coreval init` uses; a key it cannot find gives the table's header line,
//! or no line.

use std::fmt;
use std::path::Path;

/// A key of the config file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A key of the top level (`benchmarks`) or of a table (`limits.time`):
    /// the table (empty for the top level) and the key.
    Table(&'static str, &'static str),
    /// A key of the N-th (0-based) `[[solver]]` entry; an empty key means
    /// the entry itself.
    Solver(usize, &'static str),
}

/// A config value that cannot work, with the key that holds it.
#[derive(Debug)]
pub struct BadValue {
    pub key: Key,
    pub message: String,
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BadValue {}

/// A value at `key` that cannot work.
pub fn bad_value(key: Key, message: impl Into<String>) -> BadValue {
    BadValue {
        key,
        message: message.into(),
    }
}

/// Every value of a config that cannot work, so that one run reports
/// them all ([`located`] gives their lines).
#[derive(Debug)]
pub struct BadValues(pub Vec<BadValue>);

impl fmt::Display for BadValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<&str> = self.0.iter().map(|b| b.message.as_str()).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for BadValues {}

/// One error of every problem found in the config file `config`, each
/// problem a line (`config:LINE: …`, in the order of their lines), under
/// a line that counts them when there are several.
pub fn all_at_once(config: &Path, mut problems: Vec<String>) -> anyhow::Error {
    let prefix = format!("{}:", config.display());
    let line = |p: &String| -> usize {
        (p.strip_prefix(&prefix))
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX)
    };
    problems.sort_by_key(line);
    problems.dedup();
    if problems.len() == 1 {
        return anyhow::anyhow!("{}", problems[0]);
    }
    anyhow::anyhow!(
        "{} problems in {}, all to fix before anything runs:\n{}",
        problems.len(),
        config.display(),
        problems.join("\n")
    )
}

/// The 1-based line where `key` is written in `text`: the `key = …` line,
/// else the header of its table (or `[[solver]]` entry).
pub fn line_of(text: &str, key: Key) -> Option<usize> {
    let (table, name, entry) = match key {
        Key::Table(t, k) => (t, k, None),
        Key::Solver(i, k) => ("solver", k, Some(i)),
    };
    let mut current = String::new();
    let mut solvers_seen = 0usize;
    let mut header = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[') {
            let array = h.starts_with('[');
            let h = h.trim_start_matches('[');
            let h = h.split(']').next().unwrap_or("").trim();
            current = h.to_string();
            let in_entry = if array && h == "solver" {
                solvers_seen += 1;
                entry.is_none_or(|n| solvers_seen == n + 1)
            } else {
                entry.is_none()
            };
            if current == table && in_entry {
                header = Some(i + 1);
                if name.is_empty() {
                    return header;
                }
            }
            continue;
        }
        let in_table = current == table && (entry.is_none() || header.is_some());
        let wrong_entry = entry.is_some_and(|n| solvers_seen != n + 1);
        if !in_table || wrong_entry {
            continue;
        }
        let k = line
            .split('=')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"');
        if !name.is_empty() && k == name && line.contains('=') {
            return Some(i + 1);
        }
    }
    header
}

/// Each of `values`, read from the config file `path` whose text is
/// `text`, as the line the user reads: `PATH:LINE: message` where its key
/// is found, else `PATH: message`.
pub fn located(values: &[BadValue], path: &Path, text: &str) -> Vec<String> {
    (values.iter())
        .map(|b| match line_of(text, b.key) {
            Some(l) => format!("{}:{l}: {}", path.display(), b.message),
            None => format!("{}: {}", path.display(), b.message),
        })
        .collect()
}

/// `PATH:LINE` of `key` in the config file `path` (read again), or just
/// `PATH` when the file or the key cannot be found.
pub fn where_is(path: &Path, key: Key) -> String {
    let line = crate::store::regular::read_to_string(path)
        .ok()
        .and_then(|t| line_of(&t, key));
    match line {
        Some(l) => format!("{}:{l}", path.display()),
        None => path.display().to_string(),
    }
}

/// 1-based line and column (in characters) of byte `at` of `bytes`.
pub(super) fn line_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count();
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "benchmarks = \"b\"\n\n[limits]\ntime = -1\n\n[[solver]]\nname = \"a\"\n\
                        definition = \"z3\"\n\n[[solver]]\nname = \"b\"\ncommand = [\"./x\", \"{file}\"]\n";

    #[test]
    fn keys_are_found_in_their_table_and_entry() {
        assert_eq!(line_of(TEXT, Key::Table("", "benchmarks")), Some(1));
        assert_eq!(line_of(TEXT, Key::Table("limits", "time")), Some(4));
        assert_eq!(line_of(TEXT, Key::Table("limits", "grace")), Some(3));
        assert_eq!(line_of(TEXT, Key::Table("check", "checkers")), None);
        assert_eq!(line_of(TEXT, Key::Solver(0, "definition")), Some(8));
        assert_eq!(line_of(TEXT, Key::Solver(1, "command")), Some(12));
        assert_eq!(line_of(TEXT, Key::Solver(1, "")), Some(10));
        assert_eq!(line_of(TEXT, Key::Solver(1, "definition")), Some(10));
    }
}
